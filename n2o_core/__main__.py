"""Entry point for `python -m n2o_core`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
