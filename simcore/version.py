"""The engine version written into every run file's metadata (and keying the compile cache), and
the version of the run files' layout."""
__version__ = "0.1.0"

SCHEMA_VERSION = 2
"""The layout of a run file (its columns and its ``balance`` metadata).  Bump it when either
changes incompatibly: files of another schema are refused with one line (``analysis.summary.load``).
1 was every file written before the metadata carried ``schema`` (it had no such key)."""
