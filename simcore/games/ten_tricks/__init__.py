"""10 TRICKS LATER: rules.py (encoding), kernel.py (play loop), game.py (driver's view), reference.py (oracle)."""
from simcore.games import encoding_alias

__getattr__ = encoding_alias(f"{__name__}.rules")
