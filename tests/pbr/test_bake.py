"""Texture baking: true views baked and re-rendered from other views, unwrap fallback, hole filling, exports."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest
import trimesh

from seed3d import synth
from seed3d.asset import Asset, Mesh, Part, PBRMaterial
from seed3d.errors import DependencyError, InvalidInputError
from seed3d.pbr.bake import BakeConfig, bake_asset, fill_3d, project_reference_image, push_pull
from seed3d.pbr.unwrap import box_atlas, unwrap_meshes
from seed3d.render import (
    RandomViewConfig,
    Renderer,
    create_backend,
    fixed_views,
    linear_to_srgb,
    random_views,
    srgb_to_linear,
)

CRASH = (sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
HANG = (sys.executable, "-c", "import time; time.sleep(120)")


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    """A moderngl renderer (skips where EGL is missing)."""
    try:
        r = Renderer(create_backend("moderngl"))
    except DependencyError as exc:
        pytest.skip(f"moderngl backend unavailable: {exc}")
    yield r
    r.close()


def sphere(subdivisions: int = 3) -> Mesh:
    """An icosphere of radius 0.3 resting on z = 0."""
    ico = trimesh.creation.icosphere(subdivisions=subdivisions, radius=0.3)
    return Mesh(np.asarray(ico.vertices) + [0, 0, 0.3], np.asarray(ico.faces))


def true_views(renderer: Renderer, asset: Asset, cams: list) -> tuple[list, list, list]:
    """sRGB albedo, metallic and roughness images of an asset's true materials."""
    views = renderer.render_views(asset, cams, None, ("mask", "albedo", "metallic", "roughness"))
    return [linear_to_srgb(v.albedo) for v in views], [v.metallic for v in views], [v.roughness for v in views]


def compare(renderer: Renderer, truth: Asset, baked: Asset, cams: list) -> tuple[float, float, float]:
    """Albedo PSNR (sRGB, dB) and metallic / roughness MAE over the surface pixels of ``cams``."""
    err2, merr, rerr, n = 0.0, 0.0, 0.0, 0
    for cam in cams:
        a = renderer.render(truth, cam, buffers=("mask", "albedo", "metallic", "roughness"))
        b = renderer.render(baked, cam, buffers=("mask", "albedo", "metallic", "roughness"))
        m = a.mask & b.mask
        err2 += float(np.sum((linear_to_srgb(a.albedo)[m] - linear_to_srgb(b.albedo)[m]) ** 2)) / 3
        merr += float(np.abs(a.metallic - b.metallic)[m].sum())
        rerr += float(np.abs(a.roughness - b.roughness)[m].sum())
        n += int(m.sum())
    return 10 * np.log10(n / err2), merr / n, rerr / n


@pytest.fixture(scope="module")
def chair_bake(renderer: Renderer) -> tuple[Asset, object]:
    """A synth chair's six true rig views baked at 512²."""
    asset = synth.generate("chair", 0)
    cams = fixed_views(asset, 256)
    albedo, metallic, roughness = true_views(renderer, asset, cams)
    return asset, bake_asset(asset, cams, albedo, metallic, roughness, config=BakeConfig(resolution=512),
                             renderer=renderer)


def test_baked_true_views_reproduce_held_out_views(renderer: Renderer, chair_bake: tuple) -> None:
    asset, result = chair_bake
    held_out = random_views(asset, 3, seed=11, width=256, config=RandomViewConfig(elevation_deg=(10, 40)))
    psnr, metal_mae, rough_mae = compare(renderer, asset, result.asset, held_out)
    # measured 34.5-36.4 dB, MAE 0.001 / 0.011 (moderngl, chair seed 0)
    assert psnr > 30.0
    assert metal_mae < 0.03 and rough_mae < 0.03
    # far better than painting each part its mean colour (what a bake that ignored the views would give)
    flat = asset.copy()
    for p, b in zip(flat.parts, result.asset.parts, strict=True):
        base = b.material.base_color_map.reshape(-1, 3).astype(np.float64) / 255.0
        mean = np.clip(base.mean(axis=0), 0, 1)
        p.material = PBRMaterial(p.material.name, (*srgb_to_linear(mean).tolist(), 1.0), 0.0, 0.5)
        p.mesh = Mesh(p.mesh.vertices, p.mesh.faces)
    flat_psnr, _, _ = compare(renderer, asset, flat, held_out)
    assert psnr > flat_psnr + 3.0


