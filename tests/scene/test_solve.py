"""seed3d.scene.solve: box maths, hard constraints checked independently on the final meshes, determinism, failure."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from seed3d.scene.checks import check_scene, polygon_gap
from seed3d.scene.compose import ComposeConfig, compose_scene
from seed3d.scene.plan import LayoutPlan, ObjectSpec, Relation, Room, plan_scene
from seed3d.scene.solve import LayoutError, ObjectGeometry, SolverConfig, obb_gap, obb_overlap, solve


def _rect(c: tuple[float, float], h: tuple[float, float], a: float) -> np.ndarray:
    cs, sn = math.cos(a), math.sin(a)
    corners = np.array([[h[0], h[1]], [h[0], -h[1]], [-h[0], -h[1]], [-h[0], h[1]]])
    return corners @ np.array([[cs, sn], [-sn, cs]]) + np.array(c)


def test_obb_tests_agree_with_polygons() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        c1, c2 = rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2)
        h1, h2 = rng.uniform(0.05, 0.5, 2), rng.uniform(0.05, 0.5, 2)
        a1, a2 = rng.uniform(-math.pi, math.pi, 2)
        exact = polygon_gap(_rect(tuple(c1), tuple(h1), a1)[::-1], _rect(tuple(c2), tuple(h2), a2)[::-1])
        gap = float(obb_gap(c1, h1, a1, c2, h2, a2))
        assert gap <= exact + 1e-9  # a lower bound of the true distance…
        hit = bool(obb_overlap(c1, h1, a1, np.array([0, 1.0]), c2, h2, a2, np.array([0.5, 2.0])))
        assert hit == (exact == 0.0)  # …and overlap exactly when the rectangles meet
        if abs(math.sin(2 * (a1 - a2))) < 1e-12:
            assert gap == pytest.approx(exact, abs=1e-9) or gap <= 0
    # boxes that only touch in z do not overlap
    assert not obb_overlap(np.zeros(2), np.ones(2), 0.0, np.array([0.0, 1.0]), np.zeros(2), np.ones(2), 0.0,
                           np.array([1.0, 2.0]))


def _plan(objects: list[ObjectSpec], relations: list[Relation], size: tuple[float, float, float]) -> LayoutPlan:
    return LayoutPlan("test", Room("room", size), objects, relations).validate()


def test_sweeps_stay_clear_and_walls_are_touched() -> None:
    """A box with a door sweeping 0.6 m in front of it, against a wall, and three boxes around: nothing may stand
    in the sweep; the wall object's back touches its wall."""
    door = ObjectGeometry.box((0.6, 0.6, 1.8), sweeps=[((0.3, -0.3, 0.0), (0.9, 0.3, 1.8))])
    geoms = {"fridge": door, **{f"crate_{k}": ObjectGeometry.box((0.5, 0.5, 0.5)) for k in (1, 2, 3)}}
    objects = [ObjectSpec("fridge", "refrigerator"), ObjectSpec("crate", "box", count=3)]
    plan = _plan(objects, [Relation("against_wall", "fridge", "south")], (2.2, 2.0, 2.5))
    layout = solve(plan, geoms, seed=1)
    f = layout.placements["fridge"]
    assert f.wall == "south" and f.y - 0.3 == pytest.approx(-1.0 + 0.003, abs=1e-6)  # back 3 mm from the wall
    assert f.yaw == pytest.approx(math.pi / 2)
    sweep_c = np.array([f.x, f.y]) + 0.6 * np.array([math.cos(f.yaw), math.sin(f.yaw)])
    for k in (1, 2, 3):
        p = layout.placements[f"crate_{k}"]
        gap = obb_gap(np.array([p.x, p.y]), np.array([0.25, 0.25]), p.yaw, sweep_c, np.array([0.3, 0.3]), f.yaw)
        assert gap >= 0.01 - 1e-9


def test_kitchen_layout_meets_every_hard_constraint_on_the_meshes() -> None:
    # 'on the cabinet': a counter is a kitchen counter now, whose ~30 part boxes make this layout's strict pass
    # run out of its time share on a loaded machine (its relations are then met only in the relaxed pass)
    plan = plan_scene("a kitchen with a fridge against the wall, a table with two chairs and a microwave on the "
                      "cabinet, and a trash can to the left of the fridge")
    result = compose_scene(plan, seed=0, config=ComposeConfig())
    c = result.report["checks"]
    assert c["collision_free"], c["collisions"]
    assert c["in_bounds"], c["out_of_bounds"]
    assert all(v is not None for v in c["support"].values()), c["support"]
    assert c["support"]["microwave"] == "cabinet"
    assert all(r["ok"] for r in c["relations"]), [r for r in c["relations"] if not r["ok"]]
    assert c["navigable"] and all(c["reachable"].values()) and all(c["fronts_reachable"].values())
    assert all(v["ok"] for v in c["articulated"].values()), c["articulated"]
    assert c["articulated"]["refrigerator"]["joints"] >= 1
    assert result.layout.unmet == [] and result.layout.relaxed == []


