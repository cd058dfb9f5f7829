"""The data set builder: shards and manifest, splits, resume, determinism, failures, geometry samples, CLI."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import trimesh

from seed3d import synth
from seed3d.asset import PART_LABELS, Asset, Mesh
from seed3d.cli import main
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.synth.dataset import (
    FIELD_NAMES,
    RENDER_FIELDS,
    SPLIT_SEEDS,
    SPLIT_SPAN,
    DatasetConfig,
    ShardDataset,
    build_split,
    grid_centres,
    max_count,
    sample_seed,
)
from seed3d.synth.primitives import box
from seed3d.synth.sampling import PartSolids, point_triangle_distance, winding_number

TINY = DatasetConfig(samples_per_shard=2, surface_points=512, sharp_points=128, volume_points=256, near_points=256,
                     cond_views=2, cond_resolution=32, pbr_resolution=24, categories=("cabinet", "mug", "box"))
COUNT = 5


def files(root: Path) -> dict[str, bytes]:
    """Every file of a built split by name."""
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny train split of 5 samples in 3 shards, built in-process."""
    out = tmp_path_factory.mktemp("data")
    report = build_split(out, "train", COUNT, TINY, workers=1)
    assert report.samples == COUNT and report.shards_written == 3 and report.failures == 0
    return report.root


# --------------------------------------------------------------------------------------------- format


