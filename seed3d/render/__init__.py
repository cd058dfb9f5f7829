"""Rendering of assets into per-view buffers, on three interchangeable backends.

Backends (``get_renderer(backend=...)``): ``nvdiffrast`` (CUDA, used when importable), ``moderngl`` (headless
EGL OpenGL; Mesa llvmpipe on CPU — the default here) and ``open3d`` (Embree ray casting; the fallback).
A backend only finds, per pixel centre, the visible triangle and its barycentrics; positions, depth,
normals, part ids, PBR material values and shaded colour are computed from those once, in numpy, so the
backends agree by construction. Cameras follow the OpenCV convention (see ``seed3d.render.camera``).

Example::

    from seed3d.render import Lighting, get_renderer, fixed_views
    renderer = get_renderer()                      # first backend that works
    views = renderer.render_views(asset, fixed_views(asset, 512), Lighting.random(seed=3))
    views[0].normal, views[0].albedo, views[0].rgb
"""

from seed3d.render.backends import BACKENDS, Raster, RasterBackend, available_backends, create_backend
from seed3d.render.camera import Camera, look_at
from seed3d.render.geometry import RenderMesh, as_render_mesh
from seed3d.render.materials import evaluate_materials, linear_to_srgb, sample_bilinear, srgb_to_linear
from seed3d.render.renderer import (
    BUFFERS,
    GEOMETRY_BUFFERS,
    RenderBuffers,
    Renderer,
    compute_buffers,
    get_renderer,
)
from seed3d.render.rigs import (
    TEXTURE_RIG,
    TEXTURE_RIG_FOV_DEG,
    RandomViewConfig,
    bounding_sphere,
    fit_distance,
    fixed_views,
    orbit_camera,
    random_views,
)
from seed3d.render.shading import DirectionalLight, Lighting, shade

__all__ = [
    "BACKENDS", "BUFFERS", "GEOMETRY_BUFFERS", "TEXTURE_RIG", "TEXTURE_RIG_FOV_DEG", "Camera", "DirectionalLight",
    "Lighting", "RandomViewConfig", "Raster", "RasterBackend", "RenderBuffers", "RenderMesh", "Renderer",
    "as_render_mesh", "available_backends", "bounding_sphere", "compute_buffers", "create_backend",
    "evaluate_materials", "fit_distance", "fixed_views", "get_renderer", "linear_to_srgb", "look_at",
    "orbit_camera", "random_views", "sample_bilinear", "shade", "srgb_to_linear",
]
