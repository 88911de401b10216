"""The ``neardup`` command of the Python package: the same program as the Rust binary."""

import signal
import sys

from . import _neardup


def main() -> None:
    # Python catches SIGINT to raise KeyboardInterrupt between bytecodes, which never come
    # while the engine runs: give the signal back its default action (or --state's
    # handler), so Ctrl-C stops the command as it stops the binary. SIGPIPE stays ignored:
    # the engine treats a closed output pipe as a quiet success.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.exit(_neardup.main(["neardup", *sys.argv[1:]]))
