"""seed3d.scene.omissions: a scene says what it left out of its sentence or built as a stand-in, and why."""

from __future__ import annotations

import pytest

from seed3d.scene import MissingObjectsError, generate_scene
from seed3d.scene.compose import ComposeConfig, compose_scene, without_instances
from seed3d.scene.omissions import LEFT_OUT, SUBSTITUTED, describe, left_out, plan_omissions
from seed3d.scene.plan import LayoutPlan, ObjectSpec, Relation, Room, plan_scene
from seed3d.scene.solve import LayoutError, ObjectGeometry, SolverConfig, solve


def _by_noun(omissions: list[dict]) -> dict[str, dict]:
    return {o["noun"]: o for o in omissions}


def test_rejected_nouns_are_left_out_with_the_reason() -> None:
    om = plan_omissions(plan_scene("a bedroom with a piano, a nightstand with a lamp and a wardrobe"))
    assert [(o["noun"], o["status"]) for o in om] == [("piano", LEFT_OUT)]
    assert "not an object Seed3D can build" in om[0]["reason"] and "nearest known noun is '" in om[0]["reason"]
    assert describe(om[0]).startswith("left out     piano: not an object Seed3D can build")


def test_stand_ins_are_reported_as_substituted() -> None:
    om = _by_noun(plan_omissions(plan_scene("a bathroom with a piano, a medicine cabinet and a trash can")))
    assert om["piano"]["status"] == LEFT_OUT
    sink = om["medicine cabinet"]
    assert (sink["status"], sink["stand_in"], sink["objects"]) == (SUBSTITUTED, "cabinet", ["cabinet"])
    assert "plain cabinet" in sink["reason"]
    assert describe(sink).startswith("substituted  medicine cabinet → cabinet: ")
    assert "trash can" not in om  # built as what it is
    om = _by_noun(plan_omissions(plan_scene("a room with two loveseats, a workbench, a floor lamp and a wastebasket")))
    assert (om["loveseats"]["stand_in"], om["loveseats"]["objects"]) == ("sofa", ["sofa_1", "sofa_2"])
    assert om["workbench"]["stand_in"] == "table" and "workbench-sized table" in om["workbench"]["reason"]
    assert om["wastebasket"]["stand_in"] == "trash_can" and "similarity" in om["wastebasket"]["reason"]
    assert "floor lamp" not in om  # an alias of the lamp's own kind
    assert left_out(list(om.values())) == []


def test_strict_scene_stops_after_planning() -> None:
    with pytest.raises(MissingObjectsError, match=r"leave out 1 object.*'piano'.*allow_missing") as exc:
        generate_scene("a bedroom with a piano and a nightstand", allow_missing=False)
    assert [o["noun"] for o in exc.value.omissions] == ["piano"]


def _shelf_plan() -> LayoutPlan:
    """A bookshelf taller than the room with a vase on it, and two chairs."""
    return LayoutPlan("a bookshelf with a vase on it and two chairs", Room("room", (3.0, 3.0, 1.5)),
                      [ObjectSpec("bookshelf", "bookshelf", noun="bookshelf"), ObjectSpec("vase", "vase", noun="vase"),
                       ObjectSpec("chair", "chair", count=2, noun="chairs")],
                      [Relation("on", "vase", "bookshelf"), Relation("against_wall", "bookshelf", "wall")]).validate()


def test_objects_the_layout_cannot_place_are_left_out_and_reported() -> None:
    cfg = ComposeConfig(checks=False)
    with pytest.raises(LayoutError, match=r"bookshelf is .* tall") as exc:
        compose_scene(_shelf_plan(), config=cfg, allow_missing=False)
    assert set(exc.value.objects) == {"bookshelf"}
    result = compose_scene(_shelf_plan(), config=cfg)
    assert [o.name for o in result.scene.objects] == ["chair_1", "chair_2"]
    om = _by_noun(result.report["omissions"])
    assert om["bookshelf"]["status"] == LEFT_OUT and "taller than the 1.50 m room" in om["bookshelf"]["reason"]
    assert om["vase"]["reason"] == "stood on bookshelf, which was left out"
    assert [g.id for g in result.plan.objects] == ["chair"] and result.plan.relations == []


def test_without_instances_keeps_the_rest_renamed() -> None:
    plan = LayoutPlan("t", Room("room", (4.0, 4.0, 2.6)),
                      [ObjectSpec("cabinet", "cabinet", count=2), ObjectSpec("microwave", "microwave", count=2),
                       ObjectSpec("chair", "chair", count=3), ObjectSpec("table", "table")],
                      [Relation("on", "microwave", "cabinet"), Relation("next_to", "chair", "table"),
                       Relation("in_row", "cabinet")]).validate()
    new, renamed, gone = without_instances(plan, {"cabinet_2": "no room", "chair_2": "no room", "table": "no room"})
    assert gone == {"cabinet_2": "no room", "chair_2": "no room", "table": "no room",
                    "microwave_2": "stood on cabinet_2, which was left out"}
    assert renamed == {"cabinet_1": "cabinet", "microwave_1": "microwave",
                       "chair_1": "chair_1", "chair_3": "chair_2"}
    assert [(g.id, g.count) for g in new.objects] == [("cabinet", 1), ("microwave", 1), ("chair", 2)]
    assert [str(r) for r in new.relations] == ["on(microwave, cabinet)", "in_row(cabinet)"]
    assert new.supports() == {"microwave": "cabinet"}


def test_a_failed_search_names_the_object_it_found_no_place_for() -> None:
    geoms = {f"box_{k}": ObjectGeometry.box((0.55, 0.55, 0.5)) for k in range(1, 10)}
    plan = LayoutPlan("t", Room("room", (1.8, 1.8, 2.5)), [ObjectSpec("box", "box", count=9)]).validate()
    with pytest.raises(LayoutError, match="no layout found") as exc:
        solve(plan, geoms, config=SolverConfig(time_budget=1.5, max_fill=1.0))
    (name, why), = exc.value.objects.items()
    assert name in geoms and why.startswith("the layout search found no place for it")
    with pytest.raises(LayoutError, match="do not fit") as exc:  # the request as a whole: nobody to blame
        solve(plan, geoms)
    assert exc.value.objects == {}
