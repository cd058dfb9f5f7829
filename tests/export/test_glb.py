"""GLB export, re-read by pygltflib and trimesh."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pygltflib
import pytest
import trimesh
from PIL import Image

from seed3d.errors import ExportError
from seed3d.export import glb as glb_module
from seed3d.export.glb import GLTF_FROM_ASSET, build_glb, export_glb, to_gltf
from seed3d.synth.primitives import demo_cabinet
from tests.export._helpers import gadget, rotation

_DTYPES = {5126: np.float32, 5125: np.uint32, 5123: np.uint16}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}


def _load(path: Path) -> pygltflib.GLTF2:
    return pygltflib.GLTF2().load(str(path))


def _accessor(g: pygltflib.GLTF2, index: int) -> np.ndarray:
    acc = g.accessors[index]
    view = g.bufferViews[acc.bufferView]
    start = (view.byteOffset or 0) + (acc.byteOffset or 0)
    width = _WIDTH[acc.type]
    data = np.frombuffer(g.binary_blob(), _DTYPES[acc.componentType], acc.count * width, start)
    return data.reshape(acc.count, width) if width > 1 else data


def _image(g: pygltflib.GLTF2, texture: int) -> np.ndarray:
    img = g.images[g.textures[texture].source]
    assert img.mimeType == "image/png"
    view = g.bufferViews[img.bufferView]
    raw = g.binary_blob()[view.byteOffset: view.byteOffset + view.byteLength]
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    return np.asarray(Image.open(io.BytesIO(raw)))


@pytest.fixture(scope="module")
def cabinet_glb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    asset = demo_cabinet()
    return export_glb(asset, tmp_path_factory.mktemp("glb") / "cabinet.glb"), asset


def test_rotation_is_proper_and_maps_up_and_front() -> None:
    assert np.isclose(np.linalg.det(GLTF_FROM_ASSET), 1.0)
    assert np.allclose(to_gltf([0, 0, 1]), [0, 1, 0])  # up → +Y
    assert np.allclose(to_gltf([1, 0, 0]), [0, 0, 1])  # front → +Z


def test_one_node_per_part_following_the_tree(cabinet_glb) -> None:
    path, asset = cabinet_glb
    g = _load(path)
    names = [n.name for n in g.nodes]
    assert sorted(names) == sorted(p.name for p in asset.parts)
    assert [names[i] for i in g.scenes[g.scene].nodes] == [asset.root]
    for joint in asset.joints:
        parent, child = g.nodes[names.index(joint.parent)], names.index(joint.child)
        assert child in parent.children
        expected = GLTF_FROM_ASSET @ (asset.link_origin(joint.child) - asset.link_origin(joint.parent))
        assert np.allclose(g.nodes[child].translation, expected)
    for node in g.nodes:
        assert node.rotation is None and node.scale is None and node.matrix is None
        assert g.meshes[node.mesh].name == node.name


def test_mesh_vertices_are_in_the_link_frame(cabinet_glb) -> None:
    path, asset = cabinet_glb
    g = _load(path)
    for node in g.nodes:
        part = asset.part(node.name)
        prim = g.meshes[node.mesh].primitives[0]
        pos = _accessor(g, prim.attributes.POSITION).astype(np.float64)
        local = (part.mesh.vertices - asset.link_origin(part.name)) @ GLTF_FROM_ASSET.T
        assert np.allclose(pos.min(axis=0), local.min(axis=0), atol=1e-6)
        assert np.allclose(pos.max(axis=0), local.max(axis=0), atol=1e-6)
        assert np.allclose(g.accessors[prim.attributes.POSITION].min, pos.min(axis=0))
        normals = _accessor(g, prim.attributes.NORMAL)
        assert np.allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-5)
        faces = _accessor(g, prim.indices).reshape(-1, 3)
        assert len(faces) == len(part.mesh.faces)
        # normals point away from the part's centre on these convex-ish boxes: face winding kept outward
        tri = pos[faces]
        cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        volume = np.einsum("ij,ij->i", tri[:, 0], cross).sum() / 6
        assert volume > 0


def test_joint_extras_let_a_viewer_open_the_door(cabinet_glb) -> None:
    path, asset = cabinet_glb
    g = _load(path)
    nodes = {n.name: n for n in g.nodes}
    hinge = asset.joint_to("door")
    info = nodes["door"].extras["joint"]
    assert info["name"] == "door_hinge" and info["type"] == "revolute" and info["parent"] == "body"
    assert np.allclose(info["axis"], GLTF_FROM_ASSET @ hinge.unit_axis)
    assert info["lower"] == 0.0 and np.isclose(info["upper"], np.deg2rad(110))
    assert (info["damping"], info["friction"]) == (hinge.damping, hinge.friction)
    assert nodes["door_handle"].extras["joint"]["type"] == "fixed"
    assert "axis" not in nodes["door_handle"].extras["joint"]
    assert "joint" not in nodes["body"].extras
    slide = nodes["drawer"].extras["joint"]
    assert slide["type"] == "prismatic" and np.allclose(slide["axis"], to_gltf([1, 0, 0]))

    # Rotate the door node by +1 rad about its axis, as a viewer would: the door swings out to +X.
    prim = g.meshes[nodes["door"].mesh].primitives[0]
    local = _accessor(g, prim.attributes.POSITION).astype(np.float64)
    world_gl = local @ rotation(np.array(info["axis"]), 1.0).T + np.array(nodes["door"].translation)
    world = world_gl @ GLTF_FROM_ASSET  # back to asset axes (root node sits at the origin)
    door = asset.part("door").mesh.vertices
    expected = (door - hinge.origin) @ rotation(hinge.unit_axis, 1.0).T + hinge.origin
    assert np.allclose(np.sort(world, axis=0), np.sort(expected, axis=0), atol=1e-5)
    assert world[:, 0].max() > door[:, 0].max() + 0.2  # opened outward, towards +X


def test_material_factors(cabinet_glb) -> None:
    path, asset = cabinet_glb
    g = _load(path)
    nodes = {n.name: n for n in g.nodes}
    for part in asset.parts:
        mat = g.materials[g.meshes[nodes[part.name].mesh].primitives[0].material]
        pbr = mat.pbrMetallicRoughness
        assert mat.name == part.material.name
        assert np.allclose(pbr.baseColorFactor, part.material.base_color)
        assert pbr.metallicFactor == part.material.metallic
        assert pbr.roughnessFactor == part.material.roughness
        assert mat.alphaMode == "OPAQUE"
    # the two steel parts share one material; textures only where the asset has maps
    assert len(g.materials) == 3
    door = g.materials[g.meshes[nodes["door"].mesh].primitives[0].material].pbrMetallicRoughness
    assert door.baseColorTexture is not None and door.metallicRoughnessTexture is not None
    body = g.materials[g.meshes[nodes["body"].mesh].primitives[0].material].pbrMetallicRoughness
    assert body.baseColorTexture is None and body.metallicRoughnessTexture is None


def test_textures_embedded_with_gltf_channel_order(tmp_path: Path) -> None:
    asset = gadget()
    g = _load(export_glb(asset, tmp_path / "gadget.glb"))
    node = next(n for n in g.nodes if n.name == "base")
    prim = g.meshes[node.mesh].primitives[0]
    pbr = g.materials[prim.material].pbrMetallicRoughness
    src = asset.part("base").material
    assert (pbr.metallicFactor, pbr.roughnessFactor) == (0.25, 0.75)
    mr = _image(g, pbr.metallicRoughnessTexture.index)
    assert mr.shape == src.metallic_roughness_map.shape
    assert np.array_equal(mr[..., 1], src.metallic_roughness_map[..., 1])  # G = roughness, varying along u
    assert np.all(mr[..., 2] == 40)  # B = metallic
    assert len(np.unique(mr[..., 1])) > 8
    color = _image(g, pbr.baseColorTexture.index)
    assert np.array_equal(color, src.base_color_map)
    assert prim.attributes.TEXCOORD_0 is not None and prim.attributes.NORMAL is not None
    assert g.materials[prim.material].name == "paint & <gloss>"
    # the untextured parts carry no UVs
    wheel = next(n for n in g.nodes if n.name == "wheel")
    assert g.meshes[wheel.mesh].primitives[0].attributes.TEXCOORD_0 is None


def test_trimesh_reads_a_scene_with_y_up_bounds(cabinet_glb) -> None:
    path, asset = cabinet_glb
    scene = trimesh.load(path)
    assert isinstance(scene, trimesh.Scene)
    assert np.allclose(scene.bounds, asset.bounds()[:, [1, 2, 0]], atol=1e-6)
    assert set(scene.graph.nodes_geometry) == {p.name for p in asset.parts}
    for part in asset.parts:  # every part lands where it is in the asset, axes permuted
        transform, geom = scene.graph[part.name]
        mesh = scene.geometry[geom]
        world = trimesh.transform_points(mesh.vertices, transform)
        assert np.allclose([world.min(axis=0), world.max(axis=0)], part.mesh.bounds[:, [1, 2, 0]], atol=1e-6)


def test_uvs_read_back_as_written(tmp_path: Path) -> None:
    asset = gadget()
    scene = trimesh.load(export_glb(asset, tmp_path / "g.glb"))
    base = asset.part("base").mesh
    mesh = scene.geometry[scene.graph["base"][1]]
    assert isinstance(mesh.visual, trimesh.visual.TextureVisuals)
    # trimesh flips glTF's v back: each (position, uv) pair must be one the asset had
    ours = {tuple(np.round(np.r_[v, t], 6)) for v, t in zip(base.vertices, base.uv, strict=True)}
    theirs = {tuple(np.round(np.r_[v, t], 6)) for v, t in zip(
        trimesh.transform_points(mesh.vertices, scene.graph["base"][0]) @ GLTF_FROM_ASSET, mesh.visual.uv,
        strict=True)}
    assert theirs == ours


def test_same_asset_same_bytes(tmp_path: Path) -> None:
    a = export_glb(demo_cabinet(), tmp_path / "a.glb").read_bytes()
    b = export_glb(demo_cabinet(), tmp_path / "b.glb").read_bytes()
    assert a == b
    assert a[:4] == b"glTF" and int.from_bytes(a[8:12], "little") == len(a)
    assert build_glb(gadget()) == build_glb(gadget())


def test_bad_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"\.glb"):
        export_glb(demo_cabinet(), tmp_path / "cabinet.gltf")


def test_failed_export_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path, monkeypatch) -> None:
    path = export_glb(demo_cabinet(), tmp_path / "cabinet.glb")
    before = path.read_bytes()

    def boom(*_args, **_kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(glb_module, "png_bytes", boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        export_glb(demo_cabinet(), path)
    with pytest.raises(RuntimeError):
        export_glb(demo_cabinet(), tmp_path / "new.glb")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cabinet.glb"]


def test_normals_smooth_across_uv_seams_and_sharp_at_creases() -> None:
    from seed3d.asset import Mesh
    from seed3d.export._common import shade

    # a cylinder: smooth sides, hard rims; the ring vertices split once (side + cap), the cap centres never
    cyl = trimesh.creation.cylinder(radius=1.0, height=1.0, sections=32)
    shaded = shade(Mesh(cyl.vertices, cyl.faces))
    assert len(shaded.vertices) == 2 * 32 * 2 + 2
    side = np.abs(shaded.normals[:, 2]) < 1e-9
    assert np.allclose(shaded.normals[side], shaded.vertices[side] * [1, 1, 0], atol=1e-9)  # radial
    assert np.allclose(np.abs(shaded.normals[~side, 2]), 1.0)
    # a sphere split along a UV seam (duplicated vertices) gets the same normals on both sides of the seam
    sphere = trimesh.creation.uv_sphere(radius=1.0, count=[16, 16])
    seam = Mesh(sphere.vertices, sphere.faces, uv=np.zeros((len(sphere.vertices), 2)))
    out = shade(seam)
    assert np.allclose(np.einsum("ij,ij->i", out.normals, out.vertices), 1.0, atol=0.02)
    # the cube keeps 3 normals per corner, all axis-aligned and outward
    cube = shade(demo_cabinet().part("door_handle").mesh)
    assert len(cube.vertices) == 24 and np.allclose(np.abs(cube.normals).max(axis=1), 1.0)
