"""Text → program: category, counts, materials per part, sizes; nothing dropped in silence; the size fit."""

from __future__ import annotations

import numpy as np
import pytest

from seed3d.errors import InvalidInputError
from seed3d.program import build_program, parse_text
from seed3d.synth.materials import Finish


def _finish(value: object) -> str:
    assert isinstance(value, Finish)
    return f"{value.kind}:{value.colour}"


def test_counts_materials_per_part_and_size() -> None:
    prog = parse_text("an oak cabinet with brass handles, 80 cm tall, two doors and 3 drawers", embed=False)
    assert prog.category == "cabinet" and prog.confidence == 1.0 and prog.how == "exact"
    assert prog.params["doors"] == 2 and prog.params["drawers"] == 3
    assert _finish(prog.params["body_finish"]) == "wood:oak"
    assert _finish(prog.params["handle_finish"]) == "brushed_metal:brass"
    assert prog.size == {"height": pytest.approx(0.8)}
    assert prog.unplaced == []


def test_colour_alone_paints_the_body_in_a_kind_the_category_paints() -> None:
    prog = parse_text("a red cabinet", embed=False)
    assert _finish(prog.params["body_finish"]) == "painted_wood:red"


def test_words_that_cannot_be_placed_are_listed() -> None:
    prog = parse_text("a cabinet with a purple unicorn sticker", embed=False)
    assert prog.category == "cabinet"
    assert any("unicorn" in u for u in prog.unplaced) and any("sticker" in u for u in prog.unplaced)
    prog = parse_text("a cabinet with 9 doors", embed=False)
    assert "doors" not in prog.params
    assert any("9 doors" in u and "1..4" in u for u in prog.unplaced)


def test_second_object_is_noted_not_built() -> None:
    prog = parse_text("a nightstand with a lamp on it", embed=False)
    assert prog.category == "nightstand"
    assert any("lamp" in n for n in prog.notes)


def test_part_nouns_after_counts_are_parts_not_objects() -> None:
    prog = parse_text("a tall cupboard with two doors", embed=False)
    assert prog.category == "cabinet" and prog.params["doors"] == 2
    assert prog.params["height"] == pytest.approx(0.5 + 0.9 * 0.7)


def test_unknown_object_has_no_category_without_embeddings() -> None:
    prog = parse_text("a teapot", embed=False)
    assert prog.category is None and prog.how == "none"
    with pytest.raises(InvalidInputError, match="no category"):
        build_program(prog)


def test_category_phrases_and_negations() -> None:
    chair = parse_text("an office chair on wheels", embed=False)
    assert chair.category == "chair" and chair.params["kind"] == "office" and chair.unplaced == []
    can = parse_text("a pedal bin", embed=False)
    assert can.category == "trash_can" and can.params["lid"] == "pedal"


def test_build_program_fits_stated_size_and_records_the_program() -> None:
    prog = parse_text("a wooden cabinet 95 cm tall and 70 cm wide with two doors", embed=False)
    asset = build_program(prog, seed=3)
    size = asset.metadata["attributes"]["size_m"]
    assert size["height"] == pytest.approx(0.95, rel=0.021) and size["width"] == pytest.approx(0.70, rel=0.021)
    doc = asset.metadata["program"]
    assert doc["category"] == "cabinet" and doc["params"]["doors"] == 2
    assert set(doc["fit"]["target"]) == {"height", "width"}
    assert sum(p.label == "door" for p in asset.parts) == 2


def test_build_program_override_replaces_one_parameter() -> None:
    prog = parse_text("a wooden cabinet with two doors", embed=False)
    a = build_program(prog, seed=1)
    b = build_program(prog, seed=1, params={"doors": 3})
    assert sum(p.label == "door" for p in a.parts) == 2 and sum(p.label == "door" for p in b.parts) == 3
    assert a.metadata["params"]["body_finish"] == b.metadata["params"]["body_finish"]
    with pytest.raises(InvalidInputError, match="doors"):
        build_program(prog, params={"doors": 11})