def test_bake_output_maps_and_uvs(chair_bake: tuple) -> None:
    asset, result = chair_bake
    assert [p.name for p in result.asset.parts] == [p.name for p in asset.parts]
    for src, part, info in zip(asset.parts, result.asset.parts, result.parts, strict=True):
        mat = part.material
        assert mat.base_color_map.shape == (info.resolution, info.resolution, 3)
        assert mat.metallic_roughness_map.shape == (info.resolution, info.resolution, 3)
        assert (mat.metallic, mat.roughness) == (1.0, 1.0)
        assert part.mesh.uv is not None and part.mesh.uv.min() >= 0 and part.mesh.uv.max() <= 1
        assert len(part.mesh.faces) == len(src.mesh.faces)
        # same surface: each face's corners sit where the input face's corners were
        assert np.allclose(part.mesh.vertices[part.mesh.faces], src.mesh.vertices[src.mesh.faces])
        assert info.unwrap == "xatlas" and info.unwrap_reason is None
        assert 0.2 < info.seen_fraction <= 1.0
    assert max(p.resolution for p in result.parts) <= 512
    assert set(result.timings) >= {"unwrap", "views", "project", "fill", "total"}


def test_baking_is_deterministic(renderer: Renderer) -> None:
    mesh = sphere(2)
    cam = fixed_views(mesh, 96)[0]
    img = np.random.default_rng(0).uniform(0, 1, (96, 96, 3)).astype(np.float32)
    cfg = BakeConfig(resolution=64, unwrap="box")
    a = project_reference_image(mesh, cam, img, config=cfg, renderer=renderer)
    b = project_reference_image(mesh, cam, img, config=cfg, renderer=renderer)
    assert np.array_equal(a.asset.parts[0].material.base_color_map, b.asset.parts[0].material.base_color_map)
    assert np.array_equal(a.asset.parts[0].mesh.uv, b.asset.parts[0].mesh.uv)


# ----------------------------------------------------------------------------------------------- unwrapping


