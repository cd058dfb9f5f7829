"""Part segmentation on the held-out test split: mIoU of automatic and count-given segmentation, label accuracy.

Run: ``python eval/bench_parts.py [--model DIR] [--data data/synth] [--limit N] [--categories a,b]
[--per-category N] [--mesh] [--segment FIELD=VALUE ...]`` → prints a per-category table, writes
eval/results/parts.json and eval/results/parts_examples.png (named after ``--out``: truth | prediction for a few
shapes); ``--segment`` overrides ``SegmentConfig`` fields (e.g. ``--segment label_prompts=0`` for the refinement
without extra prompts).

``--mesh`` evaluates what ``seed3d articulate`` does instead: each test asset is rebuilt from its (category,
seed), its parts merged into one shell (``seed3d.parts.shell``), and ``Segmenter.segment_mesh`` cuts the shell;
mIoU is over faces weighted by area, against the part nearest each face centre. The model runs once per shell
and its segmentation is scored twice, side by side: as the model and mask cleaning leave it (``baseline``) and
after the geometric refinement (``Segmenter.refine``: smooth patches, connected pieces, protrusions). Results go
under the ``mesh`` key of parts.json (the point results stay) and to eval/results/parts_mesh_examples.png.

Every test sample's surface points (uniform by area on the merged shell of its parts, so the mean IoU is
area-weighted) are segmented twice: automatically, and with the true number of parts given. Predicted parts
are matched one to one to true parts by IoU (Hungarian); mIoU averages over the true parts (a missed part
counts 0). Label accuracy is over matched parts. Build the split first:
``seed3d data build --out data/synth --split test --count 270``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import atomic_file
from seed3d.parts.segment import SegmentConfig, Segmenter, match_parts
from seed3d.parts.train import load_points
from seed3d.pipeline import weights_component

RESULTS = Path(__file__).parent / "results"
PALETTE = np.array([[200, 200, 200], [230, 80, 60], [60, 140, 230], [90, 190, 90], [240, 180, 40], [160, 90, 210],
                    [40, 190, 190], [240, 120, 180], [130, 100, 60], [120, 120, 240], [200, 220, 60], [30, 90, 60]])


def select(data: dict[str, np.ndarray], limit: int | None, categories: list[str] | None,
           per_category: int | None) -> list[int]:
    """Indices of the samples to evaluate: of ``categories`` (all when None), the first ``per_category`` of each,
    the first ``limit`` overall."""
    out, seen = [], {}
    for i, c in enumerate(data["category"].tolist()):
        if categories is not None and c not in categories:
            continue
        if per_category is not None and seen.get(c, 0) >= per_category:
            continue
        seen[c] = seen.get(c, 0) + 1
        out.append(i)
    return out if limit is None else out[:limit]


def evaluate(seg: Segmenter, data: dict[str, np.ndarray], indices: list[int]) -> list[dict[str, Any]]:
    """One row per sample: mIoU (auto and count given), part counts, label accuracy, seconds."""
    labels = seg.model.config.labels
    rows = []
    count = len(indices)
    for n_done, i in enumerate(indices):
        pts, nrm = data["surface_points"][i], data["surface_normals"][i]
        truth = np.unique(data["surface_part"][i].astype(np.int64), return_inverse=True)[1]
        true_labels = [labels[int(data["surface_label"][i][truth == k][0])] for k in range(truth.max() + 1)]
        row: dict[str, Any] = {"category": str(data["category"][i]), "index": i, "true_parts": int(truth.max() + 1)}
        for mode, n in (("auto", None), ("given", int(truth.max() + 1))):
            t0 = time.perf_counter()
            edges = (data["sharp_points"][i], data["sharp_normals"][i], data["sharp_on_edge"][i])
            out = seg.segment_points(pts, nrm, num_parts=n, edges=edges)
            row[f"{mode}_seconds"] = round(time.perf_counter() - t0, 3)
            miou, matching, _ = match_parts(out.part, truth)
            row[f"{mode}_miou"] = miou
            row[f"{mode}_parts"] = len(out.labels)
            hits = [out.labels[p] == true_labels[t] for p, t in matching.items()]
            row[f"{mode}_label_acc"] = float(np.mean(hits)) if hits else 0.0
            if mode == "auto":
                row["_pred"] = out.part
                row["_truth"] = truth
        rows.append(row)
        print(f"\r{n_done + 1}/{count} mIoU auto {np.mean([r['auto_miou'] for r in rows]):.3f} "
              f"given {np.mean([r['given_miou'] for r in rows]):.3f}", end="", flush=True)
    print()
    return rows


def evaluate_mesh(seg: Segmenter, data: dict[str, np.ndarray], indices: list[int], given: bool
                  ) -> list[dict[str, Any]]:
    """One row per asset: face mIoU (area-weighted), part counts and label accuracy of the baseline and the
    refined segmentation of its merged shell, automatic (and with the part count given when ``given``)."""
    from tqdm import tqdm

    from seed3d.parts.shell import merged_shell, nearest_part
    from seed3d.synth import generate

    rows = []
    bar = tqdm(indices, desc="mesh", unit="shell")
    for i in bar:
        category, seed = str(data["category"][i]), int(data["seed"][i])
        asset = generate(category, seed)
        shell, _ = merged_shell(asset)
        row: dict[str, Any] = {"category": category, "seed": seed, "index": i, "true_parts": len(asset.parts)}
        true_labels = [p.label for p in asset.parts]
        for mode, n in (("auto", None), ("given", len(asset.parts))) if given else (("auto", None),):
            t0 = time.perf_counter()
            base = seg.segment_mesh(shell, n)
            t1 = time.perf_counter()
            refined = seg.refine(base, n)
            t2 = time.perf_counter()
            if mode == "auto":
                truth = nearest_part(asset, base.mesh.vertices[base.mesh.faces].mean(axis=1))
                area, _ = base.mesh.face_areas_normals()
                row.update(_truth=truth, _mesh=base.mesh, _base=base.face_part, _refined=refined.face_part)
            row[f"{mode}_seconds"], row[f"{mode}_refine_seconds"] = round(t1 - t0, 3), round(t2 - t1, 3)
            for name, out in (("baseline", base), ("refined", refined)):
                miou, matching, _ = match_parts(out.face_part, truth, area)
                hits = [out.labels[p] == true_labels[t] for p, t in matching.items()]
                row[f"{mode}_{name}_miou"] = miou
                row[f"{mode}_{name}_parts"] = out.num_parts
                row[f"{mode}_{name}_label_acc"] = float(np.mean(hits)) if hits else 0.0
        rows.append(row)
        bar.set_postfix(baseline=f"{np.mean([r['auto_baseline_miou'] for r in rows]):.3f}",
                        refined=f"{np.mean([r['auto_refined_miou'] for r in rows]):.3f}")
    return rows


def summary_mesh(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Means over mesh rows."""
    out: dict[str, Any] = {"samples": len(rows)}
    for key in [k for k in rows[0] if k.endswith(("_miou", "_label_acc", "_seconds"))]:
        out[key] = float(np.mean([r[key] for r in rows]))
    for mode in ("auto", "given"):
        for name in ("baseline", "refined"):
            if f"{mode}_{name}_parts" in rows[0]:
                out[f"{mode}_{name}_parts_exact"] = float(np.mean([r[f"{mode}_{name}_parts"] == r["true_parts"]
                                                                   for r in rows]))
    return out


