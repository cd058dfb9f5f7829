"""Kinematic grouping and the joint reasoners.

``choose_root`` and ``build_tree`` group parts into a tree: the root is the part labelled body (then top, frame,
base, seat) or else the largest; every other part hangs from the part it is joined to most strongly (contact
patch area over gap, ``Contact.score``), grown from the root like a maximum spanning tree, where small fittings
(handles, knobs, buttons, bulbs...) never carry other parts and panels that move (doors, drawers, lids) carry
each other only when one touches nothing else (``PANEL_ON_PANEL``), the handle glued to one included.

A ``Reasoner`` turns a ``PartContext`` (the part, its parent, their contact, the candidate axes, the children,
free-translation probes) into a ``Decision``: joint type, signed axis (a positive value opens), pivot, which
candidate it came from, the limit prior and the damping preset. ``RuleReasoner`` is the default, written out
label by label (drawer → prismatic along its free front direction; door → revolute on the edge away from its
handle, opening outward; lid → revolute on its back edge, or continuous when it screws on (fitted over a neck, or
shaped as a cap: revolved, deep, narrower than what it closes); knob, wheel → continuous on the symmetry axis; button →
prismatic inward; ...). ``VLMReasoner`` takes a vision-language model's JSON answers instead (no network here:
the answers are given, or produced by a callable) and validates them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from seed3d.articulation._geometry import canonical_sign, snap, unit
from seed3d.articulation.candidates import (
    APART,
    CLEARANCE,
    FLUSH,
    Analysis,
    Candidate,
    Contact,
    Shape,
    barrel_centre,
    curvature_pivot,
    cylinder_pivot,
    patch_long_axis,
    sphere_fit,
)
from seed3d.articulation.limits import JOINT_PRESETS, LIMIT_PRIORS, CollisionScene
from seed3d.asset import JOINT_TYPES, ROOT_LABELS, Asset
from seed3d.errors import InvalidInputError
from seed3d.typed import FloatArray

#: Small fittings: they hang from a part and never carry others.
LEAF_LABELS: frozenset[str] = frozenset({"handle", "knob", "button", "wheel", "bulb", "panel", "keyboard", "lever",
                                         "spout", "cushion", "tray"})
#: Panels that move; one is mounted on another only when it touches nothing else (``PANEL_ON_PANEL``).
MOVING_PANELS: frozenset[str] = frozenset({"door", "drawer", "lid", "screen"})
#: What a moving panel's contact with another counts for, and the contact of the handle glued to it: a panel hangs
#: from another only when it touches nothing else (the door posts a segmenter labels door stand in the frame, not on
#: the door that spans them; a drawer whose handle grazes the oven door above it runs in the body).
PANEL_ON_PANEL = 0.001
#: Fittings that sit on a moving panel (a handle on a door) with full weight.
FITTINGS: frozenset[str] = frozenset({"handle", "knob", "button", "panel", "bulb", "keyboard", "lever", "cushion"})
#: Share of a part's facing surface that must be clear for ``RuleReasoner._runner`` to count a way as open.
RUNNER_SHARE = 0.999
#: Labels whose part turns about the pin it runs on when it has one (``RuleReasoner._on_pin``), before its label's
#: own rule: a laptop screen on its hinge barrel, a lever on its pin, a knob on its spindle.
PIN_LABELS: frozenset[str] = frozenset({"door", "lid", "screen", "knob", "lever"})
#: The largest radius of a pin or barrel, over the size of the part turning on it (a laptop's hinge barrel: 0.015, a
#: lever's pin 0.02; synth lids, dials and drums fit round a rim a third of their size: 0.3 and more).
PIN_RADIUS = 0.1
#: A cylindrical contact whose patch normals run along its axis by at least this much on average is a hub's end
#: face against the parent (a tap's cross handle), not a collar round a post (whose normals point across the axis).
HUB_FACE = 0.7
#: Labels whose part, touching its parent flush only along an edge (``_rests_on_edge``), pivots about that edge
#: rather than being glued: a press's handle resting on its post, a lever on its fulcrum.
EDGE_LABELS: frozenset[str] = frozenset({"handle", "lever", "spout", "other", "part"})
#: A flush contact touches (gap under ``TOUCH_GAP``, m) over at most this share of its patch when it is an edge or a
#: corner resting on the parent; faces glued together touch over most of theirs.
EDGE_SHARE = 0.12
TOUCH_GAP = 0.0001
#: A panel whose true surface comes within this gap (m) of other parts both ways along one axis across its face is
#: held in a track or frame (synth sashes: 3 mm); when it can slide at least ``SLIDE_SHARE`` of its extent along the
#: other, level one, it slides (``RuleReasoner._track``).
TRACK_GAP = 0.005
SLIDE_SHARE = 0.4
#: Labels that are always fixed to their parent.
FIXED_LABELS: frozenset[str] = frozenset({"body", "leg", "top", "frame", "base", "back", "cushion", "keyboard", "bulb",
                                          "panel", "shelf"})

#: A part labelled button whose round face is at least this wide (m) is a dial (synth buttons are at most 35 mm
#: across, dials 45 mm and more); one at least ``BAR_LENGTH`` long and ``BAR_RATIO`` times longer than wide is a
#: bar handle (the segmenter mistakes both for buttons).
DIAL_WIDTH = 0.04
BAR_LENGTH = 0.06
BAR_RATIO = 2.5
#: A part labelled knob whose face is this many times longer than wide is a push button (synth buttons are 35 by
#: 18 mm; dials are round).
OBLONG_RATIO = 1.5
#: A part whose surface is at least this share of its oriented box's is a plain block (a cuboid: 1.0); synth knobs,
#: revolved grips, reach 0.70, a cylinder's share is π/4. A block labelled knob is a button or a slider.
BLOCK_SHARE = 0.9
#: A part labelled door thicker than this fraction of its middle extent is not a panel (synth doors are at most
#: 0.12): the segmenter misread a box (a drawer) or a drum.
PANEL_RATIO = 0.35
#: A part labelled door too thick to be a panel and this many times longer than its middle extent is a post of its
#: frame (fixed), not a drawer.
POST_RATIO = 4.0
#: A button's box side this much thinner than its middle one is its depth (predicted buttons are often flat plates);
#: a button about as deep as it is wide (synth buttons are 12.5 mm deep, up to 35 by 18 mm across) has no telling one.
DEPTH_RATIO = 0.8

_Z = np.array([0.0, 0.0, 1.0])
_X = np.array([1.0, 0.0, 0.0])


# --------------------------------------------------------------------------------------------- grouping


def choose_root(asset: Asset, analysis: Analysis) -> str:
    """The part everything hangs from: the first of ``ROOT_LABELS`` present (largest if several), else the
    largest part by box volume."""
    def volume(name: str) -> float:
        return float(np.prod(np.maximum(analysis.shape(name).box.extents, 1e-6)))

    for label in ROOT_LABELS:
        named = [p.name for p in asset.parts if p.label == label]
        if named:
            return max(named, key=volume)
    return max((p.name for p in asset.parts), key=volume)


#: Labels that always move relative to what they touch: never glued into their host's rigid group.
ALWAYS_MOVING: frozenset[str] = frozenset({"door", "drawer", "lid", "screen", "wheel", "button"})


def _edge_weight(analysis: Analysis, child: str, parent: str) -> float:
    """How strongly ``child`` is joined to ``parent`` (0: no contact within the clearance gap)."""
    c = analysis.contact(child, parent)
    if c is None or c.kind == APART:
        return 0.0
    cl, pl = analysis.part(child).label, analysis.part(parent).label
    w = c.score
    if pl in MOVING_PANELS and cl not in FITTINGS:
        w *= PANEL_ON_PANEL if cl in MOVING_PANELS else 0.2
    return w


def _may_glue(labels: list[str]) -> bool:
    """Whether parts with these labels may form one rigid group: a part whose label always moves
    (``ALWAYS_MOVING``) only with fittings (its handle, its glass), at most one of them per group, and a knob
    only as the handle of a moving panel."""
    moving = [lab for lab in labels if lab in ALWAYS_MOVING]
    if len(moving) > 1 or (moving and any(lab not in ALWAYS_MOVING and lab not in FITTINGS for lab in labels)):
        return False
    return "knob" not in labels or any(lab in MOVING_PANELS for lab in labels)


def rigid_groups(asset: Asset, analysis: Analysis, glue: Sequence[tuple[str, str]] = ()) -> dict[str, int]:
    """Group id per part: parts in flush contact (glued, screwed, resting) form one rigid group, unless that
    would glue a part whose label always moves to its host (``_may_glue``).

    ``glue``: pairs of parts that are one piece whatever their labels (two pieces of one door cut apart); such a
    pair counts as one part with the first one's label."""
    names = [p.name for p in asset.parts]
    labels = {p.name: p.label for p in asset.parts}
    members = {n: [n] for n in names}
    owner = {n: n for n in names}
    kinds = {n: [labels[n]] for n in names}  # the labels a group counts, a glued pair once
    for a, b in glue:
        ra, rb = owner[a], owner[b]
        if ra == rb:
            continue
        for m in members[rb]:
            owner[m] = ra
        members[ra] += members.pop(rb)
        kinds.pop(rb)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if analysis.box_gap(a, b) > analysis.config.reach:
                continue
            c = analysis.contact(a, b)
            if c is not None and c.kind == FLUSH:
                pairs.append((-c.score, i, a, b))
    for _, _, a, b in sorted(pairs):  # strongest glue first
        ra, rb = owner[a], owner[b]
        if ra == rb or not _may_glue(kinds[ra] + kinds[rb]):
            continue
        for m in members[rb]:
            owner[m] = ra
        members[ra] += members.pop(rb)
        kinds[ra] += kinds.pop(rb)
    return {n: names.index(owner[n]) for n in names}


