"""Joint limits from a collision-checked sweep, capped by category priors; joint damping/friction presets.

``CollisionScene`` loads every part's convex collision hulls (the ones the exporters write, so the sweep sees
what a simulator will see) and a ground slab under z = 0 into a PyBullet ``DIRECT`` world, one static body per
part. ``first_contact`` moves a set of parts along a joint motion in growing steps and bisects the first step
that makes any moving hull penetrate a still one (or the ground) deeper than it did at rest plus
``tolerance``. ``fit_limits`` turns a decision into ``(lower, upper)``: the free range found by the sweep,
backed off a little, and capped by the prior of the part (``LIMIT_PRIORS``; a drawer: ``drawer_extension``
of the length it has inside its parent; a door: 110°, or 90° when something stands in a wider swing; a lid:
100°; a laptop screen: 130°; ...).
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from seed3d.articulation._geometry import plane_basis, unit
from seed3d.asset import Asset, Mesh, joint_motion
from seed3d.errors import DependencyError
from seed3d.typed import FloatArray

logger = logging.getLogger(__name__)

#: PyBullet gives every convex mesh a 1 mm collision margin; reported distances between two hulls are 2 mm short.
_MARGIN_PAIR = 0.002

#: Per kind of joint: damping (N·m·s/rad or N·s/m), friction (N·m or N), effort and velocity limits. Damping and
#: friction keep a part where it is put; light wheels get friction rather than damping (PyBullet integrates
#: damping explicitly, so damping above inertia / time step makes a small wheel oscillate).
JOINT_PRESETS: dict[str, dict[str, float]] = {
    "fixed": {"damping": 0.0, "friction": 0.0, "effort": 50.0, "velocity": 2.0},
    "hinge": {"damping": 1.0, "friction": 0.3, "effort": 100.0, "velocity": 2.0},
    "lid": {"damping": 0.5, "friction": 0.3, "effort": 50.0, "velocity": 2.0},
    "lever": {"damping": 5.0, "friction": 0.5, "effort": 20.0, "velocity": 3.0},
    "stiff": {"damping": 0.3, "friction": 3.0, "effort": 50.0, "velocity": 1.0},
    "slide": {"damping": 8.0, "friction": 1.0, "effort": 100.0, "velocity": 0.5},
    "button": {"damping": 2.0, "friction": 0.2, "effort": 10.0, "velocity": 0.1},
    "spin": {"damping": 0.05, "friction": 0.02, "effort": 5.0, "velocity": 10.0},
    "swivel": {"damping": 1.0, "friction": 1.0, "effort": 50.0, "velocity": 5.0},
    "wheel": {"damping": 0.002, "friction": 2.0, "effort": 20.0, "velocity": 20.0},
    "drum": {"damping": 0.5, "friction": 0.2, "effort": 200.0, "velocity": 10.0},
}


@dataclass(frozen=True)
class LimitPrior:
    """The widest range a kind of joint gets whatever the sweep allows (radians or meters).

    ``upper``/``lower`` cap the positive/negative side; ``blocked_upper`` replaces ``upper`` when the sweep finds
    an obstacle before ``blocked_below`` (a door whose wider swing would hit something stops at 90°);
    ``extension`` (prismatic) makes the cap that fraction of the length the part has inside its parent along
    the axis; ``supported`` keeps a two-sided slider over its parent; ``stop_within`` lets a stop the sweep meets
    within that range be the limit even past ``upper`` (a lever's throw ends where its slot does, not at a
    typical angle).
    """

    upper: float
    lower: float = 0.0
    blocked_upper: float | None = None
    blocked_below: float | None = None
    extension: float | None = None
    supported: bool = False
    stop_within: float | None = None


#: Priors by name (the reasoner names one per movable joint).
LIMIT_PRIORS: dict[str, LimitPrior] = {
    "door": LimitPrior(math.radians(110), blocked_upper=math.radians(90), blocked_below=math.radians(150)),
    "flap": LimitPrior(math.radians(90)),
    "lid": LimitPrior(math.radians(100)),
    "screen": LimitPrior(math.radians(130)),
    "drawer": LimitPrior(1.0, extension=0.75),
    "telescope": LimitPrior(1.0, extension=0.75),
    "button": LimitPrior(0.003),
    "lever": LimitPrior(math.radians(30), stop_within=math.radians(90)),
    "latch": LimitPrior(math.radians(45)),
    "knob_latch": LimitPrior(math.radians(60)),
    "tap": LimitPrior(math.radians(90)),
    "swing": LimitPrior(math.radians(60), lower=-math.radians(60)),
    "stiff": LimitPrior(0.5, lower=-0.5),
    "slider": LimitPrior(1.0, lower=-1.0, supported=True),
    "free": LimitPrior(math.pi),
    "sliding": LimitPrior(1.0),
}


@dataclass
class LimitsConfig:
    """Sweep resolution and tolerances."""

    tolerance: float = 0.0005
    """Penetration (m) beyond the rest pose's that counts as a collision during the sweep."""
    angle_step: float = math.radians(4.0)
    """First sweep step of rotational joints (rad); the first colliding step is bisected."""
    bisections: int = 8
    angle_backoff: float = math.radians(1.0)
    """How far (rad) a swept limit stays before the first contact."""
    distance_backoff: float = 0.0005
    """How far (m) a swept prismatic limit stays before the first contact."""
    max_turn: float = math.pi
    """Largest revolute range swept on each side (rad)."""
    spin_check_step: float = math.radians(15.0)
    """Step (rad) of the full-turn check of continuous joints."""
    ground: bool = True
    """Sweep against a ground slab under z = 0 (the asset stands on it)."""
    rest_overlap: float = 0.002
    """A revolute or prismatic joint whose moving parts' hulls overlap those of any other part (its parent or
    not) deeper than this (m) at rest is fixed instead: the validator (``ValidationConfig.penetration_tolerance``)
    rejects moving parts that overlap at rest, and welds fixed ones (a spurious piece cut inside another, which
    the sweep lets move a millimetre)."""


