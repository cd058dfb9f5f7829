"""Validate simulation-ready assets: does a URDF, MJCF or USD file (ours or anyone's) load and behave?

``validate_path(path)`` takes an asset folder (``asset.json`` plus exports at the ``EXPORT_LAYOUT`` paths), a
``.urdf``, an MJCF ``.xml`` or a ``.usd``/``.usda``/``.usdc``/``.usdz`` file and returns a
:class:`ValidationReport`: one :class:`Check` per test with pass | fail | skip, a message naming the file and
element at fault and the numbers behind it. Bad input never raises: every check catches its own errors and
records them as a failure.

Checks, named ``{format}.{check}``:

- ``parse``: the file reads (XML / USD) and forms one kinematic tree; for USD ``UsdPhysics`` parses it
  (``LoadUsdPhysicsFromRange``) and every joint's bodies are rigid bodies. XML is read as PyBullet and MuJoCo
  (tinyxml2) read it: a declaration with another version than 1.0 (pybullet_data's ``<?xml version="0.0"?>``)
  and well-formed content after the root element are tolerated, and the message says so.
- ``files``: every referenced mesh and texture exists (URDF mesh filenames, MJCF mesh/texture files, USD asset
  paths, resolved as each tool would).
- ``meshes``: every mesh is non-empty and finite; visual meshes have at most ``max_degenerate_fraction``
  zero-area faces, collision hulls must span a volume (engines rebuild hulls from their points, so sliver
  faces do not matter); meshes the asset promises closed (``Part.watertight``) are closed after welding
  coincident vertices (UV seams are not holes). Mesh files trimesh cannot read here (``.dae`` without
  pycollada) are listed as not checked.
- ``inertials``: positive mass, positive-definite inertia that satisfies the triangle inequality. As in the
  engines, a URDF root of mass 0 is static (PyBullet's fixed-base convention) and a massless link on fixed
  joints to a link with mass is a frame welded onto it; both are named in the message.
- ``joints``: a non-zero finite axis on movable joints, ``lower <= upper``. A URDF joint the engines cannot
  move (zero or non-finite axis, non-finite limits; PyBullet puts its child at NaN) skips the checks below
  that would measure NaN, each saying why.
- ``load_pybullet`` / ``load_mujoco``: the engine loads the file (URDF in both; MJCF in MuJoCo, and in
  PyBullet's partial MJCF importer where it copes, else skipped with a note).
- ``rest_pybullet`` / ``rest_mujoco``: dropped ``drop_height`` above a ground plane with joint friction
  emulated (PyBullet ignores URDF friction: a zero-velocity motor with force = friction; it also disables
  PyBullet's default joint motors), after ``rest_seconds`` every link's centre of mass is within
  ``max_rest_displacement`` of where it would rest, moves slower than the speed limits (mean speeds over the
  last ``rest_window``: a part on its joint stop is kicked off it for a step now and then), no limited joint has
  drifted (continuous joints, wheels and knobs, may turn) and nothing sank through the ground. A URDF root
  without mass (or ROS's ``world`` link) stays static, as PyBullet makes it; an MJCF body without a free
  joint is fixed to the world as the file says.
- ``interpenetration``: at rest no two links overlap by more than ``penetration_tolerance`` (closest points
  of the collision shapes; the worst pair and its depth are reported). Links joined by fixed joints only form
  one rigid body and are **not** compared: they never move relative to each other, engines do not collide
  them, and mounts such as a handle on a door are meant to touch.
- ``sweep``: with the base fixed and every other joint at rest, each movable joint is set kinematically to
  ``sweep_steps`` values across its range (a full turn for continuous joints): its child must move and its
  moving subtree must stay clear of every other link beyond the tolerance.
- ``drive``: the same joints driven dynamically (PyBullet ``POSITION_CONTROL`` at the file's effort; MuJoCo a
  gravity-compensated PD through ``qfrc_applied``, clipped to ``actuatorfrcrange`` or ``default_effort``) to
  each limit (continuous joints: a full turn) must settle within ``limit_tolerance_*`` in ``drive_seconds``
  plus the travel time at ``drive_speed_*``. Self-collision is off here (the kinematic sweep checks
  clearance).
- ``kinematics.{format}`` (asset folders): each export has the joints of ``asset.json``: names, types,
  parent/child, world axes at rest (sign matters), pivots and limits.

Functional checks (``seed3d.physics.functional``) form a section of their own, ``ValidationReport.functional``:
each movable joint travels as far as its kind needs, its axis lies along an edge or face normal of its part,
the moving part is a plausible share of the object, it opens into free space, and its kind is one the asset's
category has (pass | warn | fail | skip). An asset folder gets all five from asset.json; a URDF or MJCF file on
its own the lower bar (travel, and mass share from a URDF's inertials). The report passes when the asset is
physically sound (every check above) and functional; the summary's first line says each.

Robots (``ValidationConfig.robot`` / ``seed3d validate --robot``, or a file declaring actuated joints: URDF
``<transmission>``, MJCF ``<actuator>``) are judged as the engines treat them: in the rest checks every joint is
held where it starts by its motor (PyBullet position control at the file's effort; MuJoCo a gravity-compensated
servo at the joint's force limit), since an unpowered arm folds under gravity; a link and its parent are not
compared for overlap (PyBullet never collides them, MuJoCo neither unless the parent is welded to the world); and
links that collide somewhere in the sweep are a warning, as a robot's limits do not promise collision-free motion.
An object's child is still compared with its parent: a door sunk into its frame is broken even where the engines
let it pass. Checks that need an engine run whenever that engine loaded the file, whatever the parser here made
of it; a check that was not run says why.

URDFs are checked in PyBullet (interpenetration, sweep, drive) and MuJoCo (load, rest); MJCF files in MuJoCo;
USD files statically (no USD simulator ships with usd-core). PyBullet's convex shapes carry a 1 mm collision
margin that ``getClosestPoints`` includes, so distances are corrected by it (PyBullet and MuJoCo then agree
to 1e-6 m on the demo cabinet). In MuJoCo, geoms of the world body (a floor in a foreign file) are not the
asset and are left out of the clearance checks; only colliding geoms (``contype`` or ``conaffinity``) count.

``ValidationReport.passed`` is False when any check failed; ``exit_code`` (0 or 1) is what ``seed3d validate``
returns. Engines print to the C-level stdout/stderr: every check runs with file descriptors 1 and 2 redirected
to a temporary file (under a process-wide lock, so validations in threads run one check at a time), and the
engine's last error lines are quoted when a load fails. Logging handlers that write to the terminal during a
check are captured with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import math
import os
import re
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import EXPORT_LAYOUT, FIXED_MOUNTS, MOUNTS, Asset
from seed3d.errors import AssetFormatError, DependencyError, Seed3DError
from seed3d.physics import _geometry as geo
from seed3d.physics import functional
from seed3d.physics.inertia import inertia_problems
from seed3d.typed import FloatArray, IntArray, PathType

logger = logging.getLogger(__name__)

__all__ = ["Check", "ValidationConfig", "ValidationReport", "validate_path", "validate_scene"]

#: Extensions ``validate_path`` accepts, by kind.
USD_SUFFIXES = (".usd", ".usda", ".usdc", ".usdz")
#: Formats an asset folder may hold, in the order they are validated (keys of ``EXPORT_LAYOUT``).
FOLDER_FORMATS = ("glb", "urdf", "mjcf", "usd", "usdz")

#: How far (m) the at-rest check looks for the closest pair of links (it reports their gap).
_CLEARANCE_REACH = 0.01
#: Collision margin PyBullet's URDF importer gives convex meshes and cylinders (boxes and spheres have none).
_BULLET_MARGIN = 0.001


@dataclass
class ValidationConfig:
    """Thresholds and run lengths of :func:`validate_path` (the defaults keep the demo cabinet to seconds)."""

    rest_seconds: float = 1.5
    """Simulated seconds the asset is left on the ground plane."""
    drop_height: float = 0.001
    """Gap (m) between the asset's lowest point and the ground when it is released (a bigger drop jolts
    hinged doors open a little on landing, which is not what the rest check is after)."""
    max_rest_displacement: float = 0.02
    """Largest distance (m) a link's centre of mass may end from where it was released (less the drop):
    settling onto uneven hull bottoms tilts tall objects a few mm; sliding, toppling or a door swinging
    open moves links further."""
    max_rest_speed: float = 0.01
    """Largest linear speed (m/s) of any link's centre of mass at the end of the rest (its mean over the last
    ``rest_window`` seconds)."""
    max_rest_spin: float = 0.1
    """Largest angular speed (rad/s) of any link at the end of the rest (its mean over the last ``rest_window``)."""
    rest_window: float = 0.1
    """Seconds at the end of the rest over which the speeds are averaged: a part resting on its joint stop is
    kicked off it for a step now and then (a closed laptop's screen at 24 mm/s for one PyBullet step, 1 mm/s
    on average), which a single step's speed reads as still moving."""
    max_joint_drift_rad: float = 0.05
    """Largest change (rad) of a revolute joint during the rest (a door must not swing by itself)."""
    max_joint_drift_m: float = 0.01
    """Largest change (m) of a prismatic joint during the rest."""
    fall_tolerance: float = 0.01
    """How far (m) below the ground any collision shape may get before the asset counts as falling through."""
    penetration_tolerance: float = 0.002
    """Largest overlap (m) allowed between links, at rest and during the sweep."""
    sweep_steps: int = 12
    """Joint values tried across each movable joint's range in the kinematic sweep."""
    drive_seconds: float = 2.0
    """Simulated seconds a driven joint has to reach each limit (plus the travel time its velocity limit needs)."""
    drive_speed_rad: float = 1.0
    """Top speed (rad/s) of a driven revolute joint (lower than its velocity limit when that is higher, so
    PyBullet's force-limited position motor can stop at the limit instead of overshooting)."""
    drive_speed_m: float = 0.25
    """Top speed (m/s) of a driven prismatic joint."""
    limit_tolerance_rad: float = 0.03
    """How close (rad) a driven revolute joint must get to its limit."""
    limit_tolerance_m: float = 0.003
    """How close (m) a driven prismatic joint must get to its limit."""
    default_effort: float = 50.0
    """Drive force/torque used when a file gives no effort limit (N or N·m)."""
    degenerate_area: float = 1e-12
    """Faces with less area (m²) than this count as degenerate."""
    max_degenerate_fraction: float = 0.001
    """Largest fraction of degenerate faces a mesh may have."""
    kinematics_tolerance: float = 1e-4
    """Largest difference (m, or rad for limits) between a format's joints and asset.json."""
    axis_tolerance: float = 1e-3
    """Largest angle (rad) between a format's joint axis and asset.json's."""
    pybullet_timestep: float = 1.0 / 240.0
    """PyBullet step (s)."""
    gravity: float = 9.81
    """Gravity (m/s²) along -Z."""
    mount: str | None = None
    """How the object is held in the rest checks: ``"floor"`` (dropped free on the ground), ``"wall"`` or
    ``"ceiling"`` (its root fixed to the world, as a wall clock is screwed to its wall or a pendant lamp hangs from
    its ceiling; only its parts may move), or None: an asset folder's ``asset.json`` says (metadata ``mount``),
    else the floor."""
    robot: bool | None = None
    """Validate as a robot (True), as an object (False), or a robot when the file declares actuated joints (None:
    a URDF ``<transmission>``, an MJCF ``<actuator>``). A robot's joints are held by their motors in the rest
    checks (unpowered, an arm folds under gravity), a link and its parent are not compared for overlap (the
    engines never collide them) and self-collision within its joint limits is a warning, not a failure."""


@dataclass
class Check:
    """One check's outcome: ``status`` pass | fail | skip, a message and the numbers behind it."""

    name: str
    """``{format}.{check}`` (e.g. ``urdf.rest_pybullet``), ``kinematics.{format}`` or ``input``."""
    status: str
    """'pass' | 'fail' | 'skip' | 'warn' (skips and warnings say why in ``message`` and do not fail the report)."""
    message: str
    numbers: dict[str, Any] = field(default_factory=dict)
    target: str = ""
    """The file checked, relative to the validated folder."""
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """False only for a failed check (a skipped check does not fail a report)."""
        return self.status != "fail"

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (non-finite numbers become strings)."""
        return {"name": self.name, "status": self.status, "message": self.message,
                "numbers": _jsonable(self.numbers), "target": self.target, "seconds": round(self.seconds, 4)}

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Check:
        """Inverse of :meth:`to_dict`."""
        return cls(doc["name"], doc["status"], doc["message"], dict(doc.get("numbers", {})),
                   doc.get("target", ""), float(doc.get("seconds", 0.0)))


@dataclass
class ValidationReport:
    """All checks run on one path; ``passed`` is False when any check failed (CLI exit code 1)."""

    path: str
    kind: str
    """'asset folder' | 'urdf' | 'mjcf' | 'usd' | 'glb', or 'unknown' when the path itself is unusable."""
    checks: list[Check] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    """Formats found and validated (asset folders; a single file lists its own format)."""
    absent: list[str] = field(default_factory=list)
    """Formats of ``EXPORT_LAYOUT`` an asset folder does not hold."""
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    functional: list[Check] = field(default_factory=list)
    """The functional checks (``functional.travel`` ... ``functional.kinds``), a section of their own."""
    functional_info: dict[str, Any] = field(default_factory=dict)
    """The functional section's category (and where it came from), per-joint findings and missing parts."""
    robot: bool = False
    """Validated as a robot (``ValidationConfig.robot``, or detected from declared actuators; a note says which)."""

    @property
    def sound(self) -> bool:
        """Physically sound: at least one check ran and none failed."""
        return bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def functional_passed(self) -> bool:
        """No functional check failed (warnings and skips pass)."""
        return all(c.passed for c in self.functional)

    @property
    def passed(self) -> bool:
        """Physically sound and functional."""
        return self.sound and self.functional_passed

    @property
    def exit_code(self) -> int:
        """0 when the report passed, 1 when a check failed (the CLI's exit status)."""
        return 0 if self.passed else 1

    @property
    def failures(self) -> list[Check]:
        """The failed checks, functional ones included."""
        return [c for c in [*self.checks, *self.functional] if c.status == "fail"]

    def check(self, name: str) -> Check:
        """The check called ``name`` (``KeyError`` when it did not run)."""
        for c in [*self.checks, *self.functional]:
            if c.name == name:
                return c
        raise KeyError(f"no check {name!r} in this report; ran: {', '.join(c.name for c in self.checks)}")

    def summary(self) -> str:
        """Readable text: a verdict line, the formats, then one line per check with its numbers."""
        counts = {s: sum(c.status == s for c in self.checks) for s in ("pass", "warn", "fail", "skip")}
        verdict = "PASSED" if self.passed else "FAILED"
        fun = {s: sum(c.status == s for c in self.functional) for s in ("pass", "warn", "fail", "skip")}
        functional = ("functional: not checked" if not self.functional else
                      f"functional: {'yes' if self.functional_passed else 'NO'} ({fun['pass']} passed, "
                      f"{fun['warn']} warned, {fun['fail']} failed, {fun['skip']} skipped)")
        warned = f"{counts['warn']} warned, " if counts["warn"] else ""
        kind = f"{self.kind} validated as a robot" if self.robot else self.kind
        lines = [f"{verdict}  {self.path}  ({kind}; physically sound: {'yes' if self.sound else 'NO'} "
                 f"({len(self.checks)} checks: {counts['pass']} passed, {warned}{counts['fail']} failed, "
                 f"{counts['skip']} skipped); {functional}; {self.seconds:.1f} s)"]
        if self.kind == "asset folder":
            lines.append(f"formats present: {', '.join(self.present) or 'none'}; "
                         f"absent: {', '.join(self.absent) or 'none'}")
        width = max((len(c.name) for c in self.checks), default=0)
        label = {"pass": "pass", "fail": "FAIL", "skip": "skip", "warn": "WARN"}
        for c in self.checks:
            lines.append(f"  {label.get(c.status, c.status):4}  {c.name:<{width}}  {c.message}")
        if self.functional:
            info = self.functional_info
            about = (f"{info['category']}, from {info.get('category_source')}" if info.get("category")
                     else "category unknown")
            lines.append(f"functional ({about}):")
            width = max(len(c.name) for c in self.functional)
            lines += [f"  {label.get(c.status, c.status):4}  {c.name:<{width}}  {c.message}" for c in self.functional]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form; ``ValidationReport.from_dict`` reads it back."""
        return {"path": self.path, "kind": self.kind, "passed": self.passed, "exit_code": self.exit_code,
                "sound": self.sound, "robot": self.robot, "seconds": round(self.seconds, 3),
                "present": list(self.present),
                "absent": list(self.absent), "notes": list(self.notes), "checks": [c.to_dict() for c in self.checks],
                "functional": {"passed": self.functional_passed, **_jsonable(self.functional_info),
                               "checks": [c.to_dict() for c in self.functional]}}

    def to_json(self, indent: int | None = 2) -> str:
        """``to_dict`` as strict JSON text."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> ValidationReport:
        """Inverse of :meth:`to_dict`."""
        fun = dict(doc.get("functional") or {})
        checks = [Check.from_dict(c) for c in fun.pop("checks", [])]
        fun.pop("passed", None)
        return cls(path=doc["path"], kind=doc["kind"], checks=[Check.from_dict(c) for c in doc.get("checks", [])],
                   present=list(doc.get("present", [])), absent=list(doc.get("absent", [])),
                   notes=list(doc.get("notes", [])), seconds=float(doc.get("seconds", 0.0)), functional=checks,
                   functional_info=fun, robot=bool(doc.get("robot", False)))


def _jsonable(value: Any) -> Any:
    """Numbers, lists and dicts made strict-JSON-able (numpy scalars to Python, NaN/inf to strings)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_jsonable(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else str(v)
    return value if value is None or isinstance(value, str) else str(value)


# --------------------------------------------------------------------------------------------- running checks


@dataclass
class _Result:
    """What a check function returns: its verdict, message, numbers and a value for later checks."""

    status: str
    message: str
    numbers: dict[str, Any] = field(default_factory=dict)
    value: Any = None


def _ok(message: str, numbers: dict[str, Any] | None = None, value: Any = None) -> _Result:
    return _Result("pass", message, numbers or {}, value)


def _verdict(problems: list[str], ok: str, numbers: dict[str, Any], value: Any = None, most: int = 6) -> _Result:
    """Fail listing the first ``most`` problems, or pass with ``ok``."""
    if not problems:
        return _Result("pass", ok, numbers, value)
    more = f" (and {len(problems) - most} more)" if len(problems) > most else ""
    numbers = {**numbers, "problems": len(problems)}
    return _Result("fail", "; ".join(problems[:most]) + more, numbers, value)


_OUTPUT_LOCK = threading.RLock()
_redirect_depth = 0


@contextlib.contextmanager
def _engine_output() -> Iterator[list[str]]:
    """Redirect C-level stdout/stderr into a temporary file; the yielded list gets its lines afterwards."""
    global _redirect_depth
    lines: list[str] = []
    with _OUTPUT_LOCK:
        if _redirect_depth:  # already redirected by an outer block in this thread
            _redirect_depth += 1
            try:
                yield lines
            finally:
                _redirect_depth -= 1
            return
        try:
            saved = (os.dup(1), os.dup(2))
        except OSError:  # no usable descriptors (embedded interpreter): run unredirected
            yield lines
            return
        with tempfile.TemporaryFile() as sink:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            _redirect_depth = 1
            try:
                yield lines
            finally:
                _redirect_depth = 0
                _flush_c_stdio()
                for stream in (sys.stdout, sys.stderr):
                    with contextlib.suppress(Exception):
                        stream.flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
                os.close(saved[0])
                os.close(saved[1])
                sink.seek(0)
                lines.extend(sink.read().decode("utf-8", errors="replace").splitlines())


def _flush_c_stdio() -> None:
    """fflush(NULL): push C stdio buffers out before file descriptors are restored."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).fflush(None)