def test_pipeline_chooses_the_path() -> None:
    from seed3d.pipeline import JobSpec, PipelineOptions, Seed3DPipeline

    pipe = Seed3DPipeline()
    prog, why = pipe.choose_program(None, "a wooden cabinet", PipelineOptions())
    assert prog is not None and prog.category == "cabinet" and "cabinet" in why
    prog, why = pipe.choose_program(None, "a wooden cabinet", PipelineOptions(generator="learned"))
    assert prog is None
    with pytest.raises(InvalidInputError, match="generator"):
        JobSpec(text="a box", generator="magic")
    with pytest.raises(InvalidInputError, match="auto or program"):
        JobSpec(text="a box", generator="learned", params={"lid": "hinged"})


def test_pipeline_reads_an_image_program_and_falls_back_when_unsure() -> None:
    from seed3d.pipeline import IMAGE_PROGRAM_MIN_CONFIDENCE, PipelineOptions, Seed3DPipeline
    from seed3d.render import get_renderer, orbit_camera
    from seed3d.synth import generate

    pipe = Seed3DPipeline()
    cabinet = generate("cabinet", seed=1)
    with get_renderer() as r:
        rgba = r.render_image(cabinet, orbit_camera(cabinet, 30.0, 20.0, 128))
    image = (rgba * 255).round().astype("uint8")
    prog, why = pipe.choose_program(image, None, PipelineOptions())
    assert prog is not None and prog.source == "image" and prog.category == "cabinet"
    assert prog.confidence >= IMAGE_PROGRAM_MIN_CONFIDENCE and "image shows a cabinet" in why
    # the body's finish read off the image, among the kinds a cabinet's body is drawn from
    assert prog.params["body_finish"].split(":")[0] in ("wood", "painted_wood")
    assert any("read off the image" in n for n in prog.notes)
    asset = build_program(prog, seed=1)
    assert any(p.label == "door" for p in asset.parts)
    # text and image together: the text's category, the image's counts where the text stated none
    prog, why = pipe.choose_program(image, "a wooden cabinet", PipelineOptions())
    assert prog is not None and prog.category == "cabinet" and "image agrees" in why and "doors" in prog.params
    # an image that shows no object we build: the learned path, saying why
    noise = (np.random.default_rng(1).random((64, 64, 3)) * 255).astype("uint8")
    prog, why = pipe.choose_program(noise, None, PipelineOptions())
    assert prog is None and "no confident program from the image" in why
    prog, why = pipe.choose_program(noise, None, PipelineOptions(generator="program"))
    assert prog is not None and "asked for the program path" in why


def test_unlabelled_sizes_take_the_category_s_proportions() -> None:
    door = parse_text("an interior door, 80 x 203 cm", embed=False)
    assert door.size == {"width": pytest.approx(0.8), "height": pytest.approx(2.03)}
    table = parse_text("a dining table, 180 x 90 cm", embed=False)
    assert table.size == {"width": pytest.approx(1.8), "depth": pytest.approx(0.9)}
    case = parse_text("a suitcase, 55 x 40 x 20 cm", embed=False)
    assert case.size == {"height": pytest.approx(0.55), "width": pytest.approx(0.4), "depth": pytest.approx(0.2)}
    shelf = parse_text("a nightstand 45 W x 40 D x 60 H cm", embed=False)
    assert shelf.size == {"width": pytest.approx(0.45), "depth": pytest.approx(0.4), "height": pytest.approx(0.6)}
    for text in ("a sideboard, W160 x D45 x H80 cm", "a sideboard H 80cm x W 160cm x D 45cm"):
        board = parse_text(text, embed=False)
        assert board.size == {"width": pytest.approx(1.6), "depth": pytest.approx(0.45),
                              "height": pytest.approx(0.8)}, text
    bowl = parse_text("a bowl 15cm diameter and 6cm deep", embed=False)
    assert bowl.size["height"] == pytest.approx(0.06) and "depth" not in bowl.size


def test_finishes_follow_the_words_they_belong_to() -> None:
    mug = parse_text("a black ceramic mug sitting on a wooden table", embed=False)
    assert mug.category == "mug" and _finish(mug.params["body_finish"]) == "ceramic:black"
    box = parse_text("a small red plastic box with a white sliding lid", embed=False)
    assert _finish(box.params["body_finish"]) == "plastic:red" and _finish(box.params["lid_finish"]) == "plastic:white"
    box = parse_text("a red metal toolbox", embed=False)
    assert _finish(box.params["body_finish"]) == "painted_metal:red"
    washer = parse_text("a dishwasher with a chrome bar handle", embed=False)
    assert _finish(washer.params["handle_finish"]) == "chrome:chrome"
    dresser = parse_text("drawers: 4, oak, dresser", embed=False)
    assert dresser.category == "dresser" and dresser.params["drawers"] == 4


