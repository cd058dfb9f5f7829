"""``python -m api``: the same as ``seed3d serve`` (and ``python -m api api-key ...`` for keys)."""

from __future__ import annotations

import sys

from api.cli import main

if __name__ == "__main__":
    sys.exit(main())