def _engine_errors(lines: list[str], most: int = 3) -> str:
    """The engine's last few error-looking output lines, for a failure message."""
    keys = ("error", "cannot", "can't", "could not", "failed", "not found", "invalid", "unable", "warning")
    hits = [re.sub(r"b3(Error|Warning)\[[^\]]*\]:?", " ", ln).strip() for ln in lines
            if any(k in ln.lower() for k in keys) and "InMemoryFile" not in ln]
    hits = [h.strip(" |:") for h in hits if len(h.strip(" |:")) > 3]
    return " | ".join(hits[-most:])


class _Runner:
    """Runs check functions, catching every exception into a failed check."""

    def __init__(self, config: ValidationConfig, root: Path,
                 progress: Callable[[float, str], None] | None = None) -> None:
        self.config = config
        self.root = root
        self.checks: list[Check] = []
        self.progress = progress

    def target(self, path: Path | str) -> str:
        path = Path(path)
        with contextlib.suppress(ValueError):
            return str(path.relative_to(self.root)) or path.name
        return str(path)

    def run(self, name: str, target: Path | str, fn: Callable[[], _Result]) -> Any:
        """Run ``fn`` quietly as check ``name``; returns its ``value`` (None when it failed or raised)."""
        start = time.perf_counter()
        output: list[str] = []
        if self.progress is not None:  # the number of checks is not known ahead: a share that grows with each
            self.progress(1.0 - 0.9 ** len(self.checks), f"{name} ({self.target(target)})")
        try:
            with _engine_output() as output:
                result = fn()
        except Seed3DError as exc:
            result = _Result("fail", str(exc))
        except Exception as exc:
            logger.debug("check %s raised", name, exc_info=True)
            result = _Result("fail", f"{type(exc).__name__}: {exc}")
        if result.status == "fail" and result.value is None:
            said = _engine_errors(output)
            if said and said not in result.message:
                result.message += f" (engine output: {said})"
        message = " ".join(result.message.split())  # one line per check, whatever the engine said
        self.checks.append(Check(name, result.status, message, result.numbers, self.target(target),
                                 time.perf_counter() - start))
        return result.value if result.status != "fail" or result.value is not None else None

    def skip(self, name: str, target: Path | str, why: str) -> None:
        self.checks.append(Check(name, "skip", why, {}, self.target(target)))

    def fail(self, name: str, target: Path | str, why: str) -> None:
        self.checks.append(Check(name, "fail", why, {}, self.target(target)))


# --------------------------------------------------------------------------------------------- geometry helpers


def _rpy_matrix(rpy: FloatArray) -> FloatArray:
    """URDF roll-pitch-yaw (fixed X, then Y, then Z) as a rotation matrix."""
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def _rotation_angle(a: FloatArray, b: FloatArray) -> float:
    """Angle (rad) of the rotation taking 3x3 rotation ``a`` to ``b``."""
    return math.acos(float(np.clip((np.trace(a.T @ b) - 1.0) / 2.0, -1.0, 1.0)))


@dataclass
class _MeshItem:
    """One mesh to check: where it is, its arrays, whether it must be closed, whether it is a collision hull."""

    where: str
    vertices: FloatArray
    faces: IntArray
    closed: bool = False
    hull: bool = False


def _mesh_findings(vertices: FloatArray, faces: IntArray, config: ValidationConfig,
                   closed_required: bool, hull: bool = False) -> tuple[list[str], dict[str, Any]]:
    """Problems of one mesh (empty, non-finite, degenerate, open where promised closed) and its numbers.

    Collision hulls are judged by their points (engines rebuild a hull from them): they must span a volume,
    while sliver faces (common in qhull output, and made exactly flat by float32 files) are allowed.
    """
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    f = np.asarray(faces).reshape(-1, 3).astype(np.int64)
    stats: dict[str, Any] = {"vertices": len(v), "faces": len(f)}
    if not len(v) or not len(f):
        return ["is empty (no vertices or no faces)"], stats
    if f.min() < 0 or f.max() >= len(v):
        return [f"has face indices outside 0..{len(v) - 1}"], stats
    problems = []
    finite = np.isfinite(v).all(axis=1)
    if not finite.all():
        first = int(np.flatnonzero(~finite)[0])
        problems.append(f"has {int((~finite).sum())} non-finite vertices (first: index {first} = {v[first].tolist()})")
    tri = v[f]
    with np.errstate(invalid="ignore", over="ignore"):
        area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    degenerate = ~(area > config.degenerate_area)  # NaN areas count as degenerate
    fraction = float(degenerate.mean())
    stats["degenerate_fraction"] = 0.0 if hull else fraction
    if hull and finite.all() and len(v) >= 4:
        thickness = float(np.linalg.svd(v - v.mean(axis=0), compute_uv=False)[-1]) / math.sqrt(len(v))
        if thickness < 1e-6:
            problems.append("is flat (its points span no volume): not a usable convex hull")
    elif hull and len(v) < 4:
        problems.append(f"has {len(v)} points: a convex hull needs at least 4")
    elif not hull and fraction > config.max_degenerate_fraction:
        problems.append(f"has {int(degenerate.sum())} zero-area faces of {len(f)} ({100 * fraction:.2f} % > "
                        f"{100 * config.max_degenerate_fraction:.2f} %)")
    if finite.all():
        open_edges = _open_edges(v, f)
        stats["closed"] = open_edges == 0
        if closed_required and open_edges:
            problems.append(f"is not watertight after welding coincident vertices ({open_edges} open edges)")
    return problems, stats


def _open_edges(vertices: FloatArray, faces: IntArray) -> int:
    """Edges left open (used by an odd number of faces) after welding coincident vertices as seed3d.physics does."""
    v, f = geo.weld(vertices, faces)
    if not len(f):
        return 0
    if geo.is_closed(f, len(v)):
        return 0
    edges = np.sort(np.stack([f.reshape(-1), f[:, [1, 2, 0]].reshape(-1)], axis=1), axis=1)
    _, counts = np.unique(edges[:, 0] * len(v) + edges[:, 1], return_counts=True)
    return int((counts % 2).sum())


class _MeshUnsupported(Exception):
    """A mesh file this environment cannot read (a missing optional reader): noted, not failed."""


def _load_mesh_file(path: Path) -> tuple[FloatArray, IntArray]:
    """Vertices and triangles of a mesh file (OBJ, STL, PLY, GLB, DAE, … via trimesh), unprocessed."""
    import trimesh

    if not path.is_file():
        raise AssetFormatError(f"{path}: mesh file is missing")
    kwargs: dict[str, Any] = {"process": False}
    if path.suffix.lower() == ".obj":
        kwargs["skip_materials"] = True
    try:
        loaded = trimesh.load(str(path), **kwargs)
    except ImportError as exc:  # e.g. .dae needs pycollada: our limitation, not the file's
        raise _MeshUnsupported(f"{path.name}: not checked ({exc})") from exc
    except Exception as exc:
        if "not supported" in str(exc).lower():
            raise _MeshUnsupported(f"{path.name}: not checked (trimesh cannot read {path.suffix} files)") from exc
        raise AssetFormatError(f"{path}: not a readable mesh ({type(exc).__name__}: {exc})") from exc
    if isinstance(loaded, trimesh.Scene):
        geoms = [g for g in loaded.dump() if hasattr(g, "faces")] if loaded.geometry else []
        if not geoms:
            return np.zeros((0, 3)), np.zeros((0, 3), np.int64)
        offsets = np.cumsum([0] + [len(g.vertices) for g in geoms[:-1]])
        return (np.concatenate([np.asarray(g.vertices, np.float64) for g in geoms]),
                np.concatenate([np.asarray(g.faces, np.int64) + o for g, o in zip(geoms, offsets, strict=True)]))
    if not hasattr(loaded, "faces"):
        raise AssetFormatError(f"{path}: holds no triangle mesh (a {type(loaded).__name__})")
    return np.asarray(loaded.vertices, np.float64), np.asarray(loaded.faces, np.int64)


def _check_inertial(mass: float, com: FloatArray, inertia: FloatArray) -> list[str]:
    """Problems of one inertial: ``seed3d.physics.inertia.inertia_problems`` (mass, definiteness, triangle)."""
    return list(inertia_problems(mass, com, inertia))


# --------------------------------------------------------------------------------------------- kinematic trees


@dataclass
class _KJoint:
    """A joint as every format can state it: frames in the asset/world frame at rest."""

    name: str | None
    type: str
    parent: str | None
    child: str
    origin: FloatArray
    axis: FloatArray | None
    lower: float | None
    upper: float | None


def _asset_kinematics(asset: Asset) -> list[_KJoint]:
    out = []
    for j in asset.joints:
        axis = None
        if j.movable:
            n = float(np.linalg.norm(j.axis))
            axis = j.axis / n if math.isfinite(n) and n > 1e-12 else j.axis.copy()
        limited = j.type in ("revolute", "prismatic")
        out.append(_KJoint(j.name, j.type, j.parent, j.child, j.origin.copy(), axis,
                           j.lower if limited else None, j.upper if limited else None))
    return out


def _compare_kinematics(expected: list[_KJoint], got: list[_KJoint], config: ValidationConfig,
                        fixed_named: bool = True) -> _Result:
    """Compare a format's joints with asset.json's: names, types, parent/child, axes, pivots, limits."""
    problems: list[str] = []
    worst = {"axis_rad": 0.0, "pivot_m": 0.0, "limit": 0.0}
    got_movable = {g.name: g for g in got if g.type != "fixed"}
    got_fixed = {g.child: g for g in got if g.type == "fixed"}
    for e in expected:
        if e.type == "fixed":
            g = got_fixed.pop(e.child, None)
            if g is None:
                moved = next((x for x in got_movable.values() if x.child == e.child), None)
                problems.append(f"fixed joint {e.name!r}: child {e.child!r} is "
                                + (f"on a {moved.type} joint {moved.name!r}" if moved else "not fixed to a parent"))
                continue
            if fixed_named and g.name is not None and g.name != e.name:
                problems.append(f"fixed joint {e.name!r} is called {g.name!r}")
        else:
            g = got_movable.pop(e.name or "", None)
            if g is None:
                problems.append(f"joint {e.name!r} ({e.type}) is missing")
                continue
            if g.type != e.type:
                problems.append(f"joint {e.name!r} is {g.type}, asset.json says {e.type}")
        if (g.parent, g.child) != (e.parent, e.child):
            problems.append(f"joint {e.name!r} links {g.parent!r} -> {g.child!r}, asset.json says "
                            f"{e.parent!r} -> {e.child!r}")
        if e.type == "fixed" or e.axis is None:
            continue
        if g.axis is None or not np.all(np.isfinite(g.axis)) or np.linalg.norm(g.axis) < 1e-12:
            problems.append(f"joint {e.name!r} has no usable axis")
            continue
        a, b = e.axis / np.linalg.norm(e.axis), g.axis / np.linalg.norm(g.axis)
        angle = math.acos(float(np.clip(a @ b, -1.0, 1.0)))
        worst["axis_rad"] = max(worst["axis_rad"], angle)
        if angle > config.axis_tolerance:
            problems.append(f"joint {e.name!r}: axis {np.round(b, 6).tolist()} differs from asset.json's "
                            f"{np.round(a, 6).tolist()} by {math.degrees(angle):.3g}°")
        if e.type in ("revolute", "continuous"):
            pivot = float(np.linalg.norm(np.cross(g.origin - e.origin, a)))
            worst["pivot_m"] = max(worst["pivot_m"], pivot)
            if pivot > config.kinematics_tolerance:
                problems.append(f"joint {e.name!r}: pivot line is {1000 * pivot:.3g} mm from asset.json's")
        for side in ("lower", "upper"):
            ev, gv = getattr(e, side), getattr(g, side)
            if ev is None and gv is None:
                continue
            if ev is None or gv is None:
                problems.append(f"joint {e.name!r}: {side} limit is {gv}, asset.json says {ev}")
                continue
            worst["limit"] = max(worst["limit"], abs(ev - gv))
            if abs(ev - gv) > config.kinematics_tolerance:
                problems.append(f"joint {e.name!r}: {side} limit {gv:.6g}, asset.json says {ev:.6g}")
    for g in got_movable.values():
        problems.append(f"extra {g.type} joint {g.name!r} ({g.parent!r} -> {g.child!r}) not in asset.json")
    for g in got_fixed.values():
        problems.append(f"extra fixed joint {g.name or ''} ({g.parent!r} -> {g.child!r}) not in asset.json")
    numbers = {"joints": len(expected), "worst_axis_deg": math.degrees(worst["axis_rad"]),
               "worst_pivot_mm": 1000 * worst["pivot_m"], "worst_limit": worst["limit"]}
    return _verdict(problems, f"same {len(expected)} joints as asset.json (worst axis "
                    f"{numbers['worst_axis_deg']:.2g}°, pivot {numbers['worst_pivot_mm']:.2g} mm, limit "
                    f"{worst['limit']:.2g})", numbers)


# --------------------------------------------------------------------------------------------- what an asset promises


@dataclass
class _Expect:
    """What asset.json says about its exports: part names, closed parts and joints."""

    parts: set[str]
    closed: set[str]
    joints: list[_KJoint]


# --------------------------------------------------------------------------------------------- URDF model


@dataclass
class _Geom:
    role: str
    kind: str
    where: str
    file: str = ""
    path: Path | None = None
    scale: FloatArray = field(default_factory=lambda: np.ones(3))


@dataclass
class _Inertial:
    mass: float
    com: FloatArray
    inertia: FloatArray
    where: str


@dataclass
class _ULink:
    name: str
    where: str
    geoms: list[_Geom] = field(default_factory=list)
    textures: list[tuple[str, Path | None, str]] = field(default_factory=list)
    inertial: _Inertial | None = None


@dataclass
class _UJoint:
    name: str
    type: str
    parent: str
    child: str
    where: str
    xyz: FloatArray = field(default_factory=lambda: np.zeros(3))
    rpy: FloatArray = field(default_factory=lambda: np.zeros(3))
    axis: FloatArray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    lower: float | None = None
    upper: float | None = None
    effort: float | None = None
    velocity: float | None = None
    damping: float = 0.0
    friction: float = 0.0
    has_limit: bool = False


@dataclass
class _Urdf:
    path: Path
    name: str
    links: dict[str, _ULink]
    joints: list[_UJoint]
    problems: list[str]
    textures: list[tuple[str, Path | None, str]]
    root: str | None = None
    notes: list[str] = field(default_factory=list)
    """What was read leniently, as the engines read it (said in the parse check's message)."""
    actuated: list[str] = field(default_factory=list)
    """Joints a ``<transmission>`` declares actuated (ROS): such a file is a robot."""

    @property
    def movable(self) -> list[_UJoint]:
        return [j for j in self.joints if j.type in ("revolute", "continuous", "prismatic")]


#: An XML declaration at the start of a file, with its version attribute.
_XML_DECLARATION = re.compile(rb"^(\xef\xbb\xbf)?\s*<\?xml\b[^>]*?\bversion\s*=\s*([\"'])([^\"']*)\2[^>]*\?>")


def _xml_read(path: Path) -> tuple[Any, str]:
    """Parse an XML file safely (no entities, no network): its root element and a note on what was tolerated.

    PyBullet and MuJoCo read XML with tinyxml2, which ignores the declaration's version (pybullet_data's own
    files say ``<?xml version="0.0"?>``) and anything after the first root element; such files are read the
    same way here, and the note says so. Any other broken XML raises naming the line.
    """
    from lxml import etree

    if not path.is_file():
        raise AssetFormatError(f"{path}: file does not exist")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise AssetFormatError(f"{path}: cannot be read ({exc})") from exc

    def parse(text: bytes) -> Any:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=True)
        return etree.fromstring(text, parser, base_url=str(path))

    try:
        return parse(data), ""
    except etree.XMLSyntaxError as exc:
        error = exc
    notes = []
    declared = _XML_DECLARATION.match(data)
    if declared is not None and declared.group(3) != b"1.0":
        start, end = declared.span(3)
        data = data[:start] + b"1.0" + data[end:]
        notes.append(f"its XML declaration says version {declared.group(3).decode('ascii', 'replace')!r} (XML has "
                     "1.0): read as 1.0")
        try:
            return parse(data), f"{notes[0]}, as PyBullet and MuJoCo read it"
        except etree.XMLSyntaxError as exc:
            error = exc
    if error.code == etree.ErrorTypes.ERR_DOCUMENT_END:  # more after the root element: well-formed nodes?
        body = data if declared is None else b" " * declared.end() + data[declared.end():]  # lines stay put
        with contextlib.suppress(etree.XMLSyntaxError):
            first = next(iter(parse(b"<seed3d-document>" + body + b"</seed3d-document>").iterchildren("*")), None)
            if first is not None:
                notes.append(f"what follows the root element (from line {error.lineno}) is ignored")
                return first, "; ".join(notes) + ", as PyBullet and MuJoCo read it"
    raise AssetFormatError(f"{path}: broken XML ({error})") from error


def _xml_root(path: Path) -> Any:
    """The root element of an XML file read as :func:`_xml_read` reads it."""
    return _xml_read(path)[0]


def _where(path: Path, el: Any) -> str:
    name = el.get("name")
    return f"{path.name} line {el.sourceline} <{el.tag}{'' if name is None else f' name={name!r}'}>"


def _floats(el: Any, attr: str, n: int, default: tuple[float, ...], where: str) -> FloatArray:
    """Attribute ``attr`` of ``el`` as ``n`` floats (``default`` when absent); bad text raises naming it."""
    text = None if el is None else el.get(attr)
    if text is None:
        return np.array(default, dtype=np.float64)
    try:
        values = np.array([float(x) for x in text.replace(",", " ").split()], dtype=np.float64)
    except ValueError:
        raise AssetFormatError(f"{where}: {attr}={text!r} is not {n} numbers") from None
    if len(values) != n:
        raise AssetFormatError(f"{where}: {attr}={text!r} has {len(values)} numbers, expected {n}")
    return values


def _resolve(ref: str, base: Path) -> Path | None:
    """Where a URDF file reference points: relative to the file, ``file://``, or ``package://``/``model://``."""
    if ref.startswith("file://"):
        ref = ref[len("file://"):]
    for scheme in ("package://", "model://"):
        if ref.startswith(scheme):
            package, _, rest = ref[len(scheme):].partition("/")
            for folder in (base, *base.parents):
                if folder.name == package:
                    return folder / rest
                if (folder / package).is_dir():
                    return folder / package / rest
            return None
    p = Path(ref)
    return p if p.is_absolute() else base / p