def test_a_part_noun_that_is_a_shape_sets_the_shape_and_choice_words_go_to_the_part_they_precede() -> None:
    """"brass knobs" is a knob in brass; "round legs" shapes the legs, not the table; "round knobs" on a nightstand
    (whose knobs have no round choice) leaves "round" unplaced rather than rounding something else."""
    cab = parse_text("a white cabinet with brass knobs", embed=False)
    assert cab.params["handle_style"] == "knob" and _finish(cab.params["handle_finish"]) == "brushed_metal:brass"
    assert parse_text("a dresser with brass pulls", embed=False).params["handle_style"] == "pull"
    bar = parse_text("a wooden cabinet with bar handles", embed=False)
    assert bar.params["handle_style"] == "bar" and bar.unplaced == []
    table = parse_text("a table with round legs", embed=False)
    assert table.params.get("leg_style") == "round" and "shape" not in table.params
    both = parse_text("a round table with four round legs", embed=False)
    assert both.params["shape"] == "round" and both.params["leg_style"] == "round" and both.params["legs"] == 4
    stand = parse_text("a nightstand with two drawers and round knobs", embed=False)
    assert stand.params["handle_style"] == "knob" and "leg_style" not in stand.params
    assert any("round" in u for u in stand.unplaced)


def test_negated_parts_are_not_counted_and_named_parts_are_built() -> None:
    """"without doors" counts none (the article of the object's noun is not a count of doors); a material on a part
    the category has only by a flag turns the flag on ("glass doors" on a bookshelf)."""
    assert parse_text("a bookshelf without doors", embed=False).params.get("doors") == 0
    assert parse_text("a cabinet without drawers", embed=False).params.get("drawers") == 0
    assert "doors" not in parse_text("a shelf with doors", embed=False).params
    glass = parse_text("a tall white bookshelf with glass doors", embed=False)
    assert glass.params["has_doors"] is True and glass.params["front_finish"].kind == "glass"


def test_an_object_its_category_does_not_build_is_refused() -> None:
    for text in ("a ceiling fan with a light", "a garage door"):
        prog = parse_text(text, embed=False)
        assert prog.category is None and "is not an object Seed3D can build" in prog.notes[0], prog.notes
    assert parse_text("a standing fan", embed=False).category == "fan"


def test_misspelt_nouns_are_read_and_said() -> None:
    """One edit from exactly one of our nouns (two from eight letters), and not an English word: put right, noted."""
    prog = parse_text("Four-door wardobe with two drawers", embed=False)
    assert prog.category == "wardrobe" and prog.params["doors"] == 4
    assert any("'wardobe' read as 'wardrobe'" in n for n in prog.notes)
    chest = parse_text("chest of drawes 5 drawers pine", embed=False)
    assert chest.category == "dresser" and chest.params["drawers"] == 5
    assert parse_text("a chart", embed=False).category is None  # an English word is never respelled into "chair"


def test_a_compound_whose_head_is_another_object_is_refused() -> None:
    for text in ("a camera tripod", "a laptop bag", "a wine rack holding 12 bottles", "a dog bed", "a bath mat"):
        prog = parse_text(text)
        assert prog.category is None, (text, prog.category, prog.notes)
    assert parse_text("a tv stand", embed=False).category == "tv_stand"  # a known compound is built


def test_the_object_after_a_chatty_request_and_before_for() -> None:
    couch = parse_text("we just moved into a new flat and need a comfy grey fabric couch", embed=False)
    assert couch.category == "sofa"
    assert parse_text("toaster for the kitchen counter", embed=False).category == "toaster"
    assert parse_text("wireless computer mouse for my laptop", embed=False).category == "mouse"


