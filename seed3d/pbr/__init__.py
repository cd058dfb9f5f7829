"""Texture stage: the multi-view PBR generator (``seed3d.pbr.model``) and UV baking (``seed3d.pbr.bake``).

Baking names are importable from here; they load on first use, so ``import seed3d.pbr`` stays light (the
xatlas child process imports ``seed3d.pbr.unwrap`` through this package).
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "BakeConfig": "seed3d.pbr.bake", "BakeResult": "seed3d.pbr.bake", "PartBake": "seed3d.pbr.bake",
    "bake_asset": "seed3d.pbr.bake", "project_reference_image": "seed3d.pbr.bake",
    "Atlas": "seed3d.pbr.unwrap", "box_atlas": "seed3d.pbr.unwrap", "unwrap_meshes": "seed3d.pbr.unwrap",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'seed3d.pbr' has no attribute {name!r}")
