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

Each image is read as inference reads it (``network_views`` → ``predict_views``: a GrabCut cut-out together with
its whole frame, each with its mirror image); beside it, in the same run, the readings without the mirror images
(``*_without_flip``) and of the cut-out alone (``*_cut_out_only``).

Measured per image: category accuracy (all the model's classes; and over the in-category objects, freeform left out),
top-3 accuracy, the share of images above confidence thresholds and their accuracy (for ``auto``); exact doors,
drawers, lids and movable-part total (doors + drawers + lids) of the raw heads; the same counts of the asset the
predicted program builds (``count_params`` → ``synth.generate``) against the truth; proportion error
|predicted / true - 1| of width/height and depth/height; seconds per image. Results:
eval/results/program_image.json and the confusion matrices eval/results/program_image_confusion.png.

``--fit`` measures render-and-compare fitting (``seed3d.program.fit``) instead, rendering the objects itself (no
cache needed: ``make_sample`` with ``--views`` views of the data config's camera distribution):

    python eval/bench_program_image.py --fit --seeds 10000-10001                       # test seeds
    python eval/bench_program_image.py --fit --seeds 20000-20001 --out eval/results/program_image_fit_val.json

For every clean render and every augmented one that still has an object mask: the network's program (top category
and counts, proportions from its head) and the fitted program, each built (``build_program``, seed 0) — category
accuracy, exact movable-part total of the built asset, silhouette IoU against the input (the network's program at
its best camera, ``fit_view``; the fitted one at its fitted camera), seconds per fit. Every candidate's scores are
kept, so the score weights (``--weights``) and ``auto``'s thresholds (``--thresholds``) are chosen from these
records: run on validation seeds (20000-20039; never the test seeds 10000-10039).
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
    FLIP_TTA,
    PhotoAugmenter,
    ProgramNet,
    count_params,
    network_views,
    predict_batch,
    predict_views,
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


def preprocess_all(images: np.ndarray) -> tuple[list[Any], float, dict[str, int]]:
    """``preprocess_image`` of every image: the ``Preprocessed`` list, seconds per image, how the object was
    found."""
    t0 = time.perf_counter()
    pre = [preprocess_image(im) for im in images]
    methods: dict[str, int] = {}
    for p in pre:
        methods[p.method] = methods.get(p.method, 0) + 1
    return pre, (time.perf_counter() - t0) / max(len(pre), 1), methods


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


def evaluate(model: ProgramNet, pres: list[Any], truth: dict[str, np.ndarray], cats: list[str],
             batch: int = 64, flip: bool = FLIP_TTA, frames: bool = True) -> dict[str, Any]:
    """Every metric on one set of preprocessed images, read as inference reads them (``network_views``: a GrabCut
    cut-out with its whole frame; ``flip``: with the mirror images). ``frames=False``: the cut-out alone."""
    t0 = time.perf_counter()
    preds = []
    images = to_tensor(pres)
    for i in range(0, images.shape[0], batch):
        preds += predict_batch(model, images[i:i + batch], flip=flip)
    if frames:  # images with a second view: predicted from both
        for i, p in enumerate(pres):
            if p.frame is not None:
                preds[i] = predict_views(model, network_views(p), flip=flip)
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


# ------------------------------------------------------------------------------------------ render-and-compare


def _seed_range(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def choose(tried: list[dict[str, Any]], edge_w: float, colour_w: float, prior_w: float) -> dict[str, Any]:
    """The candidate a set of score weights picks from a fit's records."""
    ok = [t for t in tried if "iou" in t]
    return max(ok, key=lambda t: t["iou"] + edge_w * t["edge"] + colour_w * t["colour"]
               + prior_w * float(np.log(max(t["probability"], 1e-6))))


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Before / after figures of one set of fitted images."""
    if not records:
        return {"images": 0}

    def mean(key: str) -> float:
        return round(float(np.mean([r[key] for r in records])), 4)

    def median(key: str) -> float:
        return round(float(np.median([r[key] for r in records])), 4)

    return {"images": len(records),
            "category_accuracy": {"network": mean("category_right_before"),
                                  "fitted": mean("category_right_after")},
            "built_movable_total_exact": {"network": mean("movable_right_before"),
                                          "fitted": mean("movable_right_after")},
            "silhouette_iou_mean": {"network": mean("iou_before"), "fitted": mean("iou_after")},
            "silhouette_iou_median": {"network": median("iou_before"), "fitted": median("iou_after")},
            "fit_iou_mean": mean("fit_iou"),
            "seconds_per_fit": {"mean": mean("seconds"), "max": round(max(r["seconds"] for r in records), 2)},
            "renders_per_fit": mean("evaluations")}


def weight_table(records: list[dict[str, Any]], cache: dict[Any, tuple[int, int, int]]) -> list[dict[str, Any]]:
    """Category accuracy and built movable total exact of the choice each weight set makes from the records."""
    rows = []
    for edge_w in (0.0, 0.1, 0.2, 0.4):
        for colour_w in (0.0, 0.05, 0.1):
            for prior_w in (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 1.0):
                cat_ok, mov_ok = [], []
                for r in records:
                    pick = choose(r["tried"], edge_w, colour_w, prior_w)
                    cat_ok.append(pick["category"] == r["truth"]["category"])
                    built = built_counts(pick["category"], pick["counts"], cache)
                    mov_ok.append(sum(built) == sum(r["truth"]["counts"]))
                rows.append({"edge_weight": edge_w, "colour_weight": colour_w, "prior_weight": prior_w,
                             "category_accuracy": round(float(np.mean(cat_ok)), 4),
                             "built_movable_total_exact": round(float(np.mean(mov_ok)), 4)})
    return rows


def _taken_row(records: list[dict[str, Any]], taken: list[dict[str, Any]], **key: float) -> dict[str, Any]:
    return {**key, "share": round(len(taken) / max(len(records), 1), 4),
            "category_accuracy": round(float(np.mean([r["category_right_after"] for r in taken])), 4)
            if taken else None,
            "built_movable_total_exact":
                round(float(np.mean([r["movable_right_after"] for r in taken])), 4) if taken else None,
            "both_right": round(float(np.mean([r["category_right_after"] and r["movable_right_after"]
                                               for r in taken])), 4) if taken else None}


def threshold_table(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Share of images ``auto`` would take, and their accuracy, for confidence × fit IoU thresholds."""
    rows = []
    for conf_t in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        for iou_t in (0.0, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
            taken = [r for r in records if r["confidence"] >= conf_t and r["fit_iou"] >= iou_t]
            rows.append(_taken_row(records, taken, confidence=conf_t, fit_iou=iou_t))
    return rows


def summaries(records: list[dict[str, Any]], cache: dict[Any, tuple[int, int, int]]) -> dict[str, Any]:
    """Every summary of a fit run's records: per set, per weight set, per threshold pair, and the fit IoU that
    the correctly read objects reach (its low percentiles are where ``auto``'s fit threshold comes from)."""
    right = [r["fit_iou"] for r in records if r["category_right_after"]]
    return {"clean": summarise([r for r in records if r["set"] == "clean"]),
            "augmented": summarise([r for r in records if r["set"] == "augmented"]),
            "all": summarise(records),
            "fit_iou_when_category_right_percentiles": {
                str(q): round(float(np.percentile(right, q)), 4) for q in (2, 5, 10, 25, 50)} if right else {},
            "weights": weight_table(records, cache),
            "thresholds": threshold_table(records)}


def resummarise(path: Path) -> int:
    """Recompute the summaries of a ``--fit`` results file from its records (same records, current summaries)."""
    results = json.loads(path.read_text())
    results.update(summaries(results["records"], {}))
    path.write_text(json.dumps(results, indent=1) + "\n")
    for name in ("clean", "augmented", "all", "fit_iou_when_category_right_percentiles"):
        print(name, json.dumps(results[name]))
    print(f"rewrote {path}")
    return 0


def fit_benchmark(args: argparse.Namespace) -> int:
    """Render held-out objects, fit their programs and write the before / after figures."""
    from seed3d import synth
    from seed3d.program import build_program
    from seed3d.program.fit import FitConfig, ViewState, fit_view, view_score
    from seed3d.program.image import predict_program
    from seed3d.program.image_data import ProgramDataConfig, make_sample
    from seed3d.render import get_renderer

    torch.manual_seed(0)
    model = ProgramNet.from_pretrained(args.model)
    cats = list(model.config.categories)
    if args.categories:
        cats = [c for c in args.categories.split(",") if c]
    seeds = _seed_range(args.seeds)
    data_cfg = ProgramDataConfig(views=args.views)
    cfg = FitConfig(budget_s=args.budget_s)  # a wide time budget: the renders budget decides, whatever the load
    aug = PhotoAugmenter()
    records: list[dict[str, Any]] = []
    cache: dict[Any, tuple[int, int, int]] = {}
    t_start = time.perf_counter()
    with get_renderer() as renderer:
        for seed in seeds:
            for cat in cats:
                sample = make_sample(cat, seed, data_cfg, renderer)
                truth = {"category": cat, "counts": [int(sample[k]) for k in COUNT_HEADS]}
                clean = rgba_images(sample["rgb"], sample["alpha"])
                photos = aug(sample["rgb"], sample["alpha"], seed=args.seed + seed * 100 + cats.index(cat))
                photo_u8 = (photos.permute(0, 2, 3, 1).numpy() * 255 + 0.5).astype(np.uint8)
                for name, images in (("clean", clean), ("augmented", photo_u8)):
                    for v, im in enumerate(images):
                        pre = preprocess_image(im)
                        if pre.method == "none":
                            continue
                        net_prog = predict_program(pre, model, seed=0, fit=False)
                        net_asset = build_program(net_prog, seed=0)
                        _, best_before, _ = fit_view(pre, net_asset, cfg, renderer)
                        t0 = time.perf_counter()
                        prog = predict_program(pre, model, seed=0, fit=cfg, renderer=renderer)
                        seconds = time.perf_counter() - t0
                        asset = build_program(prog, seed=0)
                        fit = prog.fit or {}
                        view = fit.get("view", {})
                        after = view_score(pre, asset, ViewState(view["azimuth_deg"], view["elevation_deg"],
                                                                 view["focal_mm"]), cfg, renderer) if view else (0,) * 4
                        lab_b, lab_a = asset_labels(net_asset), asset_labels(asset)
                        moved = sum(truth["counts"])
                        records.append({
                            "set": name, "seed": seed, "view": v, "truth": truth, "method": pre.method,
                            "network": {"category": net_prog.category, "confidence": round(net_prog.confidence, 4)},
                            "fitted": {"category": prog.category,
                                       "params": {k: str(x) for k, x in prog.params.items()}},
                            "confidence": round(prog.confidence, 4),
                            "category_right_before": net_prog.category == cat,
                            "category_right_after": prog.category == cat,
                            "movable_right_before": lab_b.doors + lab_b.drawers + lab_b.lids == moved,
                            "movable_right_after": lab_a.doors + lab_a.drawers + lab_a.lids == moved,
                            "iou_before": round(best_before[1], 4), "iou_after": round(after[1], 4),
                            "fit_iou": fit.get("iou", 0.0), "seconds": round(seconds, 3),
                            "evaluations": fit.get("evaluations", 0), "stopped": fit.get("stopped"),
                            "tried": fit.get("candidates", [])})
                        r = records[-1]
                        print(f"{name:9s} {cat:15s} {seed} -> {prog.category:15s} IoU {r['iou_before']:.3f} -> "
                              f"{r['iou_after']:.3f} (fit {r['fit_iou']:.3f}) movable {r['movable_right_before']}->"
                              f"{r['movable_right_after']} {seconds:.1f}s", flush=True)
    results: dict[str, Any] = {
        "benchmark": "program_image_fit",
        "command": "python eval/bench_program_image.py --fit --seeds " + args.seeds
                   + (f" --views {args.views}" if args.views != 1 else "")
                   + (f" --categories {args.categories}" if args.categories else "")
                   + (f" --out {args.out}" if args.out != parser_default_out() else ""),
        "data": {"seeds": [seeds[0], seeds[-1]], "views_per_object": args.views, "categories": cats,
                 "synth_version": synth.SYNTH_VERSION, "camera": data_cfg.to_dict()},
        "fit_config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(cfg).items()},
        "platform": platform.platform(), "torch_threads": torch.get_num_threads(),
        **summaries(records, cache),
        "seconds": round(time.perf_counter() - t_start, 1),
        "records": records}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    for name in ("clean", "augmented", "all"):
        print(name, json.dumps(results[name]))
    print(f"wrote {out}")
    return 0


def finish_benchmark(args: argparse.Namespace) -> int:
    """Finishes read off clean renders (``predict_program``'s part-by-part reading) against the finishes the
    objects were built with: exact ``kind:colour``, same kind, and the palette colours' distance (sRGB)."""
    from seed3d import synth
    from seed3d.program.fit import FitConfig
    from seed3d.program.image import body_finish_from_image, predict_program
    from seed3d.program.image_data import ProgramDataConfig, make_sample
    from seed3d.render import get_renderer
    from seed3d.synth.materials import COLOURS, PALETTES

    def rgb(value: str) -> np.ndarray:
        kind, _, colour = value.partition(":")
        return np.asarray(PALETTES.get(kind, {}).get(colour) or COLOURS[colour])

    torch.manual_seed(0)
    model = ProgramNet.from_pretrained(args.model)
    cats = [c for c in (args.categories or ",".join(model.config.categories)).split(",") if c]
    seeds = _seed_range(args.seeds)
    rows: list[dict[str, Any]] = []
    baseline: list[dict[str, Any]] = []
    t_start = time.perf_counter()
    with get_renderer() as renderer:
        for seed in seeds:
            for cat in cats:
                sample = make_sample(cat, seed, ProgramDataConfig(views=1), renderer)
                truth = json.loads(str(sample["params"]))
                pre = preprocess_image(rgba_images(sample["rgb"], sample["alpha"])[0])
                prog = predict_program(pre, model, seed=0, fit=FitConfig(budget_s=args.budget_s), renderer=renderer)
                if prog.category != cat:
                    continue  # finishes are only comparable on the right category
                unread = {k: v for k, v in prog.params.items() if "finish" not in k and not k.endswith("_body")}
                drawn = synth.generate(cat, 0, unread).metadata["params"]  # what the seed gives, nothing read
                for name, value in (prog.fit or {}).get("finishes", {}).items():
                    if name in truth and synth.CATEGORIES[cat].params[name].is_finish:
                        guess = drawn.get(name)
                        rows.append({"category": cat, "seed": seed, "param": name, "read": value, "truth": truth[name],
                                     "exact": value == truth[name],
                                     "kind": value.split(":")[0] == str(truth[name]).split(":")[0],
                                     "distance": round(float(np.linalg.norm(rgb(value) - rgb(truth[name]))), 4),
                                     "seed_draw": guess, "seed_draw_exact": guess == truth[name],
                                     "seed_draw_distance": round(float(np.linalg.norm(rgb(guess) - rgb(truth[name]))),
                                                                 4) if guess else None})
                old = body_finish_from_image(cat, pre)
                if old is not None and "body_finish" in truth:
                    baseline.append({"exact": old[0] == truth["body_finish"],
                                     "distance": float(np.linalg.norm(rgb(old[0]) - rgb(truth["body_finish"])))})
                print(f"{cat:15s} {seed}: " + ", ".join(f"{r['param']} {r['read']} (truth {r['truth']})"
                                                        for r in rows if r["category"] == cat and r["seed"] == seed),
                      flush=True)

    def stats(items: list[dict[str, Any]]) -> dict[str, Any]:
        if not items:
            return {"n": 0}
        return {"n": len(items), "exact": round(float(np.mean([r["exact"] for r in items])), 4),
                "kind": round(float(np.mean([r.get("kind", True) for r in items])), 4) if "kind" in items[0] else None,
                "distance_median": round(float(np.median([r["distance"] for r in items])), 4)}

    body = [r for r in rows if r["param"] == "body_finish"]
    drawn_rows = [{"exact": r["seed_draw_exact"], "distance": r["seed_draw_distance"]}
                  for r in rows if r["param"] != "body_finish" and r["seed_draw_distance"] is not None]
    results = {"benchmark": "program_image_finishes",
               "command": f"python eval/bench_program_image.py --finishes --seeds {args.seeds}"
                          + (f" --categories {args.categories}" if args.categories else ""),
               "data": {"seeds": [seeds[0], seeds[-1]], "categories": cats, "views_per_object": 1, "set": "clean"},
               "platform": platform.platform(), "all_parts": stats(rows), "body_finish": stats(body),
               "other_parts": stats([r for r in rows if r["param"] != "body_finish"]),
               "body_finish_whole_object_median_baseline": stats(baseline),
               "other_parts_seed_draw_baseline": stats(drawn_rows),
               "by_param": {p: stats([r for r in rows if r["param"] == p]) for p in sorted({r["param"] for r in rows})},
               "seconds": round(time.perf_counter() - t_start, 1), "rows": rows}
    out = Path(args.out)
    out.write_text(json.dumps(results, indent=1) + "\n")
    for key in ("all_parts", "body_finish", "other_parts", "body_finish_whole_object_median_baseline",
                "other_parts_seed_draw_baseline"):
        print(key, json.dumps(results[key]))
    print(f"wrote {out}")
    return 0


def parser_default_out() -> str:
    """Where ``--fit`` writes by default."""
    return str(ROOT / "eval" / "results" / "program_image_fit.json")


def main() -> int:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(ROOT / "weights" / "program-image"), help="ProgramNet folder")
    parser.add_argument("--data", default=str(ROOT / "data" / "program"), help="built program data (test split)")
    parser.add_argument("--split", default="test")
    parser.add_argument("--limit", type=int, help="first N objects only")
    parser.add_argument("--subset", choices=("all", "base"), default="all",
                        help="objects measured: every category the model and the data share (all), or only the 27 "
                             "first categories (base: the first network's, to compare it with a later one)")
    parser.add_argument("--quick", action="store_true",
                        help="only the shipped reading (no side readings without mirror images or of the cut-out "
                             "alone)")
    parser.add_argument("--seed", type=int, default=1234, help="seed of the photo augmentations")
    parser.add_argument("--out", help="results file (default eval/results/program_image.json; "
                                      "program_image_fit.json with --fit)")
    parser.add_argument("--fit", action="store_true", help="measure render-and-compare fitting")
    parser.add_argument("--seeds", default="10000-10001", help="--fit: object seeds, LO-HI inclusive")
    parser.add_argument("--views", type=int, default=1, help="--fit: views per object")
    parser.add_argument("--categories", help="--fit: comma-separated categories (default: all the model's)")
    parser.add_argument("--finishes", action="store_true",
                        help="measure the finishes read off clean renders against the built ones")
    parser.add_argument("--resummarise", metavar="RESULTS",
                        help="recompute the summaries of a --fit results file from its records, and stop")
    parser.add_argument("--budget-s", type=float, default=120.0,
                        help="--fit: the fit's time budget (wide, so the renders budget decides on a loaded machine)")
    args = parser.parse_args()
    logging.getLogger("seed3d.condition.image").setLevel(logging.ERROR)  # "border is not one colour", per photo
    if args.resummarise:
        return resummarise(Path(args.resummarise))
    if args.finishes:
        args.out = args.out or str(ROOT / "eval" / "results" / "program_image_finishes.json")
        return finish_benchmark(args)
    if args.fit:
        args.out = args.out or parser_default_out()
        return fit_benchmark(args)
    args.out = args.out or str(ROOT / "eval" / "results" / "program_image.json")
    logging.getLogger("seed3d.condition.image").setLevel(logging.ERROR)  # "border is not one colour", per photo
    torch.manual_seed(0)
    model = ProgramNet.from_pretrained(args.model)
    data = load_program_data(args.data, args.split)
    manifest = data_manifest(args.data, args.split)
    if args.limit:
        data = {k: v[:args.limit] for k, v in data.items()}
    cats = list(model.config.categories)
    data_cats = list(manifest["categories"])
    keep = set(cats) & set(data_cats)
    if args.subset == "base":
        from seed3d import synth

        keep &= set(synth.BASE_CATEGORIES)
    if not keep:
        raise SystemExit("the data holds none of the model's categories")
    # objects of categories the model does not know are left out (an older network on a newer test split);
    # the truth is re-indexed into the model's category order
    rows = np.array([data_cats[c] in keep for c in data["category"]])
    data = {k: v[rows] for k, v in data.items()}
    data["category"] = np.array([cats.index(data_cats[c]) for c in data["category"]], np.int16)
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
            "model") else "") + (f" --limit {args.limit}" if args.limit else "")
        + (f" --subset {args.subset}" if args.subset != "all" else "") + (" --quick" if args.quick else ""),
        "data": {"split": args.split, "objects": int(n_obj), "views_per_object": int(n_views),
                 "seeds": [min(manifest["seeds"]), max(manifest["seeds"])], "synth_version": manifest["synth_version"],
                 "config": manifest["config"]},
        "categories": cats, "categories_evaluated": sorted(keep), "subset": args.subset,
        "platform": platform.platform(), "torch_threads": torch.get_num_threads()}
    for name, images, pre_s, methods in (("clean", clean, clean_pre, clean_methods),
                                         ("augmented", augmented, aug_pre, aug_methods)):
        res = evaluate(model, images, truth, cats)
        res["seconds_per_image_preprocess"] = round(pre_s, 4)
        res["object_found_by"] = methods
        res["flip_tta"] = FLIP_TTA
        results[name] = res
        keys = ("category_accuracy", "category_accuracy_in_category", "top3_accuracy", "movable_total_exact",
                "built_movable_total_exact", "doors_exact", "drawers_exact", "lids_exact", "proportion_error")
        # beside it, what each test-time view adds: without the mirror images; the GrabCut cut-out alone
        if FLIP_TTA and not args.quick:
            single = evaluate(model, images, truth, cats, flip=False)
            results[f"{name}_without_flip"] = {k: single[k] for k in keys}
        if methods.get("grabcut") and not args.quick:
            cut = evaluate(model, images, truth, cats, frames=False)
            results[f"{name}_cut_out_only"] = {k: cut[k] for k in keys}
            cut1 = evaluate(model, images, truth, cats, flip=False, frames=False)
            results[f"{name}_cut_out_only_without_flip"] = {k: cut1[k] for k in keys}
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
