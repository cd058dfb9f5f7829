"""Image → asset, three ways side by side: the program path, the learned path and the retrieval baseline.

    python eval/bench_program_compare.py                            # the default subset (see below)
    python eval/bench_program_compare.py --categories cabinet oven --seeds 10000 10001 --limit 4
    python eval/bench_program_compare.py --no-learned               # program path and retrieval only

Inputs: held-out synth objects, ``synth.generate(category, seed)`` with seeds from 10000 (the test split of
``seed3d.program.image_data``; the image network trained on seeds 0-199, the geometry flow, part segmenter and PBR
generator on the geometry data set's train split, seeds 0-2559 (sample i: category i mod 27, seed i); no model saw
seed 10000 or above). Each object is rendered as the image network's test split renders it (view 0 of
``ProgramDataConfig``'s random views and studio lighting, 128 px, the object's seeded stream) in three conditions:

- ``clean``: the moderngl render as straight-colour RGBA (alpha kept, as ``eval/bench_program_image.py`` feeds it);
- ``augmented``: the same render through ``PhotoAugmenter`` (colour, loose / partial crops, tilt, plain, textured or
  cluttered backgrounds, occluders, blur, noise, JPEG; seeded per item) as an 8-bit RGB photo without alpha;
- ``open3d``: the same camera and lighting drawn by the second render backend (open3d ray casting), RGBA.

Paths, each on the same image through ``Seed3DPipeline`` (one loaded pipeline):

- ``program``: ``generator="program"`` (image network → program → procedural build);
- ``learned``: ``generator="learned"`` with the geometry, parts and articulation stages (texture left out: it
  changes neither shape nor joints) at ``--steps`` / ``--resolution`` / ``--target-faces``;
- ``retrieval``: the geometry benchmark's image retrieval baseline (eval/bench_geometry.py): the input's pooled
  image-encoder vector of the shipped stage-1 conditioner against view 0 of training shapes rendered exactly as the
  geometry data set rendered them (``seed3d.synth.dataset``); the nearest training object is returned as the synth
  asset it is (parts and joints included). The gallery is the first ``--gallery-per-category`` training samples of
  each category (the full train split is 2,560; no data set is on this machine, so the gallery is re-rendered);
- ``auto``: what ``generator="auto"`` makes: ``choose_program`` decides; when it takes the program, the asset is the
  program path's (same image and seed: the same build), else the learned path's of the same input (scored only
  where the learned path ran).

Metrics per output against the truth asset: category (program path: the program's; retrieval: the retrieved
object's), exact movable-part count (movable joints whose child is a door, drawer or lid; the truth's count is the
same rule on the synth asset, checked against its attributes), F@0.05 and F@0.02 and Chamfer-L1
(eval/shape_metrics.py) on 16,384 area-uniform points over all parts of each asset at rest, after normalising each
asset on its own (bounding-box centre to the origin, bounding-box diagonal to 1; no rotation is searched: every path
outputs the canonical frame, +Z up, front +X); joints: movable joints of the output matched one to one to the
truth's (Hungarian on the distance between child-part box centres in the normalised frames, at most 0.25): matched /
missed / spurious, type accuracy, axis error in degrees (sign ignored), pivot error of rotational pairs (distance
between the axis lines in normalised units); silhouette IoU: the output moved onto the truth's box centre and
diagonal, rendered from the input's own camera, against the truth's silhouette from it; seconds per stage
(``asset.metadata["timings"]``; retrieval: encoding + search). Per input, auto against learned: F@0.05 and count.

Resumable: every finished item is one line of ``--work``/items.jsonl (skipped on the next run with the same
settings); tiles for the picture grid are kept in ``--work``/tiles. Writes eval/results/program_compare.json and
eval/results/program_compare.png (a row per object: input | program | learned | retrieval | truth).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

EVAL = Path(__file__).resolve().parent
ROOT = EVAL.parent
sys.path.insert(0, str(EVAL))
sys.path.insert(0, str(ROOT))

from shape_metrics import surface_metrics  # noqa: E402

RESULTS = EVAL / "results"
CONDITIONS: tuple[str, ...] = ("clean", "augmented", "open3d")
PATHS: tuple[str, ...] = ("program", "learned", "retrieval", "auto")
MOVABLE_LABELS: tuple[str, ...] = ("door", "drawer", "lid")
POINTS = 16_384
MATCH_DISTANCE = 0.25
TILE = 160


# --------------------------------------------------------------------------------------------- inputs


def render_input(asset: Any, renderer: Any, category: str, seed: int) -> tuple[np.ndarray, np.ndarray, Any]:
    """View 0 of the image network's test renders of ``asset``: sRGB over black (uint8), alpha (uint8), camera."""
    from seed3d.program.image_data import ProgramDataConfig, _rng
    from seed3d.render import (
        Lighting,
        RandomViewConfig,
        RenderMesh,
        linear_to_srgb,
        random_views,
        srgb_to_linear,
    )

    cfg = ProgramDataConfig()
    rng = _rng(category, seed, "views")  # the stream render_views draws the test split's views from
    mesh = RenderMesh.from_asset(asset)
    view_cfg = RandomViewConfig(elevation_deg=cfg.elevation_deg, azimuth_deg=cfg.azimuth_deg,
                                focal_mm=cfg.focal_mm, distance_jitter=cfg.distance_jitter)
    cams = random_views(mesh, cfg.views, seed=int(rng.integers(2**31)), width=cfg.resolution, config=view_cfg)
    lighting = Lighting.random(int(rng.integers(2**31)), background=(0.0, 0.0, 0.0))
    rgba = renderer.render_image(mesh, cams[0], lighting, supersample=cfg.supersample)
    lin = srgb_to_linear(np.clip(rgba[..., :3], 0.0, 1.0))
    rgb = np.round(np.clip(linear_to_srgb(lin), 0, 1) * 255).astype(np.uint8)
    alpha = np.round(np.clip(rgba[..., 3], 0, 1) * 255).astype(np.uint8)
    return rgb, alpha, cams[0]


