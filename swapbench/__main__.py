"""`python -m swapbench`: the command line."""

import sys

from .commands.main import main

sys.exit(main())
