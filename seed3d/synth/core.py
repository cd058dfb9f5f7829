"""The category registry and ``AssetBuilder``, the shared scaffold every category builder fills in.

A builder adds parts (mesh + label + finish) and joints in the asset frame, records structured attributes,
and ``AssetBuilder.build`` does the rest the same way for every category: box-projected UVs, textured PBR
and physical materials, re-centring on the bottom of the bounding box, the description and metadata.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.asset import Asset, Joint, Mesh, Part, PBRMaterial
from seed3d.errors import InvalidInputError
from seed3d.synth.collision import is_rectilinear, rectilinear_boxes
from seed3d.synth.materials import Finish, any_finish, pbr_material, physical_material, physical_name, pick_finish
from seed3d.synth.primitives import box_uv
from seed3d.typed import FloatArray

logger = logging.getLogger(__name__)

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


#: When a parameter is drawn: before the builder runs, where the builder reaches it, or not at all (its default
#: is worked out by the builder from other parameters, see the parameter's doc).
DRAWS: tuple[str, ...] = ("upfront", "inline", "derived")


@dataclass(frozen=True)
class Param:
    """One documented parameter of a category: its range, how the seed draws it, and what it means.

    Values are a float range ``lo..hi``, an int range (inclusive), a tuple of ``choices``, a flag (True with
    probability ``p``; with two ``choices``, the first with probability ``p``) or a finish (``finish_kinds``:
    the kinds the seed draws from; a user may name any known ``kind:colour``). ``draw`` says when the seed draws
    it (see ``DRAWS``); ``per_item`` parameters hold one value per item (per door, per row) and accept one value
    for all items or a list. ``limits`` widens the range a caller may give beyond the range the seed draws from
    (a cabinet drawn with 0-2 shelves may be given 4).
    """

    lo: float | int | None = None
    hi: float | int | None = None
    choices: tuple[Any, ...] | None = None
    doc: str = ""
    draw: str = "upfront"
    p: float | None = None
    finish_kinds: tuple[str, ...] | None = None
    finish_colours: tuple[str, ...] | None = None
    per_item: bool = False
    limits: tuple[float, float] | None = None

    @property
    def is_flag(self) -> bool:
        """Whether the value is a bool drawn as ``rng.random() < p``."""
        return self.p is not None and self.choices is None

    @property
    def is_finish(self) -> bool:
        """Whether the value is a ``Finish``."""
        return self.finish_kinds is not None

    @property
    def bounds(self) -> tuple[Any, Any]:
        """The range a caller may give: ``limits`` where set, else the range the seed draws from."""
        return self.limits or (self.lo, self.hi)

    def sample(self, rng: np.random.Generator) -> Any:
        """Draw a value (the same generator calls as the builders made before parameters were named)."""
        if self.is_finish:
            return pick_finish(rng, self.finish_kinds, self.finish_colours)  # type: ignore[arg-type]
        if self.is_flag:
            return bool(rng.random() < self.p)  # type: ignore[operator]
        if self.p is not None and self.choices is not None:
            return self.choices[0] if rng.random() < self.p else self.choices[1]
        if self.choices is not None:
            return self.choices[int(rng.integers(len(self.choices)))]
        if isinstance(self.lo, int) and isinstance(self.hi, int):
            return int(rng.integers(self.lo, self.hi + 1))
        return float(rng.uniform(float(self.lo), float(self.hi)))  # type: ignore[arg-type]

    def describe(self) -> str:
        """A short text form, e.g. ``0.4..0.9``, ``bar|knob``, ``true|false`` or ``finish: wood|painted_wood``."""
        if self.is_finish:
            return "finish: " + "|".join(dict.fromkeys(self.finish_kinds or ()))
        if self.is_flag:
            return "true|false"
        if self.choices is not None:
            return "|".join(_text(c) for c in dict.fromkeys(self.choices))
        lo, hi = self.bounds
        return f"{lo}..{hi}"

    def check(self, value: Any, name: str, category: str) -> Any:
        """``value`` (or its text form, as the CLI gives it) as this parameter's type; ``InvalidInputError``
        naming the parameter, its range and the category when it is out of range."""
        if self.per_item and isinstance(value, (list, tuple)):
            if not value:
                raise InvalidInputError(f"{category}: parameter {name!r} got an empty list")
            # None: that item keeps its own value (asset.json writes None for items the parameter skips)
            return [None if v is None else self._check_one(v, name, category) for v in value]
        return self._check_one(value, name, category)

    def _check_one(self, value: Any, name: str, category: str) -> Any:
        def bad(why: str = "") -> InvalidInputError:
            return InvalidInputError(f"{category}: parameter {name!r} must be {self.describe()}"
                                     f"{' (' + self.doc + ')' if self.doc else ''}, got {value!r}{why}")

        if self.is_finish:
            if isinstance(value, Finish):
                return value
            if not isinstance(value, str) or ":" not in value:
                raise bad(": give kind:colour, e.g. wood:oak or brushed_metal:brass")
            kind, colour = (s.strip() for s in value.split(":", 1))
            try:
                return any_finish(kind, colour)
            except KeyError as exc:
                raise bad(f": {exc.args[0]}") from None
        if self.is_flag or (self.choices is not None and all(isinstance(c, bool) for c in self.choices)):
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
            text = str(value).strip().lower()
            if text in ("true", "yes", "1", "on"):
                return True
            if text in ("false", "no", "0", "off"):
                return False
            raise bad()
        if self.choices is not None:
            for c in self.choices:
                if value == c or (isinstance(value, str) and value.strip() == _text(c)):
                    return c
            raise bad()
        integral = isinstance(self.lo, int) and isinstance(self.hi, int)
        try:
            number = float(value) if not isinstance(value, bool) else float("nan")
        except (TypeError, ValueError):
            raise bad() from None
        lo, hi = self.bounds
        if not np.isfinite(number) or not (float(lo) <= number <= float(hi)):  # type: ignore[arg-type]
            raise bad()
        if integral:
            if number != int(number):
                raise bad()
            return int(number)
        return number


def _text(value: Any) -> str:
    """A parameter value as the CLI writes it (``true``, ``2``, ``wood:oak``)."""
    if isinstance(value, Finish):
        return f"{value.kind}:{value.colour}"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def frange(lo: float, hi: float, doc: str = "", draw: str = "upfront", per_item: bool = False,
           limits: tuple[float, float] | None = None) -> Param:
    """A float parameter drawn uniformly from [lo, hi] (a caller may give any value within ``limits``)."""
    return Param(float(lo), float(hi), doc=doc, draw=draw, per_item=per_item, limits=limits)


def irange(lo: int, hi: int, doc: str = "", draw: str = "upfront", per_item: bool = False,
           limits: tuple[int, int] | None = None) -> Param:
    """An integer parameter drawn uniformly from lo..hi inclusive (a caller may give any within ``limits``)."""
    return Param(int(lo), int(hi), doc=doc, draw=draw, per_item=per_item, limits=limits)


def choice(*options: Any, doc: str = "", draw: str = "upfront", per_item: bool = False) -> Param:
    """A parameter drawn uniformly from ``options`` (a repeated option is drawn more often)."""
    return Param(choices=tuple(options), doc=doc, draw=draw, per_item=per_item)


def flag(p: float, doc: str = "", draw: str = "inline", per_item: bool = False) -> Param:
    """A bool parameter, True with probability ``p`` (drawn as ``rng.random() < p``)."""
    return Param(p=float(p), doc=doc, draw=draw, per_item=per_item)


def either(first: Any, second: Any, p: float = 0.5, doc: str = "", draw: str = "inline",
           per_item: bool = False) -> Param:
    """One of two values, ``first`` with probability ``p`` (drawn as ``rng.random() < p``)."""
    return Param(choices=(first, second), p=float(p), doc=doc, draw=draw, per_item=per_item)


def finish_param(kinds: tuple[str, ...] | str, colours: tuple[str, ...] | None = None, doc: str = "",
                 draw: str = "inline") -> Param:
    """A finish drawn from ``kinds`` (and ``colours``, when given); any known ``kind:colour`` may be given."""
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    return Param(finish_kinds=kinds, finish_colours=colours, doc=doc, draw=draw)


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
    mount: str = "floor"
    """Where the object is used: ``"floor"`` (it stands on the ground, a table or a shelf), ``"wall"`` (screwed
    to a wall: a clock, a light switch, a window; the validator holds its root fixed, scenes hang it) or
    ``"ceiling"`` (hung from the ceiling: a pendant lamp, its top the highest point; the validator holds its root
    fixed, as for ``"wall"``)."""

    def summary(self) -> str:
        """One line: name, description and parameters with their ranges."""
        params = ", ".join(f"{k}={p.describe()}" for k, p in self.params.items())
        return f"{self.name}: {self.description} [{params}]"

    def help(self) -> str:
        """Several lines: the summary's first part, then one line per parameter with its range and doc."""
        lines = [f"{self.name}: {self.description}"]
        for k, prm in self.params.items():
            how = {"upfront": "", "inline": "", "derived": " (default worked out from the others)"}[prm.draw]
            each = " (one per item, or a list)" if prm.per_item else ""
            lines.append(f"  {k} = {prm.describe()}{each}{how}{' — ' + prm.doc if prm.doc else ''}")
        return "\n".join(lines)

    def check_params(self, params: dict[str, Any] | None) -> dict[str, Any]:
        """``params`` with each value checked against its range and converted to its type.

        Raises ``InvalidInputError`` naming the category and the parameter (an unknown name lists the known).
        """
        out: dict[str, Any] = {}
        for name, value in (params or {}).items():
            if name not in self.params:
                raise InvalidInputError(f"{self.name} has no parameter {name!r}; its parameters: "
                                        f"{', '.join(self.params)}")
            out[name] = self.params[name].check(value, name, self.name)
        return out


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

    def __init__(self, category: Category, seed: int, params: dict[str, Any] | None = None) -> None:
        self.category = category
        self.seed = int(seed)
        self._rng = rng_for(category.name, seed)  # private: builders read parameters, never draw
        self.given: dict[str, Any] = category.check_params(params)
        self._used: set[str] = set()
        #: every parameter value the build read, in the order it read them (per-item ones as lists)
        self.values: dict[str, Any] = {}
        self.p: dict[str, Any] = {}
        for k, prm in category.params.items():
            if prm.draw == "upfront":
                self.p[k] = self._take(k, prm.sample(self._rng))
        self.attributes: dict[str, Any] = {"category": category.name}
        self._parts: list[_PartSpec] = []
        self._joints: list[Joint] = []

    # ---- parameters
    def _take(self, name: str, value: Any, item: int | None = None, record: bool = True) -> Any:
        """The given value of ``name`` (for ``item``) if there is one, else ``value``; recorded when given or
        ``record``."""
        if name in self.given:
            self._used.add(name)
            given = self.given[name]
            if isinstance(given, list):
                pick = given[min(item, len(given) - 1)] if item is not None else given[0]
                value = value if pick is None else pick
            else:
                value = given
        if value is None:  # not applicable to this build
            return None
        if not record and name not in self.given:
            return value
        if item is None:
            self.values[name] = value
        else:
            seq = self.values.setdefault(name, [])
            seq.extend([None] * (item + 1 - len(seq)))
            seq[item] = value
        return value

    def draw(self, name: str, item: int | None = None, when: bool = True, otherwise: Any = None) -> Any:
        """The value of the inline parameter ``name`` (for ``item`` of a per-item one).

        Where ``when`` holds the seed draws it here (always, so a given value does not shift later draws) and a
        given value replaces the draw; where it does not, nothing is drawn and the value is the given one, else
        ``otherwise``, which follows from other parameters and so is not recorded as this one's value.
        """
        prm = self.category.params[name]
        if prm.draw != "inline":
            raise ValueError(f"{self.category.name}.{name} is drawn {prm.draw}, not inline")
        return self._take(name, prm.sample(self._rng) if when else otherwise, item, record=when)

    def derive(self, name: str, value: Any, item: int | None = None) -> Any:
        """The value of the derived parameter ``name``: ``value`` (worked out by the builder) unless given."""
        prm = self.category.params[name]
        if prm.draw != "derived":
            raise ValueError(f"{self.category.name}.{name} is drawn {prm.draw}, not derived")
        return self._take(name, value, item)

    def is_given(self, name: str) -> bool:
        """Whether the caller gave ``name`` (a builder honours a given count even where its draw would not)."""
        return name in self.given

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
            "seed": self.seed, "description": text, "attributes": attrs, "mount": self.category.mount,
            "params": {k: _param_json(self.values[k]) for k in self.category.params if k in self.values},
            "params_given": sorted(self.given),
        }
        unused = sorted(set(self.given) - self._used)
        if unused:
            logger.warning("%s seed %d: parameter(s) %s do not apply to this build and were not used",
                           self.category.name, self.seed, ", ".join(unused))
            metadata["params_unused"] = unused
        return Asset(f"{self.category.name}_{self.seed}", parts, joints, metadata)


def _param_json(value: Any) -> Any:
    """A parameter value in asset.json: finishes as ``kind:colour``, lists item by item."""
    if isinstance(value, list):
        return [_param_json(v) for v in value]
    if isinstance(value, Finish):
        return _text(value)
    if isinstance(value, (float, np.floating)) and not isinstance(value, bool):
        return float(value)  # full precision: the recorded set rebuilds the same asset
    return _jsonable(value)


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
