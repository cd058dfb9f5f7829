"""Geometry quality: shape-VAE reconstruction as a curve over token count, on the held-out synth test split (or val
with ``--split val``) and on meshes we did not make.

Run: ``python eval/bench_geometry.py [--model DIR] [--split test|val] [--tokens 128 256 512 1024] [--per-category 2]
[--resolution 128] [--generation [DIR] [--detail DIR | --no-detail] [--candidates N]]`` → prints tables, writes
eval/results/geometry.json (geometry_val.json for val) and pictures named after it (geometry_vae.png, ...).

Each test shape is encoded from the data set's surface points (the first ``surface_points`` of its uniform
samples and the first ``sharp_points`` of its sharp-edge samples, as in training), its surface extracted with
``seed3d.geometry.extract`` at ``--resolution``, and compared with the ground truth after normalising both to the
unit bounding-box diagonal of the truth: Chamfer-L1, F-score at 0.01, 0.02 and 0.05, normal consistency
(eval/shape_metrics.py), on ``--points`` (default 200,000) area-uniform points of each surface. The truth's points
come from the test shape regenerated from its seed (the synth engine is deterministic; the split's stored samples
must lie on the regenerated surface, or the run stops): the split stores 16,384, and two independent 16,384-point
samplings of one surface score only F@0.01 0.88 against each other on the 9-shape set (0.59 on a dresser), a
floor no reconstruction can beat. Each row also carries ``at_16k`` (the same metrics with 16,384 points a side,
the truth being the split's stored samples: how this benchmark measured until 2026-12-06) and the summary the
sampling floor at ``--points`` (two independent samplings of the truth against each other). Volume IoU is the
occupancy agreement of the decoded SDF with the true SDF at the split's 8,192 uniform points in the cube.

Generalisation: meshes shipped inside PyPI packages we depend on (pymeshlab's sample meshes, pybullet_data),
normalised into the data set's frame (bounding-box centre at 0, longest half side 0.9), sampled the same way
(sharp edges at 30°), reconstructed and scored the same way (the truth: ``--points`` samples of the mesh);
volume IoU only where the mesh is watertight. With ``--generation`` also image -> shape on them: one render each
in plain grey (a seeded random view and lighting, as the data set renders), generated and scored against the mesh
beside image retrieval (eval/results/geometry_foreign_generation.png).

Generation is scored on 16,384 points a side (the split's stored samples): its figure is F@0.05, where two
samplings of that size already agree (F@0.05 1.000, F@0.02 0.99 and above, on the 9-shape set).

Generation runs both stages when a stage-2 flow is given (``--detail``, else the shipped one when the pipeline lists
it): each generated shape is then also scored from the same sample's stage-1 surface ("stage 1 alone") and, on the
synth split, beside stage 2's ceiling on that sample ("support_ceiling": the test shape itself encoded by the VAE at
the positions of stage 2's tokens, decoded and extracted the same way).

Novelty: the procedural generator repeats near-identical shapes across seeds, so retrieval finds some test shapes
nearly exactly. Each generation row carries its test shape's nearest training shape ("nearest_train": of the flow's
training shapes of the same category, the one with the best F@0.05, and its scores), and the summary repeats the
means over the novel shapes alone (nearest F@0.05 below ``--novel-below``, default 0.95); the picture
geometry_generation_novelty.png plots each shape's F@0.05 against that novelty.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from shape_metrics import surface_metrics, volume_iou  # eval/shape_metrics.py (the script folder is on sys.path)

from seed3d.asset import Mesh, atomic_file
from seed3d.geometry.extract import EmptySurfaceError, extract_surface
from seed3d.geometry.generate import GenerateOptions, coarse_grid
from seed3d.geometry.train import load_geometry
from seed3d.geometry.vae import ShapeVAE

RESULTS = Path(__file__).parent / "results"
FOREIGN = (("pymeshlab", "tests/sample_meshes/bunny.obj"), ("pymeshlab", "tests/sample_meshes/cow.obj"),
           ("pymeshlab", "tests/sample_meshes/airplane.obj"), ("pymeshlab", "tests/sample_meshes/bone.ply"),
           ("pybullet_data", "duck.obj"), ("pybullet_data", "teddy_vhacd.obj"),
           ("pybullet_data", "table/table.obj"), ("pybullet_data", "tray/tray_textured.obj"))
METRICS = ("chamfer_l1", "f@0.01", "f@0.02", "f@0.05", "normal_consistency", "volume_iou")
TRUTH_POINTS = 200_000
"""Points sampled on each surface for the VAE's surface metrics (two independent samplings of one test shape score
F@0.01 1.000 against each other at this count, 0.88 at the split's stored 16,384)."""
STORED_POINTS = 16_384
TRUTH_TOLERANCE = 1e-4
"""How far (normalised units) the split's stored surface samples may lie from the regenerated test shape."""
NOVEL_BELOW = 0.95
"""A test shape is novel when no training shape of its category comes within this F@0.05 of it (the procedural
generator repeats near-identical shapes across seeds; retrieval finds those nearly exactly)."""


def pick_per_category(categories: np.ndarray, per_category: int, limit: int | None = None) -> list[int]:
    """The first ``per_category`` samples of each category; ``limit`` keeps that many, spread evenly."""
    seen: dict[str, int] = {}
    out = []
    for i, c in enumerate(categories):
        if seen.get(str(c), 0) < per_category:
            seen[str(c)] = seen.get(str(c), 0) + 1
            out.append(i)
    if limit is not None and limit < len(out):
        out = [out[j] for j in np.linspace(0, len(out) - 1, limit).round().astype(int)]
    return out


