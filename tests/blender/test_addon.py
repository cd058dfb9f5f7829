"""The Blender add-on, headless (bpy 4.5 in .venv-blender, run as a subprocess): installs as an extension, imports
a real result from the live service with materials and the articulated hierarchy, drives joints, submits and
cancels from its operators."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from seed3d.asset import Asset
from seed3d.synth import generate
from tests.web.live import ROOT, LiveService, live_service, publish_result_job, publish_synth_job

BLENDER_PY = ROOT / ".venv-blender" / "bin" / "python"
SCRIPT = Path(__file__).with_name("addon_script.py")

pytestmark = pytest.mark.skipif(not BLENDER_PY.exists(), reason=".venv-blender is absent (scripts/blender_venv.sh "
                                                                "creates it: bpy 4.5 needs numpy<2, so its own venv)")


def _blender(v: np.ndarray) -> np.ndarray:
    """Asset axes -> Blender axes (through the GLB and Blender's glTF importer): (y, -x, z)."""
    return np.stack([v[..., 1], -v[..., 0], v[..., 2]], axis=-1)


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    k = axis / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * kx + (1 - np.cos(angle)) * kx @ kx


def expected_bounds(asset: Asset, open_joints: bool) -> dict[str, np.ndarray]:
    """World bounds (Blender axes) of every part with each movable joint at rest or at its upper limit."""
    motion: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # part -> (R, t): x_world = R x + t
    bounds = {}
    for name in asset.tree_order():
        joint = asset.joint_to(name)
        rot, shift = np.eye(3), np.zeros(3)
        if joint is not None:
            pr, pt = motion[joint.parent]
            jr, jt = np.eye(3), np.zeros(3)
            if open_joints and joint.type == "revolute":
                jr = _rotation(joint.unit_axis, joint.upper)
                jt = joint.origin - jr @ joint.origin
            elif open_joints and joint.type == "prismatic":
                jt = joint.unit_axis * joint.upper
            rot, shift = pr @ jr, pr @ jt + pt
        motion[name] = (rot, shift)
        verts = _blender(asset.part(name).mesh.vertices @ rot.T + shift)
        bounds[name] = np.stack([verts.min(axis=0), verts.max(axis=0)])
    return bounds


@pytest.fixture(scope="module")
def idle_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(tmp_path_factory.mktemp("idle"), workers=0) as svc:
        yield svc


#: A refused (require_valid) generation's result: its drawer cannot open.
NOT_FUNCTIONAL = {"name": "cabinet", "valid": False, "sound": True, "functional": False,
                  "failed_checks": ["functional.travel"],
                  "failures": [{"name": "functional.travel", "message": "drawer_slide (drawer) moves 1.0 mm"}]}


@pytest.fixture(scope="module")
def report(idle_service: LiveService, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    job = publish_synth_job(idle_service, "cabinet", seed=0)
    refused = publish_result_job(idle_service, NOT_FUNCTIONAL, status="failed", error=(
        "asset_invalid", "the asset failed validation (not functional): functional.travel (require_valid)"))
    work = tmp_path_factory.mktemp("blender")
    config = work / "config.json"
    config.write_text(json.dumps({"url": idle_service.url, "cabinet_job": job, "refused_job": refused,
                                  "addon_dir": str(ROOT / "blender"), "work_dir": str(work)}))
    out = work / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(OMP_NUM_THREADS="1", HOME=str(work))  # Blender's user config goes to the temp folder
    proc = subprocess.run([str(BLENDER_PY), str(SCRIPT), str(config), str(out)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"bpy script failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return json.loads(out.read_text())


def test_installs_as_an_extension_and_unregisters(report: dict[str, Any]) -> None:
    assert report["install"] == ["FINISHED"]
    assert report["panels"] == ["VIEW3D_PT_seed3d", "VIEW3D_PT_seed3d_joints"]
    assert report["unregistered"]


def test_imports_the_articulated_hierarchy_with_materials(report: dict[str, Any]) -> None:
    assert report["import_op"] == ["FINISHED"] and report["import_error"] == ""
    assert report["import_shown"][-1] == "imported 9 objects"
    assert report["import_made"][:3] == ["made by: program", "seed3d synth cabinet --seed 0",
                                         "program: cabinet (confidence 1.00)"]
    asset = generate("cabinet", seed=0)
    rest = report["rest"]
    assert sorted(rest) == sorted(p.name for p in asset.parts)  # one object per part, named after it
    for name, obj in rest.items():
        joint = asset.joint_to(name)
        assert obj["parent"] == (joint.parent if joint else None)
        assert obj["joint"] == (joint.name if joint else None)
        assert obj["materials"] == [asset.part(name).material.name]
        if joint is not None and joint.movable:
            assert obj["q"]["value"] == 0.0
            assert (obj["q"]["min"], obj["q"]["max"]) == pytest.approx((joint.lower, joint.upper))
            assert obj["q"]["subtype"] == ("DISTANCE" if joint.type == "prismatic" else "ANGLE")
        else:
            assert "q" not in obj
    assert report["images_packed"] and all(report["images_packed"].values())  # textures live in the .blend
    for name, box in expected_bounds(asset, open_joints=False).items():
        np.testing.assert_allclose(rest[name]["bounds"], box, atol=2e-5, err_msg=name)


def test_joint_properties_move_the_parts(report: dict[str, Any]) -> None:
    asset = generate("cabinet", seed=0)
    opened = expected_bounds(asset, open_joints=True)
    rest = expected_bounds(asset, open_joints=False)
    for name, box in opened.items():
        np.testing.assert_allclose(report["open"][name]["bounds"], box, atol=2e-5, err_msg=name)
    moved = [n for n in opened if not np.allclose(opened[n], rest[n], atol=1e-3)]
    assert len(moved) == 8  # two doors and two drawers, each with its handle


def test_flat_import_keeps_parts_in_place_without_parents(report: dict[str, Any]) -> None:
    asset = generate("cabinet", seed=0)
    flat = {name.split(".")[0]: obj for name, obj in report["flat"].items()}  # second import: body.001, ...
    assert sorted(flat) == sorted(p.name for p in asset.parts)
    for name, box in expected_bounds(asset, open_joints=False).items():
        assert flat[name]["parent"] is None and "q" not in flat[name]
        np.testing.assert_allclose(flat[name]["bounds"], box, atol=2e-5, err_msg=name)


def test_generate_reports_progress_and_cancels_from_blender(report: dict[str, Any]) -> None:
    assert report["generate_op"] == ["FINISHED"] and report["cancel_op"] == ["FINISHED"]
    job = report["generated_job"]
    assert job["options"]["text"] == "a chair" and job["options"]["seed"] == 5
    assert job["options"]["formats"] == ["glb", "urdf", "mjcf"]
    assert job["options"]["generator"] == "program" and job["options"]["params"] == {"legs": "3", "arms": "true"}
    assert job["options"]["require_valid"] is True
    assert report["generate_shown"][0].startswith("queued")
    assert report["generate_shown"][-1] == "canceled"
    assert report["generate_state"]["running"] is False and report["generate_state"]["error"] == ""


def test_a_program_result_fills_the_settings_to_generate_again(report: dict[str, Any]) -> None:
    assert report["use_program_op"] == ["FINISHED"]
    filled = report["use_program"]
    assert filled["prompt"] == "a cabinet" and filled["seed"] == 0 and filled["generator"] == "program"
    params = dict(item.split("=", 1) for item in filled["params"].split("; "))
    assert params["doors"] == "2" and params["layout"] == "doors_over_drawers" and params["glass_doors"] == "false"
    assert params["door_swing"].count(",") == 1


def test_a_job_whose_asset_failed_validation_says_which_checks(report: dict[str, Any]) -> None:
    state = report["refused_state"]
    assert state["status"] == "failed" and state["error"].startswith("asset_invalid: the asset failed validation")
    assert state["verdict"] == ["NOT valid · physically sound: yes · functional: NO",
                                "failed functional.travel: drawer_slide (drawer) moves 1.0 mm"]
    assert state["valid"] is False
