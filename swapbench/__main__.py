"""`python -m swapbench`: the command line."""

from .commands.main import run

run()