def reconstruct(vae: ShapeVAE, points: np.ndarray, normals: np.ndarray, sharp: np.ndarray, tokens: int,
                resolution: int) -> tuple[Mesh, Any]:
    """Encode one shape's points and extract the decoded surface; returns the mesh and the SDF callable."""
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a, np.float32))[None]  # noqa: E731
    with torch.no_grad():
        latent = vae.encode(t(points), t(normals), torch.from_numpy(sharp)[None], num_tokens=tokens)
    sdf = vae.sdf_function(latent)
    coarse = coarse_grid(resolution, vae.config.truncation)
    return extract_surface(sdf, resolution=resolution, coarse=coarse), sdf  # type: ignore[arg-type]


def synth_truth(data: dict[str, np.ndarray], i: int, points: int
                ) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Two independent area-uniform samplings (points, normals) of ``points`` each on test shape ``i``'s visible
    surface, regenerated from its category and seed in the split's normalised frame; raises ``AssetFormatError``
    when the split's stored samples do not lie on it (the synth engine changed since the split was built)."""
    from seed3d import synth
    from seed3d.errors import AssetFormatError
    from seed3d.synth.sampling import PartSolids

    name, seed = str(data["sample_id"][i]), int(data["seed"][i])
    solids = PartSolids.from_asset(synth.generate(str(data["category"][i]), seed), data["norm_offset"][i],
                                   float(data["norm_scale"][i]))
    # a changed engine moves most samples; a point or two off at a seam of a part's solid (a cart's body: 2 of
    # 16,384 by 0.3 mm) is the signed distance's own noise, so the 99.9th percentile is what is judged
    off = float(np.quantile(np.abs(solids.signed_distance(data["surface_points"][i].astype(np.float64))), 0.999))
    if off > TRUTH_TOLERANCE:
        raise AssetFormatError(f"{name} regenerated from seed {seed}: 0.1 % of the split's stored samples lie "
                               f"{off:.3g} or more from it (> {TRUTH_TOLERANCE}): the synth engine changed since the "
                               "split was built; rebuild it (seed3d data build)")
    rng = np.random.default_rng(0)
    a, b = solids.sample_surface(points, rng), solids.sample_surface(points, rng)
    return (a.points, a.normals), (b.points, b.normals)


def score(mesh: Mesh, gt_points: np.ndarray, gt_normals: np.ndarray) -> dict[str, float]:
    """Surface metrics of a reconstructed mesh against ground-truth samples."""
    p, n, _ = mesh.sample_surface(len(gt_points), seed=0)
    return surface_metrics(p, n, gt_points, gt_normals)


