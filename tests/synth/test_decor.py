"""Furnishings (seed3d.synth.decor): floor and ceiling lamps, range hood, curtain rod and rug move as the real ones
do, at real sizes, with exact collision pieces within the GPU caps."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from seed3d.asset import Asset, Joint
from seed3d.physics import prepare
from seed3d.physics.collision import CollisionConfig, hull_problems, is_flat
from seed3d.physics.functional import check_asset
from seed3d.physics.inertia import mass_properties
from seed3d.synth import CATEGORIES, generate, list_categories
from seed3d.synth.decor import CATEGORIES as DECOR
from seed3d.synth.kinematics import interference, intersection_volume, joint_test_values, posed_meshes
from seed3d.synth.materials import PALETTES
from seed3d.synth.primitives import signed_volume

NAMES = [c.name for c in DECOR]
SEEDS = range(20)


def _movable(a: Asset) -> list[Joint]:
    """The asset's movable joints."""
    return [j for j in a.joints if j.movable]


def _com(a: Asset, names: list[str] | None = None) -> tuple[float, np.ndarray]:
    """Mass and centre of mass of the named parts (all by default) from their meshes and densities."""
    total, moment = 0.0, np.zeros(3)
    for p in a.parts:
        if names is None or p.name in names:
            m, c, _ = mass_properties(p.mesh.vertices, p.mesh.faces, p.physical.density)
            total += m
            moment += m * c
    return total, moment / total


def test_registered_last_so_earlier_categories_keep_their_places() -> None:
    assert NAMES == ["floor_lamp", "ceiling_lamp", "range_hood", "curtain_rod", "rug"]
    names = list_categories()
    assert names[-5:] == NAMES and names[-7:-5] == ["kitchen_pot", "folding_chair"]
    mounts = {n: CATEGORIES[n].mount for n in NAMES}
    assert mounts == {"floor_lamp": "floor", "ceiling_lamp": "ceiling", "range_hood": "wall", "curtain_rod": "wall",
                      "rug": "floor"}
    assert generate("ceiling_lamp", 0).metadata["mount"] == "ceiling"
    for name, nouns in (("floor_lamp", ("floor lamp", "standing lamp")),
                        ("ceiling_lamp", ("ceiling lamp", "pendant lamp", "ceiling light")),
                        ("range_hood", ("range hood", "cooker hood", "extractor hood")),
                        ("curtain_rod", ("curtain rod", "curtain", "curtains")),
                        ("rug", ("rug", "carpet", "hallway runner"))):
        assert set(nouns) <= set(CATEGORIES[name].nouns)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("category", NAMES)
def test_builds_passes_the_functional_checks_and_moves_freely(category: str, seed: int) -> None:
    """Sound, in size, functional, free over every joint's range, with exact non-flat hulls within the GPU caps."""
    a = generate(category, seed)
    a.check_tree()
    cat = CATEGORIES[category]
    lo, hi = a.bounds()
    ext = hi - lo
    assert np.all(ext >= np.array(cat.extent_min) - 1e-9) and np.all(ext <= np.array(cat.extent_max) + 1e-9), ext
    assert lo[2] == pytest.approx(0.0, abs=1e-9) and (lo[:2] + hi[:2]) / 2 == pytest.approx([0, 0], abs=1e-9)
    report = check_asset(a)
    bad = [f"{r.name}: {r.message}" for r in report.results if r.status in ("fail", "warn")]
    assert report.passed and not bad and not report.missing, bad
    for j in _movable(a):
        for v in joint_test_values(j, 4):
            hits = interference(a, j.name, v)
            assert not hits, f"{j.name} at {v:.3f}: {hits}"
    prepared = prepare(a)
    methods = prepared.metadata["physics"]["methods"]
    assert set(methods.values()) <= {"given", "convex"}, methods
    cfg = CollisionConfig()
    for p in prepared.parts:
        assert 1 <= len(p.collision) <= cfg.max_hulls, (p.name, len(p.collision))
        for k, h in enumerate(p.collision):
            assert not hull_problems(h, cfg.max_hull_vertices, cfg.max_hull_polygons), (p.name, k)
            assert not is_flat(h.vertices), (p.name, k)