def _quaternion(r: FloatArray) -> list[float]:
    """PyBullet quaternion (x, y, z, w) of a 3x3 rotation matrix."""
    t = float(np.trace(r))
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        w, x, y, z = 0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2]) * 2
        w, x, y, z = (r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s
    elif r[1, 1] > r[2, 2]:
        s = math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2]) * 2
        w, x, y, z = (r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s
    else:
        s = math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1]) * 2
        w, x, y, z = (r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s
    return [float(x), float(y), float(z), float(w)]


def _import_pybullet() -> Any:
    try:
        with _quiet():
            import pybullet
    except ImportError as exc:  # pragma: no cover - pybullet is a pinned dependency
        raise DependencyError("articulation limits need pybullet: pip install pybullet") from exc
    return pybullet


class CollisionScene:
    """Every part's collision hulls (and a ground slab) as static PyBullet bodies that can be moved and probed.

    Parts without collision hulls use the convex hull of their mesh. Use as a context manager, or ``close()``.
    """

    GROUND = "__ground__"

    def __init__(self, asset: Asset, ground: bool = True) -> None:
        pb = _import_pybullet()
        self._pb = pb
        with _quiet():
            self._client = pb.connect(pb.DIRECT)
        self._bodies: dict[str, int] = {}
        self._points: dict[str, FloatArray] = {}
        self._names: dict[int, str] = {}
        for part in asset.parts:
            hulls = part.collision or [part.mesh]
            self._add(part.name, [h.vertices for h in hulls])
        if ground:
            lo, hi = asset.bounds()
            span = float(np.max(hi - lo)) * 3 + 1.0
            c = (lo + hi) / 2
            corners = np.array([[c[0] + sx * span, c[1] + sy * span, z] for sx in (-1, 1) for sy in (-1, 1)
                                for z in (-0.5, 0.0)])
            self._add(self.GROUND, [corners])
        self._pose: dict[str, FloatArray] = {n: np.eye(4) for n in self._bodies}

    def _add(self, name: str, hulls: list[FloatArray]) -> None:
        pb, cid = self._pb, self._client
        shapes = [pb.createCollisionShape(pb.GEOM_MESH, vertices=np.asarray(v, np.float64).tolist(),
                                          physicsClientId=cid) for v in hulls if len(v) >= 4]
        if not shapes:
            return
        n = len(shapes) - 1
        body = pb.createMultiBody(
            0, shapes[0], linkMasses=[0] * n, linkCollisionShapeIndices=shapes[1:], linkVisualShapeIndices=[-1] * n,
            linkPositions=[[0, 0, 0]] * n, linkOrientations=[[0, 0, 0, 1]] * n,
            linkInertialFramePositions=[[0, 0, 0]] * n, linkInertialFrameOrientations=[[0, 0, 0, 1]] * n,
            linkParentIndices=[0] * n, linkJointTypes=[pb.JOINT_FIXED] * n, linkJointAxis=[[0, 0, 1]] * n,
            physicsClientId=cid)
        self._bodies[name] = body
        self._names[body] = name
        self._points[name] = np.concatenate([np.asarray(v, np.float64) for v in hulls])

    def close(self) -> None:
        """Disconnect the PyBullet client."""
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._pb.disconnect(self._client)
            self._client = None

    def __enter__(self) -> CollisionScene:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def names(self) -> list[str]:
        """Part names in the scene (the ground excluded)."""
        return [n for n in self._bodies if n != self.GROUND]

    def place(self, names: list[str], matrix: FloatArray) -> None:
        """Move parts ``names`` by the 4x4 ``matrix`` from their rest pose."""
        pos, quat = matrix[:3, 3].tolist(), _quaternion(matrix[:3, :3])
        for n in names:
            if n in self._bodies:
                self._pb.resetBasePositionAndOrientation(self._bodies[n], pos, quat, physicsClientId=self._client)
                self._pose[n] = matrix

    def depths(self, moving: list[str], ground: bool = True) -> dict[tuple[str, str], float]:
        """Penetration depth (m, 0 when apart) of each moving part into each other part (and the ground unless
        ``ground`` is False) it touches now."""
        pb, cid = self._pb, self._client
        moving = [m for m in moving if m in self._bodies]
        allowed = set(self._bodies) - set(moving) - (set() if ground else {self.GROUND})
        out: dict[tuple[str, str], float] = {}
        for m in moving:
            pts = self._points[m] @ self._pose[m][:3, :3].T + self._pose[m][:3, 3]
            lo, hi = pts.min(axis=0) - 0.003, pts.max(axis=0) + 0.003
            near = pb.getOverlappingObjects(lo.tolist(), hi.tolist(), physicsClientId=cid) or []
            for body in sorted({b for b, _ in near}):
                o = self._names.get(body)
                if o is None or o not in allowed:
                    continue
                found = pb.getClosestPoints(self._bodies[m], body, 0.0, physicsClientId=cid)
                if found:
                    d = min(c[8] for c in found) + _MARGIN_PAIR
                    if d < 0:
                        out[(m, o)] = max(out.get((m, o), 0.0), -d)
        return out

    def first_contact(self, moving: list[str], motion: Callable[[float], FloatArray], stop: float, step: float,
                      tolerance: float = 0.0005, bisections: int = 8,
                      ground: bool = True) -> tuple[float, tuple[str, str] | None]:
        """Largest value in (0, ``stop``] reached before ``moving`` penetrates anything deeper than at rest.

        ``motion(value)`` is the 4x4 motion of the moving parts; returns (value, first colliding pair or None
        when the whole range is free). ``ground``: whether the ground counts. The moving parts are put back at
        rest afterwards.
        """
        self.place(moving, np.eye(4))
        base = self.depths(moving, ground)

        def hit(v: float) -> tuple[str, str] | None:
            self.place(moving, motion(v))
            for pair, d in self.depths(moving, ground).items():
                if d > base.get(pair, 0.0) + tolerance:
                    return pair
            return None

        try:
            prev, v = 0.0, 0.0
            while prev < stop - 1e-12:
                v = min(prev + step, stop)
                pair = hit(v)
                if pair is not None:
                    lo, hi = prev, v
                    for _ in range(bisections):
                        mid = 0.5 * (lo + hi)
                        if hit(mid) is None:
                            lo = mid
                        else:
                            hi = mid
                    return lo, pair
                prev = v
            return stop, None
        finally:
            self.place(moving, np.eye(4))

    def free_travel(self, moving: list[str], direction: FloatArray, stop: float,
                    tolerance: float = 0.0005) -> float:
        """How far (m, up to ``stop``) ``moving`` can translate along ``direction`` before it hits something."""
        d = unit(direction)
        step = max(stop / 6, 0.002)
        value, _ = self.first_contact(moving, lambda v: joint_motion("prismatic", d, np.zeros(3), v), stop, step,
                                      tolerance, bisections=6)
        return value


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence C-level stdout/stderr (PyBullet prints its build time on import and connect)."""
    import ctypes
    import os
    import sys

    try:
        saved = (os.dup(1), os.dup(2))
    except OSError:  # no usable descriptors (embedded interpreter): run as is
        yield
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            with contextlib.suppress(Exception):
                ctypes.CDLL(None).fflush(None)
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


# --------------------------------------------------------------------------------------------- fitting


@dataclass
class SweepResult:
    """What the sweep of one joint found: the contact values on each side and what was hit."""

    upper_contact: float | None = None
    """First contact on the positive side (None when free up to the swept range)."""
    upper_hit: tuple[str, str] | None = None
    lower_contact: float | None = None
    lower_hit: tuple[str, str] | None = None
    spin_blocked: float | None = None
    """For a continuous joint: the first contact of a full turn (None: it turns freely)."""
    spin_hit: tuple[str, str] | None = None
    """The pair of parts that met at ``spin_blocked``."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {k: (list(v) if isinstance(v, tuple) else (None if v is None else round(float(v), 5)))
                for k, v in self.__dict__.items()}


