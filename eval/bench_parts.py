"""Part segmentation on the held-out test split: mIoU of automatic and count-given segmentation, label accuracy.

Run: ``python eval/bench_parts.py [--model DIR] [--data data/synth] [--limit N]`` → prints a per-category table,
writes eval/results/parts.json and eval/results/parts_examples.png (truth | prediction for a few shapes).

Every test sample's surface points (uniform by area on the merged shell of its parts, so the mean IoU is
area-weighted) are segmented twice: automatically, and with the true number of parts given. Predicted parts
are matched one to one to true parts by IoU (Hungarian); mIoU averages over the true parts (a missed part
counts 0). Label accuracy is over matched parts. Build the split first:
``seed3d data build --out data/synth --split test --count 270``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import atomic_file
from seed3d.parts.segment import Segmenter, match_parts
from seed3d.parts.train import load_points
from seed3d.pipeline import weights_component

RESULTS = Path(__file__).parent / "results"
PALETTE = np.array([[200, 200, 200], [230, 80, 60], [60, 140, 230], [90, 190, 90], [240, 180, 40], [160, 90, 210],
                    [40, 190, 190], [240, 120, 180], [130, 100, 60], [120, 120, 240], [200, 220, 60], [30, 90, 60]])


def evaluate(seg: Segmenter, data: dict[str, np.ndarray], limit: int | None) -> list[dict[str, Any]]:
    """One row per sample: mIoU (auto and count given), part counts, label accuracy, seconds."""
    labels = seg.model.config.labels
    rows = []
    count = len(data["surface_points"]) if limit is None else min(limit, len(data["surface_points"]))
    for i in range(count):
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
        print(f"\r{i + 1}/{count} mIoU auto {np.mean([r['auto_miou'] for r in rows]):.3f} "
              f"given {np.mean([r['given_miou'] for r in rows]):.3f}", end="", flush=True)
    print()
    return rows


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


def main() -> None:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="segmenter folder (default: the shipped weights)")
    parser.add_argument("--data", default="data/synth", help="built data set with a test split")
    parser.add_argument("--limit", type=int, help="evaluate only the first N test samples")
    parser.add_argument("--out", default=str(RESULTS / "parts.json"))
    args = parser.parse_args()
    model_dir = Path(args.model) if args.model else weights_component("part_segmenter")
    seg = Segmenter.from_pretrained(model_dir)
    data = load_points(args.data, "test")
    start = time.perf_counter()
    rows = evaluate(seg, data, args.limit)
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
           "model": str(model_dir), "data": str(args.data),
           "seconds": round(time.perf_counter() - start, 1),
           "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
           "overall": overall, "categories": per_cat, "table": text.splitlines(),
           "rows": [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]}
    out = Path(args.out)
    with atomic_file(out) as tmp:
        tmp.write_text(json.dumps(doc, indent=2) + "\n")
    picture(rows, data, out.with_name("parts_examples.png"))
    print(f"wrote {out} and {out.with_name('parts_examples.png')}")


if __name__ == "__main__":
    main()
