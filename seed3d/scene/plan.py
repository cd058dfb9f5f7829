"""Text → layout plan: room type and size, objects (category, count, attributes, size), relations.

The plan is a versioned JSON document (``PLAN_SCHEMA`` v``PLAN_SCHEMA_VERSION``; JSON Schema in
``PLAN_JSON_SCHEMA``) and a dataclass model with ``to_dict``/``from_dict``; ``from_dict`` validates everything
and names each problem by its JSON path::

    {"schema": "seed3d.layout_plan", "schema_version": 1, "text": "...", "planner": "rules",
     "room": {"type": "kitchen", "size": [4.0, 3.5, 2.6]},          # width (X), depth (Y), height (Z), m
     "objects": [{"id": "refrigerator", "category": "refrigerator", "count": 1, "noun": "fridge",
                  "attributes": {"colour": "white", "material": null, "size": null},
                  "size": null,                                       # target extents (depth X, width Y, height Z)
                  "fixed": false, "description": "a white fridge standing against a wall of the kitchen"}],
     "relations": [{"type": "against_wall", "subject": "refrigerator", "target": "wall", "source": "text"}],
     "notes": ["..."], "rejected": [{"noun": "piano", "nearest": "bookshelf", "similarity": 0.55}]}

Room frame: the floor is centred on the origin, x in [-W/2, W/2], y in [-D/2, D/2], floor at z = 0; walls are
named by the direction they face away from the centre: ``north`` (+Y, the "back" wall of a plan drawn with +Y
up), ``south`` (-Y, "front"), ``east`` (+X, "right"), ``west`` (-X, "left").

Relations (subject → target) and what they mean (``seed3d.scene.checks`` tests them on the final meshes):

=============  ==========================  ==============================================================
type           target                      holds when
=============  ==========================  ==============================================================
on             object                      the subject rests on the target's top surface (within 1 cm)
under          object                      the subject stands on the floor beneath the target's top
next_to        object                      their footprints are at most 0.5 m apart
against_wall   "wall" or a wall name       the subject's back is within 2 cm of a wall and it faces the room
facing         object (or its own group)   the subject's front points at the target's centre (±30°), from
                                           outside the target's footprint
in_front_of    object                      the subject is in front of the target (its +X side), ≤ 1.5 m
left_of        object                      on the target's left as seen by someone facing the target
right_of       object                      on the target's right as seen by someone facing the target
in_row         none                        the group's instances stand side by side, aligned, same yaw
centred        "room"                      the subject's centre is within 0.3 m of the room's centre
over           object                      what hangs (``CEILING_MOUNTED``, ``WALL_MOUNTED``) is above the
                                           target, its centre within 0.1 m of the target's in plan; on a
                                           wall: on the target's wall, centred on it along the wall
=============  ==========================  ==============================================================

Objects come in groups (``count``); ``LayoutPlan.instances()`` expands them into named instances
(``chair_1``, ``chair_2``; a group of one keeps the group id). A relation on a group applies to each of its
instances; a group target resolves to instance ``i mod count``.

Planners: ``RulePlanner`` (the default: deterministic, offline; a parser for counts, attributes and relations,
with nouns mapped by ``seed3d.program.nouns``) and ``LLMPlanner`` (any OpenAI-compatible chat-completions endpoint
asked to answer with this schema through ``response_format: json_schema``); both end in ``complete_plan``,
which applies the room defaults (size, objects that stand against walls, supports for table-top objects, and
what is screwed to a wall (``WALL_MOUNTED``) hung on one, never on the floor nor on a top). Only what hangs is
``over`` anything: a standing object's ``over`` is dropped (a note says so), and a lamp the text hangs over
something is a pendant (``HANGING``).
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Protocol

from seed3d.errors import InvalidInputError
from seed3d.program.nouns import NounMapper, alias_size, default_mapper, wall_alias
from seed3d.synth import CATEGORIES as _SYNTH_CATEGORIES

logger = logging.getLogger(__name__)

PLAN_SCHEMA = "seed3d.layout_plan"
PLAN_SCHEMA_VERSION = 1

RELATION_TYPES: tuple[str, ...] = ("on", "under", "next_to", "against_wall", "facing", "in_front_of", "left_of",
                                   "right_of", "in_row", "centred", "over")
#: Relations whose target is another object (group id).
OBJECT_RELATIONS: tuple[str, ...] = ("on", "under", "next_to", "facing", "in_front_of", "left_of", "right_of",
                                     "over")
WALLS: tuple[str, ...] = ("north", "south", "east", "west")
SIZE_WORDS: tuple[str, ...] = ("small", "large", "tall", "low", "wide", "narrow")
ATTRIBUTE_KEYS: tuple[str, ...] = ("colour", "material", "size")
MAX_COUNT = 60


class PlanError(InvalidInputError):
    """A layout plan is malformed, or a planner could not produce one; the message says what and where."""


# --------------------------------------------------------------------------------------------- room defaults


@dataclass(frozen=True)
class RoomType:
    """Defaults of one room type: size (width X, depth Y, height Z, m), objects standing against walls, and
    what the room gets when the text names no object."""

    name: str
    size: tuple[float, float, float]
    wall: tuple[str, ...]
    defaults: tuple[tuple[str, int], ...]
    words: tuple[str, ...] = ()


#: Categories screwed to a wall (``seed3d.synth`` category ``mount == "wall"``: a clock, a light switch, a window):
#: they hang against a wall at their ``MOUNT_HEIGHTS`` height, never stand on the floor or on a top, and are fixed
#: to the world.
WALL_MOUNTED: tuple[str, ...] = tuple(name for name, cat in _SYNTH_CATEGORIES.items() if cat.mount == "wall")
#: Categories hung from the ceiling (``mount == "ceiling"``: a pendant lamp): their top at the ceiling, anywhere over
#: the room (above what stands there), never on the floor nor on a top, fixed to the world.
CEILING_MOUNTED: tuple[str, ...] = tuple(name for name, cat in _SYNTH_CATEGORIES.items() if cat.mount == "ceiling")
#: Categories that stand against a wall in any room (plus each room type's own ``wall`` list and every
#: ``WALL_MOUNTED`` category).
WALL_CATEGORIES: tuple[str, ...] = ("wardrobe", "refrigerator", "oven", "dishwasher", "washing_machine",
                                    "bookshelf", "dresser", "door", "bed", "sofa", "desk", "tv_stand", "vanity",
                                    "bathtub", "coat_rack", "kitchen_counter", "toilet", "safe")
#: Categories fixed to the world instead of free bodies (a door frame sits in its wall, a tap on its counter, and
#: what is screwed to a wall): the one list ``seed3d.scene.compose`` reads.
FIXED_CATEGORIES: tuple[str, ...] = ("door", "faucet", *WALL_MOUNTED, *CEILING_MOUNTED)
#: Height of a wall-mounted object above the floor: category → (what is measured, meters): ``"centre"`` (a clock
#: at eye level, a light switch at hand height), ``"bottom"`` (a window's sill, a cooker hood 65 cm over a 90 cm
#: worktop) or ``"top"`` (a curtain rod over a window). Other wall-mounted categories hang with their centre at
#: ``DEFAULT_MOUNT``. See ``mount_height`` for the ceiling.
MOUNT_HEIGHTS: dict[str, tuple[str, float]] = {
    "clock": ("centre", 1.7), "switch": ("centre", 1.1), "window": ("bottom", 0.9), "range_hood": ("bottom", 1.55),
    "curtain_rod": ("top", 2.3),
}
DEFAULT_MOUNT: tuple[str, float] = ("centre", 1.5)
#: Least room (m) between a wall-mounted object's top and the ceiling (a window's lintel, a clock's hook).
MOUNT_CEILING_GAP = 0.1
#: Least room (m) between the top of what a wall-mounted object hangs ``over`` and the object's bottom (a cooker
#: hood over a tall cooker goes higher).
OVER_GAP = 0.05
#: Least room (m) between the top of what a wall-mounted object measured by its top (a curtain rod, its curtains
#: hanging below) hangs ``over`` and the object's top: the rod and its brackets clear a window's frame.
OVER_TOP_GAP = 0.1
#: Standing categories the text hangs ``over`` something, and what they are then: a lamp over the table is a
#: pendant.
HANGING: dict[str, str] = {"lamp": "ceiling_lamp"}
#: Table-top categories and the supporters they prefer, best first (an object the text puts on nothing stands on
#: the first of these the plan has; with none, the first is added, or the room's own in ``ROOM_SUPPORTER``).
TABLETOP: dict[str, tuple[str, ...]] = {
    "microwave": ("cabinet", "kitchen_counter", "table", "dresser"),
    "laptop": ("table", "desk", "nightstand", "dresser", "cabinet"),
    "lamp": ("nightstand", "desk", "table", "dresser", "cabinet", "tv_stand"),
    "mug": ("table", "cabinet", "dresser", "nightstand", "kitchen_counter"),
    "bowl": ("table", "cabinet", "dresser", "kitchen_counter"),
    "jar": ("cabinet", "kitchen_counter", "table", "dresser"),
    "bottle": ("table", "cabinet", "dresser", "kitchen_counter"),
    "vase": ("table", "dresser", "cabinet", "nightstand", "tv_stand"),
    "faucet": ("cabinet",),
    "toolbox": ("table", "cabinet"),
    "kitchen_pot": ("kitchen_counter", "cabinet", "table"),
    # kitchen appliances and bathroom things: on the worktop
    "kettle": ("kitchen_counter", "cabinet", "table"),
    "toaster": ("kitchen_counter", "cabinet", "table"),
    "coffee_machine": ("kitchen_counter", "cabinet", "table"),
    "dispenser": ("kitchen_counter", "vanity", "cabinet", "table"),
    # desk things
    "stapler": ("desk", "table", "cabinet", "dresser"),
    "pen": ("desk", "table", "nightstand", "dresser", "cabinet"),
    "scissors": ("desk", "table", "kitchen_counter", "cabinet", "dresser"),
    "usb": ("desk", "table", "nightstand", "dresser"),
    "mouse": ("desk", "table"),
    "keyboard": ("desk", "table"),
    "display": ("desk", "table", "tv_stand", "dresser", "cabinet"),
    "printer": ("desk", "table", "cabinet"),
    "phone": ("desk", "nightstand", "table", "dresser"),
    "camera": ("desk", "table", "dresser", "nightstand", "cabinet"),
    "globe": ("desk", "table", "bookshelf", "dresser", "cabinet"),
    "fan": ("desk", "table", "dresser", "nightstand"),
    "eyeglasses": ("nightstand", "desk", "table", "dresser"),
    "remote": ("table", "tv_stand", "nightstand", "desk", "dresser"),
    # small handheld things
    "pliers": ("table", "desk", "cabinet"),
    "knife": ("table", "desk", "kitchen_counter", "cabinet"),
    "lighter": ("table", "nightstand", "desk", "kitchen_counter", "cabinet"),
}
#: The supporter added for a table-top object when the plan has none of its ``TABLETOP`` supporters, where the
#: room calls for another than the first: (room type, category) → supporter.
ROOM_SUPPORTER: dict[tuple[str, str], str] = {
    ("bedroom", "lamp"): "nightstand", ("bathroom", "dispenser"): "vanity", ("living room", "display"): "tv_stand",
}
#: Categories with a top other objects may stand on.
SUPPORTERS: tuple[str, ...] = ("table", "cabinet", "nightstand", "dresser", "bookshelf", "washing_machine",
                               "dishwasher", "refrigerator", "box", "stool", "desk", "tv_stand", "kitchen_counter",
                               "vanity")
#: Categories seats are drawn up to.
WORK_SURFACES: tuple[str, ...] = ("table", "desk")
#: Seating drawn up to a table or desk.
SEATS: tuple[str, ...] = ("chair", "stool", "folding_chair")

ROOM_TYPES: dict[str, RoomType] = {r.name: r for r in (
    RoomType("kitchen", (4.0, 3.5, 2.6), ("cabinet",),
             (("refrigerator", 1), ("oven", 1), ("kitchen_counter", 1), ("cabinet", 1), ("table", 1), ("chair", 2),
              ("microwave", 1))),
    RoomType("bedroom", (4.0, 3.8, 2.6), ("nightstand", "cabinet"),
             (("bed", 1), ("wardrobe", 1), ("nightstand", 2), ("dresser", 1), ("lamp", 1))),
    RoomType("office", (3.6, 3.2, 2.6), ("cabinet",),
             (("desk", 1), ("chair", 1), ("bookshelf", 1), ("laptop", 1), ("lamp", 1), ("trash_can", 1)),
             ("study", "home office")),
    RoomType("living room", (5.0, 4.2, 2.7), ("cabinet",),
             (("sofa", 1), ("armchair", 1), ("table", 1), ("tv_stand", 1), ("bookshelf", 1), ("vase", 1)),
             ("lounge", "living")),
    RoomType("bathroom", (2.6, 2.2, 2.5), ("cabinet", "towel_rack"),
             (("vanity", 1), ("bathtub", 1), ("towel_rack", 1), ("trash_can", 1)), ("washroom",)),
    RoomType("workshop", (5.0, 4.0, 3.0), ("cabinet",),
             (("table", 1), ("stool", 1), ("toolbox", 1), ("cabinet", 1), ("box", 2)), ("garage", "shed")),
    RoomType("dining room", (4.5, 4.0, 2.7), ("cabinet",),
             (("table", 1), ("chair", 4), ("cabinet", 1), ("vase", 1)), ("dining",)),
    RoomType("laundry room", (3.0, 2.6, 2.5), ("cabinet",),
             (("washing_machine", 2), ("cabinet", 1), ("trash_can", 1)), ("laundry", "utility room")),
    RoomType("hallway", (2.2, 4.5, 2.6), ("cabinet",),
             (("cabinet", 1), ("coat_rack", 1), ("door", 1)), ("hall", "entryway", "corridor")),
    RoomType("storage room", (3.0, 3.0, 2.6), ("cabinet",),
             (("bookshelf", 2), ("box", 3)), ("storeroom", "pantry", "closet room")),
    RoomType("room", (4.0, 4.0, 2.7), ("cabinet",), (("table", 1), ("chair", 2)), ("space", "studio")),
)}

#: Typical size (depth X, width Y, height Z; m) per category, for area checks and size words.
TYPICAL_SIZE: dict[str, tuple[float, float, float]] = {
    "cabinet": (0.55, 0.9, 0.9), "wardrobe": (0.6, 1.2, 2.0), "nightstand": (0.4, 0.45, 0.55),
    "dresser": (0.5, 1.0, 0.85), "bookshelf": (0.35, 0.9, 1.8), "refrigerator": (0.7, 0.75, 1.8),
    "microwave": (0.4, 0.5, 0.3), "oven": (0.6, 0.6, 0.9), "dishwasher": (0.6, 0.6, 0.85),
    "washing_machine": (0.6, 0.6, 0.85), "box": (0.35, 0.5, 0.3), "trash_can": (0.35, 0.35, 0.6),
    "jar": (0.12, 0.12, 0.18), "bottle": (0.08, 0.08, 0.28), "mug": (0.09, 0.12, 0.1), "bowl": (0.2, 0.2, 0.08),
    "vase": (0.15, 0.15, 0.35), "table": (0.8, 1.2, 0.75), "chair": (0.5, 0.5, 0.9), "stool": (0.35, 0.35, 0.65),
    "lamp": (0.3, 0.2, 0.5), "laptop": (0.24, 0.34, 0.02), "faucet": (0.2, 0.15, 0.25), "door": (0.2, 0.9, 2.05),
    "toolbox": (0.25, 0.45, 0.25), "suitcase": (0.25, 0.42, 0.65), "freeform": (0.3, 0.3, 0.3),
    "bed": (2.15, 1.6, 1.0), "sofa": (0.9, 2.0, 0.85), "armchair": (0.85, 0.85, 0.9), "desk": (0.65, 1.3, 0.75),
    "tv_stand": (0.42, 1.5, 0.5), "vanity": (0.55, 0.9, 1.1), "bathtub": (0.75, 1.7, 0.7),
    "towel_rack": (0.45, 0.55, 0.9), "coat_rack": (0.45, 0.45, 1.8), "kitchen_counter": (0.66, 1.8, 1.15),
    "kitchen_pot": (0.24, 0.3, 0.2), "folding_chair": (0.44, 0.51, 0.83),
}
# every other category: the middle of its synth extent range
TYPICAL_SIZE.update({name: tuple(round((lo + hi) / 2, 4) for lo, hi in zip(cat.extent_min, cat.extent_max, strict=True))
                     for name, cat in _SYNTH_CATEGORIES.items() if name not in TYPICAL_SIZE})  # type: ignore[misc]
#: Dining-height table used when chairs are drawn up to a table the text gives no size for.
DINING_TABLE = (0.8, 1.2, 0.75)
#: Per-axis factors of the size words (depth, width, height).
SIZE_FACTORS: dict[str, tuple[float, float, float]] = {
    "small": (0.8, 0.8, 0.8), "large": (1.2, 1.25, 1.15), "tall": (1.0, 1.0, 1.2), "low": (1.0, 1.0, 0.8),
    "wide": (1.0, 1.25, 1.0), "narrow": (1.0, 0.8, 1.0),
}


def mount_height(category: str, height: float, room_height: float, over: float | None = None) -> float | None:
    """How high (m) the bottom of a wall- or ceiling-mounted object of ``height`` hangs in a room ``room_height``
    high, or None for a category that is neither ``WALL_MOUNTED`` nor ``CEILING_MOUNTED``.

    What hangs from the ceiling has its top at the ceiling (never below the floor). ``MOUNT_HEIGHTS`` says where a
    wall-mounted object goes (a clock's centre at 1.7 m, a switch's at 1.1 m, a window's sill at 0.9 m); ``over``
    (the top, m, of what it hangs over) raises it where that is higher: its bottom ``OVER_GAP`` above it, or for
    one measured by its top (a curtain rod over a window) its top ``OVER_TOP_GAP`` above it. Its top stays
    ``MOUNT_CEILING_GAP`` under the ceiling (a room too low for that gets it lower); in a room too low even for
    that it is centred in the height, and never below the floor."""
    if category in CEILING_MOUNTED:
        return max(0.0, room_height - height)
    if category not in WALL_MOUNTED:
        return None
    what, z = MOUNT_HEIGHTS.get(category, DEFAULT_MOUNT)
    bottom = {"centre": z - height / 2, "top": z - height}.get(what, z)
    if over is not None:
        bottom = max(bottom, over + OVER_TOP_GAP - height if what == "top" else over + OVER_GAP)
    top_limit = room_height - MOUNT_CEILING_GAP
    if bottom + height > top_limit:
        bottom = top_limit - height
    if bottom < 0.0:
        bottom = (room_height - height) / 2
    return max(0.0, bottom)


# --------------------------------------------------------------------------------------------- data model


@dataclass
class Room:
    """Room type and size (width X, depth Y, height Z, meters)."""

    type: str = "room"
    size: tuple[float, float, float] = (4.0, 4.0, 2.7)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"type": self.type, "size": [round(float(v), 4) for v in self.size]}


@dataclass
class ObjectSpec:
    """A group of ``count`` alike objects of one synth ``category`` with attributes and a planned size."""

    id: str
    category: str
    count: int = 1
    noun: str = ""
    attributes: dict[str, str | None] = field(default_factory=lambda: {k: None for k in ATTRIBUTE_KEYS})
    size: tuple[float, float, float] | None = None
    """Target extents (depth X, width Y, height Z; m) the object is scaled towards, or None (as generated)."""
    fixed: bool = False
    """Fixed to the world (doors, taps) instead of a free body."""
    description: str = ""

    def instance_names(self) -> list[str]:
        """``id`` for a group of one, else ``id_1`` … ``id_n``."""
        return [self.id] if self.count == 1 else [f"{self.id}_{k + 1}" for k in range(self.count)]

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"id": self.id, "category": self.category, "count": self.count, "noun": self.noun,
                "attributes": {k: self.attributes.get(k) for k in ATTRIBUTE_KEYS},
                "size": None if self.size is None else [round(float(v), 4) for v in self.size],
                "fixed": self.fixed, "description": self.description}


@dataclass
class Relation:
    """A spatial relation of a group (``subject``) to another group, a wall or the room."""

    type: str
    subject: str
    target: str | None = None
    source: str = "text"
    """'text' (asked for) or 'default' (added by the planner from room defaults)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"type": self.type, "subject": self.subject, "target": self.target, "source": self.source}

    def __str__(self) -> str:
        return f"{self.type}({self.subject}{'' if self.target is None else ', ' + self.target})"


