"""Entry point for `python -m n2o_core`."""

import gc
import sys

from n2o_core.cli.main import main

if __name__ == "__main__":
    rc = main()
    # The process ends here. Frozen objects are left out of the interpreter's last collection, which would walk
    # everything still alive (a 1M-line corpus, its neighbor arrays, every module) only to free it, a measurable part of
    # a `compare` on 1M rows (measured: benchmarks/README.md, 'Measurements behind the code's choices'). Nothing is
    # lost: atexit handlers still run and the OS frees the memory.
    gc.freeze()
    sys.exit(rc)