@pytest.mark.parametrize("category", NAMES)
def test_any_single_parameter_may_be_given(category: str) -> None:
    """Each parameter alone, at the ends of its range or as each of its choices, builds (the seed draws the rest)."""
    cat = CATEGORIES[category]
    for name, prm in cat.params.items():
        if prm.is_finish:
            kind = prm.finish_kinds[-1]  # type: ignore[index]
            values: list[object] = [f"{kind}:{next(iter(PALETTES[kind]))}"]
        elif prm.is_flag:
            values = [True, False]
        elif prm.choices is not None:
            values = list(dict.fromkeys(prm.choices))
        else:
            values = list(prm.bounds)
        for v in values:
            a = generate(category, 1, {name: v})
            assert a.metadata["params_given"] == [name]
            if name not in a.metadata.get("params_unused", []):
                got = a.metadata["params"][name]
                assert got == v or got == pytest.approx(v) or isinstance(v, str), (name, v, got)


# --------------------------------------------------------------------------------------------- floor lamp


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["straight", "arc"])
def test_a_floor_lamp_stands_on_its_heavy_base(kind: str, seed: int) -> None:
    a = generate("floor_lamp", seed, {"kind": kind})
    assert 1.4 - 1e-9 <= a.bounds()[1][2] <= 1.9 + 1e-9
    assert a.bounds()[1][2] == pytest.approx(a.metadata["params"]["height"])
    base = a.part("base").mesh
    rb = (base.bounds[1][0] - base.bounds[0][0]) / 2
    centre = base.bounds.mean(axis=0)
    _, com = _com(a)
    assert np.hypot(*(com - centre)[:2]) < 0.6 * rb  # well inside the base: it does not tip
    assert com[2] < 0.45 * a.bounds()[1][2]  # low: the base carries most of the weight
    switch = next(j for j in a.joints if j.child == "switch")
    assert switch.type == "prismatic" and np.allclose(switch.axis, [0, 0, -1]) and switch.upper >= 0.002
    pressed = posed_meshes(a, {switch.name: switch.upper})["switch"]
    assert pressed.bounds[1][2] == pytest.approx(a.part("switch").mesh.bounds[1][2] - switch.upper)
    assert pressed.bounds[1][2] > base.bounds[0][2] + 0.02  # still above the base's underside
    heads = [j for j in _movable(a) if j.child == "head"]
    assert bool(re.search(r"\barc\b", a.metadata["description"])) == (kind == "arc")
    if kind == "straight":
        assert not heads and len(_movable(a)) == 1
        return
    (head,) = heads
    assert head.type == "revolute" and abs(head.axis[1]) == pytest.approx(1.0)
    assert head.lower == pytest.approx(-head.upper) and np.deg2rad(25) - 1e-9 <= head.upper <= np.deg2rad(35) + 1e-9
    _, hcom = _com(a, a.subtree("head"))
    assert hcom[2] < head.origin[2] - 0.05 and abs(hcom[0] - head.origin[0]) < 1e-3  # it hangs under its knuckle
    tilted = posed_meshes(a, {head.name: head.upper})["shade"]  # the shade rides on the tilting head
    assert abs(tilted.bounds.mean(axis=0)[0] - a.part("shade").mesh.bounds.mean(axis=0)[0]) > 0.03
    assert head.origin[0] - centre[0] > 0.7  # the arc reaches out over a sofa


# --------------------------------------------------------------------------------------------- ceiling lamp


@pytest.mark.parametrize("seed", range(6))
def test_a_pendant_hangs_below_its_canopy_and_swings_about_it(seed: int) -> None:
    a = generate("ceiling_lamp", seed)
    assert a.metadata["mount"] == "ceiling" and a.root == "canopy"
    top = a.bounds()[1][2]
    canopy = a.part("canopy").mesh
    assert canopy.bounds[1][2] == pytest.approx(top)  # the canopy's top is against the ceiling
    (swing,) = _movable(a)
    assert swing.child == "cord" and swing.type == "revolute" and abs(swing.axis[1]) == pytest.approx(1.0)
    assert swing.lower == pytest.approx(-swing.upper) and np.deg2rad(18) - 1e-9 <= swing.upper <= np.deg2rad(22) + 1e-9
    pivot = np.asarray(swing.origin)
    assert pivot[2] < canopy.bounds[0][2] and pivot[:2] == pytest.approx(canopy.bounds.mean(axis=0)[:2], abs=1e-9)
    hanging = a.subtree("cord")
    assert {"shade", "bulb"} <= set(hanging)
    shade = a.part("shade").mesh
    assert shade.bounds[1][2] < pivot[2] - 0.2  # well below the canopy
    _, com = _com(a, hanging)
    assert com[2] < pivot[2] - 0.1 and np.allclose(com[:2], pivot[:2], atol=1e-3)  # it hangs plumb
    rest_c = shade.vertices.mean(axis=0)
    for v in (swing.lower, swing.upper):
        moved = posed_meshes(a, {swing.name: v})["shade"].vertices.mean(axis=0)
        assert np.linalg.norm(moved - pivot) == pytest.approx(np.linalg.norm(rest_c - pivot), rel=1e-6)
        assert abs(moved[0] - rest_c[0]) == pytest.approx(np.linalg.norm(rest_c - pivot) * np.sin(abs(v)), rel=2e-3)