def _side(p: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Signed area of (u, v, p) for every point of ``p`` (n, 1, 2) against every edge (u, v) (m, 2)."""
    return (v[None, :, 0] - u[None, :, 0]) * (p[..., 1] - u[None, :, 1]) - \
        (v[None, :, 1] - u[None, :, 1]) * (p[..., 0] - u[None, :, 0])


def _faces_overlap(uv: np.ndarray, faces: np.ndarray) -> int:
    """How many face centroids lie strictly inside another face in UV space."""
    tri = uv[faces]
    cent = tri.mean(axis=1)
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    count = 0
    for i in range(0, len(cent), 256):
        p = cent[i:i + 256, None, :]

        s1, s2, s3 = _side(p, a, b), _side(p, b, c), _side(p, c, a)
        inside = ((s1 > 1e-12) & (s2 > 1e-12) & (s3 > 1e-12)) | ((s1 < -1e-12) & (s2 < -1e-12) & (s3 < -1e-12))
        count += int(inside.sum()) - int(inside[np.arange(len(p)), np.arange(i, i + len(p))].sum())
    return count


@pytest.mark.parametrize("method", ["xatlas", "box"])
def test_unwrap_gives_valid_non_overlapping_atlas(method: str) -> None:
    mesh = sphere(3)
    (atlas,) = unwrap_meshes([(mesh.vertices, mesh.faces)], [256], method=method)
    assert atlas.method == method and atlas.reason is None and atlas.charts >= 1
    assert np.array_equal(atlas.vmap[atlas.faces], mesh.faces)  # input face order and corners kept
    assert atlas.uv.min() >= 0 and atlas.uv.max() <= 1
    assert _faces_overlap(atlas.uv, atlas.faces) == 0


def test_box_atlas_keeps_padding_between_charts() -> None:
    mesh = synth.generate("box", 0).parts[0].mesh
    _, faces, uv, charts = box_atlas(mesh.vertices, mesh.faces, 128, padding=4)
    assert charts >= 6
    # texel-space boxes of different charts are at least ``padding`` texels apart on one axis
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    n = len(uv)
    edges = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]]])
    _, comp = connected_components(sp.coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), (n, n)))
    boxes = [(uv[comp == c].min(0) * 128, uv[comp == c].max(0) * 128) for c in range(comp.max() + 1)]
    for i, (lo1, hi1) in enumerate(boxes):
        for lo2, hi2 in boxes[i + 1:]:
            gap = np.maximum(lo2 - hi1, lo1 - hi2).max()
            assert gap >= 3.99


def test_xatlas_crash_falls_back_to_box_atlas(caplog: pytest.LogCaptureFixture) -> None:
    meshes = [(sphere(2).vertices, sphere(2).faces), (sphere(1).vertices, sphere(1).faces)]
    atlases = unwrap_meshes(meshes, [128, 64], method="xatlas", command=CRASH)
    assert [a.method for a in atlases] == ["box", "box"]  # the child is restarted for the second mesh: it crashes too
    assert all("signal 11" in a.reason for a in atlases)
    assert "xatlas failed" in caplog.text
    for (_, f), a in zip(meshes, atlases, strict=True):
        assert np.array_equal(a.vmap[a.faces], f) and a.uv.min() >= 0 and a.uv.max() <= 1


def test_xatlas_timeout_falls_back() -> None:
    mesh = sphere(1)
    (atlas,) = unwrap_meshes([(mesh.vertices, mesh.faces)], [64], method="xatlas", timeout_s=1.0, command=HANG)
    assert atlas.method == "box" and "timeout" in atlas.reason


def test_bake_survives_a_crashing_unwrap(renderer: Renderer) -> None:
    mesh = sphere(2)
    cams = fixed_views(mesh, 64)
    albedo = [np.full((64, 64, 3), 0.5, np.float32)] * len(cams)
    cfg = BakeConfig(resolution=64, unwrap="xatlas", unwrap_command=CRASH)
    result = bake_asset(mesh, cams, albedo, config=cfg, renderer=renderer)
    assert result.parts[0].unwrap == "box" and "signal" in result.parts[0].unwrap_reason
    assert result.asset.parts[0].material.base_color_map is not None


def test_auto_unwrap_uses_box_above_the_face_limit() -> None:
    mesh = sphere(2)
    (atlas,) = unwrap_meshes([(mesh.vertices, mesh.faces)], [64], method="auto", xatlas_max_faces=10)
    assert atlas.method == "box" and "xatlas_max_faces" in atlas.reason


# ----------------------------------------------------------------------------------------------- filling


def test_unseen_and_gutter_texels_are_filled(renderer: Renderer) -> None:
    """One view sees under half of the sphere; every texel (charts, borders, gutter, every mip) gets its colour."""
    mesh = sphere(3)
    cam = fixed_views(mesh, 128)[0]
    colour = np.array([200, 80, 40], np.uint8)
    image = np.broadcast_to(colour, (128, 128, 3)).copy()
    for method in ("xatlas", "box"):
        result = project_reference_image(mesh, cam, image, metallic=0.2, roughness=0.7,
                                         config=BakeConfig(resolution=128, unwrap=method), renderer=renderer)
        info = result.parts[0]
        assert info.unwrap == method and info.seen_fraction < 0.7
        tex = result.asset.parts[0].material.base_color_map.astype(np.int64)
        level = tex.astype(np.float64)
        while level.shape[0] >= 1:  # mip chain (box filter): no dark texel anywhere
            assert np.abs(level - colour).max() <= 2.0, (method, level.shape)
            if level.shape[0] == 1:
                break
            level = level.reshape(level.shape[0] // 2, 2, level.shape[1] // 2, 2, 3).mean(axis=(1, 3))
        mat = result.asset.parts[0].material
        assert mat.metallic_roughness_map is None and (mat.metallic, mat.roughness) == (0.2, 0.7)


def test_unseen_texels_take_nearby_surface_colour(renderer: Renderer) -> None:
    """A sphere seen from the front only, red on its left (+y) and blue on its right: the hidden back follows."""
    mesh = sphere(3)
    cam = fixed_views(mesh, 128)[0]
    buf = renderer.render(mesh, cam, buffers=("mask", "position"))
    left = buf.position[..., 1] > 0
    image = np.where(left[..., None], np.array([255, 0, 0], np.uint8), np.array([0, 0, 255], np.uint8))
    result = project_reference_image(mesh, cam, image.astype(np.uint8), config=BakeConfig(resolution=128),
                                     renderer=renderer)
    back = fixed_views(mesh, 128)[2]
    view = renderer.render(result.asset, back, buffers=("mask", "albedo", "position"))
    m = view.mask & (np.abs(view.position[..., 1]) > 0.15)  # half a radius from the middle (measured: all right)
    red = view.albedo[..., 0] > view.albedo[..., 2]
    assert m.sum() > 500 and np.mean(red[m] == (view.position[..., 1][m] > 0)) > 0.97


def test_push_pull_fills_everything_from_known_texels() -> None:
    rng = np.random.default_rng(0)
    img = rng.uniform(0, 1, (37, 50, 2)).astype(np.float32)
    known = rng.uniform(size=(37, 50)) < 0.05
    out = push_pull(img, known)
    assert np.array_equal(out[known], img[known])
    assert out.min() >= img[known].min() - 1e-6 and out.max() <= img[known].max() + 1e-6


def test_fill_3d_interpolates_a_smooth_field() -> None:
    rng = np.random.default_rng(1)
    pts = rng.uniform(0, 1, (4000, 3)) * [1, 1, 0]
    field = (pts[:, :1] * 0.8 + 0.1).astype(np.float32)
    hole = np.linalg.norm(pts[:, :2] - 0.5, axis=1) < 0.2
    got = fill_3d(pts[~hole], field[~hole], pts[hole], cell=0.02)
    assert np.abs(got - field[hole]).max() < 0.1  # a linear ramp across a hole is followed, not flattened
    far = fill_3d(pts[:10], field[:10], np.array([[50.0, 50.0, 50.0]]), cell=0.02)
    assert np.isfinite(far).all()


# ----------------------------------------------------------------------------------------------- exports


@pytest.fixture(scope="module")
def mr_bake(renderer: Renderer) -> Asset:
    """A box baked from views with metallic 0.9 and roughness 0.2 everywhere and a plain albedo."""
    asset = synth.generate("box", 0)
    cams = fixed_views(asset, 64)
    shape = (len(cams), 64, 64)
    albedo = np.broadcast_to(np.array([0.2, 0.6, 0.4], np.float32), (*shape, 3))
    result = bake_asset(asset, cams, albedo, np.full(shape, 0.9, np.float32), np.full(shape, 0.2, np.float32),
                        config=BakeConfig(resolution=64), renderer=renderer)
    return result.asset


def test_glb_carries_baked_maps_with_gltf_channel_order(mr_bake: Asset, tmp_path: object) -> None:
    import pygltflib
    from PIL import Image

    from seed3d.export.glb import export_glb

    path = export_glb(mr_bake, tmp_path / "baked.glb")  # type: ignore[operator]
    gltf = pygltflib.GLTF2().load(str(path))
    blob = gltf.binary_blob()

    def image(index: int) -> np.ndarray:
        view = gltf.bufferViews[gltf.images[gltf.textures[index].source].bufferView]
        return np.asarray(Image.open(io.BytesIO(blob[view.byteOffset:view.byteOffset + view.byteLength])))

    assert len(gltf.materials) == len(mr_bake.parts)
    for mat in gltf.materials:
        pbr = mat.pbrMetallicRoughness
        assert pbr.baseColorTexture is not None and pbr.metallicRoughnessTexture is not None
        mr = image(pbr.metallicRoughnessTexture.index)
        assert np.abs(mr[..., 1].astype(int) - 51).max() <= 2  # G = roughness 0.2
        assert np.abs(mr[..., 2].astype(int) - 230).max() <= 2  # B = metallic 0.9
        base = image(pbr.baseColorTexture.index)[..., :3].astype(np.float64) / 255
        assert np.allclose(base, [0.2, 0.6, 0.4], atol=2 / 255)  # the images were sRGB already
    for mesh in gltf.meshes:
        assert all(prim.attributes.TEXCOORD_0 is not None for prim in mesh.primitives)
    # trimesh reads the same maps back with UVs on every part
    scene = trimesh.load(str(path))
    for geom in scene.geometry.values():
        assert geom.visual.uv is not None
        assert geom.visual.material.metallicRoughnessTexture is not None


def test_usd_shows_baked_maps(mr_bake: Asset, tmp_path: object) -> None:
    pytest.importorskip("pxr")
    from pxr import Usd, UsdShade

    from seed3d.export.usd import export_usd
    from tests.export._helpers import fill_physics

    usda = export_usd(fill_physics(mr_bake), tmp_path, usdz=False)  # type: ignore[arg-type]
    stage = Usd.Stage.Open(str(usda))
    surfaces = [UsdShade.Shader(p) for p in stage.Traverse()
                if p.IsA(UsdShade.Shader) and UsdShade.Shader(p).GetIdAttr().Get() == "UsdPreviewSurface"]
    assert len(surfaces) == len(mr_bake.parts)
    for surface in surfaces:
        for name, channel in (("roughness", "g"), ("metallic", "b"), ("diffuseColor", "rgb")):
            (source,) = surface.GetInput(name).GetConnectedSources()[0]
            assert source.sourceName == channel
            assert source.source.GetInput("file").Get() is not None


# ----------------------------------------------------------------------------------------------- bad input


def test_bad_input_is_rejected(renderer: Renderer) -> None:
    mesh = sphere(1)
    cams = fixed_views(mesh, 32)
    good = [np.zeros((32, 32, 3), np.float32)] * len(cams)
    grey = [np.zeros((32, 32), np.float32)] * len(cams)
    cases = [
        dict(albedo=good[:-1]),  # one image short
        dict(albedo=[np.zeros((32, 31, 3), np.float32)] * len(cams)),  # wrong size
        dict(albedo=[np.zeros((32, 32), np.float32)] * len(cams)),  # no colour channels
        dict(albedo=[np.full((32, 32, 3), 2.0, np.float32)] * len(cams)),  # out of range
        dict(albedo=[np.zeros((32, 32, 3), np.int32)] * len(cams)),  # unsupported dtype
        dict(albedo=good, metallic=grey),  # roughness missing
        dict(albedo=good, metallic=grey[:2], roughness=grey),  # metallic count wrong
        dict(albedo=good, masks=[np.ones((16, 16))] * len(cams)),  # mask size wrong
    ]
    for kwargs in cases:
        with pytest.raises(InvalidInputError):
            bake_asset(mesh, cams, renderer=renderer, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        bake_asset(mesh, [], [], renderer=renderer)
    with pytest.raises(InvalidInputError):
        bake_asset(mesh, ["not a camera"], good[:1], renderer=renderer)  # type: ignore[list-item]
    with pytest.raises(InvalidInputError):
        bake_asset("mesh.obj", cams, good, renderer=renderer)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="without faces"):
        bake_asset(Mesh(np.zeros((0, 3)), np.zeros((0, 3), np.int64)), cams, good, renderer=renderer)
    for bad in (dict(resolution=4096), dict(resolution=8), dict(unwrap="magic"), dict(depth_tolerance=0.0),
                dict(padding=-1), dict(min_part_resolution=2048, resolution=1024)):
        with pytest.raises(InvalidInputError):
            BakeConfig(**bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        project_reference_image(mesh, cams[0], np.zeros((32, 32)), renderer=renderer)
    with pytest.raises(InvalidInputError):
        project_reference_image(mesh, cams[0], np.zeros((32, 32, 3)), roughness=1.5, renderer=renderer)
    with pytest.raises(InvalidInputError):
        unwrap_meshes([(mesh.vertices, mesh.faces)], [64], method="magic")


def test_views_that_miss_the_asset_are_an_error(renderer: Renderer) -> None:
    mesh = sphere(1)
    away = fixed_views(Mesh(mesh.vertices + [0, 100, 0], mesh.faces), 32)[0]
    with pytest.raises(InvalidInputError, match="visible"):
        bake_asset(Asset("a", [Part("a", mesh)]), [away], [np.zeros((32, 32, 3))], renderer=renderer)
