"""'over' / 'above': what hangs (a pendant lamp, a curtain rod, a cooker hood) right above another object; parsed,
placed (over the target's centre; on a wall: on the target's wall, centred on it, clear of its top) and checked."""

from __future__ import annotations

import math

import numpy as np
import pytest

from seed3d.scene.checks import check_scene
from seed3d.scene.compose import ComposeConfig, SceneResult, compose_scene, crosses_over
from seed3d.scene.plan import (
    MOUNT_CEILING_GAP,
    OVER_GAP,
    OVER_TOP_GAP,
    PLAN_JSON_SCHEMA,
    LayoutPlan,
    ObjectSpec,
    Relation,
    Room,
    mount_height,
    plan_scene,
)
from seed3d.scene.solve import OVER_OFFSET, ObjectGeometry, Placement, SolverConfig, solve
from seed3d.synth import generate
from tests.scene._helpers import rels


def _plan(objects: list[ObjectSpec], relations: list[Relation], size: tuple[float, float, float]) -> LayoutPlan:
    return LayoutPlan("test", Room("room", size), objects, relations).validate()


def _centre(p: Placement, geom: ObjectGeometry) -> np.ndarray:
    """Room xy of the centre of an object's footprint."""
    mid = geom.bounds.mean(axis=0)
    c, s = math.cos(p.yaw), math.sin(p.yaw)
    return np.array([p.x + c * mid[0] - s * mid[1], p.y + s * mid[0] + c * mid[1]])


def _rod(length: float = 1.8, drop: float = 2.0) -> ObjectGeometry:
    """A curtain rod as the solver sees one: the rod and brackets along the top, a curtain gathered at each end."""
    return ObjectGeometry(np.array([
        [[-0.07, -length / 2, drop - 0.07], [0.07, length / 2, drop]],
        [[0.02, -length / 2 + 0.05, 0.0], [0.07, -length / 2 + 0.35, drop - 0.01]],
        [[0.02, length / 2 - 0.35, 0.0], [0.07, length / 2 - 0.05, drop - 0.01]]]))


# --------------------------------------------------------------------------------------------- planner


@pytest.mark.parametrize(("text", "expected", "nouns"), [
    ("a dining room with a table and a pendant lamp over the table", {"over(ceiling_lamp, table)"},
     {"ceiling_lamp": "pendant lamp"}),
    ("a bedroom with a window and a curtain rod over the window", {"over(curtain_rod, window)"},
     {"curtain_rod": "curtain rod"}),
    ("a bedroom with a window and a curtain rod above the window", {"over(curtain_rod, window)"}, {}),
    ("a kitchen with a stove against the wall and a range hood over the stove", {"over(range_hood, oven)"}, {}),
    ("a table and a pendant lamp hanging above it", {"over(ceiling_lamp, table)"}, {}),
    ("a clock on the wall above the sofa", {"over(clock, sofa)", "against_wall(clock, wall)"}, {}),
])
def test_over_and_above_are_parsed(text: str, expected: set[str], nouns: dict[str, str]) -> None:
    plan = plan_scene(text)
    assert expected <= rels(plan)
    for gid, noun in nouns.items():  # 'over' is no longer part of the noun
        assert plan.group(gid).noun == noun
    # a pendant over something is not also put in the middle of the room
    assert not any(r.type == "centred" for r in plan.relations)


def test_a_lamp_over_something_hangs_and_standing_things_are_never_over() -> None:
    plan = plan_scene("a lamp hanging over the table")
    assert {g.category for g in plan.objects} == {"ceiling_lamp", "table"}
    assert "over(ceiling_lamp, table)" in rels(plan) and plan.group("ceiling_lamp").fixed
    boxed = plan_scene("a room with a sofa and a box over the sofa")
    assert not any(r.type == "over" for r in boxed.relations)
    assert any("box does not hang; 'over the sofa' was not kept" in n for n in boxed.notes)
    # a plan document (an LLM's) may say it too, and the schema offers it
    doc = plan.to_dict()
    assert LayoutPlan.from_dict(doc).relations[0].type == "over"
    assert "over" in PLAN_JSON_SCHEMA["properties"]["relations"]["items"]["properties"]["type"]["enum"]