@pytest.mark.slow
def test_a_ceiling_lamp_validates_hung_from_its_ceiling(tmp_path: Path) -> None:
    """The validator holds a ceiling-mounted root fixed, as it holds a wall-mounted one; the pendant rests plumb."""
    from seed3d.export import export_asset
    from seed3d.physics.validate import validate_path

    asset = prepare(generate("ceiling_lamp", 3))
    out = asset.save(tmp_path / asset.name)
    export_asset(asset, out, formats=("urdf", "mjcf"))
    report = validate_path(out)
    assert report.passed, [f"{c.name}: {c.message}" for c in report.checks if c.status == "fail"]
    assert any("ceiling" in n for n in report.notes)


# --------------------------------------------------------------------------------------------- range hood


@pytest.mark.parametrize("seed", range(6))
def test_a_range_hoods_buttons_press_in_filters_swing_down_and_visor_slides_out(seed: int) -> None:
    visor = seed % 2 == 0
    a = generate("range_hood", seed, {"visor": visor, "buttons": 2 + seed % 3})
    assert a.metadata["mount"] == "wall"
    lo, hi = a.bounds()
    body = a.part("body").mesh
    assert body.bounds[0][0] == pytest.approx(lo[0])  # its back is against the wall
    assert 0.6 - 1e-9 <= hi[1] - lo[1] <= 0.9 + 1e-9
    buttons = [j for j in a.joints if a.part(j.child).label == "button"]
    assert len(buttons) == 2 + seed % 3 == a.metadata["attributes"]["buttons"]
    for j in buttons:
        assert j.type == "prismatic" and np.allclose(j.axis, [-1, 0, 0]) and j.upper >= 0.002
        pressed = posed_meshes(a, {j.name: j.upper})[j.child]
        assert pressed.bounds[1][0] == pytest.approx(a.part(j.child).mesh.bounds[1][0] - j.upper)  # inward
    filters = [j for j in a.joints if j.child.startswith("filter_")]
    assert len(filters) == a.metadata["params"]["filters"] >= 1
    for j in filters:
        rest = a.part(j.child).mesh
        assert j.type == "revolute" and np.deg2rad(70) - 1e-9 <= j.upper <= np.deg2rad(90) + 1e-9
        assert j.origin[0] == pytest.approx(rest.bounds[0][0])  # hinged at its back edge
        assert rest.bounds[1][2] < body.bounds[0][2] + 0.02  # underneath
        down = posed_meshes(a, {j.name: j.upper})[j.child]
        assert down.bounds[0][2] < rest.bounds[0][2] - 0.15  # its front swings down
    slides = [j for j in a.joints if j.child == "visor"]
    assert len(slides) == int(visor)
    for j in slides:
        assert j.type == "prismatic" and np.allclose(j.axis, [1, 0, 0])
        out = posed_meshes(a, {j.name: j.upper})["visor"]
        assert out.bounds[1][0] == pytest.approx(a.part("visor").mesh.bounds[1][0] + j.upper)
        assert out.bounds[0][0] < body.bounds[1][0] - 0.02  # still held in its slot


# --------------------------------------------------------------------------------------------- curtain rod


def _brackets(a: Asset) -> list[float]:
    """The brackets' y positions, from the wall plates (the rod part's vertices against the wall)."""
    v = a.part("rod").mesh.vertices
    lo = a.bounds()[0][0]
    ys = np.sort(v[v[:, 0] < lo + 0.002][:, 1])
    groups = np.split(ys, np.where(np.diff(ys) > 0.05)[0] + 1)
    return [float((g.min() + g.max()) / 2) for g in groups]


