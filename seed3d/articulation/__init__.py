"""Training-free articulation: from labelled parts to a joint tree with types, axes, pivots, limits and physics.

``articulate(asset)`` ignores the joints it is given (unless ``ArticulationConfig.keep_tree``) and:

1. gives every part its physical properties: collision hulls (kept when present) and mass / inertia from its
   material's density (``seed3d.physics.prepare``);
2. groups the parts into a tree (``infer.choose_root``, ``infer.build_tree``: the body is the root, each part
   hangs from the part it touches most);
3. for each part computes candidate axes with geometric operators (``candidates.Analysis``: contact patches,
   box edges and axes, symmetry axes of revolved parts, principal axes) and lets a ``Reasoner`` pick the joint
   type, axis, pivot and opening direction (``infer.RuleReasoner`` by default, ``infer.VLMReasoner`` for a
   vision-language model's JSON answers); a fitting that meets its parent with a running clearance and carries a
   larger part glued to it is that part's end cut off by the segmenter (a lamp head's knuckle labelled bulb): the
   two are glued and judged as the larger part (``_cut_off_pieces``);
4. cuts the collision hulls back where they overlap parts that move against them, each decided joint taken
   over the widest range its sweep will try (a coarse decomposition of a cabinet body fills its drawer
   cavities; ``ArticulationConfig.clearance``, ``seed3d.physics.collision.clear_moving_parts``);
5. fits limits with a collision-checked sweep of those hulls in PyBullet, capped by priors per kind of part
   (``limits``; a panel or lever that turns back at least ``OPEN_REST`` from rest before it meets anything was
   given part-way open, and that way joins its range), and sets damping / friction presets so parts stay where
   they are put (joint friction at least
   ``hold_margin`` times the gravity torque at rest, or the largest over any pose for tilting arms and for parts
   that turn a full turn);
6. when a moving panel's sweep finds it blocked at rest by a piece with its label that it touches (one door the
   segmenter cut in two), or a part that should turn freely cannot turn a full turn for a fitting that sits on it
   within its bounds (a knob's grip cut off as a button), glues the two into one part of the tree and redoes
   steps 2-5 (``glue_split_panels``: at most ``SPLIT_PASSES`` more passes; the pass that leaves the fewest parts
   blocked is kept);
7. holds every movable joint to the functional checks (``seed3d.physics.functional``: travel its kind needs, axis
   along an edge or face normal of its part, a plausible share of the object, free space over its range, a kind
   the asset's category has): a part whose joint fails them is fused into its parent (a fixed joint) rather than
   given a joint that does not work, and moving parts the category expects but that were not found are named in
   ``metadata["articulation"]["missing"]`` and the asset's notes ("asked for two doors, found none") instead of
   being invented (``ArticulationConfig.functional``).

It works the same on ground-truth parts (synthetic assets with their joints stripped, ``strip_joints``) and on
parts a segmenter predicts. ``metadata["articulation"]`` records, per joint, the reason, the candidate used,
the contact and what the sweep hit.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.articulation._geometry import unit
from seed3d.articulation.candidates import CLEARANCE, FLUSH, Analysis, AnalysisConfig, Candidate, Contact, Shape
from seed3d.articulation.infer import (
    ALWAYS_MOVING,
    FITTINGS,
    FIXED_LABELS,
    MOVING_PANELS,
    Decision,
    PartContext,
    Reasoner,
    RuleReasoner,
    VLMReasoner,
    build_tree,
    choose_root,
    decision_from_answer,
    subtree,
)
from seed3d.articulation.limits import (
    JOINT_PRESETS,
    LIMIT_PRIORS,
    CollisionScene,
    LimitPrior,
    LimitsConfig,
    SweepResult,
    fit_limits,
    inserted_length,
    supported_range,
    sweep_joint,
)
from seed3d.asset import FIXED_MOUNTS, Asset, Joint, joint_motion
from seed3d.errors import InvalidInputError
from seed3d.physics import PhysicsConfig, get_material, prepare
from seed3d.physics.collision import clear_moving_parts
from seed3d.physics.functional import FunctionalConfig, check_asset, joint_verdicts
from seed3d.progress import heartbeat
from seed3d.typed import ProgressCallback

logger = logging.getLogger(__name__)


#: A revolute joint that opens one way whose part turns back at least this far (rad) from rest before it meets
#: anything rests part-way open, and gets that way as its lower range (a laptop given open, a lever mid-throw);
#: a closed door or lid meets its body at once.
OPEN_REST = math.radians(30)
#: The limit priors of parts that may rest part-way open: panels and levers (a latch handle or a tap, free both ways
#: by its shape, turns one way by its mechanism).
OPEN_REST_PRIORS: frozenset[str] = frozenset({"door", "flap", "lid", "screen", "lever"})

#: Passes after the first that glue pieces of one part found blocking each other (``glue_split_panels``).
SPLIT_PASSES = 2

_SUFFIX = {"fixed": "mount", "hinge": "hinge", "lid": "hinge", "stiff": "hinge", "slide": "slide",
           "button": "press", "spin": "spin", "wheel": "spin", "drum": "spin", "swivel": "swivel", "lever": "pivot"}


@dataclass
class ArticulationConfig:
    """Settings of the articulation stage."""

    analysis: AnalysisConfig = field(default_factory=AnalysisConfig)
    """Surface sampling and the gaps that tell glued parts from moving ones."""
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    """Sweep resolution and tolerances."""
    physics: PhysicsConfig | None = None
    """Collision hull and inertia settings passed to ``seed3d.physics.prepare``."""
    keep_tree: bool = False
    """Keep the parent of every part from the input's joints (a user-given tree) instead of inferring it."""
    materials: dict[str, str] = field(default_factory=dict)
    """Physical material names (``seed3d.physics.get_material``) by part name or label, overriding the parts'."""
    check_spin: bool = True
    """Turn every continuous joint a full turn; one that collides becomes a revolute joint over its free range."""
    effort_margin: float = 3.0
    """Effort limits are at least this many times the gravity torque (force) of the moving subtree, plus the
    joint's friction, plus what crossing the joint's range in ``drive_time`` takes."""
    drive_time: float = 1.0
    """Effort limits also cover accelerating the moving subtree across the joint's range (a full turn for a
    continuous joint) from rest to rest in this many seconds, half speeding up and half slowing down: a heavy
    drum needs a stronger drive than its preset."""
    hold_margin: float = 2.0
    """Joints that hold their pose by friction alone (the ``stiff`` preset: lamp arms, shades) and continuous
    joints (a balanced wheel or knob needs none; a drum carrying an off-centre piece does) get at least this many
    times the largest gravity torque of their moving subtree in any pose as joint friction; other revolute and
    prismatic joints this many times the one at rest (a door hinged along its top edge hangs)."""
    glue: list[tuple[str, str]] = field(default_factory=list)
    """Pairs of parts (names) that are one piece whatever their labels (a door cut in two): they move as one, the
    largest carrying the joint, which the reasoner decides on the shape of them all (unused with ``keep_tree``)."""
    glue_split_panels: bool = True
    """When a moving panel (door, drawer, lid, screen) is blocked at rest by a piece of a panel with its label
    that it touches, glue the two and articulate again: the segmenter cut one panel in two. The same for a part
    that should turn freely (a knob) but hits a fitting that sits on it within its bounds (its grip, cut off)."""
    clearance: float | None = 1e-3
    """Gap (m) the collision hulls keep from the parts that move against them, cut once the joints are decided
    and before their limits are swept (``seed3d.physics.collision.clear_moving_parts``); None leaves the hulls
    as decomposed."""
    functional: bool = True
    """Fuse into its parent (fixed joint) every part whose joint fails the functional checks
    (``seed3d.physics.functional``), and name the moving parts the category expects that were not found."""
    functional_config: FunctionalConfig | None = None
    """Tolerances of those checks (default ``FunctionalConfig()``)."""
    time_budget: float | None = None
    """Seconds the whole stage should take (None: no limit of its own): the convex decomposition gets what is left
    of it after ``LATER_SECONDS_PER_PART`` per part for the steps that follow (never more than the physics
    config's ``collision_budget``, never less than ``MIN_COLLISION_BUDGET``); a part it overruns gets boxes."""

    def __post_init__(self) -> None:
        if self.time_budget is not None and not float(self.time_budget) > 0:
            raise InvalidInputError(f"time_budget must be > 0 seconds (or None), got {self.time_budget}")