def _input(vae: ShapeVAE, pts: np.ndarray, nrm: np.ndarray, sharp_pts: np.ndarray, sharp_nrm: np.ndarray,
           on_edge: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    c = vae.config
    p = np.concatenate([pts[: c.surface_points], sharp_pts[: c.sharp_points]])
    n = np.concatenate([nrm[: c.surface_points], sharp_nrm[: c.sharp_points]])
    s = np.concatenate([np.zeros(min(len(pts), c.surface_points), bool), on_edge[: c.sharp_points]])
    return p, n, s


def synth_rows(vae: ShapeVAE, data: dict[str, np.ndarray], tokens: list[int], resolution: int,
               per_category: int, keep: dict[str, dict[str, Mesh]] | None = None,
               limit: int | None = None, points: int = TRUTH_POINTS) -> list[dict[str, Any]]:
    """Reconstruction metrics per (test shape, token count) against ``points`` samples of the regenerated truth
    (with the sampling floor and the 16,384-point figures, see the module docstring); the first shape of each
    category's meshes go into ``keep`` (sample id -> {tokens: mesh}) for the picture."""
    rows = []
    picks = pick_per_category(data["category"], per_category, limit)
    for n, i in enumerate(picks):
        p, nrm, s = _input(vae, data["surface_points"][i], data["surface_normals"][i], data["sharp_points"][i],
                           data["sharp_normals"][i], data["sharp_on_edge"][i])
        truth, second = synth_truth(data, i, points)
        floor = surface_metrics(*second, *truth)
        for m in tokens:
            t0 = time.perf_counter()
            row: dict[str, Any] = {"sample": str(data["sample_id"][i]), "category": str(data["category"][i]),
                                   "tokens": m, "floor": floor}
            try:
                mesh, sdf = reconstruct(vae, p, nrm, s, m, resolution)
            except EmptySurfaceError:
                row.update({k: 0.0 for k in METRICS[1:]}, chamfer_l1=1.0, empty=True)
                row["at_16k"] = {**{k: 0.0 for k in METRICS[1:-1]}, "chamfer_l1": 1.0}
                rows.append(row)
                continue
            row.update(score(mesh, *truth))
            row["at_16k"] = score(mesh, data["surface_points"][i], data["surface_normals"][i])
            if keep is not None and (str(data["sample_id"][i]) in keep or
                                     str(data["category"][i]) not in {k.rsplit("_", 1)[0] for k in keep}):
                keep.setdefault(str(data["sample_id"][i]), {})[str(m)] = mesh
            pred_inside = sdf(data["vol_points"][i].astype(np.float32)) < 0  # type: ignore[operator]
            row["volume_iou"] = volume_iou(pred_inside, data["vol_sdf"][i] < 0)
            row["seconds"] = round(time.perf_counter() - t0, 2)
            rows.append(row)
        f1 = np.mean([r["f@0.01"] for r in rows if r["tokens"] == tokens[-1]])
        print(f"\r{n + 1}/{len(picks)} shapes; F@0.01 at {tokens[-1]} tokens {f1:.3f}", end="", flush=True)
    print()
    return rows


def foreign_meshes() -> list[tuple[str, Mesh]]:
    """The generalisation meshes that exist in this environment, normalised into the data set's frame."""
    import importlib.util

    import trimesh

    out = []
    for package, rel in FOREIGN:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        path = Path(next(iter(spec.submodule_search_locations))) / rel
        if not path.is_file():
            continue
        tm = trimesh.load(path, force="mesh", process=True)
        v = np.asarray(tm.vertices, np.float64)
        lo, hi = v.min(0), v.max(0)
        v = (v - (lo + hi) / 2) * (0.9 / (float((hi - lo).max()) / 2))
        out.append((f"{package}/{rel}", Mesh(v, np.asarray(tm.faces, np.int64))))
    return out


def foreign_rows(vae: ShapeVAE, tokens: list[int], resolution: int, points: int = TRUTH_POINTS
                 ) -> list[dict[str, Any]]:
    """Reconstruction metrics on meshes we did not make, against ``points`` samples of each (with the sampling
    floor and the 16,384-point figures, as on the synth split)."""
    import trimesh

    rows = []
    c = vae.config
    for name, mesh in foreign_meshes():
        gt_p, gt_n, _ = mesh.sample_surface(points, seed=1)
        sp, sn, _ = mesh.sample_surface(STORED_POINTS, seed=1)
        floor = surface_metrics(*mesh.sample_surface(points, seed=4)[:2], gt_p, gt_n)
        pts, nrm, _ = mesh.sample_surface(c.surface_points, seed=2)
        e_p, e_n, e_on = mesh.sample_sharp_edges(c.sharp_points, seed=3)
        p, n, s = _input(vae, pts, nrm, e_p, e_n, e_on)
        tm = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
        watertight = bool(tm.is_watertight)
        q = np.random.default_rng(0).uniform(-1, 1, (8192, 3))
        inside = tm.contains(q) if watertight else None
        for m in tokens:
            row: dict[str, Any] = {"mesh": name, "tokens": m, "watertight": watertight, "floor": floor}
            try:
                rec, sdf = reconstruct(vae, p, n, s, m, resolution)
            except EmptySurfaceError:
                row.update({k: 0.0 for k in METRICS[1:]}, chamfer_l1=1.0, empty=True)
                row["at_16k"] = {**{k: 0.0 for k in METRICS[1:-1]}, "chamfer_l1": 1.0}
                rows.append(row)
                continue
            row.update(score(rec, gt_p, gt_n))
            row["at_16k"] = score(rec, sp, sn)
            if inside is not None:
                row["volume_iou"] = volume_iou(sdf(q.astype(np.float32)) < 0, inside)  # type: ignore[operator]
            rows.append(row)
        print(f"  {name}: " + ", ".join(f"{r['tokens']}: F@0.01 {r['f@0.01']:.3f}" for r in rows if r["mesh"] == name))
    return rows


def _view_tensor(views: dict[str, np.ndarray], index: np.ndarray, size: int) -> torch.Tensor:
    """View 0 of the given samples, recentred exactly as at inference (alpha crop on the canonical background)."""
    from seed3d.condition.image import preprocess_rgba, to_tensor

    return to_tensor([preprocess_rgba(views["cond_rgb"][i, 0], views["cond_alpha"][i, 0],
                                      views["cond_background"][i, 0], size=size) for i in index])


def image_vectors(gen: Any, views: dict[str, np.ndarray], index: np.ndarray) -> torch.Tensor:
    """Unit-length pooled image-encoder vectors (N, D) of view 0 of the given samples (the retrieval key)."""
    size = gen.conditioner.image_size
    with torch.no_grad():
        feats = [gen.conditioner.image_encoder(_view_tensor(views, index[s: s + 64], size)).pooled
                 for s in range(0, len(index), 64)]
    return torch.nn.functional.normalize(torch.cat(feats), dim=-1)


def stage1_only(gen: Any, grid: np.ndarray, resolution: int, level: float, gt_p: np.ndarray, gt_n: np.ndarray
                ) -> tuple[Mesh | None, dict[str, float]]:
    """The stage-1 surface of a sampled grid (what the pipeline gives without stage 2) and its scores."""
    try:
        mesh = gen.extract(*gen.surface_field(grid, None), resolution, level)
    except EmptySurfaceError:
        return None, {**{k: 0.0 for k in METRICS[1:-1]}, "chamfer_l1": 1.0}
    return mesh, score(mesh, gt_p, gt_n)


def support_ceiling(vae: ShapeVAE, test: dict[str, np.ndarray], i: int, anchors: torch.Tensor, resolution: int,
                    gt_p: np.ndarray, gt_n: np.ndarray) -> tuple[Mesh | None, dict[str, float]]:
    """The ceiling of stage 2 on a generated support: the test shape's own surface encoded by the VAE at stage 2's
    token positions ``anchors`` (1, M, 3) and decoded (what a perfect stage 2 would give there), and its scores."""
    p, n, s = _input(vae, test["surface_points"][i], test["surface_normals"][i], test["sharp_points"][i],
                     test["sharp_normals"][i], test["sharp_on_edge"][i])
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a, np.float32))[None]  # noqa: E731
    with torch.no_grad():
        latent = vae.encode(t(p), t(n), torch.from_numpy(s)[None], anchors=anchors)
    try:
        mesh = extract_surface(vae.sdf_function(latent), resolution=resolution,  # type: ignore[arg-type]
                               coarse=coarse_grid(resolution, vae.config.truncation))
    except EmptySurfaceError:
        return None, {**{k: 0.0 for k in METRICS[1:-1]}, "chamfer_l1": 1.0}
    return mesh, score(mesh, gt_p, gt_n)


