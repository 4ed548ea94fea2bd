"""The engine version written into every run file's metadata (and keying the compile cache)."""
__version__ = "0.1.0"