def picture_mesh(rows: list[dict[str, Any]], path: Path, per_row: int = 3) -> None:
    """A grid of truth | baseline | refined renders of points on the shell, one example per category."""
    from PIL import Image, ImageDraw

    picks, seen = [], set()
    for r in rows:
        if r["category"] not in seen:
            seen.add(r["category"])
            picks.append(r)
    size, cols = 180, per_row
    lines = (len(picks) + cols - 1) // cols
    img = Image.new("RGB", (cols * 3 * size, lines * (size + 16)), "white")
    dr = ImageDraw.Draw(img)
    for k, r in enumerate(picks):
        pts, _, face = r["_mesh"].sample_surface(20000, seed=0)
        lo, hi = pts.min(0), pts.max(0)
        pts = (pts - (lo + hi) / 2) / max(float((hi - lo).max()) / 2, 1e-12) * 0.9
        x, y = (k % cols) * 3 * size, (k // cols) * (size + 16)
        for j, ids in enumerate((r["_truth"], r["_base"], r["_refined"])):
            tile = _splat(pts, PALETTE[ids[face] % len(PALETTE)], size)
            img.paste(Image.fromarray(tile), (x + j * size, y + 16))
        dr.text((x + 4, y + 2), f"{r['category']}: truth | baseline {r['auto_baseline_miou']:.2f} | refined "
                f"{r['auto_refined_miou']:.2f}", fill="black")
    with atomic_file(path) as tmp:
        img.save(tmp, format="PNG")


def _write(out: Path, update: dict[str, Any]) -> None:
    """Merge ``update`` into the JSON document at ``out`` (the other mode's results stay), atomically."""
    doc = json.loads(out.read_text()) if out.is_file() else {}
    doc.update(update)
    with atomic_file(out) as tmp:
        tmp.write_text(json.dumps(doc, indent=2) + "\n")


def _load_ids(root: str) -> dict[str, np.ndarray]:
    """Category and seed of every test sample (all the mesh benchmark needs to rebuild them)."""
    from seed3d.synth.dataset import ShardDataset

    ds = ShardDataset(root, "test", fields=("category", "seed"), cache_shards=1)
    chunks = [ds.load_shard(s) for s in range(len(ds.shards))]
    return {k: np.concatenate([c[k] for c in chunks]) for k in ("category", "seed")}


def main_mesh(args: argparse.Namespace, seg: Segmenter, model_dir: Path, data: dict[str, np.ndarray],
              indices: list[int]) -> None:
    """The mesh benchmark: baseline and refined side by side, per category."""
    seg.config.refine = False  # segment_mesh gives the baseline; Segmenter.refine the refined result
    start = time.perf_counter()
    rows = evaluate_mesh(seg, data, indices, args.given)
    cats = sorted({r["category"] for r in rows})
    per_cat = {c: summary_mesh([r for r in rows if r["category"] == c]) for c in cats}
    overall = summary_mesh(rows)
    head = (f"{'category':16} {'n':>3} {'base mIoU':>9} {'refined':>8} {'base lbl':>8} {'ref lbl':>7} "
            f"{'base #ok':>8} {'ref #ok':>7}")
    lines = [head, "-" * len(head)]
    for c, s in [*per_cat.items(), ("ALL", overall)]:
        lines.append(f"{c:16} {s['samples']:>3} {s['auto_baseline_miou']:>9.3f} {s['auto_refined_miou']:>8.3f} "
                     f"{100 * s['auto_baseline_label_acc']:>7.0f}% {100 * s['auto_refined_label_acc']:>6.0f}% "
                     f"{100 * s['auto_baseline_parts_exact']:>7.0f}% {100 * s['auto_refined_parts_exact']:>6.0f}%")
    text = "\n".join(lines)
    print(text)
    out = Path(args.out)
    _write(out, {"mesh": {
        "benchmark": "part segmentation of merged-shell meshes (segment_mesh), baseline vs geometric refinement",
        "command": "python eval/bench_parts.py --mesh" + (f" --categories {args.categories}" if args.categories
                                                         else "") + (f" --per-category {args.per_category}"
                                                                     if args.per_category else "")
        + (" --given" if args.given else "") + (f" --limit {args.limit}" if args.limit else "")
        + "".join(f" --segment {o}" for o in args.segment),
        "model": str(model_dir), "data": str(args.data), "seconds": round(time.perf_counter() - start, 1),
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
        "overall": overall, "categories": per_cat, "table": text.splitlines(),
        "rows": [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]}})
    picture_mesh(rows, out.with_name("parts_mesh_examples.png"))
    print(f"wrote {out} and {out.with_name('parts_mesh_examples.png')}")


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Means over rows."""
    keys = ("auto_miou", "given_miou", "auto_label_acc", "given_label_acc", "auto_seconds")
    out: dict[str, Any] = {"samples": len(rows), **{k: float(np.mean([r[k] for r in rows])) for k in keys}}
    out["auto_parts_exact"] = float(np.mean([r["auto_parts"] == r["true_parts"] for r in rows]))
    out["auto_parts_error_mean"] = float(np.mean([abs(r["auto_parts"] - r["true_parts"]) for r in rows]))
    return out


def _splat(points: np.ndarray, colour: np.ndarray, size: int) -> np.ndarray:
    """Orthographic view of points in [-1, 1]^3 from the front-right, above; nearer points drawn over farther."""
    a, e = np.radians(35), np.radians(25)
    d = np.array([np.cos(a) * np.cos(e), -np.sin(a) * np.cos(e), np.sin(e)])  # toward the viewer
    right = np.cross(-d, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, -d)
    u = ((points @ right * 0.5 + 0.5) * (size - 1)).round().astype(int)
    v = ((0.5 - points @ up * 0.5) * (size - 1)).round().astype(int)
    img = np.full((size, size, 3), 255, np.uint8)
    order = np.argsort(points @ d)  # far first, near last
    for du in (0, 1):
        for dv in (0, 1):
            img[np.clip(v[order] + dv, 0, size - 1), np.clip(u[order] + du, 0, size - 1)] = colour[order]
    return img


def picture(rows: list[dict[str, Any]], data: dict[str, np.ndarray], path: Path, per_row: int = 4) -> None:
    """A grid of truth | prediction point renders, one example per category (first seen)."""
    from PIL import Image, ImageDraw

    picks, seen = [], set()
    for r in rows:
        if r["category"] not in seen:
            seen.add(r["category"])
            picks.append(r)
    size = 180
    cols = per_row
    lines = (len(picks) + cols - 1) // cols
    img = Image.new("RGB", (cols * 2 * size, lines * (size + 16)), "white")
    dr = ImageDraw.Draw(img)
    for k, r in enumerate(picks):
        pts = data["surface_points"][r["index"]]
        x, y = (k % cols) * 2 * size, (k // cols) * (size + 16)
        for j, ids in enumerate((r["_truth"], r["_pred"])):
            tile = _splat(pts, PALETTE[ids % len(PALETTE)], size)
            img.paste(Image.fromarray(tile), (x + j * size, y + 16))
        dr.text((x + 4, y + 2), f"{r['category']}: truth | auto (mIoU {r['auto_miou']:.2f})", fill="black")
    with atomic_file(path) as tmp:
        img.save(tmp, format="PNG")


def segment_config(overrides: list[str]) -> SegmentConfig:
    """``SegmentConfig`` defaults with ``FIELD=VALUE`` overrides of its int, float and bool fields."""
    cfg = SegmentConfig()
    kinds = {f.name: type(getattr(cfg, f.name)) for f in dataclasses.fields(cfg)}
    for item in overrides:
        name, sep, value = item.partition("=")
        kind = kinds.get(name)
        if not sep or kind not in (int, float, bool):
            raise SystemExit(f"--segment {item!r}: want FIELD=VALUE with an int, float or bool field of SegmentConfig"
                             f" ({', '.join(n for n, k in kinds.items() if k in (int, float, bool))})")
        try:
            parsed = {"true": True, "false": False}[value.lower()] if kind is bool else kind(value)
        except (KeyError, ValueError):
            raise SystemExit(f"--segment {item!r}: {value!r} is not a {kind.__name__}") from None
        setattr(cfg, name, parsed)
    return cfg


def main() -> None:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="segmenter folder (default: the shipped weights)")
    parser.add_argument("--data", default="data/synth", help="built data set with a test split")
    parser.add_argument("--limit", type=int, help="evaluate only the first N selected test samples")
    parser.add_argument("--categories", help="comma-separated categories to evaluate (default: all)")
    parser.add_argument("--per-category", type=int, help="evaluate only the first N samples of each category")
    parser.add_argument("--mesh", action="store_true",
                        help="segment merged-shell meshes (segment_mesh), baseline and geometric refinement")
    parser.add_argument("--given", action="store_true", help="with --mesh: also segment with the part count given")
    parser.add_argument("--segment", action="append", default=[], metavar="FIELD=VALUE",
                        help="override a SegmentConfig field (repeatable), e.g. --segment label_prompts=0")
    parser.add_argument("--out", default=str(RESULTS / "parts.json"))
    args = parser.parse_args()
    model_dir = Path(args.model) if args.model else weights_component("part_segmenter")
    seg = Segmenter.from_pretrained(model_dir, segment_config(args.segment))
    data = _load_ids(args.data) if args.mesh else load_points(args.data, "test")
    cats = args.categories.split(",") if args.categories else None
    indices = select(data, args.limit, cats, args.per_category)
    if not indices:
        raise SystemExit(f"no test samples of {cats}")
    if args.mesh:
        main_mesh(args, seg, model_dir, data, indices)
        return
    start = time.perf_counter()
    rows = evaluate(seg, data, indices)
    cats = sorted({r["category"] for r in rows})
    per_cat = {c: summary([r for r in rows if r["category"] == c]) for c in cats}
    overall = summary(rows)
    head = f"{'category':16} {'n':>3} {'mIoU auto':>9} {'mIoU given':>10} {'labels':>6} {'#parts ok':>9}"
    lines = [head, "-" * len(head)]
    for c, s in [*per_cat.items(), ("ALL", overall)]:
        lines.append(f"{c:16} {s['samples']:>3} {s['auto_miou']:>9.3f} {s['given_miou']:>10.3f} "
                     f"{100 * s['auto_label_acc']:>5.0f}% {100 * s['auto_parts_exact']:>8.0f}%")
    text = "\n".join(lines)
    print(text)
    doc = {"benchmark": "part segmentation of merged-shell surface points, synth test split",
           "command": " ".join(["python eval/bench_parts.py", *sys.argv[1:]]),
           "model": str(model_dir), "data": str(args.data),
           "seconds": round(time.perf_counter() - start, 1),
           "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
           "overall": overall, "categories": per_cat, "table": text.splitlines(),
           "rows": [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]}
    out = Path(args.out)
    _write(out, doc)
    picture(rows, data, out.with_name(f"{out.stem}_examples.png"))
    print(f"wrote {out} and {out.with_name(f'{out.stem}_examples.png')}")


if __name__ == "__main__":
    main()