def nearest_shape(gt_p: np.ndarray, gt_n: np.ndarray, train: dict[str, np.ndarray], category: str,
                  points: int = 2048, finalists: int = 3) -> dict[str, Any]:
    """The training shape of ``category`` closest to a test shape and its full scores: candidates ranked by F@0.05
    on ``points`` of each surface's samples, the best ``finalists`` scored on all of them (as retrieval is); how
    novel the test shape is (F@0.05 near 1: the train split holds a near-copy)."""
    cands = np.flatnonzero(train["category"] == category)
    if not len(cands):
        return {"sample": None, **{k: 0.0 for k in METRICS[1:-1]}, "chamfer_l1": 1.0}
    fast = [surface_metrics(train["surface_points"][j][:points], train["surface_normals"][j][:points], gt_p[:points],
                            gt_n[:points])["f@0.05"] for j in cands]
    best = [int(cands[k]) for k in np.argsort(fast)[::-1][:finalists]]
    full = [surface_metrics(train["surface_points"][j], train["surface_normals"][j], gt_p, gt_n) for j in best]
    k = int(np.argmax([f["f@0.05"] for f in full]))
    return {"sample": str(train["sample_id"][best[k]]), **full[k]}


def generation_rows(gen: Any, test: dict[str, np.ndarray], train: dict[str, np.ndarray], train_img: torch.Tensor,
                    per_category: int, resolution: int, steps: int, guidance: float, level: float,
                    keep: dict[str, dict[str, Mesh]] | None = None, limit: int | None = None, candidates: int = 1
                    ) -> list[dict[str, Any]]:
    """Image -> shape and text -> shape on test samples, each beside its retrieval baseline: the training shape
    the flow saw whose conditioning embedding (``train_img``, see ``image_vectors``; MiniLM's sentence vector) is
    nearest."""
    from seed3d.condition.text import default_text_encoder

    size = gen.conditioner.image_size
    text_enc = default_text_encoder()
    picks = pick_per_category(test["category"], per_category, limit)
    test_img = image_vectors(gen, test, np.array(picks))
    train_txt = text_enc.encode_pooled([str(d) for d in train["description"]])
    test_txt = text_enc.encode_pooled([str(test["description"][i]) for i in picks])
    opts = GenerateOptions(steps=steps, guidance=guidance, resolution=resolution, candidates=candidates)
    rows = []
    for n, i in enumerate(picks):
        gt_p, gt_n = test["surface_points"][i], test["surface_normals"][i]
        images = _view_tensor(test, np.array([i]), size)
        tok, mask = text_enc.encode_tokens([str(test["description"][i])])
        # the ceiling of stage 1: the surface of the shape's own coarse grid, meshed as a generated one is
        field, truncation = gen.surface_field(test["grid_sdf"][i], None)
        truth_grid = gen.extract(field, truncation, resolution)
        ceiling = score(truth_grid, gt_p, gt_n)
        nearest = nearest_shape(gt_p, gt_n, train, str(test["category"][i]))
        if keep is not None and (len(keep) < 9 or str(test["sample_id"][i]) in keep):
            keep.setdefault(str(test["sample_id"][i]), {})["true coarse grid"] = truth_grid
        for mode in ("image", "text"):
            row: dict[str, Any] = {"sample": str(test["sample_id"][i]), "category": str(test["category"][i]),
                                   "mode": mode}
            t0 = time.perf_counter()
            with torch.no_grad():
                cond = gen.conditioner(images, None) if mode == "image" else gen.conditioner(None, tok, mask)
            prior = gen.conditioner.shape_prior(images) if mode == "image" and candidates > 1 else None
            grid, latent = gen.sample(cond[0], cond[1], opts, prior=prior)
            field, truncation = gen.surface_field(grid, latent)
            try:
                mesh = gen.extract(field, truncation, resolution, level)
                row.update(score(mesh, gt_p, gt_n))
                if keep is not None and (len(keep) < 9 or row["sample"] in keep):
                    keep.setdefault(row["sample"], {})[f"{mode} -> shape"] = mesh
                row["volume_iou"] = volume_iou(field(test["vol_points"][i].astype(np.float32)) < level,
                                               test["vol_sdf"][i] < 0)
            except EmptySurfaceError:
                row.update({k: 0.0 for k in METRICS[1:]}, chamfer_l1=1.0, empty=True)
            row["seconds"] = round(time.perf_counter() - t0, 2)
            if latent is not None:  # stage 2 ran: the same grid's stage-1 surface and stage 2's ceiling beside it
                coarse_mesh, row["stage1"] = stage1_only(gen, grid, resolution, level, gt_p, gt_n)
                best, row["support_ceiling"] = support_ceiling(gen.vae, test, i, latent.anchors, resolution, gt_p,
                                                               gt_n)
                if keep is not None and row["sample"] in keep:
                    for label, shown in ((f"{mode} -> shape, stage 1", coarse_mesh),
                                         (f"{mode}: truth at its support", best)):
                        if shown is not None:
                            keep[row["sample"]][label] = shown
            sims = (train_img @ test_img[n]) if mode == "image" else (train_txt @ test_txt[n])
            j = int(sims.argmax())
            base = surface_metrics(train["surface_points"][j], train["surface_normals"][j], gt_p, gt_n)
            row["retrieval"] = {"sample": str(train["sample_id"][j]), **base}
            row["true_grid"] = ceiling
            row["nearest_train"] = nearest
            rows.append(row)
        done = [r for r in rows if r["mode"] == "image"]
        stage1 = f", stage 1 {np.mean([r['stage1']['f@0.05'] for r in done]):.3f}" if "stage1" in done[0] else ""
        print(f"\r{n + 1}/{len(picks)} image->shape F@0.05 {np.mean([r['f@0.05'] for r in done]):.3f}{stage1} "
              f"(retrieval {np.mean([r['retrieval']['f@0.05'] for r in done]):.3f})", end="", flush=True)
    print()
    return rows


