"""The measurements of eval/bench_program_compare.py and eval/bench_learned_joints.py on known assets."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "eval"))


@pytest.fixture(scope="module")
def cabinet():
    from seed3d import synth

    return synth.generate("cabinet", 10000, {"doors": 2, "drawers": 1})


def test_truth_against_itself_is_perfect(cabinet):
    import bench_program_compare as bc
    from shape_metrics import surface_metrics

    assert bc.movable_count(cabinet) == 3
    pts = bc.surface(cabinet, seed=0)
    f = surface_metrics(*bc.surface(cabinet, seed=1), *pts, taus=(0.02, 0.05))
    assert f["f@0.05"] > 0.99
    j = bc.joint_errors(cabinet, cabinet)
    assert j["matched"] == j["truth"] == j["predicted"] >= 3
    assert all(j["type_ok"]) and max(j["axis_err_deg"]) < 1e-6 and max(j["pivot_err"], default=0) < 1e-6


def test_scaled_copy_scores_the_same_and_a_rigid_copy_misses_joints(cabinet):
    import dataclasses

    import bench_program_compare as bc

    big = cabinet.copy()
    m = np.diag([2.0, 2.0, 2.0, 1.0])
    for p in big.parts:
        p.mesh = p.mesh.transformed(m)
    for jt in big.joints:
        jt.origin = np.asarray(jt.origin) * 2.0
    j = bc.joint_errors(cabinet, big)
    assert j["matched"] == j["truth"] and max(j.get("pivot_err", [0])) < 1e-6  # normalised: scale does not count
    rigid = cabinet.copy()
    rigid.joints = [dataclasses.replace(jt, type="fixed") for jt in rigid.joints]
    assert bc.movable_count(rigid) == 0
    assert bc.joint_errors(cabinet, rigid)["missed"] == j["truth"]


def test_learned_joints_measure_counts_against_the_prompt(cabinet):
    import bench_learned_joints as bl

    cabinet.metadata["category"] = "cabinet"
    right = bl.measure(cabinet, {"counts": {"doors": 2, "drawers": 1, "shelves": 3}})
    assert right["count_match"] and set(right["counts"]) == {"doors", "drawers"}
    assert right["functional_passed"] and right["joints_passing"] == right["movable_joints"]
    wrong = bl.measure(cabinet, {"counts": {"doors": 3}})
    assert not wrong["count_match"] and wrong["counts"]["doors"] == {"expected": 3, "got": 2, "ok": False}
