"""The ``analyzer`` command's entry point.

The command line (``analyzer.cli``) loads pandas, matplotlib and scipy, which takes a few
seconds; it is imported here, inside the entry point, so that Ctrl-C while they load is one line
and exit code 130 like every other interruption, not a traceback.
"""

from __future__ import annotations

import os
import signal
import sys

# one OpenBLAS thread per process (workers inherit it): on a busy 2-core machine its threads
# spun against each other and the workers (a report of bootstrap sections: 9.5 -> 7.5 CPU s,
# the same numbers); a user's own setting is kept
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main() -> None:
    """Run the ``analyzer`` command line (``analyzer.cli.app``)."""
    try:
        from analyzer.cli import app as run
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # half-loaded libraries: exit quietly now
        sys.stderr.write("analyzer: interrupted: nothing was saved; run the command again\n")
        raise SystemExit(130) from None
    run()