def test_mount_height_clears_what_it_hangs_over() -> None:
    assert mount_height("curtain_rod", 1.9, 2.6, over=1.9) == pytest.approx(2.3 - 1.9)  # the default is high enough
    assert mount_height("curtain_rod", 1.9, 2.6, over=2.3) == pytest.approx(2.3 + OVER_TOP_GAP - 1.9)
    # never closer to the ceiling than MOUNT_CEILING_GAP
    assert mount_height("curtain_rod", 1.9, 2.6, over=2.45) == pytest.approx(2.6 - MOUNT_CEILING_GAP - 1.9)
    assert mount_height("range_hood", 0.8, 2.6, over=0.9) == pytest.approx(1.55)
    assert mount_height("range_hood", 0.8, 2.6, over=1.6) == pytest.approx(1.6 + OVER_GAP)
    assert mount_height("ceiling_lamp", 0.8, 2.6, over=2.0) == pytest.approx(1.8)  # the ceiling decides


# --------------------------------------------------------------------------------------------- layout


def test_a_pendant_hangs_right_over_the_table() -> None:
    plan = plan_scene("a dining room with a table and a pendant lamp over the table")
    geoms = {"table": ObjectGeometry.box((0.9, 1.6, 0.75)),
             "ceiling_lamp": ObjectGeometry.box((0.3, 0.3, 0.9), support=False)}
    for seed in range(3):
        layout = solve(plan, geoms, seed=seed)
        t, lamp = layout.placements["table"], layout.placements["ceiling_lamp"]
        assert np.linalg.norm(_centre(lamp, geoms["ceiling_lamp"]) - _centre(t, geoms["table"])) < 0.03, seed
        assert lamp.z + 0.9 == pytest.approx(plan.room.size[2])  # its top at the ceiling
        assert layout.unmet == [] and layout.relaxed == []


@pytest.mark.parametrize(("window_height", "rod_top"), [(1.0, 2.3), (1.4, 0.9 + 1.4 + OVER_TOP_GAP)])
def test_a_curtain_rod_hangs_on_the_window_wall_centred_above_it(window_height: float, rod_top: float) -> None:
    """The rod goes on the window's wall, centred on it along the wall; its top stays at 2.3 m unless the window
    reaches higher, then it goes just above the window (under the ceiling)."""
    window = ObjectGeometry.box((0.16, 1.0, window_height), support=False)
    objects = [ObjectSpec("wardrobe", "wardrobe"), ObjectSpec("window", "window"),
               ObjectSpec("curtain_rod", "curtain_rod")]
    rels = [Relation("against_wall", "wardrobe", "wall"), Relation("against_wall", "window", "east"),
            Relation("over", "curtain_rod", "window")]
    plan = _plan(objects, rels, (4.0, 3.8, 2.6))
    geoms = {"wardrobe": ObjectGeometry.box((0.6, 1.2, 2.0)), "window": window, "curtain_rod": _rod()}
    layout = solve(plan, geoms, seed=0)
    w, r = layout.placements["window"], layout.placements["curtain_rod"]
    assert w.wall == r.wall == "east" and r.yaw == pytest.approx(w.yaw)
    assert abs(_centre(r, geoms["curtain_rod"])[1] - _centre(w, window)[1]) < 0.01  # centred along the wall
    assert r.z + 2.0 == pytest.approx(rod_top) and rod_top > w.z + window_height
    assert r.z + 2.0 <= 2.6 - MOUNT_CEILING_GAP + 1e-9
    assert layout.unmet == []


