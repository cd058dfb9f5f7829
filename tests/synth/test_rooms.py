"""Room furniture (seed3d.synth.rooms): each piece moves the way the real one does."""

from __future__ import annotations

import numpy as np
import pytest

from seed3d.asset import Asset
from seed3d.physics.functional import check_asset
from seed3d.synth import CATEGORIES, generate
from seed3d.synth.kinematics import posed_meshes
from seed3d.synth.rooms import CATEGORIES as ROOM_CATEGORIES

ROOMS = [c.name for c in ROOM_CATEGORIES]


def _movable(a: Asset) -> list:
    return [j for j in a.joints if j.movable]


def test_room_categories_are_registered_after_the_base() -> None:
    assert set(ROOMS) <= set(CATEGORIES)
    assert {"bed", "sofa", "armchair", "desk", "tv_stand", "vanity", "bathtub", "towel_rack", "coat_rack",
            "kitchen_counter"} <= set(ROOMS)


def test_a_storage_beds_drawers_slide_out_from_under_it() -> None:
    bed = generate("bed", 3, {"storage": True, "size": "queen"})
    drawers = [j for j in bed.joints if j.type == "prismatic"]
    assert len(drawers) == 2 == bed.metadata["params"]["drawers"]
    mattress = bed.part("mattress").mesh
    for j in drawers:
        assert np.allclose(j.axis, [1, 0, 0])
        rest = bed.part(j.child).mesh
        assert rest.bounds[1][2] <= mattress.bounds[0][2]  # under the mattress
        out = posed_meshes(bed, {j.name: j.upper})[j.child]
        assert out.bounds[0][0] - rest.bounds[0][0] == pytest.approx(j.upper)
        assert j.upper > 0.3  # far enough to reach in
        assert out.bounds[0][0] < bed.part("body").mesh.bounds[1][0]  # still held by the base
    plain = generate("bed", 3, {"storage": False})
    assert not _movable(plain) and plain.metadata["attributes"]["legs"]["count"] >= 4


@pytest.mark.parametrize("size", ["single", "double", "queen", "king"])
def test_bed_sizes_are_real_sizes(size: str) -> None:
    bed = generate("bed", 1, {"size": size})
    width = {"single": 0.9, "double": 1.35, "queen": 1.5, "king": 1.8}[size]
    mattress = bed.part("mattress").mesh
    assert mattress.bounds[1][1] - mattress.bounds[0][1] == pytest.approx(width, abs=0.02)
    assert 1.85 < mattress.bounds[1][0] - mattress.bounds[0][0] < 2.1
    assert bed.metadata["attributes"]["kind"] == size and size in bed.metadata["description"]


def test_a_vanitys_doors_open_and_its_tap_lever_lifts() -> None:
    van = generate("vanity", 2, {"layout": "doors", "width": 1.0})
    doors = [j for j in van.joints if j.type == "revolute" and van.part(j.child).label == "door"]
    assert len(doors) == 2
    for j in doors:
        opened = posed_meshes(van, {j.name: np.pi / 2})[j.child]
        assert opened.bounds[1][0] > van.part(j.child).mesh.bounds[1][0] + 0.2  # swings out in front
    lever = next(j for j in van.joints if j.child == "tap_lever")
    up = posed_meshes(van, {lever.name: lever.upper})["tap_lever"]
    assert up.bounds[1][2] > van.part("tap_lever").mesh.bounds[1][2] + 0.02
    basin, top = van.part("basin").mesh, van.part("top").mesh
    assert basin.bounds[0][2] == pytest.approx(top.bounds[1][2])  # the basin stands on the counter top
    spout = van.part("tap").mesh
    assert basin.bounds[0][0] < spout.bounds[1][0] < basin.bounds[1][0]  # the spout reaches over the basin
    drawers = generate("vanity", 2, {"layout": "drawers"})
    assert sum(j.type == "prismatic" for j in drawers.joints) == 2


def test_a_bathtubs_drain_pushes_down_and_its_tap_lever_lifts() -> None:
    tub = generate("bathtub", 0)
    kinds = {j.child: j for j in _movable(tub)}
    assert set(kinds) == {"drain_plug", "tap_lever"}
    plug = kinds["drain_plug"]
    assert plug.type == "prismatic" and np.allclose(plug.axis, [0, 0, -1]) and plug.upper >= 0.002
    down = posed_meshes(tub, {plug.name: plug.upper})["drain_plug"]
    assert down.bounds[1][2] == pytest.approx(tub.part("drain_plug").mesh.bounds[1][2] - plug.upper)
    lever = kinds["tap_lever"]
    up = posed_meshes(tub, {lever.name: lever.upper})["tap_lever"]
    assert up.bounds[1][2] > tub.part("tap_lever").mesh.bounds[1][2] + 0.02


