"""``python -m treegen`` entry point."""

from __future__ import annotations

import sys

from treegen.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