def straight_rgba(rgb: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """A render over black (premultiplied) → straight-colour RGBA uint8 (as bench_program_image feeds images)."""
    from bench_program_image import rgba_images

    return rgba_images(rgb[None], alpha[None])[0]


def augmented_photo(rgb: np.ndarray, alpha: np.ndarray, seed: int) -> np.ndarray:
    """The render through ``PhotoAugmenter`` (seeded): an RGB uint8 photo without alpha."""
    from seed3d.program.image import PhotoAugmenter

    photo = PhotoAugmenter()(rgb[None], alpha[None], seed=seed)
    return (photo[0].permute(1, 2, 0).numpy() * 255 + 0.5).astype(np.uint8)


# --------------------------------------------------------------------------------------------- measurements


def asset_mesh(asset: Any) -> Any:
    """All parts of an asset at rest as one mesh."""
    from seed3d.asset import Mesh

    return Mesh.concatenate([p.mesh for p in asset.parts])


def normaliser(asset: Any) -> tuple[np.ndarray, float]:
    """(bounding-box centre, bounding-box diagonal) of an asset at rest."""
    lo, hi = np.asarray(asset.bounds()[0], float), np.asarray(asset.bounds()[1], float)
    return (lo + hi) / 2, max(float(np.linalg.norm(hi - lo)), 1e-9)


def movable_count(asset: Any) -> int:
    """Movable joints whose child part is a door, drawer or lid."""
    labels = {p.name: p.label for p in asset.parts}
    return sum(1 for j in asset.joints if j.movable and labels.get(j.child) in MOVABLE_LABELS)


def surface(asset: Any, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``POINTS`` area-uniform points and normals over the asset's parts, normalised (``normaliser``)."""
    centre, diag = normaliser(asset)
    p, n, _ = asset_mesh(asset).sample_surface(POINTS, seed=seed)
    return (np.asarray(p) - centre) / diag, np.asarray(n)


def _joint_rows(asset: Any) -> list[dict[str, Any]]:
    centre, diag = normaliser(asset)
    out = []
    for j in asset.joints:
        if not j.movable:
            continue
        lo, hi = asset.part(j.child).mesh.bounds
        out.append({"type": j.type, "axis": np.asarray(j.unit_axis, float), "origin": (np.asarray(j.origin) - centre)
                    / diag, "child": ((np.asarray(lo) + np.asarray(hi)) / 2 - centre) / diag,
                    "label": asset.part(j.child).label})
    return out


def joint_errors(truth: Any, pred: Any) -> dict[str, Any]:
    """Movable joints of ``pred`` matched to the truth's (see the module doc) and their errors."""
    from scipy.optimize import linear_sum_assignment

    from seed3d.articulation._geometry import axis_angle, line_distance

    t, p = _joint_rows(truth), _joint_rows(pred)
    out: dict[str, Any] = {"truth": len(t), "predicted": len(p), "matched": 0}
    if t and p:
        cost = np.array([[float(np.linalg.norm(a["child"] - b["child"])) for b in p] for a in t])
        rows, cols = linear_sum_assignment(cost)
        pairs = [(t[r], p[c]) for r, c in zip(rows, cols, strict=True) if cost[r, c] <= MATCH_DISTANCE]
    else:
        pairs = []
    out["matched"] = len(pairs)
    out["missed"] = len(t) - len(pairs)
    out["spurious"] = len(p) - len(pairs)
    if pairs:
        out["type_ok"] = [a["type"] == b["type"] for a, b in pairs]
        out["axis_err_deg"] = [round(math.degrees(axis_angle(a["axis"], b["axis"])), 3) for a, b in pairs]
        rot = ("revolute", "continuous")
        out["pivot_err"] = [round(float(line_distance(a["origin"], a["axis"], b["origin"], b["axis"])), 4)
                            for a, b in pairs if a["type"] in rot and b["type"] in rot]
    return out


def silhouette_iou(truth: Any, pred: Any, camera: Any, renderer: Any) -> float:
    """IoU of the truth's mask and the prediction's (moved onto the truth's box centre and diagonal) from
    ``camera``."""
    from seed3d.render import RenderMesh

    tc, td = normaliser(truth)
    pc, pd = normaliser(pred)
    m = np.eye(4)
    m[:3, :3] *= td / pd
    m[:3, 3] = tc - pc * td / pd
    moved = RenderMesh.from_meshes([p.mesh.transformed(m) for p in pred.parts], [p.material for p in pred.parts],
                                   [p.name for p in pred.parts])
    a = renderer.render(RenderMesh.from_asset(truth), camera, buffers=("mask",)).mask > 0
    b = renderer.render(moved, camera, buffers=("mask",)).mask > 0
    union = np.logical_or(a, b).sum()
    return 1.0 if union == 0 else float(np.logical_and(a, b).sum() / union)


def score(truth: Any, truth_pts: tuple[np.ndarray, np.ndarray], pred: Any, camera: Any, renderer: Any
          ) -> dict[str, Any]:
    """Every metric of one output against the truth."""
    pp, pn = surface(pred, seed=1)
    geo = surface_metrics(pp, pn, *truth_pts, taus=(0.02, 0.05))
    out: dict[str, Any] = {"f@0.05": round(geo["f@0.05"], 4), "f@0.02": round(geo["f@0.02"], 4),
                           "chamfer_l1": round(geo["chamfer_l1"], 5)}
    out["movable_count"] = movable_count(pred)
    out["count_exact"] = out["movable_count"] == movable_count(truth)
    out["parts"] = len(pred.parts)
    out["joints"] = joint_errors(truth, pred)
    out["silhouette_iou"] = round(silhouette_iou(truth, pred, camera, renderer), 4)
    return out


def tile(asset: Any, renderer: Any) -> np.ndarray:
    """A 3/4 view of an asset in its own materials over white."""
    from seed3d.render import Lighting, RenderMesh, orbit_camera

    mesh = RenderMesh.from_asset(asset)
    cam = orbit_camera(mesh, 35.0, 25.0, TILE)
    rgba = renderer.render_image(mesh, cam, Lighting())
    rgb = rgba[..., :3] * rgba[..., 3:] + (1 - rgba[..., 3:])
    return (np.clip(rgb, 0, 1) * 255).astype(np.uint8)


def input_tile(image: np.ndarray) -> np.ndarray:
    """An input image as RGB over white."""
    if image.shape[-1] == 4:
        a = image[..., 3:].astype(np.float32) / 255.0
        return (image[..., :3] * a + 255 * (1 - a)).astype(np.uint8)
    return image


# --------------------------------------------------------------------------------------------- retrieval


class Retrieval:
    """Image retrieval over training shapes by the stage-1 conditioner's pooled image vector (bench_geometry's)."""

    def __init__(self, generator: Any, per_category: int, cache: Path) -> None:
        import torch

        from seed3d import synth
        from seed3d.condition.image import preprocess_rgba, to_tensor
        from seed3d.render import get_renderer
        from seed3d.synth.dataset import DatasetConfig, _render

        self.gen = generator
        cats = list(DatasetConfig().category_list())
        count = per_category * len(cats)
        self.index = list(range(count))  # sample i of the train split: category i mod 27, seed i
        self.categories = [cats[i % len(cats)] for i in self.index]
        key = cache / f"gallery_{count}.npz"
        if key.is_file():
            self.vectors = torch.from_numpy(np.load(key)["vectors"])
        else:
            renderer = get_renderer("moderngl")
            size = generator.conditioner.image_size
            feats = []
            for i, cat in zip(self.index, self.categories, strict=True):
                asset = synth.generate(cat, i)
                views = _render(asset, asset.name, DatasetConfig(), renderer)
                img = to_tensor([preprocess_rgba(views["cond_rgb"][0], views["cond_alpha"][0],
                                                 views["cond_background"][0], size=size)])
                with torch.no_grad():
                    feats.append(generator.conditioner.image_encoder(img).pooled)
            renderer.close()
            self.vectors = torch.nn.functional.normalize(torch.cat(feats), dim=-1)
            cache.mkdir(parents=True, exist_ok=True)
            np.savez(key, vectors=self.vectors.numpy())

    def __call__(self, image: np.ndarray) -> tuple[Any, dict[str, Any]]:
        """The nearest training object of an image, and the seconds spent."""
        import torch

        from seed3d import synth
        from seed3d.condition.image import preprocess_image, to_tensor

        t0 = time.perf_counter()
        x = to_tensor(preprocess_image(image, size=self.gen.conditioner.image_size))
        with torch.no_grad():
            v = torch.nn.functional.normalize(self.gen.conditioner.image_encoder(x).pooled, dim=-1)[0]
        j = int((self.vectors @ v).argmax())
        search = time.perf_counter() - t0
        t0 = time.perf_counter()
        asset = synth.generate(self.categories[j], self.index[j])
        return asset, {"retrieved": f"{self.categories[j]}/{self.index[j]}", "category": self.categories[j],
                       "timings": {"retrieval": round(search, 3), "build": round(time.perf_counter() - t0, 3)}}


# --------------------------------------------------------------------------------------------- one item


def run_item(pipe: Any, retrieval: Any, category: str, seed: int, condition: str, learned: bool,
             args: argparse.Namespace, renderers: dict[str, Any], tiles: Path) -> dict[str, Any]:
    """Every path on one input image; the record of the item (tiles written to ``tiles``)."""
    from seed3d import synth
    from seed3d.pipeline import PipelineOptions
    from seed3d.program.image_data import asset_labels
    from seed3d.scene.image import save_png

    truth = synth.generate(category, seed)
    backend = "open3d" if condition == "open3d" else "moderngl"
    rgb, alpha, camera = render_input(truth, renderers[backend], category, seed)
    if condition == "augmented":
        image = augmented_photo(rgb, alpha, seed=args.aug_seed + seed * 100 + list(synth.CATEGORIES).index(category))
    else:
        image = straight_rgba(rgb, alpha)
    lab = asset_labels(truth)
    item_id = f"{category}/{seed}/{condition}"
    rec: dict[str, Any] = {"id": item_id, "category": category, "seed": seed, "condition": condition,
                           "truth": {"movable_count": movable_count(truth),
                                     "attributes_count": lab.doors + lab.drawers + lab.lids,
                                     "parts": len(truth.parts), "size_m": list(lab.size_m)}}
    truth_pts = surface(truth, seed=0)
    r = renderers["moderngl"]
    stem = item_id.replace("/", "_")
    save_png(tiles / f"{stem}_input.png", input_tile(image))
    save_png(tiles / f"{stem}_truth.png", tile(truth, r))
    outputs: dict[str, Any] = {}

    def run(path: str, fn: Any) -> None:
        try:
            t0 = time.perf_counter()
            asset, extra = fn()
            wall = time.perf_counter() - t0
            row = {**extra, "seconds": round(wall, 3), **score(truth, truth_pts, asset, camera, r)}
            outputs[path] = asset
            save_png(tiles / f"{stem}_{path}.png", tile(asset, r))
        except Exception as exc:  # one failing path is a recorded failure, never the end of the run
            row = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc(limit=3)[-600:]}
        rec[path] = row

    def program() -> tuple[Any, dict[str, Any]]:
        asset = pipe(image=image, generator="program", seed=0)
        prog = asset.metadata.get("program", {})
        cat = prog.get("category")
        return asset, {"category": cat, "category_ok": cat == category, "confidence": prog.get("confidence"),
                       "timings": asset.metadata.get("timings", {})}

    def learned_path() -> tuple[Any, dict[str, Any]]:
        asset = pipe(image=image, generator="learned", seed=0, stages=("geometry", "parts", "articulation"),
                     steps=args.steps, resolution=args.resolution, target_faces=args.target_faces)
        timings = {k: v for k, v in asset.metadata.get("timings", {}).items() if isinstance(v, int | float)}
        return asset, {"timings": timings}

    def retrieve() -> tuple[Any, dict[str, Any]]:
        asset, extra = retrieval(image)
        extra["category_ok"] = extra["category"] == category
        return asset, extra

    run("program", program)
    if learned:
        run("learned", learned_path)
    if retrieval is not None:
        run("retrieval", retrieve)
    # auto: the pipeline's own decision on this image
    prog, why = pipe.choose_program(image, None, PipelineOptions(generator="auto", seed=0))
    took = "program" if prog is not None else "learned"
    rec["auto"] = {"took": took, "why": why}
    source = rec.get(took)
    if source is not None and "error" not in source:
        rec["auto"].update({k: source[k] for k in ("f@0.05", "f@0.02", "movable_count", "count_exact",
                                                  "silhouette_iou", "category_ok") if k in source})
    if "learned" in rec and "error" not in rec["learned"] and "f@0.05" in rec["auto"]:
        rec["auto_vs_learned"] = {
            "f@0.05": round(rec["auto"]["f@0.05"] - rec["learned"]["f@0.05"], 4),
            "count_not_worse": bool(rec["auto"]["count_exact"] or not rec["learned"]["count_exact"]),
            "f_not_worse": bool(rec["auto"]["f@0.05"] >= rec["learned"]["f@0.05"] - 1e-9)}
    return rec


# --------------------------------------------------------------------------------------------- summary


def _mean(xs: list[float]) -> float | None:
    return round(float(np.mean(xs)), 4) if xs else None


def summarise_path(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Means of one path's rows (errors counted, not averaged)."""
    ok = [r for r in rows if "error" not in r]
    out: dict[str, Any] = {"inputs": len(rows), "failed": len(rows) - len(ok)}
    if not ok:
        return out
    if any("category_ok" in r for r in ok):
        out["category_accuracy"] = _mean([float(r["category_ok"]) for r in ok if "category_ok" in r])
    for k in ("f@0.05", "f@0.02", "chamfer_l1", "silhouette_iou"):
        out[k] = _mean([r[k] for r in ok])
    out["count_exact"] = _mean([float(r["count_exact"]) for r in ok])
    j = [r["joints"] for r in ok]
    out["joints"] = {"truth": sum(x["truth"] for x in j), "predicted": sum(x["predicted"] for x in j),
                     "matched": sum(x["matched"] for x in j), "missed": sum(x["missed"] for x in j),
                     "spurious": sum(x["spurious"] for x in j),
                     "type_accuracy_matched": _mean([float(t) for x in j for t in x.get("type_ok", [])]),
                     "axis_err_deg_mean": _mean([a for x in j for a in x.get("axis_err_deg", [])]),
                     "pivot_err_mean": _mean([a for x in j for a in x.get("pivot_err", [])])}
    stages: dict[str, list[float]] = {}
    for r in ok:
        for k, v in r.get("timings", {}).items():
            if isinstance(v, int | float):
                stages.setdefault(k, []).append(float(v))
    out["seconds_per_stage_mean"] = {k: round(float(np.mean(v)), 3) for k, v in stages.items()}
    out["seconds_wall_mean"] = _mean([r["seconds"] for r in ok])
    return out


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per condition and path; auto against learned."""
    out: dict[str, Any] = {}
    for cond in [*CONDITIONS, "all"]:
        sel = [r for r in records if cond in ("all", r["condition"])]
        if not sel:
            continue
        out[cond] = {"items": len(sel)}
        for path in PATHS:
            rows = [r[path] for r in sel if path in r]
            if path == "auto":
                out[cond]["auto"] = {"took_program": sum(r["took"] == "program" for r in rows),
                                     "took_learned": sum(r["took"] == "learned" for r in rows)}
                scored = [r for r in rows if "f@0.05" in r]
                if scored:
                    out[cond]["auto"].update(
                        scored=len(scored), **{k: _mean([float(r[k]) for r in scored])
                                               for k in ("f@0.05", "f@0.02", "count_exact", "silhouette_iou")})
                continue
            if rows:
                out[cond][path] = summarise_path(rows)
        cmp = [r["auto_vs_learned"] for r in sel if "auto_vs_learned" in r]
        if cmp:
            learned_sel = [r for r in sel if "auto_vs_learned" in r]
            out[cond]["auto_vs_learned"] = {
                "inputs": len(cmp), "f@0.05_not_worse": sum(c["f_not_worse"] for c in cmp),
                "count_not_worse": sum(c["count_not_worse"] for c in cmp),
                "both_not_worse": sum(c["f_not_worse"] and c["count_not_worse"] for c in cmp),
                "f@0.05_auto_mean": _mean([r["auto"]["f@0.05"] for r in learned_sel]),
                "f@0.05_learned_mean": _mean([r["learned"]["f@0.05"] for r in learned_sel]),
                "count_exact_auto": _mean([float(r["auto"]["count_exact"]) for r in learned_sel]),
                "count_exact_learned": _mean([float(r["learned"]["count_exact"]) for r in learned_sel]),
                "worse_items": [r["id"] for r in learned_sel if not (r["auto_vs_learned"]["f_not_worse"]
                                                                     and r["auto_vs_learned"]["count_not_worse"])]}
    return out


def grid(records: list[dict[str, Any]], tiles: Path, path: Path, rows: int) -> int:
    """input | program | learned | retrieval | truth, a row per item (items with a learned output first)."""
    from PIL import Image

    from seed3d.scene.image import picture_grid, save_png

    chosen = [r for r in records if "learned" in r and "error" not in r["learned"]]
    chosen += [r for r in records if r not in chosen]
    chosen = chosen[:rows]
    images, captions = [], []
    blank = np.full((TILE, TILE, 3), 255, np.uint8)
    for r in chosen:
        stem = r["id"].replace("/", "_")
        for col in ("input", "program", "learned", "retrieval", "truth"):
            f = tiles / f"{stem}_{col}.png"
            images.append(np.asarray(Image.open(f).convert("RGB")) if f.is_file() else blank)
            if col == "input":
                captions.append(f"{r['category']} {r['seed']} {r['condition']}")
            elif col == "truth":
                captions.append(f"truth: {r['truth']['movable_count']} movable")
            elif col in r and "error" not in r[col]:
                x = r[col]
                cat = f"{x['category']} " if x.get("category") else ""
                captions.append(f"{col}: {cat}F {x['f@0.05']:.2f} n={x['movable_count']}")
            else:
                captions.append(f"{col}: {'failed' if col in r else 'not run'}")
    if images:
        save_png(path, picture_grid(images, columns=5, tile=TILE + 40, captions=captions))
    return len(chosen)


# --------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and write the results."""
    from tqdm import tqdm

    from seed3d import synth

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--categories", nargs="+", default=list(synth.BASE_CATEGORIES))
    ap.add_argument("--seeds", nargs="+", type=int, default=[10000], help="held-out seeds (>= 10000)")
    ap.add_argument("--conditions", nargs="+", default=list(CONDITIONS), choices=CONDITIONS)
    ap.add_argument("--learned-conditions", nargs="*", default=["clean", "augmented"], choices=CONDITIONS,
                    help="conditions on which the (slow) learned path runs")
    ap.add_argument("--learned-categories", nargs="*", default=None,
                    help="categories on which the learned path runs (default: all of --categories)")
    ap.add_argument("--no-learned", action="store_true", help="skip the learned path")
    ap.add_argument("--no-retrieval", action="store_true", help="skip the retrieval baseline")
    ap.add_argument("--limit", type=int, help="first N items only")
    ap.add_argument("--steps", type=int, default=10, help="learned path: flow steps")
    ap.add_argument("--resolution", type=int, default=64, help="learned path: extraction grid")
    ap.add_argument("--target-faces", type=int, default=5000, help="learned path: faces after decimation")
    ap.add_argument("--gallery-per-category", type=int, default=4, help="retrieval: training objects per category")
    ap.add_argument("--aug-seed", type=int, default=1234, help="seed of the photo augmentations")
    ap.add_argument("--grid-rows", type=int, default=16)
    ap.add_argument("--work", type=Path, default=Path("/tmp/seed3d_program_compare"),
                    help="items.jsonl (resume), tiles and the retrieval gallery cache")
    ap.add_argument("--out", type=Path, default=RESULTS / "program_compare.json")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("seed3d.condition.image").setLevel(logging.ERROR)
    bad = [c for c in args.categories if c not in synth.CATEGORIES]
    if bad:
        ap.error(f"unknown categories {bad}")
    if any(s < 10000 for s in args.seeds):
        ap.error("seeds below 10000 are not held out from every model")
    import torch

    from seed3d.pipeline import Seed3DPipeline
    from seed3d.render import get_renderer

    torch.manual_seed(0)
    settings = {k: getattr(args, k) for k in ("steps", "resolution", "target_faces", "gallery_per_category",
                                              "aug_seed")}
    args.work.mkdir(parents=True, exist_ok=True)
    tiles = args.work / "tiles"
    tiles.mkdir(exist_ok=True)
    log_path = args.work / "items.jsonl"
    done: dict[str, dict[str, Any]] = {}
    if log_path.is_file():
        for line in log_path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                if rec.get("settings") == settings:
                    done[rec["id"]] = rec
    learned_cats = set(args.learned_categories or args.categories)
    items = [(c, s, cond) for cond in args.conditions for s in args.seeds for c in args.categories]
    if args.limit:
        items = items[:args.limit]
    pipe = Seed3DPipeline.from_pretrained()
    renderers = {"moderngl": get_renderer("moderngl"), "open3d": get_renderer("open3d")}
    t0 = time.perf_counter()
    retrieval = None if args.no_retrieval else Retrieval(pipe.geometry(), args.gallery_per_category, args.work)
    gallery_s = round(time.perf_counter() - t0, 1)
    records = []
    bar = tqdm(items, desc="items", unit="item")
    for c, s, cond in bar:
        key = f"{c}/{s}/{cond}"
        bar.set_postfix_str(key)
        if key in done:
            records.append(done[key])
            continue
        learned = (not args.no_learned) and cond in args.learned_conditions and c in learned_cats
        rec = run_item(pipe, retrieval, c, s, cond, learned, args, renderers, tiles)
        rec["settings"] = settings
        with log_path.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        records.append(rec)
    for r in renderers.values():
        r.close()
    summary = summarise(records)
    png = args.out.with_suffix(".png")
    rows = grid(records, tiles, png, args.grid_rows)
    command = "python eval/bench_program_compare.py " + " ".join(argv if argv is not None else sys.argv[1:])
    doc = {"benchmark": "image -> asset: program path vs learned path vs retrieval baseline",
           "command": command.strip(), "settings": settings, "categories": args.categories, "seeds": args.seeds,
           "conditions": args.conditions, "learned_conditions": [] if args.no_learned else args.learned_conditions,
           "learned_categories": sorted(learned_cats) if not args.no_learned else [],
           "learned_items": [r["id"] for r in records if "learned" in r],  # resumed items keep their earlier runs
           "retrieval_gallery": None if retrieval is None else {"objects": len(retrieval.index),
                                                                "per_category": args.gallery_per_category,
                                                                "build_seconds": gallery_s},
           "normalisation": "each asset on its own: bounding-box centre to the origin, bounding-box diagonal to 1; "
                            "no rotation search (canonical frame, +Z up, front +X); 16,384 points over all parts",
           "platform": platform.platform(), "torch_threads": torch.get_num_threads(),
           "seconds_this_invocation": round(time.perf_counter() - t0, 1), "items_resumed": len(done),
           "summary": summary, "picture_grid": str(png.name),
           "grid_rows": rows, "items": records}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    for cond, s in summary.items():
        for path in ("program", "learned", "retrieval"):
            if path in s:
                x = s[path]
                print(f"{cond:9s} {path:9s} n={x['inputs']} cat={x.get('category_accuracy')} "
                      f"count={x.get('count_exact')} F@0.05={x.get('f@0.05')} F@0.02={x.get('f@0.02')} "
                      f"sil={x.get('silhouette_iou')} s={x.get('seconds_wall_mean')}")
        if "auto" in s:
            print(f"{cond:9s} auto      {s['auto']}")
        if "auto_vs_learned" in s:
            print(f"{cond:9s} auto vs learned {s['auto_vs_learned']}")
    print(f"wrote {args.out} and {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
