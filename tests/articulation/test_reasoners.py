"""The swappable reasoner: the VLM adapter accepts valid JSON answers and rejects malformed ones clearly."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from seed3d.articulation import Analysis, Reasoner, RuleReasoner, VLMReasoner, articulate
from seed3d.articulation._geometry import axis_angle, line_distance
from seed3d.articulation.candidates import CLEARANCE
from seed3d.errors import InvalidInputError
from tests.articulation._helpers import FAST, cut_door_cabinet, small_cabinet


def _door_candidate() -> tuple[int, int]:
    """(index, sign) of the candidate the rules use for the small cabinet's door hinge."""
    rules = articulate(small_cabinet(), config=FAST)
    idx = rules.metadata["articulation"]["parts"]["door"]["candidate"]
    assert isinstance(idx, int)
    cands = Analysis(small_cabinet()).candidates("door", "body")
    sign = 1 if float(cands[idx].direction @ rules.joint_to("door").unit_axis) > 0 else -1
    return idx, sign


def test_reasoners_follow_the_protocol() -> None:
    assert isinstance(RuleReasoner(), Reasoner)
    assert isinstance(VLMReasoner({}), Reasoner)


def test_vlm_answer_is_used() -> None:
    idx, sign = _door_candidate()
    answer = json.dumps({"door": {"type": "revolute", "axis": idx, "direction": sign, "limits": [0, 1.2],
                                  "reason": "hinged left"}})
    pred = articulate(small_cabinet(), reasoner=VLMReasoner(answer), config=FAST)
    door = pred.joint_to("door")
    assert door is not None and door.type == "revolute"
    assert axis_angle(door.axis, [0, 0, 1]) < 1e-6 and door.unit_axis[2] < 0
    assert line_distance(door.origin, door.axis, [0.221, -0.245, 0.0], [0, 0, 1]) < 1e-3
    assert door.upper == pytest.approx(1.2)
    assert pred.metadata["articulation"]["reasoner"] == "vlm"
    assert pred.joint_to("door_handle").type == "fixed"  # no answer for it: the rules decide


def test_vlm_answer_list_and_asked_answers() -> None:
    idx, sign = _door_candidate()
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return json.dumps({"type": "fixed"})

    listed = [{"part": "door", "type": "prismatic", "axis": idx, "direction": sign}]
    # the answer is used as given (the functional checks, which fuse a door sliding upward, are off)
    pred = articulate(small_cabinet(), reasoner=VLMReasoner(listed, ask=ask),
                      config=dataclasses.replace(FAST, functional=False))
    assert pred.joint_to("door").type == "prismatic"
    assert pred.joint_to("door_handle").type == "fixed"
    assert len(prompts) == 1 and "door_handle" in prompts[0] and '"candidates"' in prompts[0]


@pytest.mark.parametrize(("answer", "match"), [
    ({"door": {"type": "hinge", "axis": 0}}, "'type' must be one of"),
    ({"door": {"type": "revolute", "axis": 999}}, "'axis' must be a candidate index"),
    ({"door": {"type": "revolute", "axis": "left"}}, "'axis' must be a candidate index"),
    ({"door": {"type": "revolute", "axis": 0, "pivot": [1, 2]}}, "'pivot' must be"),
    ({"door": {"type": "revolute", "axis": 0, "direction": 2}}, "'direction' must be 1 or -1"),
    ({"door": {"type": "revolute", "axis": 0, "limits": [1.0, 0.5]}}, "'limits' must be"),
    ({"door": {"type": "revolute", "axis": 0, "hinge": "left"}}, "unknown keys"),
])
def test_malformed_vlm_answers_are_rejected(answer: dict, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        articulate(small_cabinet(), reasoner=VLMReasoner(answer), config=FAST)


def test_unparseable_vlm_answers_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        VLMReasoner("{door: revolute")
    with pytest.raises(InvalidInputError, match="must be an object with a string 'part'"):
        VLMReasoner([{"type": "fixed"}])
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        articulate(small_cabinet(), reasoner=VLMReasoner(ask=lambda p: "sure, a hinge"), config=FAST)
    with pytest.raises(InvalidInputError, match="no answer for part"):
        articulate(small_cabinet(), reasoner=VLMReasoner({}, use_fallback=False), config=FAST)


def test_bench_compare_scores_a_perfect_prediction() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "eval"))
    try:
        import bench_articulation
    finally:
        sys.path.pop(0)
    from seed3d.synth import generate

    truth = generate("cabinet", 0)
    rows = bench_articulation.compare(truth, truth)
    s = bench_articulation.summarise(rows)
    assert s["type_accuracy"] == 1.0 and s["success_rate"] == 1.0 and s["parent_accuracy"] == 1.0
    assert s["axis_err_deg_mean"] == 0.0 and s["limit_iou_mean"] == pytest.approx(1.0)
    flipped = truth.copy()
    door = next(j for j in flipped.joints if j.type == "revolute")
    door.axis = -door.axis  # same line, opens the other way: right axis, wrong direction
    row = next(r for r in bench_articulation.compare(truth, flipped) if r["child"] == door.child)
    assert row["axis_err_deg"] == 0.0 and not row["direction_ok"] and not row["success"]
    assert np.isfinite(row["pivot_err"])


