"""The renderer: a backend gives triangle ids and barycentrics; every other buffer is computed here, once.

Buffers of one view (``RenderBuffers``; H x W images, background where ``mask`` is False):

==============  ===========  ==================================================================  ==========
name            dtype/shape  meaning                                                             background
==============  ===========  ==================================================================  ==========
tri_id          int32        index into ``RenderMesh.faces`` (parts concatenated in order)       -1
bary            f32 (3)      perspective-correct barycentrics w.r.t. the face's 3 vertices       0
mask            bool         a surface covers the pixel centre                                    False
depth           f32          camera-frame z in meters (OpenCV camera, see ``camera``)             0
position        f32 (3)      surface point, world (asset) frame, meters                           0
canonical       f32 (3)      position scaled into the unit cube of the mesh bounds (see below)    0
normal          f32 (3)      unit world normal (face normals by default, see ``normals``)         0
normal_camera   f32 (3)      the same normal in camera axes (x right, y down, z forward)          0
uv              f32 (2)      interpolated texture coordinates (0 on parts without UVs)            0
part_id         int32        index of the part (``Asset.parts`` order; 0 for a single mesh)       -1
albedo          f32 (3)      linear base colour = factor × sRGB-decoded map                       0
metallic        f32          factor × map B                                                       0
roughness       f32          factor × map G                                                       0
rgb             f32 (3)      shaded colour, sRGB-encoded in [0, 1], over ``lighting.background``  background
==============  ===========  ==================================================================  ==========

Canonical coordinates: ``(position - centre) / longest_side + 0.5``, so the bounds' centre maps to 0.5,
the longest side spans [0, 1] and the shape is not distorted. Normals keep the mesh's winding (outward on
a closed, well-oriented mesh), even when the camera sees a back face; shading alone flips them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Literal

import numpy as np

from seed3d.asset import Asset, Mesh, PBRMaterial
from seed3d.errors import InvalidInputError
from seed3d.render.backends import Raster, RasterBackend, create_backend
from seed3d.render.camera import Camera
from seed3d.render.geometry import RenderMesh, as_render_mesh
from seed3d.render.materials import evaluate_materials, linear_to_srgb, srgb_to_linear
from seed3d.render.shading import Lighting, shade
from seed3d.typed import NDArray

log = logging.getLogger(__name__)

#: Every buffer the renderer can produce, in a stable order.
BUFFERS: tuple[str, ...] = ("tri_id", "bary", "mask", "depth", "position", "canonical", "normal", "normal_camera",
                            "uv", "part_id", "albedo", "metallic", "roughness", "rgb")
#: Buffers the texture model's geometry conditioning uses.
GEOMETRY_BUFFERS: tuple[str, ...] = ("mask", "depth", "position", "canonical", "normal", "normal_camera")
_NEEDS: dict[str, tuple[str, ...]] = {
    "depth": ("position",), "canonical": ("position",), "normal_camera": ("normal",),
    "albedo": ("uv", "part_id"), "metallic": ("albedo",), "roughness": ("albedo",),
    "rgb": ("position", "normal", "albedo"),
}

Target = Asset | Mesh | RenderMesh


@dataclass(eq=False)
class RenderBuffers:
    """The buffers of one view (see the module table); buffers that were not asked for are None."""

    camera: Camera
    backend: str
    tri_id: NDArray[np.int32]
    bary: NDArray[np.float32]
    mask: NDArray[np.bool_]
    depth: NDArray[np.float32] | None = None
    position: NDArray[np.float32] | None = None
    canonical: NDArray[np.float32] | None = None
    normal: NDArray[np.float32] | None = None
    normal_camera: NDArray[np.float32] | None = None
    uv: NDArray[np.float32] | None = None
    part_id: NDArray[np.int32] | None = None
    albedo: NDArray[np.float32] | None = None
    metallic: NDArray[np.float32] | None = None
    roughness: NDArray[np.float32] | None = None
    rgb: NDArray[np.float32] | None = None

    def as_dict(self) -> dict[str, np.ndarray]:
        """The computed buffers by name (camera and backend left out)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name in BUFFERS and getattr(self, f.name) is not None}