def test_manifest_and_shards_load_with_documented_shapes(built: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["complete"] and manifest["split"] == "train" and manifest["count"] == COUNT
    assert manifest["seed_range"] == [0, SPLIT_SPAN]
    assert manifest["categories"] == ["cabinet", "mug", "box"]
    assert manifest["synth_version"] == synth.SYNTH_VERSION and manifest["version"] >= 1
    assert [s["file"] for s in manifest["shards"]] == ["train-00000.npz", "train-00001.npz", "train-00002.npz"]
    assert [s["count"] for s in manifest["shards"]] == [2, 2, 1]
    assert [f["name"] for f in manifest["fields"]] == list(FIELD_NAMES)
    assert not (built / "progress.json").exists()
    doc = (built / "DATASET.md").read_text()
    assert all(f"`{name}`" in doc for name in FIELD_NAMES)

    ds = ShardDataset(built.parent, "train")
    ds.verify()
    assert len(ds) == COUNT
    assert ds.sample_ids == [f"{c}_{i}" for i, c in enumerate(["cabinet", "mug", "box", "cabinet", "mug"])]
    for k in range(COUNT):
        sample = ds[k]
        assert set(sample) == set(FIELD_NAMES)
        for f in manifest["fields"]:
            value = sample[f["name"]]
            if f["dtype"] == "str" and f["shape"]:
                assert len(value) == f["shape"][0] and all(isinstance(v, str) for v in value)
            elif f["dtype"] == "str":
                assert isinstance(value, str)
            else:
                assert value.shape == tuple(f["shape"]), f["name"]
                assert value.dtype == np.dtype(f["dtype"]), f["name"]
        assert sample["index"] == k and sample["seed"] == k
        assert sample["description"] and json.loads(sample["attributes"])["category"] == sample["category"]
        assert np.all(np.abs(sample["vol_points"]) <= 1.0)
        assert np.all(np.abs(sample["surface_points"]) <= TINY.extent + 1e-5)
        n = int(sample["num_parts"])
        assert sample["num_joints"] == n - 1 and np.all(sample["part_label"][:n] >= 0)
        assert np.all(sample["part_label"][n:] == -1) and np.all(sample["joint_type"][n - 1:] == -1)
        assert sample["pbr_mask"].any() and sample["cond_alpha"].max() == 255
        # the mask says where the object is: PBR buffers are empty elsewhere
        assert not sample["pbr_albedo"][~sample["pbr_mask"]].any()
    # a shard is a batch: every array has the sample axis first
    with np.load(built / "train-00000.npz") as z:
        assert z["surface_points"].shape == (2, TINY.surface_points, 3)
        assert z["cond_rgb"].shape == (2, 2, 32, 32, 3)


def test_torch_data_loader_batches_a_split(built: Path) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader

    ds = ShardDataset(built, fields=["surface_points", "vol_sdf", "cond_rgb", "description", "part_name"])
    batch = next(iter(DataLoader(ds, batch_size=3)))
    assert batch["surface_points"].shape == (3, TINY.surface_points, 3)
    assert batch["surface_points"].dtype == torch.float32 and batch["cond_rgb"].dtype == torch.uint8
    assert len(batch["description"]) == 3 and batch["part_name"][0] == ("body", "body", "body")


def test_joints_and_text_match_the_asset(built: Path) -> None:
    sample = ShardDataset(built)[0]
    asset = synth.generate(sample["category"], int(sample["seed"]))
    assert sample["description"] == asset.metadata["description"]
    assert json.loads(sample["attributes"]) == asset.metadata["attributes"]
    names = [p.name for p in asset.parts]
    assert list(sample["part_name"][:len(names)]) == names
    offset, scale = sample["norm_offset"], float(sample["norm_scale"])
    for k, j in enumerate(asset.joints):
        assert (names[sample["joint_parent"][k]], names[sample["joint_child"][k]]) == (j.parent, j.child)
        assert ["fixed", "revolute", "prismatic", "continuous"][sample["joint_type"][k]] == j.type
        np.testing.assert_allclose(sample["joint_origin"][k] / scale + offset, j.origin, atol=1e-6)
        np.testing.assert_allclose(sample["joint_axis"][k], j.unit_axis, atol=1e-6)
        if j.type in ("revolute", "prismatic"):
            np.testing.assert_allclose(sample["joint_limits"][k], [j.lower, j.upper], atol=1e-6)


def test_meters_view_undoes_the_normalisation(built: Path) -> None:
    norm = ShardDataset(built, fields=["surface_points", "near_sdf", "norm_offset", "norm_scale"])[1]
    meters = ShardDataset(built, fields=["surface_points", "near_sdf"], meters=True)[1]
    asset = synth.generate("mug", 1)
    lo, hi = asset.bounds()
    np.testing.assert_allclose(norm["norm_offset"], (lo + hi) / 2)
    assert np.isclose(float(norm["norm_scale"]) * np.max(hi - lo) / 2, TINY.extent)
    solid_m = PartSolids.from_asset(asset)
    assert solid_m.unsigned_distance(meters["surface_points"]).max() < 1e-6
    np.testing.assert_allclose(meters["near_sdf"], norm["near_sdf"] / norm["norm_scale"], rtol=1e-6)


# --------------------------------------------------------------------------------------------- splits, resume


def test_splits_are_disjoint(built: Path) -> None:
    out = built.parent
    for split in ("val", "test"):
        build_split(out, split, 3, TINY, workers=1)
    manifests = {s: json.loads((out / s / "manifest.json").read_text()) for s in ("train", "val", "test")}
    ranges = sorted(tuple(m["seed_range"]) for m in manifests.values())
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(ranges))
    ids = {s: set(ShardDataset(out, s).sample_ids) for s in manifests}
    assert not (ids["train"] & ids["val"]) and not (ids["train"] & ids["test"]) and not (ids["val"] & ids["test"])
    for split in manifests:
        lo, hi = manifests[split]["seed_range"]
        assert all(lo <= int(sid.rsplit("_", 1)[1]) < hi for sid in ids[split])
    # retry seeds stay inside the split too, and never meet a first-try seed
    for split, base in SPLIT_SEEDS.items():
        n = max_count(TINY)
        first = {sample_seed(split, i, 0, TINY.max_retries) for i in (0, n - 1)}
        retries = {sample_seed(split, i, a, TINY.max_retries) for i in (0, n - 1) for a in (1, TINY.max_retries)}
        assert min(first | retries) >= base and max(first | retries) < base + SPLIT_SPAN
        assert max(first) < min(retries)


