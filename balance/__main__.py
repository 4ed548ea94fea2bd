"""``python -m balance ARGS`` is ``balance ARGS``."""
from balance.cli import main

main()