def test_numbers_without_units_and_bare_measurements_of_appliances() -> None:
    """Unit-less furniture numbers are centimetres (said in the report); appliances are sold by their width; a
    window's "100x120" is width x height."""
    shelf = parse_text("book shelf in birch, 80 wide 202 high", embed=False)
    assert shelf.size == {"width": pytest.approx(0.8), "height": pytest.approx(2.02)}
    assert any("no unit" in p for p in shelf.placed)
    assert parse_text("writing desk, 120x60", embed=False).size == {"width": pytest.approx(1.2),
                                                                    "depth": pytest.approx(0.6)}
    assert parse_text("an 18 inch dishwasher", embed=False).size == {"width": pytest.approx(0.4572)}
    window = parse_text("casement window, white frame, 100x120 cm", embed=False)
    assert window.size == {"width": pytest.approx(1.0), "height": pytest.approx(1.2)}


def test_glass_doors_are_windows_or_glazing_and_a_door_the_object_always_has_is_placed() -> None:
    """"A glass door" on a microwave sets its window's glass, not a door of solid glass; "glass doors" on a cabinet
    are glazed panels in frames of the cabinet's finish; "a door" where the engine always builds one is placed,
    never reported as a door the object lacks."""
    micro = parse_text("a stainless steel microwave with a smoked glass door", embed=False)
    assert _finish(micro.params["glass_finish"]) == "glass:smoked" and "front_finish" not in micro.params
    assert micro.unplaced == [] and any("built with 1 door" in p for p in micro.placed)
    cab = parse_text("an oak cabinet with glass doors", embed=False)
    assert cab.params["glass_doors"] is True and _finish(cab.params["glass_finish"]) == "glass:clear"
    assert _finish(cab.params["body_finish"]) == "wood:oak" and "front_finish" not in cab.params
    assert parse_text("a microwave with two doors", embed=False).unplaced  # it has one: two is not placed


def test_part_finishes_never_overwrite_the_body_and_unknown_parts_are_reported() -> None:
    kettle = parse_text("stainless steel electric kettle with a black handle", embed=False)
    assert _finish(kettle.params["body_finish"]) == "brushed_metal:stainless steel"
    assert any("handle" in u and "already stated" in u for u in kettle.unplaced)
    trim = parse_text("cordless kettle, cream colour with chrome trim", embed=False)
    assert trim.params["body_finish"].colour == "cream" and any("trim" in u for u in trim.unplaced)
    scissors = parse_text("scissors with orange plastic handles, stainless steel blades", embed=False)
    assert _finish(scissors.params["handle_finish"]) == "plastic:orange"
    assert scissors.params["blade_finish"].kind == "brushed_metal"
    assert _finish(parse_text("sash window, white timber frame", embed=False).params["frame_finish"]) \
        == "painted_wood:white"  # a wood in a colour no wood has is painted
    stool = parse_text("bar stool, chrome base and red faux leather seat", embed=False)
    assert stool.params["leg_finish"].kind == "chrome" and _finish(stool.params["seat_finish"]) == "fabric:red"


def test_heads_after_adjectives_and_sizes_on_the_short_side() -> None:
    assert parse_text("built in dishwasher 24 inches, white front", embed=False).category == "dishwasher"
    assert parse_text("standing coat stand with 6 hooks", embed=False).params["hooks"] == 6
    assert parse_text("chest of draws, 5 drawers", embed=False).params["drawers"] == 5
    bath = build_program(parse_text("built in bath 1700mm long x 700mm wide", embed=False))
    size = bath.metadata["attributes"]["size_m"]
    assert abs(size["width"] / 1.7 - 1) < 0.05 and abs(size["depth"] / 0.7 - 1) < 0.05
    bed = parse_text("a bed 90cm wide", embed=False)
    built = build_program(bed)
    assert built.metadata["params"]["size"] == "single"  # no continuous width reaches it: the choice that does
    assert any("size=single" in p for p in bed.placed)


def test_a_count_outside_its_range_takes_the_count_that_holds_it_with_its_conditions() -> None:
    """"A writing desk with 3 drawers": a legs desk has at most one, a pedestal holds 2..4: the pedestal's drawer
    count is set with the choices its documentation names as its condition."""
    desk = parse_text("writing desk with 3 drawers, solid oak", embed=False)
    assert desk.params["drawers_in_pedestal"] == 3
    assert desk.params["kind"] == "pedestal" and desk.params["pedestal"] == "drawers"
    assert desk.unplaced == []
    assert _finish(desk.params["top_finish"]) == "wood:oak"  # a stated body finish reaches the top
    assert parse_text("a desk with a drawer", embed=False).params["drawers"] == 1
    toaster = parse_text("4 slice toaster, stainless steel, with a browning dial", embed=False)
    assert toaster.params["slots"] == 4 and toaster.params["body_finish"].kind == "brushed_metal"