def inserted_length(child: Mesh, parent: Mesh, axis: FloatArray, margin: float = 0.01) -> float:
    """Length (m) of ``child`` inside ``parent`` along ``axis``: from the child's back to the front of the parent
    around the child (how far a drawer comes out before it leaves its carcass).

    The parent's front is its farthest vertex along ``axis`` within the child's footprint grown by ``margin``
    (the cavity walls around a drawer) and behind the child's own front (a neighbouring fascia flush with the
    drawer front is not the carcass)."""
    a = unit(axis)
    basis = plane_basis(a)
    cp = child.vertices @ basis.T
    lo, hi = cp.min(axis=0) - margin, cp.max(axis=0) + margin
    pv = parent.vertices
    pp = pv @ basis.T
    ca = child.vertices @ a
    depth = pv @ a
    inside = np.all((pp >= lo) & (pp <= hi), axis=1) & (depth < ca.max() - 1e-3)
    if not np.any(inside):
        return 0.0
    return max(0.0, float(depth[inside].max() - ca.min()))


def supported_range(child: Mesh, parent: Mesh, axis: FloatArray) -> tuple[float, float]:
    """Travel (negative, positive) along ``axis`` that keeps ``child``'s extent within ``parent``'s."""
    a = unit(axis)
    c, p = child.vertices @ a, parent.vertices @ a
    return min(0.0, float(p.min() - c.min())), max(0.0, float(p.max() - c.max()))