def test_bench_scores_a_glued_piece_by_the_joint_that_moves_it() -> None:
    """A door cut in two and glued back: the truth part matched to the strip is scored against the door's hinge
    (the strip's own joint is fixed onto the door), so a true hinge on the strip counts as found."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "eval"))
    try:
        import bench_articulation
    finally:
        sys.path.pop(0)
    pred = articulate(cut_door_cabinet(), config=FAST)
    hinge = pred.joint_to("door")
    assert hinge is not None and hinge.type == "revolute" and pred.joint_to("door_strip").type == "fixed"
    truth = pred.copy()
    truth.joints = [dataclasses.replace(j, parent="body", name="strip_hinge") if j.child == "door_strip"
                    else j for j in truth.joints]
    strip = next(j for j in truth.joints if j.child == "door_strip")
    strip.type, strip.axis, strip.origin = hinge.type, hinge.axis.copy(), hinge.origin.copy()
    strip.lower, strip.upper = hinge.lower, hinge.upper
    assert bench_articulation.moving_joint(pred, "door_strip") is hinge
    row = next(r for r in bench_articulation.compare(truth, pred) if r["child"] == "door_strip")
    assert row["type_ok"] and row["parent_ok"] and row["success"]
    unglued = pred.copy()
    unglued.metadata = {**pred.metadata, "articulation": {k: v for k, v in pred.metadata["articulation"].items()
                                                          if k != "glued"}}
    row = next(r for r in bench_articulation.compare(truth, unglued) if r["child"] == "door_strip")
    assert not row["type_ok"] and not row["success"]  # without the gluing record: the strip's own fixed joint


def test_bench_compares_link_by_link_a_part_cut_as_one_with_what_is_fixed_on_it() -> None:
    """A lamp's upper arm and the counterweight fixed on it, predicted as one part that turns about the elbow: one
    to one the part carries the counterweight's name, so the arm has no moving match and the counterweight turns;
    link by link both are right."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "eval"))
    try:
        import bench_articulation
    finally:
        sys.path.pop(0)
    from seed3d.asset import Asset, Mesh, Part
    from seed3d.synth import generate

    truth = generate("lamp", 1002)
    arm, weight = truth.part("upper_arm"), truth.part("counterweight")
    assert truth.joint_to("counterweight").parent == "upper_arm" and truth.joint_to("counterweight").type == "fixed"
    merged = Part("counterweight", Mesh.concatenate([arm.mesh, weight.mesh]), "arm", physical=arm.physical)
    parts = [merged if p.name == "counterweight" else p for p in truth.parts if p.name != "upper_arm"]
    joints = [dataclasses.replace(j, child="counterweight") if j.child == "upper_arm"
              else dataclasses.replace(j, parent="counterweight") if j.parent == "upper_arm" else j
              for j in truth.joints if j.child != "counterweight"]
    pred = Asset(truth.name, parts, joints)
    assert bench_articulation.link(pred, "bulb") == "head" and bench_articulation.link(pred, "base") == "base"

    def row(rows: list[dict], child: str) -> dict:
        return next(r for r in rows if r["child"] == child)

    one = bench_articulation.compare(truth, pred)
    assert row(one, "upper_arm")["pred_type"] is None and not row(one, "upper_arm")["success"]
    assert row(one, "counterweight")["pred_type"] == "revolute" and not row(one, "counterweight")["type_ok"]
    cover = {p.name: p.name for p in truth.parts} | {"upper_arm": "counterweight"}
    links = bench_articulation.compare(truth, pred, cover)
    assert row(links, "upper_arm")["success"] and row(links, "upper_arm")["parent_ok"]
    assert row(links, "counterweight")["pred_type"] == "fixed" and row(links, "counterweight")["type_ok"]
    assert row(links, "head")["success"] and row(links, "head")["parent_ok"]
    assert row(links, "bulb")["type_ok"] and row(links, "bulb")["parent_ok"]
    s = bench_articulation.summarise(links)
    assert s["type_accuracy"] == 1.0 and s["fixed_kept"] == 1.0 and s["success_rate"] == 1.0
    cover["head"] = cover["bulb"] = "base"  # a head the segmenter left in the base does not move
    stuck = bench_articulation.compare(truth, pred, cover)
    assert row(stuck, "head")["pred_type"] is None and not row(stuck, "head")["type_ok"]
    assert row(stuck, "bulb")["pred_type"] == "fixed"  # still with the head


