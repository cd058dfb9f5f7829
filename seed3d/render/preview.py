"""Turntable previews of an asset: views around it at one elevation, as a PNG strip and an animated GIF.

Views orbit the bounding sphere (``rigs.orbit_camera``) counter-clockwise seen from above, starting at the
front-left corner; lighting follows the camera (the default ``Lighting``), on a white background. Every view
goes through one ``Renderer`` (the mesh is converted and uploaded once).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from seed3d.asset import Asset, atomic_file
from seed3d.errors import InvalidInputError
from seed3d.render.geometry import RenderMesh, as_render_mesh
from seed3d.render.renderer import Renderer, Target, get_renderer
from seed3d.render.rigs import orbit_camera
from seed3d.render.shading import Lighting
from seed3d.typed import PathType, UInt8Array


def turntable(target: Target, frames: int = 8, size: int = 256, elevation: float = 20.0, start: float = 30.0,
              renderer: Renderer | None = None, supersample: int = 2) -> list[UInt8Array]:
    """``frames`` RGB views (size × size, uint8) evenly spaced in azimuth from ``start`` degrees."""
    if frames < 1 or size < 8:
        raise InvalidInputError(f"a turntable needs frames >= 1 and size >= 8, got {frames} and {size}")
    mesh = as_render_mesh(target) if not isinstance(target, RenderMesh) else target
    own = renderer is None
    r = renderer or get_renderer()
    try:
        lighting = Lighting()
        images = []
        for k in range(frames):
            cam = orbit_camera(mesh, start + 360.0 * k / frames, elevation, size)
            rgba = r.render_image(mesh, cam, lighting, supersample=supersample)
            images.append(np.clip(np.round(rgba[..., :3] * 255), 0, 255).astype(np.uint8))
        return images
    finally:
        if own:
            r.close()


def strip(images: Sequence[UInt8Array]) -> UInt8Array:
    """Images of one height side by side."""
    if not images:
        raise InvalidInputError("no images to put side by side")
    return np.concatenate(list(images), axis=1)


def write_preview(asset: Asset | Target, png: PathType, gif: PathType | None = None, views: int = 4,
                  size: int = 256, gif_frames: int = 24, gif_size: int = 192,
                  renderer: Renderer | None = None) -> dict[str, Path]:
    """Write a PNG strip of ``views`` turntable views (and, when ``gif`` is given, an animated turntable GIF
    looping at 12 frames per second), atomically; returns {"png": path[, "gif": path]}."""
    from PIL import Image

    mesh = as_render_mesh(asset)
    own = renderer is None
    r = renderer or get_renderer()
    out: dict[str, Path] = {}
    try:
        with atomic_file(png) as tmp:
            Image.fromarray(strip(turntable(mesh, views, size, renderer=r))).save(tmp, format="PNG")
        out["png"] = Path(png)
        if gif is not None:
            frames = [Image.fromarray(f).convert("P", palette=Image.Palette.ADAPTIVE, colors=255)
                      for f in turntable(mesh, gif_frames, gif_size, renderer=r)]
            with atomic_file(gif) as tmp:
                frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:], duration=83, loop=0,
                               disposal=2)
            out["gif"] = Path(gif)
    finally:
        if own:
            r.close()
    return out
