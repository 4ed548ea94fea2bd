"""One module per game: state encoding and rules (``<game>.py``) and the play loop that
calls the strategies (``<game>_run.py``)."""