def test_a_joint_left_no_range_becomes_fixed() -> None:
    idx, sign = _door_candidate()
    answer = json.dumps({"door": {"type": "revolute", "axis": idx, "direction": sign, "limits": [0, 0],
                                  "reason": "painted shut"}})
    pred = articulate(small_cabinet(), reasoner=VLMReasoner(answer), config=FAST)
    door = pred.joint_to("door")
    assert door is not None and door.type == "fixed" and not door.movable
    assert "no free range" in pred.metadata["articulation"]["parts"]["door"]["note"]


class _SleeveContext:
    """The few facts ``RuleReasoner._sleeve`` reads: contact kind, hull-free and surface-clear directions."""

    def __init__(self, free: list[tuple[list[float], bool]], clear: list[list[float]], kind: str = CLEARANCE) -> None:
        self.contact_kind = kind
        self._free = [(np.asarray(d, float), ok) for d, ok in free]
        self._clear = [np.asarray(d, float) for d in clear]

    def free_directions(self) -> list[tuple[np.ndarray, bool]]:
        return self._free

    def clear_directions(self) -> list[np.ndarray]:
        return self._clear


_AXES = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]


def test_sleeve_falls_back_to_the_one_way_clear_of_true_surfaces() -> None:
    """Loose hulls round a cut, completed handle leave it several ways out; its true surfaces leave one (up, out of
    its sleeve): that is the sleeve direction. Without a single clear way, or when the hulls block it, no sleeve."""
    sleeve = RuleReasoner()._sleeve
    loose = [(d, d != [1, 0, 0] and d != [0, 0, -1]) for d in _AXES]
    found = sleeve(_SleeveContext(loose, [[0, 0, 1]]))  # type: ignore[arg-type]
    assert found is not None and float(found @ [0, 0, 1]) > 0.999
    assert sleeve(_SleeveContext(loose, [[0, 0, 1], [0, 1, 0]])) is None  # type: ignore[arg-type]
    assert sleeve(_SleeveContext(loose, [[1, 0, 0]])) is None  # type: ignore[arg-type]  # the hulls block it
    single = [(d, d == [0, -1, 0]) for d in _AXES]
    found = sleeve(_SleeveContext(single, []))  # type: ignore[arg-type]
    assert found is not None and float(found @ [0, -1, 0]) > 0.999
    assert sleeve(_SleeveContext(loose, [[0, 0, 1]], kind="flush")) is None  # type: ignore[arg-type]


class _SlideContext(_SleeveContext):
    """``_SleeveContext`` plus the box, parent centroid and contact that ``RuleReasoner._slide`` reads."""

    def __init__(self, free: list[tuple[list[float], bool]], clear: list[list[float]], centre: list[float]) -> None:
        super().__init__(free, clear)
        self.shape = SimpleNamespace(box=SimpleNamespace(centre=np.asarray(centre, float), axes=np.eye(3),
                                                         extents=np.array([0.4, 0.4, 0.2])))
        self.parent_shape = SimpleNamespace(centroid=np.zeros(3))
        self.contact = None

    def match(self, direction: np.ndarray, pivot: np.ndarray) -> None:
        return None


