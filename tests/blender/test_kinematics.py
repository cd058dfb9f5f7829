"""asset.json parts and joints in Blender axes (no bpy): frames, tree order, pivots, name matching."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from seed3d_client import blender_from_asset, match_objects, parse_asset

from seed3d.export.glb import to_gltf
from seed3d.synth import generate


def _gltf_to_blender(v: np.ndarray) -> np.ndarray:
    """Blender's glTF importer: Blender (x, y, z) = glTF (x, -z, y)."""
    return np.array([v[0], -v[2], v[1]])


def test_blender_axes_follow_the_glb_and_the_importer() -> None:
    rng = np.random.default_rng(0)
    for v in rng.normal(size=(8, 3)):
        through_glb = _gltf_to_blender(to_gltf(v))
        np.testing.assert_allclose(blender_from_asset(v), through_glb, atol=1e-12)
    # the asset's front (+X) faces Blender's -Y, up stays up
    assert blender_from_asset((1, 0, 0)) == (0.0, -1.0, 0.0)
    assert blender_from_asset((0, 0, 1)) == (0.0, 0.0, 1.0)


@pytest.fixture(scope="module")
def cabinet_doc(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = Path(tmp_path_factory.mktemp("cab")) / "cabinet"
    generate("cabinet", seed=0).save(out)
    return json.loads((out / "asset.json").read_text())


def test_parse_asset_reads_the_cabinet_tree(cabinet_doc: dict) -> None:
    info = parse_asset(cabinet_doc)
    assert info.root == "body"
    order = info.tree_order()
    assert sorted(order) == sorted(info.parts)
    for j in info.joints:  # parents come before children
        assert order.index(j.parent) < order.index(j.child)
    movable = {j.type for j in info.movable_joints}
    assert movable == {"revolute", "prismatic"}
    for j in info.movable_joints:
        lo, hi = j.limits
        assert lo < hi
        assert math.isclose(sum(c * c for c in j.blender_axis), 1.0)


def test_local_offsets_add_up_to_the_pivots(cabinet_doc: dict) -> None:
    info = parse_asset(cabinet_doc)
    for part in info.parts:
        total, here = np.zeros(3), part
        while (j := info.joint_to(here)) is not None:
            total += info.local_offset(here)
            here = j.parent
        np.testing.assert_allclose(total, info.pivot(part), atol=1e-12)
        joint = info.joint_to(part)
        if joint is not None:
            np.testing.assert_allclose(info.pivot(part), blender_from_asset(joint.origin), atol=1e-12)


def test_parse_asset_refuses_broken_trees(cabinet_doc: dict) -> None:
    doc = json.loads(json.dumps(cabinet_doc))
    doc["joints"][0]["parent"] = "nowhere"
    with pytest.raises(ValueError, match="unknown parts"):
        parse_asset(doc)
    doc = json.loads(json.dumps(cabinet_doc))
    doc["joints"].append(dict(doc["joints"][0], name="again"))
    with pytest.raises(ValueError, match="two parent joints"):
        parse_asset(doc)
    doc = json.loads(json.dumps(cabinet_doc))
    first = doc["joints"][0]
    doc["joints"].append({**first, "name": "loop", "parent": first["child"], "child": "body"})
    with pytest.raises(ValueError):
        parse_asset(doc)
    with pytest.raises(ValueError, match="no parts"):
        parse_asset({"name": "x", "parts": [], "joints": []})
    with pytest.raises(ValueError, match="not a Seed3D asset"):
        parse_asset({"parts": [{"label": "no name"}]})


def test_match_objects_allows_blender_suffixes() -> None:
    parts = ["body", "door_0", "door_1"]
    # a second import of the same asset: Blender renamed the clashing objects
    found = match_objects(["body.001", "door_0.001", "door_1.002", "Camera"], parts)
    assert found == {"body": "body.001", "door_0": "door_0.001", "door_1": "door_1.002"}
    assert match_objects(["body", "body.001"], ["body"]) == {"body": "body"}
    assert match_objects(["lamp"], parts) == {}
