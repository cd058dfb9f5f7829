"""Kitchen pot and folding chair move as the real ones do (the shared checks in test_synth_categories run on them
too)."""

from __future__ import annotations

import numpy as np
import pytest

from seed3d.physics.functional import check_asset, joint_kind
from seed3d.synth import CATEGORIES, generate, list_categories
from seed3d.synth.collision import MAX_HULL_POLYGONS, polygon_count, reduced_hull
from seed3d.synth.kinematics import interference, joint_test_values, posed_meshes
from seed3d.synth.partnet import CATEGORIES as PARTNET
from seed3d.synth.primitives import sphere

NAMES = [c.name for c in PARTNET]


def test_registered_last_so_earlier_categories_keep_their_places() -> None:
    """Appended after the room furniture (only the furnishings of ``seed3d.synth.decor`` come after them)."""
    from seed3d.synth.decor import CATEGORIES as DECOR
    from seed3d.synth.rooms import CATEGORIES as ROOMS

    assert NAMES == ["kitchen_pot", "folding_chair"]
    names = list_categories()
    at = names.index(ROOMS[-1].name) + 1
    assert names[at:at + 2] == NAMES and names[at + 2:] == [c.name for c in DECOR]
    assert all(n in CATEGORIES for n in NAMES)


@pytest.mark.parametrize("category", NAMES)
@pytest.mark.parametrize("seed", [3, 5])
def test_functional_checks_pass(category: str, seed: int) -> None:
    report = check_asset(generate(category, seed))
    assert report.passed, [(r.name, r.message) for r in report.results if r.status == "fail"]


@pytest.mark.parametrize("seed", range(4))
def test_pot_lid_lifts_straight_up_off_the_rim(seed: int) -> None:
    a = generate("kitchen_pot", seed)
    lid = next(j for j in a.joints if j.child == "lid")
    assert lid.type == "prismatic" and np.allclose(lid.axis, [0, 0, 1]) and lid.lower == 0 and lid.upper >= 0.08
    assert joint_kind(lid.type, "lid", lid.axis) == "lifting_lid"
    rest, up = posed_meshes(a, {}), posed_meshes(a, {lid.name: lid.upper})
    assert up["lid"].bounds[0][2] - rest["lid"].bounds[0][2] == pytest.approx(lid.upper)
    assert np.allclose(up["lid_knob"].bounds[0][:2], rest["lid_knob"].bounds[0][:2])  # the knob rides along
    body_top = a.part("body").mesh.bounds[1][2]
    assert body_top < rest["lid"].bounds[0][2] < body_top + 0.003  # just above the rim at rest
    handles = [p for p in a.parts if p.name.startswith("handle_")]
    assert len(handles) == 2 and all(a.joint_to(h.name).type == "fixed" for h in handles)
    ys = sorted(float(h.mesh.bounds.mean(axis=0)[1]) for h in handles)
    assert ys[0] < 0 < ys[1]  # one each side
    diameter = 2 * a.metadata["params"]["radius"]
    assert 0.16 <= diameter <= 0.3


@pytest.mark.parametrize("seed", range(4))
def test_folding_chair_seat_folds_up_against_the_back(seed: int) -> None:
    a = generate("folding_chair", seed)
    j = next(j for j in a.joints if j.child == "seat")
    assert j.type == "revolute" and abs(j.axis[2]) < 1e-9 and abs(j.axis[1]) == pytest.approx(1.0)
    assert np.radians(80) - 1e-9 <= j.upper <= np.radians(88) + 1e-9
    rest = a.part("seat").mesh.bounds
    folded = posed_meshes(a, {j.name: j.upper})["seat"].bounds
    assert folded[1][2] > rest[1][2] + 0.25  # the front edge rises
    assert folded[1][0] < rest[1][0] - 0.25  # towards the back
    for v in joint_test_values(j, 6):
        assert not interference(a, j.name, v)
    seat_h = a.metadata["params"]["seat_height"]
    assert rest[1][2] <= seat_h + 1e-9 and 0.78 <= a.bounds()[1][2] <= 0.88 + 1e-9


@pytest.mark.parametrize("material", ["metal", "wood"])
@pytest.mark.parametrize("style", ["panel", "slats", "padded"])
def test_folding_chair_styles(material: str, style: str) -> None:
    a = generate("folding_chair", 0, {"frame_material": material, "seat_style": style})
    assert a.metadata["params"]["frame_material"] == material
    assert ("cushion" in {p.name for p in a.parts}) == (style == "padded")
    frame = a.metadata["attributes"]["materials"]["frame"]
    assert (frame["kind"] in ("wood", "painted_wood")) == (material == "wood")
    assert check_asset(a).passed


def test_reduced_hull_keeps_within_the_gpu_polygon_cap() -> None:
    ball = sphere(0.1, segments=32)
    h = reduced_hull(ball)
    assert polygon_count(h) <= MAX_HULL_POLYGONS and len(h.vertices) <= 60
    assert np.all(np.linalg.norm(h.vertices, axis=1) <= 0.1 + 1e-9)  # inside the ball


@pytest.mark.parametrize("category", ["bucket", "toilet", "kitchen_pot"])
def test_parts_keep_within_64_hulls(category: str) -> None:
    a = generate(category, 0)
    assert max(len(p.collision) for p in a.parts) <= 64
    assert all(polygon_count(h) <= MAX_HULL_POLYGONS for p in a.parts for h in p.collision)


def test_nouns_and_scene_placement() -> None:
    from seed3d.program.nouns import NounMapper
    from seed3d.scene.plan import plan_scene

    m = NounMapper()
    for noun, cat in (("saucepan", "kitchen_pot"), ("stock pots", "kitchen_pot"), ("cooking pot", "kitchen_pot"),
                      ("plant pot", "vase"), ("folding chair", "folding_chair"), ("camp chair", "folding_chair")):
        got = m.lookup(noun)
        assert got is not None and got.category == cat, (noun, got)
    plan = plan_scene("a stock pot and a folding chair")
    cats = {o.id: o.category for o in plan.objects}
    on = [(r.subject, r.target) for r in plan.relations if r.type == "on"]
    assert [(cats[s], cats[t]) for s, t in on] == [("kitchen_pot", "kitchen_counter")]
    assert "folding_chair" in cats.values()
