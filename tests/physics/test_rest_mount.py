"""The rest checks judge speed over a window (a part kicked off its stop for one step is at rest) and hold a
wall-mounted object by its root, as its wall does."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from seed3d.asset import Asset
from seed3d.export import export_asset
from seed3d.physics import PhysicsConfig, prepare
from seed3d.physics.collision import CollisionConfig
from seed3d.physics.validate import ValidationConfig, _rest_verdict, _SpeedWindow, validate_path
from seed3d.synth import generate

FAST = PhysicsConfig(collision=CollisionConfig(use_coacd=False, cache=False))


def _window_means(per_step: list[float], dt: float = 0.01) -> float:
    """Mean speed a window over the last 0.1 s reads from one link's per-step speeds (m/s, along x)."""
    window = _SpeedWindow(len(per_step), dt, ValidationConfig(rest_window=0.1))
    for k, v in enumerate(per_step):
        window.add(k, lambda v=v: (np.array([[v, 0.0, 0.0]]), np.zeros((1, 3))))
    return float(window.means()[0][0])


def test_a_one_step_kick_off_a_joint_stop_is_at_rest_but_steady_motion_is_not() -> None:
    cfg = ValidationConfig()
    kicked = _window_means([0.0] * 99 + [0.024])  # a closed laptop's screen: 24 mm/s for its last step
    steady = _window_means([0.012] * 100)  # a chair creeping 12 mm/s
    assert kicked == pytest.approx(0.0024)
    assert steady == pytest.approx(0.012)
    names, zero = ["screen"], np.zeros((1, 3))
    at_rest = _rest_verdict("PyBullet", names, zero, np.array([kicked]), np.zeros(1), [], 0.0, cfg)
    moving = _rest_verdict("PyBullet", names, zero, np.array([steady]), np.zeros(1), [], 0.0, cfg)
    assert at_rest.status == "pass"
    assert moving.status == "fail" and "still moves at 12 mm/s" in moving.message and "mean over" in moving.message


def test_window_reads_only_the_last_steps() -> None:
    assert _window_means([1.0] * 50 + [0.0] * 50) == 0.0  # fast early on, still at the end


def _clock(tmp_path: Path) -> Path:
    """A 40 cm wall clock 4.5 cm deep: stood on its rim it rolls away under its hands' weight."""
    asset = prepare(generate("clock", 4, {"radius": 0.2, "depth": 0.045}), FAST)
    out = asset.save(tmp_path / asset.name)
    export_asset(asset, out, formats=("urdf", "mjcf"))
    return out


@pytest.mark.slow
def test_a_wall_clock_rests_on_its_wall_not_on_its_rim(tmp_path: Path) -> None:
    out = _clock(tmp_path)
    assert json.loads((out / "asset.json").read_text())["metadata"]["mount"] == "wall"
    hung = validate_path(out)
    for name in ("urdf.rest_pybullet", "urdf.rest_mujoco", "mjcf.rest_mujoco"):
        check = hung.check(name)
        assert check.status == "pass" and "wall-mounted" in check.message, (name, check.message)
    assert any("wall-mounted" in n for n in hung.notes)
    stood = validate_path(out, ValidationConfig(mount="floor"))
    assert stood.check("mjcf.rest_mujoco").status == "fail"  # on its rim it rolls: the wall is what holds it
    assert not any("wall-mounted" in n for n in stood.notes)
    hung_high = validate_path(out, ValidationConfig(mount="ceiling"))  # a ceiling holds its root as a wall does
    assert hung_high.check("mjcf.rest_mujoco").status == "pass"
    assert "ceiling-mounted" in hung_high.check("urdf.rest_pybullet").message


def test_floor_objects_say_so_and_a_bad_mount_is_refused(tmp_path: Path) -> None:
    assert generate("mug", 0).metadata["mount"] == "floor"
    assert {c: generate(c, 0).metadata["mount"] for c in ("clock", "switch", "window")} == dict.fromkeys(
        ("clock", "switch", "window"), "wall")
    report = validate_path(tmp_path, ValidationConfig(mount="shelf"))
    assert not report.passed and report.checks[0].name == "input" and "shelf" in report.checks[0].message


def _support_margin(asset: Asset) -> float:
    """How far (m) the centre of mass lies inside the convex hull of what touches the ground (< 0: it tips)."""
    masses = np.array([p.inertial.mass for p in asset.parts])
    com = (masses[:, None] * np.array([p.inertial.com for p in asset.parts])).sum(0) / masses.sum()
    z0 = min(p.mesh.bounds[0, 2] for p in asset.parts)
    foot = np.concatenate([p.mesh.vertices[p.mesh.vertices[:, 2] < z0 + 0.002][:, :2] for p in asset.parts])
    hull = ConvexHull(foot)
    return float(-(hull.equations[:, :2] @ com[:2] + hull.equations[:, 2]).max())


def test_a_camera_stands_on_its_base_and_grip_not_tipped_onto_its_lens() -> None:
    """A lens is glass with air between (~1,000 kg/m³ over its cylinder, not solid aluminium) and the grip comes
    down to the base plate: the centre of mass stays over the feet at every seed (a 20 mm tilt failed seed 10)."""
    margins = [_support_margin(prepare(generate("camera", s), FAST)) for s in range(20)]
    assert min(margins) > 0.002, [round(1000 * m, 1) for m in margins]