def _parse_urdf(path: Path) -> _Urdf:
    """Read a URDF: links, geometry, inertials, joints. XML errors raise; element problems are collected."""
    root, note = _xml_read(path)
    if root.tag != "robot":
        raise AssetFormatError(f"{path}: the root element is <{root.tag}>, not <robot>: not a URDF")
    base = path.parent
    problems: list[str] = []
    links: dict[str, _ULink] = {}
    textures: list[tuple[str, Path | None, str]] = []
    for mat in root.findall("material"):
        for tex in mat.findall("texture"):
            if tex.get("filename"):
                textures.append((tex.get("filename"), _resolve(tex.get("filename"), base), _where(path, tex)))
    for el in root.findall("link"):
        name = el.get("name")
        where = _where(path, el)
        if not name:
            problems.append(f"{where}: link without a name")
            continue
        if name in links:
            problems.append(f"{where}: duplicate link name {name!r}")
            continue
        link = _ULink(name, where)
        links[name] = link
        for role in ("visual", "collision"):
            for k, item in enumerate(el.findall(role)):
                geometry = item.find("geometry")
                shape = None if geometry is None else next(iter(geometry), None)
                gwhere = f"{path.name} line {item.sourceline} <{role}> {k} of link {name!r}"
                if shape is None:
                    problems.append(f"{gwhere}: no <geometry> shape")
                    continue
                geom = _Geom(role, str(shape.tag), gwhere)
                try:
                    if shape.tag == "mesh":
                        geom.file = shape.get("filename") or ""
                        if not geom.file:
                            problems.append(f"{gwhere}: <mesh> without a filename")
                        geom.path = _resolve(geom.file, base) if geom.file else None
                        geom.scale = _floats(shape, "scale", 3, (1.0, 1.0, 1.0), gwhere)
                    elif shape.tag not in ("box", "cylinder", "sphere", "capsule"):
                        problems.append(f"{gwhere}: unknown geometry <{shape.tag}>")
                except AssetFormatError as exc:
                    problems.append(str(exc))
                link.geoms.append(geom)
                for tex in item.findall("material/texture"):
                    if tex.get("filename"):
                        textures.append((tex.get("filename"), _resolve(tex.get("filename"), base),
                                         _where(path, tex)))
        inertial = el.find("inertial")
        if inertial is not None:
            iwhere = f"{path.name} line {inertial.sourceline} <inertial> of link {name!r}"
            try:
                mass_el = inertial.find("mass")
                mass = float("nan") if mass_el is None else float(_floats(mass_el, "value", 1, (math.nan,), iwhere)[0])
                com = _floats(inertial.find("origin"), "xyz", 3, (0.0, 0.0, 0.0), iwhere)
                rpy = _floats(inertial.find("origin"), "rpy", 3, (0.0, 0.0, 0.0), iwhere)
                it = inertial.find("inertia")
                if it is None:
                    raise AssetFormatError(f"{iwhere}: no <inertia> element")
                v = {k: float(_floats(it, k, 1, (0.0,), iwhere)[0]) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
                tensor = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]],
                                   [v["ixz"], v["iyz"], v["izz"]]])
                rot = _rpy_matrix(rpy)
                link.inertial = _Inertial(mass, com, rot @ tensor @ rot.T, iwhere)
            except AssetFormatError as exc:
                problems.append(str(exc))
                link.inertial = _Inertial(math.nan, np.zeros(3), np.full((3, 3), np.nan), iwhere)
    joints: list[_UJoint] = []
    for el in root.findall("joint"):
        where = _where(path, el)
        parent, child = el.find("parent"), el.find("child")
        joint = _UJoint(el.get("name") or "", el.get("type") or "", "" if parent is None else parent.get("link", ""),
                        "" if child is None else child.get("link", ""), where)
        if not joint.name:
            problems.append(f"{where}: joint without a name")
        if joint.type not in ("revolute", "continuous", "prismatic", "fixed", "floating", "planar"):
            problems.append(f"{where}: unknown joint type {joint.type!r}")
        try:
            origin = el.find("origin")
            joint.xyz = _floats(origin, "xyz", 3, (0.0, 0.0, 0.0), where)
            joint.rpy = _floats(origin, "rpy", 3, (0.0, 0.0, 0.0), where)
            joint.axis = _floats(el.find("axis"), "xyz", 3, (1.0, 0.0, 0.0), where)
            limit = el.find("limit")
            if limit is not None:
                joint.has_limit = True
                joint.lower = float(_floats(limit, "lower", 1, (0.0,), where)[0])
                joint.upper = float(_floats(limit, "upper", 1, (0.0,), where)[0])
                joint.effort = float(_floats(limit, "effort", 1, (math.nan,), where)[0])
                joint.velocity = float(_floats(limit, "velocity", 1, (math.nan,), where)[0])
            dynamics = el.find("dynamics")
            joint.damping = float(_floats(dynamics, "damping", 1, (0.0,), where)[0])
            joint.friction = float(_floats(dynamics, "friction", 1, (0.0,), where)[0])
        except AssetFormatError as exc:
            problems.append(str(exc))
            joint.axis = np.full(3, np.nan)
        joints.append(joint)
    model = _Urdf(path, root.get("name") or path.stem, links, joints, problems, textures, notes=[note] if note else [])
    model.root = _tree_root(model, problems)
    movable = {j.name for j in model.movable}
    model.actuated = sorted({j.get("name", "") for j in root.iterfind("transmission/joint")} & movable)
    return model


def _tree_root(model: _Urdf, problems: list[str]) -> str | None:
    """The root link when links and joints form one tree (problems appended otherwise)."""
    if not model.links:
        problems.append(f"{model.path.name}: no <link> elements")
        return None
    before = len(problems)
    names = [j.name for j in model.joints]
    for n in sorted({n for n in names if names.count(n) > 1 and n}):
        problems.append(f"{model.path.name}: duplicate joint name {n!r}")
    parent_of: dict[str, str] = {}
    for j in model.joints:
        for end, what in ((j.parent, "parent"), (j.child, "child")):
            if end not in model.links:
                problems.append(f"{j.where}: {what} link {end!r} does not exist")
        if j.child in parent_of:
            problems.append(f"{j.where}: link {j.child!r} already has parent {parent_of[j.child]!r}")
        parent_of[j.child] = j.parent
    roots = [n for n in model.links if n not in parent_of]
    if len(roots) != 1:
        problems.append(f"{model.path.name}: expected one root link, found {roots or 'none (a cycle)'}")
        return None
    seen, stack = set(), [roots[0]]
    while stack:
        n = stack.pop()
        seen.add(n)
        stack.extend(j.child for j in model.joints if j.parent == n and j.child not in seen)
    if seen != set(model.links):
        problems.append(f"{model.path.name}: links {sorted(set(model.links) - seen)} are not connected to the root")
    return roots[0] if len(problems) == before else None


def _urdf_kinematics(model: _Urdf) -> list[_KJoint]:
    """World frames at rest of every URDF joint (root link at the origin)."""
    if model.root is None:
        raise AssetFormatError(f"{model.path}: links and joints do not form one tree")
    world = {model.root: np.eye(4)}
    by_parent: dict[str, list[_UJoint]] = {}
    for j in model.joints:
        by_parent.setdefault(j.parent, []).append(j)
    out: dict[str, _KJoint] = {}
    stack = [model.root]
    while stack:
        parent = stack.pop()
        for j in by_parent.get(parent, []):
            local = np.eye(4)
            local[:3, :3] = _rpy_matrix(j.rpy)
            local[:3, 3] = j.xyz
            world[j.child] = world[parent] @ local
            movable = j.type in ("revolute", "continuous", "prismatic")
            axis = world[j.child][:3, :3] @ j.axis if movable else None
            limited = j.type in ("revolute", "prismatic")
            out[j.name] = _KJoint(j.name, j.type, j.parent, j.child, world[j.child][:3, 3].copy(), axis,
                                  j.lower if limited else None, j.upper if limited else None)
            stack.append(j.child)
    return [out[j.name] for j in model.joints if j.name in out]


def _rigid_groups(names: list[str], fixed_pairs: list[tuple[str, str]]) -> dict[str, str]:
    """Union-find: each name -> a representative of the names it is joined to by fixed joints."""
    rep = {n: n for n in names}

    def find(n: str) -> str:
        while rep[n] != n:
            rep[n] = rep[rep[n]]
            n = rep[n]
        return n

    for a, b in fixed_pairs:
        if a in rep and b in rep:
            rep[find(a)] = find(b)
    return {n: find(n) for n in names}


# --------------------------------------------------------------------------------------------- URDF checks


def _urdf_parse_check(path: Path) -> _Result:
    model = _parse_urdf(path)
    numbers = {"links": len(model.links), "joints": len(model.joints), "movable": len(model.movable)}
    ok = f"robot {model.name!r}: {len(model.links)} links, {len(model.joints)} joints ({len(model.movable)} movable)"
    if model.actuated:
        numbers["actuated"] = len(model.actuated)
        ok += f", {len(model.actuated)} declared actuated by <transmission>"
    ok += "".join(f"; {n}" for n in model.notes)
    return _verdict(model.problems, ok, numbers, value=model)


def _files_result(refs: list[tuple[str, Path | None, str]]) -> _Result:
    """Every (reference, resolved path, where) must point at an existing file."""
    problems = []
    for ref, resolved, where in refs:
        if resolved is None:
            problems.append(f"{where}: cannot resolve {ref!r} (package not found next to the file)")
        elif not resolved.is_file():
            problems.append(f"{where}: {ref!r} does not exist ({resolved})")
    unique = len({str(r) for _, r, _ in refs})
    return _verdict(problems, f"all {unique} referenced files exist", {"referenced": unique,
                                                                      "missing": len(problems)})


def _urdf_files_check(model: _Urdf) -> _Result:
    refs = [(g.file, g.path, g.where) for link in model.links.values() for g in link.geoms if g.kind == "mesh"]
    refs += model.textures
    return _files_result(refs)


def _meshes_result(items: list[_MeshItem], config: ValidationConfig,
                   load_errors: list[str], primitives: int = 0, unchecked: list[str] | None = None) -> _Result:
    """Run ``_mesh_findings`` over (where, vertices, faces, closed required) items."""
    problems = list(load_errors)
    faces = 0
    open_meshes = 0
    worst_degenerate = 0.0
    checked_closed = 0
    for item in items:
        found, stats = _mesh_findings(item.vertices, item.faces, config, item.closed, item.hull)
        problems += [f"{item.where} {p}" for p in found]
        faces += stats["faces"]
        worst_degenerate = max(worst_degenerate, stats.get("degenerate_fraction", 0.0))
        open_meshes += not stats.get("closed", True)
        checked_closed += item.closed
    numbers = {"meshes": len(items), "hulls": sum(item.hull for item in items), "faces": faces,
               "primitives": primitives, "open_meshes": open_meshes,
               "watertight_required": checked_closed, "worst_degenerate_fraction": worst_degenerate}
    hulls = sum(item.hull for item in items)
    ok = f"{len(items)} meshes ({faces} faces) non-empty and finite"
    ok += f", at most {100 * worst_degenerate:.2g} % zero-area faces" if worst_degenerate else ", no zero-area faces"
    if hulls:
        ok += f" (collision hulls: {hulls}, each spanning a volume)"
    if checked_closed:
        ok += f"; the {checked_closed} promised watertight are closed"
    if open_meshes:
        ok += f"; {open_meshes} open (not promised watertight)"
    if primitives:
        ok += f"; {primitives} primitive shapes"
    if unchecked:
        numbers["unchecked"] = len(unchecked)
        ok += f"; {len(unchecked)} not checked: {'; '.join(unchecked[:3])}"
    return _verdict(problems, ok, numbers)


def _urdf_meshes_check(model: _Urdf, config: ValidationConfig, expect: _Expect | None) -> _Result:
    items, errors, unchecked = [], [], []
    cache: dict[str, tuple[FloatArray, IntArray]] = {}
    primitives = 0
    for link in model.links.values():
        for g in link.geoms:
            if g.kind != "mesh":
                primitives += 1
                continue
            if g.path is None or not g.path.is_file():
                continue  # reported by urdf.files
            key = str(g.path)
            try:
                if key not in cache:
                    cache[key] = _load_mesh_file(g.path)
            except _MeshUnsupported as exc:
                unchecked.append(str(exc))
                continue
            except AssetFormatError as exc:
                errors.append(f"{g.where}: {exc}")
                continue
            v, f = cache[key]
            closed = expect is not None and g.role == "visual" and link.name in expect.closed
            items.append(_MeshItem(f"{g.where} ({g.file})", v * g.scale, f, closed, g.role == "collision"))
    return _meshes_result(items, config, errors, primitives, unchecked)


def _urdf_inertials_check(model: _Urdf) -> _Result:
    """Valid inertials; a massless root is static and a massless link fixed to one with mass is merged into it.

    Both follow the engines: PyBullet keeps a base of mass 0 fixed (its fixed-base convention) and MuJoCo's
    URDF import fixes it to the world; a link on fixed joints only moves with the link it is welded to.
    """
    problems = []
    groups = _rigid_groups(list(model.links), [(j.parent, j.child) for j in model.joints if j.type == "fixed"])
    massive = {groups[n] for n, link in model.links.items() if link.inertial is not None and link.inertial.mass > 0}
    welded = {j.child for j in model.joints if j.type == "fixed"}  # a massless frame rides on its parent's mass
    masses = []
    static = ""
    merged = []
    for name, link in model.links.items():
        if link.inertial is None:
            if groups[name] not in massive:
                problems.append(f"{link.where}: no <inertial> and not fixed to a link with mass (PyBullet would "
                                "give it 1 kg and unit inertia)")
            continue
        masses.append(link.inertial.mass)
        if link.inertial.mass == 0 and name == model.root:
            static = name
            continue
        if link.inertial.mass == 0 and name in welded and groups[name] in massive:
            merged.append(name)
            continue
        problems += [f"{link.inertial.where}: {p}" for p in
                     _check_inertial(link.inertial.mass, link.inertial.com, link.inertial.inertia)]
    total = float(np.nansum(masses)) if masses else 0.0
    ok = f"{len(masses)} inertials valid, total mass {total:.4g} kg"
    if static:
        ok += (f"; root link {static!r} has mass 0: static (PyBullet's fixed-base convention; MuJoCo fixes it to "
               "the world)")
    if merged:
        more = f" and {len(merged) - 3} more" if len(merged) > 3 else ""
        ok += (f"; massless {', '.join(repr(n) for n in merged[:3])}{more} on fixed joints to links with mass (frames "
               "the engines weld on)")
    return _verdict(problems, ok, {"inertials": len(masses), "total_mass": total, "static_root": bool(static),
                                   "massless_fixed": len(merged)})


def _joint_value_problems(where: str, jtype: str, axis: FloatArray | None, lower: float | None,
                          upper: float | None, limited: bool, damping: float = 0.0,
                          friction: float = 0.0) -> list[str]:
    """Axis non-zero and finite on movable joints, finite limits with lower <= upper, non-negative dynamics."""
    problems = []
    if jtype in ("revolute", "continuous", "prismatic", "hinge", "slide") and axis is not None:
        n = float(np.linalg.norm(axis))
        if not math.isfinite(n) or n < 1e-9:
            problems.append(f"{where}: axis {np.asarray(axis).tolist()} is zero or not finite")
    if limited:
        if lower is None or upper is None or not (math.isfinite(lower) and math.isfinite(upper)):
            problems.append(f"{where}: limits {lower}, {upper} are missing or not finite")
        elif lower > upper:
            problems.append(f"{where}: lower limit {lower:g} > upper limit {upper:g}")
    for what, value in (("damping", damping), ("friction", friction)):
        if not (math.isfinite(value) and value >= 0):
            problems.append(f"{where}: {what} {value} is negative or not finite")
    return problems


def _urdf_joints_check(model: _Urdf) -> _Result:
    problems = []
    notes = []
    for j in model.joints:
        limited = j.type in ("revolute", "prismatic")
        if limited and not j.has_limit:
            problems.append(f"{j.where}: a {j.type} joint needs <limit lower upper effort velocity>")
            continue
        problems += _joint_value_problems(j.where, j.type, j.axis, j.lower, j.upper, limited, j.damping, j.friction)
        if j.type in ("floating", "planar"):
            notes.append(f"{j.name} is {j.type} (not swept)")
    ok = f"{len(model.movable)} movable joints: non-zero axes, lower <= upper"
    if notes:
        ok += "; " + "; ".join(notes)
    return _verdict(problems, ok, {"joints": len(model.joints), "movable": len(model.movable)})


# --------------------------------------------------------------------------------------------- PyBullet


def _import_pybullet() -> Any:
    """pybullet (imported quietly: it prints its build time on import)."""
    try:
        with _engine_output():
            import pybullet
    except ImportError as exc:
        raise DependencyError("pybullet is not installed: pip install pybullet==3.2.7") from exc
    return pybullet


@contextlib.contextmanager
def _bullet() -> Iterator[Any]:
    """A PyBullet DIRECT client of its own (thread-safe against other clients)."""
    pb = _import_pybullet()
    from pybullet_utils.bullet_client import BulletClient

    client = BulletClient(connection_mode=pb.DIRECT)
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.disconnect()
        with contextlib.suppress(Exception):
            client._client = -1  # keep BulletClient.__del__ from disconnecting twice


@dataclass
class _BulletBody:
    """A loaded multibody: link names, parents, joint info, rigid groups and collision margins."""

    id: int
    names: dict[int, str]
    parent: dict[int, int]
    info: dict[int, tuple]
    group: dict[int, str]
    margin: dict[int, float]

    @property
    def links(self) -> list[int]:
        return sorted(self.names)

    def movable(self, c: Any) -> list[int]:
        return [i for i, info in self.info.items() if info[2] in (c.JOINT_REVOLUTE, c.JOINT_PRISMATIC)]

    def subtree(self, link: int) -> set[int]:
        out = {link}
        changed = True
        while changed:
            more = {i for i, p in self.parent.items() if p in out} - out
            changed = bool(more)
            out |= more
        return out


def _bullet_load(c: Any, path: Path, fixed: bool) -> _BulletBody:
    try:
        body = c.loadURDF(str(path), useFixedBase=fixed, flags=c.URDF_USE_INERTIA_FROM_FILE)
    except Exception as exc:
        raise AssetFormatError(f"{path}: PyBullet cannot load it ({exc})") from exc
    names = {-1: c.getBodyInfo(body)[0].decode("utf-8", "replace")}
    parent: dict[int, int] = {}
    info: dict[int, tuple] = {}
    for i in range(c.getNumJoints(body)):
        ji = c.getJointInfo(body, i)
        info[i] = ji
        names[i] = ji[12].decode("utf-8", "replace")
        parent[i] = ji[16]
    fixed_pairs = [(names[parent[i]], names[i]) for i, ji in info.items() if ji[2] == c.JOINT_FIXED]
    group = _rigid_groups(list(names.values()), fixed_pairs)
    margin = {}
    for link in names:
        shapes = c.getCollisionShapeData(body, link)
        padded = [s[2] in (c.GEOM_MESH, c.GEOM_CYLINDER) for s in shapes]
        margin[link] = _BULLET_MARGIN if padded and all(padded) else 0.0
    return _BulletBody(body, names, parent, info, {i: group[n] for i, n in names.items()}, margin)