def _grow(members: list[str], start: str, weight: Callable[[str, str], float], hosts_ok: Callable[[str], bool],
          distance: Callable[[str, str], float], order: list[str]) -> dict[str, str]:
    """Attach ``members`` to a tree grown from ``start``: the strongest edge from an attached host first
    (maximum spanning tree), the nearest host when nothing touches."""
    attached, parents = [start], {}
    todo = [m for m in members if m != start]
    while todo:
        hosts = [h for h in attached if hosts_ok(h)] or [start]
        best: tuple[float, str, str] | None = None
        for child in todo:
            for host in hosts:
                w = weight(child, host)
                if w > 0 and (best is None or w > best[0]):
                    best = (w, child, host)
        if best is None:
            _, _, child, host = min((distance(c, h), order.index(c), c, h) for c in todo for h in hosts)
        else:
            _, child, host = best
        parents[child] = host
        attached.append(child)
        todo.remove(child)
    return parents


def build_tree(asset: Asset, analysis: Analysis, root: str, glue: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """Parent of every part but the root (see the module docstring).

    Parts glued together (``rigid_groups``, with the ``glue`` pairs) move as one: the groups form a tree grown
    from the root's group by the strongest contact between them; a group hangs from its parent group through its
    head, where the joint is: a member that always moves (the door of a door with its handle), else the member
    that comes closest (the arm of an arm with its counterweight); the other members hang from the member they
    are glued to most strongly.
    """
    names = [p.name for p in asset.parts]
    labels = {p.name: p.label for p in asset.parts}
    gid = rigid_groups(asset, analysis, glue)
    glued = {n for pair in glue for n in pair}
    groups: dict[int, list[str]] = {}
    for n in names:
        groups.setdefault(gid[n], []).append(n)

    def host_ok(h: str) -> bool:
        return labels[h] not in LEAF_LABELS or h == root

    def volume(n: str) -> float:
        return float(np.prod(np.maximum(analysis.shape(n).box.extents, 1e-6)))

    def link(g: int, h: int) -> tuple[float, str, str]:
        """Best (weight, child member, host member) joining group g to group h."""
        best = (0.0, "", "")
        panel = any(labels[a] in MOVING_PANELS for a in groups[g])
        for a in groups[g]:
            for b in groups[h]:
                if host_ok(b):
                    w = _edge_weight(analysis, a, b)
                    if panel and labels[a] in FITTINGS and labels[b] in MOVING_PANELS:
                        w *= PANEL_ON_PANEL  # the panel's handle touching another panel
                    if w > best[0]:
                        best = (w, a, b)
        return best

    rg = gid[root]
    group_names = {g: f"#{g}" for g in groups}
    by_name = {v: k for k, v in group_names.items()}

    def group_gap(c: str, h: str) -> float:
        return min(analysis.distance(a, b) for a in groups[by_name[c]] for b in groups[by_name[h]] if host_ok(b))

    def group_hosts(h: str) -> bool:
        return any(host_ok(b) for b in groups[by_name[h]])

    gparents = _grow(list(group_names.values()), group_names[rg],
                     lambda c, h: link(by_name[c], by_name[h])[0], group_hosts, group_gap,
                     list(group_names.values()))
    # a group attached to the first group it touched moves to one it is joined to clearly more strongly
    for _ in range(3):
        changed = False
        for cg in list(gparents):
            below = set(subtree(gparents, cg))
            options = [h for h in group_names.values() if h not in below and group_hosts(h)]
            cur = link(by_name[cg], by_name[gparents[cg]])[0]
            best = max(options, key=lambda h: (link(by_name[cg], by_name[h])[0], -names.index(groups[by_name[h]][0])))
            if best != gparents[cg] and link(by_name[cg], by_name[best])[0] > 1.5 * cur:
                gparents[cg] = best
                changed = True
        if not changed:
            break
    parents: dict[str, str] = {}
    heads = {rg: root}
    for cg_name in _order_groups(group_names[rg], gparents):
        g = by_name[cg_name]
        if g == rg:
            head = root
        else:
            h = by_name[gparents[cg_name]]
            touching = [a for a in groups[g] if any(host_ok(b) and _edge_weight(analysis, a, b) > 0
                                                    for b in groups[h])]
            if touching:
                # a member that always moves (a door with its handle) carries the joint, else a member that is
                # not a fitting; then where the groups come closest (a knuckle), then where they touch most
                tier = {a: 0 if labels[a] in ALWAYS_MOVING else 1 if labels[a] not in FITTINGS else 2
                        for a in touching}
                touching = [a for a in touching if tier[a] == min(tier.values())]
                gap = {a: min(analysis.distance(a, b) for b in groups[h] if host_ok(b)) for a in touching}
                closest = min(gap.values())
                near = [a for a in touching if gap[a] <= closest + 0.0005]
                pieces = [a for a in touching if a in glued]
                if pieces:  # pieces of one panel: the largest carries the joint (the others are cut-off strips)
                    near = [max(pieces, key=lambda a: (volume(a), -names.index(a)))]
                head = max(near, key=lambda a: (max(_edge_weight(analysis, a, b) for b in groups[h] if host_ok(b)),
                                                volume(a), -names.index(a)))
                host = max((b for b in groups[h] if host_ok(b)),
                           key=lambda b: (_edge_weight(analysis, head, b), -names.index(b)))
            else:  # nothing touches: the nearest pair
                pairs = [(analysis.distance(a, b), names.index(a), names.index(b), a, b)
                         for a in groups[g] for b in groups[h] if host_ok(b)]
                _, _, _, head, host = min(pairs) if pairs else (0.0, 0, 0, groups[g][0], heads[h])
            parents[head] = host
            heads[g] = head
        inner = _grow(groups[g], head, lambda c, hh: analysis.contact(c, hh).score
                      if analysis.contact(c, hh) is not None and analysis.contact(c, hh).kind == FLUSH else 0.0,
                      host_ok, analysis.distance, names)
        parents.update(inner)
    return parents


def _order_groups(root: str, parents: Mapping[str, str]) -> list[str]:
    out, queue = [root], [root]
    while queue:
        n = queue.pop(0)
        kids = [c for c, p in parents.items() if p == n]
        out += kids
        queue += kids
    return out


def subtree(parents: Mapping[str, str], name: str) -> list[str]:
    """``name`` and every part below it."""
    out, stack = [], [name]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(c for c, p in parents.items() if p == n)
    return out


# --------------------------------------------------------------------------------------------- context


@dataclass
class Decision:
    """A reasoner's answer for one part: how it is joined to its parent.

    ``axis`` is signed so that a positive joint value opens (a door swings out, a drawer slides out, a button goes
    in); ``origin`` is a point on the axis (any point on the part for prismatic and fixed joints). ``limits`` names
    a ``LIMIT_PRIORS`` entry; ``lower``/``upper`` when given replace the prior's caps. ``preset`` names the
    ``JOINT_PRESETS`` entry for damping, friction, effort and velocity.
    """

    type: str
    axis: FloatArray
    origin: FloatArray
    candidate: int | None = None
    limits: str = ""
    preset: str = "fixed"
    reason: str = ""
    lower: float | None = None
    upper: float | None = None

    def __post_init__(self) -> None:
        if self.type not in JOINT_TYPES:
            raise InvalidInputError(f"joint type must be one of {JOINT_TYPES}, got {self.type!r}")
        self.axis = unit(np.asarray(self.axis, np.float64).reshape(3))
        self.origin = np.asarray(self.origin, np.float64).reshape(3)
        if self.type != "fixed" and not np.any(self.axis):
            raise InvalidInputError("a movable joint needs a non-zero axis")
        if self.type == "fixed" and not np.any(self.axis):
            self.axis = _Z.copy()


@dataclass
class PartContext:
    """Everything a reasoner sees about one part: itself, its parent, their contact and the candidate axes."""

    name: str
    label: str
    parent: str
    parent_label: str
    shape: Shape
    parent_shape: Shape
    contact: Contact | None
    candidates: list[Candidate]
    children: list[tuple[str, str]]
    """(name, label) of the parts hanging from this one."""
    moving: list[str]
    """This part and every part below it (they move together)."""
    analysis: Analysis = field(repr=False)
    scene: CollisionScene | None = field(default=None, repr=False)
    parent_decision: Decision | None = None
    """The parent's own joint (None for the root), e.g. the hinge of the door a handle turns on."""
    _travel: dict[tuple[float, float, float], float] = field(default_factory=dict, repr=False)

    @property
    def contact_kind(self) -> str:
        """``flush``, ``clearance`` or ``apart`` (``apart`` when out of reach)."""
        return APART if self.contact is None else self.contact.kind

    def candidate(self, source: str) -> Candidate | None:
        """The first candidate whose source starts with ``source``."""
        return next((c for c in self.candidates if c.source.startswith(source)), None)

    def match(self, direction: FloatArray, pivot: FloatArray) -> int | None:
        """Index of the candidate closest to the line (``direction``, ``pivot``), or None if none is close."""
        best, score = None, float("inf")
        d = unit(direction)
        for c in self.candidates:
            ang = math.degrees(math.acos(min(1.0, abs(float(c.direction @ d)))))
            off = float(np.linalg.norm(np.cross(np.asarray(pivot) - c.pivot, d)))
            s = ang / 2.0 + off / max(0.01 * self.shape.size, 1e-4)
            if ang < 3.0 and s < score:
                best, score = c.index, s
        return best

    def free_travel(self, direction: FloatArray, stop: float | None = None) -> float:
        """How far (m) this part (with its subtree) can translate along ``direction`` without hitting anything,
        up to ``stop`` (default: the larger of 30 % of its extent that way and 2 cm)."""
        d = unit(direction)
        if stop is None:
            ext = float(np.abs(self.shape.box.axes @ d) @ self.shape.box.extents)
            stop = max(0.3 * ext, 0.02)
        key = (*np.round(d, 6).tolist(), round(stop, 6))
        if key not in self._travel:
            if self.scene is None:
                self._travel[key] = stop
            else:
                self._travel[key] = self.scene.free_travel(self.moving, d, stop)
        return self._travel[key]

    def free_directions(self) -> list[tuple[FloatArray, bool]]:
        """The six ± box axes and whether the part can move freely that way (30 % of its extent)."""
        out = []
        for a in self.shape.box.axes:
            for s in (1.0, -1.0):
                d = s * a
                ext = float(np.abs(self.shape.box.axes @ d) @ self.shape.box.extents)
                stop = max(0.3 * ext, 0.02)
                out.append((d, self.free_travel(d, stop) >= stop * 0.999))
        return out

    def surface_clearance(self, direction: FloatArray, stop: float, lead: float = 0.002) -> float:
        """The share of this subtree's exposed surface facing ``direction`` that can travel ``stop`` (m) that way
        without meeting the true surface of another part: rays cast from its samples (started ``lead`` ahead)
        against every part that stays still; rays that meet the subtree itself again before any other part (from
        inside a drawer's box) do not count, those that meet another part first do (from the inside of a cap's
        skirt onto the neck it fits over). Unlike ``free_travel`` it does not see collision hulls, which may fill
        a cavity that the hull clearing (after the decision) opens."""
        d = unit(direction)
        moving = set(self.moving)
        samples = [self.analysis.shape(n).samples for n in self.moving]
        origins = np.concatenate([s.points[s.normals @ d > 0.5] for s in samples]) + lead * d
        if not len(origins):
            return 0.0
        own = np.full(len(origins), np.inf)
        for name in self.moving:
            own = np.minimum(own, self.analysis.field(name).ray_distance(origins, d))
        lo, hi = origins.min(axis=0), origins.max(axis=0)
        lo, hi = np.minimum(lo, lo + stop * d), np.maximum(hi, hi + stop * d)
        reach = np.full(len(origins), np.inf)
        for part in self.analysis.asset.parts:
            plo, phi = part.mesh.bounds
            if part.name in moving or np.any(plo > hi) or np.any(phi < lo):
                continue
            reach = np.minimum(reach, self.analysis.field(part.name).ray_distance(origins, d))
        counted = reach < own  # a ray that meets no other part before the subtree itself does not count
        counted |= np.isinf(own)
        if not counted.any():
            return 0.0
        return float(np.mean(reach[counted] >= stop))

    def surface_travel(self, direction: FloatArray, stop: float) -> float:
        """How far (m, up to ``stop``) this subtree's true surface can translate along ``direction`` before it meets
        another part's true surface: the shortest ray from its samples (collision hulls not seen)."""
        d = unit(direction)
        moving = set(self.moving)
        origins = np.concatenate([self.analysis.shape(n).samples.points for n in self.moving])
        lo, hi = origins.min(axis=0), origins.max(axis=0)
        lo, hi = np.minimum(lo, lo + stop * d), np.maximum(hi, hi + stop * d)
        travel = stop
        for part in self.analysis.asset.parts:
            plo, phi = part.mesh.bounds
            if part.name in moving or np.any(plo > hi) or np.any(phi < lo):
                continue
            travel = min(travel, float(self.analysis.field(part.name).ray_distance(origins, d).min(initial=np.inf)))
        return travel

    def clear_directions(self, share: float = 0.95) -> list[FloatArray]:
        """The ± box axes along which at least ``share`` of the facing surface is clear of other parts' true
        surfaces for 30 % of the part's extent that way (``surface_clearance``)."""
        out = []
        for a in self.shape.box.axes:
            for s in (1.0, -1.0):
                d = s * a
                ext = float(np.abs(self.shape.box.axes @ d) @ self.shape.box.extents)
                if self.surface_clearance(d, max(0.3 * ext, 0.02)) >= share:
                    out.append(d)
        return out

    def summary(self) -> dict[str, Any]:
        """JSON-able facts about the part (what a VLM prompt shows)."""
        box = self.shape.box
        return {
            "part": self.name, "label": self.label, "parent": self.parent, "parent_label": self.parent_label,
            "box": {"centre": _r(box.centre), "axes": [_r(a) for a in box.axes], "extents": _r(box.extents)},
            "symmetry_axis": None if self.shape.symmetry_axis is None else _r(self.shape.symmetry_axis),
            "contact": None if self.contact is None else self.contact.summary(),
            "children": [{"name": n, "label": lab} for n, lab in self.children],
            "candidates": [c.to_dict() for c in self.candidates],
        }


def _r(v: FloatArray) -> list[float]:
    return [round(float(x), 4) + 0.0 for x in np.asarray(v).reshape(-1)]


@runtime_checkable
class Reasoner(Protocol):
    """Chooses joint type, axis and pivot for one part from its context."""

    name: str

    def decide(self, ctx: PartContext) -> Decision:
        """The joint of ``ctx.name`` to ``ctx.parent``."""
        ...


# --------------------------------------------------------------------------------------------- rules


def _pivot(ctx: PartContext, axis: FloatArray, pivot: FloatArray, reason: str) -> Decision:
    """A lever's revolute joint about (``axis``, ``pivot``): a positive turn lifts its free end when the pivot is
    above the middle of its parent, else presses it down."""
    r = ctx.shape.centroid - pivot
    r = unit(r - float(r @ axis) * axis)
    up = float(pivot @ _Z) > float(ctx.parent_shape.box.centre @ _Z)
    signed = unit(np.cross(r, _Z if up else -_Z))
    if not np.any(signed):
        signed = canonical_sign(axis)
    return Decision("revolute", signed, pivot, ctx.match(axis, pivot), "lever", "lever", reason)


def _fixed(ctx: PartContext, reason: str) -> Decision:
    origin = ctx.contact.centroid if ctx.contact is not None else ctx.shape.box.centre
    return Decision("fixed", _Z, origin, reason=reason)


def _level(d: FloatArray) -> bool:
    """Whether direction ``d`` runs within 60° of horizontal."""
    return abs(float(d @ _Z)) < 0.5


def _among(d: FloatArray, ds: list[FloatArray]) -> bool:
    """Whether unit direction ``d`` is one of ``ds``."""
    return any(float(d @ e) > 0.999 for e in ds)


def _outward(ctx: PartContext, axis: FloatArray) -> FloatArray:
    """``axis`` or its opposite: the side away from the parent (contact normal, then centres, then +X/+Z)."""
    a = unit(axis)
    c = ctx.contact
    if c is not None and c.normal_strength > 0.3 and abs(float(c.normal @ a)) > 0.3:
        return a if float(c.normal @ a) > 0 else -a
    off = float((ctx.shape.box.centre - ctx.parent_shape.centroid) @ a)
    if abs(off) > 1e-3:
        return a if off > 0 else -a
    pref = float(a @ np.array([1.0, 0.01, 0.5]))
    return a if pref >= 0 else -a


def _fitting_centre(ctx: PartContext, on_face: bool = False, outward: FloatArray | None = None
                    ) -> FloatArray | None:
    """Mean centre of the handles and knobs hanging from this part (None without any). ``on_face``: only those
    whose centre lies within the part's outline (its box across the thinnest side); a "handle" beside the panel,
    such as a strip of the frame cut along a door's edge and glued to it, is not one to pull on. ``outward``
    (the panel's outer face normal): when some stand proud of that face, only those; a "handle" lying within
    the panel's thickness is a piece of the panel the segmenter mislabelled."""
    pts = [ctx.analysis.shape(n).box.centre for n, lab in ctx.children if lab in ("handle", "knob")]
    box = ctx.shape.box
    if on_face:
        inplane = [int(k) for k in box.order()[1:]]
        pts = [p for p in pts if all(abs(float(box.local(p)[i])) <= box.extents[i] / 2 for i in inplane)]
    if outward is not None:
        half = float(box.extents[int(box.order()[0])]) / 2
        proud = [p for p in pts if float((p - box.centre) @ outward) > half]
        pts = proud or pts
    return np.mean(pts, axis=0) if pts else None


def _nearest_axis(ctx: PartContext, direction: FloatArray, max_deg: float = 25.0) -> FloatArray:
    """``direction`` replaced by the closest exact axis of the part or its parent (box axes, symmetry axes) when
    within ``max_deg``: a contact normal measured on a faceted ball or hub is off by a facet angle, the box axes
    of parts built (or snapped) along clean directions are not. The sign of ``direction`` is kept."""
    d = unit(direction)
    pool = list(ctx.shape.box.axes) + list(ctx.parent_shape.box.axes)
    pool += [s.symmetry_axis for s in (ctx.shape, ctx.parent_shape) if s.symmetry_axis is not None]
    best = max(pool, key=lambda a: abs(float(a @ d)))
    if math.degrees(math.acos(min(1.0, abs(float(best @ d))))) <= max_deg:
        return unit(best) * (1.0 if float(best @ d) >= 0 else -1.0)
    return d


def _is_cap(ctx: PartContext, skirt: float = 0.15, narrower: float = 0.95) -> bool:
    """Whether a lid is a screw cap by its shape alone: a solid of revolution on the parent's centre line, its
    depth along the axis at least ``skirt`` of its diameter (a hinged or lift-off lid is a plate) and its diameter
    under ``narrower`` of the parent's width across the axis (it closes a neck, not the whole opening)."""
    shape, parent = ctx.shape, ctx.parent_shape
    if shape.symmetry_axis is None or shape.symmetry_centre is None:
        return False
    axis = unit(shape.symmetry_axis)

    def spans(sh: Shape) -> tuple[float, float]:
        """(extent along the axis, widest extent across it) of a shape's surface samples."""
        pts = sh.samples.points
        along = pts @ axis
        across = pts - np.outer(along, axis)
        width = max(float(np.ptp(across @ unit(np.cross(axis, e)))) for e in np.eye(3)
                    if np.linalg.norm(np.cross(axis, e)) > 0.5)
        return float(np.ptp(along)), width

    depth, diameter = spans(shape)
    _, parent_width = spans(parent)
    off = parent.box.centre - shape.symmetry_centre
    off_axis = float(np.linalg.norm(off - float(off @ axis) * axis))
    return (diameter > 0 and depth >= skirt * diameter and diameter < narrower * parent_width
            and off_axis < 0.1 * parent_width)


def _is_dial(ctx: PartContext) -> bool:
    """A solid of revolution about its thinnest box axis whose round face is at least ``DIAL_WIDTH`` across."""
    shape = ctx.shape
    if not shape.symmetric:
        return False
    order = shape.box.order()
    e = shape.box.extents
    thin = shape.box.axes[int(order[0])]
    return bool(abs(float(shape.symmetry_axis @ thin)) > 0.9 and e[order[1]] >= DIAL_WIDTH)


def _is_bar(ctx: PartContext) -> bool:
    """At least ``BAR_LENGTH`` long and ``BAR_RATIO`` times longer than its next extent."""
    e = np.sort(ctx.shape.box.extents)
    return bool(e[2] >= BAR_LENGTH and e[2] >= BAR_RATIO * e[1])


def _is_oblong(ctx: PartContext) -> bool:
    """Not a solid of revolution, and its face (the box's two longer sides) at least ``OBLONG_RATIO`` times longer
    than wide."""
    e = np.sort(ctx.shape.box.extents)
    return bool(not ctx.shape.symmetric and e[2] >= OBLONG_RATIO * e[1])


def _rests_on_edge(ctx: PartContext) -> bool:
    """Whether the part's flush contact with its parent is an edge resting on it, not faces glued together: the
    patch is a long strip, and at most ``EDGE_SHARE`` of it lies within ``TOUCH_GAP`` of the parent (the gap opens
    steadily away from the edge)."""
    c = ctx.contact
    if c is None or c.kind != FLUSH or len(c.points) < 12 or patch_long_axis(c.points) is None:
        return False
    gaps = ctx.analysis.field(ctx.parent).distance(c.points)
    return float(np.mean(gaps <= TOUCH_GAP)) <= EDGE_SHARE


def _is_block(ctx: PartContext) -> bool:
    """A plain block: its surface at least ``BLOCK_SHARE`` of its oriented box's."""
    e = ctx.shape.box.extents
    box_area = 2.0 * float(e[0] * e[1] + e[1] * e[2] + e[0] * e[2])
    return bool(box_area > 0 and ctx.shape.area >= BLOCK_SHARE * box_area)


def _is_panel(ctx: PartContext) -> bool:
    """Thin as a door or a screen: the box's thinnest extent at most ``PANEL_RATIO`` of its middle one."""
    e = np.sort(ctx.shape.box.extents)
    return bool(e[0] <= PANEL_RATIO * e[1])


def _ball_centre(ctx: PartContext, contact: Contact) -> FloatArray | None:
    """Centre of a ball (or a hub) the part touches its parent with, fitted on growing neighbourhoods of the
    contact patch; None when the part is flat there."""
    pts = ctx.shape.samples.points
    reach = float(np.max(np.linalg.norm(contact.points - contact.centroid, axis=1), initial=0.0))
    reach = max(reach, 0.002)
    best: tuple[float, FloatArray] | None = None
    for f in (1.0, 2.0, 3.0, 5.0):
        sel = np.linalg.norm(pts - contact.centroid, axis=1) <= f * reach
        if sel.sum() < 12:
            continue
        centre, r, res = sphere_fit(pts[sel])
        if 0 < r <= 0.25 * ctx.shape.size and res <= 0.08 * r and (best is None or res / r < best[0]):
            best = (res / r, centre)
    return None if best is None else best[1]


class RuleReasoner:
    """The default reasoner: explicit rules over the part label, its contact with the parent and the candidates.

    A part labelled door, drawer, lid, screen, knob, wheel or button moves by its label (a button is pressed in
    along its depth; a round button as wide as a dial turns and an oblong knob is pressed like a button, a plain
    block labelled knob slides back and forth over its parent when it can, else is pressed too; a long
    bar labelled button is judged as a handle; a drawer slides level; a door too thick to be a panel is a drum when
    it is round, a post of its frame (fixed) when it is a long bar, else a drawer; a door panel held in a track with
    room beside it slides (a sash); a lid is hinged unless it screws on or is held in runners that leave it one
    level way out); handles, levers, spouts, seats, arms, shades, trays and unknown parts move only when they have
    a running clearance to their parent (glued parts touch; a round tray apart from it stands on a spindle the cut
    left out, and turns) or rest on it along an edge only (they pivot there), and then by their shape: a sleeve fit
    slides (or turns when the part is a solid of revolution), a collar swings round its post, a hub meeting its
    parent end-on turns, a knuckle tilts. Structural labels are fixed, but a second body on a pin turns on it.
    """

    name = "rules"

    def decide(self, ctx: PartContext) -> Decision:
        """The joint of ``ctx.name`` to its parent."""
        label, kind = ctx.label, ctx.contact_kind
        if label in FIXED_LABELS:
            if label == "body":  # a second body (the root is the first) on a pin is no structure: it turns
                pinned = self._on_pin(ctx)
                if pinned is not None:
                    return pinned
            if label == "panel" and kind == CLEARANCE:  # a control panel is glued; one hung loose moves
                loose = self._loose_panel(ctx)
                if loose is not None:
                    return loose
            return _fixed(ctx, f"a {label} is structural")
        if label in PIN_LABELS:
            pinned = self._on_pin(ctx)
            if pinned is not None:
                return pinned
        if label == "door":
            if not _is_panel(ctx):
                e = np.sort(ctx.shape.box.extents)
                if e[2] >= POST_RATIO * e[1]:
                    return _fixed(ctx, f"a thick bar labelled door ({e[2] / e[1]:.0f} times longer than wide) is a "
                                       "post of its frame")
                if ctx.shape.symmetric:
                    return self._spin(ctx, "spin", "a thick solid of revolution labelled door is a drum: it spins "
                                                   "about its symmetry axis")
                return self._slide(ctx, "drawer", "a thick box labelled door is a drawer: it slides out of its "
                                                  "parent")
            track = self._track(ctx)
            if track is not None:
                return track
            return self._hinge(ctx, "door")
        if label == "drawer":
            return self._slide(ctx, "drawer", "a drawer slides out of its parent")
        if label == "screen":
            return self._hinge(ctx, "screen")
        if label == "lid":
            sleeve = self._sleeve(ctx)
            if sleeve is not None and ctx.shape.symmetric and abs(float(ctx.shape.symmetry_axis @ sleeve)) > 0.95:
                return self._spin(ctx, "spin", "a round lid fitted over a neck screws on (turns about its axis)")
            if _is_cap(ctx):
                return self._spin(ctx, "spin", "a round lid with a deep skirt, narrower than the part it closes, "
                                               "is a cap: it screws on (turns about its axis)")
            runner = self._runner(ctx)
            if runner is not None:
                return self._slide(ctx, "drawer", "a lid held in runners (every way but one level one meets its "
                                                  "parent) slides out along them", runner)
            track = self._track(ctx)  # a box's lid in grooves: held both ways across it, room along them
            if track is not None:
                return track
            return self._hinge(ctx, "lid")
        if label == "knob":
            if ctx.parent_label in MOVING_PANELS and kind == FLUSH:
                return _fixed(ctx, f"a knob fixed on a {ctx.parent_label} is its handle")
            if _is_block(ctx):  # a knob's grip is round: a plain block slides over its parent or is a push button
                slide = self._back_and_forth(ctx) if kind == CLEARANCE else None
                return slide or self._press(ctx)
            if _is_oblong(ctx):
                return self._press(ctx)  # a knob's face is round: an oblong one is a push button
            return self._spin(ctx, "spin", "a knob turns about its symmetry axis")
        if label == "wheel":
            return self._spin(ctx, "wheel", "a wheel spins about its axle (symmetry axis)")
        if label == "button":
            if _is_dial(ctx):
                return self._spin(ctx, "spin", f"a round button {DIAL_WIDTH * 100:g} cm or more across is a dial: it "
                                               "turns about its symmetry axis")
            if not _is_bar(ctx):
                return self._press(ctx)
            label = "handle"  # a long bar labelled button: judged as a handle
        if label == "tray" and kind == APART and ctx.shape.symmetric:
            return self._spin(ctx, "spin", f"a round tray apart from {ctx.parent} (not glued) is a turntable on a "
                                           "spindle: it turns")
        if kind == FLUSH and label in EDGE_LABELS and _rests_on_edge(ctx):
            return self._on_edge(ctx)
        if kind != CLEARANCE:
            return _fixed(ctx, f"no running clearance to {ctx.parent} ({kind}): glued or carried")
        if label == "handle":
            sleeve = self._sleeve(ctx)
            if sleeve is not None:
                return self._slide(ctx, "telescope", "a handle held in a sleeve telescopes out", sleeve)
            return self._turn(ctx)
        if label == "lever":
            return self._lever(ctx)
        if label == "spout":
            return self._swing(ctx)
        if label == "seat":
            if ctx.parent_label == "base":
                return self._swivel(ctx)
            return _fixed(ctx, "a seat not on a base is fixed")
        if label in ("arm", "shade"):
            return self._tilt(ctx)
        if label == "tray":
            if ctx.shape.symmetric:
                return self._spin(ctx, "spin", "a round tray with clearance turns (a turntable)")
            return self._slide(ctx, "drawer", "a tray slides out like a drawer")
        return self._generic(ctx)

    # ---- shared probes
    def _sleeve(self, ctx: PartContext) -> FloatArray | None:
        """The one direction the part can move freely when it sits in a sleeve (None otherwise): the one free way
        past the collision hulls or, when the hulls leave several (loose hulls round a cut, completed part), the
        one way clear of the other parts' true surfaces that the hulls also leave free."""
        if ctx.contact_kind != CLEARANCE:
            return None
        free = [d for d, ok in ctx.free_directions() if ok]
        if len(free) == 1:
            return free[0]
        if not free:
            return None
        clear = ctx.clear_directions()
        if len(clear) == 1 and _among(clear[0], free):
            return clear[0]
        return None

    # ---- rules
    def _runner(self, ctx: PartContext) -> FloatArray | None:
        """The one way a part held in runners can slide (None otherwise): the only box axis along which all of its
        facing surface is clear of the other parts' true surfaces, and level. Lips lapping over a lid's edges
        block lifting it for a sliver of its top (a lid lifted off a box is clear all over), so the share must
        be whole; the hulls of a decomposed body may miss lips that thin."""
        clear = ctx.clear_directions(share=RUNNER_SHARE)
        return clear[0] if len(clear) == 1 and _level(clear[0]) else None

    def _track(self, ctx: PartContext) -> Decision | None:
        """A panel held in a track (its true surface within ``TRACK_GAP`` of other parts both ways along one axis
        across its face) with room to slide along the other, level one (at least ``SLIDE_SHARE`` of its extent
        clear one way, and the track's end within ``TRACK_GAP`` the other way) slides along it, the clearer way: a
        sliding door, a window's sash beside an open half. A panel that fills its opening (a casement, an inset
        door) has no such room, a door on a cabinet's front is not held, and an oven's drop-down door between its
        control panel and plinth has no end either way, so they swing. None when it is not so held."""
        box = ctx.shape.box
        e = box.extents
        inplane = [int(k) for k in box.order()[1:]]
        travel = {(k, s): ctx.surface_travel(s * box.axes[k], float(e[k])) for k in inplane for s in (1.0, -1.0)}
        for k in inplane:
            held = next(i for i in inplane if i != k)
            if not _level(box.axes[k]) or max(travel[(held, 1.0)], travel[(held, -1.0)]) > TRACK_GAP:
                continue
            t, s = max((travel[(k, s)], s) for s in (1.0, -1.0))
            if t < SLIDE_SHARE * float(e[k]) or travel[(k, -s)] > TRACK_GAP:
                continue  # too little room, or no end of a track: free both ways (an oven's drop-down door)
            d = unit(s * box.axes[k])
            origin = box.centre + d * float(e[k]) / 2
            return Decision("prismatic", d, origin, ctx.match(d, box.centre), "sliding", "slide",
                            f"a {ctx.label} held in a track (within {TRACK_GAP * 1000:g} mm both ways across it) with "
                            f"{t * 1000:.0f} mm clear along it slides", upper=t)
        return None

    def _loose_panel(self, ctx: PartContext) -> Decision | None:
        """A panel with a running clearance to its parent (a control panel is glued flush): hung on a rod or held
        in a rail, free to move one level way only, it slides along it (a curtain on its rod, a cooker hood's
        visor); held in a track it slides (``_track``); a thin one in runners slides out, otherwise it swings as a
        flap on its back edge (a hood's grease filter). None when it is none of these."""
        level = [d for d, ok in ctx.free_directions() if ok and _level(d)]
        if len(level) == 1:  # only level ways count: hung from a rod, it may also drop off where nothing is below
            return self._slide(ctx, "sliding", "a panel hung with a running clearance on a rod or in a rail, free "
                                               "one level way, slides along it", level[0])
        track = self._track(ctx)
        if track is not None:
            return track
        if not _is_panel(ctx):
            return None
        runner = self._runner(ctx)
        if runner is not None:
            return self._slide(ctx, "drawer", "a thin panel held in runners slides out along them", runner)
        return self._hinge(ctx, "flap")

    def _hinge(self, ctx: PartContext, what: str) -> Decision:
        box = ctx.shape.box
        order = box.order()
        kn = int(order[0])
        n = _outward(ctx, box.axes[kn])
        inplane = [int(k) for k in order[1:]]
        handle = _fitting_centre(ctx, on_face=True, outward=n)
        local = None if handle is None else box.local(handle)
        lying = abs(float(n @ _Z)) > 0.7
        why = ""
        if what == "door" and local is not None:
            # the edge nearest the handle is where the door is pulled: hinge on the opposite edge
            dist = [(box.extents[i] / 2 - s * local[i], i, s) for i in inplane for s in (1.0, -1.0)]
            _, i, s = min(dist)
            side_axis, sign = i, -s
            why = "on the edge opposite its handle"
        elif what == "door":
            side_axis = max(inplane, key=lambda i: -abs(float(box.axes[i] @ _Z)))  # hinge line most vertical
            off = float((box.centre - ctx.parent_shape.box.centre) @ box.axes[side_axis])
            sign = float(np.sign(off)) if abs(off) > 0.05 * box.extents[side_axis] else \
                -float(np.sign(box.axes[side_axis] @ np.array([0.1, 1.0, 0.0])) or 1.0)
            why = "on its outer vertical edge (no handle)"
        elif lying:
            side_axis = max(inplane, key=lambda i: abs(float(box.axes[i] @ _X)))
            sign = -float(np.sign(box.axes[side_axis] @ _X) or 1.0)
            if local is not None and abs(local[side_axis]) > 0.2 * box.extents[side_axis]:
                sign = -float(np.sign(local[side_axis]))
                why = "on the edge opposite its handle"
            else:
                why = "on its back edge"
        else:
            side_axis = max(inplane, key=lambda i: abs(float(box.axes[i] @ _Z)))
            sign = -float(np.sign(box.axes[side_axis] @ _Z) or 1.0)
            why = "on its bottom edge"
        edge_axis = next(i for i in inplane if i != side_axis)
        # doors hinge on their outer face, lids on the face they rest on; a flap under its parent (a hood's filter
        # in its recess) on its outer face too, so it swings down clear of the recess's back wall
        face = 1.0 if what == "door" or (what == "flap" and float(n @ _Z) < -0.7) else -1.0
        pivot = box.centre + sign * box.extents[side_axis] / 2 * box.axes[side_axis] \
            + face * box.extents[kn] / 2 * n
        toward = -sign * box.axes[side_axis]
        axis = unit(np.cross(toward, n))
        edge_dir = box.axes[edge_axis]
        vertical = abs(float(edge_dir @ _Z)) > 0.7
        if what == "door":
            prior = "door" if vertical else ("flap" if float(sign * box.axes[side_axis] @ _Z) < 0 else "lid")
            preset = "hinge"
        else:
            prior = what if what in ("screen", "flap") else "lid"
            preset = "hinge" if what == "screen" else "lid"
        return Decision("revolute", axis, pivot, ctx.match(edge_dir, pivot), prior, preset,
                        f"a {what} is hinged {why}, opening away from {ctx.parent}")

    def _slide(self, ctx: PartContext, prior: str, reason: str, direction: FloatArray | None = None) -> Decision:
        if direction is None:
            # the ways clear of the other parts' true surfaces, preferably also of their hulls (hulls may fill
            # the cavity a part slides in until the clearing after the decision opens it); a drawer (or a tray
            # that slides like one) only slides level: a cut that leaves it clear only up or down is misread
            level = prior == "drawer"
            hull_free = [d for d, ok in ctx.free_directions() if ok and (_level(d) or not level)]
            clear = [d for d in ctx.clear_directions() if _level(d) or not level]
            free = [d for d in clear if _among(d, hull_free)] or clear or hull_free
            if free:
                def rank(d: FloatArray) -> float:
                    away = float(unit(ctx.shape.box.centre - ctx.parent_shape.centroid) @ d)
                    normal = float(ctx.contact.normal @ d) if ctx.contact is not None else 0.0
                    return away + 0.5 * normal + 0.05 * float(d @ _X)
                direction = max(free, key=rank)
            else:
                box = ctx.shape.box
                ks = [k for k in range(3) if _level(box.axes[k])] if level else []
                if ks:  # a drawer opens to the object's front (+X in the asset frame)
                    a = box.axes[max(ks, key=lambda k: abs(float(box.axes[k] @ _X)))]
                    direction = a if float(a @ _X) >= 0 else -a
                    reason += " (no free direction found: the level side facing the front, +X)"
                else:
                    score = np.abs(box.axes @ unit(box.centre - ctx.parent_shape.centroid))
                    direction = _outward(ctx, box.axes[int(np.argmax(score))])
                    reason += " (no free direction found: the side away from the parent)"
        d = unit(direction)
        box = ctx.shape.box
        ext = float(np.abs(box.axes @ d) @ box.extents)
        origin = box.centre + d * ext / 2
        return Decision("prismatic", d, origin, ctx.match(d, box.centre), prior, "slide", reason)

    def _press(self, ctx: PartContext) -> Decision:
        # a button travels along its depth: its symmetry axis, else its box's side clearly thinner than the others;
        # a button about as deep as it is wide has no such side and goes the one way it is free to
        box = ctx.shape.box
        e = np.sort(box.extents)
        depth = (ctx.shape.symmetry_axis if ctx.shape.symmetric
                 else box.axes[int(box.order()[0])] if e[0] < DEPTH_RATIO * e[1] else None)
        free = [d for d, ok in ctx.free_directions() if ok and (depth is None or abs(float(d @ depth)) > 0.9)]
        if len(free) == 1:
            out, why = free[0], "its only free way" + ("" if depth is None else " along its depth")
        else:
            if depth is None:
                c = ctx.contact
                toward = c.normal if c is not None and c.normal_strength > 0.3 else _X
                depth = box.axes[int(np.argmax(np.abs(box.axes @ toward)))]
            out, why = _outward(ctx, depth), "the side away from its parent"
        ext = float(np.abs(box.axes @ out) @ box.extents)
        origin = box.centre + out * ext / 2
        return Decision("prismatic", -out, origin, ctx.match(out, box.centre), "button", "button",
                        f"a button is pressed in, against {why}")

    def _spin(self, ctx: PartContext, preset: str, reason: str) -> Decision:
        if ctx.shape.symmetric:
            axis, origin = ctx.shape.symmetry_axis, ctx.shape.symmetry_centre
            idx = ctx.candidate("symmetry")
        elif ctx.contact is not None and ctx.contact.normal_strength > 0.3:
            axis, origin = _nearest_axis(ctx, ctx.contact.normal), ctx.contact.centroid
            idx = ctx.candidate("contact_normal")
            reason += " (no symmetry axis found: the contact normal)"
        else:
            long = ctx.shape.long_axis(1.0)
            axis, origin, idx = (long if long is not None else _Z), ctx.shape.box.centre, None
            reason += " (no symmetry axis or contact: the box's long axis)"
        if ctx.label in ("other", "door") and preset == "spin":  # a heavy one is a drum
            mass = ctx.analysis.part(ctx.name).inertial
            if mass is not None and mass.mass > 2.0:
                preset = "drum"
        return Decision("continuous", canonical_sign(axis), origin,  # type: ignore[arg-type]
                        None if idx is None else idx.index, "", preset, reason)

    def _swivel(self, ctx: PartContext) -> Decision:
        c = ctx.contact
        assert c is not None
        axis = _nearest_axis(ctx, c.normal) if np.any(c.normal) else _Z
        return Decision("continuous", canonical_sign(axis), c.centroid, ctx.match(axis, c.centroid), "", "swivel",
                        f"a seat on a {ctx.parent_label} with a running clearance swivels about their contact")

    def _turn(self, ctx: PartContext) -> Decision:
        c = ctx.contact
        assert c is not None
        axis = _nearest_axis(ctx, c.normal if np.any(c.normal) else ctx.shape.box.axes[int(ctx.shape.box.order()[0])])
        pivot = c.centroid
        if ctx.shape.symmetric and abs(float(ctx.shape.symmetry_axis @ axis)) > 0.95:
            sc = ctx.shape.symmetry_centre
            pivot = sc + float((pivot - sc) @ axis) * axis  # type: ignore[operator]
        pd = ctx.parent_decision
        if pd is not None and pd.type == "revolute" and ctx.parent_label == "door":
            q = pd.origin + float((pivot - pd.origin) @ pd.axis) * pd.axis
            r = q - pivot
            r = unit(r - float(r @ axis) * axis)
            signed = unit(np.cross(r, -_Z))
            long = ctx.shape.long_axis()
            prior = "latch" if long is not None else "knob_latch"
            why = "a latch handle on a door turns down on its hinge side"
            tip = ctx.shape.centroid - pivot
            tip = tip - float(tip @ axis) * axis
            hangs = np.linalg.norm(tip) > 0.25 * float(ctx.shape.box.extents.max())  # off the pivot, not a bar
            if long is not None and hangs and float(unit(tip) @ _Z) < -0.7:
                # hanging down at rest (a casement window's handle): it turns up towards the hinge side
                signed = unit(np.cross(unit(tip), r))
                why = "a handle hanging down on a door or sash turns up towards its hinge side"
        else:
            r = unit(_X - float(_X @ axis) * axis)
            v = ctx.parent_shape.centroid - pivot
            v = unit(v - float(v @ axis) * axis)
            signed = unit(np.cross(r, v))
            prior, why = "tap", "a turning handle makes a quarter turn, its front towards the middle"
        if not np.any(signed):
            signed = canonical_sign(axis)
        return Decision("revolute", signed, pivot, ctx.match(axis, pivot), prior, "lever",
                        f"{why} (a handle with a running clearance turns about its contact normal)")

    def _on_pin(self, ctx: PartContext) -> Decision | None:
        """A part with a cylindrical running fit to its parent (a barrel round a pin, a hub on a spindle) turns
        about that pin: round about it, it spins (a knob on its spindle); otherwise it pivots (a screen on its hinge
        barrel, a lever on its pin, whose grip may be round about its own length), opening away from its parent.
        None without such a fit (its label's rule decides)."""
        c = ctx.contact
        if c is None or ctx.contact_kind != CLEARANCE or c.cylinder_axis is None:
            return None
        axis = unit(snap(c.cylinder_axis))
        band = np.abs(c.normals @ axis) < 0.3  # the patch's round side (not the ends of the pin)
        side = c.points[band] if band.sum() >= 8 else c.points
        pivot = cylinder_pivot(side, axis, c.centroid)
        # a pin or a barrel: the patch lies on a thin cylinder round the axis (a flat face whose edges turn the
        # normals fits a cylinder metres wide; a lid's or a dial's rim is a third of the part across)
        v = side - pivot
        radius = np.linalg.norm(v - np.outer(v @ axis, axis), axis=1)
        r = float(np.median(radius))
        if not 0 < r <= PIN_RADIUS * ctx.shape.size or float(radius.std()) > 0.05 * r:
            return None
        if ctx.shape.symmetric and abs(float(ctx.shape.symmetry_axis @ axis)) > 0.95:  # type: ignore[operator]
            return self._spin(ctx, "spin", f"a {ctx.label} round about the pin it runs on turns on it")
        if ctx.label in ("knob", "lever", "handle", "other") or (ctx.label == "body" and not _is_panel(ctx)):
            # round about another axis (a lever's grip), or a second body shaped as no panel (a lever's stick)
            return _pivot(ctx, axis, pivot, f"a {ctx.label} on a pin (a cylindrical running fit to {ctx.parent}) "
                                            "pivots about it")
        r = ctx.shape.centroid - pivot
        r = r - float(r @ axis) * axis
        away = ctx.shape.centroid - ctx.parent_shape.centroid
        away = away - float(away @ axis) * axis
        if not np.any(away) or np.linalg.norm(away) < 1e-6:
            away = _Z
        signed = axis if float(np.cross(axis, r) @ away) >= 0 else -axis
        prior, preset = {"door": ("door", "hinge"), "screen": ("screen", "hinge")}.get(ctx.label, ("lid", "lid"))
        return Decision("revolute", signed, pivot, ctx.match(axis, pivot), prior, preset,
                        f"a {ctx.label} on a hinge barrel (a cylindrical running fit to {ctx.parent}) turns about it, "
                        "opening away from it")

    def _on_edge(self, ctx: PartContext) -> Decision:
        """A part resting on its parent along an edge pivots about that line: through the centre of the barrel or
        knuckle next to it when it has one (a press's handle on its hinge post), else the contact line itself."""
        c = ctx.contact
        assert c is not None
        long = patch_long_axis(c.points)
        assert long is not None
        axis = _nearest_axis(ctx, snap(long), 10.0)
        pivot = barrel_centre(ctx.shape.samples.points, ctx.shape.samples.normals, axis, c.centroid,
                              0.25 * ctx.shape.size, PIN_RADIUS * ctx.shape.size)
        why = "the barrel beside the edge it rests on"
        if pivot is None:
            pivot, why = c.centroid, "the edge it rests on"
        return _pivot(ctx, axis, pivot, f"a {ctx.label} touching {ctx.parent} only along an edge is not glued: it "
                                        f"pivots about {why}")

    def _lever(self, ctx: PartContext) -> Decision:
        c = ctx.contact
        assert c is not None
        cand = ctx.candidate("contact_cylinder") if c.cylindrical else None
        if cand is not None:
            axis, pivot, why = cand.direction, cand.pivot, "its hub"
        else:
            long = patch_long_axis(c.points)
            if long is not None:
                axis, pivot, why = snap(long), c.centroid, "the line it rests against"
            else:
                box = ctx.shape.box
                k = int(np.argmin(np.abs(box.axes @ c.normal) + np.abs(box.axes @ _Z)))
                axis, pivot, why = box.axes[k], c.centroid, "a box axis across its contact"
            refined = curvature_pivot(ctx.shape.samples.points, axis, pivot, 0.25 * ctx.shape.size,
                                      0.2 * ctx.shape.size)
            if refined is not None:
                pivot = refined
        up = float(pivot @ _Z) > float(ctx.parent_shape.box.centre @ _Z)
        return _pivot(ctx, axis, pivot, f"a lever pivots about {why}; its free end "
                                        f"{'lifts' if up else 'is pressed down'}")

    def _swing(self, ctx: PartContext) -> Decision:
        c = ctx.contact
        assert c is not None
        cand = ctx.candidate("contact_cylinder") if c.cylindrical else None
        if cand is not None and ctx.shape.symmetric and abs(float(ctx.shape.symmetry_axis @ cand.direction)) > 0.95:
            return self._spin(ctx, "spin", "a round part on the spindle it fits round turns on it (a tap's knob)")
        if cand is not None and float(np.mean(np.abs(c.normals @ cand.direction))) > HUB_FACE:
            # the patch faces along the axis: the part meets its parent end-on with a round hub (a tap's cross
            # handle on the side of its column), not with a collar round a post; it turns on the hub like a knob
            # (a full turn when nothing stops it: the spin check makes it revolute over its free range otherwise)
            return self._spin(ctx, "spin", "a part meeting its parent end-on with a round hub turns about the hub")
        if cand is not None:
            axis, pivot, why = cand.direction, cand.pivot, "the post its collar fits round"
        else:
            axis, pivot, why = _nearest_axis(ctx, c.normal), c.centroid, "its contact normal"
        return Decision("revolute", canonical_sign(axis), pivot, ctx.match(axis, pivot), "swing", "hinge",
                        f"a spout with a running clearance swings both ways about {why}")

    def _tilt(self, ctx: PartContext) -> Decision:
        c = ctx.contact
        assert c is not None
        n = _nearest_axis(ctx, c.normal if np.any(c.normal) else _Z)
        options = [n]
        if abs(float(n @ _Z)) < 0.9:
            options.append(_nearest_axis(ctx, np.cross(n, _Z)))
        else:
            options += [ctx.shape.box.axes[k] for k in range(3) if abs(float(ctx.shape.box.axes[k] @ _Z)) < 0.5]
        longs = [a for a in (ctx.shape.long_axis(), ctx.parent_shape.long_axis()) if a is not None]

        def across(a: FloatArray) -> float:
            return sum(abs(float(a @ lo)) for lo in longs)

        axis = options[0]
        for a in options[1:]:
            if across(a) < across(axis) - 0.2:
                axis = a
        pivot = _ball_centre(ctx, c)
        if pivot is None:
            pivot = c.centroid
        return Decision("revolute", canonical_sign(axis), pivot, ctx.match(axis, pivot), "stiff", "stiff",
                        f"a {ctx.label} with a running clearance at a knuckle tilts both ways across its length")

    def _generic(self, ctx: PartContext) -> Decision:
        if ctx.shape.symmetric:
            return self._spin(ctx, "spin", "a solid of revolution with a running clearance spins")
        sleeve = self._sleeve(ctx)
        if sleeve is not None:
            return self._slide(ctx, "telescope", "a part held in a sleeve slides out", sleeve)
        return self._back_and_forth(ctx) or _fixed(ctx, "a part with clearance but no free motion found stays fixed")

    def _back_and_forth(self, ctx: PartContext) -> Decision | None:
        """A slide along a level box axis free both ways past the collision hulls and clear of the other parts'
        true surfaces (a part in a pocket that the hulls fill is not: ``clear_directions``), the one nearest the
        front (+X) when several; None without one."""
        free = {tuple(np.round(d, 6)) for d, ok in ctx.free_directions() if ok}
        free &= {tuple(np.round(d, 6)) for d in ctx.clear_directions()}
        both = [a for a in ctx.shape.box.axes if tuple(np.round(a, 6)) in free and tuple(np.round(-a, 6)) in free
                and _level(a)]
        if not both:
            return None
        a = canonical_sign(max(both, key=lambda v: abs(float(v @ _X))))
        return Decision("prismatic", a, ctx.shape.box.centre, ctx.match(a, ctx.shape.box.centre), "slider",
                        "slide", f"a block with a running clearance slides back and forth over {ctx.parent}")


# --------------------------------------------------------------------------------------------- VLM adapter


_ANSWER_KEYS = frozenset({"part", "type", "axis", "pivot", "direction", "limits", "reason"})


class VLMReasoner:
    """Decisions from a vision-language model's JSON answers (no network: answers are given or produced by
    ``ask``).

    An answer for a part is a JSON object: ``{"type": "revolute", "axis": 3, "pivot": 3 | [x, y, z],
    "direction": 1 | -1, "limits": [lower, upper], "reason": "..."}``. ``axis`` is the index of a candidate in the
    part's context (``PartContext.summary()["candidates"]``, what the prompt shows); ``pivot`` defaults to that
    candidate's pivot; ``direction`` (default 1) flips the candidate direction so that a positive value opens;
    ``limits`` (radians or meters) are optional caps. ``answers`` maps part names to answers (a dict, or JSON text
    of an object keyed by part or of a list of objects with a ``part`` key); ``ask(prompt) -> str`` is called for
    parts without a given answer. Parts with neither go to ``fallback`` (the rule reasoner by default; None: a
    missing answer is an error). A malformed answer raises ``InvalidInputError`` saying what is wrong.
    """

    name = "vlm"

    def __init__(self, answers: Mapping[str, Any] | str | list[Any] | None = None,
                 ask: Callable[[str], str] | None = None, fallback: Reasoner | None = None,
                 use_fallback: bool = True) -> None:
        self.answers = _parse_answers(answers)
        self.ask = ask
        self.fallback = (fallback or RuleReasoner()) if use_fallback else None

    @staticmethod
    def prompt(ctx: PartContext) -> str:
        """The text a VLM is asked for one part (the facts and candidates as JSON, and the answer format)."""
        return (
            "You articulate a 3D object made of labelled parts (meters, +Z up, the object's front faces +X).\n"
            f"Decide how part {ctx.name!r} ({ctx.label}) moves relative to its parent {ctx.parent!r} "
            f"({ctx.parent_label}). Facts and candidate axes:\n{json.dumps(ctx.summary())}\n"
            'Answer with one JSON object: {"type": "fixed|revolute|prismatic|continuous", "axis": <candidate '
            'index>, "pivot": <candidate index or [x, y, z]>, "direction": 1 or -1 (so that a positive value '
            'opens), "limits": [lower, upper] (optional), "reason": "..."}')

    def decide(self, ctx: PartContext) -> Decision:
        """The decision from the answer for ``ctx.name`` (asked for when missing; else the fallback's)."""
        answer = self.answers.get(ctx.name)
        if answer is None and self.ask is not None:
            answer = _parse_one(self.ask(self.prompt(ctx)), ctx.name)
        if answer is None:
            if self.fallback is None:
                raise InvalidInputError(f"the VLM gave no answer for part {ctx.name!r}")
            return self.fallback.decide(ctx)
        return decision_from_answer(answer, ctx)


def _parse_answers(answers: Mapping[str, Any] | str | list[Any] | None) -> dict[str, dict[str, Any]]:
    if answers is None:
        return {}
    if isinstance(answers, str):
        try:
            answers = json.loads(answers)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"VLM answers are not valid JSON ({exc})") from exc
    if isinstance(answers, list):
        out: dict[str, dict[str, Any]] = {}
        for i, a in enumerate(answers):
            if not isinstance(a, Mapping) or not isinstance(a.get("part"), str):
                raise InvalidInputError(f"VLM answer [{i}] must be an object with a string 'part', got {a!r}")
            out[a["part"]] = dict(a)
        return out
    if not isinstance(answers, Mapping):
        raise InvalidInputError(f"VLM answers must be a JSON object or list, got {type(answers).__name__}")
    out = {}
    for k, v in answers.items():
        if not isinstance(v, Mapping):
            raise InvalidInputError(f"VLM answer for part {k!r} must be a JSON object, got {v!r}")
        out[str(k)] = dict(v)
    return out