def test_a_hood_hangs_over_the_cooker_on_its_wall_and_clears_a_tall_one() -> None:
    objects = [ObjectSpec("oven", "oven"), ObjectSpec("range_hood", "range_hood")]
    rels = [Relation("against_wall", "oven", "north"), Relation("over", "range_hood", "oven")]
    plan = _plan(objects, rels, (4.0, 3.5, 2.6))
    hood = ObjectGeometry.box((0.48, 0.8, 0.6), support=False)
    for height, bottom in ((0.9, 1.55), (1.6, 1.6 + OVER_GAP)):
        geoms = {"oven": ObjectGeometry.box((0.62, 0.76, height)), "range_hood": hood}
        layout = solve(plan, geoms, seed=0)
        o, h = layout.placements["oven"], layout.placements["range_hood"]
        assert h.wall == "north" and abs(h.x - o.x) < 0.01 and h.z == pytest.approx(bottom)
        assert layout.unmet == []


def test_an_over_that_cannot_hold_is_reported() -> None:
    """A clock over a table in the middle of the room cannot be: the layout comes back and says so."""
    objects = [ObjectSpec("table", "table"), ObjectSpec("clock", "clock")]
    rels = [Relation("centred", "table", "room"), Relation("over", "clock", "table")]
    plan = _plan(objects, rels, (4.0, 4.0, 2.6))
    geoms = {"table": ObjectGeometry.box((0.9, 1.6, 0.75)), "clock": ObjectGeometry.box((0.05, 0.3, 0.3), False)}
    layout = solve(plan, geoms, seed=0, config=SolverConfig(time_budget=3))
    assert "over(clock, table)" in layout.relaxed
    assert "over(clock, table) does not hold" in layout.unmet


# --------------------------------------------------------------------------------------------- composed scenes


def _compose(text: str) -> SceneResult:
    return compose_scene(plan_scene(text), seed=2, config=ComposeConfig(candidates=2, render=False, settle=False))


def test_composed_pendant_over_the_table_is_checked_on_the_meshes() -> None:
    result = _compose("a dining room with a table and a pendant lamp over the table")
    c = result.report["checks"]
    rel = next(r for r in c["relations"] if r["relation"] == "over(ceiling_lamp, table)")
    assert rel["ok"], rel
    assert c["collision_free"] and c["support"]["ceiling_lamp"] == "ceiling"
    lamp = next(o for o in result.scene.objects if o.name == "ceiling_lamp")
    lamp.position = lamp.position + np.array([OVER_OFFSET + 0.3, 0.0, 0.0])  # moved off: no longer over it
    moved = next(r for r in check_scene(result.scene, result.plan)["relations"] if r["relation"].startswith("over"))
    assert not moved["ok"] and "off its centre" in moved["detail"]


def test_composed_curtain_rod_over_the_window() -> None:
    result = _compose("a bedroom with a window and a curtain rod over the window")
    c = result.report["checks"]
    rel = next(r for r in c["relations"] if r["relation"] == "over(curtain_rod, window)")
    assert rel["ok"], rel
    assert c["collision_free"], c["collisions"]
    assert c["support"]["curtain_rod"] == c["support"]["window"] == "wall"
    objs = {o.name: o for o in result.scene.objects}
    assert not crosses_over(objs["curtain_rod"].asset, objs["window"].asset, 2.6)  # its curtains leave it free
    rod_top = objs["curtain_rod"].position[2] + objs["curtain_rod"].asset.bounds()[1][2]
    assert objs["window"].position[2] + objs["window"].asset.bounds()[1][2] < rod_top < 2.6
    # on another wall it is not over the window
    rod = objs["curtain_rod"]
    rod.position, rod.yaw = np.array([-rod.position[0], -rod.position[1], rod.position[2]]), rod.yaw + math.pi
    moved = next(r for r in check_scene(result.scene, result.plan)["relations"] if r["relation"].startswith("over"))
    assert not moved["ok"] and "not on the wall window is against" in moved["detail"]


def test_crosses_over_sees_a_curtain_across_the_window() -> None:
    window = generate("window", 0, {"width": 1.4})
    # a short rod whose single curtain hangs from one end across the middle
    rod = generate("curtain_rod", 0, {"length": 1.2, "panels": 1, "panel_share": 0.6})
    assert crosses_over(rod, window, 2.6)
    wide = generate("curtain_rod", 0, {"length": 2.9, "panels": 2, "panel_share": 0.45})
    assert not crosses_over(wide, window, 2.6)
