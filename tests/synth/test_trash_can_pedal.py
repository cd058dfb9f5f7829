"""A pedal bin's pedal stays up at rest: gravity holds it against its stop, in MuJoCo as in PyBullet."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from seed3d.export import export_asset
from seed3d.physics import prepare
from seed3d.physics.validate import validate_path
from seed3d.program import build_program, parse_text
from seed3d.synth import generate

SIZES = [
    {"shape": "round", "height": 0.3, "radius": 0.1},
    {"shape": "round", "height": 0.75, "radius": 0.2},
    {"shape": "square", "height": 0.5, "radius": 0.15},
    {"shape": "square", "height": 0.3, "radius": 0.1, "pedal_finish": "brushed_metal:brass"},
]


@pytest.mark.parametrize("seed", [0, 5])
@pytest.mark.parametrize("params", SIZES)
def test_gravity_holds_the_pedal_against_its_stop(params: dict[str, object], seed: int) -> None:
    asset = generate("trash_can", seed, {"lid": "pedal", **params})
    pedal = next(p for p in asset.parts if p.name == "pedal")
    joint = next(j for j in asset.joints if j.child == "pedal")
    assert joint.type == "revolute" and joint.lower == 0.0 and joint.upper == pytest.approx(0.3)
    np.testing.assert_allclose(joint.axis, [0.0, 1.0, 0.0])
    pivot = np.asarray(joint.origin, float)
    centre = np.asarray(pedal.mesh.bounds, float).mean(axis=0)  # a solid box: its centre of mass
    # about +y, positive turns press the outer end down; the centre of mass on the bin's side of the pivot makes
    # gravity's torque negative: it pushes the pedal up against its lower limit, the rest pose
    torque_y = np.cross(centre - pivot, [0.0, 0.0, -9.81])[1]
    assert torque_y < 0.0
    assert centre[0] < pivot[0] - 0.003
    # pressed to its limit, the outer end stays above the floor and the inner end clear of the bin
    c, s = np.cos(0.3), np.sin(0.3)
    rel = np.asarray(pedal.mesh.vertices, float) - pivot
    pressed = np.stack([c * rel[:, 0] + s * rel[:, 2], rel[:, 1], -s * rel[:, 0] + c * rel[:, 2]], -1) + pivot
    assert pressed[:, 2].min() > 0.002
    body = next(p for p in asset.parts if p.name == "body")
    assert pressed[:, 0].min() > body.mesh.bounds[1][0]


@pytest.mark.slow
def test_the_reported_green_pedal_bin_rests_in_mujoco(tmp_path: Path) -> None:
    """The asset of "a green pedal bin 50 cm tall" passes validation, its MuJoCo rest check included."""
    asset = prepare(build_program(parse_text("a green pedal bin 50 cm tall", embed=False), seed=0))
    out = asset.save(tmp_path / asset.name)
    export_asset(asset, out, formats=("urdf", "mjcf"))
    report = validate_path(out)
    rest = {c.name: c for c in report.checks if c.name.endswith("rest_mujoco") or c.name.endswith("rest_pybullet")}
    assert "urdf.rest_mujoco" in rest
    failed = [f"{c.name}: {c.message}" for c in rest.values() if c.status == "fail"]
    assert not failed, failed
    assert rest["urdf.rest_mujoco"].numbers["max_joint_drift_rad"] < 0.01
