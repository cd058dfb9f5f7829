"""Pinhole cameras shared by every render backend.

Convention (stated once, used everywhere in ``seed3d.render``): **OpenCV**. The camera frame has x to the
right of the image, y down the image and z forward (into the scene, so visible points have z > 0).
``Camera.world_to_camera`` is the 4x4 rigid transform taking world points (meters, +Z up, the asset
frame) into that camera frame. A camera point (x, y, z) lands on the continuous pixel coordinates
``u = fx * x / z + cx`` (along columns, to the right) and ``v = fy * y / z + cy`` (along rows, downward);
(0, 0) is the top-left corner of the top-left pixel, so pixel ``[row i, column j]`` has its centre at
``(u, v) = (j + 0.5, i + 0.5)`` and every backend samples exactly there. Depth is the camera-frame z.
``Camera.opengl_view`` gives the same pose in the OpenGL convention (y up, looking down -z) for tools
that want it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from seed3d.errors import InvalidInputError
from seed3d.typed import FloatArray

#: Sensor width (mm) used to turn a focal length in mm into pixels: the 35 mm full-frame convention.
FULL_FRAME_SENSOR_MM = 36.0

_CV_TO_GL = np.diag([1.0, -1.0, -1.0, 1.0])


def look_at(eye: FloatArray, target: FloatArray, up: FloatArray = (0.0, 0.0, 1.0)) -> FloatArray:
    """World-to-camera 4x4 (OpenCV axes) of a camera at ``eye`` looking at ``target`` with image-up near ``up``.

    When the view direction is parallel to ``up`` (looking straight down or up), image-up falls back to
    world -X for a downward view and +X for an upward one, so top views have the object's front (+X) at
    the bottom of the image.
    """
    eye = np.asarray(eye, np.float64).reshape(3)
    target = np.asarray(target, np.float64).reshape(3)
    up = np.asarray(up, np.float64).reshape(3)
    forward = target - eye
    dist = float(np.linalg.norm(forward))
    if not np.isfinite(dist) or dist < 1e-12:
        raise InvalidInputError(f"look_at: eye {eye.tolist()} and target {target.tolist()} coincide")
    forward /= dist
    if float(np.linalg.norm(up)) < 1e-12:
        raise InvalidInputError("look_at: up vector is zero")
    up = up / np.linalg.norm(up)
    if abs(float(forward @ up)) > 1.0 - 1e-9:
        up = np.array([-1.0, 0.0, 0.0]) if forward @ np.array([0.0, 0.0, 1.0]) < 0 else np.array([1.0, 0.0, 0.0])
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rot = np.stack([right, down, forward])  # rows: camera axes in world coordinates
    m = np.eye(4)
    m[:3, :3] = rot
    m[:3, 3] = -rot @ eye
    return m


def _check_rigid(m: FloatArray) -> FloatArray:
    m = np.asarray(m, np.float64)
    if m.shape != (4, 4):
        raise InvalidInputError(f"world_to_camera must be a 4x4 matrix, got shape {m.shape}")
    rot = m[:3, :3]
    if not np.all(np.isfinite(m)) or not np.allclose(rot @ rot.T, np.eye(3), atol=1e-6) \
            or np.linalg.det(rot) < 0 or not np.allclose(m[3], [0, 0, 0, 1]):
        raise InvalidInputError("world_to_camera must be a rigid transform (orthonormal rotation, det +1, "
                                "last row 0 0 0 1); build one with seed3d.render.look_at")
    return m


@dataclass(eq=False)
class Camera:
    """A pinhole camera: image size, intrinsics in pixels and a world-to-camera pose (OpenCV axes, see module doc)."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    world_to_camera: FloatArray = field(default_factory=lambda: np.eye(4))

    def __post_init__(self) -> None:
        if int(self.width) != self.width or int(self.height) != self.height or self.width < 1 or self.height < 1:
            raise InvalidInputError(f"camera size must be positive integers, got {self.width}x{self.height}")
        self.width, self.height = int(self.width), int(self.height)
        self.fx, self.fy, self.cx, self.cy = (float(self.fx), float(self.fy), float(self.cx), float(self.cy))
        if not (self.fx > 0 and self.fy > 0 and np.isfinite([self.fx, self.fy, self.cx, self.cy]).all()):
            raise InvalidInputError(f"camera focal lengths must be positive and finite, got fx={self.fx}, fy={self.fy}")
        self.world_to_camera = _check_rigid(self.world_to_camera).copy()

    # ---- constructors
    @classmethod
    def from_fov(cls, fov_deg: float, width: int, height: int | None = None,
                 world_to_camera: FloatArray | None = None) -> Camera:
        """A camera with square pixels whose *vertical* field of view is ``fov_deg`` and a centred principal point."""
        height = width if height is None else height
        if not 0.0 < fov_deg < 180.0:
            raise InvalidInputError(f"field of view must lie in (0, 180) degrees, got {fov_deg}")
        f = 0.5 * height / math.tan(math.radians(fov_deg) / 2)
        return cls(width, height, f, f, width / 2, height / 2,
                   np.eye(4) if world_to_camera is None else world_to_camera)

    @classmethod
    def from_focal_mm(cls, focal_mm: float, width: int, height: int | None = None,
                      world_to_camera: FloatArray | None = None, sensor_mm: float = FULL_FRAME_SENSOR_MM) -> Camera:
        """A camera from a lens focal length in mm on a sensor ``sensor_mm`` wide (35 mm equivalent by default)."""
        height = width if height is None else height
        if not focal_mm > 0 or not sensor_mm > 0:
            raise InvalidInputError(f"focal length and sensor width must be positive, got {focal_mm}, {sensor_mm}")
        f = focal_mm / sensor_mm * width
        return cls(width, height, f, f, width / 2, height / 2,
                   np.eye(4) if world_to_camera is None else world_to_camera)

    # ---- derived quantities
    @property
    def K(self) -> FloatArray:
        """3x3 intrinsic matrix."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def rotation(self) -> FloatArray:
        """3x3 world-to-camera rotation (rows are the camera's right, down and forward axes in world)."""
        return self.world_to_camera[:3, :3]

    @property
    def camera_to_world(self) -> FloatArray:
        """4x4 inverse of ``world_to_camera``."""
        m = np.eye(4)
        m[:3, :3] = self.rotation.T
        m[:3, 3] = -self.rotation.T @ self.world_to_camera[:3, 3]
        return m

    @property
    def position(self) -> FloatArray:
        """Camera centre in world coordinates."""
        return -self.rotation.T @ self.world_to_camera[:3, 3]

    @property
    def forward(self) -> FloatArray:
        """Unit viewing direction in world coordinates."""
        return self.rotation[2].copy()

    @property
    def fov_deg(self) -> tuple[float, float]:
        """(horizontal, vertical) field of view in degrees."""
        return (math.degrees(2 * math.atan(self.width / (2 * self.fx))),
                math.degrees(2 * math.atan(self.height / (2 * self.fy))))

    def opengl_view(self) -> FloatArray:
        """World-to-camera 4x4 in the OpenGL convention (x right, y up, looking down -z)."""
        return _CV_TO_GL @ self.world_to_camera

    def resized(self, width: int, height: int | None = None) -> Camera:
        """The same camera with its image scaled to ``width`` x ``height`` (intrinsics scaled to match)."""
        height = round(width * self.height / self.width) if height is None else height
        sx, sy = width / self.width, height / self.height
        return Camera(width, height, self.fx * sx, self.fy * sy, self.cx * sx, self.cy * sy, self.world_to_camera)

    def to_camera(self, points: FloatArray) -> FloatArray:
        """World points (N, 3) in camera coordinates (N, 3)."""
        p = np.asarray(points, np.float64).reshape(-1, 3)
        return p @ self.rotation.T + self.world_to_camera[:3, 3]

    def project(self, points: FloatArray) -> tuple[FloatArray, FloatArray]:
        """World points (N, 3) to continuous pixel coordinates (N, 2) as (u, v), and their depth z (N,)."""
        pc = self.to_camera(points)
        z = pc[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            uv = np.stack([self.fx * pc[:, 0] / z + self.cx, self.fy * pc[:, 1] / z + self.cy], axis=1)
        return uv, z

    def pixel_rays(self) -> tuple[FloatArray, FloatArray]:
        """Camera centre (3,) and world ray directions (H, W, 3) through every pixel centre, scaled so z_cam = 1.

        A point at depth ``d`` along pixel (i, j) is ``origin + d * directions[i, j]``.
        """
        j = (np.arange(self.width) + 0.5 - self.cx) / self.fx
        i = (np.arange(self.height) + 0.5 - self.cy) / self.fy
        d_cam = np.empty((self.height, self.width, 3))
        d_cam[..., 0] = j[None, :]
        d_cam[..., 1] = i[:, None]
        d_cam[..., 2] = 1.0
        return self.position, d_cam @ self.rotation  # row-vector form of R^T d

    def clip_matrix(self, near: float, far: float) -> FloatArray:
        """4x4 world-to-clip matrix for GL-style rasterisers: image row 0 maps to NDC y = -1.

        GL framebuffers (and nvdiffrast's output) store NDC y = -1 in their first row, so with this matrix
        the rasterised buffer reads back in image order (row 0 at the top) with no flip. Depth maps
        camera z in [near, far] to NDC [-1, 1].
        """
        if not 0 < near < far:
            raise InvalidInputError(f"clip planes need 0 < near < far, got near={near}, far={far}")
        w, h = self.width, self.height
        proj = np.array([
            [2 * self.fx / w, 0.0, 2 * self.cx / w - 1.0, 0.0],
            [0.0, 2 * self.fy / h, 2 * self.cy / h - 1.0, 0.0],
            [0.0, 0.0, (far + near) / (far - near), -2 * far * near / (far - near)],
            [0.0, 0.0, 1.0, 0.0],
        ])
        return proj @ self.world_to_camera

    def __repr__(self) -> str:
        eye = np.round(self.position, 4).tolist()
        return (f"Camera({self.width}x{self.height}, fx={self.fx:.2f}, fy={self.fy:.2f}, "
                f"cx={self.cx:.2f}, cy={self.cy:.2f}, eye={eye})")
