"""The category registry and ``AssetBuilder``, the shared scaffold every category builder fills in.

A builder adds parts (mesh + label + finish) and joints in the asset frame, records structured attributes,
and ``AssetBuilder.build`` does the rest the same way for every category: box-projected UVs, textured PBR
and physical materials, re-centring on the bottom of the bounding box, the description and metadata.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.asset import Asset, Joint, Mesh, Part, PBRMaterial
from seed3d.errors import InvalidInputError
from seed3d.synth.collision import is_rectilinear, rectilinear_boxes
from seed3d.synth.materials import Finish, pbr_material, physical_material, physical_name
from seed3d.synth.primitives import box_uv
from seed3d.typed import FloatArray

SYNTH_VERSION = 1

#: Damping, friction, effort and velocity per kind of joint (a door must not swing by itself).
JOINT_PRESETS: dict[str, dict[str, Any]] = {
    "fixed": {"type": "fixed", "damping": 0.0, "friction": 0.0},
    "hinge": {"type": "revolute", "damping": 1.0, "friction": 0.3, "effort": 100.0, "velocity": 2.0},
    "lid": {"type": "revolute", "damping": 0.5, "friction": 0.3, "effort": 50.0, "velocity": 2.0},
    "lever": {"type": "revolute", "damping": 5.0, "friction": 0.5, "effort": 20.0, "velocity": 3.0},
    # friction hinges (desk-lamp arms); their links are balanced, since an engine whose joint friction is a
    # soft constraint (MuJoCo's frictionloss) lets a steady torque creep at about torque / damping
    "stiff": {"type": "revolute", "damping": 0.3, "friction": 3.0, "effort": 50.0, "velocity": 1.0},
    "slide": {"type": "prismatic", "damping": 8.0, "friction": 1.0, "effort": 100.0, "velocity": 0.5},
    "button": {"type": "prismatic", "damping": 2.0, "friction": 0.2, "effort": 10.0, "velocity": 0.1},
    "spin": {"type": "continuous", "damping": 0.05, "friction": 0.02, "effort": 5.0, "velocity": 10.0},
    "swivel": {"type": "continuous", "damping": 0.5, "friction": 0.3, "effort": 50.0, "velocity": 5.0},
    # light wheels: PyBullet integrates joint damping explicitly, so damping above inertia / time step makes
    # a small wheel oscillate; joint friction (an implicit constraint in every engine) keeps it still
    "wheel": {"type": "continuous", "damping": 0.002, "friction": 2.0, "effort": 20.0, "velocity": 20.0},
    "drum": {"type": "continuous", "damping": 0.5, "friction": 0.2, "effort": 200.0, "velocity": 10.0},
}


@dataclass(frozen=True)
class Param:
    """One sampled parameter: a float range, an int range (inclusive) or a tuple of choices."""

    lo: float | int | None = None
    hi: float | int | None = None
    choices: tuple[Any, ...] | None = None
    doc: str = ""

    def sample(self, rng: np.random.Generator) -> Any:
        """Draw a value."""
        if self.choices is not None:
            return self.choices[int(rng.integers(len(self.choices)))]
        if isinstance(self.lo, int) and isinstance(self.hi, int):
            return int(rng.integers(self.lo, self.hi + 1))
        return float(rng.uniform(float(self.lo), float(self.hi)))  # type: ignore[arg-type]

    def describe(self) -> str:
        """A short text form, e.g. ``0.4..0.9`` or ``bar|knob``."""
        if self.choices is not None:
            return "|".join(str(c) for c in self.choices)
        return f"{self.lo}..{self.hi}"


def frange(lo: float, hi: float, doc: str = "") -> Param:
    """A float parameter drawn uniformly from [lo, hi]."""
    return Param(float(lo), float(hi), doc=doc)


def irange(lo: int, hi: int, doc: str = "") -> Param:
    """An integer parameter drawn uniformly from lo..hi inclusive."""
    return Param(int(lo), int(hi), doc=doc)


def choice(*options: Any, doc: str = "") -> Param:
    """A parameter drawn uniformly from ``options``."""
    return Param(choices=tuple(options), doc=doc)


@dataclass(frozen=True)
class Category:
    """A parametric object category: its builder, documented parameters and the plausible overall size.

    ``extent_min`` / ``extent_max`` bound the asset's bounding-box size (x depth, y width, z height; meters),
    handles and other protrusions included.
    """

    name: str
    description: str
    params: dict[str, Param]
    extent_min: tuple[float, float, float]
    extent_max: tuple[float, float, float]
    builder: Callable[[AssetBuilder], None] = field(repr=False, compare=False)
    nouns: tuple[str, ...] = ()

    def summary(self) -> str:
        """One line: name, description and parameters with their ranges."""
        params = ", ".join(f"{k}={p.describe()}" for k, p in self.params.items())
        return f"{self.name}: {self.description} [{params}]"


def rng_for(category: str, seed: int, stream: str = "") -> np.random.Generator:
    """A numpy generator seeded by a stable hash of (category, seed, stream) (not Python's ``hash``)."""
    digest = hashlib.sha256(f"seed3d.synth/{category}/{int(seed)}/{stream}".encode()).digest()
    return np.random.default_rng(np.random.SeedSequence(int.from_bytes(digest[:16], "little")))


@dataclass
class _PartSpec:
    name: str
    mesh: Mesh
    label: str
    finish: Finish
    physical: str | None
    collision: list[Mesh] | None


class AssetBuilder:
    """Collects parts, joints and attributes for one (category, seed); ``build`` makes the ``Asset``."""

    def __init__(self, category: Category, seed: int) -> None:
        self.category = category
        self.seed = int(seed)
        self.rng = rng_for(category.name, seed)
        self.p: dict[str, Any] = {k: prm.sample(self.rng) for k, prm in category.params.items()}
        self.attributes: dict[str, Any] = {"category": category.name}
        self._parts: list[_PartSpec] = []
        self._joints: list[Joint] = []

    # ---- parts and joints
    def add(self, name: str, mesh: Mesh, label: str, finish: Finish, parent: str | None = None,
            joint: str = "fixed", origin: FloatArray | None = None, axis: FloatArray = (0.0, 0.0, 1.0),
            lower: float = 0.0, upper: float = 0.0, joint_name: str | None = None,
            physical: str | None = None, collision: list[Mesh] | None = None) -> str:
        """Add a part, and its joint to ``parent`` (``joint`` is a ``JOINT_PRESETS`` key); returns its name.

        ``collision``: exact convex pieces known from construction; without them an axis-aligned part gets
        its exact box decomposition and any other part is left to ``seed3d.physics.prepare``.
        """
        if not len(mesh.faces):
            raise ValueError(f"part {name!r} has an empty mesh")
        self._parts.append(_PartSpec(name, mesh, label, finish, physical, collision))
        if parent is not None:
            preset = dict(JOINT_PRESETS[joint])
            jtype = preset.pop("type")
            if origin is None:
                origin = mesh.bounds.mean(axis=0)
            suffix = {"fixed": "mount", "hinge": "hinge", "lid": "hinge", "lever": "pivot", "slide": "slide",
                      "button": "press", "spin": "spin", "wheel": "spin", "drum": "spin", "stiff": "hinge",
                      "swivel": "swivel"}[joint]
            self._joints.append(Joint(joint_name or f"{name}_{suffix}", jtype, parent, name, origin=origin,
                                      axis=axis, lower=float(lower), upper=float(upper), **preset))
        return name

    def has(self, name: str) -> bool:
        """Whether a part called ``name`` was added."""
        return any(p.name == name for p in self._parts)

    def count(self, label: str) -> int:
        """How many parts with ``label`` were added so far."""
        return sum(1 for p in self._parts if p.label == label)

    def mesh(self, name: str) -> Mesh:
        """The mesh of a part added earlier."""
        return next(p.mesh for p in self._parts if p.name == name)

    # ---- finishing
    def build(self) -> Asset:
        """Centre the asset on the bottom of its bounds, texture every part and attach description + metadata."""
        from seed3d.synth.describe import describe

        allv = np.concatenate([p.mesh.vertices for p in self._parts])
        lo, hi = allv.min(axis=0), allv.max(axis=0)
        shift = -np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2]])
        shift = np.where(np.abs(shift) < 1e-12, 0.0, shift)
        materials: dict[tuple[Finish, int], PBRMaterial] = {}
        parts = []
        for spec in self._parts:
            mesh = box_uv(spec.mesh.translated(shift))
            extent = float(np.max(mesh.bounds[1] - mesh.bounds[0]))
            size = 128 if extent > 0.45 else 64
            key = (spec.finish, size)
            if key not in materials:
                tex_rng = rng_for(self.category.name, self.seed,
                                  f"texture/{spec.finish.kind}/{spec.finish.colour}/{size}")
                materials[key] = pbr_material(spec.finish, tex_rng, size)
            phys = physical_material(spec.physical or physical_name(spec.finish))
            pieces = spec.collision
            if pieces is None and is_rectilinear(spec.mesh):
                pieces = rectilinear_boxes(spec.mesh)
            collision = [c.translated(shift) for c in pieces or []]
            parts.append(Part(spec.name, mesh, spec.label, materials[key], phys, collision=collision))
        joints = [dataclasses.replace(j, origin=j.origin + shift) for j in self._joints]
        ext = hi - lo
        self.attributes["size_m"] = {"width": round(float(ext[1]), 3), "depth": round(float(ext[0]), 3),
                                     "height": round(float(ext[2]), 3)}
        self.attributes["parts"] = _label_counts([p.label for p in parts])
        self.attributes["movable_joints"] = _label_counts([j.type for j in joints if j.type != "fixed"])
        attrs = _jsonable(self.attributes)
        text = describe(attrs, rng_for(self.category.name, self.seed, "text"), self.category.nouns)
        metadata = {
            "source": "seed3d.synth", "synth_version": SYNTH_VERSION, "category": self.category.name,
            "seed": self.seed, "description": text, "attributes": attrs,
        }
        return Asset(f"{self.category.name}_{self.seed}", parts, joints, metadata)


def _label_counts(labels: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for lab in labels:
        out[lab] = out.get(lab, 0) + 1
    return dict(sorted(out.items()))


def _jsonable(obj: Any) -> Any:
    """Plain JSON types (numpy scalars → Python, floats rounded to 4 decimals, tuples → lists)."""
    if isinstance(obj, Finish):
        return obj.to_dict()
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return round(float(obj), 4)
    if obj is None or isinstance(obj, str):
        return obj
    raise InvalidInputError(f"attribute value {obj!r} is not JSON-able")