#: Seconds per part that the steps after the convex decomposition take on 2 cores (tree, reasoner, clearing the
#: hulls, sweeping the limits, twice when pieces of a panel are glued; a 32-part welded dresser: about 50 s,
#: ``eval/bench_articulate_speed.py``), reserved out of ``ArticulationConfig.time_budget``.
LATER_SECONDS_PER_PART = 1.8
#: The least convex decomposition budget (s) a ``time_budget`` leaves an asset (its small parts finish in it).
MIN_COLLISION_BUDGET = 10.0


def physics_within(cfg: ArticulationConfig, parts: int) -> PhysicsConfig:
    """The physics settings of an articulation of ``parts`` parts: ``cfg.physics`` with the convex decomposition
    held to what ``cfg.time_budget`` leaves it."""
    physics = cfg.physics or PhysicsConfig()
    if cfg.time_budget is None:
        return physics
    left = max(MIN_COLLISION_BUDGET, float(cfg.time_budget) - LATER_SECONDS_PER_PART * parts)
    if physics.collision_budget > 0:
        left = min(left, physics.collision_budget)
    return dataclasses.replace(physics, collision_budget=round(left, 1))


def strip_joints(asset: Asset) -> Asset:
    """The same parts with their joints unknown (``joints_known=False``), for evaluation: no joints, inertials
    and joint-revealing metadata (``attributes``) removed."""
    out = asset.copy()
    out.joints = []
    out.joints_known = False
    for p in out.parts:
        p.inertial = None
    meta = {k: v for k, v in out.metadata.items() if k not in ("attributes", "articulation", "physics")}
    out.metadata = meta
    out.check_tree()
    return out