def _bullet_passive(c: Any, b: _BulletBody) -> None:
    """Disable the default joint motors; emulate joint friction with a zero-velocity motor of force = friction."""
    for j in b.movable(c):
        c.setJointMotorControl2(b.id, j, c.VELOCITY_CONTROL, targetVelocity=0.0, force=max(0.0, b.info[j][7]))


def _bullet_hold(c: Any, b: _BulletBody, config: ValidationConfig) -> None:
    """Hold every movable joint where it is with a position motor at the file's effort (a powered robot)."""
    for j in b.movable(c):
        effort = b.info[j][10] if b.info[j][10] > 0 else config.default_effort
        c.setJointMotorControl2(b.id, j, c.POSITION_CONTROL, targetPosition=c.getJointState(b.id, j)[0],
                                force=effort)


def _bullet_adjacent(b: _BulletBody) -> set[frozenset[str]]:
    """Rigid groups a joint links as parent and child: pairs PyBullet never collides (MuJoCo: see _mj_adjacent)."""
    return {frozenset((b.group[p], b.group[i])) for i, p in b.parent.items() if b.group[p] != b.group[i]}


def _bullet_depth(c: Any, b: _BulletBody, la: int, lb: int, reach: float) -> float:
    """Penetration depth (m, > 0 when overlapping) between two links, corrected for collision margins."""
    pad = b.margin[la] + b.margin[lb]
    points = c.getClosestPoints(b.id, b.id, reach + pad, linkIndexA=la, linkIndexB=lb)
    if not points:
        return -math.inf
    return -(min(p[8] for p in points) + pad)


def _bullet_coms(c: Any, b: _BulletBody) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Centre-of-mass positions, linear and angular velocities of every link (base first)."""
    pos, lin, ang = [], [], []
    base = c.getBasePositionAndOrientation(b.id)[0]
    v, w = c.getBaseVelocity(b.id)
    pos.append(base)
    lin.append(v)
    ang.append(w)
    if len(b.names) > 1:
        for state in c.getLinkStates(b.id, list(range(len(b.names) - 1)), computeLinkVelocity=1):
            pos.append(state[0])
            lin.append(state[6])
            ang.append(state[7])
    return np.array(pos, np.float64), np.array(lin, np.float64), np.array(ang, np.float64)


def _bullet_ground_gap(c: Any, b: _BulletBody, plane: int) -> float:
    """Signed distance (m) from the asset's collision shapes to the ground plane."""
    gaps = []
    for link in b.links:
        points = c.getClosestPoints(b.id, plane, 10.0, linkIndexA=link)
        if points:
            gaps.append(min(p[8] for p in points) + b.margin[link])
    return min(gaps) if gaps else math.inf


def _bullet_load_check(path: Path) -> _Result:
    with _bullet() as c:
        b = _bullet_load(c, path, fixed=False)
        mass = sum(c.getDynamicsInfo(b.id, link)[0] for link in b.links)
        numbers = {"links": len(b.names), "movable": len(b.movable(c)), "mass": mass}
        lost = [b.names[i] for i in b.links if i >= 0 and not np.all(np.isfinite(c.getLinkState(b.id, i)[0]))]
        where = f"; it places links {lost[:4]} at NaN" if lost else ""
        return _ok(f"loads in PyBullet: {len(b.names)} links, {numbers['movable']} movable joints, "
                   f"{mass:.4g} kg{where}", numbers, value=True)


class _SpeedWindow:
    """Mean linear and angular speed of each link over the last steps of a rest run."""

    def __init__(self, steps: int, dt: float, config: ValidationConfig) -> None:
        self.first = steps - max(1, min(steps, round(config.rest_window / dt)))
        self.speed: FloatArray | None = None
        self.spin: FloatArray | None = None
        self.count = 0

    def add(self, step: int, velocities: Callable[[], tuple[FloatArray, FloatArray]]) -> None:
        """Add step ``step``'s velocities (``velocities()``: linear and angular, per link) when it is in the window."""
        if step < self.first:
            return
        v, w = velocities()
        speed, spin = np.linalg.norm(v, axis=1), np.linalg.norm(w, axis=1)
        self.speed = speed if self.speed is None else self.speed + speed
        self.spin = spin if self.spin is None else self.spin + spin
        self.count += 1

    def means(self) -> tuple[FloatArray, FloatArray]:
        """Per-link mean speed (m/s) and spin (rad/s) over the window."""
        assert self.speed is not None and self.spin is not None, "the window saw no step"
        return self.speed / self.count, self.spin / self.count


def _rest_verdict(engine: str, names: list[str], moved: FloatArray, speed: FloatArray, spin: FloatArray,
                  drift: list[tuple[str, float, bool]], sank: float, config: ValidationConfig,
                  free_spin: list[bool] | None = None) -> _Result:
    """Judge a rest run: link displacement, speeds, joint drift and how far the asset sank into the ground.

    ``speed`` and ``spin``: each link's mean linear (m/s) and angular (rad/s) speed over the last
    ``rest_window``. Links flagged in ``free_spin`` (children of continuous joints: wheels, knobs) may keep
    turning; their centre of mass must still be at rest.
    """
    dist = np.linalg.norm(moved, axis=1)
    speed = np.asarray(speed, np.float64)
    spin = np.asarray(spin, np.float64)
    if free_spin is not None:
        spin = np.where(np.asarray(free_spin, bool), 0.0, spin)
    problems = []
    diverged = ~(np.isfinite(dist) & np.isfinite(speed) & np.isfinite(spin))
    if diverged.any():  # no distance to judge: say where the numbers stopped being numbers
        lost = [names[i] for i in np.flatnonzero(diverged)]
        problems.append(f"the simulation diverged: links {lost[:4]}{' …' if len(lost) > 4 else ''} ended at "
                        "non-finite positions or speeds")
    dist, speed, spin = (np.where(diverged, 0.0, x) for x in (dist, speed, spin))
    i_d, i_v, i_w = int(np.argmax(dist)), int(np.argmax(speed)), int(np.argmax(spin))
    if dist[i_d] > config.max_rest_displacement:
        problems.append(f"link {names[i_d]!r} moved {1000 * dist[i_d]:.3g} mm "
                        f"(> {1000 * config.max_rest_displacement:.3g} mm)")
    if speed[i_v] > config.max_rest_speed:
        problems.append(f"link {names[i_v]!r} still moves at {1000 * speed[i_v]:.3g} mm/s "
                        f"(> {1000 * config.max_rest_speed:.3g} mm/s, mean over the last {config.rest_window:g} s)")
    if spin[i_w] > config.max_rest_spin:
        problems.append(f"link {names[i_w]!r} still turns at {spin[i_w]:.3g} rad/s (> {config.max_rest_spin:.3g})")
    worst_drift = {"rad": 0.0, "m": 0.0}
    for name, value, angular in drift:
        unit, limit = ("rad", config.max_joint_drift_rad) if angular else ("m", config.max_joint_drift_m)
        if not math.isfinite(value):
            problems.append(f"joint {name!r} ended at a non-finite value")
            continue
        worst_drift[unit] = max(worst_drift[unit], abs(value))
        if abs(value) > limit:
            problems.append(f"joint {name!r} drifted {value:.3g} {unit} by itself (> {limit:g})")
    if sank > config.fall_tolerance:
        problems.append(f"sank {1000 * sank:.3g} mm through the ground (> {1000 * config.fall_tolerance:.3g} mm)")
    numbers = {"seconds": config.rest_seconds, "max_displacement_mm": 1000 * float(dist.max()),
               "max_speed_mm_s": 1000 * float(speed.max()), "max_spin_rad_s": float(spin.max()),
               "max_joint_drift_rad": worst_drift["rad"], "max_joint_drift_m": worst_drift["m"],
               "max_sink_mm": 1000 * max(0.0, sank)}
    if diverged.any():
        numbers["diverged_links"] = int(diverged.sum())
    ok = (f"settles in {engine} after {config.rest_seconds:g} s: worst link moved "
          f"{numbers['max_displacement_mm']:.3g} mm (<= {1000 * config.max_rest_displacement:.3g}), speed "
          f"{numbers['max_speed_mm_s']:.3g} mm/s (<= {1000 * config.max_rest_speed:.3g}), spin "
          f"{numbers['max_spin_rad_s']:.2g} rad/s, joint drift {worst_drift['rad']:.2g} rad / "
          f"{1000 * worst_drift['m']:.2g} mm, sank {numbers['max_sink_mm']:.2g} mm")
    return _verdict(problems, ok, numbers)


def _bullet_rest_check(path: Path, config: ValidationConfig) -> _Result:
    with _bullet() as c:
        dt = config.pybullet_timestep
        c.setGravity(0, 0, -config.gravity)
        c.setTimeStep(dt)
        plane = c.createMultiBody(baseMass=0, baseCollisionShapeIndex=c.createCollisionShape(c.GEOM_PLANE))
        fixed = config.mount in FIXED_MOUNTS
        b = _bullet_load(c, path, fixed=fixed)
        static = fixed or c.getDynamicsInfo(b.id, -1)[0] <= 0  # a massless base is static in PyBullet
        gap = _bullet_ground_gap(c, b, plane)
        if not math.isfinite(gap):
            raise AssetFormatError(f"{path}: no link has a collision shape, so nothing can rest on the ground")
        pos, orn = c.getBasePositionAndOrientation(b.id)
        c.resetBasePositionAndOrientation(b.id, [pos[0], pos[1], pos[2] + config.drop_height - gap], orn)
        if config.robot:
            _bullet_hold(c, b, config)
        else:
            _bullet_passive(c, b)
        start = _bullet_coms(c, b)[0]
        expected = start - ([0.0, 0.0, 0.0] if static else [0.0, 0.0, config.drop_height])
        movable = b.movable(c)
        q0 = [c.getJointState(b.id, j)[0] for j in movable]
        steps = max(1, round(config.rest_seconds / dt))
        window = _SpeedWindow(steps, dt, config)
        lowest = math.inf
        for k in range(steps):
            c.stepSimulation()
            window.add(k, lambda: _bullet_coms(c, b)[1:])
            if k % 10 == 0 or k == steps - 1:
                lowest = min(lowest, _bullet_ground_gap(c, b, plane))
        end = _bullet_coms(c, b)[0]
        speed, spin = window.means()
        drift = [(b.info[j][1].decode(), c.getJointState(b.id, j)[0] - q, b.info[j][2] == c.JOINT_REVOLUTE)
                 for j, q in zip(movable, q0, strict=True)
                 if b.info[j][8] <= b.info[j][9]]  # continuous joints (lower > upper) may turn freely
        free_spin = [link >= 0 and b.info[link][2] == c.JOINT_REVOLUTE and b.info[link][8] > b.info[link][9]
                     for link in b.links]
        result = _rest_verdict("PyBullet", [b.names[i] for i in b.links], end - expected, speed, spin, drift,
                               -lowest, config, free_spin)
        if fixed:
            result.message += f" ({config.mount}-mounted: its root is fixed to the world)"
        elif static:
            result.message += " (massless base: static in PyBullet)"
        if config.robot and movable:
            result.message += " (robot: joints held at rest by position motors at the file's effort)"
        return result


def _bullet_interpenetration_check(path: Path, config: ValidationConfig) -> _Result:
    with _bullet() as c:
        b = _bullet_load(c, path, fixed=True)
        adjacent = _bullet_adjacent(b)
        worst, pair, checked, skipped, family, kin = -math.inf, None, 0, 0, 0, False
        links = b.links
        for i, la in enumerate(links):
            for lb in links[i + 1:]:
                if b.group[la] == b.group[lb]:
                    skipped += 1
                    continue
                related = frozenset((b.group[la], b.group[lb])) in adjacent
                if related and config.robot:
                    family += 1
                    continue
                checked += 1
                depth = _bullet_depth(c, b, la, lb, _CLEARANCE_REACH)
                if depth > worst:
                    worst, pair, kin = depth, (b.names[la], b.names[lb]), related
        return _penetration_verdict(worst, pair, checked, skipped, config, family, kin)


def _penetration_verdict(worst: float, pair: tuple[str, str] | None, checked: int, skipped: int,
                         config: ValidationConfig, family: int = 0, kin: bool = False) -> _Result:
    """Judge the deepest overlap at rest; when nothing overlaps, report the smallest gap (up to 1 cm).

    ``family``: parent–child pairs left out (robots: the engines never collide a link with its parent). An
    object's parent and child are compared (a door sunk into its frame is a broken object even where the
    engines let it pass); ``kin`` says the worst pair is such a pair.
    """
    depth = max(0.0, worst)
    gap = -worst if pair and worst <= 0 else None
    numbers = {"pairs": checked, "rigid_pairs_skipped": skipped, "worst_depth_mm": 1000 * depth,
               "worst_pair": list(pair) if pair else None, "closest_gap_mm": None if gap is None else 1000 * gap}
    left_out = ""
    if config.robot:
        numbers["parent_child_skipped"] = family
        left_out = (f"; {family} parent–child pairs not compared (robot: the engines do not collide a link with "
                    "its parent)")
    tol = f"{1000 * config.penetration_tolerance:.3g} mm"
    if worst > config.penetration_tolerance and pair:
        engines = (" (the file's zero pose; MuJoCo collides links that are not parent and child, as PyBullet does "
                   "with URDF_USE_SELF_COLLISION)") if config.robot else ""
        if kin and not config.robot:
            engines = (" (a part and the part it hangs on: the engines never collide them, but an object's part must "
                       "not sit inside its parent; a robot's links may: validate robots with --robot)")
        return _Result("fail", f"links {pair[0]!r} and {pair[1]!r} overlap by {1000 * worst:.3g} mm at rest "
                       f"(> {tol}){engines}{left_out}", numbers)
    if pair is None:
        detail = "no two links within 1 cm"
    elif gap is not None:
        detail = f"closest {pair[0]!r}/{pair[1]!r} {1000 * gap:.3g} mm apart"
    else:
        detail = f"worst {pair[0]!r}/{pair[1]!r} overlap {1000 * depth:.3g} mm (<= {tol})"
    return _ok(f"{checked} link pairs clear at rest: {detail}; {skipped} rigidly joined pairs not compared"
               f"{left_out}", numbers)


def _sweep_values(jtype: str, lower: float | None, upper: float | None, steps: int) -> FloatArray | None:
    """Joint values of a sweep: across [lower, upper], or a full turn for a continuous joint."""
    if jtype == "continuous" or (jtype == "revolute" and (lower is None or upper is None)):
        return np.linspace(0.0, 2 * math.pi, max(3, steps))
    if lower is None or upper is None:
        return None
    return np.linspace(lower, upper, max(2, steps))


@dataclass
class _SweepTally:
    """Worst clearance and motion over the sweep of all joints."""

    problems: list[str] = field(default_factory=list)
    self_collisions: list[str] = field(default_factory=list)
    """Overlaps of a robot's links within its joint limits (a warning: its planner avoids them)."""
    worst: float = -math.inf
    worst_at: str = ""
    joints: int = 0
    poses: int = 0

    def joint(self, name: str, depth: float, pair: tuple[str, str] | None, q: float, unit: str, moved: float,
              config: ValidationConfig) -> None:
        self.joints += 1
        if depth > self.worst and pair:
            self.worst, self.worst_at = depth, f"{name} at {q:.3g} {unit}: {pair[0]!r}/{pair[1]!r}"
        if moved < 1e-6:
            self.problems.append(f"joint {name!r}: the child does not move across its range")
        if depth > config.penetration_tolerance and pair:
            found = self.self_collisions if config.robot else self.problems
            found.append(f"joint {name!r} at {q:.3g} {unit}: {pair[0]!r} goes {1000 * depth:.3g} mm into "
                         f"{pair[1]!r} (> {1000 * config.penetration_tolerance:.3g} mm)")

    def result(self, config: ValidationConfig) -> _Result:
        depth = max(0.0, self.worst)
        numbers = {"joints": self.joints, "poses": self.poses, "worst_depth_mm": 1000 * depth,
                   "worst_at": self.worst_at if self.worst > 0 else ""}
        where = f" ({self.worst_at})" if self.worst > 0 else ""
        if not self.joints and not self.problems:
            return _ok("no movable joints to sweep", numbers)
        swept = f"{self.joints} joints swept over {self.poses} poses: children move"
        if config.robot:
            numbers["self_collisions"] = len(self.self_collisions)
            swept += " (robot: a link and its parent are not compared, the engines do not collide them)"
        if self.self_collisions and not self.problems:
            more = f" (and {len(self.self_collisions) - 6} more)" if len(self.self_collisions) > 6 else ""
            return _Result("warn", f"{swept}; links collide within the joint limits (a robot's limits do not promise "
                           f"collision-free motion: its planner must avoid these poses): "
                           f"{'; '.join(self.self_collisions[:6])}{more}", numbers)
        return _verdict(self.problems, f"{swept} and stay clear, worst overlap {1000 * depth:.3g} mm{where} "
                        f"(<= {1000 * config.penetration_tolerance:.3g} mm)", numbers)


def _bullet_sweep_check(path: Path, model: _Urdf, config: ValidationConfig) -> _Result:
    joints = {j.name: j for j in model.joints}
    tally = _SweepTally()
    with _bullet() as c:
        b = _bullet_load(c, path, fixed=True)
        adjacent = _bullet_adjacent(b) if config.robot else set()
        movable = b.movable(c)
        for j in movable:
            name = b.info[j][1].decode()
            uj = joints.get(name)
            values = None if uj is None else _sweep_values(uj.type, uj.lower, uj.upper, config.sweep_steps)
            if values is None:
                tally.problems.append(f"joint {name!r}: no range to sweep")
                continue
            moving = b.subtree(j)
            static = [link for link in b.links if link not in moving]
            worst, pair, at = -math.inf, None, 0.0
            ref = None
            moved = 0.0
            for q in values:
                for other in movable:
                    c.resetJointState(b.id, other, 0.0)
                c.resetJointState(b.id, j, float(q))
                state = c.getLinkState(b.id, j, computeForwardKinematics=1)
                pose = (np.array(state[4]), np.array(c.getMatrixFromQuaternion(state[5])).reshape(3, 3))
                if ref is None:
                    ref = pose
                moved = max(moved, float(np.linalg.norm(pose[0] - ref[0])), _rotation_angle(ref[1], pose[1]))
                tally.poses += 1
                for la in moving:
                    for lb in static:
                        if frozenset((b.group[la], b.group[lb])) in adjacent:
                            continue
                        depth = _bullet_depth(c, b, la, lb, config.penetration_tolerance)
                        if depth > worst:
                            worst, pair, at = depth, (b.names[la], b.names[lb]), float(q)
            unit = "m" if b.info[j][2] == c.JOINT_PRISMATIC else "rad"
            tally.joint(name, worst, pair, at, unit, moved, config)
        return tally.result(config)


def _drive_targets(jtype: str, lower: float | None, upper: float | None) -> list[float] | None:
    if jtype == "continuous" or (jtype in ("revolute", "hinge") and (lower is None or upper is None)):
        return [2 * math.pi]
    if lower is None or upper is None:
        return None
    return [upper, lower]


