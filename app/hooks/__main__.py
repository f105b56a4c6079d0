"""`python -m ccarchive.hooks EVENT`: the same hook entry as the `ccarchive-hook` command."""

import sys

from ccarchive.hooks.main import main

sys.exit(main(prog="python -m ccarchive.hooks"))
