"""Functional checks: does every movable joint do what a joint of its kind does?

The physics checks of ``seed3d.physics.validate`` prove an asset is consistent (it loads, rests, its parts do
not overlap); these prove it works. Each movable joint gets a *kind* from its type and its child's label
(``joint_kind``: a revolute door is a ``door``, a prismatic drawer a ``drawer``, a continuous knob a ``dial``...)
and ``KIND_RULES`` say what that kind needs. ``check_asset(asset)`` runs five checks, each pass | warn | fail |
skip with the numbers behind it:

- ``functional.travel``: the joint's range is at least what its kind needs (a door or lid opens at least 60°, a
  drawer slides at least 40 % of its depth along the axis, a button moves at least 2 mm; continuous joints turn
  all the way and pass).
- ``functional.axis``: the axis lies along an edge or face normal of the moving part (an axis of its
  axis-aligned or principal-axes box, within ``axis_fail_deg``; beyond ``axis_warn_deg`` warns); a hinged
  panel turns about one of its edges (not along its thickness, and the hinge line near an edge, not through its
  middle), a drawer slides level, a round part (wheel, dial, cap) turns about its axis of roundness.
- ``functional.share``: the moving part (the joint's whole subtree) is a plausible share of the object's mass
  (no 1.5 g "door" on a microwave, no "lid" that is most of the box; under ``share_warn`` times the floor warns).
- ``functional.free_space``: swept over its range in ``sweep_steps`` steps (a full turn for continuous joints),
  the moving part's solids (its closed mesh, else its collision hulls) do not pass through the rest of the
  object: the volume they share with the other parts grows by less than ``free_space_share`` of the moving
  volume (and ``free_space_volume``) over what it was at rest.
- ``functional.kinds``: for an asset that knows its category (asset.json metadata ``category``,
  ``program.category`` or ``attributes.category``), every joint's kind is one the category has
  (``CATEGORY_KINDS``: a mug has no drawer) and the kinds it always has are there (a microwave has a door); where
  the metadata counts the parts it was asked for (``attributes.parts``), as many of them move ("asked for two
  doors, found none").

``check_joints`` is the lower bar for a file without asset.json (a URDF or MJCF from elsewhere): travel from the
limits with the kind guessed from the child's name, and the mass share from the file's inertials.
``joint_verdicts`` gives the same findings joint by joint (the articulation stage fuses a part whose joint fails
them into its parent). The thresholds were measured on the synthetic test split (``eval/bench_functional.py``,
``eval/results/functional.json``): every synthetic asset passes them all.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.asset import Asset, Mesh, joint_motion
from seed3d.physics import _geometry as geo
from seed3d.physics.inertia import mass_properties
from seed3d.typed import FloatArray

__all__ = [
    "CATEGORY_KINDS", "CHECKS", "COUNTED_LABELS", "KIND_RULES", "CategoryKinds", "FunctionalConfig",
    "FunctionalReport", "FunctionalResult", "JointInfo", "KindRule", "asked_for", "category_of", "check_asset",
    "check_joints", "joint_kind", "joint_verdicts",
]

#: The checks, in report order.
CHECKS: tuple[str, ...] = ("travel", "axis", "share", "free_space", "kinds")

_Z = np.array([0.0, 0.0, 1.0])


# --------------------------------------------------------------------------------------------- kinds


@dataclass(frozen=True)
class KindRule:
    """What a kind of movable joint needs: its travel, how its axis sits on its part, its share of the object."""

    min_travel: float = 0.0
    """Smallest range (rad for revolute, m for prismatic; continuous joints turn all the way)."""
    min_travel_ratio: float = 0.0
    """Prismatic: smallest range as a share of the moving part's extent along the axis (a drawer's depth)."""
    hinge_edge: bool = False
    """A hinged panel: the axis runs along one of its edges, not along its thickness or through its middle."""
    level: bool = False
    """Slides horizontally (a drawer, a sliding lid)."""
    round: bool = False
    """Turns about its axis of roundness (a wheel, a dial, a cap): the part is as wide one way as the other."""
    min_share: float = 0.0
    """Smallest mass share of the moving subtree in the whole object."""
    max_share: float = 0.9
    """Largest mass share of the moving subtree (the rest must be more than a sliver)."""
    doc: str = ""


_DEG = math.pi / 180.0

#: Rules per kind. Travel needs are what an object of the kind needs to be used (a door you can reach through,
#: a drawer you can take things out of, a button that clicks, a pedal that lifts a lid); the synthetic test split
#: sits above every one (540 assets, ``eval/bench_functional.py``: doors 90-114°, lids
#: 87-111°, laptop screens 120-139°, drawers 66-73 % of their depth, telescoping handles 70 %, buttons 3 mm,
#: levers and pedals 17-90°, lamp arms 52-63°, spouts 103-137°). Ratio kinds also need an absolute 2 cm (what a
#: file without meshes is held to). Mass-share floors are about a quarter of the smallest share the split shows
#: for the kind (doors 2.1 % on a six-door wardrobe, drawers 1.0 % in a 24-drawer dresser, lids 4.8 %, screw caps
#: 0.75 %, laptop screens 26 %, turntables 5.1 %, telescoping handles 1.5 %, lamp arms 3.0 %): a sliver cut off
#: a panel or a 1 g "door" fails while every real panel passes; fittings (buttons, dials, levers, wheels) have
#: no floor (a 2 g button on a 60 kg washing machine is real). No moving part is more than 90 % of the object
#: (the split's largest: a door leaf in its frame, 67 %), but a swivel seat carries most of a chair (82 %).
KIND_RULES: dict[str, KindRule] = {
    "door": KindRule(min_travel=60 * _DEG, hinge_edge=True, min_share=0.005, doc="a hinged door opens at least 60°"),
    "lid": KindRule(min_travel=60 * _DEG, hinge_edge=True, min_share=0.01, doc="a hinged lid opens at least 60°"),
    "screen": KindRule(min_travel=60 * _DEG, hinge_edge=True, min_share=0.05,
                       doc="a laptop screen opens at least 60°"),
    "drawer": KindRule(min_travel=0.02, min_travel_ratio=0.4, level=True, min_share=0.0025,
                       doc="a drawer slides level at least 40 % of its depth"),
    "sliding_lid": KindRule(min_travel=0.02, min_travel_ratio=0.4, level=True, min_share=0.01,
                            doc="a sliding lid slides level at least 40 % of its length"),
    "sliding_door": KindRule(min_travel=0.02, min_travel_ratio=0.4, level=True, min_share=0.005,
                             doc="a sliding door slides level at least 40 % of its width"),
    "lifting_lid": KindRule(min_travel=0.03, min_share=0.01,
                            doc="a lid that lifts straight up off its rim (a pot's) rises at least 3 cm"),
    "telescope": KindRule(min_travel=0.02, min_travel_ratio=0.4, min_share=0.004,
                          doc="a telescoping handle extends at least 40 % of its length"),
    "button": KindRule(min_travel=0.002, doc="a push button moves at least 2 mm"),
    "lever": KindRule(min_travel=10 * _DEG, doc="a lever, pedal or turning handle turns at least 10°"),
    "spout": KindRule(min_travel=30 * _DEG, doc="a swivel spout swings at least 30°"),
    "arm": KindRule(min_travel=20 * _DEG, min_share=0.0075, doc="a tilting arm or shade tilts at least 20°"),
    "dial": KindRule(round=True, doc="a dial turns about its axis"),
    "wheel": KindRule(round=True, doc="a wheel spins about its axle"),
    "cap": KindRule(round=True, min_share=0.002, doc="a screw cap turns about its axis"),
    "turntable": KindRule(round=True, min_share=0.01, doc="a turntable turns about its axis"),
    "swivel": KindRule(max_share=1.0, doc="a swivel seat turns about its post"),
    # parts of no known kind (a robot's links among them) are held to a small travel only
    "spin": KindRule(max_share=1.0, doc="a part that turns all the way round"),
    "hinge": KindRule(min_travel=10 * _DEG, max_share=1.0, doc="a hinged part of no known kind turns at least 10°"),
    "slider": KindRule(min_travel=0.005, max_share=1.0, doc="a sliding part of no known kind slides at least 5 mm"),
}

#: Kind by (joint type, child label); any other label gives the type's generic kind (``_GENERIC``).
_KIND_BY_LABEL: dict[str, dict[str, str]] = {
    "revolute": {"door": "door", "lid": "lid", "screen": "screen", "handle": "lever", "lever": "lever", "knob": "lever",
                 "button": "lever", "spout": "spout", "arm": "arm", "shade": "arm"},
    "prismatic": {"drawer": "drawer", "tray": "drawer", "lid": "sliding_lid", "door": "sliding_door",
                  "button": "button", "knob": "button", "handle": "telescope"},
    "continuous": {"knob": "dial", "button": "dial", "wheel": "wheel", "lid": "cap", "tray": "turntable",
                   "seat": "swivel"},
}
_GENERIC = {"revolute": "hinge", "prismatic": "slider", "continuous": "spin"}

#: Words in a link or joint name that tell its label in a file without labels (checked in this order).
_NAME_LABELS = ("drawer", "door", "lid", "cap", "screen", "button", "knob", "dial", "wheel", "handle", "lever",
                "spout", "tray", "seat")
_NAME_ALIASES = {"cap": "lid", "dial": "knob"}


def joint_kind(joint_type: str, label: str, axis: FloatArray | None = None) -> str:
    """The kind of a movable joint from its type and its child's label (``door``, ``drawer``, ``dial``...); given
    its ``axis``, a prismatic lid that slides within 45° of vertical is a ``lifting_lid`` (a pot's)."""
    if joint_type == "prismatic" and label == "lid" and axis is not None and abs(float(axis[2])) > math.sqrt(0.5):
        return "lifting_lid"
    return _KIND_BY_LABEL.get(joint_type, {}).get(label, _GENERIC.get(joint_type, "fixed"))


def _label_from_name(name: str) -> str:
    """The label a link name tells by one of its words (``left_door``, ``drawer2``), else ``other``."""
    words = {w.removesuffix("s") for w in re.split(r"[^a-z]+", name.lower()) if w}
    for word in _NAME_LABELS:
        if word in words:
            return _NAME_ALIASES.get(word, word)
    return "other"


@dataclass(frozen=True)
class CategoryKinds:
    """The movable kinds a category has: ``expected`` groups (each needs a joint of one of its kinds) and the
    ``allowed`` kinds (anything else is not one the category has)."""

    expected: tuple[tuple[str, ...], ...]
    allowed: frozenset[str]


def _ck(expected: Sequence[str | tuple[str, ...]], allowed: Sequence[str]) -> CategoryKinds:
    groups = tuple((e,) if isinstance(e, str) else tuple(e) for e in expected)
    return CategoryKinds(groups, frozenset(allowed) | {k for g in groups for k in g})


#: Per ``seed3d.synth`` category: the movable kinds every instance has and the kinds it may have, from each
#: category's builder and parameters (a cabinet always has doors and may have drawers; a box's lid is hinged or
#: slides; a trash can's lid is optional, its pedal a lever; a mug, bowl or vase has nothing that moves).
CATEGORY_KINDS: dict[str, CategoryKinds] = {
    "cabinet": _ck(["door"], ["drawer"]),
    "wardrobe": _ck(["door"], ["drawer"]),
    "nightstand": _ck(["drawer"], ["door"]),
    "dresser": _ck(["drawer"], []),
    "bookshelf": _ck([], ["door"]),
    "refrigerator": _ck(["door"], ["drawer"]),
    "microwave": _ck(["door", "turntable"], ["dial", "button"]),
    "oven": _ck(["door"], ["dial", "button", "drawer"]),
    "dishwasher": _ck(["door"], ["dial", "button"]),
    "washing_machine": _ck(["door", "spin", "drawer"], ["dial", "button"]),
    "box": _ck([("lid", "sliding_lid")], []),
    "trash_can": _ck([], ["lid", "lever"]),
    "jar": _ck(["cap"], []),
    "bottle": _ck(["cap"], []),
    "mug": _ck([], []),
    "bowl": _ck([], []),
    "vase": _ck([], []),
    "table": _ck([], ["drawer"]),
    "chair": _ck([], ["swivel", "wheel"]),
    "stool": _ck([], ["swivel"]),
    "lamp": _ck([], ["button", "arm"]),
    "laptop": _ck(["screen"], []),
    "faucet": _ck(["lever"], ["spout"]),
    "door": _ck(["door"], ["lever"]),
    "toolbox": _ck(["lid"], ["drawer"]),
    "suitcase": _ck(["wheel", "telescope"], []),
    "freeform": _ck([], ["dial", "slider", "lid"]),
    # handheld tools and small devices (seed3d.synth.tools): a turning half of scissors and pliers is a lever,
    # a temple and a stapler's arm tilt, a pen clicks or its cap slides off, a pocket knife's blade swings out
    "scissors": _ck(["lever"], []),
    "pliers": _ck(["lever"], []),
    "eyeglasses": _ck(["arm"], []),
    "stapler": _ck(["arm"], []),
    "pen": _ck([("button", "sliding_lid")], []),
    "knife": _ck(["hinge"], []),
    "usb": _ck([("sliding_lid", "hinge")], []),
    "lighter": _ck(["wheel", "button"], []),
    "remote": _ck(["button"], []),
    "phone": _ck(["screen"], []),
    "mouse": _ck(["button", "wheel"], []),
    "switch": _ck(["lever"], []),
    "keyboard": _ck(["button"], []),
    # household appliances and fixtures (seed3d.synth.household): a bucket's bail is a turning handle, a toaster's
    # carriage lever slides, a toilet seat is a hinged part of no panel kind, globes, clocks and fan blades spin
    "bucket": _ck(["lever"], []),
    "kettle": _ck(["lid", "lever"], []),
    "toaster": _ck(["slider", "dial", "button"], []),
    "safe": _ck(["door", "dial", "lever"], []),
    "toilet": _ck(["lid", "hinge", ("lever", "button")], []),
    "globe": _ck(["spin"], []),
    "clock": _ck(["spin"], []),
    "fan": _ck(["spin", "hinge"], []),
    "display": _ck(["hinge"], []),
    "printer": _ck(["lid", "drawer", "button"], []),
    "dispenser": _ck(["button"], []),
    "camera": _ck(["hinge", "spin", "button", "dial"], []),
    "coffee_machine": _ck(["lid", "drawer", "button"], []),
    "window": _ck([("door", "sliding_door")], ["lever"]),
    "cart": _ck(["wheel"], ["spin"]),
    # the last two PartNet-Mobility classes (seed3d.synth.partnet): a pot's lid lifts straight up, a folding
    # chair's seat is a hinged part of no panel kind
    "kitchen_pot": _ck(["lifting_lid"], []),
    "folding_chair": _ck(["hinge"], []),
    # room furniture (seed3d.synth.rooms)
    "bed": _ck([], ["drawer"]),
    "sofa": _ck([], []),
    "armchair": _ck([], []),
    "desk": _ck([], ["drawer", "door"]),
    "tv_stand": _ck([("door", "drawer")], []),
    "vanity": _ck([("door", "drawer"), "lever"], []),
    "bathtub": _ck(["lever", "button"], []),
    "towel_rack": _ck([], ["arm"]),
    "coat_rack": _ck([], []),
    "kitchen_counter": _ck(["door", "lever"], ["drawer"]),
    # lamps, hood, curtains and rug (seed3d.synth.decor): a floor lamp's foot switch and an arc lamp's tilting head,
    # a pendant swinging under its canopy, a hood's buttons and grease filters (hinged panels) and its slide-out
    # visor, curtain panels sliding on their rod; a rug has nothing that moves
    "floor_lamp": _ck(["button"], ["arm"]),
    "ceiling_lamp": _ck(["arm"], []),
    "range_hood": _ck(["button", "hinge"], ["slider"]),
    "curtain_rod": _ck(["slider"], []),
    "rug": _ck([], []),
}

#: Part labels whose count in ``metadata.attributes.parts`` is a count of moving parts asked for (each such part
#: of a synthetic asset moves).
COUNTED_LABELS: tuple[str, ...] = ("door", "drawer", "lid", "screen", "wheel", "button")


def category_of(metadata: dict[str, Any]) -> tuple[str | None, str]:
    """The asset's category and where it was found (``metadata.category``, ``metadata.program.category`` or
    ``metadata.attributes.category``); ``(None, "")`` when it knows none."""
    for where, doc in (("metadata.category", metadata),
                       ("metadata.program.category", metadata.get("program")),
                       ("metadata.attributes.category", metadata.get("attributes"))):
        if isinstance(doc, dict) and isinstance(doc.get("category"), str) and doc["category"]:
            return doc["category"], where
    return None, ""


def asked_for(metadata: dict[str, Any]) -> dict[str, int]:
    """Moving parts the metadata says the asset has, by label (``attributes.parts`` counts of door, drawer, ...)."""
    attrs = metadata.get("attributes")
    parts = attrs.get("parts") if isinstance(attrs, dict) else None
    if not isinstance(parts, dict):
        return {}
    return {lab: int(n) for lab, n in parts.items() if lab in COUNTED_LABELS and isinstance(n, int) and n > 0}


# --------------------------------------------------------------------------------------------- results


@dataclass
class FunctionalConfig:
    """Tolerances of the functional checks (the kind rules are ``KIND_RULES``)."""

    axis_warn_deg: float = 3.0
    """An axis further than this (deg) from every edge and face normal of its part warns."""
    axis_fail_deg: float = 10.0
    """An axis further than this (deg) from every edge and face normal of its part fails."""
    hinge_edge_share: float = 0.2
    """A hinge line may lie this share of the panel's width (across the axis) from the panel's nearest edge."""
    level_deg: float = 10.0
    """A drawer (sliding lid or door) may slide this many degrees off level."""
    round_ratio: float = 0.8
    """A round part's two extents across its axis differ by at most this ratio (smaller over larger)."""
    sweep_steps: int = 6
    """Joint values the free-space sweep tries across the range (a full turn for continuous joints)."""
    free_space_share: float = 0.005
    """Largest growth of the volume the moving part shares with the rest, as a share of its own volume (the
    synthetic split: 0 on every joint; broken copies of its assets: a door opening inward 35-76 %, a drawer
    sliding into the carcass's back 6 %, a door hinged through its middle 0.9-39 %)."""
    free_space_volume: float = 2e-6
    """Growth of the shared volume (m³) below which a sweep always passes (2 cm³: mesh noise and the
    tessellation of round parts, far below any panel passing through another)."""
    share_warn: float = 2.0
    """A mass share under this many times its kind's floor warns."""


@dataclass
class FunctionalResult:
    """One functional check's outcome: ``status`` pass | warn | fail | skip, a message and the numbers."""

    name: str
    status: str
    message: str
    numbers: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass
class JointInfo:
    """A movable joint as the checks see it: kind, unit axis and pivot in the object frame at rest, range."""

    name: str
    type: str
    child: str
    label: str
    kind: str
    axis: FloatArray
    origin: FloatArray
    lower: float
    upper: float

    @property
    def travel(self) -> float:
        """The range (rad or m); a full turn for continuous joints."""
        return 2 * math.pi if self.type == "continuous" else float(self.upper - self.lower)


@dataclass
class FunctionalReport:
    """The functional checks of one asset: category (and where it came from), results and per-joint findings."""

    category: str | None
    category_source: str
    results: list[FunctionalResult]
    joints: dict[str, dict[str, Any]]
    """Per movable joint: kind, the numbers behind each check and ``failed`` (the checks it fails)."""
    missing: list[str] = field(default_factory=list)
    """Expected moving parts that are not there ("asked for two doors, found none")."""

    @property
    def passed(self) -> bool:
        """True when no functional check failed."""
        return all(r.status != "fail" for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (results as check dicts)."""
        return {"passed": self.passed, "category": self.category, "category_source": self.category_source,
                "missing": list(self.missing), "joints": self.joints,
                "checks": [{"name": r.name, "status": r.status, "message": r.message, "numbers": r.numbers,
                            "seconds": round(r.seconds, 4)} for r in self.results]}


def _fmt(value: float, angular: bool) -> str:
    return f"{math.degrees(value):.0f}°" if angular else f"{value * 1000:.1f} mm"


def _verdict(name: str, problems: list[str], warnings: list[str], ok: str, numbers: dict[str, Any],
             most: int = 4) -> FunctionalResult:
    """Fail listing the first ``most`` problems, else warn listing the warnings, else pass with ``ok``."""
    def listed(items: list[str]) -> str:
        more = f" (and {len(items) - most} more)" if len(items) > most else ""
        return "; ".join(items[:most]) + more

    if problems:
        return FunctionalResult(name, "fail", listed(problems), {**numbers, "problems": len(problems)})
    if warnings:
        return FunctionalResult(name, "warn", listed(warnings) + f" ({ok})", {**numbers, "warnings": len(warnings)})
    return FunctionalResult(name, "pass", ok, numbers)


_WORDS = ("none", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _count(n: int, noun: str) -> str:
    word = _WORDS[n] if 0 <= n < len(_WORDS) else str(n)
    return word if n == 0 else f"{word} {noun}{'s' if n != 1 else ''}"


# --------------------------------------------------------------------------------------------- geometry


def _frames(points: FloatArray) -> list[tuple[str, FloatArray, FloatArray, FloatArray]]:
    """(name, axes as rows, extents, centre) of the axis-aligned box and the principal-axes box of ``points``."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    out = [("box", np.eye(3), hi - lo, (lo + hi) / 2)]
    if len(points) >= 4:
        centre, axes, extents = geo.pca_box(points, 1e-9)
        out.append(("principal axes", axes, extents, centre))
    return out


def _axis_fit(axis: FloatArray, points: FloatArray) -> tuple[float, str, FloatArray, FloatArray, FloatArray, int]:
    """Angle (rad) from ``axis`` to the nearest edge / face normal of the part's boxes, with that box
    (name, axes, extents, centre) and the index of the box axis it lies along."""
    best: tuple[float, str, FloatArray, FloatArray, FloatArray, int] | None = None
    for name, axes, extents, centre in _frames(points):
        cosines = np.abs(axes @ axis)
        k = int(np.argmax(cosines))
        angle = math.acos(float(np.clip(cosines[k], -1.0, 1.0)))
        if best is None or angle < best[0] - 1e-9:
            best = (angle, name, axes, extents, centre, k)
    assert best is not None
    return best


def _hinge_offset(origin: FloatArray, axes: FloatArray, extents: FloatArray, centre: FloatArray,
                  k: int) -> tuple[float, float]:
    """(distance from the hinge line to the nearest box edge along axis ``k``, the panel's width across the axis)."""
    across = [i for i in range(3) if i != k]
    rel = axes @ (origin - centre)
    half = extents / 2
    d = math.hypot(*(abs(abs(float(rel[i])) - float(half[i])) for i in across))
    width = float(max(extents[i] for i in across))
    return d, width


def _solid(mesh: Mesh) -> Any | None:
    """A manifold3d solid of a closed mesh (welded), or None when it is not one."""
    if not len(mesh.faces):
        return None
    try:
        solid = mesh.welded().to_manifold()
    except Exception:
        return None
    ok = str(solid.status()).endswith("NoError")
    return solid if ok and solid.volume() > 0 else None


def _part_solids(asset: Asset) -> tuple[dict[str, list[Any]], dict[str, str]]:
    """Per part: its closed mesh as one solid, else its collision hulls; and which was used."""
    solids: dict[str, list[Any]] = {}
    used: dict[str, str] = {}
    for p in asset.parts:
        whole = _solid(p.mesh)
        if whole is not None:
            solids[p.name], used[p.name] = [whole], "mesh"
            continue
        hulls = [s for s in (_solid(h) for h in p.collision) if s is not None]
        if not hulls:
            hull = geo.convex_hull(p.mesh.vertices) if len(p.mesh.vertices) >= 4 else None
            if hull is not None:
                s = _solid(Mesh(*hull))
                hulls = [s] if s is not None else []
        solids[p.name], used[p.name] = hulls, "hulls" if p.collision else "convex hull"
    return solids, used


def _bounds(solids: list[Any]) -> FloatArray | None:
    if not solids:
        return None
    boxes = np.array([s.bounding_box() for s in solids])  # (n, 6): min xyz, max xyz
    return np.stack([boxes[:, :3].min(axis=0), boxes[:, 3:].max(axis=0)])


def _moved_bounds(b: FloatArray, m: FloatArray) -> FloatArray:
    corners = np.array([[b[i, 0], b[j, 1], b[k, 2]] for i in (0, 1) for j in (0, 1) for k in (0, 1)])
    moved = corners @ m[:3, :3].T + m[:3, 3]
    return np.stack([moved.min(axis=0), moved.max(axis=0)])


def _shared(a: list[Any], b: list[Any], m: FloatArray, ab: FloatArray, bb: FloatArray) -> float:
    """Volume the solids ``a`` moved by ``m`` share with the solids ``b``."""
    moved = _moved_bounds(ab, m)
    if np.any(np.minimum(moved[1], bb[1]) <= np.maximum(moved[0], bb[0])):
        return 0.0
    m34 = np.ascontiguousarray(m[:3, :4])
    total = 0.0
    for s in a:
        t = s.transform(m34)
        for o in b:
            total += float((t ^ o).volume())
    return total


def _masses(asset: Asset) -> dict[str, float]:
    """Mass (kg) per part: its inertial, else its closed mesh (or collision hulls, or convex hull) × density."""
    out: dict[str, float] = {}
    for p in asset.parts:
        if p.inertial is not None:
            out[p.name] = float(p.inertial.mass)
            continue
        v, f = geo.weld(p.mesh.vertices, p.mesh.faces)
        if len(f) and geo.is_closed(f, len(v)):
            mass = abs(mass_properties(v, f, p.physical.density)[0])
            if mass > 0:
                out[p.name] = mass
                continue
        volume = sum(abs(geo.signed_volume(h.vertices, h.faces)) for h in p.collision)
        if volume <= 0 and len(p.mesh.vertices) >= 4:
            hull = geo.convex_hull(p.mesh.vertices)
            volume = abs(geo.signed_volume(*hull)) if hull is not None else 0.0
        out[p.name] = volume * p.physical.density
    return out


# --------------------------------------------------------------------------------------------- checks


def _joints_of(asset: Asset) -> list[JointInfo]:
    out = []
    for j in asset.joints:
        if not j.movable:
            continue
        n = float(np.linalg.norm(j.axis))
        axis = j.axis / n if np.isfinite(n) and n > 1e-12 else np.full(3, np.nan)
        label = asset.part(j.child).label
        out.append(JointInfo(j.name, j.type, j.child, label, joint_kind(j.type, label, axis), axis, j.origin.copy(),
                             j.lower, j.upper))
    return out


def _travel(joints: list[JointInfo], extents: dict[str, float], numbers: dict[str, dict[str, Any]]
            ) -> FunctionalResult:
    problems: list[str] = []
    for j in joints:
        rule = KIND_RULES[j.kind]
        row = numbers[j.name]
        if j.type == "continuous":
            row["travel"] = "full turn"
            continue
        angular = j.type == "revolute"
        need = rule.min_travel
        why = ""
        if rule.min_travel_ratio and not angular:
            extent = extents.get(j.name, float("nan"))
            row["extent_along_axis"] = extent
            if math.isfinite(extent) and extent > 0:
                need = max(need, rule.min_travel_ratio * extent)
                why = f" ({rule.min_travel_ratio:.0%} of its {extent * 1000:.0f} mm along the axis)"
        row["travel"], row["travel_needed"] = j.travel, need
        if not math.isfinite(j.travel) or j.travel < need - 1e-9:
            row["failed"].append("travel")
            problems.append(f"{j.name} ({j.kind}) moves {_fmt(j.travel, angular)}, needs "
                            f"{_fmt(need, angular)}{why}")
    margins = [numbers[j.name]["travel"] / numbers[j.name]["travel_needed"] for j in joints
               if j.type != "continuous" and numbers[j.name]["travel_needed"] > 0]
    ok = f"{len(joints)} movable joints move as far as their kinds need" + (
        f" (least margin {min(margins):.1f}×)" if margins else "")
    return _verdict("functional.travel", problems, [], ok, {"joints": len(joints)})


def _axis(asset: Asset, joints: list[JointInfo], cfg: FunctionalConfig, numbers: dict[str, dict[str, Any]]
          ) -> FunctionalResult:
    problems: list[str] = []
    warnings: list[str] = []
    worst = 0.0
    for j in joints:
        row = numbers[j.name]
        if not np.all(np.isfinite(j.axis)):
            row["failed"].append("axis")
            problems.append(f"{j.name}: axis is zero or not finite")
            continue
        points = asset.part(j.child).mesh.vertices
        if len(points) < 1:
            row["failed"].append("axis")
            problems.append(f"{j.name}: its part {j.child!r} has no mesh")
            continue
        angle, frame, axes, extents, centre, k = _axis_fit(j.axis, points)
        deg = math.degrees(angle)
        worst = max(worst, deg)
        row["axis_off_deg"] = round(deg, 2)
        row["axis_frame"] = frame
        if deg > cfg.axis_fail_deg:
            row["failed"].append("axis")
            problems.append(f"{j.name} ({j.kind}): axis {np.round(j.axis, 3).tolist()} is {deg:.0f}° from every edge "
                            f"and face normal of {j.child!r}")
            continue
        if deg > cfg.axis_warn_deg:
            warnings.append(f"{j.name}: axis {deg:.1f}° off {j.child!r}'s {frame}")
        rule = KIND_RULES[j.kind]
        before = len(problems)
        if rule.hinge_edge:
            d, width = _hinge_offset(j.origin, axes, extents, centre, k)
            row["hinge_from_edge"], row["panel_width"] = d, width
            if k == int(np.argmin(extents)):
                problems.append(f"{j.name} ({j.kind}): the hinge runs across {j.child!r}, along its "
                                f"{extents[k] * 1000:.0f} mm thickness, not along an edge")
            elif d > cfg.hinge_edge_share * width:
                problems.append(f"{j.name} ({j.kind}): the hinge line is {d * 1000:.0f} mm from {j.child!r}'s nearest "
                                f"edge ({d / width:.0%} of its {width * 1000:.0f} mm width; at most "
                                f"{cfg.hinge_edge_share:.0%})")
        if rule.level:
            tilt = math.degrees(math.asin(min(1.0, abs(float(j.axis @ _Z)))))
            row["off_level_deg"] = round(tilt, 2)
            if tilt > cfg.level_deg:
                problems.append(f"{j.name} ({j.kind}): slides {tilt:.0f}° off level (at most {cfg.level_deg:g}°)")
        if rule.round:
            across = sorted(float(extents[i]) for i in range(3) if i != k)
            ratio = across[0] / across[1] if across[1] > 0 else 0.0
            row["roundness"] = round(ratio, 3)
            if ratio < cfg.round_ratio:
                problems.append(f"{j.name} ({j.kind}): turns about an axis {j.child!r} is not round about "
                                f"({across[0] * 1000:.0f} by {across[1] * 1000:.0f} mm across it)")
        if len(problems) > before:
            row["failed"].append("axis")
    return _verdict("functional.axis", problems, warnings,
                    f"{len(joints)} axes along an edge or face normal of their parts (worst {worst:.1f}°)",
                    {"joints": len(joints), "worst_deg": round(worst, 3)})


def _share(joints: list[JointInfo], subtree: Callable[[str], list[str]], masses: dict[str, float],
           cfg: FunctionalConfig, numbers: dict[str, dict[str, Any]]) -> FunctionalResult:
    total = sum(masses.values())
    if not total > 0:
        return FunctionalResult("functional.share", "skip", "not run: the object has no mass to share")
    problems: list[str] = []
    warnings: list[str] = []
    least = 1.0
    for j in joints:
        rule = KIND_RULES[j.kind]
        moving = sum(masses.get(n, 0.0) for n in subtree(j.child))
        share = moving / total
        numbers[j.name].update({"mass": moving, "mass_share": share})
        if rule.min_share:
            least = min(least, share / rule.min_share)
        bad = share < rule.min_share or share > rule.max_share
        if bad:
            numbers[j.name]["failed"].append("share")
        what = f"{j.name} ({j.kind}) moves {moving * 1000:.4g} g, {share:.2%} of the object's {total:.3g} kg"
        if share < rule.min_share:
            problems.append(f"{what}: a {j.kind} is at least {rule.min_share:.1%}")
        elif share > rule.max_share:
            problems.append(f"{what}: a {j.kind} is at most {rule.max_share:.0%} (the rest is a sliver)")
        elif share < cfg.share_warn * rule.min_share:
            warnings.append(f"{what}: light for a {j.kind}")
    return _verdict("functional.share", problems, warnings,
                    f"{len(joints)} moving parts of plausible mass (object {total:.3g} kg)",
                    {"joints": len(joints), "total_mass": total})


def _free_space(asset: Asset, joints: list[JointInfo], cfg: FunctionalConfig,
                numbers: dict[str, dict[str, Any]]) -> FunctionalResult:
    solids, used = _part_solids(asset)
    bounds = {n: _bounds(s) for n, s in solids.items()}
    problems: list[str] = []
    worst_share = 0.0
    approximate = sorted(n for n, u in used.items() if u != "mesh")
    skipped: list[str] = []
    for j in joints:
        if not np.all(np.isfinite(j.axis)) or (j.type != "continuous" and not math.isfinite(j.travel)):
            skipped.append(j.name)  # the axis and travel checks fail it; a sweep cannot be computed
            continue
        moving = asset.subtree(j.child)
        others = [p.name for p in asset.parts if p.name not in moving and bounds[p.name] is not None]
        movers = [n for n in moving if bounds[n] is not None]
        volume = sum(float(s.volume()) for n in movers for s in solids[n])
        if j.type == "continuous":
            values = [2 * math.pi * i / cfg.sweep_steps for i in range(1, cfg.sweep_steps)]
        else:
            values = [float(v) for v in np.linspace(j.lower, j.upper, cfg.sweep_steps) if abs(v) > 1e-12]

        def shared(value: float, j: JointInfo = j, movers: list[str] = movers, others: list[str] = others
                   ) -> dict[tuple[str, str], float]:
            m = joint_motion(j.type, j.axis, j.origin, value)
            return {(a, b): _shared(solids[a], solids[b], m, bounds[a], bounds[b])  # type: ignore[arg-type]
                    for a in movers for b in others}

        rest = shared(0.0)
        worst, at, pair = 0.0, 0.0, ("", "")
        for v in values:
            now = shared(v)
            growth = {k: now[k] - rest[k] for k in now}
            total = sum(max(0.0, g) for g in growth.values())
            if total > worst:
                worst, at = total, v
                pair = max(growth, key=lambda k: growth[k])
        share = worst / volume if volume > 0 else 0.0
        worst_share = max(worst_share, share)
        numbers[j.name].update({"swept_overlap_m3": worst, "swept_overlap_share": share})
        if worst > cfg.free_space_volume and share > cfg.free_space_share:
            numbers[j.name]["failed"].append("free_space")
            angular = j.type != "prismatic"
            problems.append(f"{j.name} ({j.kind}): at {_fmt(at, angular)} {pair[0]!r} passes "
                            f"{worst * 1e6:.0f} cm³ into {pair[1]!r} ({share:.0%} of the moving volume)")
    note = f"; {', '.join(approximate)} checked by their hulls (mesh not closed)" if approximate else ""
    if skipped:
        note += f"; not swept (axis or limits not finite): {', '.join(skipped)}"
    if len(skipped) == len(joints):
        return FunctionalResult("functional.free_space", "skip", f"not run{note}", {"not_swept": skipped})
    return _verdict("functional.free_space", problems, [],
                    f"{len(joints) - len(skipped)} joints swept over their ranges into free space "
                    f"(worst {worst_share:.1%} of a moving volume){note}",
                    {"joints": len(joints), "worst_share": worst_share, "steps": cfg.sweep_steps,
                     "by_hulls": approximate, "not_swept": skipped})


def _kinds(category: str | None, source: str, joints: list[JointInfo], metadata: dict[str, Any],
           numbers: dict[str, dict[str, Any]]) -> tuple[FunctionalResult, list[str]]:
    if category is None:
        return FunctionalResult("functional.kinds", "skip", "not run: the asset does not say its category "
                                "(metadata category, program.category or attributes.category)"), []
    table = CATEGORY_KINDS.get(category)
    kinds = [j.kind for j in joints]
    counts: dict[str, Any] = {"category": category, "kinds": {k: kinds.count(k) for k in sorted(set(kinds))}}
    if table is None:
        return FunctionalResult("functional.kinds", "skip", f"not run: no table of movable kinds for category "
                                f"{category!r}", counts), []
    problems = []
    for j in joints:
        if j.kind not in table.allowed:
            numbers[j.name]["failed"].append("kinds")
            problems.append(f"a {category} has no {j.kind} ({j.name})")
    missing = [f"a {category} has a {' or '.join(g)}, found none" for g in table.expected
               if not any(k in g for k in kinds)]
    labels = [j.label for j in joints]
    asked = asked_for(metadata)
    for label, n in sorted(asked.items()):
        found = labels.count(label)
        if found < n:
            missing.append(f"asked for {_count(n, label)}, found {_count(found, label) if found else 'none'}")
    counts["asked_for"] = asked
    ok = (f"{category} ({source}): kinds {', '.join(sorted(set(kinds))) or 'none'} are ones it has"
          if kinds else f"{category} ({source}): nothing moves, as expected")
    return _verdict("functional.kinds", problems + missing, [], ok, counts, most=6), missing


def _timed(fn: Callable[[], FunctionalResult], name: str) -> FunctionalResult:
    start = time.perf_counter()
    try:
        result = fn()
    except Exception as exc:  # a bug in one check must still give a report
        result = FunctionalResult(name, "fail", f"check stopped: {type(exc).__name__}: {exc}")
    result.seconds = time.perf_counter() - start
    return result


def check_asset(asset: Asset, config: FunctionalConfig | None = None,
                checks: Sequence[str] = CHECKS) -> FunctionalReport:
    """Run the functional ``checks`` on an asset (its parts, labels, joints and metadata)."""
    cfg = config or FunctionalConfig()
    category, source = category_of(asset.metadata)
    joints = _joints_of(asset)
    numbers: dict[str, dict[str, Any]] = {j.name: {"kind": j.kind, "child": j.child, "type": j.type, "failed": []}
                                          for j in joints}
    extents = {}
    for j in joints:
        if j.type == "prismatic" and np.all(np.isfinite(j.axis)):
            along = asset.part(j.child).mesh.vertices @ j.axis
            extents[j.name] = float(np.ptp(along)) if len(along) else float("nan")
    results: list[FunctionalResult] = []
    missing: list[str] = []
    for name in checks:
        if name == "kinds":
            start = time.perf_counter()
            result, missing = _kinds(category, source, joints, asset.metadata, numbers)
            result.seconds = time.perf_counter() - start
            results.append(result)
            continue
        if not joints:
            results.append(FunctionalResult(f"functional.{name}", "skip", "not run: no movable joints"))
            continue
        fn: Callable[[], FunctionalResult] = {
            "travel": lambda: _travel(joints, extents, numbers),
            "axis": lambda: _axis(asset, joints, cfg, numbers),
            "share": lambda: _share(joints, asset.subtree, _masses(asset), cfg, numbers),
            "free_space": lambda: _free_space(asset, joints, cfg, numbers),
        }[name]
        results.append(_timed(fn, f"functional.{name}"))
    return FunctionalReport(category, source, results, numbers, missing)


def joint_verdicts(asset: Asset, config: FunctionalConfig | None = None) -> tuple[dict[str, list[str]], list[str]]:
    """Per movable joint the functional checks it fails, and the expected moving parts that are missing."""
    report = check_asset(asset, config)
    return {name: list(row["failed"]) for name, row in report.joints.items()}, report.missing


# --------------------------------------------------------------------------------------------- files


def check_joints(joints: Sequence[tuple[str, str, str, float | None, float | None]],
                 masses: dict[str, float] | None = None, subtrees: dict[str, list[str]] | None = None
                 ) -> FunctionalReport:
    """The lower bar for a file without asset.json: ``joints`` as (name, type, child, lower, upper), the kind
    guessed from the child's (else the joint's) name; the mass share when ``masses`` (per link) and
    ``subtrees`` (links below each child, itself included) are given. Axis, free space and kinds need the
    asset's meshes, labels and category and are skipped."""
    infos = []
    for name, jtype, child, lower, upper in joints:
        if jtype not in _GENERIC:
            continue
        label = _label_from_name(child)
        if label == "other":
            label = _label_from_name(name)
        lo = -math.inf if lower is None else float(lower)
        hi = math.inf if upper is None else float(upper)
        infos.append(JointInfo(name, jtype, child, label, joint_kind(jtype, label), np.full(3, np.nan), np.zeros(3),
                               lo, hi))
    numbers: dict[str, dict[str, Any]] = {j.name: {"kind": j.kind, "child": j.child, "type": j.type, "failed": []}
                                          for j in infos}
    results: list[FunctionalResult] = []
    if not infos:
        results.append(FunctionalResult("functional.travel", "skip", "not run: no movable joints"))
    else:
        # a ratio kind (drawer) without its mesh falls back to its absolute need
        results.append(_timed(lambda: _travel(infos, {}, numbers), "functional.travel"))
    results.append(FunctionalResult("functional.axis", "skip", "not run: needs asset.json (the parts' meshes)"))
    if infos and masses and subtrees is not None:
        results.append(_timed(lambda: _share(infos, lambda c: subtrees.get(c, [c]), masses, FunctionalConfig(),
                                             numbers), "functional.share"))
    else:
        results.append(FunctionalResult("functional.share", "skip", "not run: " + (
            "no movable joints" if not infos else "the file gives no masses")))
    results.append(FunctionalResult("functional.free_space", "skip", "not run: needs asset.json (the parts' meshes; "
                                    "the engine sweep checks the collision shapes)"))
    results.append(FunctionalResult("functional.kinds", "skip", "not run: a file without asset.json does not say "
                                    "its category"))
    return FunctionalReport(None, "", results, numbers)