def _settled(error: float, speed: float, tolerance: float) -> bool:
    """A driven joint has arrived: within tolerance and nearly still (under 2 tolerances per second)."""
    return error <= tolerance and abs(speed) <= 2 * tolerance


@dataclass
class _DriveTally:
    problems: list[str] = field(default_factory=list)
    worst_rad: float = 0.0
    worst_m: float = 0.0
    slowest: float = 0.0
    joints: int = 0
    notes: list[str] = field(default_factory=list)

    def reached(self, name: str, target: float, error: float, seconds: float, angular: bool, effort: float,
                config: ValidationConfig) -> None:
        tol = config.limit_tolerance_rad if angular else config.limit_tolerance_m
        if angular:
            self.worst_rad = max(self.worst_rad, error)
        else:
            self.worst_m = max(self.worst_m, error)
        self.slowest = max(self.slowest, seconds)
        if not error <= tol:
            unit = "rad" if angular else "m"
            self.problems.append(f"joint {name!r} driven to {target:.4g} {unit} with effort {effort:.3g} stopped "
                                 f"{error:.3g} {unit} short (> {tol:g}) after {seconds:.2g} s")

    def result(self, engine: str, config: ValidationConfig) -> _Result:
        numbers = {"joints": self.joints, "worst_error_rad": self.worst_rad, "worst_error_m": self.worst_m,
                   "slowest_s": self.slowest}
        if not self.joints and not self.problems:
            return _ok("no movable joints to drive", numbers)
        result = _verdict(self.problems, f"{self.joints} joints driven to their limits in {engine}: worst error "
                          f"{self.worst_rad:.2g} rad / {1000 * self.worst_m:.2g} mm, slowest {self.slowest:.2g} s",
                          numbers)
        result.message += "".join(f"; {n}" for n in self.notes)
        return result


def _bullet_drive_check(path: Path, model: _Urdf, config: ValidationConfig) -> _Result:
    joints = {j.name: j for j in model.joints}
    tally = _DriveTally()
    dt = config.pybullet_timestep
    with _bullet() as c:
        c.setGravity(0, 0, -config.gravity)
        c.setTimeStep(dt)
        b = _bullet_load(c, path, fixed=True)
        movable = b.movable(c)
        for j in movable:
            name = b.info[j][1].decode()
            uj = joints.get(name)
            targets = None if uj is None else _drive_targets(uj.type, uj.lower, uj.upper)
            lo, hi = b.info[j][8], b.info[j][9]
            if uj is not None and uj.type == "continuous" and lo <= hi:  # PyBullet keeps a continuous joint's limits
                targets = [hi, lo]
                tally.notes.append(f"{name!r} is continuous, but PyBullet enforces its <limit> [{lo:.4g}, {hi:.4g}] "
                                   "(MuJoCo and the URDF spec ignore it): driven to those")
            if not targets:
                tally.problems.append(f"joint {name!r}: no limits to drive to")
                continue
            tally.joints += 1
            for other in movable:
                c.resetJointState(b.id, other, 0.0, 0.0)
            _bullet_passive(c, b)
            effort = b.info[j][10] if b.info[j][10] > 0 else config.default_effort
            angular = b.info[j][2] == c.JOINT_REVOLUTE
            slow = config.drive_speed_rad if angular else config.drive_speed_m
            speed = min(b.info[j][11], slow) if b.info[j][11] > 0 else slow
            tol = config.limit_tolerance_rad if angular else config.limit_tolerance_m
            for target in targets:
                c.setJointMotorControl2(b.id, j, c.POSITION_CONTROL, targetPosition=target, force=effort,
                                        maxVelocity=speed)
                travel = abs(target - c.getJointState(b.id, j)[0]) / speed  # the velocity limit's share
                steps = max(1, round((config.drive_seconds + travel) / dt))
                error, taken = math.inf, 0
                for taken in range(1, steps + 1):
                    c.stepSimulation()
                    if taken % 8 == 0 or taken == steps:
                        q, qd = c.getJointState(b.id, j)[:2]
                        error = abs(q - target)
                        if _settled(error, qd, tol):
                            break
                tally.reached(name, target, error, taken * dt, angular, effort, config)
            _bullet_passive(c, b)
        return tally.result("PyBullet", config)


# --------------------------------------------------------------------------------------------- MuJoCo


def _import_mujoco() -> Any:
    try:
        import mujoco
    except ImportError as exc:
        raise DependencyError("mujoco is not installed: pip install mujoco==4.0.0") from exc
    return mujoco


def _mj_spec(path: Path) -> Any:
    """An MjSpec of a URDF or MJCF file; errors raise naming the file."""
    mujoco = _import_mujoco()
    try:
        return mujoco.MjSpec.from_file(str(path))
    except Exception as exc:
        raise AssetFormatError(f"{path}: MuJoCo cannot parse it ({exc})") from exc


def _mj_compile(spec: Any, path: Path) -> Any:
    try:
        return spec.compile()
    except Exception as exc:
        raise AssetFormatError(f"{path}: MuJoCo cannot compile it ({exc})") from exc


def _resolved_urdf_copy(model: _Urdf, folder: Path) -> Path:
    """A copy of the URDF whose mesh and texture paths are absolute (MuJoCo knows no package://)."""
    root = _xml_root(model.path)
    for el in root.iter("mesh", "texture"):
        ref = el.get("filename")
        if ref:
            resolved = _resolve(ref, model.path.parent)
            if resolved is not None:
                el.set("filename", str(resolved.resolve()))
    out = folder / model.path.name
    out.write_bytes(_xml_bytes(root))
    return out


def _xml_bytes(root: Any) -> bytes:
    from lxml import etree

    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


def _mj_load_urdf_check(path: Path, model: _Urdf | None) -> _Result:
    mujoco = _import_mujoco()
    try:
        m = mujoco.MjModel.from_xml_path(str(path))
        as_is = True
        note = ""
    except Exception as exc:
        if model is None:
            raise AssetFormatError(f"{path}: MuJoCo cannot load it ({exc})") from exc
        with tempfile.TemporaryDirectory(prefix="seed3d-validate-") as tmp:
            try:
                m = mujoco.MjModel.from_xml_path(str(_resolved_urdf_copy(model, Path(tmp))))
            except Exception:
                raise AssetFormatError(f"{path}: MuJoCo cannot load it ({exc})") from exc
        as_is = False
        note = f" after making mesh paths absolute (as written it fails: {exc})"
    numbers = {"bodies": m.nbody - 1, "joints": m.njnt, "geoms": m.ngeom, "as_is": as_is}
    return _ok(f"loads in MuJoCo{note}: {m.nbody - 1} bodies, {m.njnt} joints, {m.ngeom} geoms", numbers, value=as_is)


def _mj_collision_geoms(m: Any) -> list[int]:
    """Geoms that collide (contype or conaffinity set), excluding the world body's (floors, walls)."""
    return [g for g in range(m.ngeom)
            if (m.geom_contype[g] or m.geom_conaffinity[g]) and m.geom_bodyid[g] != 0]


def _mj_top_bodies(m: Any) -> list[int]:
    return [b for b in range(1, m.nbody) if m.body_parentid[b] == 0]


def _mj_jtype(m: Any, j: int) -> str:
    """'free' | 'ball' | 'slide' | 'hinge' for joint ``j`` of a compiled model."""
    mujoco = _import_mujoco()
    kinds = {int(mujoco.mjtJoint.mjJNT_FREE): "free", int(mujoco.mjtJoint.mjJNT_BALL): "ball",
             int(mujoco.mjtJoint.mjJNT_SLIDE): "slide", int(mujoco.mjtJoint.mjJNT_HINGE): "hinge"}
    return kinds[int(m.jnt_type[j])]


def _mj_free_joint(m: Any, body: int) -> int | None:
    for j in range(m.body_jntadr[body], m.body_jntadr[body] + m.body_jntnum[body]):
        if _mj_jtype(m, j) == "free":
            return j
    return None


def _mj_floor_gap(m: Any, d: Any, floor: int, geoms: list[int]) -> float:
    mujoco = _import_mujoco()
    return min((mujoco.mj_geomDistance(m, d, floor, g, 10.0, None) for g in geoms), default=math.inf)


def _mj_servo(m: Any, j: int, tol: float, default_effort: float) -> tuple[float, float, float]:
    """PD gains (kp, kv) and force limit of a stable servo on joint ``j`` (2 Hz, critically damped).

    Stiff enough to beat joint damping within 1/omega and to hold within ``tol``/2 against friction; soft
    enough for the explicit force to stay stable at the model's timestep. The limit is the joint's
    ``actuatorfrcrange`` (MuJoCo's URDF import sets it from the effort), else ``default_effort``.
    """
    omega = 2 * math.pi * 2.0
    dof = m.jnt_dofadr[j]
    inertia = max(float(m.dof_M0[dof]), 1e-9)
    friction, damping = float(m.dof_frictionloss[dof]), float(m.dof_damping[dof])
    kp = min(max(inertia * omega**2, damping * omega, 2 * friction / tol), 0.2 * inertia / m.opt.timestep**2)
    kv = min(2 * math.sqrt(kp * inertia), inertia / m.opt.timestep)
    effort = float(m.jnt_actfrcrange[j, 1]) if m.jnt_actfrclimited[j] else default_effort
    return kp, kv, effort


def _mj_hold(m: Any, d: Any, servos: list[tuple[int, float, float, float, float]]) -> None:
    """One step with each (joint, target, kp, kv, effort) held by a gravity-compensated PD (a powered robot)."""
    mujoco = _import_mujoco()
    mujoco.mj_step1(m, d)
    d.qfrc_applied[:] = 0.0
    for j, target, kp, kv, effort in servos:
        dof = m.jnt_dofadr[j]
        force = kp * (target - float(d.qpos[m.jnt_qposadr[j]])) - kv * d.qvel[dof] + d.qfrc_bias[dof]
        d.qfrc_applied[dof] = float(np.clip(force, -effort, effort))
    mujoco.mj_step2(m, d)


def _mj_self_contacts(m: Any, d: Any, floor: int, tolerance: float) -> dict[tuple[str, str], float]:
    """Pairs of the model's own bodies MuJoCo collides deeper than ``tolerance`` (m) now, with the depth."""
    out: dict[tuple[str, str], float] = {}
    for i in range(d.ncon):
        c = d.contact[i]
        if floor in (c.geom1, c.geom2) or c.exclude or c.dist >= -tolerance:
            continue
        first, second = sorted(m.body(int(m.geom_bodyid[g])).name for g in (c.geom1, c.geom2))
        out[first, second] = max(out.get((first, second), 0.0), -float(c.dist))
    return out


def _mj_rest(spec: Any, path: Path, config: ValidationConfig, free_root: str | None) -> _Result:
    """Drop the model on a floor in MuJoCo (a free joint is added to body ``free_root`` when given).

    A robot (``config.robot``) has its hinge and slide joints held where they start by gravity-compensated
    servos at each joint's force limit, as its controller would hold it.
    """
    mujoco = _import_mujoco()
    if config.mount in FIXED_MOUNTS:  # screwed to its wall, hung from its ceiling: the root is fixed to the world
        for joint in list(spec.joints):
            if joint.type == mujoco.mjtJoint.mjJNT_FREE:
                spec.delete(joint)
    elif free_root is not None:
        spec.body(free_root).add_freejoint()
    floor_el = spec.worldbody.add_geom(name="seed3d_validate_floor", type=mujoco.mjtGeom.mjGEOM_PLANE,
                                       size=[0.0, 0.0, 1.0], contype=0x7FFFFFFF, conaffinity=0x7FFFFFFF)
    floor_name = floor_el.name
    m = _mj_compile(spec, path)
    if m.nv == 0:  # e.g. a URDF whose massless root MuJoCo fixes to the world, with no joints below it
        return _ok("static in MuJoCo: the model has no degrees of freedom (it is fixed to the world), nothing "
                   "can move", {"seconds": 0.0, "dofs": 0})
    d = mujoco.MjData(m)
    floor = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, floor_name)
    geoms = _mj_collision_geoms(m)
    if not geoms:
        raise AssetFormatError(f"{path}: no collision geoms to rest on the ground")
    mujoco.mj_forward(m, d)
    gap = _mj_floor_gap(m, d, floor, geoms)
    free = {b: _mj_free_joint(m, b) for b in _mj_top_bodies(m)}
    free = {b: j for b, j in free.items() if j is not None}
    if free:
        for j in free.values():
            d.qpos[m.jnt_qposadr[j] + 2] += config.drop_height - gap
    else:  # fixed to the world: move the floor instead (static geoms are placed at compile time)
        floor_el.pos = [0.0, 0.0, gap - config.drop_height]
        m = _mj_compile(spec, path)
        d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    overlaps = _mj_self_contacts(m, d, floor, config.penetration_tolerance)
    bodies = list(range(1, m.nbody))
    root_of = {}
    for b in bodies:  # walk up to the top-level body
        r = b
        while m.body_parentid[r] != 0:
            r = int(m.body_parentid[r])
        root_of[b] = r
    start = d.xipos[bodies].copy()
    expected = start - np.array([[0.0, 0.0, config.drop_height if root_of[b] in free else 0.0] for b in bodies])
    hinge_slide = _mj_movable(m)
    q0 = [float(d.qpos[m.jnt_qposadr[j]]) for j in hinge_slide]
    servos = []
    if config.robot:
        for j, q in zip(hinge_slide, q0, strict=True):
            angular = _mj_jtype(m, j) == "hinge"
            tol = config.limit_tolerance_rad if angular else config.limit_tolerance_m
            kp, kv, effort = _mj_servo(m, j, tol, config.default_effort)
            servos.append((j, q, kp, kv, effort))
    steps = max(1, min(200_000, round(config.rest_seconds / m.opt.timestep)))
    every = max(1, round(0.04 / m.opt.timestep))
    lowest = math.inf
    window = _SpeedWindow(steps, float(m.opt.timestep), config)

    def velocities() -> tuple[FloatArray, FloatArray]:
        lin, ang = np.zeros((len(bodies), 3)), np.zeros((len(bodies), 3))
        vel = np.zeros(6)
        for i, b in enumerate(bodies):
            mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, b, vel, 0)
            ang[i], lin[i] = vel[:3], vel[3:]
        return lin, ang

    for k in range(steps):
        if servos:
            _mj_hold(m, d, servos)
        else:
            mujoco.mj_step(m, d)
        window.add(k, velocities)
        if k % every == 0 or k == steps - 1:
            lowest = min(lowest, _mj_floor_gap(m, d, floor, geoms))
    speed, spin = window.means()
    drift = [(m.joint(j).name or f"joint {j}", float(d.qpos[m.jnt_qposadr[j]]) - q,
              _mj_jtype(m, j) == "hinge") for j, q in zip(hinge_slide, q0, strict=True)
             if m.jnt_limited[j]]  # unlimited (continuous) joints, wheels and knobs, may turn freely
    free_spin = [any(_mj_jtype(m, j) == "hinge" and not m.jnt_limited[j]
                     for j in range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b])) for b in bodies]
    result = _rest_verdict("MuJoCo", [m.body(b).name or f"body {b}" for b in bodies], d.xipos[bodies] - expected,
                           speed, spin, drift, -lowest, config, free_spin)
    if config.mount in FIXED_MOUNTS:
        result.message += f" ({config.mount}-mounted: its root is fixed to the world)"
    elif not free:
        result.message += " (no free joint: the model is fixed to the world)"
    if servos:
        result.message += " (robot: joints held at rest by gravity-compensated servos at their force limits)"
    result.numbers["timestep"] = float(m.opt.timestep)
    result.numbers["overlaps_at_release"] = len(overlaps)
    if overlaps and result.status == "fail":
        (a, b), depth = max(overlaps.items(), key=lambda kv: kv[1])
        result.message += (f" (at release MuJoCo found {len(overlaps)} pairs of the model's own bodies overlapping, "
                           f"worst {a!r}/{b!r} by {1000 * depth:.3g} mm: its contacts push them apart)")
    return result


def _mj_rest_urdf_check(path: Path, model: _Urdf, as_is: bool, config: ValidationConfig) -> _Result:
    with tempfile.TemporaryDirectory(prefix="seed3d-validate-") as tmp:
        spec = _mj_spec(path if as_is else _resolved_urdf_copy(model, Path(tmp)))
        root = model.root
        inertial = None if root is None else model.links[root].inertial
        # A massless root (or ROS's "world" link) is static, as in PyBullet; otherwise the object is dropped free.
        massive = root not in (None, "world") and inertial is not None and inertial.mass > 0
        if root is not None and spec.body(root) is None:
            raise AssetFormatError(f"{path}: MuJoCo's model has no body {root!r} for the root link")
        return _mj_rest(spec, path, config, root if massive else None)


# ---- MJCF


@dataclass
class _Mjcf:
    """An MJCF file parsed by MuJoCo (not compiled) plus the compiled model when it compiles."""

    path: Path
    spec: Any
    model: Any | None
    compile_error: str


def _mjcf_parse_check(path: Path) -> _Result:
    root, note = _xml_read(path)
    if root.tag != "mujoco":
        raise AssetFormatError(f"{path}: the root element is <{root.tag}>, not <mujoco>: not an MJCF file")
    spec = _mj_spec(path)
    bodies = [b for b in spec.bodies if b.name != "world"]
    joints = list(spec.joints)
    numbers = {"bodies": len(bodies), "joints": len(joints), "meshes": len(spec.meshes)}
    return _ok(f"model {spec.modelname!r}: {len(bodies)} bodies, {len(joints)} joints, {len(spec.meshes)} meshes"
               + (f"; {note}" if note else ""), numbers, value=_Mjcf(path, spec, None, ""))


def _mjcf_dirs(doc: _Mjcf) -> tuple[Path, Path]:
    spec = doc.spec
    base = doc.path.parent
    meshdir = Path(spec.meshdir) if spec.meshdir else Path()
    texdir = Path(spec.texturedir) if spec.texturedir else Path()
    return (meshdir if meshdir.is_absolute() else base / meshdir, texdir if texdir.is_absolute() else base / texdir)


def _mjcf_file_refs(doc: _Mjcf) -> list[tuple[str, Path | None, str]]:
    meshdir, texdir = _mjcf_dirs(doc)
    refs = []
    for kind, items, folder in (("mesh", doc.spec.meshes, meshdir), ("texture", doc.spec.textures, texdir),
                                ("hfield", doc.spec.hfields, meshdir), ("skin", doc.spec.skins, meshdir)):
        for item in items:
            files = [item.file] if getattr(item, "file", "") else []
            files += [f for f in getattr(item, "cubefiles", []) if f]
            for ref in files:
                p = Path(ref)
                refs.append((ref, p if p.is_absolute() else folder / p,
                             f"{doc.path.name} <{kind} name={item.name!r}>"))
    return refs


def _mjcf_files_check(doc: _Mjcf) -> _Result:
    return _files_result(_mjcf_file_refs(doc))