def _tree_from_joints(asset: Asset) -> tuple[str, dict[str, str]]:
    if not asset.joints:
        raise InvalidInputError("keep_tree needs an asset with joints (its parent links); this one has none")
    return asset.root, {j.child: j.parent for j in asset.joints}


def _order(root: str, parents: dict[str, str]) -> list[str]:
    out, queue = [root], [root]
    while queue:
        n = queue.pop(0)
        kids = [c for c, p in parents.items() if p == n]
        out.extend(kids)
        queue.extend(kids)
    return out


def _subtree_inertia(asset: Asset, names: list[str], origin: np.ndarray, axis: np.ndarray) -> float:
    """Moment of inertia (kg·m²) of the parts ``names`` about the line through ``origin`` along unit ``axis``."""
    total = 0.0
    for n in names:
        inertial = asset.part(n).inertial
        if inertial is not None:
            r = inertial.com - origin
            r = r - (r @ axis) * axis
            total += float(axis @ inertial.inertia @ axis) + inertial.mass * float(r @ r)
    return total


def _subtree_mass(asset: Asset, names: list[str]) -> tuple[float, np.ndarray]:
    m, c = 0.0, np.zeros(3)
    for n in names:
        inertial = asset.part(n).inertial
        if inertial is not None:
            m += inertial.mass
            c += inertial.mass * inertial.com
    return m, (c / m if m > 0 else np.zeros(3))


@dataclass
class _Stops:
    """How far a decided prismatic or revolute joint is swept each way, and the prior and caps that fit it."""

    prior: LimitPrior
    up: float
    lo: float
    step: float
    cap_up: float | None
    cap_lo: float | None
    note: str
    clear_up: float
    """How far the positive side is taken when the hulls are cleared round the part: its typical range (the sweep
    may go on past it to find a stop of the mechanism's own, ``LimitPrior.stop_within``; cleared round that wider
    sweep, the hulls of what stops it would be left uncut only at rest)."""


def _stops(work: Asset, parents: dict[str, str], name: str, d: Decision, cfg: ArticulationConfig) -> _Stops:
    """The sweep range of a prismatic or revolute decision: its prior's caps (a drawer: a share of the length it
    has inside its parent), the reasoner's own limits, the turn cap."""
    lcfg = cfg.limits
    note = ""
    prior = LIMIT_PRIORS.get(d.limits or "free", LIMIT_PRIORS["free"])
    rotational = d.type == "revolute"
    cap_up: float | None = None
    cap_lo: float | None = None
    child, parent = work.part(name), work.part(parents[name])
    if not rotational and prior.extension is not None:
        inside = inserted_length(child.mesh, parent.mesh, d.axis)
        if inside <= 0:
            ext = child.mesh.vertices @ d.axis
            inside = float(ext.max() - ext.min())
            note = "no length inside the parent found: the part's own length is used"
        cap_up = prior.extension * inside
    if not rotational and prior.supported:
        lo, hi = supported_range(child.mesh, parent.mesh, d.axis)
        cap_lo, cap_up = -lo, hi
    if d.upper is not None:
        cap_up = d.upper
    if d.lower is not None:
        cap_lo = -d.lower
    up_stop = prior.upper if cap_up is None else cap_up
    if prior.blocked_below is not None and cap_up is None:
        up_stop = max(up_stop, prior.blocked_below)
    clear_up = up_stop
    if prior.stop_within is not None and cap_up is None:  # swept on to find the mechanism's own stop
        up_stop = max(up_stop, prior.stop_within)
    lo_stop = -prior.lower if cap_lo is None else cap_lo
    if rotational:
        up_stop, lo_stop = min(up_stop, lcfg.max_turn), min(lo_stop, lcfg.max_turn)
        clear_up = min(clear_up, lcfg.max_turn)
        step = lcfg.angle_step
    else:
        step = max(0.002, max(up_stop, lo_stop) / 20)
    return _Stops(prior, up_stop, lo_stop, step, cap_up, cap_lo, note, min(clear_up, up_stop))


