"""Scenes furnished with the room furniture categories: a bedroom plans its bed, a bathroom its fixtures."""

from __future__ import annotations

from seed3d.scene.omissions import plan_omissions
from seed3d.scene.plan import ROOM_TYPES, TYPICAL_SIZE, WALL_CATEGORIES, plan_scene
from seed3d.synth import CATEGORIES
from tests.scene._helpers import rels


def test_a_bedroom_prompt_plans_a_bed_beside_its_nightstand() -> None:
    plan = plan_scene("a bedroom with a bed, a nightstand and a wardrobe")
    assert [g.category for g in plan.objects] == ["bed", "nightstand", "wardrobe"]
    assert plan.rejected == [] and plan_omissions(plan) == []
    assert {"against_wall(bed, wall)", "next_to(nightstand, bed)", "against_wall(wardrobe, wall)"} <= rels(plan)
    # a bedroom named without objects gets its bed too
    assert "bed" in {g.category for g in plan_scene("a bedroom").objects}


def test_a_bathroom_prompt_plans_its_fixtures() -> None:
    plan = plan_scene("a bathroom with a vanity, a bathtub and a towel rack")
    assert [g.category for g in plan.objects] == ["vanity", "bathtub", "towel_rack"]
    assert plan_omissions(plan) == []
    assert {"against_wall(vanity, wall)", "against_wall(bathtub, wall)"} <= rels(plan)
    # a sink cabinet is a vanity now, not a plain cabinet
    sink = plan_scene("a bathroom with a sink cabinet and a towel rail")
    assert [g.category for g in sink.objects] == ["vanity", "towel_rack"] and plan_omissions(sink) == []


def test_living_room_and_office_nouns_map_to_their_own_categories() -> None:
    plan = plan_scene("a living room with a couch, an armchair, a tv stand and a coat rack")
    assert [g.category for g in plan.objects] == ["sofa", "armchair", "tv_stand", "coat_rack"]
    assert plan_omissions(plan) == []
    office = plan_scene("an office with a desk, a chair and a laptop on the desk")
    assert {"next_to(chair, desk)", "facing(chair, desk)", "on(laptop, desk)"} <= rels(office)
    kitchen = plan_scene("a kitchen with a sink unit, a fridge and a microwave on the counter")
    # 'the counter' a microwave stands on is the sink unit's worktop, not a second object or a stand-in
    assert [g.category for g in kitchen.objects] == ["kitchen_counter", "refrigerator", "microwave"]
    assert kitchen.supports() == {"microwave": "kitchen_counter"} and plan_omissions(kitchen) == []
    recliner = plan_omissions(plan_scene("a room with a recliner"))
    assert [(o["noun"], o["stand_in"]) for o in recliner] == [("recliner", "armchair")]
    assert "an armchair stands in" in recliner[0]["reason"]


def test_planner_tables_know_every_room_category() -> None:
    rooms = ("bed", "sofa", "armchair", "desk", "tv_stand", "vanity", "bathtub", "towel_rack", "coat_rack",
             "kitchen_counter")
    assert set(rooms) <= set(CATEGORIES) and set(rooms) <= set(TYPICAL_SIZE)
    assert {"bed", "sofa", "desk", "vanity", "bathtub"} <= set(WALL_CATEGORIES)
    for room in ROOM_TYPES.values():
        assert all(cat in CATEGORIES for cat, _ in room.defaults), room.name
