"""Camera rigs: the fixed multi-view rig of the texture model and seeded random views for conditioning images.

Angles follow the asset frame (+Z up, front faces +X): **azimuth** 0° looks at the front (camera on the +X
side), increasing counter-clockwise seen from above (90° = camera on the +Y side, the object's left);
**elevation** is the angle above the horizontal plane through the look-at point (90° = straight down).
Every rig frames the bounding sphere of the target (centre of its bounding box, radius half its
diagonal), so the whole object is in view whatever its orientation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from seed3d.asset import Asset, Mesh
from seed3d.errors import InvalidInputError
from seed3d.render.camera import FULL_FRAME_SENSOR_MM, Camera, look_at
from seed3d.render.geometry import RenderMesh
from seed3d.typed import FloatArray

#: The texture model's fixed rig as (azimuth°, elevation°): front, left, back, right at the horizon,
#: straight down (front at the bottom of the image) and the front-left corner from 45° above.
TEXTURE_RIG: tuple[tuple[float, float], ...] = ((0.0, 0.0), (90.0, 0.0), (180.0, 0.0), (270.0, 0.0),
                                                (0.0, 90.0), (45.0, 45.0))
#: Vertical field of view (degrees) of the fixed rig: narrow, so perspective distortion stays small.
TEXTURE_RIG_FOV_DEG = 30.0


def target_bounds(target: object) -> FloatArray:
    """(2, 3) axis-aligned bounds of an Asset, a Mesh, a RenderMesh or a (2, 3) array."""
    if isinstance(target, Asset):
        return target.bounds()
    if isinstance(target, Mesh | RenderMesh):
        return np.asarray(target.bounds, np.float64)
    b = np.asarray(target, np.float64)
    if b.shape != (2, 3) or not np.all(np.isfinite(b)) or np.any(b[1] < b[0]):
        raise InvalidInputError("a rig target must be an Asset, a Mesh, a RenderMesh or a (2, 3) [min, max] array")
    return b


def bounding_sphere(target: object) -> tuple[FloatArray, float]:
    """Centre and radius of the sphere around the target's bounding box (radius > 0 even for flat targets)."""
    b = target_bounds(target)
    centre = b.mean(axis=0)
    radius = max(float(np.linalg.norm(b[1] - b[0])) / 2, 1e-6)
    return centre, radius


def fit_distance(radius: float, fov_deg: tuple[float, float] | float, margin: float = 1.05) -> float:
    """Distance at which a sphere of ``radius`` fits the narrower field of view, times ``margin``."""
    fov = min(fov_deg) if isinstance(fov_deg, tuple) else float(fov_deg)
    return margin * radius / math.sin(math.radians(fov) / 2)


def orbit_camera(target: object, azimuth_deg: float, elevation_deg: float, width: int, height: int | None = None,
                 fov_deg: float = TEXTURE_RIG_FOV_DEG, distance: float | None = None,
                 margin: float = 1.05) -> Camera:
    """A camera on a sphere around the target looking at its centre (see module doc for the angles).

    ``distance`` defaults to the distance that fits the bounding sphere in view (``fit_distance``).
    """
    centre, radius = bounding_sphere(target)
    cam = Camera.from_fov(fov_deg, width, height)
    d = fit_distance(radius, cam.fov_deg, margin) if distance is None else float(distance)
    return _orbit(cam, centre, d, azimuth_deg, elevation_deg)


def _orbit(cam: Camera, centre: FloatArray, distance: float, azimuth_deg: float, elevation_deg: float) -> Camera:
    az, el = math.radians(azimuth_deg), math.radians(elevation_deg)
    direction = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    up = np.array([0.0, 0.0, 1.0])
    if abs(math.cos(el)) < 1e-6:  # straight above or below: keep image-up pointing away from the azimuth
        up = -np.sign(math.sin(el)) * np.array([math.cos(az), math.sin(az), 0.0])
    cam.world_to_camera = look_at(centre + distance * direction, centre, up)
    return cam


def fixed_views(target: object, width: int = 512, height: int | None = None,
                rig: tuple[tuple[float, float], ...] = TEXTURE_RIG, fov_deg: float = TEXTURE_RIG_FOV_DEG,
                margin: float = 1.05) -> list[Camera]:
    """The fixed multi-view rig (``TEXTURE_RIG`` by default: 6 views) around the target, same distance for all."""
    return [orbit_camera(target, az, el, width, height, fov_deg=fov_deg, margin=margin) for az, el in rig]


@dataclass
class RandomViewConfig:
    """Ranges random conditioning views are drawn from (uniformly unless stated)."""

    elevation_deg: tuple[float, float] = (-10.0, 50.0)
    """Camera elevation range (degrees above the horizon)."""
    azimuth_deg: tuple[float, float] = (0.0, 360.0)
    """Camera azimuth range (degrees, 0 = front)."""
    focal_mm: tuple[float, float] = (30.0, 85.0)
    """35 mm-equivalent focal length range; drawn log-uniformly."""
    distance_jitter: tuple[float, float] = (0.95, 1.3)
    """Factor on the distance that just fits the bounding sphere (values < 1 may crop the object a little)."""
    target_jitter: float = 0.05
    """Look-at point offset from the centre, as a fraction of the bounding radius (each axis, uniform ±)."""
    margin: float = 1.05
    """Framing margin around the bounding sphere before the jitter."""

    def __post_init__(self) -> None:
        for name in ("elevation_deg", "azimuth_deg", "focal_mm", "distance_jitter"):
            lo, hi = getattr(self, name)
            if hi < lo:
                raise InvalidInputError(f"RandomViewConfig.{name}: range ({lo}, {hi}) is reversed")
        if self.focal_mm[0] <= 0 or self.distance_jitter[0] <= 0:
            raise InvalidInputError("RandomViewConfig: focal lengths and distance factors must be positive")
        if not -90.0 <= self.elevation_deg[0] <= self.elevation_deg[1] <= 90.0:
            raise InvalidInputError("RandomViewConfig.elevation_deg must lie within [-90, 90]")


def random_views(target: object, n: int, seed: int, width: int = 512, height: int | None = None,
                 config: RandomViewConfig | None = None) -> list[Camera]:
    """``n`` random views of the target (elevation, azimuth, focal length, distance and aim jitter), seeded."""
    if n < 0:
        raise InvalidInputError(f"number of views must be >= 0, got {n}")
    cfg = config or RandomViewConfig()
    rng = np.random.default_rng(seed)
    centre, radius = bounding_sphere(target)
    az = rng.uniform(*cfg.azimuth_deg, size=n)
    # uniform on the sphere between the two elevations, not uniform in angle (no crowding at the pole)
    s_lo, s_hi = np.sin(np.radians(cfg.elevation_deg))
    el = np.degrees(np.arcsin(rng.uniform(s_lo, s_hi, size=n)))
    focal = np.exp(rng.uniform(*np.log(cfg.focal_mm), size=n))
    jitter = rng.uniform(*cfg.distance_jitter, size=n)
    aim = rng.uniform(-cfg.target_jitter, cfg.target_jitter, size=(n, 3)) * radius
    cams = []
    for k in range(n):
        cam = Camera.from_focal_mm(float(focal[k]), width, height, sensor_mm=FULL_FRAME_SENSOR_MM)
        d = fit_distance(radius, cam.fov_deg, cfg.margin) * float(jitter[k])
        cams.append(_orbit(cam, centre + aim[k], d, float(az[k]), float(el[k])))
    return cams