def test_a_drawer_slides_level_even_when_its_cut_is_clear_only_downwards() -> None:
    """A drawer cut off a merged shell whose hulls block every way and whose true surfaces leave only the way down
    (the bottom panel cut with it) slides out level towards the object's front (+X), not into the floor, even when
    it sits off to one side of its parent (a washing machine's detergent drawer); an unlabelled slider keeps the
    one clear way."""
    blocked = [(d, False) for d in _AXES]
    ctx = _SlideContext(blocked, [[0, 0, -1]], centre=[0.2, 0.0, 0.3])
    drawer = RuleReasoner()._slide(ctx, "drawer", "a drawer slides out")  # type: ignore[arg-type]
    assert drawer.type == "prismatic" and float(drawer.axis @ [1, 0, 0]) > 0.999
    assert "level side facing the front" in drawer.reason
    aside = _SlideContext(blocked, [[0, 0, -1]], centre=[0.02, -0.2, 0.3])
    drawer = RuleReasoner()._slide(aside, "drawer", "a drawer slides out")  # type: ignore[arg-type]
    assert float(drawer.axis @ [1, 0, 0]) > 0.999
    level_clear = _SlideContext(blocked, [[0, 0, -1], [0, -1, 0]], centre=[0.2, 0.0, 0.3])
    drawer = RuleReasoner()._slide(level_clear, "drawer", "a drawer slides out")  # type: ignore[arg-type]
    assert float(drawer.axis @ [0, -1, 0]) > 0.999
    other = RuleReasoner()._slide(ctx, "telescope", "a part slides out")  # type: ignore[arg-type]
    assert float(other.axis @ [0, 0, -1]) > 0.999


def _stripped(category: str, seed: int) -> tuple[Any, Any]:
    from seed3d.articulation import strip_joints
    from seed3d.synth import generate

    truth = generate(category, seed)
    return truth, articulate(strip_joints(truth), config=FAST)


def test_curtains_hung_on_a_rod_slide_along_it() -> None:
    """A panel with a running clearance to a rod it hangs from (its rings round the rod) slides along the rod,
    each curtain of a pair towards the middle; a glued control panel stays fixed."""
    truth, pred = _stripped("curtain_rod", 1002)
    want = {j.child: j for j in truth.joints if j.movable}
    got = {j.child: j for j in pred.joints}
    assert set(want) == {"curtain_left", "curtain_right"}
    for name, j in want.items():
        assert got[name].type == "prismatic", pred.metadata["articulation"]["parts"][name]
        assert float(got[name].unit_axis @ j.unit_axis) > 0.999 and got[name].upper > 0.5 * j.upper


def test_a_wall_hoods_filters_swing_down_and_its_visor_slides_out() -> None:
    """A cooker hood screwed to the wall (``mount: wall``): the sweep has no floor at its bottom, so the grease
    filter in its recess underneath swings down on its back edge, and the visor slides out to the front."""
    truth, pred = _stripped("range_hood", 1000)
    assert truth.metadata["mount"] == "wall"
    want = {j.child: j for j in truth.joints}
    got = {j.child: j for j in pred.joints}
    flap = got["filter_0"]
    assert flap.type == "revolute" and float(flap.unit_axis @ want["filter_0"].unit_axis) > 0.999
    assert flap.lower == 0.0 and flap.upper > 1.0  # down, as far as the true filter drops
    assert got["visor"].type == "prismatic" and got["visor"].unit_axis[0] > 0.99


def test_a_casement_handle_hanging_down_turns_up_towards_the_hinge() -> None:
    """A window sash's handle hangs down at rest (locked) and turns up a quarter turn towards the sash's hinge
    side; a door's lever handle, lying level, turns down instead (the rule it shares)."""
    truth, pred = _stripped("window", 1000)
    want = {j.child: j for j in truth.joints}
    got = {j.child: j for j in pred.joints}
    for name in ("sash_0_handle", "sash_1_handle"):
        assert got[name].type == "revolute"
        assert float(got[name].unit_axis @ want[name].unit_axis) > 0.999, (got[name].axis, want[name].axis)