def _closure(names: Iterable[str]) -> set[str]:
    wanted = set(names)
    unknown = wanted - set(BUFFERS)
    if unknown:
        raise InvalidInputError(f"unknown render buffers {sorted(unknown)}; known: {', '.join(BUFFERS)}")
    stack = list(wanted)
    while stack:
        for dep in _NEEDS.get(stack.pop(), ()):
            if dep not in wanted:
                wanted.add(dep)
                stack.append(dep)
    return wanted


def compute_buffers(mesh: RenderMesh, raster: Raster, camera: Camera, buffers: Iterable[str] = BUFFERS,
                    lighting: Lighting | None = None, normals: Literal["face", "vertex"] = "face",
                    backend: str = "?") -> RenderBuffers:
    """Every requested buffer (and those they need) from a backend's triangle ids and barycentrics."""
    if normals not in ("face", "vertex"):
        raise InvalidInputError(f"normals must be 'face' or 'vertex', got {normals!r}")
    if raster.tri_id.shape != (camera.height, camera.width):
        raise InvalidInputError(f"raster is {raster.tri_id.shape}, camera is {camera.height}x{camera.width}")
    want = _closure(buffers)
    h, w = raster.tri_id.shape
    flat_ids = raster.tri_id.reshape(-1)
    pix = np.flatnonzero(flat_ids >= 0)  # foreground pixels; everything below works on these only
    tri = flat_ids[pix]
    b = raster.bary.reshape(-1, 3)[pix]
    b0, b1, b2 = b[:, 0:1], b[:, 1:2], b[:, 2:3]
    corners = mesh.faces[tri]
    c0, c1, c2 = corners[:, 0], corners[:, 1], corners[:, 2]

    def image(values: np.ndarray, fill: float = 0.0) -> np.ndarray:
        out = np.full((h * w, *values.shape[1:]), fill, dtype=values.dtype)
        out[pix] = values
        return out.reshape(h, w, *values.shape[1:])

    def interpolate(attr: np.ndarray) -> np.ndarray:
        return attr[c0] * b0 + attr[c1] * b1 + attr[c2] * b2

    out = RenderBuffers(camera, backend, raster.tri_id, raster.bary, raster.tri_id >= 0)
    pos = interpolate(mesh.vertices) if "position" in want else None
    if pos is not None:
        out.position = image(pos.astype(np.float32))
        if "depth" in want:
            rz, tz = camera.rotation[2], camera.world_to_camera[2, 3]
            out.depth = image((pos[:, 0] * rz[0] + pos[:, 1] * rz[1] + pos[:, 2] * rz[2] + tz).astype(np.float32))
        if "canonical" in want:
            offset, scale = mesh.canonical_transform
            out.canonical = image(((pos - offset) * scale).astype(np.float32))
    nrm = None
    if "normal" in want:
        if normals == "face":
            nrm = mesh.face_normals[tri]
        else:
            nrm = interpolate(mesh.vertex_normals)
            length = np.linalg.norm(nrm, axis=1, keepdims=True)
            nrm = np.divide(nrm, length, out=mesh.face_normals[tri].copy(), where=length > 1e-12)
        out.normal = image(nrm.astype(np.float32))
        if "normal_camera" in want:
            rot = camera.rotation
            out.normal_camera = image(np.stack([nrm[:, 0] * r[0] + nrm[:, 1] * r[1] + nrm[:, 2] * r[2] for r in rot],
                                               axis=1).astype(np.float32))
    uv = None
    if "uv" in want and mesh.uv is not None:
        uv = interpolate(mesh.uv)
    if "uv" in want:
        out.uv = image((uv if uv is not None else np.zeros((len(pix), 2))).astype(np.float32))
    part = mesh.face_part[tri] if "part_id" in want else None
    if part is not None:
        out.part_id = image(part.astype(np.int32), fill=-1)
    if "albedo" in want:
        albedo, metallic, roughness = evaluate_materials(mesh, part, uv)
        out.albedo, out.metallic, out.roughness = image(albedo), image(metallic), image(roughness)
        if "rgb" in want:
            lighting = lighting or Lighting()
            to_cam = camera.position - pos
            to_cam /= np.maximum(np.sqrt(np.einsum("ij,ij->i", to_cam, to_cam)), 1e-12)[:, None]
            radiance = shade(albedo, metallic, roughness, nrm, to_cam, lighting, camera.rotation)
            rgb = linear_to_srgb(radiance * lighting.exposure)
            canvas = np.broadcast_to(np.asarray(lighting.background, np.float32), (h * w, 3)).copy()
            canvas[pix] = rgb
            out.rgb = canvas.reshape(h, w, 3)
    return out


