"""Image → program benchmark: ProgramNet on renders of held-out seeds, clean and photo-augmented.

    python eval/bench_program_image.py                                  # weights/program-image on data/program/test
    python eval/bench_program_image.py --model runs/program-image/model --limit 200

Inputs are the test split of ``seed3d.program.image_data`` (seeds 10000-10039 by default; training used seeds
0-199, so no test object was seen), every cached view of every object:

- **clean**: the render as an RGBA image through the inference path (``preprocess_image``: alpha, recentre, over
  white);
- **augmented**: the same views through ``PhotoAugmenter`` (colour, loose / partial crops, tilt, plain, textured
  and cluttered backgrounds, occluders, blur, noise, JPEG; fixed seed) as 8-bit RGB photos, then through the same
  ``preprocess_image`` (a plain border is removed, a busy one kept whole).

Measured per image: category accuracy (all 27 classes; and over the 26 in-category objects, freeform left out),
top-3 accuracy, the share of images above confidence thresholds and their accuracy (for ``auto``); exact doors,
drawers, lids and movable-part total (doors + drawers + lids) of the raw heads; the same counts of the asset the
predicted program builds (``count_params`` → ``synth.generate``) against the truth; proportion error
|predicted / true - 1| of width/height and depth/height; seconds per image. Results:
eval/results/program_image.json and the confusion matrices eval/results/program_image_confusion.png.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from seed3d.condition.image import preprocess_image, to_tensor  # noqa: E402
from seed3d.program.image import (  # noqa: E402
    COUNT_HEADS,
    PhotoAugmenter,
    ProgramNet,
    count_params,
    predict_batch,
)
from seed3d.program.image_data import asset_labels, data_manifest, load_program_data  # noqa: E402


def rgba_images(rgb: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Cached views (sRGB over black, alpha) → straight-colour RGBA uint8 images."""
    a = alpha.astype(np.float32)[..., None] / 255.0
    lin = (rgb.astype(np.float32) / 255.0)
    lin = np.where(lin <= 0.04045, lin / 12.92, ((lin + 0.055) / 1.055) ** 2.4)
    straight = np.where(a > 0, lin / np.maximum(a, 1e-4), 0.0).clip(0, 1)
    srgb = np.where(straight <= 0.0031308, straight * 12.92, 1.055 * straight ** (1 / 2.4) - 0.055)
    return np.concatenate([np.round(srgb * 255), alpha[..., None]], -1).astype(np.uint8)


def preprocess_all(images: np.ndarray) -> tuple[torch.Tensor, float, dict[str, int]]:
    """``preprocess_image`` of every image: (N, 3, 128, 128), seconds per image, how the object was found."""
    t0 = time.perf_counter()
    pre = [preprocess_image(im) for im in images]
    methods: dict[str, int] = {}
    for p in pre:
        methods[p.method] = methods.get(p.method, 0) + 1
    return to_tensor(pre), (time.perf_counter() - t0) / max(len(pre), 1), methods


def built_counts(category: str, counts: dict[str, int], cache: dict[Any, tuple[int, int, int]]
                 ) -> tuple[int, int, int]:
    """Doors, drawers and lids of the asset the predicted program builds (seed 0)."""
    from seed3d import synth

    params, _ = count_params(category, counts)
    key = (category, json.dumps(params, sort_keys=True, default=str))
    if key not in cache:
        lab = asset_labels(synth.generate(category, 0, params))
        cache[key] = (lab.doors, lab.drawers, lab.lids)
    return cache[key]