def _mjcf_meshes_check(doc: _Mjcf, config: ValidationConfig, expect: _Expect | None) -> _Result:
    mujoco = _import_mujoco()
    meshdir, _ = _mjcf_dirs(doc)
    visual_of: dict[str, str] = {}  # mesh name -> body name, for visual (non-colliding) geoms
    colliding: set[str] = set()
    for body in doc.spec.bodies:
        for g in body.geoms:
            if g.type != mujoco.mjtGeom.mjGEOM_MESH:
                continue
            if g.contype or g.conaffinity:
                colliding.add(g.meshname)
            else:
                visual_of[g.meshname] = body.name
    items, errors, unchecked = [], [], []
    cache: dict[str, tuple[FloatArray, IntArray]] = {}
    for mesh in doc.spec.meshes:
        where = f"{doc.path.name} <mesh name={mesh.name!r}>"
        scale = np.asarray(mesh.scale, np.float64)
        if mesh.file:
            path = Path(mesh.file) if Path(mesh.file).is_absolute() else meshdir / mesh.file
            if not path.is_file():
                continue  # reported by mjcf.files
            if path.suffix.lower() == ".msh":
                unchecked.append(f"{mesh.file}: MuJoCo's .msh format (the compiler checks it)")
                continue
            try:
                if str(path) not in cache:
                    cache[str(path)] = _load_mesh_file(path)
            except _MeshUnsupported as exc:
                unchecked.append(str(exc))
                continue
            except AssetFormatError as exc:
                errors.append(f"{where}: {exc}")
                continue
            v, f = cache[str(path)]
            where += f" ({mesh.file})"
        elif len(mesh.uservert):
            v = np.asarray(mesh.uservert, np.float64).reshape(-1, 3)
            f = np.asarray(mesh.userface, np.int64).reshape(-1, 3)
            if not len(f):
                continue  # a vertex cloud: MuJoCo takes its convex hull
        else:
            continue
        closed = expect is not None and visual_of.get(mesh.name, "") in expect.closed
        items.append(_MeshItem(where, v * scale, f, closed, mesh.name in colliding))
    return _meshes_result(items, config, errors, unchecked=unchecked)


def _mjcf_inertials_check(doc: _Mjcf) -> _Result:
    """Explicit ``<inertial>`` values (named in the message), then the compiled masses of moving bodies."""
    problems = []
    explicit = 0
    for body in doc.spec.bodies:
        if body.name == "world" or not body.explicitinertial:
            continue
        explicit += 1
        where = f"{doc.path.name} <body name={body.name!r}> <inertial>"
        full = np.asarray(body.fullinertia, np.float64)
        if np.all(np.isfinite(full)) and np.any(full != 0):
            xx, yy, zz, xy, xz, yz = full
            tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        else:
            tensor = np.diag(np.asarray(body.inertia, np.float64))
        problems += [f"{where}: {p}" for p in _check_inertial(float(body.mass), np.asarray(body.ipos), tensor)]
    compiled = 0
    total = 0.0
    m = doc.model
    if m is not None:
        for b in range(1, m.nbody):
            total += float(m.body_mass[b])
            moving = m.body_dofnum[b] > 0
            if not moving:
                continue
            compiled += 1
            moments = np.asarray(m.body_inertia[b], np.float64)
            if m.body_mass[b] <= 0 or np.any(moments <= 0):
                problems.append(f"{doc.path.name} body {m.body(b).name!r}: compiled mass {m.body_mass[b]:.4g}, "
                                f"principal inertia {moments.tolist()} (must be positive)")
            elif moments.sum() < 2 * moments.max() * (1 - 1e-6):
                problems.append(f"{doc.path.name} body {m.body(b).name!r}: principal inertia {moments.tolist()} "
                                "breaks the triangle inequality")
    ok = f"{explicit} explicit inertials valid; {compiled} moving bodies with positive mass and inertia"
    if m is not None:
        ok += f"; total mass {total:.4g} kg"
    return _verdict(problems, ok, {"explicit": explicit, "moving_bodies": compiled, "total_mass": total})


def _mjcf_joints_check(doc: _Mjcf) -> _Result:
    mujoco = _import_mujoco()
    problems = []
    movable = 0
    names = {mujoco.mjtJoint.mjJNT_HINGE: "hinge", mujoco.mjtJoint.mjJNT_SLIDE: "slide"}
    for j in doc.spec.joints:
        if j.type not in names:
            continue
        movable += 1
        where = f"{doc.path.name} <joint name={j.name!r}>"
        rng = np.asarray(j.range, np.float64)
        limited = j.limited == mujoco.mjtLimited.mjLIMITED_TRUE or (
            j.limited == mujoco.mjtLimited.mjLIMITED_AUTO and bool(np.any(rng != 0)))
        problems += _joint_value_problems(where, names[j.type], np.asarray(j.axis, np.float64), float(rng[0]),
                                          float(rng[1]), limited, float(np.asarray(j.damping).ravel()[0]),
                                          float(j.frictionloss))
    return _verdict(problems, f"{movable} hinge/slide joints: non-zero axes, lower <= upper",
                    {"joints": len(list(doc.spec.joints)), "movable": movable})


def _mjcf_load_check(doc: _Mjcf) -> _Result:
    mujoco = _import_mujoco()
    try:
        m = mujoco.MjModel.from_xml_path(str(doc.path))
    except Exception as exc:
        raise AssetFormatError(f"{doc.path}: MuJoCo cannot load it ({exc})") from exc
    doc.model = m
    free = sum(_mj_free_joint(m, b) is not None for b in _mj_top_bodies(m))
    numbers = {"bodies": m.nbody - 1, "joints": m.njnt, "geoms": m.ngeom, "free_bodies": free,
               "mass": float(m.body_mass.sum()), "timestep": float(m.opt.timestep)}
    return _ok(f"loads in MuJoCo: {m.nbody - 1} bodies, {m.njnt} joints, {m.ngeom} geoms, "
               f"{numbers['mass']:.4g} kg, {free} free-floating", numbers, value=m)


def _bullet_mjcf_check(path: Path) -> _Result:
    with _bullet() as c:
        try:
            bodies = c.loadMJCF(str(path))
        except Exception as exc:
            return _Result("skip", f"PyBullet's MJCF importer (a subset of MJCF) cannot read it: {exc}")
        if not bodies:
            return _Result("skip", "PyBullet's MJCF importer (a subset of MJCF) loaded no bodies from it")
        links = sum(c.getNumJoints(b) + 1 for b in bodies)
        return _ok(f"loads in PyBullet's MJCF importer: {len(bodies)} bodies, {links} links",
                   {"bodies": len(bodies), "links": links})


def _mj_geom_boxes(m: Any, d: Any, geoms: list[int]) -> tuple[FloatArray, FloatArray]:
    """World-axis bounding boxes (lo, hi) of geoms from their local AABBs."""
    rot = d.geom_xmat[geoms].reshape(-1, 3, 3)
    centre = d.geom_xpos[geoms] + np.einsum("nij,nj->ni", rot, m.geom_aabb[geoms, :3])
    half = np.einsum("nij,nj->ni", np.abs(rot), m.geom_aabb[geoms, 3:])
    return centre - half, centre + half


def _mj_pair_depth(m: Any, d: Any, a: list[int], b: list[int], reach: float) -> float:
    """Deepest overlap (m, > 0 when penetrating) between geoms ``a`` and ``b``, AABB-culled."""
    mujoco = _import_mujoco()
    if not a or not b:
        return -math.inf
    lo_a, hi_a = _mj_geom_boxes(m, d, a)
    lo_b, hi_b = _mj_geom_boxes(m, d, b)
    near = np.all((lo_a[:, None] <= hi_b[None] + reach) & (lo_b[None] <= hi_a[:, None] + reach), axis=2)
    worst = -math.inf
    for i, k in zip(*np.nonzero(near), strict=True):
        dist = mujoco.mj_geomDistance(m, d, a[i], b[k], reach, None)
        worst = max(worst, -dist)
    return worst


def _mj_body_geoms(m: Any) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for g in _mj_collision_geoms(m):
        out.setdefault(int(m.geom_bodyid[g]), []).append(g)
    return out


def _mj_adjacent(m: Any, a: int, b: int) -> bool:
    """Whether bodies ``a`` and ``b`` are (welded to) parent and child: a pair MuJoCo does not collide."""
    wa, wb = int(m.body_weldid[a]), int(m.body_weldid[b])
    parent_a, parent_b = int(m.body_weldid[m.body_parentid[wa]]), int(m.body_weldid[m.body_parentid[wb]])
    return wa != wb and 0 not in (wa, wb) and (parent_a == wb or parent_b == wa)


def _mj_interpenetration_check(doc: _Mjcf, config: ValidationConfig) -> _Result:
    mujoco = _import_mujoco()
    m = doc.model
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    geoms = _mj_body_geoms(m)
    bodies = sorted(geoms)
    worst, pair, checked, skipped, family, kin = -math.inf, None, 0, 0, 0, False
    for i, ba in enumerate(bodies):
        for bb in bodies[i + 1:]:
            if m.body_weldid[ba] == m.body_weldid[bb]:
                skipped += 1
                continue
            related = _mj_adjacent(m, ba, bb)
            if related and config.robot:
                family += 1
                continue
            checked += 1
            depth = _mj_pair_depth(m, d, geoms[ba], geoms[bb], _CLEARANCE_REACH)
            if depth > worst:
                worst, pair, kin = depth, (m.body(ba).name, m.body(bb).name), related
    return _penetration_verdict(worst, pair, checked, skipped, config, family, kin)


def _mj_subtree(m: Any, body: int) -> set[int]:
    out = {body}
    for b in range(body + 1, m.nbody):  # bodies are numbered depth-first
        if m.body_parentid[b] in out:
            out.add(b)
    return out


def _mj_movable(m: Any) -> list[int]:
    return [j for j in range(m.njnt) if _mj_jtype(m, j) in ("hinge", "slide")]


def _mj_joint_kind(m: Any, j: int) -> tuple[str, float | None, float | None]:
    hinge = _mj_jtype(m, j) == "hinge"
    if not m.jnt_limited[j]:
        return ("continuous" if hinge else "prismatic"), None, None
    return ("revolute" if hinge else "prismatic"), float(m.jnt_range[j, 0]), float(m.jnt_range[j, 1])


def _mj_sweep_check(doc: _Mjcf, config: ValidationConfig) -> _Result:
    mujoco = _import_mujoco()
    m = doc.model
    d = mujoco.MjData(m)
    geoms = _mj_body_geoms(m)
    tally = _SweepTally()
    for j in _mj_movable(m):
        name = m.joint(j).name or f"joint {j}"
        kind, lower, upper = _mj_joint_kind(m, j)
        values = _sweep_values(kind, lower, upper, config.sweep_steps)
        if values is None:
            tally.problems.append(f"joint {name!r}: unlimited slide joint, no range to sweep")
            continue
        child = int(m.jnt_bodyid[j])
        moving = _mj_subtree(m, child)
        mg = [g for b in moving for g in geoms.get(b, [])]
        sg = [g for b, gs in geoms.items() if b not in moving for g in gs]
        against = {ga: [g for g in sg if not (config.robot and _mj_adjacent(m, int(m.geom_bodyid[ga]),
                                                                            int(m.geom_bodyid[g])))] for ga in mg}
        worst, pair, at, moved, ref = -math.inf, None, 0.0, 0.0, None
        for q in values:
            d.qpos[:] = m.qpos0
            d.qpos[m.jnt_qposadr[j]] = q
            mujoco.mj_kinematics(m, d)
            pose = (d.xpos[child].copy(), d.xmat[child].reshape(3, 3).copy())
            if ref is None:
                ref = pose
            moved = max(moved, float(np.linalg.norm(pose[0] - ref[0])), _rotation_angle(ref[1], pose[1]))
            tally.poses += 1
            for ga in mg:
                depth = _mj_pair_depth(m, d, [ga], against[ga], config.penetration_tolerance)
                if depth > worst:
                    worst, at = depth, float(q)
                    other = _mj_deepest_partner(m, d, ga, against[ga], config.penetration_tolerance)
                    pair = (m.body(int(m.geom_bodyid[ga])).name, m.body(int(m.geom_bodyid[other])).name)
        tally.joint(name, worst, pair, at, "rad" if kind != "prismatic" else "m", moved, config)
    return tally.result(config)


def _mj_deepest_partner(m: Any, d: Any, g: int, others: list[int], reach: float) -> int:
    mujoco = _import_mujoco()
    dists = [mujoco.mj_geomDistance(m, d, g, o, reach, None) for o in others]
    return others[int(np.argmin(dists))]


def _mj_drive_check(doc: _Mjcf, config: ValidationConfig) -> _Result:
    """Fix free bodies, switch contacts off, drive each joint to its limits with a gravity-compensated PD."""
    mujoco = _import_mujoco()
    spec = _mj_spec(doc.path)
    for body in spec.bodies:
        for joint in list(body.joints):
            if joint.type == mujoco.mjtJoint.mjJNT_FREE:
                spec.delete(joint)
    m = _mj_compile(spec, doc.path)
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    d = mujoco.MjData(m)
    tally = _DriveTally()
    for j in _mj_movable(m):
        name = m.joint(j).name or f"joint {j}"
        kind, lower, upper = _mj_joint_kind(m, j)
        targets = _drive_targets(kind, lower, upper)
        if not targets:
            tally.problems.append(f"joint {name!r}: unlimited slide joint, no limits to drive to")
            continue
        tally.joints += 1
        mujoco.mj_resetData(m, d)
        adr, dof = m.jnt_qposadr[j], m.jnt_dofadr[j]
        angular = kind != "prismatic"
        tol = config.limit_tolerance_rad if angular else config.limit_tolerance_m
        kp, kv, effort = _mj_servo(m, j, tol, config.default_effort)
        friction = float(m.dof_frictionloss[dof])
        steps = max(1, round(config.drive_seconds / m.opt.timestep))
        for target in targets:
            error, taken = math.inf, 0
            for taken in range(1, steps + 1):  # noqa: B007 - the count is reported below
                mujoco.mj_step1(m, d)
                error = target - float(d.qpos[adr])
                force = kp * error - kv * d.qvel[dof] + d.qfrc_bias[dof] + friction * np.clip(error / tol, -1, 1)
                d.qfrc_applied[:] = 0.0
                d.qfrc_applied[dof] = float(np.clip(force, -effort, effort))
                mujoco.mj_step2(m, d)
                error = abs(float(d.qpos[adr]) - target)
                if _settled(error, float(d.qvel[dof]), tol):
                    break
            tally.reached(name, target, error, taken * m.opt.timestep, angular, effort, config)
        d.qfrc_applied[:] = 0.0
    return tally.result("MuJoCo", config)


def _mjcf_kinematics(m: Any) -> list[_KJoint]:
    """Joints of a compiled MJCF model at qpos0, in the frame of its top-level body; welded bodies are fixed."""
    mujoco = _import_mujoco()
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    tops = _mj_top_bodies(m)
    top = tops[0] if tops else 0
    rot, pos = d.xmat[top].reshape(3, 3), d.xpos[top]
    out = []
    movable = set(_mj_movable(m))
    for b in range(1, m.nbody):
        parent = int(m.body_parentid[b])
        pname = m.body(parent).name if parent else None
        joints = range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b])
        if m.body_jntnum[b] == 0 and parent:
            out.append(_KJoint(None, "fixed", pname, m.body(b).name, rot.T @ (d.xpos[b] - pos), None, None, None))
        for j in joints:
            if j not in movable:
                continue
            kind, lower, upper = _mj_joint_kind(m, j)
            out.append(_KJoint(m.joint(j).name, kind, pname, m.body(b).name, rot.T @ (d.xanchor[j] - pos),
                               rot.T @ d.xaxis[j], lower, upper))
    return out


# --------------------------------------------------------------------------------------------- USD


def _import_pxr() -> Any:
    try:
        from pxr import Usd
    except ImportError as exc:
        raise DependencyError("USD checks need pxr: pip install usd-core==26.11") from exc
    return Usd


@dataclass
class _UsdDoc:
    path: Path
    stage: Any
    physics: dict[Any, Any]


def _usd_parse_check(path: Path) -> _Result:
    _import_pxr()
    from pxr import Sdf, Tf, Usd, UsdGeom, UsdPhysics, UsdUtils

    if not path.is_file():
        raise AssetFormatError(f"{path}: file does not exist")
    delegate = UsdUtils.CoalescingDiagnosticDelegate()
    try:
        stage = Usd.Stage.Open(str(path))
    except Tf.ErrorException as exc:
        raise AssetFormatError(f"{path}: not a readable USD file ({str(exc).strip()})") from exc
    if stage is None:
        raise AssetFormatError(f"{path}: not a readable USD file")
    loader = UsdPhysics.LoadUsdPhysicsFromRange
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            physics = loader(stage, [Sdf.Path("/")])
        except Tf.ErrorException as exc:
            raise AssetFormatError(f"{path}: UsdPhysics cannot parse it ({str(exc).strip()})") from exc
    problems = []
    for item in delegate.TakeUncoalescedDiagnostics():
        text = f"{item.commentary}".strip()
        if "error" in str(item.diagnosticCode).lower():
            problems.append(f"{path.name}: USD error: {text}")
    bodies = set()
    counts: dict[str, int] = {}
    for kind, (paths, _descs) in physics.items():
        counts[str(kind).rsplit(".", 1)[-1]] = len(paths)
        if kind == UsdPhysics.ObjectType.RigidBody:
            bodies |= {str(p) for p in paths}
    for kind, (paths, descs) in physics.items():
        if not str(kind).endswith("Joint"):
            continue
        for p, desc in zip(paths, descs, strict=True):
            rels = (str(desc.rel0), str(desc.rel1))
            ends = (str(desc.body0), str(desc.body1))
            for i in (0, 1):
                if rels[i] and ends[i] not in bodies:
                    problems.append(f"{path.name}: joint {p}: physics:body{i} targets {rels[i]}, which is not a "
                                    "rigid body")
            if not rels[0] and not rels[1]:
                problems.append(f"{path.name}: joint {p} names no bodies")
    joints = sum(v for k, v in counts.items() if k.endswith("Joint"))
    up = str(UsdGeom.GetStageUpAxis(stage))
    meters = float(UsdGeom.GetStageMetersPerUnit(stage))
    default = stage.GetDefaultPrim()
    articulations = counts.get("Articulation", 0)
    numbers = {"rigid_bodies": len(bodies), "joints": joints, "articulations": articulations, "up_axis": up,
               "meters_per_unit": meters, "default_prim": str(default.GetPath()) if default else None,
               "objects": counts}
    ok = (f"UsdPhysics parses it: {len(bodies)} rigid bodies, {joints} joints, {articulations} articulation roots; "
          f"upAxis {up}, metersPerUnit {meters:g}, defaultPrim {numbers['default_prim'] or 'not set'}")
    return _verdict(problems, ok, numbers, value=_UsdDoc(path, stage, physics))


def _usd_files_check(path: Path) -> _Result:
    _import_pxr()
    from pxr import UsdUtils

    layers, assets, unresolved = UsdUtils.ComputeAllDependencies(str(path))
    problems = [f"{path.name}: asset path {u!r} does not resolve to a file" for u in unresolved]
    return _verdict(problems, f"{len(layers)} layers and {len(assets)} asset files resolve",
                    {"layers": len(layers), "assets": len(assets), "missing": len(unresolved)})


def _usd_part_of(prim: Any, parts: set[str]) -> str | None:
    """The nearest ancestor (or self) whose name, or kept original name, is a part name."""
    while prim and prim.GetPath().pathString != "/":
        name = prim.GetCustomDataByKey("seed3d:name") or prim.GetName()
        if name in parts:
            return str(name)
        prim = prim.GetParent()
    return None


