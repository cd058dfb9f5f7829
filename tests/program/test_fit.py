"""Render-and-compare fitting of an image's program: candidates, the fit's choice, scores, budget, determinism and
finishes read part by part."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from seed3d import synth
from seed3d.condition.image import preprocess_image
from seed3d.errors import InvalidInputError
from seed3d.program.fit import (
    FitConfig,
    ViewState,
    candidate_programs,
    count_range,
    fit_program,
    fit_view,
    main_choice,
    nearest_finish,
    read_part_finishes,
    style_params,
    view_score,
)
from seed3d.program.image import COUNT_HEADS, ImagePrediction
from seed3d.render import get_renderer, orbit_camera
from seed3d.synth.materials import PALETTES

#: A small budget: enough to fit the test renders, quick on a shared CPU.
SMALL = FitConfig(max_evaluations=160, top_categories=2, max_candidates=3, styles=1, explore_evaluations=6,
                  refine_evaluations=30, refine_top=1, azimuths=(-30.0, 0.0, 30.0), elevations=(10.0, 30.0))


@pytest.fixture(scope="module")
def renderer() -> Any:
    with get_renderer() as r:
        yield r


def _image(asset: Any, renderer: Any, azimuth: float = 25.0, elevation: float = 20.0) -> Any:
    """A masked 128 px input: the asset rendered at a 50 mm lens, preprocessed as any input is."""
    fov = math.degrees(2 * math.atan(18.0 / 50.0))
    rgba = renderer.render_image(asset, orbit_camera(asset, azimuth, elevation, 192, fov_deg=fov, margin=1.1))
    return preprocess_image((np.clip(rgba, 0, 1) * 255).round().astype(np.uint8))


def _prediction(categories: list[tuple[str, float]], counts: dict[str, dict[int, float]]) -> ImagePrediction:
    """An ImagePrediction as the network would give it (the rest of the categories share what is left)."""
    rest = [c for c in synth.BASE_CATEGORIES if c not in dict(categories)]
    left = max(1.0 - sum(p for _, p in categories), 0.0) / len(rest)
    cats = list(categories) + [(c, left) for c in rest]
    probs = {}
    for head, k in zip(COUNT_HEADS, (8, 16, 3), strict=True):
        p = np.full(k + 1, 1e-3)
        for cls, v in counts.get(head, {0: 1.0}).items():
            p[cls] = v
        probs[head] = list(p / p.sum())
    top = {h: int(np.argmax(probs[h])) for h in COUNT_HEADS}
    return ImagePrediction(cats, top, {h: max(probs[h]) for h in COUNT_HEADS}, {"width/height": 1.0,
                                                                                 "depth/height": 0.5}, probs)


def test_candidates_combine_top_categories_and_count_classes() -> None:
    pred = _prediction([("cabinet", 0.6), ("wardrobe", 0.3), ("mug", 0.01)],
                       {"doors": {2: 0.6, 3: 0.3}, "drawers": {0: 0.8, 1: 0.15}})
    cands = candidate_programs(pred, FitConfig(max_candidates=20))
    keys = {(c.category, c.counts["doors"], c.counts["drawers"]) for c in cands}
    assert {("cabinet", 2, 0), ("cabinet", 3, 0), ("cabinet", 2, 1), ("cabinet", 3, 1),
            ("wardrobe", 2, 0)} <= keys
    assert not any(c.category == "mug" for c in cands)  # below min_category_probability
    probs = [c.probability for c in cands]
    assert probs == sorted(probs, reverse=True) and cands[0].category == "cabinet"
    assert len(candidate_programs(pred, FitConfig(max_candidates=3))) == 3
    assert len({(c.category, str(sorted(c.params.items()))) for c in cands}) == len(cands)  # deduplicated


def test_candidate_counts_are_ones_the_category_can_have() -> None:
    """A dresser whose drawer head reads 0 (no dresser has none) tries its likeliest real drawer counts, renormalised
    within the range, not its minimum; a head the category has no parameter for is left alone."""
    pred = _prediction([("dresser", 0.9)], {"drawers": {0: 0.6, 4: 0.2, 5: 0.15}})
    cands = candidate_programs(pred, FitConfig(max_candidates=20))
    assert [c.counts["drawers"] for c in cands[:2]] == [4, 5]
    assert cands[0].params["drawers"] == 4
    assert count_range("dresser", "drawers")[0] >= 1 and count_range("mug", "doors") is None
    assert count_range("trash_can", "lids") == (0, 1)


def test_fit_recovers_category_counts_and_beats_a_wrong_candidate(renderer: Any) -> None:
    truth = synth.generate("cabinet", 5, {"doors": 2, "drawers": 0})
    pre = _image(truth, renderer)
    pred = _prediction([("cabinet", 0.5), ("mug", 0.4)], {"doors": {2: 0.5, 1: 0.4}})
    result = fit_program(pre, pred, seed=5, config=SMALL, renderer=renderer)
    assert result.candidate.category == "cabinet" and result.candidate.counts["doors"] == 2
    assert result.iou > 0.9
    by = {(t["category"], t["counts"]["doors"]): t for t in result.tried}
    assert by[("cabinet", 2)]["iou"] > by[("mug", 2)]["iou"] + 0.1
    doc = result.to_dict()
    assert doc["iou"] == pytest.approx(result.iou, abs=1e-4) and doc["evaluations"] <= SMALL.max_evaluations
    assert {"azimuth_deg", "elevation_deg", "focal_mm"} <= set(doc["view"]) and len(doc["candidates"]) >= 2


def test_a_wrong_aspect_scores_lower_and_the_fit_finds_the_view(renderer: Any) -> None:
    truth = synth.generate("bookshelf", 2)
    pre = _image(truth, renderer, azimuth=20.0, elevation=15.0)
    right = view_score(pre, truth, ViewState(20.0, 15.0, 50.0), SMALL, renderer)
    wide = view_score(pre, truth, ViewState(20.0, 15.0, 50.0, scale_width=1.6), SMALL, renderer)
    turned = view_score(pre, truth, ViewState(70.0, 15.0, 50.0), SMALL, renderer)
    assert right[1] > 0.95 and wide[1] < right[1] - 0.05 and turned[1] < right[1] - 0.05
    # starting off (scale 1 at the grid's cameras), the search lands near the truth
    _, best, renders = fit_view(pre, truth, SMALL, renderer)
    assert best[1] > 0.93 and renders <= SMALL.max_evaluations


def test_styles_take_each_value_of_the_main_choice_the_counts_leave_open() -> None:
    lamp = candidate_programs(_prediction([("lamp", 0.9)], {}), SMALL)[0]
    assert main_choice("lamp") == ("kind", ("table", "desk"))
    assert [style_params(lamp, k)["kind"] for k in range(3)] == ["table", "desk", "table"]
    night = candidate_programs(_prediction([("nightstand", 0.9)], {"doors": {1: 1.0}}), SMALL)[0]
    assert night.params["layout"] == "drawer_over_door"  # the counts chose the layout: it is not cycled
    assert main_choice("nightstand", night.params) is None
    assert all(style_params(night, k) == night.params for k in range(3))
    assert main_choice("mug") is None


def test_a_table_lamp_is_fitted_as_a_table_lamp_whatever_the_seeds_draw(renderer: Any) -> None:
    truth = synth.generate("lamp", 4, {"kind": "table"})
    pre = _image(truth, renderer)
    pred = _prediction([("lamp", 0.9)], {})
    # seeds 0-1 draw desk lamps: without the main choice cycled, two styles never tried a table lamp
    assert [synth.generate("lamp", s).metadata["params"]["kind"] for s in (0, 1)] == ["desk", "desk"]
    config = FitConfig(max_evaluations=160, styles=2, explore_evaluations=6, refine_evaluations=30, refine_top=1,
                       azimuths=(-30.0, 0.0, 30.0), elevations=(10.0, 30.0))
    result = fit_program(pre, pred, seed=0, config=config, renderer=renderer)
    assert result.params["kind"] == "table"
    iou = {t["style"]: t["iou"] for t in result.tried}
    assert set(iou) == {0, 1} and iou[0] > iou[1] + 0.1, iou  # style 0 the table lamp, style 1 a desk lamp


def test_budget_is_a_number_of_renders_and_the_fit_repeats(renderer: Any) -> None:
    truth = synth.generate("nightstand", 3)
    pre = _image(truth, renderer)
    pred = _prediction([("nightstand", 0.7), ("dresser", 0.2)], {"drawers": {1: 0.6, 2: 0.3}})
    tight = FitConfig(max_evaluations=25, azimuths=(-30.0, 0.0, 30.0), elevations=(10.0, 30.0))
    cut = fit_program(pre, pred, seed=3, config=tight, renderer=renderer)
    assert cut.evaluations == 25 and cut.stopped == "evaluations"
    assert sum(t.get("evaluations", 0) for t in cut.tried) == 25
    a = fit_program(pre, pred, seed=3, config=SMALL, renderer=renderer).to_dict()
    b = fit_program(pre, pred, seed=3, config=SMALL, renderer=renderer).to_dict()
    a.pop("seconds"), b.pop("seconds")
    assert a == b


def test_an_unmasked_image_is_refused() -> None:
    noise = (np.random.default_rng(0).random((64, 64, 3)) * 255).astype(np.uint8)
    pre = preprocess_image(noise)
    assert pre.method == "none"
    with pytest.raises(InvalidInputError, match="object mask"):
        fit_program(pre, _prediction([("cabinet", 0.9)], {}), config=SMALL)


def test_part_finishes_are_read_off_the_image(renderer: Any) -> None:
    truth = synth.generate("cabinet", 4, {"doors": 2, "drawers": 0, "front_matches_body": False,
                                          "front_finish": "painted_wood:red", "body_finish": "wood:oak",
                                          "base": "none", "top_slab": False})
    pre = _image(truth, renderer, azimuth=10.0, elevation=15.0)
    pred = _prediction([("cabinet", 0.9)], {"doors": {2: 0.9}})
    result = fit_program(pre, pred, seed=4, config=SMALL, renderer=renderer)
    params, notes = read_part_finishes(pre, result, seed=4, config=SMALL, renderer=renderer)
    assert params.get("front_matches_body") is False
    kind, colour = params["front_finish"].split(":")
    r, g, b = PALETTES[kind][colour]
    assert r > g + 0.25 and r > b + 0.25  # red-ish doors
    body_kind, body_colour = params["body_finish"].split(":")
    assert body_kind == "wood" or PALETTES[body_kind][body_colour][0] < 0.9  # the body is not read as red
    assert notes and "front_finish" in notes[0]
    # the program built with what was read has red doors on a body that is not
    asset = synth.generate("cabinet", 4, {**result.params, **params})
    doors = [p for p in asset.parts if p.label == "door"]
    want = params["front_finish"].replace(":", "_").replace(" ", "_").replace("-", "_")
    assert doors and all(p.material.name == want for p in doors)


def test_auto_takes_an_image_program_only_when_it_fits(renderer: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import seed3d.pipeline as pipeline
    from seed3d.pipeline import PipelineOptions, Seed3DPipeline

    cabinet = synth.generate("cabinet", seed=1)
    rgba = renderer.render_image(cabinet, orbit_camera(cabinet, 30.0, 20.0, 160))
    image = (np.clip(rgba, 0, 1) * 255).round().astype(np.uint8)
    pipe = Seed3DPipeline()
    asset = pipe(image=image, seed=1)
    gen, prog = asset.metadata["generator"], asset.metadata["program"]
    assert gen["path"] == "program" and "render-and-compare fit IoU" in gen["why"]
    render = prog["fit"]["render"]
    assert render["category"] == prog["category"] == "cabinet"
    assert render["iou"] >= pipeline.IMAGE_PROGRAM_MIN_FIT_IOU and render["candidates"]
    # the same image when no fit is good enough: the learned path, saying why
    monkeypatch.setattr(pipeline, "IMAGE_PROGRAM_MIN_FIT_IOU", 1.01)
    monkeypatch.setattr(pipeline, "IMAGE_PROGRAM_CLOSE_FIT_IOU", 1.01)
    program, why = pipe.choose_program(image, None, PipelineOptions(seed=1))
    assert program is None and "fit is poor" in why
    program, why = pipe.choose_program(image, None, PipelineOptions(seed=1, generator="program"))
    assert program is not None and program.fit is not None and "asked for the program path" in why


def test_a_shaded_colour_keeps_its_hue_and_a_plain_colour_word_is_there_for_painted_kinds() -> None:
    """A red cabinet in shadow is dark red paint, not mahogany (chromaticity before brightness); a painted kind may
    take a plain colour word its palette lacks; a real mahogany colour is still wood."""
    assert nearest_finish("cabinet", "body_finish", np.array([0.8, 0.1, 0.1])) == "painted_wood:red"
    assert nearest_finish("cabinet", "body_finish", np.array([0.45, 0.06, 0.05])).endswith("red")
    assert nearest_finish("cabinet", "body_finish", np.array([0.47, 0.21, 0.14])) == "wood:mahogany"
    assert nearest_finish("box", "body_finish", np.array([0.5, 0.08, 0.07])).split(":")[1] == "red"


def test_one_finish_in_light_and_in_shade_is_one_finish() -> None:
    """A red front and its shaded side are one paint; oak and walnut are two woods."""
    from seed3d.program.fit import _same_hue

    assert _same_hue(np.array([0xBE, 0x1E, 0x1C]) / 255, np.array([0x78, 0x12, 0x10]) / 255)
    assert not _same_hue(np.array([0.72, 0.53, 0.34]), np.array([0.42, 0.27, 0.17]))
    assert not _same_hue(np.array([0.72, 0.12, 0.10]), np.array([0.16, 0.30, 0.62]))


def test_auto_takes_a_confident_fit_or_a_close_one() -> None:
    """``image_program_accepted``: confidence with a fair fit, or less confidence with a close fit; an unmasked
    image needs near certainty; freeform and an unfitted masked image never pass."""
    from seed3d import pipeline
    from seed3d.program.text import Program

    def prog(conf: float, iou: float | None, masked: bool = True, category: str = "cabinet") -> Program:
        return Program(category, {}, conf, source="image", how="image", masked=masked,
                       fit=None if iou is None else {"iou": iou})

    base_c, base_i = pipeline.IMAGE_PROGRAM_MIN_CONFIDENCE, pipeline.IMAGE_PROGRAM_MIN_FIT_IOU
    close_c, close_i = pipeline.IMAGE_PROGRAM_CLOSE_FIT_MIN_CONFIDENCE, pipeline.IMAGE_PROGRAM_CLOSE_FIT_IOU
    assert close_c < base_c and close_i > base_i
    accepted = pipeline.image_program_accepted
    assert accepted(prog(base_c, base_i))
    assert not accepted(prog(base_c, base_i - 0.01))
    assert accepted(prog(close_c, close_i)) and not accepted(prog(close_c - 0.01, 0.99))
    assert not accepted(prog((close_c + base_c) / 2, (close_i + base_i) / 2))
    assert not accepted(prog(0.99, 0.99, category="freeform")) and not accepted(prog(0.99, None))
    assert not accepted(prog(0.9, None, masked=False))
    assert accepted(prog(pipeline.UNMASKED_IMAGE_PROGRAM_MIN_CONFIDENCE, None, masked=False))