def _limits(work: Asset, scene: CollisionScene, parents: dict[str, str], name: str, d: Decision,
            cfg: ArticulationConfig) -> tuple[Decision, float, float, SweepResult, str]:
    """Limits of one decided joint (a continuous joint that cannot turn becomes revolute)."""
    lcfg = cfg.limits
    moving = subtree(parents, name)
    note = ""
    if d.type == "fixed":
        return d, 0.0, 0.0, SweepResult(), note
    if d.type == "continuous":
        sweep = SweepResult()
        if cfg.check_spin:
            # the ground is left out: a wheel rolls on it (its polygonal hull dips a little as it turns)
            v, hit = scene.first_contact(moving, lambda a: _motion(d, a), 2 * math.pi, lcfg.spin_check_step,
                                         lcfg.tolerance, lcfg.bisections, ground=False)
            if hit is not None:
                sweep.spin_blocked, sweep.spin_hit = v, hit
                note = f"cannot turn a full turn (hits {hit[1]} at {math.degrees(v):.0f}°): revolute instead"
                d = Decision("revolute", d.axis, d.origin, d.candidate, "free", d.preset, d.reason + "; " + note)
                sweep2 = sweep_joint(scene, moving, "revolute", d.axis, d.origin, lcfg.max_turn, lcfg.max_turn,
                                     lcfg, lcfg.angle_step)
                sweep2.spin_blocked, sweep2.spin_hit = v, hit
                lower, upper = fit_limits(LimitPrior(lcfg.max_turn, lower=-lcfg.max_turn), sweep2, True,
                                          config=lcfg)
                return d, lower, upper, sweep2, note
        return d, 0.0, 0.0, sweep, note
    st = _stops(work, parents, name, d, cfg)
    sweep = sweep_joint(scene, moving, d.type, d.axis, d.origin, st.up, st.lo, lcfg, st.step)
    lower, upper = fit_limits(st.prior, sweep, d.type == "revolute", st.cap_up, st.cap_lo, lcfg)
    note = st.note
    if d.type == "revolute" and st.lo <= 0 and d.lower is None and d.limits in OPEN_REST_PRIORS:
        # a part that opens one way may rest part-way open (a laptop's screen, a lever standing mid-throw): turned
        # back, it travels a good way before it meets anything; that way is its range too
        v, hit = scene.first_contact(moving, lambda a: _motion(d, -a), lcfg.max_turn, lcfg.angle_step,
                                     lcfg.tolerance, lcfg.bisections)
        if hit is not None and v >= OPEN_REST:
            sweep.lower_contact, sweep.lower_hit = v, hit
            back = v - lcfg.angle_backoff
            stop = st.prior.stop_within
            if stop is not None and v > stop:  # no stop of the lever's own that way: its typical throw, at most
                back = min(back, max(upper, st.prior.upper))
            lower = -max(0.0, back)
            note = (note + "; " if note else "") + (
                f"rests {math.degrees(v):.0f}° open (turned back it meets {hit[1]} there): that way is in its range")
    return d, lower, upper, sweep, note


#: Seconds clearing the hulls takes per moving part on a busy CPU (what its heartbeat expects; 4 in 10 s under a
#: load of 10 on 2 cores, eval/results/progress.json).
CLEAR_SECONDS_PER_JOINT = 2.5


def _cleared(work: Asset, parents: dict[str, str], decisions: dict[str, Decision], cfg: ArticulationConfig,
             margin: float, progress: ProgressCallback | None = None) -> Asset:
    """``work`` with its collision hulls cut back around the parts that move against them
    (``clear_moving_parts``), each decided joint taken over the widest range its sweep will try
    (``progress(fraction, message)`` per joint, then every second while the hulls are cut)."""
    report = progress or (lambda f, m: None)
    joints = []
    for i, (name, d) in enumerate(decisions.items()):
        report(0.3 * i / max(len(decisions), 1), f"range of {name} to clear")
        lower = upper = 0.0
        if d.type in ("revolute", "prismatic"):
            st = _stops(work, parents, name, d, cfg)
            lower, upper = -st.lo, st.clear_up
        joints.append(Joint(f"{name}_joint", d.type, parents[name], name, origin=d.origin, axis=d.axis,
                            lower=lower, upper=upper))
    provisional = Asset(work.name, work.parts, joints, work.metadata, joints_known=True)
    moving = sum(j.movable for j in joints)
    report(0.3, f"cutting collision hulls around {moving} moving parts")
    with heartbeat(report, 0.3, 1.0, f"cutting collision hulls around {moving} moving parts",
                   expected_s=max(1.0, CLEAR_SECONDS_PER_JOINT * moving)):  # one opaque call
        cleared = clear_moving_parts(provisional, margin, (cfg.physics or PhysicsConfig()).collision)
    return Asset(work.name, cleared.parts, [], cleared.metadata, joints_known=False)