def _fan_triangles(counts: IntArray, indices: IntArray) -> IntArray:
    """Triangulate polygons (``faceVertexCounts``/``faceVertexIndices``) as fans, vectorised."""
    counts = np.asarray(counts, np.int64)
    indices = np.asarray(indices, np.int64)
    if not len(counts):
        return np.zeros((0, 3), np.int64)
    if np.any(counts < 3) or counts.sum() != len(indices):
        raise AssetFormatError(f"faceVertexCounts (sum {int(counts.sum())}) do not match faceVertexIndices "
                               f"({len(indices)}) or a face has fewer than 3 corners")
    starts = np.cumsum(counts) - counts
    tris = counts - 2
    face = np.repeat(np.arange(len(counts)), tris)
    k = np.arange(int(tris.sum())) - np.repeat(np.cumsum(tris) - tris, tris)
    first = starts[face]
    return np.stack([indices[first], indices[first + k + 1], indices[first + k + 2]], axis=1)


def _usd_meshes_check(doc: _UsdDoc, config: ValidationConfig, expect: _Expect | None) -> _Result:
    from pxr import Usd, UsdGeom, UsdPhysics

    meters = float(UsdGeom.GetStageMetersPerUnit(doc.stage))
    items, errors = [], []
    primitives = 0
    for prim in doc.stage.Traverse(Usd.TraverseInstanceProxies()):
        if prim.IsA(UsdGeom.Gprim) and not prim.IsA(UsdGeom.Mesh):
            primitives += 1
            continue
        if not prim.IsA(UsdGeom.Mesh):
            continue
        mesh = UsdGeom.Mesh(prim)
        where = f"{doc.path.name} mesh {prim.GetPath()}"
        try:
            points = np.asarray(mesh.GetPointsAttr().Get() or [], np.float64).reshape(-1, 3) * meters
            tris = _fan_triangles(np.asarray(mesh.GetFaceVertexCountsAttr().Get() or [], np.int64),
                                  np.asarray(mesh.GetFaceVertexIndicesAttr().Get() or [], np.int64))
        except AssetFormatError as exc:
            errors.append(f"{where}: {exc}")
            continue
        collider = prim.HasAPI(UsdPhysics.CollisionAPI)
        part = _usd_part_of(prim, expect.parts) if expect is not None else None
        closed = expect is not None and not collider and part in expect.closed
        items.append(_MeshItem(where, points, tris, closed, collider))
    return _meshes_result(items, config, errors, primitives)


def _usd_inertials_check(doc: _UsdDoc) -> _Result:
    from pxr import Usd, UsdPhysics

    problems, notes = [], []
    with_mass = 0
    total = 0.0
    for prim in doc.stage.Traverse(Usd.TraverseInstanceProxies()):
        if not prim.HasAPI(UsdPhysics.RigidBodyAPI):
            continue
        where = f"{doc.path.name} rigid body {prim.GetPath()}"
        if not prim.HasAPI(UsdPhysics.MassAPI):
            notes.append(prim.GetName())
            continue
        api = UsdPhysics.MassAPI(prim)
        mass = api.GetMassAttr().Get()
        density = api.GetDensityAttr().Get()
        diag = api.GetDiagonalInertiaAttr().Get()
        com = api.GetCenterOfMassAttr().Get()
        if density is not None and not (math.isfinite(density) and density >= 0):
            problems.append(f"{where}: physics:density {density} is negative or not finite")
        if mass is None or mass == 0:  # UsdPhysics: 0 = let the simulator compute it from density
            notes.append(prim.GetName())
            continue
        with_mass += 1
        total += float(mass)
        moments = np.zeros(3) if diag is None else np.asarray(diag, np.float64)
        if diag is None or np.all(moments == 0):  # computed by the simulator
            if not (math.isfinite(mass) and mass > 0):
                problems.append(f"{where}: physics:mass {mass} is not positive")
            continue
        com_arr = np.zeros(3) if com is None else np.asarray(com, np.float64)
        problems += [f"{where}: {p}" for p in _check_inertial(float(mass), com_arr, np.diag(moments))]
    ok = f"{with_mass} rigid bodies with valid mass and inertia, total {total:.4g} kg"
    if notes:
        ok += f"; {len(notes)} left to the simulator (no or zero mass): {', '.join(notes[:5])}"
    return _verdict(problems, ok, {"with_mass": with_mass, "computed_by_simulator": len(notes), "total_mass": total})


def _usd_joints_check(doc: _UsdDoc) -> _Result:
    from pxr import UsdPhysics

    problems = []
    count = 0
    for kind in (UsdPhysics.ObjectType.RevoluteJoint, UsdPhysics.ObjectType.PrismaticJoint):
        paths, descs = doc.physics.get(kind, ([], []))
        for p, desc in zip(paths, descs, strict=True):
            count += 1
            where = f"{doc.path.name} joint {p}"
            axis = str(desc.axis).rsplit(".", 1)[-1]
            if axis not in ("X", "Y", "Z"):
                problems.append(f"{where}: axis {axis!r} is not X, Y or Z")
            if desc.limit.enabled:
                lo, hi = float(desc.limit.lower), float(desc.limit.upper)
                if math.isnan(lo) or math.isnan(hi):
                    problems.append(f"{where}: limits {lo}, {hi} are not numbers")
                elif lo > hi:
                    problems.append(f"{where}: lower limit {lo:g} > upper limit {hi:g}")
    return _verdict(problems, f"{count} revolute/prismatic joints: valid axes, lower <= upper",
                    {"movable": count})


def _usd_kinematics(path: Path) -> list[_KJoint]:
    from seed3d.export.usd import read_usd_kinematics

    out = []
    for j in read_usd_kinematics(path):
        axis = None if j["axis"] is None else np.asarray(j["axis"], np.float64)
        out.append(_KJoint(j["name"], j["type"], j["parent"], j["child"], np.asarray(j["origin"], np.float64),
                           axis, j["lower"], j["upper"]))
    return out


# --------------------------------------------------------------------------------------------- GLB


def _glb_check(path: Path, config: ValidationConfig, expect: _Expect | None) -> _Result:
    import trimesh

    try:
        scene = trimesh.load(str(path), force="scene", process=False)
    except Exception as exc:
        raise AssetFormatError(f"{path}: not a readable glTF binary ({type(exc).__name__}: {exc})") from exc
    items = [_MeshItem(f"{path.name} mesh {name!r}", np.asarray(g.vertices), np.asarray(g.faces))
             for name, g in scene.geometry.items() if hasattr(g, "faces")]
    result = _meshes_result(items, config, [] if items else [f"{path.name}: holds no triangle meshes"])
    nodes = set(scene.graph.nodes)
    if expect is not None:
        missing = sorted(expect.parts - nodes)
        if missing:
            msg = f"{path.name}: no node for parts {missing}"
            result = _Result("fail", msg if result.status == "pass" else f"{result.message}; {msg}", result.numbers)
    result.numbers["nodes"] = len(nodes)
    if result.status == "pass":
        result.message = f"loads: {len(nodes)} nodes; " + result.message
    return result


# --------------------------------------------------------------------------------------------- suites


def _robot_mode(run: _Runner, declared: list[str], how: str, report: ValidationReport | None) -> ValidationConfig:
    """The run's config with ``robot`` decided: as asked, else a robot when ``declared`` names actuated joints."""
    asked = run.config.robot
    robot = bool(declared) if asked is None else asked
    if robot and report is not None and not report.robot:
        report.robot = True
        why = "as asked (--robot)" if asked else f"its joints {declared[:4]} are declared actuated ({how})"
        report.notes.append(f"validated as a robot {why}: its joints are held by their motors in the rest checks "
                            "(unpowered, an arm folds under gravity), a link and its parent are not compared for "
                            "overlap (the engines do not collide them) and links that collide within the joint "
                            "limits are a warning (a robot's planner avoids such poses)")
    return replace(run.config, robot=robot)


def _unusable_joints(model: _Urdf) -> list[str]:
    """Movable joints the engines cannot move (a zero or non-finite axis, non-finite limits), each with why."""
    out = []
    for j in model.movable:
        n = float(np.linalg.norm(j.axis))
        if not math.isfinite(n) or n < 1e-9:
            out.append(f"joint {j.name!r} has a {'zero' if math.isfinite(n) else 'non-finite'} axis")
        elif j.type != "continuous" and j.has_limit and not all(
                v is not None and math.isfinite(v) for v in (j.lower, j.upper)):
            out.append(f"joint {j.name!r} has non-finite limits")
    return out


def _robot_hint(run: _Runner, report: ValidationReport | None, config: ValidationConfig) -> None:
    """After a file's rest checks: joints that fell under gravity in an object may mean a robot; say how to ask."""
    drifted = any(c.name.startswith("urdf.rest") and c.status == "fail" and "drifted" in c.message for c in run.checks)
    if drifted and report is not None and not config.robot:
        report.notes.append("joints moved under gravity in the rest checks: if this is a robot (an unpowered arm "
                            "folds), validate it as one (seed3d validate --robot, ValidationConfig(robot=True))")


def _urdf_suite(run: _Runner, path: Path, expect: _Expect | None,
                report: ValidationReport | None = None) -> _Urdf | None:
    model: _Urdf | None = run.run("urdf.parse", path, lambda: _urdf_parse_check(path))
    cfg = _robot_mode(run, [] if model is None else model.actuated, "<transmission>", report)
    per_link = (("urdf.files", lambda m: _urdf_files_check(m)),
                ("urdf.meshes", lambda m: _urdf_meshes_check(m, cfg, expect)),
                ("urdf.inertials", lambda m: _urdf_inertials_check(m)),
                ("urdf.joints", lambda m: _urdf_joints_check(m)))
    for name, fn in per_link:
        if model is None:
            run.skip(name, path, "not run: the URDF could not be read")
        else:
            run.run(name, path, lambda fn=fn: fn(model))
    in_bullet = run.run("urdf.load_pybullet", path, lambda: _bullet_load_check(path))
    as_is = run.run("urdf.load_mujoco", path, lambda: _mj_load_urdf_check(path, model))
    unusable = [] if model is None else _unusable_joints(model)
    blocked = (f"not run: {'; '.join(unusable)} (see urdf.joints): the engines cannot move it (PyBullet puts the "
               "links it carries at NaN), so this cannot be measured") if unusable else ""
    unread = "not run: the URDF could not be read here, and this check needs its joints' types and ranges"
    dynamic = (("urdf.rest_pybullet", lambda: _bullet_rest_check(path, cfg), False),
               ("urdf.interpenetration", lambda: _bullet_interpenetration_check(path, cfg), False),
               ("urdf.sweep", lambda: _bullet_sweep_check(path, model, cfg), True),
               ("urdf.drive", lambda: _bullet_drive_check(path, model, cfg), True))
    for name, fn, needs_model in dynamic:
        if not in_bullet:
            run.skip(name, path, "not run: the URDF does not load in PyBullet")
        elif needs_model and model is None:
            run.skip(name, path, unread)
        elif blocked:
            run.skip(name, path, blocked)
        else:
            run.run(name, path, fn)
    if as_is is None:
        run.skip("urdf.rest_mujoco", path, "not run: the URDF does not load in MuJoCo")
    elif model is None:
        run.skip("urdf.rest_mujoco", path, "not run: the URDF could not be read here, and this check needs its root")
    elif blocked:
        run.skip("urdf.rest_mujoco", path, blocked)
    else:
        run.run("urdf.rest_mujoco", path, lambda: _mj_rest_urdf_check(path, model, as_is, cfg))
    if expect is None:
        _robot_hint(run, report, cfg)
    if expect is not None:
        if model is not None and model.root is not None:
            run.run("kinematics.urdf", path, lambda: _compare_kinematics(expect.joints, _urdf_kinematics(model), cfg))
        else:
            run.skip("kinematics.urdf", path, "not run: the URDF does not form one tree")
    return model


def _mjcf_actuated(doc: _Mjcf) -> list[str]:
    """Joints an MJCF ``<actuator>`` drives."""
    mujoco = _import_mujoco()
    return sorted({a.target for a in doc.spec.actuators if a.trntype == mujoco.mjtTrn.mjTRN_JOINT and a.target})


def _mjcf_suite(run: _Runner, path: Path, expect: _Expect | None, report: ValidationReport | None = None) -> Any:
    doc: _Mjcf | None = run.run("mjcf.parse", path, lambda: _mjcf_parse_check(path))
    cfg = _robot_mode(run, [] if doc is None else _mjcf_actuated(doc), "<actuator>", report)
    if doc is None:
        for name in ("mjcf.files", "mjcf.meshes", "mjcf.joints", "mjcf.load_mujoco", "mjcf.inertials",
                     "mjcf.load_pybullet", "mjcf.rest_mujoco", "mjcf.interpenetration", "mjcf.sweep", "mjcf.drive"):
            run.skip(name, path, "not run: the MJCF could not be parsed")
        if expect is not None:
            run.skip("kinematics.mjcf", path, "not run: the MJCF could not be parsed")
        return None
    run.run("mjcf.files", path, lambda: _mjcf_files_check(doc))
    run.run("mjcf.meshes", path, lambda: _mjcf_meshes_check(doc, cfg, expect))
    run.run("mjcf.joints", path, lambda: _mjcf_joints_check(doc))
    loaded = run.run("mjcf.load_mujoco", path, lambda: _mjcf_load_check(doc))
    run.run("mjcf.inertials", path, lambda: _mjcf_inertials_check(doc))
    run.run("mjcf.load_pybullet", path, lambda: _bullet_mjcf_check(path))
    dynamic = (("mjcf.rest_mujoco", lambda: _mj_rest(_mj_spec(path), path, cfg, None)),
               ("mjcf.interpenetration", lambda: _mj_interpenetration_check(doc, cfg)),
               ("mjcf.sweep", lambda: _mj_sweep_check(doc, cfg)),
               ("mjcf.drive", lambda: _mj_drive_check(doc, cfg)))
    for name, fn in dynamic:
        if loaded is not None:
            run.run(name, path, fn)
        else:
            run.skip(name, path, "not run: the MJCF does not load in MuJoCo")
    if expect is not None:
        if loaded is not None:
            run.run("kinematics.mjcf", path,
                    lambda: _compare_kinematics(expect.joints, _mjcf_kinematics(loaded), cfg, fixed_named=False))
        else:
            run.skip("kinematics.mjcf", path, "not run: the MJCF does not load in MuJoCo")
    return loaded


def _usd_suite(run: _Runner, path: Path, expect: _Expect | None, prefix: str = "usd") -> None:
    cfg = run.config
    doc: _UsdDoc | None = run.run(f"{prefix}.parse", path, lambda: _usd_parse_check(path))
    later = ((f"{prefix}.files", lambda: _usd_files_check(path)),
             (f"{prefix}.meshes", lambda: _usd_meshes_check(doc, cfg, expect)),
             (f"{prefix}.inertials", lambda: _usd_inertials_check(doc)),
             (f"{prefix}.joints", lambda: _usd_joints_check(doc)))
    for name, fn in later:
        if doc is None:
            run.skip(name, path, "not run: the USD file could not be parsed")
        else:
            run.run(name, path, fn)
    if expect is not None:
        run.run(f"kinematics.{prefix}", path, lambda: _compare_kinematics(expect.joints, _usd_kinematics(path), cfg))


# ---- asset folders


def _asset_meshes_check(asset: Asset, config: ValidationConfig) -> _Result:
    items = []
    missing = []
    for p in asset.parts:
        items.append(_MeshItem(f"part {p.name!r} mesh", p.mesh.vertices, p.mesh.faces, p.watertight))
        if not p.collision:
            missing.append(p.name)
        for i, hull in enumerate(p.collision):
            items.append(_MeshItem(f"part {p.name!r} collision hull {i}", hull.vertices, hull.faces, True, True))
    result = _meshes_result(items, config, [f"parts {missing} have no collision hulls (run seed3d.physics.prepare)"]
                            if missing else [])
    result.numbers["hulls"] = sum(len(p.collision) for p in asset.parts)
    return result


def _asset_inertials_check(asset: Asset) -> _Result:
    problems = []
    for p in asset.parts:
        if p.inertial is None:
            problems.append(f"part {p.name!r} has no inertial (run seed3d.physics.prepare)")
            continue
        problems += [f"part {p.name!r}: {x}" for x in _check_inertial(p.inertial.mass, p.inertial.com,
                                                                      p.inertial.inertia)]
    total = sum(p.inertial.mass for p in asset.parts if p.inertial is not None)
    return _verdict(problems, f"{len(asset.parts)} parts: valid inertials, total mass {total:.4g} kg",
                    {"parts": len(asset.parts), "total_mass": total})


def _asset_joints_check(asset: Asset) -> _Result:
    problems = []
    if not asset.joints_known and len(asset.parts) > 1:
        problems.append(f"asset.json: the joints of its {len(asset.parts)} parts are unknown (segmented, not yet "
                        "articulated): run `seed3d articulate` on it")
    for j in asset.joints:
        where = f"asset.json joint {j.name!r}"
        if not np.all(np.isfinite(j.origin)):
            problems.append(f"{where}: origin {j.origin.tolist()} is not finite")
        problems += _joint_value_problems(where, j.type, j.axis if j.movable else None, j.lower, j.upper,
                                          j.type in ("revolute", "prismatic"), j.damping, j.friction)
    movable = sum(j.movable for j in asset.joints)
    return _verdict(problems, f"{len(asset.joints)} joints ({movable} movable): non-zero axes, lower <= upper",
                    {"joints": len(asset.joints), "movable": movable})


def _find_export(root: Path, fmt: str, name: str | None) -> Path | None:
    """The file of format ``fmt`` in an asset folder: at its EXPORT_LAYOUT path, else the only candidate."""
    if name is not None:
        p = root / EXPORT_LAYOUT[fmt].format(name=name)
        if p.is_file():
            return p
    pattern = EXPORT_LAYOUT[fmt].format(name="*")
    found = sorted(root.glob(pattern))
    return found[0] if len(found) == 1 else None


def _folder_suite(run: _Runner, root: Path, report: ValidationReport) -> None:
    asset: Asset | None = run.run("asset.load", root / "asset.json", lambda: _asset_load(root))
    expect = None
    if asset is not None:
        run.run("asset.meshes", root / "asset.json", lambda: _asset_meshes_check(asset, run.config))
        run.run("asset.inertials", root / "asset.json", lambda: _asset_inertials_check(asset))
        run.run("asset.joints", root / "asset.json", lambda: _asset_joints_check(asset))
        expect = _Expect({p.name for p in asset.parts}, {p.name for p in asset.parts if p.watertight},
                         _asset_kinematics(asset))
        _functional(report, "asset.json", lambda: functional.check_asset(asset))
        mount = asset.metadata.get("mount")
        if run.config.mount is None and mount is not None:
            if mount not in MOUNTS:
                run.fail("asset.mount", root / "asset.json", f"metadata mount {mount!r} is not one of {MOUNTS}")
            else:
                run.config = replace(run.config, mount=mount)
                if mount in FIXED_MOUNTS:
                    report.notes.append(f"asset.json says the object is {mount}-mounted: the rest checks fix its "
                                        f"root to the world, as its {mount} holds it (--mount floor drops it on the "
                                        "ground)")
    name = None if asset is None else asset.name
    for fmt in FOLDER_FORMATS:
        path = _find_export(root, fmt, name)
        if path is None:
            report.absent.append(fmt)
            continue
        report.present.append(fmt)
        if fmt == "glb":
            run.run("glb.load", path, lambda path=path: _glb_check(path, run.config, expect))
        elif fmt == "urdf":
            _urdf_suite(run, path, expect, report)
        elif fmt == "mjcf":
            _mjcf_suite(run, path, expect, report)
        else:
            _usd_suite(run, path, expect, prefix=fmt)
    if report.absent:
        report.notes.append(f"formats absent from the folder: {', '.join(report.absent)} (expected at "
                            + ", ".join(EXPORT_LAYOUT[f].format(name=name or '{name}') for f in report.absent) + ")")


