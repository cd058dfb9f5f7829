"""seed3d.scene.compose: a small scene is built, exported (URDF/MJCF/USD), loads in PyBullet and MuJoCo and settles."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from seed3d.asset import Scene
from seed3d.errors import InvalidInputError
from seed3d.physics.validate import validate_path
from seed3d.scene import generate_scene
from seed3d.scene.compose import ComposeConfig, build_object, derive_seed, repaint, scale_asset
from seed3d.scene.plan import plan_scene
from seed3d.synth import generate


@pytest.fixture(scope="module")
def kitchen(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("scenes") / "kitchen"
    seen: list[float] = []
    result = generate_scene("a kitchen with a cabinet against the wall, a microwave on the cabinet and a table with "
                            "two chairs", seed=3, out=out, progress=lambda f, m: seen.append(f),
                            config=ComposeConfig(render_size=(160, 120)))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    return out, result


def test_scene_folder_and_exports(kitchen: tuple[Path, object]) -> None:
    out, result = kitchen
    for rel in ("scene.json", "plan.json", "layout.json", "report.json", "plan.png", "urdf/scene.urdf",
                "urdf/room.urdf", "mjcf/scene.xml", "usd/scene.usda", "assets/microwave/asset.json",
                "urdf/objects/microwave/microwave.urdf", "mjcf/objects/chair_1/chair_1.xml"):
        assert (out / rel).is_file(), rel
    assert result.paths["urdf"] == out / "urdf/scene.urdf" and result.paths["folder"] == out
    scene = Scene.load(out)
    assert [o.name for o in scene.objects] == ["cabinet", "microwave", "table", "chair_1", "chair_2"]
    assert scene.metadata["room_frame"] == "centred"
    for o, p in zip(scene.objects, result.scene.objects, strict=True):  # type: ignore[attr-defined]
        assert np.allclose(o.position, p.position) and o.yaw == p.yaw
        assert all(part.collision and part.inertial is not None for part in o.asset.parts)
    # the one-file URDF: every object hangs from 'world' by a floating joint at its pose
    root = ET.parse(out / "urdf/scene.urdf").getroot()
    anchors = {j.get("name"): j for j in root.findall("joint") if j.get("name", "").endswith("__anchor")}
    assert set(anchors) == {f"{o.name}__anchor" for o in scene.objects}
    mw = anchors["microwave__anchor"]
    assert mw.get("type") == "floating" and mw.find("parent").get("link") == "world"  # type: ignore[union-attr]
    xyz = [float(v) for v in mw.find("origin").get("xyz").split()]  # type: ignore[union-attr]
    assert np.allclose(xyz, scene.objects[1].position, atol=1e-6)
    assert all((out / "urdf" / m.get("filename")).is_file() for m in root.iter("mesh"))  # type: ignore[operator]
    report = json.loads((out / "report.json").read_text())
    assert report["objects"][1]["support"] == "cabinet"
    assert {r["name"] for r in report["objects"]} == {o.name for o in scene.objects}


def test_scene_loads_and_settles_in_both_engines(kitchen: tuple[Path, object]) -> None:
    _, result = kitchen
    physics = result.report["physics"]  # type: ignore[attr-defined]
    assert physics["passed"], physics
    names = {c["name"]: c for c in physics["checks"]}
    for check in ("scene.load", "scene.files", "scene.interpenetration_pybullet", "scene.rest_pybullet",
                  "scene.load_urdf_mujoco", "scene.rest_mujoco", "scene.usd_parse", "scene.usd_files"):
        assert names[check]["status"] == "pass", names[check]
    moved = names["scene.rest_pybullet"]["numbers"]["displacement_m"]
    assert set(moved) == {"cabinet", "microwave", "table", "chair_1", "chair_2"}
    assert max(moved.values()) < 0.02
    assert names["scene.rest_mujoco"]["numbers"]["max_displacement_m"] < 0.02
    assert names["scene.load_urdf_mujoco"]["numbers"]["free"] == 5
    checks = result.report["checks"]  # type: ignore[attr-defined]
    assert checks["collision_free"] and checks["in_bounds"] and checks["support_rate"] == 1.0


def test_validate_catches_a_scene_that_does_not_hold(kitchen: tuple[Path, object], tmp_path: Path) -> None:
    """Move the microwave into the table in scene.json: PyBullet (which loads objects at scene.json poses) sees it."""
    import shutil

    out, _ = kitchen
    broken = tmp_path / "broken"
    shutil.copytree(out, broken)
    doc = json.loads((broken / "scene.json").read_text())
    pos = {o["name"]: o["position"] for o in doc["objects"]}
    for o in doc["objects"]:
        if o["name"] == "microwave":
            o["position"] = [pos["table"][0], pos["table"][1], 0.6]  # through the table top
    (broken / "scene.json").write_text(json.dumps(doc))
    report = validate_path(broken)
    assert not report.passed and report.kind == "scene folder"
    pen = report.check("scene.interpenetration_pybullet")
    assert pen.status == "fail" and "microwave" in pen.message and "table" in pen.message


def test_scale_asset_scales_everything_that_has_a_length() -> None:
    asset = generate("cabinet", 2)
    big = scale_asset(asset, 1.5)
    assert np.allclose(big.bounds(), asset.bounds() * 1.5)
    for a, b in zip(asset.joints, big.joints, strict=True):
        assert np.allclose(b.origin, a.origin * 1.5)
        if a.type == "prismatic":
            assert b.upper == pytest.approx(a.upper * 1.5)
        else:
            assert (b.lower, b.upper) == (a.lower, a.upper)  # angles do not scale
    for a, b in zip(asset.parts, big.parts, strict=True):
        assert b.inertial is None and all(np.allclose(hb.vertices, ha.vertices * 1.5)
                                          for ha, hb in zip(a.collision, b.collision, strict=True))
    assert big.metadata["scene_scale"] == 1.5
    with pytest.raises(InvalidInputError):
        scale_asset(asset, 0.0)


def test_colour_and_size_attributes_are_honoured() -> None:
    plan = plan_scene("a small red fridge and a large wooden table")
    inst = {i.name: i for i in plan.instances()}
    fridge, record = build_object(inst["refrigerator"], 0, 7, ComposeConfig())
    main = next(iter(fridge.metadata["attributes"]["materials"].values()))
    assert "red" in main["colour"]
    target = np.array(plan.group("refrigerator").size)
    ext = fridge.bounds()[1] - fridge.bounds()[0]
    assert np.exp(np.mean(np.log(ext / target))) == pytest.approx(1.0, abs=0.12)
    table, _ = build_object(inst["table"], 1, 7, ComposeConfig())
    kinds = {m["kind"] for m in table.metadata["attributes"]["materials"].values()}
    assert kinds & {"wood", "painted_wood"}
    assert record["synth_seed"] == derive_seed(7, 0, record["candidate"])
    # repainting a finish swaps the parts' material and records it
    asset = generate("refrigerator", 3)
    painted, note = repaint(asset, "green", None)
    assert "green" in note and any("green" in p.material.name for p in painted.parts)
    assert not any("green" in p.material.name for p in asset.parts)


def test_generate_scene_arguments() -> None:
    with pytest.raises(InvalidInputError, match="seed"):
        generate_scene("a table", seed=-1)
    result = generate_scene("a chair", room_size=(2.0, 2.5), config=ComposeConfig(checks=False))
    assert tuple(result.scene.size) == (2.0, 2.5, 2.7)
    assert result.paths == {} and math.isfinite(result.report["timings"]["total"])