def test_resume_after_interrupt_skips_finished_shards_and_matches(built: Path, tmp_path: Path) -> None:
    class Stop(Exception):
        pass

    def stop_after_first_shard(fraction: float, message: str) -> None:
        if message.startswith("shard"):
            raise Stop

    with pytest.raises(Stop):
        build_split(tmp_path, "train", COUNT, TINY, workers=1, progress=stop_after_first_shard)
    root = tmp_path / "train"
    assert (root / "train-00000.npz").is_file() and (root / "progress.json").is_file()
    assert not (root / "train-00001.npz").exists() and not (root / "manifest.json").exists()
    before = (root / "train-00000.npz").stat()
    messages: list[str] = []
    report = build_split(tmp_path, "train", COUNT, TINY, workers=1, progress=lambda f, m: messages.append(m))
    after = (root / "train-00000.npz").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert report.shards_reused == 1 and report.shards_written == 2
    assert sum(m.startswith("sample") for m in messages) == COUNT - 2
    assert files(root) == files(built)  # byte for byte what an uninterrupted build wrote
    # a finished build is verified and left alone; a longer one reuses every full shard
    manifest = (root / "manifest.json").stat()
    assert build_split(tmp_path, "train", COUNT, TINY, workers=1).shards_written == 0
    assert (root / "manifest.json").stat().st_ino == manifest.st_ino
    longer = build_split(tmp_path, "train", COUNT + 2, TINY, workers=1)
    assert (longer.shards_reused, longer.shards_written, longer.samples) == (2, 2, COUNT + 2)
    assert (root / "train-00001.npz").read_bytes() == (built / "train-00001.npz").read_bytes()
    # another config needs overwrite
    other = DatasetConfig(**{**TINY.__dict__, "surface_points": 256})
    with pytest.raises(InvalidInputError, match="overwrite"):
        build_split(tmp_path, "train", COUNT, other, workers=1)


def test_a_corrupted_shard_is_rebuilt(built: Path, tmp_path: Path) -> None:
    build_split(tmp_path, "train", 2, TINY, workers=1)
    shard = tmp_path / "train" / "train-00000.npz"
    shard.write_bytes(shard.read_bytes()[:-10])
    report = build_split(tmp_path, "train", 2, TINY, workers=1)
    assert report.shards_written == 1
    assert shard.read_bytes() == (built / "train-00000.npz").read_bytes()


def test_two_spawned_workers_write_the_same_bytes(built: Path, tmp_path: Path) -> None:
    report = build_split(tmp_path, "train", COUNT, TINY, workers=2)
    assert report.shards_written == 3
    assert files(report.root) == files(built)


def test_failing_seeds_are_recorded_and_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = synth.generate
    retry = sample_seed("train", 1, 1, 1)

    def flaky(category: str, seed: int = 0) -> Asset:
        if seed in (1, 2, sample_seed("train", 2, 1, 1)):
            raise ValueError(f"no {category} for seed {seed}")
        return real(category, seed)

    monkeypatch.setattr(synth, "generate", flaky)
    cfg = DatasetConfig(**{**TINY.__dict__, "max_retries": 1, "cond_views": 0})
    report = build_split(tmp_path, "train", 3, cfg, workers=1)
    manifest = json.loads(report.manifest.read_text())
    assert [(f["index"], f["seed"], f["attempt"]) for f in manifest["failures"]] == [
        (1, 1, 0), (2, 2, 0), (2, sample_seed("train", 2, 1, 1), 1)]
    assert all("ValueError: no " in f["error"] for f in manifest["failures"])
    assert manifest["skipped"] == [2] and report.skipped == [2] and manifest["samples"] == 2
    assert ShardDataset(tmp_path, "train").sample_ids == ["cabinet_0", f"mug_{retry}"]


# --------------------------------------------------------------------------------------------- geometry


def _boxes(*corners: tuple[tuple[float, ...], tuple[float, ...]], backend: str = "open3d") -> PartSolids:
    """Solids of boxes given by (lo, hi) corners, split at UV seams as synth parts are."""
    return PartSolids([box(lo, hi, uv=True) for lo, hi in corners], backend=backend)