def test_deterministic_per_seed() -> None:
    plan = plan_scene("an office with two desks, two chairs and a bookshelf")
    cfg = ComposeConfig(checks=False)
    a = compose_scene(plan, seed=4, config=cfg).layout.placements
    b = compose_scene(plan_scene("an office with two desks, two chairs and a bookshelf"), seed=4,
                      config=cfg).layout.placements
    c = compose_scene(plan, seed=5, config=cfg).layout.placements
    assert {k: v.to_dict() for k, v in a.items()} == {k: v.to_dict() for k, v in b.items()}
    assert {k: v.to_dict() for k, v in a.items()} != {k: v.to_dict() for k, v in c.items()}


def test_impossible_requests_fail_fast_with_a_reason() -> None:
    start = time.perf_counter()
    with pytest.raises(LayoutError, match=r"30 × refrigerator .* do not fit"):
        compose_scene(plan_scene("thirty fridges in a 2 by 2 m room"), config=ComposeConfig(checks=False))
    assert time.perf_counter() - start < 5.0
    with pytest.raises(LayoutError, match="larger than the"):
        solve(_plan([ObjectSpec("table", "table")], [], (1.0, 1.0, 2.5)),
              {"table": ObjectGeometry.box((1.2, 0.8, 0.7))})
    with pytest.raises(LayoutError, match=r"north wall need .* m of it"):
        geoms = {f"wardrobe_{k}": ObjectGeometry.box((0.6, 1.2, 2.0)) for k in range(1, 4)}
        solve(_plan([ObjectSpec("wardrobe", "wardrobe", count=3)], [Relation("against_wall", "wardrobe", "north")],
                    (3.0, 5.0, 2.6)), geoms)
    with pytest.raises(LayoutError, match="does not fit on the top"):
        solve(_plan([ObjectSpec("cabinet", "cabinet"), ObjectSpec("microwave", "microwave")],
                    [Relation("on", "microwave", "cabinet")], (3.0, 3.0, 2.6)),
              {"cabinet": ObjectGeometry.box((0.2, 1.0, 0.9)), "microwave": ObjectGeometry.box((0.4, 0.45, 0.3))})
    with pytest.raises(LayoutError, match=r"microwave need 0.20 m² but the top of cabinet is 0.09 m²"):
        solve(_plan([ObjectSpec("cabinet", "cabinet"), ObjectSpec("microwave", "microwave")],
                    [Relation("on", "microwave", "cabinet")], (3.0, 3.0, 2.6)),
              {"cabinet": ObjectGeometry.box((0.3, 0.3, 0.9)), "microwave": ObjectGeometry.box((0.4, 0.5, 0.3))})


def test_search_is_time_bounded() -> None:
    """Enough floor by area but no layout that keeps the floor navigable: the search ends within its budget."""
    geoms = {f"box_{k}": ObjectGeometry.box((0.55, 0.55, 0.5)) for k in range(1, 10)}
    plan = _plan([ObjectSpec("box", "box", count=9)], [], (1.8, 1.8, 2.5))
    cfg = SolverConfig(time_budget=1.5, max_fill=1.0)
    start = time.perf_counter()
    with pytest.raises(LayoutError, match="no layout found"):
        solve(plan, geoms, config=cfg)
    assert time.perf_counter() - start < cfg.time_budget + 1.5


def test_relaxed_relations_are_reported() -> None:
    """A chair asked to be centred and against a wall in a big room cannot have both: the relation is relaxed,
    the layout still comes back and says what it could not meet."""
    plan = _plan([ObjectSpec("chair", "chair")], [Relation("against_wall", "chair", "north"),
                                                   Relation("centred", "chair", "room")], (6.0, 6.0, 2.6))
    layout = solve(plan, {"chair": ObjectGeometry.box((0.5, 0.5, 0.9))}, config=SolverConfig(time_budget=3))
    assert layout.relaxed == ["centred(chair, room)"]
    assert layout.unmet == ["centred(chair, room) does not hold"]


def test_checks_catch_a_collision() -> None:
    """The independent checks are not the solver's: move an object into another and they see it."""
    plan = plan_scene("a table with a chair next to it")
    result = compose_scene(plan, seed=2, config=ComposeConfig(checks=False))
    scene = result.scene
    chair = next(o for o in scene.objects if o.name == "chair")
    table = next(o for o in scene.objects if o.name == "table")
    chair.position = table.position + np.array([0.05, 0.0, 0.0])
    c = check_scene(scene, plan)
    assert not c["collision_free"] and c["collisions"][0]["objects"] == ["table", "chair"]
    chair.position = np.array([scene.size[0] / 2 + 0.2, 0.0, 0.0])
    c = check_scene(scene, plan)
    assert not c["in_bounds"] and c["out_of_bounds"][0]["object"] == "chair"
    chair.position = np.array([0.0, 0.0, 0.3])
    assert check_scene(scene, plan)["support"]["chair"] is None
