"""Shared test assets for the exporter tests: the demo cabinet made simulation-ready, and small builders."""

from __future__ import annotations

import functools

import numpy as np

from seed3d.asset import Asset, Inertial, Joint, Mesh, Part, PBRMaterial, PhysicalMaterial
from seed3d.synth.primitives import box, demo_cabinet


def fill_physics(asset: Asset) -> Asset:
    """A copy whose parts get one convex hull each and an inertial from trimesh (no seed3d.physics needed)."""
    import trimesh

    out = asset.copy()
    for part in out.parts:
        tm = trimesh.Trimesh(part.mesh.vertices, part.mesh.faces, process=True)
        if part.label == "body":  # two hulls (vertices clamped to each half in z): one collision per hull
            lo, hi = tm.bounds[:, 2]
            halves = [np.column_stack([tm.vertices[:, :2], np.clip(tm.vertices[:, 2], a, b)])
                      for a, b in ((lo, (lo + hi) / 2), ((lo + hi) / 2, hi))]
            hulls = [trimesh.convex.convex_hull(h) for h in halves]
        else:
            hulls = [tm.convex_hull]
        part.collision = [Mesh(h.vertices, h.faces) for h in hulls]
        tm.density = part.physical.density
        props = tm.mass_properties
        part.inertial = Inertial(props["mass"], props["center_mass"], props["inertia"], "mesh")
    return out


def make_ready(asset: Asset) -> Asset:
    """Hulls and inertials from ``seed3d.physics.prepare`` when it exists, else from ``fill_physics``."""
    try:
        from seed3d.physics import prepare
    except ImportError:
        return fill_physics(asset)
    return prepare(asset)


@functools.lru_cache(maxsize=1)
def _cabinet() -> Asset:
    return make_ready(demo_cabinet())


def ready_cabinet() -> Asset:
    """The demo cabinet with collision hulls and inertials (computed once per test session)."""
    return _cabinet().copy()


def gadget() -> Asset:
    """A 3-part asset with a continuous joint and a tilted prismatic joint, textures with distinct channels.

    The MR map has roughness (G) rising along u and constant metallic (B) = 40, so a channel swap shows.
    """
    size = 16
    u = np.linspace(0, 1, size)
    mr = np.zeros((size, size, 3), np.uint8)
    mr[..., 0] = 7
    mr[..., 1] = (60 + 180 * u)[None, :].astype(np.uint8)  # roughness varies along u (columns)
    mr[..., 2] = 40  # metallic constant
    color = np.zeros((size, size, 4), np.uint8)
    color[..., 0] = 200
    color[..., 1] = (255 * u)[:, None].astype(np.uint8)
    color[..., 2] = 30
    color[..., 3] = 255
    textured = PBRMaterial("paint & <gloss>", (0.9, 0.8, 0.7, 1.0), metallic=0.25, roughness=0.75,
                           base_color_map=color, metallic_roughness_map=mr)
    plain = PBRMaterial("blue", (0.1, 0.2, 0.8, 1.0), metallic=0.0, roughness=0.4)
    rubber = PhysicalMaterial("rubber", density=1300.0, friction=0.9, restitution=0.6)
    base = box([-0.2, -0.2, 0.0], [0.2, 0.2, 0.1], uv=True)
    wheel = box([-0.05, 0.2, 0.0], [0.05, 0.25, 0.1])
    slider = box([0.1, -0.05, 0.1], [0.2, 0.05, 0.15], uv=True)
    parts = [
        Part("base", base, "base", textured),
        Part("wheel", wheel, "wheel", plain, rubber),
        Part("slider", slider, "other", plain),
    ]
    joints = [
        Joint("wheel_spin", "continuous", "base", "wheel", origin=[0.0, 0.225, 0.05], axis=[0, 2, 0],
              damping=0.05, friction=0.01, effort=3.0, velocity=20.0),
        Joint("slider_rail", "prismatic", "base", "slider", origin=[0.15, 0.0, 0.1], axis=[1, 0, 1],
              lower=-0.02, upper=0.05, damping=2.0, friction=0.3),
    ]
    return Asset("gadget", parts, joints)


def rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """3x3 right-handed rotation by ``angle`` about unit ``axis`` (Rodrigues)."""
    a = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)


def folder_bytes(folder) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    """Every file under ``folder`` as relative path → bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


#: Quadrant colours of ``quadrant_cube``'s texture as seen upright: top-left, top-right, bottom-left, bottom-right.
QUADRANTS = ((255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255))


def quadrant_cube() -> Asset:
    """A 1 m cube whose faces show a 2x2 texture (red, green / blue, white): an upright image on every side."""
    img = np.zeros((32, 32, 3), np.uint8)
    for (rows, cols), rgb in zip(((0, 0), (0, 1), (1, 0), (1, 1)), QUADRANTS, strict=True):
        img[rows * 16:(rows + 1) * 16, cols * 16:(cols + 1) * 16] = rgb
    cube = box([-0.5, -0.5, 0.0], [0.5, 0.5, 1.0], uv=True)
    material = PBRMaterial("quadrants", (1.0, 1.0, 1.0, 1.0), metallic=0.0, roughness=1.0, base_color_map=img)
    hull = box([-0.5, -0.5, 0.0], [0.5, 0.5, 1.0])
    part = Part("cube", cube, material=material, collision=[hull],
                inertial=Inertial(1000.0, [0, 0, 0.5], np.eye(3) * 1000.0 / 6))
    return Asset("quadrants", [part])


def dominant(pixel: np.ndarray) -> tuple[int, int, int]:
    """Which of the quadrant colours a rendered (shaded) pixel is: channels above half its brightest one."""
    rgb = np.asarray(pixel[:3], float)
    return tuple(int(c > 0.5 * rgb.max()) * 255 for c in rgb)  # type: ignore[return-value]