def _motion(d: Decision, value: float) -> np.ndarray:
    return joint_motion(d.type, d.axis, d.origin, value)


@dataclass
class _Pass:
    """What one pass of steps 2-5 made."""

    work: Asset
    """The parts, their hulls cleared."""
    joints: list[Joint]
    notes: dict[str, dict[str, Any]]
    root: str
    order: list[str]
    split: list[tuple[str, str]]
    """(moving part, piece): a panel blocked at rest by a piece of one with its label that it touches, or a part
    kept from turning freely by a fitting on it (``_blocking_grip``)."""
    blocked: list[str]
    """Moving panels (doors, drawers, lids, screens) fixed because their sweep found no free range, and parts
    that should turn freely but cannot turn a full turn."""
    glue: list[tuple[str, str]]
    """The pairs this pass glued."""


def _pieces(parents: dict[str, str], glue: list[tuple[str, str]]) -> dict[str, str]:
    """Glued piece -> the part that carries it (the one the joint moves), for the parts the ``glue`` pairs join:
    each set of glued parts hangs from one of them, which the tree put on top."""
    cluster = {n: {n} for pair in glue for n in pair}
    for a, b in glue:
        if cluster[a] is not cluster[b]:
            merged = cluster[a] | cluster[b]
            for n in merged:
                cluster[n] = merged
    out: dict[str, str] = {}
    for n, members in cluster.items():
        top = n
        while parents.get(top) in members:
            top = parents[top]
        if top != n:
            out[n] = top
    return out


def _cut_off_pieces(work: Asset, analysis: Analysis, parents: dict[str, str], pieces: dict[str, str]) -> dict[str, str]:
    """Fitting -> the part it is a piece of: a fitting with a running clearance to its parent that carries, glued
    flush, a larger part (by area) that moves by its shape (an arm, a shade). A fitting is a leaf; carrying a
    larger part, it is the end of that part that meets the parent, cut off and labelled apart by the segmenter (a
    lamp head's knuckle labelled bulb), and the joint there is the larger part's."""
    out: dict[str, str] = {}
    for name, par in parents.items():
        contact = analysis.contact(name, par)
        if name in pieces or work.part(name).label not in FITTINGS or contact is None or contact.kind != CLEARANCE:
            continue
        own, best = analysis.shape(name).area, (0.0, "")
        for child, host in parents.items():
            label = work.part(child).label
            if host != name or child in pieces or label in FITTINGS | FIXED_LABELS | ALWAYS_MOVING:
                continue
            glued, area = analysis.contact(name, child), analysis.shape(child).area
            if glued is not None and glued.kind == FLUSH and area > max(own, best[0]):
                best = (area, child)
        if best[1]:
            out[name] = best[1]
    return out


def _blocking_piece(work: Asset, analysis: Analysis, parents: dict[str, str], name: str,
                    sweep: SweepResult) -> str | None:
    """The piece of another panel with ``name``'s label that stops ``name``'s sweep at rest and touches it
    (the piece itself, or the handle or glass glued to it), else None."""
    label = work.part(name).label
    below = set(subtree(parents, name))
    names = {p.name for p in work.parts}
    for hit in (sweep.upper_hit, sweep.lower_hit):
        if hit is None or hit[1] not in names:  # free that way, or stopped by the ground
            continue
        other = hit[1]
        piece = other if work.part(other).label == label else parents.get(other)
        if piece is None or piece in below or work.part(piece).label != label:
            continue
        contact = analysis.contact(name, piece)
        if contact is not None and contact.kind == FLUSH:
            return piece
    return None


def _blocking_grip(work: Asset, analysis: Analysis, parents: dict[str, str], name: str,
                   hit: tuple[str, str] | None) -> str | None:
    """The fitting that stops ``name`` turning a full turn (``hit``: the pair that collided) when it touches
    ``name`` flush and lies within its bounds (the grip of a knob that the segmenter cut off as a button), else
    None."""
    if hit is None or hit[1] not in {p.name for p in work.parts} or hit[1] in subtree(parents, name):
        return None
    other = hit[1]
    if work.part(other).label not in FITTINGS:
        return None
    lo, hi = work.part(name).mesh.bounds
    olo, ohi = work.part(other).mesh.bounds
    margin = 1e-3
    if np.any(olo < lo - margin) or np.any(ohi > hi + margin):
        return None
    contact = analysis.contact(name, other)
    return other if contact is not None and contact.kind == FLUSH else None