def _box_sdf(points: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Exact signed distance to an axis-aligned box."""
    c, h = (lo + hi) / 2, (hi - lo) / 2
    q = np.abs(points - c) - h
    return np.linalg.norm(np.maximum(q, 0), axis=1) + np.minimum(q.max(axis=1), 0)


@pytest.mark.parametrize("backend", ["open3d", "torch"])
def test_sdf_of_a_thin_box_is_exact(backend: str) -> None:
    # a thin wall: its two triangles per face are long slivers, where float32 closest points go wrong
    lo, hi = np.array([-0.9, -0.004, -0.3]), np.array([0.9, 0.004, 0.3])
    solids = _boxes((tuple(lo), tuple(hi)), backend=backend)
    rng = np.random.default_rng(0)
    surface = solids.sample_surface(2000, rng)
    points = np.concatenate([rng.uniform(-1, 1, (2000, 3)),
                             surface.points + rng.normal(0, 0.003, (2000, 3))])
    np.testing.assert_allclose(solids.signed_distance(points), _box_sdf(points, lo, hi), atol=1e-9)
    assert np.abs(_box_sdf(surface.points, lo, hi)).max() < 1e-12


@pytest.mark.parametrize("backend", ["open3d", "torch"])
def test_touching_parts_sign_and_hidden_faces(backend: str) -> None:
    # two boxes sharing the face x = 0: the union is one slab, the shared face is inside it
    solids = _boxes(((-0.5, -0.2, -0.2), (0.0, 0.2, 0.2)), ((0.0, -0.2, -0.2), (0.5, 0.2, 0.2)), backend=backend)
    lo, hi = np.array([-0.5, -0.2, -0.2]), np.array([0.5, 0.2, 0.2])
    inside = np.array([[-0.25, 0, 0], [0.25, 0, 0], [0.4, 0.1, -0.1]])
    far = np.array([[0.95, 0.95, 0.95], [-0.9, 0, 0], [0, 0, 0.9]])
    # nearer to the slab's outside than to the shared face: the exact union SDF
    np.testing.assert_allclose(solids.signed_distance(inside), _box_sdf(inside, lo, hi), atol=1e-9)
    assert np.all(solids.signed_distance(inside) < -0.05)
    np.testing.assert_allclose(solids.signed_distance(far), _box_sdf(far, lo, hi), atol=1e-9)
    surface = solids.sample_surface(4000, np.random.default_rng(1))
    on_shared_face = (np.abs(surface.points[:, 0]) < 1e-9) & np.all(np.abs(surface.points[:, 1:]) < 0.2 - 1e-9,
                                                                     axis=1)
    assert not on_shared_face.any()
    np.testing.assert_allclose(np.abs(_box_sdf(surface.points, lo, hi)), 0, atol=1e-12)
    assert {0, 1} == set(surface.part.tolist())
    # the seam around x = 0 is flat on the union: no sharp sample there, only on the slab's 12 edges
    sharp = solids.sample_sharp(500, np.random.default_rng(2))
    assert sharp.on_edge.all()
    at_face = np.isclose(sharp.points, lo, atol=1e-12) | np.isclose(sharp.points, hi, atol=1e-12)
    assert np.all(at_face.sum(axis=1) >= 2)


def test_sharp_samples_lie_on_box_edges() -> None:
    lo, hi = np.array([-0.3, -0.2, -0.1]), np.array([0.3, 0.2, 0.1])
    solids = _boxes((tuple(lo), tuple(hi)))
    sharp = solids.sample_sharp(1000, np.random.default_rng(0))
    at_face = np.isclose(sharp.points, lo, atol=1e-12) | np.isclose(sharp.points, hi, atol=1e-12)
    assert sharp.on_edge.all() and np.all(at_face.sum(axis=1) >= 2)  # on two faces at once: an edge
    # every one of the 12 edges is sampled, roughly in proportion to its length
    edge_axis = np.argmin(at_face, axis=1)
    assert np.bincount(edge_axis, minlength=3).tolist()[0] > np.bincount(edge_axis, minlength=3)[2]
    np.testing.assert_allclose(np.linalg.norm(sharp.normals, axis=1), 1.0)
    # a smooth sphere has no edge sharper than 30 degrees: surface points stand in, flagged
    ico = trimesh.creation.icosphere(subdivisions=3, radius=0.5)
    smooth = PartSolids([Mesh(np.asarray(ico.vertices), np.asarray(ico.faces))])
    fallback = smooth.sample_sharp(100, np.random.default_rng(0))
    assert not fallback.on_edge.any()
    np.testing.assert_allclose(smooth.unsigned_distance(fallback.points), 0, atol=1e-9)


def test_torch_queries_answer_as_open3d_on_a_synth_asset() -> None:
    asset = synth.generate("oven", 2)  # many parts, knobs, a door with glass: thousands of faces
    o3d, exact = PartSolids.from_asset(asset), PartSolids.from_asset(asset, backend="torch")
    lo, hi = asset.bounds()
    rng = np.random.default_rng(0)
    near = o3d.sample_surface(1500, rng).points + rng.normal(0, 0.003, (1500, 3))
    points = np.concatenate([rng.uniform(lo - 0.05, hi + 0.05, (1500, 3)), near])
    sdf = exact.signed_distance(points)
    np.testing.assert_allclose(sdf, o3d.signed_distance(points), atol=1e-12)
    assert (sdf < 0).sum() > 300 and (sdf > 0).sum() > 300
    a, b = (s.sample_surface(800, np.random.default_rng(1)) for s in (o3d, exact))
    np.testing.assert_array_equal(a.points, b.points)
    np.testing.assert_array_equal(a.part, b.part)
    a, b = (s.sample_sharp(400, np.random.default_rng(2)) for s in (o3d, exact))
    np.testing.assert_array_equal(a.points, b.points)


def test_unknown_query_engines_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="backend"):
        _boxes(((0, 0, 0), (1, 1, 1)), backend="embree")
    with pytest.raises(InvalidInputError, match="device"):
        PartSolids([box((0, 0, 0), (1, 1, 1))], backend="torch", device="tpu")
    with pytest.raises(InvalidInputError, match="queries"):
        DatasetConfig(queries="gpu")


def test_a_split_built_without_renders_holds_the_geometry_alone(built: Path, tmp_path: Path) -> None:
    args = ["data", "build", "--out", str(tmp_path), "--split", "train", "--count", "2", "--workers", "1",
            "--samples-per-shard", "2", "--surface-points", "512", "--sharp-points", "128", "--volume-points", "256",
            "--near-points", "256", "--categories", "cabinet,mug,box", "--no-renders", "--queries", "torch"]
    assert main(args) == 0
    root = tmp_path / "train"
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["renderer"] == "none" and manifest["config"]["renders"] is False
    geometry = set(FIELD_NAMES) - set(RENDER_FIELDS)
    assert {"cond_rgb", "pbr_albedo"} <= set(RENDER_FIELDS)
    assert {f["name"] for f in manifest["fields"]} == geometry
    with np.load(root / manifest["shards"][0]["file"]) as z:
        assert set(z.files) == geometry
    ds = ShardDataset(root)
    assert set(ds.fields) == geometry
    # the same samples as the rendered build (same config otherwise, Open3D queries there)
    rendered = ShardDataset(built)
    for i in range(2):
        for name in ("surface_points", "sharp_points", "surface_part"):
            np.testing.assert_array_equal(ds[i][name], rendered[i][name])
        np.testing.assert_allclose(ds[i]["near_sdf"], rendered[i]["near_sdf"], atol=1e-6)
        np.testing.assert_allclose(ds[i]["grid_sdf"], rendered[i]["grid_sdf"], atol=1e-6)
    with pytest.raises(AssetFormatError, match="renders=false"):
        ShardDataset(root, fields=("cond_rgb",))


def test_samples_of_a_built_cabinet_are_right(built: Path) -> None:
    sample = ShardDataset(built)[3]  # cabinet, seed 3: many parts, doors, drawers and handles
    asset = synth.generate("cabinet", 3)
    solids = PartSolids.from_asset(asset, sample["norm_offset"], float(sample["norm_scale"]))
    pts, nrm = sample["surface_points"].astype(np.float64), sample["surface_normals"].astype(np.float64)
    # on the mesh, with unit normals that point outward
    assert solids.unsigned_distance(pts).max() < 1e-5
    np.testing.assert_allclose(np.linalg.norm(nrm, axis=1), 1.0, atol=1e-5)
    assert np.mean(solids.signed_distance(pts + 0.004 * nrm) > 0) > 0.98
    assert np.mean(solids.signed_distance(pts - 0.004 * nrm) < 0) > 0.98
    # part labels: the part each point was drawn on is the nearest part
    assert np.mean(solids.nearest_part(pts) == sample["surface_part"]) > 0.99
    part_labels = np.array([PART_LABELS.index(p.label) for p in asset.parts])
    assert np.array_equal(sample["surface_label"], part_labels[sample["surface_part"]])
    # SDF signs agree with the exact winding number of all parts together
    allv, allf, offset = [], [], 0
    for i in range(solids.num_parts):
        v, f = solids.part_mesh(i)
        allv.append(v)
        allf.append(f + offset)
        offset += len(v)
    for name in ("vol", "near"):
        q, sdf = sample[f"{name}_points"].astype(np.float64), sample[f"{name}_sdf"]
        w = winding_number(q, np.concatenate(allv), np.concatenate(allf))
        assert np.array_equal(sdf < 0, w > 0.5), name
        assert np.all(np.abs(w - np.round(w)) < 1e-6)
    # distances are exact: brute force over every triangle for a few near points
    q = sample["near_points"][:40].astype(np.float64)
    tri = np.concatenate([v[f] for v, f in (solids.part_mesh(i) for i in range(solids.num_parts))])
    brute = np.min([point_triangle_distance(q, *(np.broadcast_to(t[c], q.shape) for c in range(3))) for t in tri],
                   axis=0)
    np.testing.assert_allclose(np.abs(sample["near_sdf"][:40]), brute, atol=2e-6)  # float32 storage
    # the coarse grid holds the signed distance at its cell centres, index [i, j, k] at x, y, z
    g = TINY.grid_resolution
    assert sample["grid_sdf"].shape == (g, g, g)
    centres = grid_centres(g)
    assert np.allclose(centres[1, 2, 3], (np.array([1, 2, 3]) + 0.5) * 2.0 / g - 1.0)
    np.testing.assert_allclose(sample["grid_sdf"], solids.signed_distance(centres.reshape(-1, 3)).reshape(g, g, g),
                               atol=1e-6)
    assert (sample["grid_sdf"] < 0).any() and (sample["grid_sdf"] > 0).any()


# --------------------------------------------------------------------------------------------- CLI


def test_cli_data_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["data", "build", "--out", str(tmp_path), "--split", "test", "--count", "2", "--workers", "1",
            "--samples-per-shard", "2", "--surface-points", "64", "--sharp-points", "16", "--volume-points", "32",
            "--near-points", "32", "--cond-views", "1", "--cond-resolution", "16", "--pbr-resolution", "16",
            "--categories", "box,mug"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "test" / "manifest.json") in out and "2 of 2" in out
    ds = ShardDataset(tmp_path / "test")
    assert ds.sample_ids == [f"box_{SPLIT_SEEDS['test']}", f"mug_{SPLIT_SEEDS['test'] + 1}"]
    assert ds[0]["cond_rgb"].shape == (1, 16, 16, 3)
    changed = [a if a != "64" else "128" for a in args]
    assert main(changed) == 2
    assert "overwrite" in capsys.readouterr().err
    assert main([*changed, "--overwrite"]) == 0
    assert ShardDataset(tmp_path / "test")[0]["surface_points"].shape == (128, 3)
    with pytest.raises(SystemExit) as exc:
        main(["data", "build", "--out", str(tmp_path), "--split", "dev", "--count", "1"])
    assert exc.value.code == 2
