"""``python -m perfeval``: the modern command."""

import _signal

# Ctrl-C before and after the command ends the process quietly, as for the console script (see
# perfeval/__init__.py); main() arms its own handling while the command runs
_signal.signal(_signal.SIGINT, _signal.SIG_DFL)

import sys  # noqa: E402

from perfeval.cli.main import main  # noqa: E402

sys.exit(main())
