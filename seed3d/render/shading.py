"""A small PBR shader: Lambert diffuse + GGX specular under directional key lights and a sky/ground environment.

Direct light: GGX normal distribution, height-correlated Smith visibility and Schlick Fresnel (the glTF
metallic-roughness model, alpha = roughness²). Environment: a radiance that varies linearly with the
world up component, from ``ground`` (looking down) to ``sky`` (looking up); its diffuse part is integrated
exactly, its specular part is read along the reflected ray (pulled towards the diffuse average as
roughness grows) and weighted by an analytic fit of the split-sum environment BRDF. No shadows and no
inter-reflection. Output: linear radiance, then exposure, clip to [0, 1] and sRGB encoding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from seed3d.errors import InvalidInputError
from seed3d.typed import NDArray, Vec3

F32 = NDArray[np.float32]


def _unit(v: Vec3, what: str) -> tuple[float, float, float]:
    a = np.asarray(v, np.float64).reshape(3)
    n = float(np.linalg.norm(a))
    if not np.isfinite(n) or n < 1e-12:
        raise InvalidInputError(f"{what} must be a non-zero finite 3-vector, got {list(a)}")
    return tuple((a / n).tolist())  # type: ignore[return-value]


def _colour(c: Vec3, what: str) -> tuple[float, float, float]:
    a = np.asarray(c, np.float64).reshape(3)
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise InvalidInputError(f"{what} must be three finite values >= 0, got {list(a)}")
    return tuple(a.tolist())  # type: ignore[return-value]


@dataclass
class DirectionalLight:
    """A light at infinity: ``direction`` points from the surface towards the light; irradiance = colour × intensity.

    A white Lambertian surface facing a light of intensity π has radiance 1 (pure white after shading).
    """

    direction: Vec3
    color: Vec3 = (1.0, 1.0, 1.0)
    intensity: float = 2.0

    def __post_init__(self) -> None:
        self.direction = _unit(self.direction, "light direction")
        self.color = _colour(self.color, "light colour")
        if not (np.isfinite(self.intensity) and self.intensity >= 0):
            raise InvalidInputError(f"light intensity must be >= 0, got {self.intensity}")
        self.intensity = float(self.intensity)


def _default_lights() -> tuple[DirectionalLight, ...]:
    # camera frame (OpenCV: x right, y down, z forward): key from the upper left in front, a cool fill from
    # the right and a rim light from behind
    return (
        DirectionalLight((-0.55, -0.65, -0.52), (1.0, 0.96, 0.9), 2.2),
        DirectionalLight((0.8, -0.15, -0.58), (0.85, 0.9, 1.0), 0.7),
        DirectionalLight((0.25, -0.7, 0.67), (1.0, 1.0, 1.0), 1.0),
    )


@dataclass
class Lighting:
    """Key lights, a sky/ground environment (world +Z up), exposure and the background colour of RGB renders.

    With ``frame="camera"`` light directions are in the camera frame (OpenCV: x right, y down, z forward,
    so (-1, -1, -1) is upper-left and in front of the object), and lights follow the camera; with
    ``frame="world"`` they are in the asset frame. ``sky`` and ``ground`` are linear radiances.
    """

    lights: tuple[DirectionalLight, ...] = field(default_factory=_default_lights)
    sky: Vec3 = (0.55, 0.6, 0.68)
    ground: Vec3 = (0.22, 0.2, 0.18)
    frame: Literal["camera", "world"] = "camera"
    exposure: float = 1.0
    background: Vec3 = (1.0, 1.0, 1.0)
    """sRGB colour behind the object in ``rgb`` buffers."""
    seed: int | None = None
    """The seed ``Lighting.random`` drew this from (None for hand-made lighting)."""

    def __post_init__(self) -> None:
        self.lights = tuple(self.lights)
        self.sky, self.ground = _colour(self.sky, "sky"), _colour(self.ground, "ground")
        bg = _colour(self.background, "background")
        if max(bg) > 1:
            raise InvalidInputError(f"background is an sRGB colour in [0, 1], got {bg}")
        self.background = bg
        if self.frame not in ("camera", "world"):
            raise InvalidInputError(f"lighting frame must be 'camera' or 'world', got {self.frame!r}")
        if not self.exposure > 0:
            raise InvalidInputError(f"exposure must be positive, got {self.exposure}")

    @classmethod
    def random(cls, seed: int, background: Vec3 = (1.0, 1.0, 1.0)) -> Lighting:
        """Random studio lighting, reproducible from ``seed``: 1–3 camera-relative lights (a key light from the
        front hemisphere, fills or rims elsewhere), colour temperatures, sky/ground tints and exposure."""
        rng = np.random.default_rng(seed)
        warm, cool = np.array([1.0, 0.82, 0.64]), np.array([0.72, 0.84, 1.0])

        def tint() -> Vec3:
            c = warm + (cool - warm) * rng.uniform()
            return tuple((c / c.max()).tolist())  # type: ignore[return-value]

        def direction(front: bool) -> Vec3:
            az = rng.uniform(-math.pi, math.pi)
            el = rng.uniform(math.radians(10), math.radians(70))
            side, up, toward = math.cos(el) * math.sin(az), math.sin(el), math.cos(el) * math.cos(az)
            if front:
                toward = abs(toward) + 0.3
            return (side, -up, -toward)  # camera frame: y down, z away from the viewer

        n = int(rng.integers(1, 4))
        lights = [DirectionalLight(direction(True), tint(), float(rng.uniform(1.6, 3.0)))]
        lights += [DirectionalLight(direction(False), tint(), float(rng.uniform(0.3, 1.4))) for _ in range(n - 1)]
        sky_level, ground_level = rng.uniform(0.3, 0.8), rng.uniform(0.1, 0.3)
        sky = np.array(tint()) * sky_level
        ground = np.array(tint()) * ground_level
        return cls(tuple(lights), tuple(sky.tolist()), tuple(ground.tolist()), "camera",
                   float(rng.uniform(0.85, 1.15)), background, seed)


def _env_brdf(roughness: F32, n_dot_v: F32) -> tuple[F32, F32]:
    """Scale and bias on F0 of the split-sum environment BRDF (analytic fit, Karis 2014 after Lazarov 2013)."""
    r0 = roughness * -1.0 + 1.0
    r1 = roughness * -0.0275 + 0.0425
    r2 = roughness * -0.572 + 1.04
    r3 = roughness * 0.022 - 0.04
    a004 = np.minimum(r0 * r0, np.exp2(-9.28 * n_dot_v)) * r0 + r1
    return a004 * -1.04 + r2, a004 * 1.04 + r3


def shade(albedo: F32, metallic: F32, roughness: F32, normal: F32, to_camera: F32, lighting: Lighting,
          world_to_camera_rotation: NDArray[np.float64]) -> F32:
    """Linear radiance (N, 3) towards the camera of N surface points.

    ``normal`` and ``to_camera`` (unit, surface to eye) are world-space (N, 3); normals facing away from the
    camera are flipped, so open surfaces shade from both sides.
    """
    # Work on (3, N) rows: per-pixel dot products become sums of three contiguous rows (no small matmuls).
    v = np.ascontiguousarray(to_camera.T, dtype=np.float32)
    n = np.ascontiguousarray(normal.T, dtype=np.float32)
    base = np.ascontiguousarray(albedo.T, dtype=np.float32)
    metal = np.asarray(metallic, np.float32)
    n_dot_v = n[0] * v[0] + n[1] * v[1] + n[2] * v[2]
    n *= np.where(n_dot_v < 0, -1.0, 1.0).astype(np.float32)
    n_dot_v = np.clip(np.abs(n_dot_v), 1e-4, 1.0)
    rough = np.clip(np.asarray(roughness, np.float32), 0.045, 1.0)
    alpha2 = (rough * rough) ** 2
    f0 = 0.04 * (1.0 - metal) + base * metal
    diffuse = base * (1.0 - metal)

    radiance = np.zeros_like(base)
    rot = np.asarray(world_to_camera_rotation, np.float64)
    for light in lighting.lights:
        d = np.asarray(light.direction, np.float64)
        lx, ly, lz = (rot.T @ d if lighting.frame == "camera" else d).tolist()
        n_dot_l = np.clip(n[0] * lx + n[1] * ly + n[2] * lz, 0.0, 1.0)
        hx, hy, hz = v[0] + lx, v[1] + ly, v[2] + lz
        inv = 1.0 / np.maximum(np.sqrt(hx * hx + hy * hy + hz * hz), 1e-8)
        n_dot_h = np.clip((n[0] * hx + n[1] * hy + n[2] * hz) * inv, 0.0, 1.0)
        v_dot_h = np.clip((v[0] * hx + v[1] * hy + v[2] * hz) * inv, 0.0, 1.0)
        dist = alpha2 / (np.pi * (n_dot_h * n_dot_h * (alpha2 - 1.0) + 1.0) ** 2)
        vis = 0.5 / (n_dot_l * np.sqrt(n_dot_v * n_dot_v * (1 - alpha2) + alpha2)
                     + n_dot_v * np.sqrt(n_dot_l * n_dot_l * (1 - alpha2) + alpha2) + 1e-7)
        fresnel = f0 + (1.0 - f0) * (1.0 - v_dot_h) ** 5
        brdf = diffuse * np.float32(1 / np.pi) + fresnel * (dist * vis)
        irradiance = np.asarray(light.color, np.float32)[:, None] * np.float32(light.intensity) * n_dot_l
        radiance += brdf * irradiance

    # environment: linear gradient L(d) = a + b * d_z  =>  irradiance / pi = a + (2/3) b n_z exactly
    sky, ground = np.asarray(lighting.sky, np.float32)[:, None], np.asarray(lighting.ground, np.float32)[:, None]
    mid, half_span = (sky + ground) / 2, (sky - ground) / 2
    env_diffuse = mid + np.float32(2.0 / 3.0) * half_span * n[2]
    radiance += diffuse * env_diffuse
    refl_z = 2.0 * n_dot_v * n[2] - v[2]  # up component of the reflected view ray
    blur = rough * rough  # rough lobes see the average of the sky, not its value along one ray
    spec_env = (mid + half_span * np.clip(refl_z, -1.0, 1.0)) * (1 - blur) + env_diffuse * blur
    scale, bias = _env_brdf(rough, n_dot_v)
    radiance += spec_env * (f0 * scale + bias)
    return np.ascontiguousarray(radiance.T)