def _functional(report: ValidationReport, target: str, fn: Callable[[], functional.FunctionalReport]) -> None:
    """Run functional checks into their own section of ``report`` (an error there is a failed check)."""
    start = time.perf_counter()
    try:
        found = fn()
    except Exception as exc:
        logger.debug("functional checks raised", exc_info=True)
        report.functional = [Check("functional", "fail", f"functional checks stopped: {type(exc).__name__}: {exc}",
                                   target=target, seconds=time.perf_counter() - start)]
        return
    report.functional = [Check(r.name, r.status, " ".join(r.message.split()), r.numbers, target, r.seconds)
                         for r in found.results]
    report.functional_info = {k: v for k, v in found.to_dict().items() if k not in ("checks", "passed")}


def _urdf_functional(model: _Urdf) -> functional.FunctionalReport:
    """The lower bar for a URDF: travel by kind (from link names) and mass share from its inertials."""
    kin = _urdf_kinematics(model)
    kids: dict[str | None, list[str]] = {}
    for j in kin:
        kids.setdefault(j.parent, []).append(j.child)
    below: dict[str, list[str]] = {}
    for j in kin:
        below[j.child] = stack = [j.child]
        for n in stack:  # grows while it is walked: every link under the joint's child
            stack.extend(kids.get(n, []))
    masses = {n: link.inertial.mass for n, link in model.links.items() if link.inertial is not None}
    return functional.check_joints([(str(j.name), j.type, j.child, j.lower, j.upper) for j in kin], masses, below)


def _asset_load(root: Path) -> _Result:
    asset = Asset.load(root)
    return _ok(f"asset {asset.name!r}: {len(asset.parts)} parts, {len(asset.joints)} joints",
               {"parts": len(asset.parts), "joints": len(asset.joints)}, value=asset)


def _kind_of(path: Path) -> str:
    """'asset folder' | 'urdf' | 'mjcf' | 'usd' | 'glb'; unreadable paths raise naming what is wrong."""
    if path.is_dir():
        if (path / "asset.json").is_file():
            return "asset folder"
        raise AssetFormatError(f"{path} is a folder without asset.json: give an asset folder or a .urdf, MJCF .xml "
                               "or .usd/.usda/.usdc/.usdz file")
    if not path.exists():
        raise AssetFormatError(f"{path}: no such file or folder")
    suffix = path.suffix.lower()
    if suffix == ".urdf":
        return "urdf"
    if suffix in USD_SUFFIXES:
        return "usd"
    if suffix in (".glb", ".gltf"):
        return "glb"
    if suffix in (".xml", ".mjcf"):
        try:
            tag = _xml_root(path).tag
        except AssetFormatError:
            return "mjcf"  # the parse check will report the broken XML
        return "urdf" if tag == "robot" else "mjcf"
    raise AssetFormatError(f"{path}: unknown extension {path.suffix or '(none)'!r}; validate takes an asset folder, "
                           ".urdf, MJCF .xml or .usd/.usda/.usdc/.usdz")


def validate_path(path: PathType, config: ValidationConfig | None = None,
                  progress: Callable[[float, str], None] | None = None) -> ValidationReport:
    """Validate an asset folder, URDF, MJCF or USD file; every problem is a failed check, never an exception.
    ``progress(fraction, message)`` is called as each check starts (the fraction grows towards 1 with each, as
    the number of checks is not known ahead)."""
    config = config or ValidationConfig()
    start = time.perf_counter()
    path = Path(path)
    if path.is_dir() and (path / "scene.json").is_file() and not (path / "asset.json").is_file():
        return validate_scene(path, config)
    try:
        if config.mount not in (None, *MOUNTS):
            raise AssetFormatError(f"mount {config.mount!r} is not one of {', '.join(MOUNTS)}")
        kind = _kind_of(path)
    except AssetFormatError as exc:
        report = ValidationReport(str(path), "unknown")
        report.checks.append(Check("input", "fail", str(exc), target=str(path)))
        report.seconds = time.perf_counter() - start
        return report
    report = ValidationReport(str(path), kind)
    run = _Runner(config, path if path.is_dir() else path.parent, progress)
    try:
        if kind == "asset folder":
            _folder_suite(run, path, report)
        elif kind == "urdf":
            report.present.append("urdf")
            model = _urdf_suite(run, path, None, report)
            if model is not None and model.root is not None:
                _functional(report, path.name, lambda: _urdf_functional(model))
        elif kind == "mjcf":
            report.present.append("mjcf")
            loaded = _mjcf_suite(run, path, None, report)
            if loaded is not None:
                _functional(report, path.name, lambda: functional.check_joints(
                    [(j.name or f"joint {i}", j.type, j.child, j.lower, j.upper)
                     for i, j in enumerate(_mjcf_kinematics(loaded))]))
        elif kind == "usd":
            report.present.append("usd")
            _usd_suite(run, path, None)
        else:
            report.present.append("glb")
            run.run("glb.load", path, lambda: _glb_check(path, config, None))
    except Exception as exc:  # a bug between checks must still give a report, not a traceback
        logger.exception("validation of %s stopped", path)
        run.fail("internal", path, f"validation stopped early: {type(exc).__name__}: {exc}")
    if kind in ("usd", "asset folder") and any(c.name.startswith("usd") for c in run.checks):
        report.notes.append("USD files are checked statically (no USD simulator ships with usd-core); dynamic "
                            "checks run on URDF and MJCF")
    report.checks = run.checks
    report.seconds = time.perf_counter() - start
    logger.info("validated %s: %s", path, "passed" if report.passed else f"{len(report.failures)} checks failed")
    return report


# --------------------------------------------------------------------------------------------- scene folders
# A scene folder (``scene.json`` + ``assets/``, written by ``seed3d.scene``) is validated as a whole by
# ``validate_scene``; ``validate_path`` hands such folders to it. Nothing above depends on this section.

#: A part of a scene object (a door, a swivel seat) may move this many times ``max_rest_displacement`` while
#: its object stays within ``max_rest_displacement``.
SCENE_LINK_FACTOR = 2.5
#: Scene files ``validate_scene`` expects, relative to the folder.
SCENE_FILES = {"urdf": "urdf/scene.urdf", "urdf_room": "urdf/room.urdf", "mjcf": "mjcf/scene.xml",
               "usd": "usd/scene.usda"}


def _yaw_xyzw(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


def _scene_doc(root: Path) -> _Result:
    from seed3d.asset import Scene

    scene = Scene.load(root)
    fixed = set(scene.metadata.get("fixed", []))
    return _ok(f"scene {scene.name!r}: {len(scene.objects)} objects in a "
               f"{' × '.join(f'{v:.2f}' for v in scene.size)} m room ({len(fixed)} fixed)",
               {"objects": len(scene.objects), "size": scene.size.tolist()}, value=(scene, fixed))


def _scene_files(root: Path, names: list[str]) -> _Result:
    wanted = [root / rel for rel in SCENE_FILES.values()]
    wanted += [root / "urdf" / "objects" / n / f"{n}.urdf" for n in names]
    missing = [str(p.relative_to(root)) for p in wanted if not p.is_file()]
    return _verdict([f"{m} is missing" for m in missing], f"{len(wanted)} scene files present",
                    {"files": len(wanted), "missing": len(missing)})


def _scene_bullet(root: Path, scene: Any, fixed: set[str], config: ValidationConfig, tolerance: float
                  ) -> tuple[_Result, _Result]:
    """(interpenetration at load, rest after ``rest_seconds``) in PyBullet: room + each object's own URDF.

    Resting contact between many bodies: 50 solver iterations, split impulse and contact/friction ERP 0.2 (with
    PyBullet's defaults light caster wheels jitter an office chair across the floor by a centimetre or two).
    An object's displacement is its root link's; its parts (a swivel seat, a door) may move up to
    ``SCENE_LINK_FACTOR`` times as far. Speeds are averaged over the last 0.5 s (contact jitter is not motion)."""
    with _bullet() as c:
        c.setGravity(0, 0, -config.gravity)
        c.setTimeStep(config.pybullet_timestep)
        c.setPhysicsEngineParameter(numSolverIterations=50, useSplitImpulse=1, contactERP=0.2,
                                    frictionERP=0.2)
        room = c.loadURDF(str(root / SCENE_FILES["urdf_room"]), useFixedBase=True)
        bodies: dict[str, int] = {}
        for o in scene.objects:
            path = root / "urdf" / "objects" / o.name / f"{o.name}.urdf"
            bodies[o.name] = c.loadURDF(str(path), basePosition=[float(v) for v in o.position],
                                        baseOrientation=_yaw_xyzw(o.yaw), useFixedBase=o.name in fixed,
                                        flags=c.URDF_USE_INERTIA_FROM_FILE)
            for j in range(c.getNumJoints(bodies[o.name])):
                info = c.getJointInfo(bodies[o.name], j)
                if info[2] in (c.JOINT_REVOLUTE, c.JOINT_PRISMATIC):
                    c.setJointMotorControl2(bodies[o.name], j, c.VELOCITY_CONTROL, targetVelocity=0.0,
                                            force=max(0.0, info[7]))
        pad = 2 * _BULLET_MARGIN
        worst, pair = 0.0, None
        names = list(bodies)
        for i, a in enumerate(names):
            for b in [*names[i + 1:], "room"]:
                other = room if b == "room" else bodies[b]
                for p in c.getClosestPoints(bodies[a], other, pad + 0.01):
                    depth = -(p[8] + pad)
                    if depth > worst:
                        worst, pair = depth, (a, b)
        pen_numbers = {"worst_m": round(worst, 5), "pair": list(pair) if pair else None, "tolerance_m": tolerance}
        pen = _verdict([f"{pair[0]} and {pair[1]} overlap by {worst * 1000:.1f} mm at load"] if pair and
                       worst > tolerance else [],
                       f"no two objects overlap by more than {tolerance * 1000:.0f} mm (worst {worst * 1000:.1f} mm)",
                       pen_numbers)

        def coms(body: int) -> FloatArray:
            pos = [c.getBasePositionAndOrientation(body)[0]]
            n = c.getNumJoints(body)
            if n:
                pos += [s[0] for s in c.getLinkStates(body, list(range(n)))]
            return np.array(pos, np.float64)

        start = {n: coms(b) for n, b in bodies.items()}
        steps = max(1, round(config.rest_seconds / config.pybullet_timestep))
        window = min(steps, max(1, round(0.5 / config.pybullet_timestep)))
        late: dict[str, FloatArray] = {}
        for k in range(steps):
            if k == steps - window:
                late = {n: coms(b)[0] for n, b in bodies.items()}
            c.stepSimulation()
        moved: dict[str, float] = {}
        links: dict[str, float] = {}
        speed: dict[str, float] = {}
        for n, b in bodies.items():
            now = coms(b)
            moved[n] = float(np.linalg.norm(now[0] - start[n][0]))
            links[n] = float(np.linalg.norm(now - start[n], axis=1).max())
            speed[n] = float(np.linalg.norm(now[0] - late.get(n, start[n][0]))) / (window * config.pybullet_timestep)
        low = {n: float(coms(b)[:, 2].min()) for n, b in bodies.items()}
    problems = [f"{n} moved {d * 1000:.0f} mm" for n, d in moved.items() if d > config.max_rest_displacement]
    problems += [f"a part of {n} moved {d * 1000:.0f} mm" for n, d in links.items()
                 if d > SCENE_LINK_FACTOR * config.max_rest_displacement]
    problems += [f"{n} still moves at {v:.3f} m/s" for n, v in speed.items() if v > config.max_rest_speed]
    problems += [f"{n} fell through the floor" for n, z in low.items() if z < -config.fall_tolerance]
    worst_n = max(moved, key=lambda k: moved[k]) if moved else None
    rest = _verdict(problems, f"after {config.rest_seconds:g} s every object is within "
                    f"{config.max_rest_displacement * 1000:.0f} mm of where it was placed (most: "
                    f"{worst_n} {moved.get(worst_n, 0.0) * 1000:.1f} mm; parts within "
                    f"{max(links.values(), default=0.0) * 1000:.1f} mm)" if worst_n else "no objects",
                    {"displacement_m": {k: round(v, 5) for k, v in moved.items()},
                     "max_displacement_m": round(max(moved.values(), default=0.0), 5),
                     "max_part_displacement_m": round(max(links.values(), default=0.0), 5)})
    return pen, rest


def _scene_mujoco(path: Path, config: ValidationConfig, tolerance: float) -> _Result:
    """Compile the scene MJCF, measure contacts at load, settle ``rest_seconds``, report each object's motion."""
    mujoco = _import_mujoco()
    try:
        m = mujoco.MjModel.from_xml_path(str(path))
    except Exception as exc:
        raise AssetFormatError(f"{path}: MuJoCo cannot load it ({exc})") from exc
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)

    def owner(body: int) -> str:
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, int(m.body_rootid[body])) or "room"
        return name.split("__")[0] if "__" in name else "room"

    worst, pair = 0.0, None
    for i in range(d.ncon):
        con = d.contact[i]
        a, b = owner(m.geom_bodyid[con.geom1]), owner(m.geom_bodyid[con.geom2])
        if a != b and -con.dist > worst:
            worst, pair = -float(con.dist), (a, b)
    objects: dict[str, list[int]] = {}
    for body in range(1, m.nbody):
        objects.setdefault(owner(body), []).append(body)
    objects.pop("room", None)
    start = {n: d.xipos[idx].copy() for n, idx in objects.items()}
    for _ in range(max(1, round(config.rest_seconds / m.opt.timestep))):
        mujoco.mj_step(m, d)
    moved = {n: float(np.linalg.norm(d.xipos[idx[0]] - start[n][0])) for n, idx in objects.items()}
    links = {n: float(np.linalg.norm(d.xipos[idx] - start[n], axis=1).max()) for n, idx in objects.items()}
    low = {n: float(d.xipos[idx][:, 2].min()) for n, idx in objects.items()}
    problems = []
    if pair and worst > tolerance:
        problems.append(f"{pair[0]} and {pair[1]} overlap by {worst * 1000:.1f} mm at load")
    problems += [f"{n} moved {v * 1000:.0f} mm" for n, v in moved.items() if v > config.max_rest_displacement]
    problems += [f"a part of {n} moved {v * 1000:.0f} mm" for n, v in links.items()
                 if v > SCENE_LINK_FACTOR * config.max_rest_displacement]
    problems += [f"{n} fell through the floor" for n, z in low.items() if z < -config.fall_tolerance]
    most = max(moved, key=lambda k: moved[k]) if moved else None
    return _verdict(problems, f"loads ({m.nbody} bodies, {m.ngeom} geoms); after {config.rest_seconds:g} s every "
                    f"object is within {config.max_rest_displacement * 1000:.0f} mm (most: {most} "
                    f"{moved.get(most, 0.0) * 1000:.1f} mm); worst contact depth at load {worst * 1000:.1f} mm"
                    if most else "no objects",
                    {"displacement_m": {k: round(v, 5) for k, v in moved.items()},
                     "max_displacement_m": round(max(moved.values(), default=0.0), 5),
                     "max_part_displacement_m": round(max(links.values(), default=0.0), 5),
                     "worst_contact_depth_m": round(worst, 5)})


def _scene_urdf_mujoco(path: Path) -> _Result:
    mujoco = _import_mujoco()
    try:
        m = mujoco.MjModel.from_xml_path(str(path))
    except Exception as exc:
        raise AssetFormatError(f"{path}: MuJoCo cannot load the one-file scene URDF ({exc})") from exc
    free = int(np.sum(m.jnt_type == mujoco.mjtJoint.mjJNT_FREE))
    return _ok(f"MuJoCo loads the one-file URDF: {m.nbody} bodies, {free} free objects", {"free": free})


def validate_scene(path: PathType, config: ValidationConfig | None = None, penetration: float = 0.005
                   ) -> ValidationReport:
    """Validate a scene folder: it loads; PyBullet (room + each object's URDF at its pose) and MuJoCo (the scene
    MJCF) load it; no two objects overlap by more than ``penetration`` at load; after ``rest_seconds`` every
    object is within ``max_rest_displacement`` of its place (displacement per object in the numbers); the
    one-file URDF loads in MuJoCo and the USD scene parses with UsdPhysics. Never raises."""
    config = config or ValidationConfig()
    start = time.perf_counter()
    root = Path(path)
    report = ValidationReport(str(root), "scene folder")
    run = _Runner(config, root)
    try:
        loaded = run.run("scene.load", root / "scene.json", lambda: _scene_doc(root))
        if loaded is not None:
            scene, fixed = loaded
            run.run("scene.files", root, lambda: _scene_files(root, [o.name for o in scene.objects]))
            holder: dict[str, _Result] = {}

            def bullet_pen() -> _Result:
                pen, rest = _scene_bullet(root, scene, fixed, config, penetration)
                holder["rest"] = rest
                return pen

            if (root / SCENE_FILES["urdf_room"]).is_file():
                run.run("scene.interpenetration_pybullet", root / "urdf", bullet_pen)
                if "rest" in holder:
                    run.run("scene.rest_pybullet", root / "urdf", lambda: holder["rest"])
                else:
                    run.skip("scene.rest_pybullet", root / "urdf", "not run: the scene did not load in PyBullet")
                report.present.append("urdf")
            else:
                report.absent.append("urdf")
            if (root / SCENE_FILES["urdf"]).is_file():
                run.run("scene.load_urdf_mujoco", root / SCENE_FILES["urdf"],
                        lambda: _scene_urdf_mujoco(root / SCENE_FILES["urdf"]))
            if (root / SCENE_FILES["mjcf"]).is_file():
                report.present.append("mjcf")
                run.run("scene.rest_mujoco", root / SCENE_FILES["mjcf"],
                        lambda: _scene_mujoco(root / SCENE_FILES["mjcf"], config, penetration))
            else:
                report.absent.append("mjcf")
            usd = root / SCENE_FILES["usd"]
            if usd.is_file():
                report.present.append("usd")
                run.run("scene.usd_parse", usd, lambda: _usd_parse_check(usd))
                run.run("scene.usd_files", usd, lambda: _usd_files_check(usd))
            else:
                report.absent.append("usd")
    except Exception as exc:  # a bug between checks must still give a report, not a traceback
        logger.exception("scene validation of %s stopped", root)
        run.fail("internal", root, f"validation stopped early: {type(exc).__name__}: {exc}")
    report.checks = run.checks
    report.seconds = time.perf_counter() - start
    return report
