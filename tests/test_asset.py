"""The asset data model: tree rules, lossless folder round trips, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from seed3d.asset import (
    Asset,
    Inertial,
    Joint,
    Mesh,
    Part,
    PBRMaterial,
    PhysicalMaterial,
    Scene,
    SceneObject,
    atomic_dir,
    atomic_file,
)
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.synth.primitives import box, demo_cabinet


def _folder_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_demo_cabinet_tree() -> None:
    asset = demo_cabinet()
    assert asset.root == "body"
    assert asset.tree_order()[0] == "body"
    assert set(asset.tree_order()) == {p.name for p in asset.parts}
    assert asset.joint_to("door").type == "revolute"
    np.testing.assert_allclose(asset.bounds()[0, 2], 0.0)  # rests on z = 0


def test_round_trip_is_lossless_and_byte_stable(tmp_path: Path) -> None:
    asset = demo_cabinet()
    asset.parts[0].inertial = Inertial(1.25, [0.1, 0.2, 0.3], np.diag([0.1, 0.2, 0.25]), "given")
    asset.parts[0].collision = [box([0, 0, 0], [1, 1, 1]), box([1, 0, 0], [2, 1, 1])]
    asset.metadata["prompt"] = "a small oak cabinet — with ünïcode"
    first = asset.save(tmp_path / "a")
    loaded = Asset.load(first)
    assert loaded == asset
    assert loaded.parts[1].material.base_color_map is not None
    mr_back, mr = loaded.parts[1].material.metallic_roughness_map, asset.parts[1].material.metallic_roughness_map
    assert np.array_equal(mr_back, mr)
    loaded.save(tmp_path / "b")
    assert _folder_bytes(tmp_path / "a") == _folder_bytes(tmp_path / "b")


def test_save_refuses_to_clobber_and_keeps_exports_on_overwrite(tmp_path: Path) -> None:
    asset = demo_cabinet()
    out = asset.save(tmp_path / "cab")
    with pytest.raises(InvalidInputError, match="exists"):
        asset.save(out)
    (out / "urdf").mkdir()
    (out / "urdf" / "x.urdf").write_text("<robot/>")
    asset.metadata["note"] = "second"
    asset.save(out, overwrite=True)
    assert (out / "urdf" / "x.urdf").read_text() == "<robot/>"
    assert Asset.load(out).metadata["note"] == "second"


def test_failed_write_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "half"
    with pytest.raises(RuntimeError), atomic_dir(target) as tmp:
        (tmp / "file").write_text("partial")
        raise RuntimeError("crash mid-write")
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RuntimeError), atomic_file(tmp_path / "f.txt") as f:
        f.write_text("partial")
        raise RuntimeError("crash")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda a: a.joints.append(Joint("j2", "fixed", "body", "door")), "more than one parent"),
        (lambda a: a.joints.append(Joint("j3", "fixed", "body", "ghost")), "unknown part 'ghost'"),
        (lambda a: a.parts.append(Part("body", box([0, 0, 0], [1, 1, 1]))), "duplicate part names"),
        (lambda a: a.parts.append(Part("orphan", box([0, 0, 0], [1, 1, 1]))), "exactly one root"),
    ],
)
def test_tree_errors(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    asset = demo_cabinet()
    mutate(asset)
    with pytest.raises(AssetFormatError, match=message):
        asset.check_tree()


def test_bad_values_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="type must be one of"):
        Joint("j", "ball", "a", "b")
    with pytest.raises(InvalidInputError, match="roughness"):
        PBRMaterial(roughness=1.5)
    with pytest.raises(InvalidInputError, match="density"):
        PhysicalMaterial("x", density=0)
    with pytest.raises(InvalidInputError, match="outside"):
        Mesh(np.zeros((3, 3)), [[0, 1, 3]])
    with pytest.raises(InvalidInputError, match="name"):
        Part("bad name/..", box([0, 0, 0], [1, 1, 1]))
    with pytest.raises(AssetFormatError, match="zero"):
        _ = Joint("j", "revolute", "a", "b", axis=[0, 0, 0]).unit_axis


def test_load_errors_name_file_and_element(tmp_path: Path) -> None:
    out = demo_cabinet().save(tmp_path / "cab")
    (out / "meshes" / "door.npz").unlink()
    with pytest.raises(AssetFormatError, match=r"parts\[1\] \(door\).*door.npz"):
        Asset.load(out)
    doc = json.loads((out / "asset.json").read_text())
    doc["schema_version"] = 99
    (out / "asset.json").write_text(json.dumps(doc))
    with pytest.raises(AssetFormatError, match="schema_version 99"):
        Asset.load(out)
    (out / "asset.json").write_text("{broken")
    with pytest.raises(AssetFormatError, match="not valid JSON"):
        Asset.load(out)
    with pytest.raises(AssetFormatError, match=r"no asset\.json"):
        Asset.load(tmp_path)


def test_mesh_transform_keeps_orientation() -> None:
    cube = box([0, 0, 0], [1, 1, 1])
    mirror = np.diag([-1.0, 1.0, 1.0, 1.0])
    flipped = cube.transformed(mirror)
    assert flipped.to_trimesh().volume == pytest.approx(1.0)  # winding flipped with the mirror
    assert cube.translated([1, 2, 3]).bounds[0].tolist() == [1, 2, 3]
    assert cube.digest() == box([0, 0, 0], [1, 1, 1]).digest() != flipped.digest()


def test_mesh_manifold_round_trip_and_open_mesh_status() -> None:
    """A closed box goes to a manifold3d solid and back with its volume; an open one gives an error status."""
    cube = box([0.1, 0.2, 0.3], [0.6, 0.7, 0.9])
    solid = cube.to_manifold()
    assert solid.status().name == "NoError" and solid.volume() == pytest.approx(0.5 * 0.5 * 0.6)
    back = Mesh.from_manifold(solid - box([0.0, 0.0, 0.0], [0.35, 0.45, 0.6]).to_manifold())
    assert back.to_trimesh().is_watertight
    assert back.to_trimesh().volume == pytest.approx(0.15 - 0.25 * 0.25 * 0.3)
    assert Mesh(cube.vertices, cube.faces[1:]).to_manifold().status().name != "NoError"
    offset = Mesh(cube.vertices + 1e-9, cube.faces)  # below float32's resolution at 0.1-0.9 m

    def corners(solid: object) -> np.ndarray:
        return np.unique(Mesh.from_manifold(solid).vertices, axis=0)

    rounded = np.unique(offset.vertices.astype(np.float32).astype(np.float64), axis=0)
    assert np.array_equal(corners(offset.to_manifold(float32=True)), rounded)
    assert np.array_equal(corners(offset.to_manifold()), np.unique(offset.vertices, axis=0))  # float64 kept
    assert not np.array_equal(rounded, np.unique(offset.vertices, axis=0))


def test_scene_round_trip(tmp_path: Path) -> None:
    scene = Scene("kitchen", [3.0, 4.0, 2.5], [SceneObject("cab", demo_cabinet(), [1.0, 1.0, 0.0], np.pi / 2)])
    scene.save(tmp_path / "s")
    back = Scene.load(tmp_path / "s")
    assert back.objects[0].asset == scene.objects[0].asset
    np.testing.assert_allclose(back.objects[0].pose(), scene.objects[0].pose())
    np.testing.assert_allclose(back.objects[0].pose()[:3, :3] @ [1, 0, 0], [0, 1, 0], atol=1e-12)