@pytest.mark.parametrize(("panels", "length"), [(1, 1.4), (2, 1.4), (1, 2.6), (2, 2.6), (2, 3.0)])
def test_curtains_slide_along_the_rod_between_the_brackets(panels: int, length: float) -> None:
    a = generate("curtain_rod", 2, {"panels": panels, "length": length})
    assert a.metadata["mount"] == "wall"
    slides = _movable(a)
    assert len(slides) == panels and all(j.type == "prismatic" for j in slides)
    brackets = _brackets(a)
    assert len(brackets) == (3 if length > 2.0 else 2) == a.metadata["params"]["brackets"]
    rod = a.part("rod").mesh
    axis_z = float(np.mean([j.origin[2] for j in slides]))
    travels = []
    for j in slides:
        assert abs(j.axis[1]) == pytest.approx(1.0) and j.lower == 0.0  # along the rod
        name = j.child
        for v in (0.0, j.upper):
            m = posed_meshes(a, {j.name: v})[name]
            rings = m.vertices[m.vertices[:, 2] > axis_z - 0.03]
            assert len(rings)
            r = np.hypot(rings[:, 0] - j.origin[0], rings[:, 2] - axis_z)
            assert r.max() < 0.03  # the rings stay round the rod
            y0, y1 = rings[:, 1].min(), rings[:, 1].max()
            # never past a bracket: every ring keeps between two neighbouring brackets' collars
            left = max(b for b in brackets if b < (y0 + y1) / 2)
            right = min(b for b in brackets if b > (y0 + y1) / 2)
            assert left + 0.011 < y0 and y1 < right - 0.011
            assert rod.bounds[0][1] < m.bounds[0][1] and m.bounds[1][1] < rod.bounds[1][1]
        travels.append(j.upper)
        span = (brackets[-1] - brackets[0]) / (1 if panels == 1 and len(brackets) == 2 else 2)
        assert j.upper > 0.38 * span
    assert sum(travels) > (0.18 if len(brackets) == 3 and panels == 1 else 0.3) * length
    if panels == 2:  # both drawn to the middle they meet without passing through each other
        closed = posed_meshes(a, {j.name: j.upper for j in slides})
        left, right = (closed[j.child] for j in slides)
        assert intersection_volume(left, right) == 0.0 and left.bounds[1][1] + 0.005 < right.bounds[0][1]
    curtain = a.part(slides[0].child)
    drop = a.metadata["params"]["drop"]
    assert curtain.mesh.bounds[0][2] == pytest.approx(0.0)
    assert 0.003 <= a.metadata["params"]["fabric_thickness"] <= 0.005
    # a thin slab: its volume is its width along the pleats × drop × a few mm
    assert signed_volume(curtain.mesh) < 0.0065 * drop * 1.6 * (curtain.mesh.bounds[1][1] - curtain.mesh.bounds[0][1])
    assert curtain.physical.name == "fabric" and all(not is_flat(h.vertices) for h in curtain.collision)


# --------------------------------------------------------------------------------------------- rug


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("shape", ["rectangular", "round", "runner"])
def test_a_rug_lies_flat_at_a_real_size(shape: str, seed: int) -> None:
    a = generate("rug", seed, {"shape": shape})
    assert not _movable(a) and a.metadata["mount"] == "floor"
    ext = a.bounds()[1] - a.bounds()[0]
    assert ext[2] == pytest.approx(a.metadata["params"]["thickness"]) and 0.005 - 1e-9 <= ext[2] <= 0.02 + 1e-9
    short, long = sorted(ext[:2])
    if shape == "rectangular":
        assert 0.6 - 1e-9 <= short <= 2.0 + 1e-9 and 0.9 - 1e-9 <= long <= 3.0 + 1e-9 and long / short >= 1.3
    elif shape == "round":
        assert short == pytest.approx(long) and 0.9 - 1e-9 <= long <= 2.0 + 1e-9
    else:
        assert 0.6 - 1e-9 <= short <= 0.9 + 1e-9 and 1.8 - 1e-9 <= long <= 3.0 + 1e-9 and long / short >= 2.0
    assert all(p.physical.name == "fabric" for p in a.parts)
    assert bool(re.search(r"\brunner\b", a.metadata["description"])) == (shape == "runner")  # not a round runner
    mats = a.metadata["attributes"]["materials"]
    assert mats["field"]["kind"] == "fabric" and a.metadata["attributes"]["shape"] == shape
    bordered = generate("rug", seed, {"shape": shape, "border": True, "border_finish": "fabric:burgundy",
                                      "field_finish": "fabric:beige"})
    assert {p.name for p in bordered.parts} == {"rug", "border"}
    assert "burgundy" in bordered.metadata["description"] or "beige" in bordered.metadata["description"]
    plain = generate("rug", seed, {"shape": shape, "border": False})
    assert [p.name for p in plain.parts] == ["rug"]


def test_a_glass_visor_is_clear_smoked_or_frosted_and_metal_ones_keep_their_colours() -> None:
    """A cooker hood's glass visor is never amber, green or blue glass; its metal visors still vary in colour."""
    glass, metal = set(), set()
    for seed in range(60):
        finish = str(generate("range_hood", seed, {"visor": True}).metadata["params"]["visor_finish"])
        kind, colour = finish.split(":")
        (glass if kind == "glass" else metal).add(colour)
    assert glass and glass <= {"clear", "smoked", "frosted"}
    assert len(metal) >= 4