def foreign_view(mesh: Mesh, renderer: Any, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One conditioning render of a mesh we did not make, as the data set makes its views (a random view and
    lighting from ``seed``), in a plain grey material: sRGB colour over black and alpha, uint8."""
    from seed3d.asset import PBRMaterial
    from seed3d.render import Lighting, random_views
    from seed3d.synth.dataset import DatasetConfig

    cfg = DatasetConfig()
    rng = np.random.default_rng(seed)
    cam = random_views(mesh, 1, seed=int(rng.integers(2**31)), width=cfg.cond_resolution)[0]
    lighting = Lighting.random(int(rng.integers(2**31)), background=(0.0, 0.0, 0.0))
    grey = PBRMaterial(base_color=(0.6, 0.6, 0.62, 1.0), roughness=0.6)
    rgba = renderer.render_image(mesh, cam, lighting, material=grey, supersample=cfg.cond_supersample)
    u8 = np.round(np.clip(rgba, 0.0, 1.0) * 255.0).astype(np.uint8)
    return u8[..., :3], u8[..., 3]


def foreign_generation_rows(gen: Any, train: dict[str, np.ndarray], train_img: torch.Tensor, resolution: int,
                            steps: int, guidance: float, level: float, picture_path: Path | None = None,
                            candidates: int = 1) -> list[dict[str, Any]]:
    """Image -> shape on meshes we did not make (one render each, seeded), beside image retrieval; reported as
    they are (no category, size or orientation is given: the render's camera frame is the data set's)."""
    from seed3d.condition.image import preprocess_rgba, to_tensor
    from seed3d.render import get_renderer

    size = gen.conditioner.image_size
    opts = GenerateOptions(steps=steps, guidance=guidance, resolution=resolution, candidates=candidates)
    renderer = get_renderer()
    rows, tiles, captions = [], [], []
    for n, (name, mesh) in enumerate(foreign_meshes()):
        gt_p, gt_n, _ = mesh.sample_surface(16384, seed=1)
        rgb, alpha = foreign_view(mesh, renderer, seed=n)
        images = to_tensor([preprocess_rgba(rgb, alpha, (0.0, 0.0, 0.0), size=size)])
        row: dict[str, Any] = {"mesh": name, "mode": "image"}
        with torch.no_grad():
            cond = gen.conditioner(images, None)
            pooled = torch.nn.functional.normalize(gen.conditioner.image_encoder(images).pooled, dim=-1)[0]
            prior = gen.conditioner.shape_prior(images) if candidates > 1 else None
        grid, latent = gen.sample(cond[0], cond[1], opts, prior=prior)
        field, truncation = gen.surface_field(grid, latent)
        shape = None
        try:
            shape = gen.extract(field, truncation, resolution, level)
            row.update(score(shape, gt_p, gt_n))
        except EmptySurfaceError:
            row.update({k: 0.0 for k in METRICS[1:-1]}, chamfer_l1=1.0, empty=True)
        if latent is not None:
            row["stage1"] = stage1_only(gen, grid, resolution, level, gt_p, gt_n)[1]
        j = int((train_img @ pooled).argmax())
        row["retrieval"] = {"sample": str(train["sample_id"][j]),
                            **surface_metrics(train["surface_points"][j], train["surface_normals"][j], gt_p, gt_n)}
        rows.append(row)
        print(f"  {name}: image -> shape F@0.05 {row['f@0.05']:.3f}, retrieval ({row['retrieval']['sample']}) "
              f"{row['retrieval']['f@0.05']:.3f}", flush=True)
        tiles += [rgb, _render(mesh, renderer)] + ([_render(shape, renderer)] if shape is not None else [])
        captions += [f"{name.rsplit('/', 1)[-1]} input", "truth"] + (["image -> shape"] if shape is not None else [])
        if shape is None:
            tiles.append(np.full((160, 160, 3), 255, np.uint8))
            captions.append("image -> shape: empty")
    renderer.close()
    if picture_path is not None and tiles:
        from seed3d.scene.image import picture_grid, save_png

        save_png(picture_path, picture_grid(tiles, columns=6, tile=200, captions=captions))
        print(f"wrote {picture_path} (image -> shape on meshes we did not make)")
    return rows


def _means(rows: list[dict[str, Any]], kind: str | None, keys: tuple[str, ...]) -> dict[str, float]:
    return {k: round(float(np.mean([(r if kind is None else r[kind])[k] for r in rows])), 4) for k in keys}


def summarise_generation(rows: list[dict[str, Any]], novel_below: float = NOVEL_BELOW) -> dict[str, dict[str, Any]]:
    """Mean metrics per mode, generated and retrieved; the same over the novel test shapes alone (those whose
    nearest training shape of their category scores F@0.05 below ``novel_below``)."""
    out: dict[str, dict[str, Any]] = {}
    for mode in ("image", "text"):
        sel = [r for r in rows if r["mode"] == mode]
        if not sel:
            continue
        out[mode] = {"generated": _means(sel, None, METRICS), "retrieval": _means(sel, "retrieval", METRICS[:-1]),
                     "true_grid": _means(sel, "true_grid", METRICS[:-1]),
                     "nearest_train": _means(sel, "nearest_train", METRICS[:-1])}
        for kind in ("stage1", "support_ceiling"):
            if kind in sel[0]:
                out[mode][kind] = _means(sel, kind, METRICS[:-1])
        novel = [r for r in sel if r["nearest_train"]["f@0.05"] < novel_below]
        out[mode]["novel"] = {"below": novel_below, "shapes": len(novel)}
        if novel:
            out[mode]["novel"].update({kind: _means(novel, None if kind == "generated" else kind, METRICS[:-1])
                                       for kind in ("generated", "retrieval", "nearest_train", *(
                                           ["stage1"] if "stage1" in sel[0] else []))})
    return out


def plot_novelty(rows: list[dict[str, Any]], novel_below: float, path: Path) -> None:
    """F@0.05 of each generated and retrieved shape against how close the train split comes to its test shape."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = [m for m in ("image", "text") if any(r["mode"] == m for r in rows)]
    fig, axes = plt.subplots(1, len(modes), figsize=(4.2 * len(modes), 3.8), dpi=120, squeeze=False)
    for ax, mode in zip(axes[0], modes, strict=True):
        sel = [r for r in rows if r["mode"] == mode]
        x = [r["nearest_train"]["f@0.05"] for r in sel]
        ax.scatter(x, [r["f@0.05"] for r in sel], s=14, label=f"{mode} -> shape")
        ax.scatter(x, [r["retrieval"]["f@0.05"] for r in sel], s=14, marker="x", label="retrieval")
        ax.axvline(novel_below, color="gray", ls=":", lw=1)
        ax.plot([0, 1], [0, 1], color="gray", lw=0.5)
        ax.set_xlabel("nearest train shape's F@0.05 (left: novel)")
        ax.set_ylabel("F@0.05 against the test shape")
        ax.set_title(f"{mode} -> shape, {len(sel)} test shapes", fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    with atomic_file(path) as tmp:
        fig.savefig(tmp, format="png")
    plt.close(fig)


def summarise(rows: list[dict[str, Any]], tokens: list[int], kind: str | None = None) -> dict[str, dict[str, float]]:
    """Mean of every metric per token count (of each row's ``kind`` entry, e.g. ``at_16k``, when given)."""
    out = {}
    for m in tokens:
        sel = [r if kind is None else r[kind] for r in rows if r["tokens"] == m and (kind is None or kind in r)]
        out[str(m)] = {k: round(float(np.mean([r[k] for r in sel if k in r])), 4) for k in METRICS
                       if any(k in r for r in sel)}
    return out


def sampling_floor(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Mean over shapes of the truth's two samplings scored against each other (a perfect reconstruction's)."""
    per_shape = {r.get("sample", r.get("mesh")): r["floor"] for r in rows if "floor" in r}
    return {k: round(float(np.mean([f[k] for f in per_shape.values()])), 4) for k in METRICS[:-1]}


def _render(target: Any, renderer: Any, size: int = 160) -> np.ndarray:
    from seed3d.asset import PBRMaterial
    from seed3d.render import Lighting, orbit_camera

    cam = orbit_camera(target, 35.0, 25.0, size)
    grey = None if not isinstance(target, Mesh) else PBRMaterial(base_color=(0.7, 0.7, 0.72, 1.0), roughness=0.6)
    rgba = renderer.render_image(target, cam, Lighting(), material=grey)
    rgb = rgba[..., :3] * rgba[..., 3:] + (1 - rgba[..., 3:])
    return (np.clip(rgb, 0, 1) * 255).astype(np.uint8)


def picture(rows: dict[str, dict[str, Mesh]], path: Path, title: str) -> None:
    """One row per shape: the synth ground truth, then each kept mesh (e.g. per token count or per input)."""
    from seed3d.render import get_renderer
    from seed3d.scene.image import picture_grid, save_png
    from seed3d.synth import generate

    renderer = get_renderer()
    images, captions = [], []
    for sample, meshes in rows.items():
        category, seed = sample.rsplit("_", 1)
        images.append(_render(generate(category, int(seed)), renderer))
        captions.append(f"{sample} truth")
        for key, mesh in meshes.items():
            images.append(_render(mesh, renderer))
            captions.append(f"{key}")
    renderer.close()
    grid = picture_grid(images, columns=1 + max(len(m) for m in rows.values()), tile=200, captions=captions)
    save_png(path, grid)
    print(f"wrote {path} ({title})")


def plot(summary: dict[str, dict[str, float]], foreign: dict[str, dict[str, float]], path: Path,
         at16: dict[str, dict[str, float]] | None = None) -> None:
    """F-scores and Chamfer-L1 against token count, synth test split and foreign meshes (and synth F@0.01 with
    16,384 points a side, ``at16``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), dpi=120)
    m = [int(k) for k in summary]
    for key, style in (("f@0.01", "o-"), ("f@0.02", "s-"), ("f@0.05", "^-"), ("volume_iou", "d-")):
        axes[0].plot(m, [summary[str(t)][key] for t in m], style, label=f"{key} synth")
    if foreign:
        axes[0].plot(m, [foreign[str(t)]["f@0.01"] for t in m], "o--", color="gray", label="f@0.01 foreign")
    if at16:
        axes[0].plot(m, [at16[str(t)]["f@0.01"] for t in m], "o:", color="C0", alpha=0.5,
                     label="f@0.01 synth, 16,384 points")
    axes[0].axhline(0.9, color="red", lw=0.8, ls=":", label="target F@0.01")
    axes[0].set_xscale("log", base=2)
    axes[0].set_xlabel("latent tokens")
    axes[0].set_ylim(0, 1)
    axes[0].legend(fontsize=7)
    axes[0].grid(alpha=0.3)
    axes[1].plot(m, [summary[str(t)]["chamfer_l1"] for t in m], "o-", label="synth test")
    if foreign:
        axes[1].plot(m, [foreign[str(t)]["chamfer_l1"] for t in m], "o--", color="gray", label="foreign meshes")
    axes[1].set_xscale("log", base=2)
    axes[1].set_xlabel("latent tokens")
    axes[1].set_ylabel("Chamfer-L1 (unit diagonal)")
    axes[1].legend(fontsize=7)
    axes[1].grid(alpha=0.3)
    fig.suptitle("shape VAE reconstruction", fontsize=10)
    fig.tight_layout()
    with atomic_file(path) as tmp:
        fig.savefig(tmp, format="png")
    plt.close(fig)


def main() -> None:
    """Run the evaluation and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", help="shape VAE folder (default: the shipped weights)")
    parser.add_argument("--data", default="data/synth")
    parser.add_argument("--tokens", type=int, nargs="+", default=[128, 256, 512, 1024])
    parser.add_argument("--per-category", type=int, default=2)
    parser.add_argument("--limit", type=int, help="keep this many test shapes, spread over the categories")
    parser.add_argument("--resolution", type=int, default=128)
    parser.add_argument("--points", type=int, default=TRUTH_POINTS,
                        help="points sampled on each surface for the VAE's surface metrics (the truth regenerated from "
                             "its seed; default %(default)s)")
    parser.add_argument("--no-foreign", action="store_true", help="skip the meshes we did not make")
    parser.add_argument("--no-vae", action="store_true", help="skip the VAE reconstruction part")
    parser.add_argument("--generation", nargs="?", const="shipped", metavar="DIR",
                        help="also score image -> shape and text -> shape with this stage-1 folder (default: shipped)")
    parser.add_argument("--detail", metavar="DIR",
                        help="stage-2 folder for --generation, decoded by --model's VAE (default: the shipped one when "
                             "the pipeline lists it)")
    parser.add_argument("--no-detail", action="store_true", help="--generation with stage 1 alone")
    parser.add_argument("--steps", type=int, default=25, help="flow steps for --generation")
    parser.add_argument("--guidance", type=float, default=3.0, help="guidance scale for --generation")
    parser.add_argument("--level", type=float, default=0.0,
                        help="SDF level extracted for --generation (the pipeline's GenerateOptions.level)")
    parser.add_argument("--candidates", type=int, default=GenerateOptions.candidates,
                        help="stage-1 samples per image request, ranked by the conditioner's shape head (default: the "
                             "pipeline's)")
    parser.add_argument("--novel-below", type=float, default=NOVEL_BELOW,
                        help="--generation also summarises the test shapes whose nearest training shape of their "
                             "category scores F@0.05 below this")
    parser.add_argument("--split", default="test", choices=("test", "val"),
                        help="held-out split to score (default test; val: for choosing between models and settings "
                             "without the test split, `seed3d data build --split val`)")
    parser.add_argument("--out", help="results file (default eval/results/geometry.json, geometry_val.json for val); "
                                      "the pictures go beside it, named after it")
    args = parser.parse_args()
    from seed3d.pipeline import weights_component

    model = Path(args.model) if args.model else weights_component("geometry_vae")
    vae = ShapeVAE.from_pretrained(model).eval()
    torch.manual_seed(0)
    out = Path(args.out or RESULTS / ("geometry.json" if args.split == "test" else f"geometry_{args.split}.json"))
    doc: dict[str, Any] = json.loads(out.read_text()) if out.is_file() else {}
    doc.update({"benchmark": "shape VAE reconstruction over token count; image/text -> shape against retrieval",
                "command": "python eval/bench_geometry.py [--generation]", "model": str(model), "split": args.split,
                "threads": torch.get_num_threads(), "machine": platform.processor() or platform.machine()})
    fields = ("sample_id", "category", "seed", "norm_offset", "norm_scale", "description", "surface_points",
              "surface_normals", "sharp_points", "sharp_normals", "sharp_on_edge", "vol_points", "vol_sdf")
    data = load_geometry(args.data, args.split, fields=fields)
    if not args.no_vae:
        t0 = time.perf_counter()
        keep: dict[str, dict[str, Mesh]] = {}
        rows = synth_rows(vae, data, args.tokens, args.resolution, args.per_category, keep, args.limit, args.points)
        picture({k: {f"{t} tokens": m for t, m in v.items()} for k, v in list(keep.items())[:9]},
                out.with_name(f"{out.stem}_vae_examples.png"), "VAE reconstructions")
        summary, at16 = summarise(rows, args.tokens), summarise(rows, args.tokens, "at_16k")
        print(f"synth {args.split} split (unit bbox diagonal, {args.points} points a side):")
        for m, s in summary.items():
            print(f"  {m:>5} tokens  " + "  ".join(f"{k} {v:.4f}" for k, v in s.items()) +
                  f"  (16,384 points: F@0.01 {at16[m]['f@0.01']:.4f})")
        floor = sampling_floor(rows)
        print("  sampling floor (the truth against itself): " + "  ".join(f"{k} {v:.4f}" for k, v in floor.items()))
        vae_doc = {"resolution": args.resolution, "points": args.points, "shapes": len({r["sample"] for r in rows}),
                   f"synth_{args.split}": summary, "sampling_floor": floor, f"synth_{args.split}_at_16k": at16}
        doc["vae"] = vae_doc
        _write(out, doc)  # the synth figures are safe before the foreign meshes run
        frows = [] if args.no_foreign else foreign_rows(vae, args.tokens, args.resolution, args.points)
        fsummary = summarise(frows, args.tokens) if frows else {}
        for m, s in fsummary.items():
            print(f"  foreign {m:>5} tokens  " + "  ".join(f"{k} {v:.4f}" for k, v in s.items()))
        if frows:
            vae_doc.update(foreign_sampling_floor=sampling_floor(frows), foreign_at_16k=summarise(frows, args.tokens,
                                                                                                 "at_16k"))
        top = str(args.tokens[-1])
        per_cat = {c: round(float(np.mean([r["f@0.01"] for r in rows if r["category"] == c
                                            and str(r["tokens"]) == top])), 4)
                   for c in sorted({r["category"] for r in rows})}
        vae_doc.update({"foreign": fsummary, f"f@0.01_per_category_{top}_tokens": per_cat, "rows": rows,
                        "foreign_rows": frows, "seconds": round(time.perf_counter() - t0, 1)})
        plot(summary, fsummary, out.with_name(f"{out.stem}_vae.png"), at16)
    if args.generation:
        from seed3d.geometry.detail import DetailFlow
        from seed3d.geometry.generate import ShapeGenerator

        t0 = time.perf_counter()
        coarse = weights_component("geometry_coarse") if args.generation == "shipped" else Path(args.generation)
        detail = None if args.no_detail else Path(args.detail) if args.detail else _shipped_detail()
        gen = ShapeGenerator(*_coarse_parts(coarse), vae=vae if detail else None,
                             detail=DetailFlow.from_pretrained(detail) if detail else None)
        print(f"generation: stage 1 {coarse}, stage 2 {detail or 'off'}")
        train = load_geometry(args.data, "train", fields=("sample_id", "category", "description", "surface_points",
                                                          "surface_normals", "cond_rgb", "cond_alpha",
                                                          "cond_background"))
        views = load_geometry(args.data, args.split, fields=("cond_rgb", "cond_alpha", "cond_background", "grid_sdf"))
        # retrieval searches the shapes the flow was trained on (a build's first N: builds extend by seed)
        record = coarse / "training.json"
        seen = json.loads(record.read_text()).get("train_shapes") if record.is_file() else None
        if seen and seen < len(train["sample_id"]):
            train = {k: v[: int(seen)] for k, v in train.items()}
        print(f"retrieval over {len(train['sample_id'])} training shapes")
        gkeep: dict[str, dict[str, Mesh]] = {}
        train_img = image_vectors(gen, train, np.arange(len(train["sample_id"])))
        grows = generation_rows(gen, {**data, **views}, train, train_img, args.per_category, args.resolution,
                                args.steps, args.guidance, args.level, gkeep, args.limit, args.candidates)
        picture(gkeep, out.with_name(f"{out.stem}_generation_examples.png"), "generated shapes")
        gsum = summarise_generation(grows, args.novel_below)
        plot_novelty(grows, args.novel_below, out.with_name(f"{out.stem}_generation_novelty.png"))
        for mode, s in gsum.items():
            print(f"  {mode} -> shape: generated " + "  ".join(f"{k} {v:.4f}" for k, v in s["generated"].items()))
            print(f"  {mode} -> shape: retrieval " + "  ".join(f"{k} {v:.4f}" for k, v in s["retrieval"].items()))
            print(f"  {mode} -> shape: true grid " + "  ".join(f"{k} {v:.4f}" for k, v in s["true_grid"].items()))
            print(f"  {mode} -> shape: nearest train shape " +
                  "  ".join(f"{k} {v:.4f}" for k, v in s["nearest_train"].items()))
            nv = s["novel"]
            if nv["shapes"]:
                print(f"  {mode} -> shape on the {nv['shapes']} novel shapes (nearest train F@0.05 < {nv['below']}): "
                      f"generated F@0.05 {nv['generated']['f@0.05']:.4f}, retrieval {nv['retrieval']['f@0.05']:.4f}, "
                      f"nearest train shape {nv['nearest_train']['f@0.05']:.4f}")
            if "stage1" in s:
                print(f"  {mode} -> shape: stage 1 alone " + "  ".join(f"{k} {v:.4f}" for k, v in s["stage1"].items()))
                print(f"  {mode} -> shape: truth at stage 2's support " +
                      "  ".join(f"{k} {v:.4f}" for k, v in s["support_ceiling"].items()))
        frows = [] if args.no_foreign else foreign_generation_rows(
            gen, train, train_img, args.resolution, args.steps, args.guidance, args.level,
            out.with_name(f"{out.stem}_foreign_generation.png"), args.candidates)
        fsum = {kind: {k: round(float(np.mean([(r if kind == "generated" else r[kind])[k] for r in frows])), 4)
                       for k in METRICS[:-1]}
                for kind in ("generated", "retrieval", "stage1") if frows and (kind in frows[0] or kind == "generated")}
        for kind, s in fsum.items():
            print(f"  foreign image -> shape: {kind} " + "  ".join(f"{k} {v:.4f}" for k, v in s.items()))
        doc["generation"] = {"coarse": str(coarse), "detail": str(detail) if detail else None, "steps": args.steps,
                             "candidates": args.candidates, "guidance": args.guidance, "level": args.level,
                             "resolution": args.resolution, "retrieval_shapes": len(train["sample_id"]),
                             "summary": gsum, "foreign_image": fsum, "foreign_rows": frows, "rows": grows,
                             "seconds": round(time.perf_counter() - t0, 1)}
    _write(out, doc)
    print(f"wrote {out}")


def _write(out: Path, doc: dict[str, Any]) -> None:
    with atomic_file(out) as tmp:
        Path(tmp).write_text(json.dumps(doc, indent=2) + "\n")


def _shipped_detail() -> Path | None:
    """The shipped stage-2 folder, or None when the pipeline lists none."""
    from seed3d.errors import Seed3DError
    from seed3d.pipeline import weights_component

    try:
        return weights_component("geometry_detail")
    except Seed3DError:
        return None


def _coarse_parts(folder: Path) -> tuple[Any, Any]:
    from seed3d.geometry.coarse import CoarseFlow
    from seed3d.geometry.conditioning import ShapeConditioner

    return CoarseFlow.from_pretrained(folder / "flow"), ShapeConditioner.from_pretrained(folder / "conditioner")


if __name__ == "__main__":
    main()
