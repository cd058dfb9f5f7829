"""Shared type aliases (one place, as trimesh does)."""

from __future__ import annotations

from collections.abc import Callable
from os import PathLike
from typing import TypeAlias

import numpy as np
from numpy.typing import NDArray

PathType: TypeAlias = str | PathLike[str]
FloatArray: TypeAlias = NDArray[np.float64]
IntArray: TypeAlias = NDArray[np.int64]
UInt8Array: TypeAlias = NDArray[np.uint8]
Vec3: TypeAlias = tuple[float, float, float]
ProgressCallback: TypeAlias = Callable[[float, str], None]
"""``progress(fraction done in [0, 1], message)``: how long work reports where it is."""

__all__ = ["FloatArray", "IntArray", "NDArray", "PathType", "ProgressCallback", "UInt8Array", "Vec3"]
