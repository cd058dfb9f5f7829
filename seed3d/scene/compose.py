"""Sentence → sim-ready scene: plan, objects from synth, layout, physics, exports, pictures and a report.

``generate_scene(text, room_size=None, seed=0, out=None, progress=None, planner=None)`` runs

1. **plan** (``seed3d.scene.plan``): room, objects, relations;
2. **objects**: each instance ``i`` comes from ``seed3d.synth.generate(category, s)`` with ``s`` derived from the
   scene seed, ``i`` and a candidate index ``k < candidates``; the candidate whose colour, material and size best
   match the plan is kept (synth has no colour or material knob, so this search is how attributes are honoured;
   when no candidate matches, the main finish is repainted with the asked colour or material, and the report
   says so). An object with a planned size is then scaled uniformly towards it (meshes, hulls, joint origins,
   prismatic limits; inertials are recomputed). What hangs on a wall ``over`` another object is chosen among
   candidates that do not cut into it (``crosses_over``: a curtain rod whose curtains leave its window free);
3. **layout** (``seed3d.scene.solve``) on each object's real geometry (part boxes, door and drawer sweeps,
   support surface); an object it cannot place is left out (with what stands on it) and the search runs again,
   unless ``allow_missing=False``;
4. with ``out``: **physics** (``seed3d.physics.prepare``: collision hulls, inertials), the scene folder
   (``scene.json`` + ``assets/{name}/``), the URDF / MJCF / USD scene (``seed3d.scene.export``), ``plan.json``,
   ``layout.json``, ``plan.png`` (top-down plan), ``overview.png`` (render), the physics check
   (``seed3d.physics.validate.validate_path`` on the folder: PyBullet and MuJoCo load it, every object settles)
   and ``report.json``; the folder is written atomically;
5. **checks** (``seed3d.scene.checks``): collisions, bounds, support, relations, navigability and articulated
   clearance measured on the final meshes.

``report["omissions"]`` lists every noun of the text that was left out or built as a stand-in, and every object
the layout left out, each with its reason (``seed3d.scene.omissions``).

Scene frame: the floor is centred on the origin (``scene.metadata["room_frame"] == "centred"``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import math
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import Asset, Mesh, Scene, SceneObject, atomic_dir, atomic_file
from seed3d.errors import InvalidInputError
from seed3d.scene.omissions import (
    LEFT_OUT,
    MissingObjectsError,
    entry,
    left_out,
    missing_message,
    plan_omissions,
)
from seed3d.scene.plan import (
    FIXED_CATEGORIES,
    OBJECT_RELATIONS,
    WALL_MOUNTED,
    Instance,
    LayoutPlan,
    Planner,
    Relation,
    mount_height,
    plan_scene,
)
from seed3d.scene.solve import Layout, LayoutError, ObjectGeometry, SolverConfig, solve
from seed3d.typed import PathType, ProgressCallback

logger = logging.getLogger(__name__)


#: Basic colour words → sRGB, to pick the nearest colour of a palette when its names do not include the word.
BASIC_COLOURS: dict[str, tuple[float, float, float]] = {
    "white": (0.93, 0.93, 0.92), "black": (0.07, 0.07, 0.08), "grey": (0.5, 0.5, 0.52), "red": (0.75, 0.12, 0.1),
    "blue": (0.15, 0.3, 0.65), "green": (0.22, 0.5, 0.3), "yellow": (0.9, 0.78, 0.15), "orange": (0.9, 0.47, 0.12),
    "pink": (0.9, 0.6, 0.68), "purple": (0.45, 0.25, 0.6), "brown": (0.45, 0.3, 0.18), "beige": (0.83, 0.77, 0.65),
    "cream": (0.93, 0.88, 0.77), "silver": (0.75, 0.76, 0.78), "gold": (0.88, 0.74, 0.4), "teal": (0.12, 0.5, 0.5),
    "navy": (0.14, 0.18, 0.35), "dark": (0.15, 0.14, 0.14), "light": (0.85, 0.84, 0.82),
}
#: Material words of the planner → synth finish kinds (first = the kind used when repainting).
MATERIAL_KINDS: dict[str, tuple[str, ...]] = {
    "wood": ("wood", "painted_wood"), "metal": ("brushed_metal", "painted_metal", "chrome"),
    "plastic": ("plastic",), "glass": ("glass",), "ceramic": ("ceramic",), "fabric": ("fabric",),
    "stone": ("stone",), "rubber": ("rubber",), "painted": ("painted_wood", "painted_metal"),
}
_PAINTED_SIBLING = {"wood": "painted_wood", "brushed_metal": "painted_metal", "chrome": "painted_metal",
                    "stone": "painted_wood", "ceramic": "ceramic", "glass": "glass", "fabric": "fabric",
                    "rubber": "rubber", "plastic": "plastic", "painted_wood": "painted_wood",
                    "painted_metal": "painted_metal"}


#: Room (m) an object chosen for a support surface keeps from the surface's edges, so the solver has slack.
FIT_MARGIN = 0.02
#: Synth parameters of a wall-mounted category that hangs ``over`` a target ``width`` (m) wide, in a room whose
#: longest wall is ``longest`` (m) long, tried when none of its seeds' own leaves the target free
#: (``crosses_over``): a curtain rod long enough that its two curtains, gathered at its ends, leave the window
#: between them (each gathers 45 % of its half of the rod: about 0.275 × length - 4 cm either side of the middle
#: stays free).
CLEAR_PARAMS: dict[str, Callable[[float, float], dict[str, Any]]] = {
    "curtain_rod": lambda width, longest: {"panels": 2, "panel_share": 0.45, "length": round(
        min(3.0, longest - 0.3, max(1.0, (width / 2 + 0.08) / 0.275)), 3)},
}


@dataclass
class ComposeConfig:
    """Settings of ``compose_scene`` / ``generate_scene``."""

    candidates: int = 8
    """Synth seeds tried per object when looking for the planned colour, material and size."""
    min_scale: float = 0.6
    """Smallest uniform scale applied towards a planned size."""
    max_scale: float = 1.6
    """Largest uniform scale applied towards a planned size."""
    solver: SolverConfig = field(default_factory=SolverConfig)
    """Layout search settings (time budget, grid, clearance, robot)."""
    fast_collision: bool = True
    """Parts without exact collision pieces get their convex hull instead of a CoACD decomposition (seconds
    instead of minutes per scene; tabletop items become solid)."""
    formats: tuple[str, ...] = ("urdf", "mjcf", "usd")
    """Scene formats written under ``out``."""
    settle: bool = True
    """Run the physics check (PyBullet and MuJoCo settle) on the written scene."""
    settle_seconds: float = 2.0
    """Simulated seconds of the settle."""
    render: bool = True
    """Render ``overview.png``."""
    render_size: tuple[int, int] = (800, 600)
    """Width and height of the overview."""
    checks: bool = True
    """Measure the scene (``seed3d.scene.checks``) into the report."""


@dataclass
class SceneResult:
    """What ``generate_scene`` returns: the plan, the scene, the layout, the report and the written paths."""

    plan: LayoutPlan
    scene: Scene
    layout: Layout
    report: dict[str, Any]
    paths: dict[str, Path] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------- objects


def derive_seed(scene_seed: int, index: int, candidate: int = 0) -> int:
    """The synth seed of object ``index``'s ``candidate`` in a scene (a stable hash, 0 ≤ s < 2³¹)."""
    digest = hashlib.sha256(f"seed3d.scene/{int(scene_seed)}/{int(index)}/{int(candidate)}".encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


def scale_asset(asset: Asset, factor: float) -> Asset:
    """A copy scaled uniformly about its origin: meshes, hulls, joint origins, prismatic limits; inertials are
    dropped (``seed3d.physics.prepare`` recomputes them)."""
    if not (math.isfinite(factor) and factor > 0):
        raise InvalidInputError(f"scale factor must be positive, got {factor}")
    out = asset.copy()
    for p in out.parts:
        p.mesh = Mesh(p.mesh.vertices * factor, p.mesh.faces, p.mesh.uv)
        p.collision = [Mesh(h.vertices * factor, h.faces) for h in p.collision]
        p.inertial = None
    for j in out.joints:
        j.origin = j.origin * factor
        if j.type == "prismatic":
            j.lower, j.upper = j.lower * factor, j.upper * factor
    out.metadata = dict(out.metadata)
    out.metadata["scene_scale"] = round(float(factor) * float(asset.metadata.get("scene_scale", 1.0)), 6)
    physics = dict(out.metadata.get("physics") or {})
    if physics:
        physics["warnings"] = [w for w in physics.get("warnings", []) if "inertial" not in w]
        out.metadata["physics"] = physics
    return out


def _finishes(asset: Asset) -> dict[str, dict[str, str]]:
    mats = asset.metadata.get("attributes", {}).get("materials", {})
    return {k: v for k, v in mats.items() if isinstance(v, dict) and "kind" in v and "colour" in v}


def _colour_matches(colour: str, name: str) -> bool:
    words = colour.replace("gray", "grey").split()
    return all(w in name.split() or w in name for w in words)


def _attr_score(asset: Asset, colour: str | None, material: str | None) -> tuple[int, int]:
    fins = list(_finishes(asset).values())
    main = fins[:2]  # body/frame/top, then fronts
    c_ok = colour is None or any(_colour_matches(colour, f["colour"]) for f in main)
    m_ok = material is None or material not in MATERIAL_KINDS or any(
        f["kind"] in MATERIAL_KINDS[material] for f in main)
    return (0 if c_ok else 1), (0 if m_ok else 1)


def _best_scale(extent: np.ndarray, target: tuple[float, float, float] | None, lo: float, hi: float
                ) -> tuple[float, float]:
    """(uniform scale towards ``target``, residual shape mismatch) — geometric mean of the axis ratios."""
    if target is None:
        return 1.0, 0.0
    t = np.asarray(target, np.float64)
    e = np.maximum(np.asarray(extent, np.float64), 1e-4)
    logs = np.log(t / e)
    if extent[2] < 0.05:  # flat things (laptops): match the footprint only
        logs = logs[:2]
    s = float(np.exp(np.mean(logs)))
    s = float(np.clip(s, lo, hi))
    residual = float(np.sum(np.abs(logs - math.log(s))))
    return s, residual


def _nearest_colour(kind: str, colour: str) -> str:
    from seed3d.synth.materials import PALETTES

    pal = PALETTES[kind]
    named = [c for c in pal if _colour_matches(colour, c)]
    if named:
        return named[0]
    rgb = np.zeros(3)
    words = [w for w in colour.replace("gray", "grey").split() if w in BASIC_COLOURS]
    if not words:
        return next(iter(pal))
    rgb = np.mean([BASIC_COLOURS[w] for w in words], axis=0)
    return min(pal, key=lambda c: float(np.sum((np.asarray(pal[c]) - rgb) ** 2)))


def repaint(asset: Asset, colour: str | None, material: str | None) -> tuple[Asset, str]:
    """Repaint the parts of the asset's main finish with ``colour`` and/or ``material``; returns a note."""
    from seed3d.synth.core import rng_for
    from seed3d.synth.materials import PALETTES, finish, pbr_material, physical_material, physical_name

    fins = _finishes(asset)
    if not fins:
        return asset, "no finish recorded; colour and material not applied"
    role, main = next(iter(fins.items()))
    old_label = f"{main['kind']}_{main['colour'].replace(' ', '_').replace('-', '_')}"
    kind = main["kind"]
    if material and material in MATERIAL_KINDS and kind not in MATERIAL_KINDS[material]:
        kind = MATERIAL_KINDS[material][0]
    elif colour and not any(_colour_matches(colour, c) for c in PALETTES[kind]):
        sibling = _PAINTED_SIBLING.get(kind, kind)
        if any(_colour_matches(colour, c) for c in PALETTES[sibling]) or sibling != kind:
            kind = sibling
    if colour:
        cname = _nearest_colour(kind, colour)
    elif main["colour"] in PALETTES[kind]:
        cname = main["colour"]
    else:
        rgb = np.asarray(PALETTES[main["kind"]][main["colour"]])
        cname = min(PALETTES[kind], key=lambda c: float(np.sum((np.asarray(PALETTES[kind][c]) - rgb) ** 2)))
    fin = finish(kind, cname)
    out = asset.copy()
    changed = 0
    new_mat = None
    for p in out.parts:
        if p.material.name != old_label:
            continue
        if new_mat is None:
            size = p.material.base_color_map.shape[0] if p.material.base_color_map is not None else 64
            cat = str(asset.metadata.get("category", asset.name))
            new_mat = pbr_material(fin, rng_for(cat, int(asset.metadata.get("seed", 0)), "scene/repaint"), size)
        p.material = new_mat
        if kind != main["kind"]:
            p.physical = physical_material(physical_name(fin))
            p.inertial = None
        changed += 1
    attrs = out.metadata.setdefault("attributes", {})
    if isinstance(attrs.get("materials"), dict):
        attrs["materials"][role] = fin.to_dict()
    note = f"repainted {changed} part(s) of the {role} from {main['colour']} {main['kind']} to {fin.words}"
    return out, note


def _fit_scale(asset: Asset, poly: np.ndarray, lo: float) -> float | None:
    """The largest uniform scale in [lo, 1] at which ``asset`` fits on the support polygon ``poly``, or None."""
    from seed3d.scene.solve import fits_on

    base = ObjectGeometry.from_asset(asset)
    if fits_on(base, poly, margin=FIT_MARGIN):
        return 1.0
    for s in np.linspace(0.95, lo, 8):
        g = ObjectGeometry(base.boxes * s, base.sweeps * s, None, 0.0, base.openable)  # same openable: same yaws
        if fits_on(g, poly, margin=FIT_MARGIN):
            return float(s)
    return None


def crosses_over(asset: Asset, target: Asset, room_height: float, gap: float = 0.01) -> bool:
    """Whether a wall-mounted ``asset`` hung right over ``target`` on the same wall (centred on it along the wall,
    at its ``mount_height`` over the target's top) would cut into it: a part within the target's width, depth and
    height, ``gap`` around (a curtain drawn across the window its rod hangs over)."""
    ab, tb = asset.bounds(), target.bounds()
    th = float(tb[1, 2] - tb[0, 2])
    t_lo = mount_height(str(target.metadata.get("category", "")), th, room_height) or 0.0
    bottom = mount_height(str(asset.metadata.get("category", "")), float(ab[1, 2] - ab[0, 2]), room_height,
                          over=t_lo + th)
    if bottom is None:
        return False
    half = float(tb[1, 1] - tb[0, 1]) / 2 + gap
    mid = float(ab[0, 1] + ab[1, 1]) / 2  # what lines up with the target's centre
    for p in asset.parts:
        if not len(p.mesh.faces):
            continue
        b = p.mesh.bounds
        z0, z1 = bottom + b[0, 2] - ab[0, 2], bottom + b[1, 2] - ab[0, 2]
        if z1 <= t_lo - gap or z0 >= t_lo + th + gap or b[0, 0] - ab[0, 0] >= tb[1, 0] - tb[0, 0] + gap:
            continue  # above or below it, or in front of it (both backs on the wall)
        if b[1, 1] - mid > -half and b[0, 1] - mid < half:
            return True
    return False


def build_object(inst: Instance, index: int, scene_seed: int, config: ComposeConfig,
                 fit: np.ndarray | None = None, crosses: Callable[[Asset], bool] | None = None,
                 clear: dict[str, Any] | None = None) -> tuple[Asset, dict[str, Any]]:
    """The asset of one plan instance (seed search, repaint if needed, scale) and a record of what was done.

    ``fit``: the support polygon the object must stand on (candidates that fit are preferred; the chosen one
    is scaled down, not below ``min_scale``, when none fits). ``crosses``: candidates for which it is true (a
    curtain rod whose curtains would cross the window it hangs over, ``crosses_over``) are avoided; when every
    one does, the same seeds are tried again with the synth parameters ``clear`` (``CLEAR_PARAMS``)."""
    from seed3d.synth import generate

    g = inst.group
    colour, material = g.attributes.get("colour"), g.attributes.get("material")
    best: tuple[Any, ...] | None = None
    tries = max(1, config.candidates) * (2 if fit is not None or crosses is not None else 1)
    for params in (None, clear) if crosses is not None and clear else (None,):
        if params is not None and best is not None and best[0] < 100.0:
            break  # a candidate of the seeds' own leaves what it hangs over free
        for k in range(tries):
            seed = derive_seed(scene_seed, index, k)
            asset = generate(inst.category, seed, params)
            ext = asset.bounds()[1] - asset.bounds()[0]
            s, resid = _best_scale(ext, g.size, config.min_scale, config.max_scale)
            cmiss, mmiss = _attr_score(asset, colour, material)
            score = (cmiss + mmiss) * 10.0 + resid + 0.3 * abs(math.log(s))
            if fit is not None:
                fs = _fit_scale(scale_asset(asset, s) if abs(s - 1.0) > 0.03 else asset, fit, config.min_scale)
                score += 100.0 if fs is None else 5.0 * abs(math.log(fs))
            if crosses is not None and crosses(scale_asset(asset, s) if abs(s - 1.0) > 0.03 else asset):
                score += 100.0
            if best is None or score < best[0] - 1e-9:
                best = (score, k, seed, asset, s, cmiss, mmiss, params)
            if score < 0.05:
                break
            if g.size is None and colour is None and material is None and fit is None and crosses is None:
                break
    assert best is not None
    _, k, seed, asset, s, cmiss, mmiss, params = best
    notes: list[str] = []
    if params:
        notes.append(f"built with {params} so that it leaves free what it hangs over")
    if cmiss or mmiss:
        asset, note = repaint(asset, colour if cmiss else None, material if mmiss else None)
        notes.append(note)
    if material and material not in MATERIAL_KINDS:
        notes.append(f"material {material!r} is not one synth can paint; left as generated")
    if abs(s - 1.0) > 0.03:
        asset = scale_asset(asset, s)
        notes.append(f"scaled by {s:.3f} towards the planned size {list(g.size or ())}")
    if fit is not None:
        fs = _fit_scale(asset, fit, config.min_scale)
        if fs is not None and fs < 1.0:
            asset = scale_asset(asset, fs)
            s *= fs
            notes.append(f"scaled by {fs:.3f} to fit on the top it stands on")
    asset = dataclasses.replace(asset, name=inst.name)
    asset.metadata = dict(asset.metadata)
    asset.metadata["scene"] = {"instance": inst.name, "group": g.id, "description": g.description,
                               "synth_seed": seed, "candidate": k}
    ext = asset.bounds()[1] - asset.bounds()[0]
    record = {"name": inst.name, "category": inst.category, "group": g.id, "synth_seed": seed, "candidate": k,
              "scale": round(s if abs(s - 1.0) > 0.03 else 1.0, 4), "size": [round(float(v), 3) for v in ext],
              "planned_size": None if g.size is None else list(g.size), "fixed": g.fixed,
              "description": g.description, "attributes": {k2: v for k2, v in g.attributes.items() if v},
              "notes": notes}
    return asset, record


# --------------------------------------------------------------------------------------------- composing


def compose_scene(plan: LayoutPlan, seed: int = 0, out: PathType | None = None,
                  progress: ProgressCallback | None = None, config: ComposeConfig | None = None,
                  overwrite: bool = False, allow_missing: bool = True) -> SceneResult:
    """Objects, layout and (with ``out``) the written, checked scene folder for a plan; see the module doc.

    ``allow_missing``: an object the layout cannot place (and what stands on it) is left out and the layout
    searched again, at most ``MAX_DROP_ROUNDS`` times; without it the ``LayoutError`` is raised. Either way
    ``report["omissions"]`` lists what the scene left out or built as a stand-in (``seed3d.scene.omissions``)."""
    cfg = config or ComposeConfig()
    omissions = plan_omissions(plan)
    report_progress = progress or (lambda f, m: None)
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    instances = plan.instances()
    assets: dict[str, Asset] = {}
    records: dict[str, dict[str, Any]] = {}
    supports = plan.supports()
    overs = {r.subject: r.target for r in plan.instance_relations() if r.type == "over" and r.target}
    index = {inst.name: i for i, inst in enumerate(instances)}
    # supporters first, so that what they carry is chosen to fit on them; what hangs over another after it
    order = sorted(instances, key=lambda it: (_support_depth(it.name, supports), it.name in overs))
    for n, inst in enumerate(order):
        report_progress(0.05 + 0.15 * n / max(1, len(instances)), f"object {inst.name} ({inst.category})")
        fit = None
        if inst.name in supports:
            fit = ObjectGeometry.from_asset(assets[supports[inst.name]]).support
        crosses, clear = None, None
        if inst.category in WALL_MOUNTED and overs.get(inst.name) in assets:
            target = assets[overs[inst.name]]
            crosses = functools.partial(crosses_over, target=target, room_height=float(plan.room.size[2]))
            if inst.category in CLEAR_PARAMS:
                width = float(target.bounds()[1][1] - target.bounds()[0][1])
                clear = CLEAR_PARAMS[inst.category](width, float(max(plan.room.size[:2])))
        assets[inst.name], records[inst.name] = build_object(inst, index[inst.name], seed, cfg, fit, crosses,
                                                             clear)
    timings["objects"] = time.perf_counter() - t0
    t = time.perf_counter()
    geoms = {n: ObjectGeometry.from_asset(a) for n, a in assets.items()}
    rounds = 0
    reached = [0.2]

    def layout_progress(f: float, m: str) -> None:
        reached[0] = max(reached[0], 0.2 + 0.25 * f)  # a search after leaving something out does not go back
        report_progress(reached[0], m)

    while True:
        try:
            layout = solve(plan, geoms, seed=seed, config=cfg.solver, progress=layout_progress)
            break
        except LayoutError as exc:
            if not allow_missing or not exc.objects or rounds >= MAX_DROP_ROUNDS:
                raise
            rounds += 1
            plan, renamed, dropped = without_instances(plan, exc.objects)
            if not renamed:
                raise
            logger.info("left out %s and searched the layout again", ", ".join(dropped))
            for name, why in dropped.items():
                g = next(i.group for i in instances if i.name == name)
                omissions.append(entry(g.noun or g.category.replace("_", " "), LEFT_OUT, why, objects=[name]))
            assets = {new: _renamed(assets[old], new) for old, new in renamed.items()}
            records = {new: {**records[old], "name": new} for old, new in renamed.items()}
            geoms = {new: geoms[old] for old, new in renamed.items()}
            instances = plan.instances()
    timings["layout"] = time.perf_counter() - t
    # FIXED_CATEGORIES (doors, taps, what is screwed to a wall) are fixed to the world only when standing on the floor
    # or hung on a wall: a tap on a free-standing cabinet moves with it
    fixed = {inst.name for inst in instances if (inst.group.fixed or inst.category in FIXED_CATEGORIES)
             and layout.placements[inst.name].support is None}
    name = _scene_name(out)
    objects = []
    for inst in instances:
        p = layout.placements[inst.name]
        objects.append(SceneObject(inst.name, assets[inst.name], p.position, p.yaw))
    scene = Scene(name, np.asarray(plan.room.size, np.float64), objects, {
        "source": "seed3d.scene", "text": plan.text, "seed": int(seed), "room_type": plan.room.type,
        "room_frame": "centred", "fixed": sorted(fixed), "plan": plan.to_dict(),
        "placements": {n: p.to_dict() for n, p in layout.placements.items()}})
    report: dict[str, Any] = {
        "text": plan.text, "seed": int(seed), "planner": plan.planner,
        "room": {"type": plan.room.type, "size": list(plan.room.size)},
        "objects": [{**records[o.name], "fixed": o.name in fixed, "position": [round(float(v), 4) for v in o.position],
                     "yaw_deg": round(math.degrees(o.yaw), 2), "wall": layout.placements[o.name].wall,
                     "support": layout.placements[o.name].support} for o in objects],
        "relations": [r.to_dict() for r in plan.relations],
        "unmet": list(layout.unmet), "relaxed": list(layout.relaxed),
        "notes": list(plan.notes) + [f"{r['name']}: {n}" for r in records.values() for n in r["notes"]],
        "rejected": list(plan.rejected), "omissions": omissions, "layout": layout.to_dict(),
    }
    paths: dict[str, Path] = {}
    if out is not None:
        paths = _write(scene, plan, layout, fixed, Path(out), cfg, report, timings, report_progress, overwrite)
    elif cfg.checks:
        t = time.perf_counter()
        from seed3d.scene.checks import check_scene

        report["checks"] = check_scene(scene, plan)
        timings["checks"] = time.perf_counter() - t
    timings["total"] = time.perf_counter() - t0
    report["timings"] = {k: round(v, 3) for k, v in timings.items()}
    report_progress(1.0, "scene ready")
    return SceneResult(plan, scene, layout, report, paths)


#: How many times ``compose_scene`` leaves out what the layout could not place and searches again.
MAX_DROP_ROUNDS = 4


def without_instances(plan: LayoutPlan, drop: dict[str, str]) -> tuple[LayoutPlan, dict[str, str], dict[str, str]]:
    """The plan without the instances in ``drop`` (instance → why) and those standing on them.

    Returns (the new plan, old → new name of every instance kept, instance → why of every one left out); a
    group keeps its survivors in order (``chair_1``, ``chair_3`` become ``chair_1``, ``chair_2``), a group with
    none left goes, and so do the relations that name it."""
    gone = dict(drop)
    supports = plan.supports()
    changed = True
    while changed:  # what stands on a left-out object goes with it
        changed = False
        for name, support in supports.items():
            if support in gone and name not in gone:
                gone[name] = f"stood on {support}, which was left out"
                changed = True
    groups, renamed = [], {}
    for g in plan.objects:
        keep = [n for n in g.instance_names() if n not in gone]
        if not keep:
            continue
        ng = dataclasses.replace(g, count=len(keep), attributes=dict(g.attributes))
        renamed.update(zip(keep, ng.instance_names(), strict=True))
        groups.append(ng)
    ids = {g.id for g in groups}
    rels = [Relation(r.type, r.subject, r.target, r.source) for r in plan.relations
            if r.subject in ids and (r.type not in OBJECT_RELATIONS or r.target in ids)]
    new = LayoutPlan(plan.text, dataclasses.replace(plan.room), groups, rels, plan.planner, list(plan.notes),
                     [dict(r) for r in plan.rejected])
    return (new.validate() if groups else new), renamed, gone


def _renamed(asset: Asset, name: str) -> Asset:
    """The asset under its new instance name."""
    if asset.name == name:
        return asset
    out = dataclasses.replace(asset, name=name)
    out.metadata = dict(asset.metadata)
    out.metadata["scene"] = {**dict(out.metadata.get("scene") or {}), "instance": name}
    return out


def _support_depth(name: str, supports: dict[str, str]) -> int:
    depth = 0
    while name in supports and depth < 64:
        name = supports[name]
        depth += 1
    return depth


def _scene_name(out: PathType | None) -> str:
    if out is None:
        return "scene"
    stem = "".join(c if c.isalnum() or c in "_-" else "_" for c in Path(out).name) or "scene"
    return stem[:64]


def _write(scene: Scene, plan: LayoutPlan, layout: Layout, fixed: set[str], out: Path, cfg: ComposeConfig,
           report: dict[str, Any], timings: dict[str, float], progress: ProgressCallback, overwrite: bool
           ) -> dict[str, Path]:
    from seed3d.physics import PhysicsConfig, prepare
    from seed3d.physics.collision import CollisionConfig
    from seed3d.scene.export import export_scene
    from seed3d.scene.image import overview_image, plan_image, save_png

    t = time.perf_counter()
    phys = PhysicsConfig(collision=CollisionConfig(use_coacd=not cfg.fast_collision))
    for i, o in enumerate(scene.objects):
        progress(0.45 + 0.15 * i / max(1, len(scene.objects)), f"physics of {o.name}")
        o.asset = prepare(o.asset, phys)
    timings["physics"] = time.perf_counter() - t
    paths: dict[str, Path] = {}
    with atomic_dir(out, overwrite=overwrite) as tmp:
        t = time.perf_counter()
        progress(0.6, "writing the scene folder")
        staged = scene.save(tmp / ".scene")
        for item in staged.iterdir():
            os.replace(item, tmp / item.name)
        shutil.rmtree(staged)
        progress(0.65, "exporting URDF, MJCF and USD")
        files = export_scene(scene, tmp, fixed, cfg.formats)
        timings["export"] = time.perf_counter() - t
        with atomic_file(tmp / "plan.json") as f:
            f.write_text(plan.to_json() + "\n")
        with atomic_file(tmp / "layout.json") as f:
            f.write_text(json.dumps(layout.to_dict(), indent=2) + "\n")
        t = time.perf_counter()
        progress(0.75, "drawing the plan")
        save_png(tmp / "plan.png", plan_image(scene, plan.text))
        if cfg.render:
            progress(0.78, "rendering the overview")
            try:
                save_png(tmp / "overview.png", overview_image(scene, *cfg.render_size))
            except Exception as exc:
                logger.warning("overview render failed: %s", exc)
                report.setdefault("notes", []).append(f"overview not rendered: {exc}")
        timings["images"] = time.perf_counter() - t
        if cfg.checks:
            t = time.perf_counter()
            progress(0.82, "checking collisions, support, relations, navigation")
            from seed3d.scene.checks import check_scene

            report["checks"] = check_scene(scene, plan)
            timings["checks"] = time.perf_counter() - t
        if cfg.settle:
            t = time.perf_counter()
            progress(0.9, "settling the scene in PyBullet and MuJoCo")
            from seed3d.physics.validate import ValidationConfig, validate_path

            val = validate_path(tmp, ValidationConfig(rest_seconds=cfg.settle_seconds))
            report["physics"] = _physics_summary(val.to_dict())
            timings["settle"] = time.perf_counter() - t
        report["timings"] = {k: round(v, 3) for k, v in timings.items()}
        with atomic_file(tmp / "report.json") as f:
            f.write_text(json.dumps(report, indent=2, default=_json_default) + "\n")
        rel = {"scene": Path("scene.json"), "plan": Path("plan.json"), "layout": Path("layout.json"),
               "plan_image": Path("plan.png"), "report": Path("report.json")}
        if (tmp / "overview.png").is_file():
            rel["overview"] = Path("overview.png")
        rel.update({k: v.relative_to(tmp) for k, v in files.items()})
    paths = {k: out / v for k, v in rel.items()}
    paths["folder"] = out
    return paths


def _physics_summary(doc: dict[str, Any]) -> dict[str, Any]:
    keep = {"passed": doc.get("passed"), "seconds": doc.get("seconds"), "checks": []}
    for c in doc.get("checks", []):
        keep["checks"].append({"name": c["name"], "status": c["status"], "message": c["message"],
                               "numbers": c.get("numbers", {})})
    return keep


def _json_default(obj: Any) -> Any:
    if isinstance(obj, (np.floating, np.integer)):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON-able")


def generate_scene(text: str, room_size: tuple[float, ...] | None = None, seed: int = 0,
                   out: PathType | None = None, progress: ProgressCallback | None = None,
                   planner: Planner | str | None = None, config: ComposeConfig | None = None,
                   overwrite: bool = False, allow_missing: bool = True) -> SceneResult:
    """Plan, build, lay out and (with ``out``) write and check a scene described by ``text``.

    ``room_size`` = (width, depth[, height]) in meters overrides the planned room; ``planner`` is 'rules'
    (default, offline), 'llm' (an OpenAI-compatible endpoint, see ``LLMPlanner.from_env``) or a ``Planner``.
    ``progress(fraction, message)`` is called as the work advances. ``report["omissions"]`` lists what the
    scene left out or built as a stand-in, with the reason; ``allow_missing=False`` raises
    ``MissingObjectsError`` right after planning when the text names an object Seed3D cannot build, and the
    ``LayoutError`` when one cannot be placed (with it, such objects are left out and listed). Raises
    ``PlanError`` (nothing to build), ``LayoutError`` (the objects do not fit) or ``InvalidInputError`` (bad
    arguments; ``out`` exists without ``overwrite``).
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidInputError(f"seed must be a non-negative integer, got {seed!r}")
    if out is not None and Path(out).exists() and not overwrite:
        raise InvalidInputError(f"{out} exists; pass overwrite=True (CLI: --overwrite) to replace it")
    report = progress or (lambda f, m: None)
    report(0.0, "planning")
    t = time.perf_counter()
    plan = plan_scene(text, room_size, planner)
    planned = time.perf_counter() - t
    if not allow_missing:
        omissions = plan_omissions(plan)
        if left_out(omissions):
            raise MissingObjectsError(missing_message(omissions), omissions)
    result = compose_scene(plan, seed, out, report, config, overwrite, allow_missing)
    result.report.setdefault("timings", {})["plan"] = round(planned, 3)
    return result


__all__ = ["MAX_DROP_ROUNDS", "ComposeConfig", "SceneResult", "build_object", "compose_scene", "crosses_over",
           "derive_seed", "generate_scene", "repaint", "scale_asset", "without_instances"]