def evaluate(model: ProgramNet, images: torch.Tensor, truth: dict[str, np.ndarray], cats: list[str],
             batch: int = 64) -> dict[str, Any]:
    """Every metric on one set of preprocessed images."""
    t0 = time.perf_counter()
    preds = []
    for i in range(0, images.shape[0], batch):
        preds += predict_batch(model, images[i:i + batch])
    infer = (time.perf_counter() - t0) / max(len(preds), 1)
    true_cat = truth["category"]
    pred_cat = np.array([cats.index(p.categories[0][0]) for p in preds])
    top3 = np.array([true_cat[i] in [cats.index(c) for c, _ in p.categories[:3]] for i, p in enumerate(preds)])
    in_cat = np.array([cats[c] != "freeform" for c in true_cat])
    out: dict[str, Any] = {"images": len(preds), "seconds_per_image_network": round(infer, 4)}
    correct = pred_cat == true_cat
    out["category_accuracy"] = round(float(correct.mean()), 4)
    out["category_accuracy_in_category"] = round(float(correct[in_cat].mean()), 4)
    out["top3_accuracy"] = round(float(top3.mean()), 4)
    conf = np.array([p.categories[0][1] for p in preds])
    out["by_confidence"] = {f"{t:.2f}": {"share": round(float((conf >= t).mean()), 4),
                                         "accuracy": round(float(correct[conf >= t].mean()), 4) if (conf >= t).any()
                                         else None}
                            for t in (0.5, 0.7, 0.8, 0.9, 0.95)}
    heads = {k: np.array([p.counts[k] for p in preds]) for k in COUNT_HEADS}
    exact = {k: heads[k] == truth[k] for k in COUNT_HEADS}
    for k in COUNT_HEADS:
        out[f"{k}_exact"] = round(float(exact[k].mean()), 4)
    total_true = sum(truth[k].astype(int) for k in COUNT_HEADS)
    total_pred = sum(heads[k] for k in COUNT_HEADS)
    out["movable_total_exact"] = round(float((total_true == total_pred).mean()), 4)
    out["movable_all_exact"] = round(float(np.all([exact[k] for k in COUNT_HEADS], 0).mean()), 4)
    cache: dict[Any, tuple[int, int, int]] = {}
    built = np.array([built_counts(p.categories[0][0], p.counts, cache) for p in preds])
    truth_counts = np.stack([truth[k] for k in COUNT_HEADS], 1)
    out["built_movable_total_exact"] = round(float((built.sum(1) == truth_counts.sum(1)).mean()), 4)
    out["built_movable_all_exact"] = round(float((built == truth_counts).all(1).mean()), 4)
    out["built_movable_total_exact_when_category_right"] = round(
        float((built.sum(1) == truth_counts.sum(1))[correct].mean()), 4)
    ratios = np.array([[p.proportions["width/height"], p.proportions["depth/height"]] for p in preds])
    size = truth["size_m"].astype(np.float64)
    true_ratios = np.stack([size[:, 0] / size[:, 2], size[:, 1] / size[:, 2]], 1)
    err = np.abs(ratios / true_ratios - 1)
    out["proportion_error"] = {"width/height": {"median": round(float(np.median(err[:, 0])), 4),
                                                "mean": round(float(err[:, 0].mean()), 4)},
                               "depth/height": {"median": round(float(np.median(err[:, 1])), 4),
                                                "mean": round(float(err[:, 1].mean()), 4)}}
    per_cat = {}
    for c, name in enumerate(cats):
        m = true_cat == c
        if m.any():
            per_cat[name] = {"n": int(m.sum()), "category": round(float(correct[m].mean()), 3),
                             "movable_total_exact": round(float((total_true == total_pred)[m].mean()), 3),
                             "built_movable_total_exact": round(float((built.sum(1) == truth_counts.sum(1))[m].mean()),
                                                                3)}
    out["per_category"] = per_cat
    confusion = np.zeros((len(cats), len(cats)), np.int64)
    np.add.at(confusion, (true_cat, pred_cat), 1)
    out["confusion"] = confusion.tolist()
    return out