def test_a_towel_stands_arms_swivel_about_the_pole() -> None:
    rack = generate("towel_rack", 0, {"kind": "swivel"})
    arms = [j for j in rack.joints if j.child.startswith("arm_")]
    assert len(arms) == 3 and all(j.type == "revolute" for j in arms)
    pole = rack.part("base").mesh.bounds.mean(axis=0)[:2]  # the round base is centred on the pole
    for j in arms:
        assert np.allclose(j.axis, [0, 0, 1]) and np.allclose(j.origin[:2], pole, atol=1e-9)  # the pole's axis
        m = rack.part(j.child).mesh
        turned = posed_meshes(rack, {j.name: j.upper})[j.child]
        r0 = np.linalg.norm(m.vertices[:, :2] - pole, axis=1).max()
        assert np.linalg.norm(turned.vertices[:, :2] - pole, axis=1).max() == pytest.approx(r0)  # same reach
        assert not np.allclose(turned.bounds, m.bounds)
    valet = generate("towel_rack", 0, {"kind": "valet"})
    assert not _movable(valet)


@pytest.mark.parametrize(("category", "seats"), [("sofa", 3), ("armchair", 1)])
def test_upholstered_seating_is_fixed_with_a_cushion_per_seat(category: str, seats: int) -> None:
    params = {"width": 2.2} if category == "sofa" else {}
    a = generate(category, 4, params)
    assert not _movable(a)
    assert sum(p.name.startswith("seat_cushion") for p in a.parts) == seats
    top = max(a.part(f"seat_cushion_{i}").mesh.bounds[1][2] for i in range(seats))
    assert top == pytest.approx(a.metadata["params"]["seat_height"])
    arms = [a.part(n).mesh for n in ("arm_left", "arm_right")]
    assert all(m.bounds[1][2] > top + 0.05 for m in arms)


def test_a_pedestal_desks_drawers_slide_out_under_its_top() -> None:
    desk = generate("desk", 1, {"kind": "pedestal", "pedestal": "drawers", "drawers_in_pedestal": 3})
    slides = [j for j in desk.joints if j.type == "prismatic"]
    assert len(slides) == 3 and all(np.allclose(j.axis, [1, 0, 0]) for j in slides)
    top = desk.part("top").mesh
    assert all(desk.part(j.child).mesh.bounds[1][2] < top.bounds[0][2] for j in slides)
    assert 0.72 <= top.bounds[1][2] <= 0.77
    legs = generate("desk", 1, {"kind": "legs", "has_drawer": True})
    assert [j.type for j in _movable(legs)] == ["prismatic"]


def test_a_tv_stands_flaps_fold_down() -> None:
    tv = generate("tv_stand", 0, {"layout": "flaps", "columns": 2})
    flaps = [j for j in tv.joints if j.type == "revolute"]
    assert len(flaps) == 2
    for j in flaps:
        down = posed_meshes(tv, {j.name: j.upper})[j.child]
        rest = tv.part(j.child).mesh
        assert down.bounds[1][2] < rest.bounds[1][2] - 0.1 and down.bounds[1][0] > rest.bounds[1][0] + 0.1


def test_a_kitchen_counters_sink_hangs_into_the_run_and_its_doors_open() -> None:
    kc = generate("kitchen_counter", 5, {"layout": "drawers_sink_cupboard", "sink_section_width": 0.85})
    sink, top, body = kc.part("sink").mesh, kc.part("top").mesh, kc.part("body").mesh
    assert sink.bounds[0][2] == pytest.approx(top.bounds[1][2] - kc.metadata["params"]["sink_depth"])  # a real bowl
    assert sink.bounds[0][2] > kc.part("door_0").mesh.bounds[1][2]  # above the doors under it
    assert top.bounds[1][2] == pytest.approx(kc.metadata["params"]["height"])
    doors = [j for j in kc.joints if j.type == "revolute" and kc.part(j.child).label == "door"]
    drawers = [j for j in kc.joints if j.type == "prismatic"]
    assert len(doors) == 3 and len(drawers) == 3
    for j in doors:
        opened = posed_meshes(kc, {j.name: np.pi / 2})[j.child]
        assert opened.bounds[1][0] > body.bounds[1][0] + 0.2
    lever = next(j for j in kc.joints if j.child == "tap_lever")
    assert lever.type == "revolute" and lever.upper > 0.3


@pytest.mark.parametrize("category", ROOMS)
def test_room_furniture_passes_the_functional_checks(category: str) -> None:
    report = check_asset(generate(category, 1))
    assert report.category == category
    bad = [f"{r.name}: {r.message}" for r in report.results if r.status in ("fail", "warn")]
    assert report.passed and not bad and not report.missing, bad
