"""The newer synth categories in scenes: nouns, table-top supporters (a counter, a desk), floor objects, and what is
screwed to a wall (a clock, a light switch, a window) hung at its mount height, fixed, held by its wall."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from seed3d.physics.validate import validate_scene
from seed3d.scene.checks import check_scene
from seed3d.scene.compose import ComposeConfig, SceneResult, compose_scene
from seed3d.scene.plan import (
    CEILING_MOUNTED,
    FIXED_CATEGORIES,
    MOUNT_CEILING_GAP,
    SUPPORTERS,
    TABLETOP,
    TYPICAL_SIZE,
    WALL_CATEGORIES,
    WALL_MOUNTED,
    LayoutPlan,
    ObjectSpec,
    Relation,
    Room,
    mount_height,
    plan_scene,
)
from seed3d.scene.solve import LayoutError, ObjectGeometry, SupportHoles, solve
from seed3d.synth import CATEGORIES, generate
from tests.scene._helpers import rels


def _on(plan: LayoutPlan) -> dict[str, str]:
    """Group → the category of the group it stands on."""
    return {r.subject: plan.group(r.target).category for r in plan.relations if r.type == "on" and r.target}


# --------------------------------------------------------------------------------------------- planner tables


def test_planner_tables_know_the_new_categories() -> None:
    assert set(WALL_MOUNTED) == {c for c, cat in CATEGORIES.items() if cat.mount == "wall"} == \
        {"clock", "switch", "window", "range_hood", "curtain_rod"}
    assert set(CEILING_MOUNTED) == {"ceiling_lamp"}
    assert {"door", "faucet", *WALL_MOUNTED, *CEILING_MOUNTED} == set(FIXED_CATEGORIES)
    assert {"toilet", "safe"} <= set(WALL_CATEGORIES)
    for name, cat in CATEGORIES.items():  # a typical size within the category's extent range
        if name == "freeform":
            continue
        assert name in TYPICAL_SIZE, name
        assert all(lo - 1e-9 <= v <= hi + 1e-9 for v, lo, hi in zip(TYPICAL_SIZE[name], cat.extent_min,
                                                                      cat.extent_max, strict=True)), name
    small = ("kettle", "toaster", "coffee_machine", "kitchen_pot", "dispenser", "stapler", "pen", "scissors", "usb",
             "mouse", "keyboard", "display", "printer", "lamp", "phone", "remote", "camera", "globe", "eyeglasses",
             "fan", "pliers", "knife", "lighter")
    for name in small:
        assert TABLETOP[name] and set(TABLETOP[name]) <= set(SUPPORTERS), name
    for name in ("bucket", "safe", "toilet", "cart", "trash_can", "folding_chair", "bed", "sofa", *WALL_MOUNTED):
        assert name not in TABLETOP, name
    assert TABLETOP["kettle"][0] == "kitchen_counter" and TABLETOP["stapler"][0] == "desk"
    assert "vanity" in TABLETOP["dispenser"]


def test_mount_heights() -> None:
    assert mount_height("chair", 0.9, 2.6) is None
    assert mount_height("clock", 0.3, 2.6) == pytest.approx(1.7 - 0.15)  # its centre at 1.7 m
    assert mount_height("switch", 0.08, 2.6) == pytest.approx(1.1 - 0.04)  # its centre at 1.1 m
    assert mount_height("window", 1.2, 2.6) == pytest.approx(0.9)  # its sill at 0.9 m
    # a low room: the window's top stays under the ceiling, the sill goes down
    low = mount_height("window", 1.3, 2.1)
    assert low is not None and low + 1.3 == pytest.approx(2.1 - MOUNT_CEILING_GAP) and low < 0.9
    clock = mount_height("clock", 0.4, 1.9)
    assert clock is not None and clock + 0.4 <= 1.9 - MOUNT_CEILING_GAP + 1e-9
    assert mount_height("range_hood", 0.9, 2.6) == pytest.approx(1.55)  # 65 cm over a 90 cm worktop
    assert mount_height("curtain_rod", 1.9, 2.6) == pytest.approx(2.3 - 1.9)  # the rod's top at 2.3 m
    assert mount_height("ceiling_lamp", 0.8, 2.6) == pytest.approx(1.8)  # its canopy against the ceiling
    assert mount_height("ceiling_lamp", 3.0, 2.6) == 0.0


# --------------------------------------------------------------------------------------------- planning


def test_kettle_and_toaster_on_the_counter_stand_on_the_kitchen_counter() -> None:
    plan = plan_scene("a kitchen with a kettle and a toaster on the counter, a window and a clock on the wall")
    assert _on(plan)["kettle"] == "kitchen_counter" and _on(plan)["toaster"] == "kitchen_counter"


def test_kettle_and_toaster_on_the_kitchen_counter() -> None:
    plan = plan_scene("a kitchen with a kettle and a toaster on the kitchen counter, a window and a clock on the "
                      "wall")
    cats = [g.category for g in plan.objects]
    assert cats.count("kitchen_counter") == 1 and "cabinet" not in cats
    on = _on(plan)
    assert on["kettle"] == "kitchen_counter" and on["toaster"] == "kitchen_counter"  # the kettle too, not the floor
    # what hangs on a wall: against a wall, fixed, never on anything
    assert {"against_wall(clock, wall)", "against_wall(window, wall)"} <= rels(plan)
    assert plan.group("clock").fixed and plan.group("window").fixed
    assert "clock" not in on and "window" not in on


def test_printer_and_stapler_on_the_desk() -> None:
    plan = plan_scene("an office with a desk, a laptop, a printer and a stapler on the desk, and a fan")
    assert [g.category for g in plan.objects] == ["desk", "laptop", "printer", "stapler", "fan"]
    assert _on(plan) == {"laptop": "desk", "printer": "desk", "stapler": "desk", "fan": "desk"}
    assert plan_scene("a printer and a stapler on the desk").supports() == {"printer": "desk", "stapler": "desk"}


def test_on_applies_to_every_tabletop_object_of_a_list() -> None:
    # 'a kettle and a toaster on the table': both on the table (as the text says), not the kettle on a counter
    plan = plan_scene("a kitchen with a kitchen counter, a kettle and a toaster on the table")
    assert _on(plan) == {"kettle": "table", "toaster": "table"}
    assert {r.subject: r.source for r in plan.relations if r.type == "on"} == {"kettle": "text", "toaster": "text"}
    # what is not a table-top object, or is a relation's target, is not put on it
    assert _on(plan_scene("a chair and a lamp on the desk")) == {"lamp": "desk"}
    assert _on(plan_scene("a vase on the dresser, a mug and a bowl on the table")) == {
        "vase": "dresser", "mug": "table", "bowl": "table"}


def test_unqualified_tabletop_objects_get_a_supporter() -> None:
    kitchen = plan_scene("a kitchen with a fridge and a kettle")
    assert _on(kitchen) == {"kettle": "kitchen_counter"}
    assert "against_wall(kitchen_counter, wall)" in rels(kitchen)
    assert any("added a kitchen counter for the kettle" in n for n in kitchen.notes)
    # a supporter the plan already has is used before one is added
    assert _on(plan_scene("a kitchen with a cabinet and a coffee machine")) == {"coffee_machine": "cabinet"}
    office = plan_scene("an office with a chair and a stapler")
    assert _on(office) == {"stapler": "desk"} and "against_wall(desk, wall)" in rels(office)
    assert _on(plan_scene("a bathroom with a soap dispenser")) == {"dispenser": "vanity"}
    assert _on(plan_scene("a living room with a sofa and a tv")) == {"display": "tv_stand"}
    # floor objects stay on the floor; the toilet and the safe stand against a wall
    floor = plan_scene("a bathroom with a toilet, a bucket and a safe")
    assert floor.supports() == {} and [g.category for g in floor.objects] == ["toilet", "bucket", "safe"]
    assert {"against_wall(toilet, wall)", "against_wall(safe, wall)"} <= rels(floor)


def test_wall_mounted_objects_are_never_on_anything() -> None:
    plan = plan_scene("a room with a table and a clock on the table")
    assert plan.supports() == {} and "against_wall(clock, wall)" in rels(plan)
    assert any("clock hangs on a wall" in n for n in plan.notes)
    # they take no floor: a bathroom with ten windows keeps its size
    assert plan_scene("a bathroom with ten windows").room.size == (2.6, 2.2, 2.5)


# --------------------------------------------------------------------------------------------- layout


def _plan(objects: list[ObjectSpec], relations: list[Relation], size: tuple[float, float, float]) -> LayoutPlan:
    return LayoutPlan("test", Room("room", size), objects, relations).validate()


def test_a_window_hangs_over_what_is_low_enough_to_stand_under_it() -> None:
    """A 1.2 m wall holds a 1.0 m window and a 0.9 m cabinet only one above the other: a low cabinet fits under
    the sill (the z intervals keep them apart), a tall one does not."""
    window = ObjectGeometry.box((0.16, 1.0, 0.8), support=False)
    objects = [ObjectSpec("window", "window"), ObjectSpec("cabinet", "cabinet")]
    rels = [Relation("against_wall", "window", "north"), Relation("against_wall", "cabinet", "north")]
    plan = _plan(objects, rels, (1.2, 2.0, 2.5))
    layout = solve(plan, {"window": window, "cabinet": ObjectGeometry.box((0.5, 0.9, 0.8))}, seed=0)
    w, c = layout.placements["window"], layout.placements["cabinet"]
    assert w.wall == c.wall == "north" and w.z == pytest.approx(0.9) and c.z < 0.01
    assert w.y + 0.08 == pytest.approx(1.0 - 0.003, abs=1e-6)  # its back 3 mm from the wall
    assert abs(w.x - c.x) < 0.95  # one above the other
    with pytest.raises(LayoutError):
        solve(plan, {"window": window, "cabinet": ObjectGeometry.box((0.5, 0.9, 1.8))}, seed=0)


def test_nothing_stands_over_the_sink_of_a_counter() -> None:
    counter = ObjectGeometry.from_asset(generate("kitchen_counter", 0))
    holes = counter.support_holes
    assert isinstance(holes, SupportHoles) and holes.hole.sum() * holes.cell ** 2 > 0.1
    assert ObjectGeometry.from_asset(generate("table", 0)).support_holes is None  # a solid top has none
    objects = [ObjectSpec("kitchen_counter", "kitchen_counter"), ObjectSpec("kettle", "kettle"),
               ObjectSpec("toaster", "toaster")]
    rels = [Relation("against_wall", "kitchen_counter", "north"), Relation("on", "kettle", "kitchen_counter"),
            Relation("on", "toaster", "kitchen_counter")]
    plan = _plan(objects, rels, (3.0, 3.0, 2.6))
    geoms = {"kitchen_counter": counter, "kettle": ObjectGeometry.box((0.2, 0.2, 0.25)),
             "toaster": ObjectGeometry.box((0.2, 0.3, 0.2))}
    for seed in range(3):
        layout = solve(plan, geoms, seed=seed)
        sp = layout.placements["kitchen_counter"]
        for name in ("kettle", "toaster"):
            p = layout.placements[name]
            c, s = math.cos(sp.yaw), math.sin(sp.yaw)
            local = np.array([c * (p.x - sp.x) + s * (p.y - sp.y), -s * (p.x - sp.x) + c * (p.y - sp.y)])
            assert not holes.over(local[None])[0], (seed, name)


# --------------------------------------------------------------------------------------------- composed scenes


@pytest.fixture(scope="module")
def wall_room(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SceneResult]:
    """A 1.4 m wide room: a small window and a small cabinet on its north wall (so the cabinet stands under the
    window), a clock on another wall; written without the render and the settle (validated in a test)."""
    out = tmp_path_factory.mktemp("scenes") / "wall_room"
    plan = plan_scene("a small window on the north wall, a small cabinet against the north wall and a clock on "
                      "the wall", room_size=(1.4, 2.0, 2.5))
    result = compose_scene(plan, seed=0, out=out, config=ComposeConfig(candidates=2, render=False, settle=False))
    return out, result


def test_clock_and_window_hang_at_their_mount_heights(wall_room: tuple[Path, SceneResult]) -> None:
    out, result = wall_room
    scene = result.scene
    objs = {o.name: o for o in scene.objects}
    W, D, H = (float(v) for v in scene.size)
    lo = {n: o.position[2] + o.asset.bounds()[0][2] for n, o in objs.items()}
    hi = {n: o.position[2] + o.asset.bounds()[1][2] for n, o in objs.items()}
    assert lo["window"] == pytest.approx(0.9, abs=0.03)  # sill at 0.9 m
    assert (lo["clock"] + hi["clock"]) / 2 == pytest.approx(1.7, abs=0.03)  # centre at 1.7 m
    assert hi["window"] < H and hi["clock"] < H
    checks = result.report["checks"]
    assert checks["collision_free"], checks["collisions"]
    assert checks["in_bounds"] and checks["navigable"]
    assert checks["support"] == {"window": "wall", "cabinet": "floor", "clock": "wall"}
    assert all(r["ok"] for r in checks["relations"]), checks["relations"]
    for name in ("window", "clock"):
        p = result.layout.placements[name]
        assert p.wall is not None and p.support is None
        # its back against its wall, facing the room
        verts = np.concatenate([m.vertices for m in
                                (part.mesh.transformed(objs[name].pose()) for part in objs[name].asset.parts)])
        gap = {"north": D / 2 - verts[:, 1].max(), "south": verts[:, 1].min() + D / 2,
               "east": W / 2 - verts[:, 0].max(), "west": verts[:, 0].min() + W / 2}[p.wall]
        assert 0.0 <= gap <= 0.02, (name, gap)
    # the cabinet stands under the window, lower than its sill
    w, c = objs["window"], objs["cabinet"]
    assert abs(w.position[0] - c.position[0]) < 0.5 * (np.ptp(w.asset.bounds()[:, 1]) + np.ptp(c.asset.bounds()[:, 1]))
    assert hi["cabinet"] < lo["window"]
    # fixed to the world: in scene.json, the report and the URDF (a fixed joint to 'world', not a floating one)
    assert set(scene.metadata["fixed"]) == {"window", "clock"}
    assert {o["name"]: o["fixed"] for o in result.report["objects"]} == {"window": True, "cabinet": False,
                                                                         "clock": True}
    root = ET.parse(out / "urdf/scene.urdf").getroot()
    kinds = {j.get("name"): j.get("type") for j in root.findall("joint")}
    assert kinds["window__anchor"] == kinds["clock__anchor"] == "fixed" and kinds["cabinet__anchor"] == "floating"


def test_checks_still_catch_a_floating_clock(wall_room: tuple[Path, SceneResult]) -> None:
    """Moved off its wall, a clock is floating; a window pushed down into the cabinet collides with it."""
    _, result = wall_room
    scene = result.scene
    objs = {o.name: o for o in scene.objects}
    clock, window, cabinet = objs["clock"], objs["window"], objs["cabinet"]
    saved = clock.position.copy(), window.position.copy()
    try:
        clock.position = np.array([0.0, 0.0, clock.position[2]])
        top = cabinet.position[2] + cabinet.asset.bounds()[1][2]
        window.position = np.array([window.position[0], window.position[1], top - 0.05])
        checks = check_scene(scene)
        assert checks["support"]["clock"] is None
        assert any(set(c["objects"]) == {"window", "cabinet"} for c in checks["collisions"]), checks["collisions"]
    finally:
        clock.position, window.position = saved


def test_wall_room_passes_the_physics_validator(wall_room: tuple[Path, SceneResult]) -> None:
    out, _ = wall_room
    report = validate_scene(out)
    assert report.passed, [(c.name, c.status, c.message) for c in report.checks if c.status != "pass"]
    assert report.check("scene.load").numbers.get("objects") == 3
    assert report.check("scene.load_urdf_mujoco").numbers["free"] == 1  # the cabinet; clock and window are fixed


def test_lamps_hood_curtains_and_rug_are_planned_where_they_belong() -> None:
    plan = plan_scene("a living room with a sofa, a rug, a floor lamp, a pendant lamp over the sofa and a curtain "
                      "rod on the wall")
    cats = {g.id: g.category for g in plan.objects}
    assert set(cats.values()) == {"sofa", "rug", "floor_lamp", "ceiling_lamp", "curtain_rod"}
    ceiling = next(i for i, c in cats.items() if c == "ceiling_lamp")
    assert plan.group(ceiling).fixed and not any(r.subject == ceiling and r.type in ("on", "under", "against_wall")
                                                 for r in plan.relations)
    rod = next(i for i, c in cats.items() if c == "curtain_rod")
    assert f"against_wall({rod}, wall)" in rels(plan) and plan.group(rod).fixed
    hood = plan_scene("a kitchen with an oven and a range hood on the wall")
    assert any(g.category == "range_hood" and g.fixed for g in hood.objects)


@pytest.fixture(scope="module")
def lit_room(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SceneResult]:
    """A room with a table, a pendant lamp, a floor lamp and a rug (no render, no settle)."""
    out = tmp_path_factory.mktemp("scenes") / "lit_room"
    plan = plan_scene("a room with a table, a ceiling lamp, a floor lamp and a rug", room_size=(4.0, 4.0, 2.6))
    result = compose_scene(plan, seed=0, out=out, config=ComposeConfig(candidates=2, render=False, settle=False))
    return out, result


def test_a_pendant_hangs_from_the_ceiling_over_the_floor(lit_room: tuple[Path, SceneResult]) -> None:
    out, result = lit_room
    scene = result.scene
    objs = {o.asset.metadata.get("category"): o for o in scene.objects}
    lamp = objs["ceiling_lamp"]
    top = lamp.position[2] + lamp.asset.bounds()[1][2]
    assert top == pytest.approx(2.6, abs=0.01)  # its canopy at the ceiling
    assert np.linalg.norm(lamp.position[:2]) < 0.6  # over the middle of the room, the text saying nothing else
    checks = result.report["checks"]
    assert checks["collision_free"], checks["collisions"]
    assert checks["in_bounds"] and checks["navigable"]
    support = {scene.objects[i].asset.metadata.get("category"): v for i, v in
               enumerate(checks["support"][o.name] for o in scene.objects)}
    assert support["ceiling_lamp"] == "ceiling" and support["rug"] == "floor" and support["floor_lamp"] == "floor"
    assert lamp.name in scene.metadata["fixed"]
    report = validate_scene(out)
    assert report.passed, [(c.name, c.status, c.message) for c in report.checks if c.status != "pass"]