class Renderer:
    """Renders Assets, Meshes or RenderMeshes through one rasteriser backend (see ``get_renderer``).

    An Asset or Mesh is converted to a new ``RenderMesh`` on every call (and uploaded to the backend again);
    when rendering many views, convert once with ``RenderMesh.from_asset`` or use ``render_views``.
    """

    def __init__(self, backend: str | RasterBackend = "auto", normals: Literal["face", "vertex"] = "face") -> None:
        self.backend = create_backend(backend) if isinstance(backend, str) else backend
        if normals not in ("face", "vertex"):
            raise InvalidInputError(f"normals must be 'face' or 'vertex', got {normals!r}")
        self.normals = normals

    @property
    def backend_name(self) -> str:
        """Name of the backend in use: nvdiffrast, moderngl or open3d."""
        return self.backend.name

    def rasterize(self, target: Target, camera: Camera, material: PBRMaterial | None = None) -> Raster:
        """Triangle ids and barycentrics only (the backend's whole job)."""
        return self.backend.rasterize(as_render_mesh(target, material), camera)

    def render(self, target: Target, camera: Camera, lighting: Lighting | None = None,
               buffers: Iterable[str] = BUFFERS, material: PBRMaterial | None = None) -> RenderBuffers:
        """One view's buffers; ``material`` only for a bare Mesh, ``lighting`` only matters for ``rgb``."""
        mesh = as_render_mesh(target, material)
        raster = self.backend.rasterize(mesh, camera)
        return compute_buffers(mesh, raster, camera, buffers, lighting, self.normals, self.backend.name)

    def render_views(self, target: Target, cameras: Sequence[Camera], lighting: Lighting | None = None,
                     buffers: Iterable[str] = BUFFERS, material: PBRMaterial | None = None) -> list[RenderBuffers]:
        """Several views of the same target (converted and uploaded once)."""
        mesh = as_render_mesh(target, material)
        names = tuple(buffers)
        return [self.render(mesh, cam, lighting, names) for cam in cameras]

    def render_image(self, target: Target, camera: Camera, lighting: Lighting | None = None,
                     supersample: int = 2, material: PBRMaterial | None = None) -> NDArray[np.float32]:
        """An antialiased (H, W, 4) RGBA image in [0, 1]: shaded sRGB colour and coverage alpha.

        Renders at ``supersample`` times the resolution and box-filters colour (over the background, in linear
        light) and alpha.
        """
        if int(supersample) != supersample or supersample < 1:
            raise InvalidInputError(f"supersample must be a positive integer, got {supersample}")
        s = int(supersample)
        big = camera.resized(camera.width * s, camera.height * s)
        buf = self.render(target, big, lighting, ("rgb", "mask"), material)
        rgba = np.concatenate([srgb_to_linear(buf.rgb), buf.mask[..., None].astype(np.float32)], axis=2)
        small = rgba.reshape(camera.height, s, camera.width, s, 4).mean(axis=(1, 3))  # filtered in linear light
        small[..., :3] = linear_to_srgb(small[..., :3])
        return small.astype(np.float32)

    def close(self) -> None:
        """Release the backend's resources."""
        self.backend.close()

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Renderer(backend={self.backend_name!r}, normals={self.normals!r})"


def get_renderer(backend: str = "auto", normals: Literal["face", "vertex"] = "face") -> Renderer:
    """A Renderer on ``backend``: "auto" tries nvdiffrast, then moderngl, then open3d and raises a
    ``DependencyError`` listing why each failed when none works."""
    return Renderer(backend, normals)