def _one_pass(work: Asset, analysis: Analysis, reasoner: Reasoner, cfg: ArticulationConfig,
              glue: list[tuple[str, str]], tree: tuple[str, dict[str, str]] | None,
              report: ProgressCallback) -> _Pass:
    """Steps 2-5 on prepared parts: the tree (``tree`` when given, else inferred with the ``glue`` pairs as one
    piece each), the reasoner's decisions, the cleared hulls and the swept limits."""
    if tree is None:
        root = choose_root(work, analysis)
        parents = build_tree(work, analysis, root, glue)
    else:
        root, parents = tree
    pieces = _pieces(parents, glue)
    cut = _cut_off_pieces(work, analysis, parents, pieces)
    for fitting, part in cut.items():  # the part hangs from the fitting: glued on it, judged with it
        pieces.update({k: fitting for k, v in pieces.items() if v == part})
        pieces[part] = fitting
    glue = [*glue, *((f, p) for f, p in cut.items() if (f, p) not in glue and (p, f) not in glue)]
    order = _order(root, parents)
    joints: list[Joint] = []
    notes: dict[str, dict[str, Any]] = {}
    with CollisionScene(work, ground=cfg.limits.ground) as scene:
        decisions: dict[str, Decision] = {}
        for i, name in enumerate(order[1:]):
            report(0.15 * i / max(len(order) - 1, 1), f"joint of {name}")
            par = parents[name]
            contact, candidates = analysis.contact(name, par), analysis.candidates(name, par)
            notes[name] = {"candidates": len(candidates), "contact": None if contact is None else contact.summary()}
            if name in pieces:
                decisions[name] = Decision("fixed", np.array([0.0, 0.0, 1.0]), analysis.shape(name).box.centre,
                                           reason=f"glued on {par}: pieces of one part move as one")
                continue
            partners = [k for k, v in pieces.items() if v == name]
            if name in cut:
                notes[name]["piece_of"] = cut[name]
            ctx = PartContext(
                name=name, label=work.part(cut.get(name, name)).label, parent=par, parent_label=work.part(par).label,
                shape=analysis.union_shape(name, partners), parent_shape=analysis.shape(par), contact=contact,
                candidates=candidates,
                children=[(c, work.part(c).label) for c, p in parents.items()
                          if (p == name or p in partners) and c not in partners],
                moving=subtree(parents, name), analysis=analysis, scene=scene, parent_decision=decisions.get(par))
            decisions[name] = reasoner.decide(ctx)
    if cfg.clearance is not None:
        report(0.15, "clearing collision hulls around moving parts")
        work = _cleared(work, parents, decisions, cfg, cfg.clearance, lambda f, m: report(0.15 + 0.45 * f, m))
    split: list[tuple[str, str]] = []
    blocked: list[str] = []
    with CollisionScene(work, ground=cfg.limits.ground) as scene:
        for i, name in enumerate(order[1:]):
            report(0.6 + 0.4 * i / max(len(order) - 1, 1), f"limits of {name}")
            d, lower, upper, sweep, note = _limits(work, scene, parents, name, decisions[name], cfg)
            bounded = d.type in ("revolute", "prismatic")
            # every part outside the moving subtree moves against it: the validator rejects any overlap at rest
            depths = scene.depths(subtree(parents, name), ground=False) if bounded else {}
            overlap, into = max(((v, other) for (_, other), v in depths.items()), default=(0.0, ""))
            if bounded and (upper - lower <= 1e-9 or overlap > cfg.limits.rest_overlap):
                # the sweep leaves no free range (the part is blocked at rest), or the part sits inside another (a
                # spurious piece cut inside its parent): a joint that cannot move, or cannot be checked moving, is
                # fixed
                note = (note + "; " if note else "") + (
                    "no free range in the sweep: fixed instead" if upper - lower <= 1e-9 else
                    f"overlaps {into} by {overlap * 1000:.1f} mm at rest: fixed instead")
                if upper - lower <= 1e-9 and work.part(name).label in MOVING_PANELS:
                    blocked.append(name)
                    piece = _blocking_piece(work, analysis, parents, name, sweep)
                    if piece is not None and (piece, name) not in split:
                        split.append((name, piece))
                d = Decision("fixed", d.axis, d.origin, d.candidate, "", "fixed", d.reason + "; " + note)
                lower = upper = 0.0
            elif decisions[name].type == "continuous" and d.type != "continuous":  # cannot turn a full turn
                blocked.append(name)
                grip = _blocking_grip(work, analysis, parents, name, sweep.spin_hit)
                if grip is not None and (grip, name) not in split:
                    split.append((name, grip))
            preset = dict(JOINT_PRESETS.get(d.preset, JOINT_PRESETS["fixed"]))
            if d.type != "fixed":
                mass, com = _subtree_mass(work, subtree(parents, name))
                axis = unit(d.axis)
                if d.type == "prismatic":
                    load = rest = mass * 9.81 * abs(float(axis[2]))
                else:
                    rel = com - d.origin
                    # the largest gravity torque about the axis over a turn: none about a vertical axis (a swivel)
                    across = math.sqrt(max(0.0, 1.0 - float(axis[2]) ** 2))
                    load = mass * 9.81 * float(np.linalg.norm(rel - (rel @ axis) * axis)) * across
                    rest = mass * 9.81 * abs(float(axis @ np.cross(rel, [0.0, 0.0, -1.0])))
                if d.preset == "stiff" or d.type == "continuous":
                    # a tilting arm, and a part turning a full turn, meet their largest gravity torque somewhere:
                    # a drum carrying an off-centre piece of a cut would turn by itself
                    preset["friction"] = max(preset["friction"], cfg.hold_margin * load)
                else:
                    preset["friction"] = max(preset["friction"], cfg.hold_margin * rest)
                # a drive lifts the part against gravity and the joint's own friction, and gets it across its
                # range in drive_time: accelerating for half the time, then braking (travel = accel · t² / 4)
                travel = 2 * math.pi if d.type == "continuous" else upper - lower
                inertia = mass if d.type == "prismatic" else _subtree_inertia(
                    work, subtree(parents, name), d.origin, axis)
                accel = 4 * travel / cfg.drive_time**2
                preset["effort"] = max(preset["effort"],
                                       cfg.effort_margin * load + preset["friction"] + inertia * accel)
            jname = f"{name}_{_SUFFIX.get(d.preset, 'joint')}"
            joints.append(Joint(jname, d.type, parents[name], name, origin=d.origin, axis=d.axis, lower=lower,
                                upper=upper, **preset))
            cand = None if d.candidate is None else analysis.candidates(name, parents[name])[d.candidate].source
            notes[name].update({"joint": jname, "type": d.type, "reason": d.reason, "candidate": d.candidate,
                                "candidate_source": cand, "limit_prior": d.limits or None, "preset": d.preset,
                                "sweep": sweep.to_dict(), "note": note or None})
    return _Pass(work, joints, notes, root, order, split, blocked, glue)


