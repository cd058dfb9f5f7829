"""Shared type aliases (one place, as trimesh does)."""

from __future__ import annotations

from os import PathLike
from typing import TypeAlias

import numpy as np
from numpy.typing import NDArray

PathType: TypeAlias = str | PathLike[str]
FloatArray: TypeAlias = NDArray[np.float64]
IntArray: TypeAlias = NDArray[np.int64]
UInt8Array: TypeAlias = NDArray[np.uint8]
Vec3: TypeAlias = tuple[float, float, float]

__all__ = ["FloatArray", "IntArray", "NDArray", "PathType", "UInt8Array", "Vec3"]
