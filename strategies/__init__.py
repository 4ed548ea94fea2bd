"""Strategies: one module per game (built-ins compiled into the kernel's dispatch) and the
registry that maps names to ids.  User plug-ins load from a file path (simcore/plugins/)."""