def articulate(asset: Asset, reasoner: Reasoner | None = None, config: ArticulationConfig | None = None,
               progress: ProgressCallback | None = None) -> Asset:
    """A copy of ``asset`` with an inferred joint tree, limits, damping/friction and physical properties.

    The input's joints are ignored (they may be unknown, see ``strip_joints``) unless ``config.keep_tree``.
    ``reasoner`` picks each joint's type and axis (default ``RuleReasoner()``); ``progress(fraction, message)``
    is called as the work advances.
    """
    cfg = config or ArticulationConfig()
    reasoner = reasoner or RuleReasoner()
    report = progress or (lambda fraction, message: None)
    unknown = sorted({str(n) for pair in cfg.glue for n in pair} - {p.name for p in asset.parts})
    if unknown:
        raise InvalidInputError(f"glue names parts the asset does not have: {', '.join(unknown)}")
    start = time.perf_counter()
    if cfg.limits.ground and asset.metadata.get("mount") in FIXED_MOUNTS:
        # screwed to a wall or hung from a ceiling (the asset frame's z = 0 is its bottom, not a floor): its parts
        # swing down past z = 0 (a cooker hood's filters)
        cfg = dataclasses.replace(cfg, limits=dataclasses.replace(cfg.limits, ground=False))
    work = asset.copy()
    for p in work.parts:
        chosen = cfg.materials.get(p.name, cfg.materials.get(p.label))
        if chosen is not None:
            p.physical = get_material(chosen)
        p.inertial = None  # mass and inertia always from the (possibly new) material's density
    report(0.0, "physical properties")
    physics = physics_within(cfg, len(work.parts))
    work = prepare(work, physics, progress=lambda f, m: report(0.3 * f, m))
    analysis = Analysis(work, cfg.analysis)
    report(0.3, "grouping parts")
    tree = _tree_from_joints(asset) if cfg.keep_tree else None
    glue = [] if tree is not None else [(str(a), str(b)) for a, b in cfg.glue]
    found = _one_pass(work, analysis, reasoner, cfg, glue, tree, lambda f, m: report(0.3 + 0.6 * f, m))
    best = found
    for k in range(SPLIT_PASSES if cfg.glue_split_panels and tree is None else 0):
        # a moving panel blocked at rest by a piece of one with its label that it touches: the segmenter cut one
        # door (drawer, lid) in pieces that swing into each other; glued, they move as one (so does a knob with
        # the grip cut off it). The pass that leaves the fewest parts blocked wins (the first on a tie): a glued
        # piece can block its part elsewhere
        new = [g for g in found.split if g not in glue and g[::-1] not in glue]
        if not new:
            break
        glue = [*glue, *new]
        logger.info("%s: pieces of one panel %s glued; articulating again", asset.name, new)
        lo = 0.9 + 0.1 * k / SPLIT_PASSES
        found = _one_pass(work, analysis, reasoner, cfg, glue, None,
                          lambda f, m, lo=lo: report(lo + 0.1 / SPLIT_PASSES * f, m))
        if len(found.blocked) < len(best.blocked):
            best = found
    found = best
    glue = found.glue
    work, joints, notes, root, order = found.work, found.joints, found.notes, found.root, found.order
    meta = {k: v for k, v in work.metadata.items() if k != "articulation"}
    meta["articulation"] = {"reasoner": getattr(reasoner, "name", type(reasoner).__name__), "root": root,
                            "seconds": round(time.perf_counter() - start, 3),
                            "collision_budget": physics.collision_budget,
                            "parts": {n: notes[n] for n in order[1:]}}
    if glue:
        meta["articulation"]["glued"] = [list(g) for g in glue]
    out = Asset(work.name, work.parts, joints, meta, joints_known=True)
    if cfg.functional:
        report(0.99, "functional checks")
        out = _keep_functional(out, cfg.functional_config)
    report(1.0, "articulated")
    logger.info("%s: %d joints (%d movable) in %.1f s", out.name, len(joints),
                sum(j.movable for j in joints), time.perf_counter() - start)
    return out


