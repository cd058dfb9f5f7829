"""Rasteriser backends and how one is chosen: nvdiffrast (CUDA) · moderngl (EGL; the CPU default) · open3d (rays)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from seed3d.errors import DependencyError, InvalidInputError
from seed3d.render.backends.base import Raster, RasterBackend, clip_range

log = logging.getLogger(__name__)


def _nvdiffrast() -> RasterBackend:
    from seed3d.render.backends.nvdiffrast_cuda import NvdiffrastBackend

    return NvdiffrastBackend()


def _moderngl() -> RasterBackend:
    from seed3d.render.backends.moderngl_egl import ModernGLBackend

    return ModernGLBackend()


def _open3d() -> RasterBackend:
    from seed3d.render.backends.open3d_rays import Open3DBackend

    return Open3DBackend()


#: Backends in the order ``"auto"`` tries them.
BACKENDS: dict[str, Callable[[], RasterBackend]] = {
    "nvdiffrast": _nvdiffrast,
    "moderngl": _moderngl,
    "open3d": _open3d,
}


def create_backend(name: str = "auto") -> RasterBackend:
    """A rasteriser backend by name, or the first that works for ``"auto"``; ``DependencyError`` lists failures."""
    if name != "auto" and name not in BACKENDS:
        raise InvalidInputError(f"unknown render backend {name!r}; choose auto, {', '.join(BACKENDS)}")
    names = list(BACKENDS) if name == "auto" else [name]
    failures = []
    for candidate in names:
        try:
            backend = BACKENDS[candidate]()
        except DependencyError as exc:
            failures.append(f"{candidate}: {exc}")
            log.debug("render backend %s unavailable: %s", candidate, exc)
            continue
        log.info("render backend: %s", candidate)
        return backend
    if name != "auto":
        raise DependencyError(f"render backend {failures[0]}")
    raise DependencyError("no render backend works here:\n  " + "\n  ".join(failures))


def available_backends() -> list[str]:
    """Names of the backends that can be created in this process (each is created once to find out)."""
    found = []
    for name in BACKENDS:
        try:
            backend = BACKENDS[name]()
        except DependencyError:
            continue
        backend.close()
        found.append(name)
    return found


__all__ = ["BACKENDS", "Raster", "RasterBackend", "available_backends", "clip_range", "create_backend"]