def test_mentioned_legs_pick_the_choice_that_builds_legs() -> None:
    """Legs named in any phrase (a count, a finish, a bare mention) choose the parameter that builds legs: a
    desk's kind, or once the text made it a pedestal desk, the end that carries the top; "without legs" the
    first other choice. The built asset has the legs."""
    desk = parse_text("a desk with black metal legs", embed=False)
    assert desk.params["kind"] == "legs" and _finish(desk.params["leg_finish"]) == "painted_metal:black"
    assert desk.unplaced == []
    assert parse_text("a white desk on four legs", embed=False).params["kind"] == "legs"
    assert parse_text("a white desk on four legs", embed=False).unplaced == []
    pedestal = parse_text("a desk with three drawers and black metal legs", embed=False)
    assert pedestal.params["kind"] == "pedestal" and pedestal.params["end"] == "legs"
    asset = build_program(pedestal, seed=0)
    assert sum(p.label == "leg" for p in asset.parts) == 2 and sum(p.label == "drawer" for p in asset.parts) == 3
    assert parse_text("a nightstand with tapered legs", embed=False).params["base"] == "legs"
    bare = parse_text("a dresser without legs", embed=False)
    assert bare.params["base"] == "plinth" and bare.unplaced == []
    chair = parse_text("a dining chair with chrome legs", embed=False)
    assert chair.params["kind"] == "dining" and chair.unplaced == []  # "dining" is placed, not left over


def test_material_phrases_in_any_order_and_an_object_s_own_head_noun() -> None:
    """"navy blue painted wood" is painted wood in navy blue; "upholstered grey headboard" a grey upholstered one
    (so "oak frame" still reaches the body); "dark wood" a dark stain; a dispenser's "amber glass bottle" is the
    dispenser itself (its category is a pump dispenser bottle), while a mug's "wooden table" is another object."""
    chest = parse_text("a toy chest in navy blue painted wood", embed=False)
    assert _finish(chest.params["body_finish"]) == "painted_wood:navy blue"
    lamp = parse_text("a desk lamp in red painted metal", embed=False)
    assert _finish(lamp.params["body_finish"]) == "painted_metal:red"
    bed = parse_text("King size bed, upholstered grey headboard, oak frame", embed=False)
    assert _finish(bed.params["headboard_finish"]) == "fabric:grey" and _finish(bed.params["body_finish"]) == "wood:oak"
    assert _finish(parse_text("a coat rack in dark wood", embed=False).params["body_finish"]) == "wood:dark-stained"
    soap = parse_text("Soap dispenser: amber glass bottle with a pump top", embed=False)
    assert _finish(soap.params["body_finish"]) == "glass:amber"
    assert "body_finish" not in parse_text("a mug on a wooden table", embed=False).params


def test_context_nouns_stated_legs_and_lengths_of_long_objects() -> None:
    """"glasses" are eyeglasses beside a frame or lens word (not "wine glasses"); a bar stool with four legs stands
    on legs, not the swivel pedestal "bar stool" implies alone; "20cm long" scissors and a 170 cm bath are fitted
    along their longer horizontal side whichever axis that is."""
    specs = parse_text("round glasses with thin gold metal frames", embed=False)
    assert specs.category == "eyeglasses" and specs.params["frame_finish"].colour == "gold"
    assert parse_text("wine glasses", embed=False).category is None
    stool = parse_text("30-inch bar stool with a round wooden seat and 4 chrome legs", embed=False)
    assert stool.params["legs"] == 4 and "swivel" not in stool.params and stool.unplaced == []
    assert parse_text("a bar stool", embed=False).params["swivel"] is True
    scissors = build_program(parse_text("scissors, 20cm long", embed=False), seed=0)
    assert scissors.metadata["attributes"]["size_m"]["depth"] == pytest.approx(0.2, rel=0.03)
    bath = build_program(parse_text("White acrylic bath, 1700 x 750 mm", embed=False), seed=0)
    assert bath.metadata["attributes"]["size_m"]["width"] == pytest.approx(1.7, rel=0.03)
