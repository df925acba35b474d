"""``python -m perfeval``: the modern command."""

import sys

from perfeval.cli.main import main

sys.exit(main())