def _parse_one(text: str, part: str) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, TypeError) as exc:
        raise InvalidInputError(f"VLM answer for part {part!r} is not valid JSON ({exc}): {text!r}") from exc
    if not isinstance(doc, dict):
        raise InvalidInputError(f"VLM answer for part {part!r} must be a JSON object, got {doc!r}")
    return doc


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def decision_from_answer(answer: Mapping[str, Any], ctx: PartContext) -> Decision:
    """Check a VLM answer against the part's candidates and turn it into a ``Decision``."""
    where = f"VLM answer for part {ctx.name!r}"
    unknown = sorted(set(answer) - _ANSWER_KEYS)
    if unknown:
        raise InvalidInputError(f"{where}: unknown keys {unknown}; allowed: {sorted(_ANSWER_KEYS)}")
    jtype = answer.get("type")
    if jtype not in JOINT_TYPES:
        raise InvalidInputError(f"{where}: 'type' must be one of {list(JOINT_TYPES)}, got {jtype!r}")
    reason = str(answer.get("reason", "")) or "the VLM's choice"
    n = len(ctx.candidates)
    if jtype == "fixed":
        origin = ctx.contact.centroid if ctx.contact is not None else ctx.shape.box.centre
        return Decision("fixed", _Z, origin, reason=f"VLM: {reason}")
    idx = answer.get("axis")
    if not isinstance(idx, int) or isinstance(idx, bool) or not 0 <= idx < n:
        raise InvalidInputError(f"{where}: 'axis' must be a candidate index 0..{n - 1}, got {idx!r}")
    cand = ctx.candidates[idx]
    pivot = answer.get("pivot", idx)
    if isinstance(pivot, int) and not isinstance(pivot, bool):
        if not 0 <= pivot < n:
            raise InvalidInputError(f"{where}: 'pivot' index must be 0..{n - 1}, got {pivot}")
        point = ctx.candidates[pivot].pivot
    elif isinstance(pivot, (list, tuple)) and len(pivot) == 3 and all(_number(x) for x in pivot):
        point = np.asarray(pivot, np.float64)
    else:
        raise InvalidInputError(f"{where}: 'pivot' must be a candidate index or [x, y, z], got {pivot!r}")
    direction = answer.get("direction", 1)
    if direction not in (1, -1) or isinstance(direction, bool):
        raise InvalidInputError(f"{where}: 'direction' must be 1 or -1, got {direction!r}")
    lower = upper = None
    if "limits" in answer and answer["limits"] is not None:
        lim = answer["limits"]
        if not (isinstance(lim, (list, tuple)) and len(lim) == 2 and all(_number(x) for x in lim)
                and lim[0] <= 0 <= lim[1]):
            raise InvalidInputError(f"{where}: 'limits' must be [lower, upper] numbers with lower <= 0 <= upper, "
                                    f"got {lim!r}")
        lower, upper = float(lim[0]), float(lim[1])
    axis = cand.direction * float(direction)
    defaults = {"revolute": ("free", "hinge"), "prismatic": ("drawer", "slide"), "continuous": ("", "spin")}
    prior, preset = defaults[jtype]
    rule = RuleReasoner().decide(ctx) if jtype != "continuous" else None
    if rule is not None and rule.type == jtype:  # keep the rules' prior and preset for the same kind of joint
        prior, preset = rule.limits, rule.preset
    if ctx.label == "wheel" and jtype == "continuous":
        preset = "wheel"
    return Decision(jtype, axis, point, idx, prior, preset, f"VLM: {reason}", lower, upper)


__all__ = [
    "FIXED_LABELS", "JOINT_PRESETS", "LEAF_LABELS", "LIMIT_PRIORS", "MOVING_PANELS", "ROOT_LABELS", "Decision",
    "PartContext", "Reasoner", "RuleReasoner", "VLMReasoner", "build_tree", "choose_root", "decision_from_answer",
    "subtree",
]
