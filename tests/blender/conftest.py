"""Make the add-on's plain-Python client importable as ``seed3d_client`` (it lives in blender/, outside the package)."""

from __future__ import annotations

import sys
from pathlib import Path

ADDON_DIR = Path(__file__).resolve().parents[2] / "blender"
if str(ADDON_DIR) not in sys.path:
    sys.path.insert(0, str(ADDON_DIR))