def plot_confusion(results: dict[str, Any], cats: list[str], path: Path) -> None:
    """Row-normalised confusion matrices of the clean and augmented sets, side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(20, 9.5))
    for ax, name in zip(axes, ("clean", "augmented"), strict=True):
        m = np.array(results[name]["confusion"], np.float64)
        m = m / np.maximum(m.sum(1, keepdims=True), 1)
        ax.imshow(m, cmap="Blues", vmin=0, vmax=1)
        ax.set_xticks(range(len(cats)), cats, rotation=90, fontsize=7)
        ax.set_yticks(range(len(cats)), cats, fontsize=7)
        ax.set_xlabel("predicted")
        ax.set_ylabel("true")
        ax.set_title(f"{name}: category accuracy {results[name]['category_accuracy']:.3f}")
        for i in range(len(cats)):
            for j in range(len(cats)):
                if m[i, j] >= 0.05:
                    ax.text(j, i, f"{m[i, j]:.2f}"[1:] if m[i, j] < 1 else "1", ha="center", va="center",
                            fontsize=5, color="white" if m[i, j] > 0.5 else "black")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(ROOT / "weights" / "program-image"), help="ProgramNet folder")
    parser.add_argument("--data", default=str(ROOT / "data" / "program"), help="built program data (test split)")
    parser.add_argument("--split", default="test")
    parser.add_argument("--limit", type=int, help="first N objects only")
    parser.add_argument("--seed", type=int, default=1234, help="seed of the photo augmentations")
    parser.add_argument("--out", default=str(ROOT / "eval" / "results" / "program_image.json"))
    args = parser.parse_args()
    logging.getLogger("seed3d.condition.image").setLevel(logging.ERROR)  # "border is not one colour", per photo
    torch.manual_seed(0)
    model = ProgramNet.from_pretrained(args.model)
    data = load_program_data(args.data, args.split)
    manifest = data_manifest(args.data, args.split)
    if args.limit:
        data = {k: v[:args.limit] for k, v in data.items()}
    cats = list(model.config.categories)
    if list(manifest["categories"]) != cats:
        raise SystemExit("the data's categories differ from the model's")
    n_obj, n_views = data["rgb"].shape[:2]
    rgb = data["rgb"].reshape(-1, *data["rgb"].shape[2:])
    alpha = data["alpha"].reshape(-1, *data["alpha"].shape[2:])
    truth = {k: np.repeat(data[k], n_views, axis=0) for k in ("category", *COUNT_HEADS, "size_m")}
    t_start = time.perf_counter()
    clean, clean_pre, clean_methods = preprocess_all(rgba_images(rgb, alpha))
    photos = []
    aug = PhotoAugmenter()
    for i in range(0, rgb.shape[0], 64):
        photos.append(aug(rgb[i:i + 64], alpha[i:i + 64], seed=args.seed + i))
    photo_u8 = (torch.cat(photos).permute(0, 2, 3, 1).numpy() * 255 + 0.5).astype(np.uint8)
    augmented, aug_pre, aug_methods = preprocess_all(photo_u8)
    results: dict[str, Any] = {
        "benchmark": "program_image", "model": str(Path(args.model).resolve().relative_to(ROOT))
        if Path(args.model).resolve().is_relative_to(ROOT) else args.model,
        "command": "python eval/bench_program_image.py" + (f" --model {args.model}" if args.model != parser.get_default(
            "model") else "") + (f" --limit {args.limit}" if args.limit else ""),
        "data": {"split": args.split, "objects": int(n_obj), "views_per_object": int(n_views),
                 "seeds": [min(manifest["seeds"]), max(manifest["seeds"])], "synth_version": manifest["synth_version"],
                 "config": manifest["config"]},
        "categories": cats, "platform": platform.platform(), "torch_threads": torch.get_num_threads()}
    for name, images, pre_s, methods in (("clean", clean, clean_pre, clean_methods),
                                         ("augmented", augmented, aug_pre, aug_methods)):
        res = evaluate(model, images, truth, cats)
        res["seconds_per_image_preprocess"] = round(pre_s, 4)
        res["object_found_by"] = methods
        results[name] = res
        print(f"{name}: category {res['category_accuracy']:.3f} (in-category "
              f"{res['category_accuracy_in_category']:.3f}, top-3 {res['top3_accuracy']:.3f}) movable total exact "
              f"{res['movable_total_exact']:.3f} "
              f"(built {res['built_movable_total_exact']:.3f}) doors {res['doors_exact']:.3f} drawers "
              f"{res['drawers_exact']:.3f} lids {res['lids_exact']:.3f} proportions median w/h "
              f"{res['proportion_error']['width/height']['median']:.3f} d/h "
              f"{res['proportion_error']['depth/height']['median']:.3f}")
    results["seconds"] = round(time.perf_counter() - t_start, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    plot_confusion(results, cats, out.with_name(out.stem + "_confusion.png"))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