def _keep_functional(asset: Asset, config: FunctionalConfig | None) -> Asset:
    """``asset`` with every movable joint that fails the functional checks made fixed (its part fused into its
    parent), why recorded per part, and the expected moving parts not found named in the metadata and notes."""
    failed, _ = joint_verdicts(asset, config)
    meta = dict(asset.metadata)
    art = dict(meta.get("articulation", {}))
    parts = {k: dict(v) for k, v in art.get("parts", {}).items()}
    joints: list[Joint] = []
    fused: list[str] = []
    names = {j.name for j in asset.joints}
    for j in asset.joints:
        why = failed.get(j.name)
        if not why:
            joints.append(j)
            continue
        name = f"{j.child}_mount" if f"{j.child}_mount" not in names else j.name
        joints.append(Joint(name, "fixed", j.parent, j.child, origin=j.origin, axis=j.axis, **JOINT_PRESETS["fixed"]))
        note = f"{j.type} joint fails the functional checks ({', '.join(why)}): fused into {j.parent}"
        row = parts.setdefault(j.child, {})
        row.update({"joint": name, "type": "fixed", "functional_failed": why, "fused_from": j.type,
                    "note": "; ".join(x for x in (row.get("note"), note) if x)})
        fused.append(f"{j.child} ({', '.join(why)})")
    out = Asset(asset.name, asset.parts, joints, meta, joints_known=True)
    missing = check_asset(out, config, checks=("kinds",)).missing
    art["parts"] = parts
    if fused:
        art["fused"] = fused
        logger.info("%s: %d joints fail the functional checks and were fused: %s", asset.name, len(fused),
                    "; ".join(fused))
    if missing:
        art["missing"] = missing
        meta["notes"] = [*meta.get("notes", []), *(f"articulation: {m}" for m in missing)]
    meta["articulation"] = art
    out.metadata = meta
    return out


__all__ = [
    "JOINT_PRESETS", "LATER_SECONDS_PER_PART", "LIMIT_PRIORS", "MIN_COLLISION_BUDGET", "Analysis", "AnalysisConfig",
    "ArticulationConfig", "Candidate", "Contact", "Decision", "LimitsConfig", "PartContext", "ProgressCallback",
    "Reasoner", "RuleReasoner", "Shape", "VLMReasoner", "articulate", "decision_from_answer", "physics_within",
    "strip_joints",
]