def sweep_joint(scene: CollisionScene, moving: list[str], kind: str, axis: FloatArray, origin: FloatArray,
                upper_stop: float, lower_stop: float, config: LimitsConfig, step: float) -> SweepResult:
    """Sweep a joint both ways (a side whose stop is 0 is skipped) and report the first contacts."""
    res = SweepResult()

    def motion(sign: float) -> Callable[[float], FloatArray]:
        return lambda v: joint_motion(kind, axis, origin, sign * v)

    if upper_stop > 0:
        v, hit = scene.first_contact(moving, motion(1.0), upper_stop, step, config.tolerance, config.bisections)
        if hit is not None:
            res.upper_contact, res.upper_hit = v, hit
    if lower_stop > 0:
        v, hit = scene.first_contact(moving, motion(-1.0), lower_stop, step, config.tolerance, config.bisections)
        if hit is not None:
            res.lower_contact, res.lower_hit = v, hit
    return res


def fit_limits(prior: LimitPrior, sweep: SweepResult, rotational: bool, cap_upper: float | None = None,
               cap_lower: float | None = None, config: LimitsConfig | None = None) -> tuple[float, float]:
    """Limits from a prior and a sweep: the free range backed off a little, capped by the prior.

    ``cap_upper``/``cap_lower`` (positive numbers) replace the prior's caps when a rule measured them (a drawer's
    inserted length times the extension; a slider's supported range).
    """
    cfg = config or LimitsConfig()
    back = cfg.angle_backoff if rotational else cfg.distance_backoff
    up_cap = prior.upper if cap_upper is None else cap_upper
    if sweep.upper_contact is not None and prior.blocked_upper is not None and prior.blocked_below is not None \
            and sweep.upper_contact < prior.blocked_below:
        up_cap = min(up_cap, prior.blocked_upper)
    if sweep.upper_contact is not None and cap_upper is None and prior.stop_within is not None \
            and sweep.upper_contact <= prior.stop_within:
        up_cap = max(up_cap, sweep.upper_contact)  # the mechanism's own stop, past the typical throw
    upper = up_cap if sweep.upper_contact is None else min(up_cap, max(0.0, sweep.upper_contact - back))
    lo_cap = -prior.lower if cap_lower is None else cap_lower
    lower = 0.0
    if lo_cap > 0:
        lower = -(lo_cap if sweep.lower_contact is None else min(lo_cap, max(0.0, sweep.lower_contact - back)))
    return float(lower), float(upper)