@dataclass
class Instance:
    """One object of a group: its name, group, index within the group and category."""

    name: str
    group: ObjectSpec
    index: int

    @property
    def category(self) -> str:
        """The synth category."""
        return self.group.category


@dataclass
class InstanceRelation:
    """A relation between instances (``target`` is an instance name, a wall token, 'room' or None)."""

    type: str
    subject: str
    target: str | None
    source: str = "text"

    def __str__(self) -> str:
        return f"{self.type}({self.subject}{'' if self.target is None else ', ' + self.target})"


@dataclass
class LayoutPlan:
    """A validated layout plan (see the module doc for the JSON schema)."""

    text: str
    room: Room
    objects: list[ObjectSpec]
    relations: list[Relation] = field(default_factory=list)
    planner: str = "rules"
    notes: list[str] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)

    # ---- access
    def group(self, gid: str) -> ObjectSpec:
        """The object group called ``gid``."""
        for o in self.objects:
            if o.id == gid:
                return o
        raise KeyError(f"plan has no object group {gid!r}")

    def instances(self) -> list[Instance]:
        """Every object instance, in group order."""
        return [Instance(name, o, k) for o in self.objects for k, name in enumerate(o.instance_names())]

    def instance_relations(self) -> list[InstanceRelation]:
        """Relations expanded to instances (group targets resolve to instance ``i mod count``)."""
        out: list[InstanceRelation] = []
        for r in self.relations:
            subs = self.group(r.subject).instance_names()
            if r.type == "in_row":
                if len(subs) > 1:
                    out.append(InstanceRelation("in_row", subs[0], ",".join(subs), r.source))
                continue
            if r.type not in OBJECT_RELATIONS:
                for s in subs:
                    out.append(InstanceRelation(r.type, s, r.target, r.source))
                continue
            assert r.target is not None
            targets = self.group(r.target).instance_names()
            for i, s in enumerate(subs):
                if r.target == r.subject:  # facing each other: face the next one of the group
                    if len(subs) > 1:
                        out.append(InstanceRelation(r.type, s, subs[(i + 1) % len(subs)], r.source))
                    continue
                out.append(InstanceRelation(r.type, s, targets[i % len(targets)], r.source))
        return out

    def supports(self) -> dict[str, str]:
        """Instance → the instance it stands on (from ``on`` relations)."""
        return {r.subject: r.target for r in self.instance_relations() if r.type == "on" and r.target}

    # ---- JSON
    def to_dict(self) -> dict[str, Any]:
        """The JSON document (see module doc)."""
        return {"schema": PLAN_SCHEMA, "schema_version": PLAN_SCHEMA_VERSION, "text": self.text,
                "planner": self.planner, "room": self.room.to_dict(),
                "objects": [o.to_dict() for o in self.objects], "relations": [r.to_dict() for r in self.relations],
                "notes": list(self.notes), "rejected": [dict(r) for r in self.rejected]}

    def to_json(self, indent: int | None = 2) -> str:
        """Strict JSON text."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, doc: Any, require_header: bool = True) -> LayoutPlan:
        """Validate a plan document and build the model; every problem is listed in one ``PlanError``."""
        problems: list[str] = []
        plan = _parse_plan(doc, problems, require_header)
        if problems or plan is None:
            more = f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""
            raise PlanError("invalid layout plan: " + "; ".join(problems[:8]) + more)
        return plan

    @classmethod
    def from_json(cls, text: str) -> LayoutPlan:
        """Parse and validate JSON text."""
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PlanError(f"layout plan is not valid JSON: {exc}") from exc
        return cls.from_dict(doc)

    def validate(self) -> LayoutPlan:
        """Re-validate this plan (round trip through ``from_dict``); returns the validated copy."""
        return LayoutPlan.from_dict(self.to_dict())


_ID = re.compile(r"^[a-z][a-z0-9_]*$")


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(float(value))


def _parse_plan(doc: Any, problems: list[str], require_header: bool) -> LayoutPlan | None:
    from seed3d.synth import CATEGORIES

    if not isinstance(doc, dict):
        problems.append(f"the plan must be a JSON object, got {type(doc).__name__}")
        return None
    if require_header or "schema" in doc:
        if doc.get("schema") != PLAN_SCHEMA:
            problems.append(f"schema must be {PLAN_SCHEMA!r}, got {doc.get('schema')!r}")
        if doc.get("schema_version") != PLAN_SCHEMA_VERSION:
            problems.append(f"schema_version {doc.get('schema_version')!r} is not supported (this Seed3D reads "
                            f"{PLAN_SCHEMA_VERSION})")
    known = {"schema", "schema_version", "text", "planner", "room", "objects", "relations", "notes", "rejected"}
    extra = sorted(set(doc) - known)
    if extra:
        problems.append(f"unknown keys {extra}")
    text = doc.get("text", "")
    if not isinstance(text, str):
        problems.append("text must be a string")
        text = ""
    room_doc = doc.get("room")
    room = Room()
    if not isinstance(room_doc, dict):
        problems.append("room must be an object with 'type' and 'size'")
    else:
        rtype = room_doc.get("type", "room")
        if not isinstance(rtype, str) or not rtype:
            problems.append("room.type must be a non-empty string")
            rtype = "room"
        size = room_doc.get("size")
        if not (isinstance(size, list) and len(size) == 3 and all(_num(v) for v in size)):
            problems.append(f"room.size must be [width, depth, height] in meters, got {size!r}")
            size = [4.0, 4.0, 2.7]
        elif not (all(0.5 <= float(v) <= 50.0 for v in size[:2]) and 1.0 <= float(size[2]) <= 10.0):
            problems.append(f"room.size {size} is out of range (width and depth 0.5–50 m, height 1–10 m)")
        room = Room(rtype, (float(size[0]), float(size[1]), float(size[2])))
    objects: list[ObjectSpec] = []
    raw_objects = doc.get("objects")
    if not isinstance(raw_objects, list):
        problems.append("objects must be a list")
        raw_objects = []
    ids: set[str] = set()
    for i, od in enumerate(raw_objects):
        where = f"objects[{i}]"
        if not isinstance(od, dict):
            problems.append(f"{where} must be an object")
            continue
        extra = sorted(set(od) - {"id", "category", "count", "noun", "attributes", "size", "fixed", "description"})
        if extra:
            problems.append(f"{where}: unknown keys {extra}")
        gid = od.get("id")
        if not isinstance(gid, str) or not _ID.match(gid) or re.search(r"_\d+$", gid):
            problems.append(f"{where}.id must be lower-case letters, digits and '_' (not ending in _<number>), "
                            f"got {gid!r}")
            continue
        if gid in ids:
            problems.append(f"{where}.id {gid!r} is used twice")
            continue
        ids.add(gid)
        cat = od.get("category")
        if cat not in CATEGORIES:
            problems.append(f"{where}.category {cat!r} is not a synth category (known: {', '.join(CATEGORIES)})")
            continue
        count = od.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
            problems.append(f"{where}.count must be an integer 1–{MAX_COUNT}, got {count!r}")
            count = 1
        attrs_doc = od.get("attributes") or {}
        attrs: dict[str, str | None] = {k: None for k in ATTRIBUTE_KEYS}
        if not isinstance(attrs_doc, dict):
            problems.append(f"{where}.attributes must be an object")
        else:
            for k, v in attrs_doc.items():
                if k not in ATTRIBUTE_KEYS:
                    problems.append(f"{where}.attributes: unknown key {k!r} (known: {', '.join(ATTRIBUTE_KEYS)})")
                elif v is not None and not isinstance(v, str):
                    problems.append(f"{where}.attributes.{k} must be a string or null")
                elif k == "size" and v is not None and v not in SIZE_WORDS:
                    problems.append(f"{where}.attributes.size must be one of {SIZE_WORDS} or null, got {v!r}")
                else:
                    attrs[k] = v
        size = od.get("size")
        if size is not None:
            if not (isinstance(size, list) and len(size) == 3 and all(_num(v) and 0.005 <= v <= 10 for v in size)):
                problems.append(f"{where}.size must be null or [depth, width, height] in meters (0.005–10), "
                                f"got {size!r}")
                size = None
            else:
                size = (float(size[0]), float(size[1]), float(size[2]))
        fixed = od.get("fixed", cat in FIXED_CATEGORIES)
        if not isinstance(fixed, bool):
            problems.append(f"{where}.fixed must be true or false")
            fixed = False
        noun, desc = od.get("noun", cat), od.get("description", "")
        if not isinstance(noun, str) or not isinstance(desc, str):
            problems.append(f"{where}: noun and description must be strings")
            noun, desc = str(noun), str(desc)
        objects.append(ObjectSpec(gid, cat, count, noun, attrs, size, fixed, desc))
    relations: list[Relation] = []
    raw_relations = doc.get("relations", [])
    if not isinstance(raw_relations, list):
        problems.append("relations must be a list")
        raw_relations = []
    for i, rd in enumerate(raw_relations):
        where = f"relations[{i}]"
        if not isinstance(rd, dict):
            problems.append(f"{where} must be an object")
            continue
        rtype, subject, target = rd.get("type"), rd.get("subject"), rd.get("target")
        source = rd.get("source", "text")
        if rtype not in RELATION_TYPES:
            problems.append(f"{where}.type {rtype!r} is not one of {', '.join(RELATION_TYPES)}")
            continue
        if subject not in ids:
            problems.append(f"{where}.subject {subject!r} is not an object id")
            continue
        if source not in ("text", "default"):
            problems.append(f"{where}.source must be 'text' or 'default'")
            source = "text"
        if rtype in OBJECT_RELATIONS:
            if target not in ids:
                problems.append(f"{where}.target {target!r} of {rtype} must be an object id")
                continue
            if target == subject and rtype != "facing":
                problems.append(f"{where}: {rtype} relates {subject!r} to itself")
                continue
        elif rtype == "against_wall":
            if target not in (None, "wall", *WALLS):
                problems.append(f"{where}.target of against_wall must be null, 'wall' or one of {WALLS}, "
                                f"got {target!r}")
                continue
            target = target or "wall"
        elif rtype == "centred":
            if target not in (None, "room"):
                problems.append(f"{where}.target of centred must be null or 'room', got {target!r}")
                continue
            target = "room"
        elif target is not None:
            problems.append(f"{where}.target of in_row must be null, got {target!r}")
            continue
        relations.append(Relation(rtype, subject, target, source))
    on_count: dict[str, int] = {}
    for r in relations:
        if r.type == "on":
            on_count[r.subject] = on_count.get(r.subject, 0) + 1
    for gid, n in on_count.items():
        if n > 1:
            problems.append(f"object {gid!r} is 'on' {n} different objects; give it one support")
    if _support_cycle(relations):
        problems.append("'on' relations form a cycle (an object cannot stand on itself through others)")
    notes = doc.get("notes", [])
    rejected = doc.get("rejected", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        problems.append("notes must be a list of strings")
        notes = []
    if not isinstance(rejected, list) or not all(isinstance(r, dict) for r in rejected):
        problems.append("rejected must be a list of objects")
        rejected = []
    planner = doc.get("planner", "rules")
    if not isinstance(planner, str):
        problems.append("planner must be a string")
        planner = "rules"
    return LayoutPlan(text, room, objects, relations, planner, list(notes), [dict(r) for r in rejected])


def _support_cycle(relations: list[Relation]) -> bool:
    on = {r.subject: r.target for r in relations if r.type == "on" and r.target}
    for start in on:
        seen = {start}
        node = on.get(start)
        while node is not None:
            if node in seen:
                return True
            seen.add(node)
            node = on.get(node)
    return False


def _nullable(kind: str | list[str], **extra: Any) -> dict[str, Any]:
    kinds = [kind] if isinstance(kind, str) else list(kind)
    return {"type": [*kinds, "null"], **extra}


#: JSON Schema (draft 2020-12) of the plan document, in the strict subset OpenAI-style structured outputs accept
#: (every property required, no additional properties; optional values are nullable).
PLAN_JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Seed3D layout plan",
    "type": "object",
    "additionalProperties": False,
    "required": ["schema", "schema_version", "text", "planner", "room", "objects", "relations", "notes", "rejected"],
    "properties": {
        "schema": {"type": "string", "enum": [PLAN_SCHEMA]},
        "schema_version": {"type": "integer", "enum": [PLAN_SCHEMA_VERSION]},
        "text": {"type": "string"},
        "planner": {"type": "string"},
        "room": {
            "type": "object", "additionalProperties": False, "required": ["type", "size"],
            "properties": {
                "type": {"type": "string", "description": "kitchen, bedroom, office, living room, bathroom, "
                                                          "workshop, dining room, laundry room, hallway, ..."},
                "size": {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3,
                         "description": "width (X), depth (Y), height (Z) in meters"},
            },
        },
        "objects": {
            "type": "array",
            "items": {
                "type": "object", "additionalProperties": False,
                "required": ["id", "category", "count", "noun", "attributes", "size", "fixed", "description"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$",
                           "description": "unique group id, not ending in _<number>"},
                    "category": {"type": "string", "description": "one of the synth categories"},
                    "count": {"type": "integer", "minimum": 1, "maximum": MAX_COUNT},
                    "noun": {"type": "string"},
                    "attributes": {
                        "type": "object", "additionalProperties": False, "required": list(ATTRIBUTE_KEYS),
                        "properties": {"colour": _nullable("string"), "material": _nullable("string"),
                                       "size": _nullable("string", enum=[*SIZE_WORDS, None])},
                    },
                    "size": _nullable("array", items={"type": "number"}, minItems=3, maxItems=3,
                                      description="target extents: depth (X), width (Y), height (Z) in meters"),
                    "fixed": {"type": "boolean"},
                    "description": {"type": "string"},
                },
            },
        },
        "relations": {
            "type": "array",
            "items": {
                "type": "object", "additionalProperties": False, "required": ["type", "subject", "target", "source"],
                "properties": {
                    "type": {"type": "string", "enum": list(RELATION_TYPES)},
                    "subject": {"type": "string"},
                    "target": _nullable("string", description="an object id; for against_wall 'wall' or "
                                                               "north|south|east|west; null for in_row/centred"),
                    "source": {"type": "string", "enum": ["text", "default"]},
                },
            },
        },
        "notes": {"type": "array", "items": {"type": "string"}},
        "rejected": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["noun", "nearest", "similarity"],
            "properties": {"noun": {"type": "string"}, "nearest": _nullable("string"),
                           "similarity": _nullable("number")}}},
    },
}


# --------------------------------------------------------------------------------------------- planners


class Planner(Protocol):
    """Anything that turns text into a ``LayoutPlan``."""

    name: str

    def plan(self, text: str, room_size: tuple[float, float, float] | None = None) -> LayoutPlan:
        """The plan for ``text`` (``room_size`` overrides the room's size when given)."""
        ...


def plan_scene(text: str, room_size: tuple[float, ...] | None = None, planner: Planner | str | None = None
               ) -> LayoutPlan:
    """Plan a scene from ``text`` with ``planner`` ('rules' (default), 'llm' or a ``Planner``)."""
    if not isinstance(text, str) or not text.strip():
        raise PlanError("describe the scene in a sentence, e.g. 'a kitchen with a fridge and a table'")
    size = _room_size_arg(room_size)
    return get_planner(planner).plan(text, size)


def get_planner(planner: Planner | str | None = None) -> Planner:
    """'rules' → ``RulePlanner``; 'llm' → ``LLMPlanner.from_env()``; a ``Planner`` is returned as is."""
    if planner is None or planner == "rules":
        return RulePlanner()
    if planner == "llm":
        return LLMPlanner.from_env()
    if isinstance(planner, str):
        raise InvalidInputError(f"unknown planner {planner!r}; use 'rules' or 'llm'")
    return planner


def _room_size_arg(room_size: tuple[float, ...] | list[float] | None) -> tuple[float, float, float] | None:
    if room_size is None:
        return None
    vals = [float(v) for v in room_size]
    if len(vals) == 2:
        vals.append(2.7)
    if len(vals) != 3 or not all(math.isfinite(v) and v > 0 for v in vals):
        raise InvalidInputError(f"room_size must be (width, depth[, height]) in meters, got {room_size!r}")
    if not (all(0.5 <= v <= 50 for v in vals[:2]) and 1.0 <= vals[2] <= 10):
        raise InvalidInputError(f"room_size {vals} is out of range (width and depth 0.5–50 m, height 1–10 m)")
    return (vals[0], vals[1], vals[2])


# ---- the rule parser

_NUMBERS = {"a": 1, "an": 1, "one": 1, "single": 1, "another": 1, "two": 2, "three": 3, "four": 4, "five": 5,
            "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
            "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "several": 3, "few": 3, "some": 2, "couple": 2,
            "pair": 2, "dozen": 12, "both": 2}
_DEFINITE = {"the", "this", "that", "these", "those", "its", "their", "his", "her", "my", "our", "each", "every"}
_STOP = {"there", "is", "are", "be", "has", "have", "with", "and", "of", "in", "it", "them", "room", "also", "plus",
         "containing", "contains", "including", "includes", "featuring", "furnished", "put", "place", "placed",
         "standing", "stands", "sitting", "sits", "set", "which", "that", "where", "to", "for", "just", "very",
         "nice", "cozy", "cosy", "modern", "old", "new", "simple", "empty", "big-ish", "s", "all", "other",
         "along", "by", "inside", "within", "me", "i", "want", "need", "make", "create", "build", "generate",
         "scene", "please", "up", "out", "kind", "sort", "type", "style", "looking", "should", "must",
         "corner", "floor", "ground", "each", "every", "as", "well", "too"}
_BASIC_COLOURS = ("white", "black", "grey", "gray", "red", "blue", "green", "yellow", "orange", "pink", "purple",
                  "brown", "beige", "cream", "silver", "gold", "golden", "teal", "navy", "dark", "light")
_MATERIAL_WORDS = {"wood": "wood", "wooden": "wood", "timber": "wood", "metal": "metal", "metallic": "metal",
                   "steel": "metal", "iron": "metal", "aluminium": "metal", "aluminum": "metal", "plastic": "plastic",
                   "glass": "glass", "ceramic": "ceramic", "porcelain": "ceramic", "fabric": "fabric",
                   "upholstered": "fabric", "stone": "stone", "marble": "stone", "granite": "stone",
                   "chrome": "metal", "brass": "metal", "copper": "metal", "leather": "leather",
                   "rubber": "rubber", "painted": "painted"}
_SIZE_WORD_MAP = {"small": "small", "little": "small", "tiny": "small", "compact": "small", "mini": "small",
                  "large": "large", "big": "large", "huge": "large", "giant": "large", "spacious": "large",
                  "tall": "tall", "high": "tall", "low": "low", "short": "low", "wide": "wide", "long": "wide",
                  "narrow": "narrow", "slim": "narrow"}
_WALL_WORDS = {"north": "north", "back": "north", "rear": "north", "far": "north", "south": "south",
               "front": "south", "near": "south", "east": "east", "right": "east", "west": "west", "left": "west"}


def _palette_colours() -> set[str]:
    from seed3d.synth.materials import PALETTES

    return {c for pal in PALETTES.values() for c in pal}


@dataclass
class _Phrase:
    count: int
    definite: bool
    words: list[str]
    attrs: dict[str, str | None]
    start: int
    group: str | None = None


@dataclass
class _Rel:
    type: str
    wall: str | None = None
    target_each_other: bool = False


@dataclass
class _Pron:
    word: str


@dataclass
class _Sep:
    kind: str


_REL_PATTERNS: list[tuple[str, str]] = [
    # walls first (they contain 'on', 'by', 'next to' …)
    (r"\b(?:up\s+)?(?:against|along|alongside|by|on|to|near|next\s+to|beside|flush\s+with|backed\s+against)"
     r"\s+(?:the\s+|a\s+|one\s+)?(?:(north|south|east|west|back|front|left|right|rear|far|side)\s+)?walls?\b",
     "against_wall"),
    (r"\b(?:right\s+)?in\s+the\s+(?:very\s+)?(?:centre|center|middle)(?:\s+of\s+the\s+(?:room|space|floor|kitchen|"
     r"bedroom|office))?\b", "centred"),
    (r"\b(?:centred|centered)\b", "centred"),
    (r"\b(?:in\s+a\s+(?:row|line)|lined\s+up|side\s+by\s+side)\b", "in_row"),
    (r"\bfacing\s+each\s+other\b", "facing_each_other"),
    (r"\b(?:facing|faces|facing\s+towards?|turned\s+towards?|looking\s+at|pointing\s+at|opposite(?:\s+to)?)\b",
     "facing"),
    (r"\bin\s+front\s+of\b", "in_front_of"),
    (r"\b(?:to\s+the\s+|on\s+the\s+)?left(?:\s+side)?\s+of\b", "left_of"),
    (r"\b(?:to\s+the\s+|on\s+the\s+)?right(?:\s+side)?\s+of\b", "right_of"),
    (r"\b(?:(?:hanging|hung|suspended)\s+)?(?:right\s+|directly\s+)?(?:over|above)\b", "over"),
    (r"\b(?:on\s+top\s+of|on|onto|upon|atop|resting\s+on|sitting\s+on|standing\s+on)\b", "on"),
    (r"\b(?:under|underneath|beneath|below)\b", "under"),
    (r"\b(?:around|at)\b", "around"),
    (r"\b(?:next\s+to|beside|besides|near|close\s+to|alongside|adjacent\s+to|by|nearby)\b", "next_to"),
]


def _tokenise(text: str, phrases: tuple[str, ...] = ()) -> list[Any]:
    """Text → words, relations and separators (lower case, relation phrases folded; the multi-word nouns in
    ``phrases`` kept as one word, e.g. ``chest of drawers``)."""
    s = " " + text.lower().replace("×", " x ").replace("-", " ") + " "
    for phrase in sorted(phrases, key=len, reverse=True):
        s = re.sub(rf"\b{re.escape(phrase)}(s|es)?\b", phrase.replace(" ", "_"), s)
    s = re.sub(r"([,;.:!?()])", r" \1 ", s)
    marks: list[tuple[int, int, str, str | None]] = []
    taken = [False] * len(s)
    for pattern, kind in _REL_PATTERNS:
        for m in re.finditer(pattern, s):
            if any(taken[m.start():m.end()]):
                continue
            for k in range(m.start(), m.end()):
                taken[k] = True
            wall = m.group(1) if kind == "against_wall" and m.lastindex else None
            marks.append((m.start(), m.end(), kind, wall))
    marks.sort()
    pieces: list[Any] = []
    pos = 0
    for start, end, kind, wall in marks:
        pieces.extend(s[pos:start].split())
        if kind == "facing_each_other":
            pieces.append(_Rel("facing", target_each_other=True))
        else:
            pieces.append(_Rel(kind, _WALL_WORDS.get(wall) if wall and wall != "side" else None))
        pos = end
    pieces.extend(s[pos:].split())
    return pieces


_NOT_NOUNS = {"against", "along", "on", "by", "next", "near", "in", "at", "facing", "under", "beside", "with",
              "that", "where", "which", "is", "has", "for", "filled", "equipped", "furnished", "containing",
              "including", "featuring", "and", "or", "of", "to", "should", "must", "needs", "whose"}


def _modifies_noun(rest: str) -> bool:
    """Whether the text right after a room word starts with a noun (so the room word is a modifier)."""
    words = rest.split()
    if not words:
        return False
    nxt = words[0].rstrip(",;.:!?)")  # 'a kitchen counter, a kettle': the comma is not part of the noun
    if not nxt.isalpha():
        return False
    return nxt not in _STOP and nxt not in _NUMBERS and nxt not in _DEFINITE and nxt not in _NOT_NOUNS


def _room_in_text(text: str) -> tuple[str | None, str | None, tuple[float, float, float] | None, str]:
    """(room type, room size word, explicit size, text with the size phrase removed)."""
    low = text.lower().replace("×", "x")
    size = None
    unit = r"(?:\s*(?:m|meters?|metres?)\b)?"
    m = re.search(rf"(\d+(?:\.\d+)?){unit}\s*(?:x|by|\*)\s*(\d+(?:\.\d+)?){unit}"
                  rf"(?:\s*(?:x|by|\*)\s*(\d+(?:\.\d+)?){unit})?", low)
    if m:
        w, d = float(m.group(1)), float(m.group(2))
        h = float(m.group(3)) if m.group(3) else None
        size = (w, d, h if h is not None else 0.0)
        low = low[:m.start()] + " " + low[m.end():]
    else:
        m = re.search(r"(\d+(?:\.\d+)?)\s*(?:m2|m²|sq\.?\s*m|square\s+met(?:er|re)s?)\b", low)
        if m:
            side = math.sqrt(float(m.group(1)))
            size = (side, side, 0.0)
            low = low[:m.start()] + " " + low[m.end():]
    rtype = None
    best = len(low) + 1
    mentions: list[tuple[int, int]] = []
    for r in ROOM_TYPES.values():
        for word in (r.name, *r.words):
            for hit in re.finditer(rf"\b{re.escape(word)}\b", low):
                if _modifies_noun(low[hit.end():]):
                    continue  # 'kitchen cabinet', 'office chair': a room word before a noun is not the room
                mentions.append((hit.start(), hit.end()))
                if hit.start() < best:
                    best, rtype = hit.start(), r.name
    size_word = None
    if rtype is not None:
        before = low[:best].split()[-2:]
        for w in reversed(before):
            if w in _SIZE_WORD_MAP and _SIZE_WORD_MAP[w] in ("small", "large"):
                size_word = _SIZE_WORD_MAP[w]
                break
    kept: list[tuple[int, int]] = []
    for start, end in sorted(mentions, key=lambda m: (m[0], -m[1])):
        if not kept or start >= kept[-1][1]:  # 'room' inside 'living room' is the same mention
            kept.append((start, end))
    for start, end in reversed(kept):
        low = low[:start] + " , " + low[end:]
    return rtype, size_word, size, low


class RulePlanner:
    """The default planner: a deterministic, offline parser (counts, attributes, relations; nouns by MiniLM)."""

    name = "rules"

    def __init__(self, mapper: NounMapper | None = None) -> None:
        self.mapper = mapper

    def plan(self, text: str, room_size: tuple[float, float, float] | None = None) -> LayoutPlan:
        """Parse ``text`` into a completed, validated plan."""
        mapper = self.mapper or default_mapper()
        rtype, size_word, size, low = _room_in_text(text)
        notes: list[str] = []
        rejected: list[dict[str, Any]] = []
        multi = tuple(w.replace("-", " ") for w in mapper.vocab if " " in w or "-" in w)
        tokens = _tokenise(low, multi)
        room_words = {w for r in ROOM_TYPES.values() for w in (r.name, *r.words) if " " not in w}
        colours = _palette_colours()
        items = self._chunk(tokens, room_words, colours)
        groups: list[ObjectSpec] = []
        counters: dict[str, int] = {}

        def new_group(p: _Phrase, category: str, noun: str) -> ObjectSpec:
            n = counters.get(category, 0)
            counters[category] = n + 1
            gid = category if n == 0 else f"{category}_{chr(ord('a') + min(n, 25))}"
            attrs = dict(p.attrs)
            grp = ObjectSpec(gid, category, max(1, min(p.count, MAX_COUNT)), noun, attrs,
                             fixed=category in FIXED_CATEGORIES)
            if p.count > MAX_COUNT:
                notes.append(f"{p.count} × {noun}: at most {MAX_COUNT} of one kind; planned {MAX_COUNT}")
            alias = alias_size(noun)
            if alias is not None:
                grp.size = alias
            groups.append(grp)
            return grp

        # resolve phrases to groups
        for at, it in enumerate(items):
            if not isinstance(it, _Phrase):
                continue
            noun = " ".join(it.words)
            if not noun:
                continue
            match = mapper.map(noun)
            if match.category is None:
                rejected.append({"noun": noun, "nearest": match.word, "similarity": round(match.similarity, 3)})
                notes.append(match.message + "; left out")
                continue
            if match.method == "embedding":
                notes.append(match.message)
            category = match.category
            if category in HANGING and at + 1 < len(items) and isinstance(items[at + 1], _Rel) \
                    and items[at + 1].type == "over":  # 'a lamp over the table' hangs: a pendant
                category = HANGING[category]
                notes.append(f"a {noun} over something hangs: planned a {category.replace('_', ' ')}")
            if it.definite:
                existing = [g for g in groups if g.category == category]
                if existing:
                    grp = existing[-1]
                    for k, v in it.attrs.items():
                        if v and not grp.attributes.get(k):
                            grp.attributes[k] = v
                    it.group = grp.id
                    continue
            it.group = new_group(it, category, noun).id
        relations = self._relations(items, groups, notes)
        if not groups:
            if rejected:
                names = ", ".join(repr(r["noun"]) for r in rejected)
                raise PlanError(f"nothing to build: {names} did not match any object Seed3D can build "
                                f"({'; '.join(notes)})")
            rdef = ROOM_TYPES[rtype or "room"]
            for cat, n in rdef.defaults:
                groups.append(ObjectSpec(cat, cat, n, cat.replace("_", " "), fixed=cat in FIXED_CATEGORIES))
            notes.append(f"the text names no object; a typical {rdef.name} was planned: "
                         + ", ".join(f"{n} × {c}" for c, n in rdef.defaults))
        room_type = rtype or "room"
        base = ROOM_TYPES[room_type]
        if room_size is not None:
            rsize = room_size
        elif size is not None:
            rsize = (size[0], size[1], size[2] or base.size[2])
        else:
            f = {"small": 0.8, "large": 1.25, None: 1.0}[size_word]
            rsize = (round(base.size[0] * f, 2), round(base.size[1] * f, 2), base.size[2])
        plan = LayoutPlan(text, Room(room_type, rsize), groups, relations, self.name, notes, rejected)
        return complete_plan(plan, grow_room=room_size is None and size is None)

    @staticmethod
    def _chunk(tokens: list[Any], room_words: set[str], colours: set[str]) -> list[Any]:
        """Group word tokens into object phrases; keep relations, pronouns and separators."""
        out: list[Any] = []
        cur: _Phrase | None = None
        i = 0

        def flush() -> None:
            nonlocal cur
            if cur is not None and cur.words:
                out.append(cur)
            cur = None

        while i < len(tokens):
            tok = tokens[i]
            i += 1
            if isinstance(tok, _Rel):
                flush()
                out.append(tok)
                continue
            word = tok.strip()
            if "_" in word:  # a multi-word noun kept whole
                if cur is None:
                    cur = _Phrase(1, False, [], {k: None for k in ATTRIBUTE_KEYS}, i)
                cur.words.append(word.replace("_", " "))
                continue
            if word in (",", ";", ".", ":", "!", "?", "(", ")", "and", "with", "plus", "&"):
                flush()
                out.append(_Sep("." if word in (".", ";", "!", "?") else word))
                continue
            if word in ("it", "them") and (cur is None or not cur.words):
                flush()
                out.append(_Pron(word))
                continue
            if word.isdigit() or word in _NUMBERS:
                n = int(word) if word.isdigit() else _NUMBERS[word]
                if cur is not None and cur.words:
                    flush()
                if cur is None:
                    cur = _Phrase(n, False, [], {k: None for k in ATTRIBUTE_KEYS}, i)
                elif word in ("pair", "couple", "dozen"):
                    cur.count = n if cur.count == 1 else cur.count * n
                elif cur.count == 1 and word not in ("a", "an"):
                    cur.count = n
                continue
            if word in _DEFINITE:
                if cur is not None and cur.words:
                    flush()
                if cur is None:
                    cur = _Phrase(1, True, [], {k: None for k in ATTRIBUTE_KEYS}, i)
                else:
                    cur.definite = True
                continue
            if word in ("of",) and cur is not None and not cur.words:
                continue  # "a pair of", "a couple of"
            if cur is None:
                cur = _Phrase(1, False, [], {k: None for k in ATTRIBUTE_KEYS}, i)
            if not cur.words:
                two = f"{word} {tokens[i]}" if i < len(tokens) and isinstance(tokens[i], str) else ""
                if two in colours:
                    cur.attrs["colour"] = two
                    i += 1
                    continue
                if word in _SIZE_WORD_MAP:
                    cur.attrs["size"] = _SIZE_WORD_MAP[word]
                    continue
                if word in _BASIC_COLOURS or word in colours:
                    cur.attrs["colour"] = ("grey" if word == "gray" else "gold" if word == "golden" else word) \
                        if cur.attrs["colour"] is None else f"{cur.attrs['colour']} {word}"
                    continue
                if word in _MATERIAL_WORDS:
                    cur.attrs["material"] = _MATERIAL_WORDS[word]
                    continue
            if word in _STOP or (word in room_words and not cur.words and (
                    i >= len(tokens) or not isinstance(tokens[i], str) or tokens[i] in _STOP)):
                if word in ("with", "and"):
                    flush()
                continue
            cur.words.append(word)
        flush()
        return out

    @staticmethod
    def _relations(items: list[Any], groups: list[ObjectSpec], notes: list[str]) -> list[Relation]:
        """Attach each relation to the object phrase before it and the one (or pronoun) after it."""
        by_id = {g.id: g for g in groups}
        rels: list[Relation] = []

        def prev_phrase(k: int, skip_group: str | None = None, pronoun: str | None = None) -> str | None:
            for j in range(k - 1, -1, -1):
                it = items[j]
                if isinstance(it, _Sep) and it.kind == ".":
                    return None
                if isinstance(it, _Phrase) and it.group is not None and it.group != skip_group:
                    if pronoun == "it" and by_id[it.group].count > 1:
                        continue  # 'it' is one object: skip plural phrases
                    return it.group
            return None

        def next_target(k: int, subject: str) -> str | None:
            for j in range(k + 1, len(items)):
                it = items[j]
                if isinstance(it, _Phrase):
                    return it.group
                if isinstance(it, _Pron):
                    return prev_phrase(k, skip_group=subject, pronoun=it.word)
                if isinstance(it, (_Sep, _Rel)):
                    return None
            return None

        def add(rtype: str, subject: str, target: str | None) -> None:
            rel = Relation(rtype, subject, target)
            if not any(r.to_dict() == rel.to_dict() for r in rels):
                rels.append(rel)

        def listed_before(k: int) -> list[str]:
            """The table-top objects listed with the subject of the relation at ``k`` ('a kettle and a toaster on
            the counter': the kettle), joined to it by ',' or 'and', none of them a relation's target."""
            j = k - 1
            if j < 0 or not isinstance(items[j], _Phrase):
                return []
            out: list[str] = []
            while True:
                j -= 1
                if j < 0 or not (isinstance(items[j], _Sep) and items[j].kind in (",", "and")):
                    return out
                while j > 0 and isinstance(items[j - 1], _Sep) and items[j - 1].kind in (",", "and"):
                    j -= 1  # 'a kettle, and a toaster'
                j -= 1
                ph = items[j] if j >= 0 else None
                if not isinstance(ph, _Phrase) or ph.group is None or by_id[ph.group].category not in TABLETOP \
                        or (j > 0 and isinstance(items[j - 1], _Rel)):
                    return out
                out.append(ph.group)

        for k, it in enumerate(items):
            if isinstance(it, _Rel):
                subject = prev_phrase(k)
                if subject is None:
                    continue
                if it.type == "against_wall":
                    add("against_wall", subject, it.wall or "wall")
                elif it.type == "centred":
                    add("centred", subject, "room")
                elif it.type == "in_row":
                    if by_id[subject].count > 1:
                        add("in_row", subject, None)
                    else:
                        notes.append(f"'in a row' needs more than one {by_id[subject].noun}; ignored")
                elif it.target_each_other:
                    add("facing", subject, subject)
                else:
                    target = next_target(k, subject)
                    if target is None or target == subject:
                        notes.append(f"'{it.type.replace('_', ' ')}' after {by_id[subject].noun!r} has no object "
                                     "to relate to; ignored")
                        continue
                    if it.type == "around":
                        add("next_to", subject, target)
                        if by_id[subject].category in SEATS:
                            add("facing", subject, target)
                    else:
                        add(it.type, subject, target)
                        if it.type == "on" and by_id[subject].category in TABLETOP:
                            for other in listed_before(k):
                                if other != target:
                                    add("on", other, target)
            elif isinstance(it, _Sep) and it.kind == "with":
                # "a table with two chairs": what follows 'with' belongs to what came before
                owner = prev_phrase(k)
                nxt = next((x for x in items[k + 1:] if not isinstance(x, _Sep)), None)
                if owner is None or not isinstance(nxt, _Phrase) or nxt.group is None or nxt.group == owner:
                    continue
                j = items.index(nxt)
                if j + 1 < len(items) and isinstance(items[j + 1], _Rel):
                    continue  # "a table with a lamp on it": the explicit relation decides
                a, b = by_id[owner], by_id[nxt.group]
                if b.category in SEATS and a.category in (*WORK_SURFACES, "dresser", "cabinet"):
                    add("next_to", b.id, a.id)
                    add("facing", b.id, a.id)
                elif b.category in TABLETOP and a.category in SUPPORTERS:
                    add("on", b.id, a.id)
                else:
                    add("next_to", b.id, a.id)
        # an object 'on' several others: keep the first
        seen: set[str] = set()
        out = []
        for r in rels:
            if r.type == "on":
                if r.subject in seen:
                    notes.append(f"{r.subject} is on more than one object; kept the first")
                    continue
                seen.add(r.subject)
            out.append(r)
        if _support_cycle(out):
            notes.append("'on' relations formed a cycle; they were dropped")
            out = [r for r in out if r.type != "on"]
        return out


# ---- completing a plan (shared by every planner)


def complete_plan(plan: LayoutPlan, grow_room: bool = False) -> LayoutPlan:
    """Apply room defaults: wall objects against walls, supports for table-top objects, sizes, descriptions.

    ``grow_room`` (the text gave no size): enlarge the room's width and depth when the floor objects' typical
    footprints would cover more than ``FILL_TARGET`` of it or a row would not fit along a wall."""
    room = ROOM_TYPES.get(plan.room.type, ROOM_TYPES["room"])
    wall_cats = set(WALL_CATEGORIES) | set(room.wall) | set(WALL_MOUNTED)
    rels = _hung_over(plan, _hang_wall_mounted(plan, list(plan.relations)))
    has = {(r.type, r.subject) for r in rels}
    placed_by = {r.subject for r in rels if r.type in ("on", "under")}
    for g in plan.objects:
        if (g.category in wall_cats or wall_alias(g.noun)) and g.id not in placed_by \
                and ("against_wall", g.id) not in has and ("centred", g.id) not in has:
            rels.append(Relation("against_wall", g.id, "wall", "default"))
    # table-top objects without a support stand on the best supporter in the plan (one is added if none)
    for g in list(plan.objects):
        if g.category not in TABLETOP or g.id in placed_by:
            continue
        prefs = TABLETOP[g.category]
        target = next((s for cat in prefs for s in plan.objects if s.category == cat and s.id != g.id), None)
        if target is None:
            cat = ROOM_SUPPORTER.get((plan.room.type, g.category), prefs[0])
            gid = cat if all(o.id != cat for o in plan.objects) else f"{cat}_z"
            target = ObjectSpec(gid, cat, 1, cat.replace("_", " "),
                                size=(0.6, 1.0, 0.9) if cat == "cabinet" else None,
                                fixed=cat in FIXED_CATEGORIES)
            plan.objects.append(target)
            plan.notes.append(f"added a {cat.replace('_', ' ')} for the {g.noun} to stand on")
            if cat in wall_cats:
                rels.append(Relation("against_wall", gid, "wall", "default"))
        rels.append(Relation("on", g.id, target.id, "default"))
        placed_by.add(g.id)
    # seats the text relates to nothing are drawn up to the table (or desk) of the plan
    tables = [g for cat in WORK_SURFACES for g in plan.objects if g.category == cat]
    related = {r.subject for r in rels}
    for g in plan.objects:
        if g.category in SEATS and g.id not in related and tables:
            rels.append(Relation("next_to", g.id, tables[0].id, "default"))
            rels.append(Relation("facing", g.id, tables[0].id, "default"))
    # a pendant the text relates to nothing hangs over the middle of the room
    for g in plan.objects:
        if g.category in CEILING_MOUNTED and not any(r.subject == g.id for r in rels):
            rels.append(Relation("centred", g.id, "room", "default"))
    # bedside tables the text relates to nothing stand beside the bed
    beds = [g for g in plan.objects if g.category == "bed"]
    for g in plan.objects:
        if g.category == "nightstand" and beds and not any(r.subject == g.id and r.source != "default" for r in rels):
            rels.append(Relation("next_to", g.id, beds[0].id, "default"))
    # seats drawn up to a table get a dining-height table when the text gives no size
    seats: dict[str, set[str]] = {}
    for r in rels:
        if r.type in ("next_to", "facing") and r.target and plan.group(r.subject).category in SEATS:
            seats.setdefault(r.target, set()).add(r.subject)
    for g in plan.objects:
        if g.id in seats and g.category == "table" and g.attributes.get("size") is None and (
                g.size is None or g.size[2] >= 0.7):
            n = sum(plan.group(s).count for s in seats[g.id]) // g.count
            base = g.size or DINING_TABLE
            # room for every seat along the sides: about 0.6 m of edge per chair, two at the ends
            length = max(base[1], 0.6 * math.ceil(max(0, n - 2) / 2) + 0.3)
            g.size = (max(base[0], 0.9) if n > 4 else base[0], round(length, 2), base[2])
    # what carries things is chosen near its typical size (a shallow cabinet would not hold a microwave)
    carriers = {r.target for r in rels if r.type == "on"}
    for g in plan.objects:
        if g.id in carriers and g.size is None and g.attributes.get("size") is None:
            g.size = TYPICAL_SIZE.get(g.category)
    # the instances of a row are chosen near the typical size, so that the row is regular
    for g in plan.objects:
        if any(r.type == "in_row" and r.subject == g.id for r in rels) and g.size is None:
            g.size = TYPICAL_SIZE.get(g.category)
    for g in plan.objects:
        word = g.attributes.get("size")
        if word in SIZE_FACTORS:
            base = g.size or TYPICAL_SIZE.get(g.category, (0.5, 0.5, 0.5))
            g.size = tuple(round(b * f, 3) for b, f in zip(base, SIZE_FACTORS[word], strict=True))  # type: ignore
        if not g.description:
            g.description = describe_object(g, plan, rels)
    plan.relations = rels
    if grow_room:
        _grow_room(plan)
    return plan.validate()


def _hang_wall_mounted(plan: LayoutPlan, rels: list[Relation]) -> list[Relation]:
    """Relations with what is screwed to a wall (``WALL_MOUNTED``) or hung from the ceiling (``CEILING_MOUNTED``)
    never standing on, under or amid anything: such an 'on', 'under' or 'centred' (for the ceiling: 'on', 'under'
    or 'against_wall') is dropped (a note says so) and the object hangs on a wall or from the ceiling."""
    dropped = {**{g.id: (g, ("on", "under", "centred"), "on a wall") for g in plan.objects
                  if g.category in WALL_MOUNTED},
               **{g.id: (g, ("on", "under", "against_wall"), "from the ceiling") for g in plan.objects
                  if g.category in CEILING_MOUNTED}}
    out = []
    for r in rels:
        g, types, how = dropped.get(r.subject, (None, (), ""))
        if g is not None and r.type in types:
            where = "in the middle of the room" if r.type == "centred" else "against a wall" \
                if r.type == "against_wall" else \
                f"{r.type} the {plan.group(r.target).noun or r.target}" if r.target else r.type
            plan.notes.append(f"a {g.noun or g.category} hangs {how}; '{where}' was not kept")
            continue
        out.append(r)
    return out


def _hung_over(plan: LayoutPlan, rels: list[Relation]) -> list[Relation]:
    """Relations without the 'over' of what stands on the floor or a top: only what hangs (``WALL_MOUNTED``,
    ``CEILING_MOUNTED``) is over anything; a note says what was not kept."""
    hung = set(WALL_MOUNTED) | set(CEILING_MOUNTED)
    out = []
    for r in rels:
        g = plan.group(r.subject)
        if r.type == "over" and g.category not in hung:
            other = plan.group(r.target).noun or r.target if r.target else ""
            plan.notes.append(f"a {g.noun or g.category} does not hang; 'over the {other}' was not kept")
            continue
        out.append(r)
    return out


#: The share of the floor the typical footprints of the planned floor objects may take before the room grows.
FILL_TARGET = 0.35


def _grow_room(plan: LayoutPlan) -> None:
    W, D, H = plan.room.size
    carried = {r.subject for r in plan.relations if r.type in ("on", "under")}
    need = 0.0
    longest = 0.0
    for g in plan.objects:
        if g.id in carried or g.category in WALL_MOUNTED or g.category in CEILING_MOUNTED:  # what hangs takes no floor
            continue
        size = g.size or TYPICAL_SIZE.get(g.category, (0.5, 0.5, 0.5))
        need += g.count * (size[0] + 0.1) * (size[1] + 0.1)
        if any(r.type == "in_row" and r.subject == g.id for r in plan.relations):
            longest = max(longest, g.count * (size[1] + 0.15) + 0.3)
    factor = math.sqrt(need / (FILL_TARGET * W * D)) if need > FILL_TARGET * W * D else 1.0
    nw, nd = W * factor, D * factor
    if longest > max(nw, nd):
        if nw >= nd:
            nw = longest
        else:
            nd = longest
    nw, nd = min(round(nw + 0.049, 1), 20.0), min(round(nd + 0.049, 1), 20.0)
    if (nw, nd) != (W, D) and (nw > W + 1e-9 or nd > D + 1e-9):
        plan.room.size = (max(nw, W), max(nd, D), H)
        plan.notes.append(f"the {plan.room.type} was enlarged from {W:.1f} × {D:.1f} m to {max(nw, W):.1f} × "
                          f"{max(nd, D):.1f} m to hold everything (give a size, e.g. '4 x 3 m', to keep it)")


def describe_object(g: ObjectSpec, plan: LayoutPlan, relations: list[Relation]) -> str:
    """A one-line description of a group for generation (attributes, noun and where it stands)."""
    words = [w for w in (g.attributes.get("size"), g.attributes.get("colour"), g.attributes.get("material")) if w]
    noun = g.noun or g.category.replace("_", " ")
    head = " ".join([*words, noun])
    where = []
    for r in relations:
        if r.subject != g.id:
            continue
        if r.type == "against_wall":
            how = "on" if g.category in WALL_MOUNTED else "against"
            where.append(f"{how} a wall" if r.target in (None, "wall") else f"{how} the {r.target} wall")
        elif r.type == "centred":
            where.append("in the middle of the room")
        elif r.type == "in_row":
            where.append("in a row")
        elif r.target:
            other = next((o.noun or o.category for o in plan.objects if o.id == r.target), r.target)
            where.append(f"{r.type.replace('_', ' ')} the {other}")
    if g.category in CEILING_MOUNTED:  # 'hanging from the ceiling over the table'
        over = where.pop(0) if where and where[0].startswith("over ") else ""
        where.insert(0, f"hanging from the ceiling {over}".strip())
    article = "" if g.count > 1 else ("an " if head[:1] in "aeiou" else "a ")
    count = f"{g.count} " if g.count > 1 else ""
    text = f"{article}{count}{head}"
    if where:
        text += " " + " and ".join(dict.fromkeys(where))
    return f"{text} in the {plan.room.type}"


# ---- the language-model planner


def _llm_instructions() -> str:
    from seed3d.synth import CATEGORIES

    cats = ", ".join(c for c in CATEGORIES if c != "freeform")
    return (
        "You plan 3D room layouts for a simulator. Answer with one JSON object that follows the given schema: "
        f"schema '{PLAN_SCHEMA}', schema_version {PLAN_SCHEMA_VERSION}. Use only these object categories: {cats}. "
        "Map other furniture to the nearest category (a counter or worktop is a kitchen_counter, a couch is a "
        "sofa) or leave it out "
        "and list it under 'rejected'. Room size is [width, depth, height] in meters; object size is null or "
        "[depth, width, height] in meters. Relations: on, under, next_to, against_wall (target 'wall' or "
        "north/south/east/west), facing, in_front_of, left_of, right_of, in_row (target null), centred "
        "(target 'room'), over (only for what hangs on a wall or from the ceiling, above an object). Group ids "
        "are lower case, unique, not ending in _<number>; use count for several alike objects. Write a short "
        "description per object.")


@dataclass
class LLMPlanner:
    """A planner backed by an OpenAI-compatible chat-completions endpoint answering with ``PLAN_JSON_SCHEMA``.

    The request is ``POST {base_url}/chat/completions`` with ``response_format = {"type": "json_schema", ...}``
    and ``temperature = 0``; the answer's ``choices[0].message.content`` is parsed, mapped (unknown categories go
    through the noun mapper) and validated like any plan. Network, HTTP and schema problems raise ``PlanError``
    saying what the endpoint did.
    """

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0
    name: str = "llm"

    @classmethod
    def from_env(cls) -> LLMPlanner:
        """From ``SEED3D_LLM_BASE_URL``, ``SEED3D_LLM_MODEL`` and optional ``SEED3D_LLM_API_KEY``."""
        base = os.environ.get("SEED3D_LLM_BASE_URL")
        model = os.environ.get("SEED3D_LLM_MODEL")
        if not base or not model:
            raise InvalidInputError("the 'llm' planner needs SEED3D_LLM_BASE_URL (an OpenAI-compatible endpoint, "
                                    "e.g. http://127.0.0.1:8000/v1) and SEED3D_LLM_MODEL")
        return cls(base, model, os.environ.get("SEED3D_LLM_API_KEY"))

    def request_body(self, text: str) -> dict[str, Any]:
        """The chat-completions request for ``text``."""
        return {
            "model": self.model, "temperature": 0,
            "messages": [{"role": "system", "content": _llm_instructions()},
                         {"role": "user", "content": text}],
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": "layout_plan", "strict": True, "schema": PLAN_JSON_SCHEMA}},
        }

    def plan(self, text: str, room_size: tuple[float, float, float] | None = None) -> LayoutPlan:
        """Ask the endpoint, then validate, map and complete its plan."""
        url = self.base_url.rstrip("/") + "/chat/completions"
        body = json.dumps(self.request_body(text)).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace") if exc.fp else ""
            raise PlanError(f"LLM planner: {url} answered HTTP {exc.code} {exc.reason}: {detail}") from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise PlanError(f"LLM planner: cannot reach {url} ({reason}); check SEED3D_LLM_BASE_URL or use the "
                            "default 'rules' planner") from exc
        try:
            answer = json.loads(raw)
            content = answer["choices"][0]["message"]["content"]
        except (json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
            raise PlanError(f"LLM planner: {url} did not answer like a chat-completions endpoint "
                            f"({type(exc).__name__}: {exc}); first bytes: {raw[:200]!r}") from exc
        try:
            doc = json.loads(content) if isinstance(content, str) else content
        except json.JSONDecodeError as exc:
            raise PlanError(f"LLM planner: the model's answer is not JSON ({exc}): {str(content)[:200]!r}") from exc
        doc = self._map_categories(doc)
        try:
            plan = LayoutPlan.from_dict(doc)
        except PlanError as exc:
            raise PlanError(f"LLM planner: the model's plan does not follow the schema: {exc}") from exc
        plan.planner = f"llm:{self.model}"
        plan.text = text
        if room_size is not None:
            plan.room.size = room_size
        return complete_plan(plan)

    @staticmethod
    def _map_categories(doc: Any) -> Any:
        """Map object categories the engine lacks through the noun mapper; drop the ones nothing matches."""
        from seed3d.synth import CATEGORIES

        if not isinstance(doc, dict) or not isinstance(doc.get("objects"), list):
            return doc
        mapper = default_mapper()
        kept, dropped = [], set()
        for od in doc["objects"]:
            if isinstance(od, dict) and isinstance(od.get("category"), str) and od["category"] not in CATEGORIES:
                match = mapper.map(od["category"].replace("_", " "))
                if match.category is None:
                    doc.setdefault("rejected", []).append(
                        {"noun": od["category"], "nearest": match.word, "similarity": round(match.similarity, 3)})
                    doc.setdefault("notes", []).append(match.message + "; left out")
                    dropped.add(od.get("id"))
                    continue
                od["category"] = match.category
            kept.append(od)
        doc["objects"] = kept
        if dropped and isinstance(doc.get("relations"), list):
            doc["relations"] = [r for r in doc["relations"] if not isinstance(r, dict)
                                or (r.get("subject") not in dropped and r.get("target") not in dropped)]
        return doc


__all__ = [
    "CEILING_MOUNTED", "FIXED_CATEGORIES", "HANGING", "MOUNT_HEIGHTS", "OBJECT_RELATIONS", "OVER_GAP", "OVER_TOP_GAP",
    "PLAN_JSON_SCHEMA", "PLAN_SCHEMA", "PLAN_SCHEMA_VERSION", "RELATION_TYPES", "ROOM_SUPPORTER", "ROOM_TYPES",
    "TABLETOP", "TYPICAL_SIZE", "WALLS", "WALL_CATEGORIES", "WALL_MOUNTED", "Instance", "InstanceRelation",
    "LLMPlanner", "LayoutPlan", "ObjectSpec", "PlanError", "Planner", "Relation", "Room", "RoomType", "RulePlanner",
    "complete_plan", "get_planner", "mount_height", "plan_scene",
]
