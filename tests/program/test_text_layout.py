"""Text → program: a stated body colour reaches the fronts and lids; counted parts pick a category's layout."""

from __future__ import annotations

from collections import Counter

import pytest

from seed3d.program import build_program, parse_text
from seed3d.synth.materials import Finish


def _finish(value: object) -> str:
    assert isinstance(value, Finish)
    return f"{value.kind}:{value.colour}"


def _labels(text: str, seed: int = 0) -> Counter[str]:
    return Counter(p.label for p in build_program(parse_text(text, embed=False), seed=seed).parts)


# --------------------------------------------------------------------------------------------- body colour


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_green_cabinet_has_green_doors(seed: int) -> None:
    prog = parse_text("a green cabinet with two doors", embed=False)
    assert _finish(prog.params["body_finish"]) == "painted_wood:green"
    assert prog.params["front_matches_body"] is True
    asset = build_program(prog, seed=seed)
    body = next(p for p in asset.parts if p.label == "body").material.name
    fronts = {p.material.name for p in asset.parts if p.label in ("door", "drawer")}
    assert fronts == {body}


def test_a_separate_front_finish_is_kept() -> None:
    prog = parse_text("a green cabinet with oak doors", embed=False)
    assert _finish(prog.params["body_finish"]) == "painted_wood:green"
    assert _finish(prog.params["front_finish"]) == "wood:oak"
    assert prog.params["front_matches_body"] is False
    asset = build_program(prog, seed=0)
    assert {p.material.name for p in asset.parts if p.label == "door"} == {"wood_oak"}


def test_a_stated_body_material_reaches_the_fronts_and_a_bin_lid() -> None:
    assert parse_text("an oak dresser", embed=False).params["front_matches_body"] is True
    prog = parse_text("a green pedal bin", embed=False)
    assert prog.params["lid_matches_body"] is True
    asset = build_program(prog, seed=0)
    lid = next(p for p in asset.parts if p.label == "lid").material.name
    assert lid == next(p for p in asset.parts if p.label == "body").material.name
    # no body finish stated: the seed still draws whether the fronts match
    assert "front_matches_body" not in parse_text("a cabinet with two doors", embed=False).params
    prog = parse_text("a green bin with a red lid", embed=False)
    assert prog.params["lid_matches_body"] is False
    lids = {p.material.name for p in build_program(prog, seed=0).parts if p.label == "lid"}
    assert len(lids) == 1 and "red" in lids.pop()


# --------------------------------------------------------------------------------------------- layouts


def test_a_nightstand_with_a_drawer_and_a_small_door() -> None:
    prog = parse_text("a nightstand with a drawer and a small door", embed=False)
    assert prog.params["layout"] == "drawer_over_door"
    assert prog.unplaced == []
    assert not {"height", "width", "depth"} & set(prog.params)  # "small" is the door's, not the nightstand's
    assert any("'small' describes the door" in n for n in prog.notes)
    labels = _labels("a nightstand with a drawer and a small door")
    assert labels["drawer"] == 1 and labels["door"] == 1


@pytest.mark.parametrize(("text", "layout"), [
    ("a nightstand with a drawer and an open shelf", "drawer_over_shelf"),
    ("a nightstand with three drawers", "drawers"),
    ("a nightstand with a door", "drawer_over_door"),
    ("a cabinet with two drawers above two doors", "drawers_over_doors"),
    ("a cabinet with two doors below two drawers", "drawers_over_doors"),
    ("a cabinet with two doors over two drawers", "doors_over_drawers"),
    ("a cabinet with two drawers underneath two doors", "doors_over_drawers"),
    ("a cabinet with two doors", "doors"),
    ("a vanity with a drawer above two doors", "drawer_over_doors"),
    ("a tv stand with two drawers", "open_over_drawers"),
])
def test_counted_parts_pick_the_layout(text: str, layout: str) -> None:
    prog = parse_text(text, embed=False)
    assert prog.params.get("layout") == layout, prog.placed
    assert prog.unplaced == []


def test_an_ambiguous_or_explicit_layout_is_left_alone() -> None:
    # doors and drawers, no order: either stacking fits, the category's own default decides
    assert "layout" not in parse_text("a cabinet with two doors and two drawers", embed=False).params
    assert "layout" not in parse_text("a cabinet with drawers", embed=False).params
    # a refrigerator's layouts name no parts: its own phrases and counts decide
    assert parse_text("a side by side fridge with two doors", embed=False).params["layout"] == "side_by_side"


def test_the_built_cabinet_follows_the_stated_order() -> None:
    labels = _labels("a cabinet with two doors above two drawers")
    assert labels["door"] == 2 and labels["drawer"] == 2
    asset = build_program(parse_text("a cabinet with two doors above two drawers", embed=False), seed=0)
    tops = {p.label: float(p.mesh.bounds[1][2]) for p in asset.parts if p.label in ("door", "drawer")}
    assert tops["door"] > tops["drawer"]


def test_a_colour_before_the_object_own_noun_paints_it() -> None:
    """"a red trolley case": the colour is the case's, even where "trolley" alone names another object."""
    prog = parse_text("a red trolley case", embed=False)
    assert prog.category == "suitcase"
    assert _finish(prog.params["body_finish"]) == "plastic:red"
    assert parse_text("a mug on a wooden table", embed=False).params == {}
