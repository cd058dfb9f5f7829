"""Texture quality: the multi-view PBR generator on a held-out synth split (test, or val with ``--split val``), in
its generated views and after baking, against the category-mean material and the projection of the reference image.

Run: ``python eval/bench_pbr.py [--model DIR] [--split test|val] [--per-category 2] [--bake-assets N] [--steps 2]
[--guidance 1]`` → prints tables, writes eval/results/pbr.json, eval/results/pbr_views.png and
eval/results/pbr_baked.png.

* **Views** — test samples spread over the categories (``--per-category``), their six rig views at the
  generator's resolution (the data set's 128² true views, area-downsampled as in training), generated under
  four conditions: the reference image (the data set's conditioning view 0, recentred) and the material words,
  the image alone, the words alone, nothing; and a fifth, "tagged": the image with the tagger's words for it
  (``MaterialTagger.image_words``), what an image-only request gets. Albedo PSNR and SSIM (sRGB, covered
  pixels; SSIM per view), metallic and roughness MAE; beside them the per-category mean material of the train split.
* **Baked** — those samples (``--bake-assets``: fewer, evenly spread) rebuilt with ``seed3d.synth.generate``
  (every part's mesh), textured by the texture stage (``seed3d.pbr.texture``: rig rendered, views generated,
  upsampled, baked at 1024²) from the same reference image with the tagger's words ("image": what an image-only
  user gets), from the material words ("text") and from both, then re-rendered from 4 random views the rig never
  contains (``eval/bench_bake.py`` ``held_out_views``) and compared with the true material there. Baselines: the
  category-mean material on every part; the reference image projected from its own camera
  (``project_reference_image``, metallic 0, roughness 0.5); and, as the ceiling of the path, the true views at the
  generator's resolution baked the same way ("oracle").
* **Tagger** — the material tagger on the reference view 0 of every sample of the split: first word among the true
  finish words, precision and recall of the finish words it names; the same for its kind words alone.
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
from bench_bake import held_out_views, rerender_metrics, ssim  # eval/bench_bake.py (the script folder is on sys.path)
from bench_geometry import pick_per_category
from PIL import Image

from seed3d import synth
from seed3d.asset import Asset, PBRMaterial, atomic_file
from seed3d.pbr.data import load_references, load_views, render_geometry
from seed3d.pbr.model import PBRViews
from seed3d.pbr.texture import TextureOptions, Texturer, bake_views
from seed3d.pbr.train import category_means, mean_views, sample_views, score_views
from seed3d.render import Camera, get_renderer, linear_to_srgb, srgb_to_linear
from seed3d.synth.dataset import ShardDataset

RESULTS = Path(__file__).parent / "results"
CONDITIONS = ("both", "image", "text", "none")
KEYS = ("albedo_psnr", "albedo_ssim", "metallic_mae", "roughness_mae")
#: Rows of the baked picture (the baked assets evenly thinned to this many).
PICTURE_ROWS = 12


def view_scores(pred: np.ndarray, views: dict[str, np.ndarray], idx: np.ndarray) -> dict[str, float]:
    """``score_views`` plus the mean per-view albedo SSIM."""
    out = score_views(pred, views, idx)
    true = (views["target"][idx].astype(np.float32) + 1.0) / 2.0
    m = views["mask"][idx].astype(bool)
    vals = [ssim(true[i, v, :3].transpose(1, 2, 0), pred[i, v, :3].transpose(1, 2, 0), m[i, v], sigma=1.0)
            for i in range(len(idx)) for v in range(m.shape[1]) if m[i, v].any()]
    out["albedo_ssim"] = float(np.mean(vals))
    return out


def tagger_scores(tagger: Any, views: dict[str, np.ndarray], batch: int = 64) -> dict[str, float]:
    """The material tagger on every sample's reference view 0: how often its first word is one of the true finish
    words, and the precision and recall of the finish words it names (kind-only words such as "wood" left out);
    the same three for the kind words alone (``predict_kinds``)."""
    finishes = set(tagger.config.finishes)
    counts = dict.fromkeys(("first", "hits", "named", "true", "kind_first", "kind_hits", "kind_named", "kind_true"), 0)
    for s in range(0, len(views["reference"]), batch):
        images = torch.from_numpy(views["reference"][s: s + batch, 0].astype(np.float32) / 255.0)
        for words, kinds, truth, true_kinds in zip(tagger.predict_words(images), tagger.predict_kinds(images),
                                                   views["materials"][s: s + batch], views["kinds"][s: s + batch],
                                                   strict=True):
            for pre, picked, true in (("", [w for w in words if w in finishes], str(truth)),
                                      ("kind_", kinds, str(true_kinds))):
                true_set = {w.strip() for w in true.split(",") if w.strip()}
                counts[pre + "first"] += bool(picked) and picked[0] in true_set
                counts[pre + "hits"] += len(set(picked) & true_set)
                counts[pre + "named"] += len(set(picked))
                counts[pre + "true"] += len(true_set)
    n = max(len(views["reference"]), 1)
    out: dict[str, float] = {"samples": len(views["reference"])}
    for pre in ("", "kind_"):
        out |= {f"{pre}first_word_correct": counts[pre + "first"] / n,
                f"{pre}precision": counts[pre + "hits"] / max(counts[pre + "named"], 1),
                f"{pre}recall": counts[pre + "hits"] / max(counts[pre + "true"], 1)}
    return out


def tagged_views(tagger: Any, views: dict[str, np.ndarray], idx: np.ndarray, references: np.ndarray
                 ) -> dict[str, np.ndarray]:
    """``views`` whose material words (``mat_tokens``) at ``idx`` are what the tagger says of reference view 0 (the
    image the generator sees, from ``references`` at the tagger's size): sampled as ``both``, the views an
    image-only request gets."""
    from seed3d.condition.text import encode_token_arrays
    from seed3d.pbr.model import material_prompt

    images = torch.from_numpy(references[idx, 0].astype(np.float32) / 255.0)
    prompts = [material_prompt(tagged=w) for w in tagger.image_words(images)]
    tokens, masks = views["mat_tokens"].copy(), views["mat_mask"].copy()
    tokens[idx], masks[idx] = encode_token_arrays(prompts, tokens.shape[1])
    return {**views, "mat_tokens": tokens, "mat_mask": masks}


def _reference(ds: ShardDataset, index: int) -> tuple[np.ndarray, Camera]:
    """The data set's conditioning view 0 of a sample as RGBA uint8 and its camera."""
    s = ds[index]
    k = s["cond_K"][0]
    h, w = s["cond_alpha"][0].shape
    cam = Camera(w, h, float(k[0, 0]), float(k[1, 1]), float(k[0, 2]), float(k[1, 2]),
                 s["cond_world_to_camera"][0].astype(np.float64))
    return np.concatenate([s["cond_rgb"][0], s["cond_alpha"][0][..., None]], axis=2), cam


def _true_views(test: dict[str, np.ndarray], i: int) -> PBRViews:
    t = (test["target"][i].astype(np.float32) + 1.0) / 2.0
    m = test["mask"][i].astype(bool)
    return PBRViews(t[:, :3].transpose(0, 2, 3, 1), t[:, 3], t[:, 4], m)


def _mean_asset(asset: Asset, mu: np.ndarray) -> Asset:
    """The asset with every part in one untextured material: ``mu`` = (sRGB albedo, metallic, roughness)."""
    out = asset.copy()
    colour = tuple(float(c) for c in srgb_to_linear(mu[:3].astype(np.float32)))
    for p in out.parts:
        p.material = PBRMaterial(f"{p.name}_mean", (*colour, 1.0), float(mu[3]), float(mu[4]))
    return out


def baked_rows(texturer: Texturer, test: dict[str, np.ndarray], ds: ShardDataset, picks: np.ndarray,
               means: dict[str, np.ndarray], steps: int, guidance: float, picture: Path) -> list[dict[str, Any]]:
    """Per asset: re-render metrics of every textured variant and baseline; their held-out views to ``picture``."""
    from seed3d.pbr.bake import BakeConfig, project_reference_image

    renderer = get_renderer()
    rows, pictures = [], []
    seeds = np.concatenate([ds.load_shard(k)["seed"] for k in range(len(ds.shards))])
    opts = TextureOptions(steps=steps, guidance=guidance)
    res = texturer.generator.config.resolution
    try:
        for n, i in enumerate(picks):
            cat, seed = str(test["category"][i]), int(seeds[i])
            asset = synth.generate(cat, seed)
            held = held_out_views(asset)
            ref, cam = _reference(ds, int(i))
            words = str(test["materials"][i]).split(", ")
            row: dict[str, Any] = {"asset": f"{cat}/{seed}", "parts": len(asset.parts), "words": words}
            variants: dict[str, Asset] = {}
            for mode, kwargs in (("image", {"image": ref}), ("text", {"material_words": words}),
                                 ("both", {"image": ref, "material_words": words})):
                t0 = time.perf_counter()
                result = texturer(asset, options=opts, renderer=renderer, **kwargs)
                row[mode] = {**rerender_metrics(renderer, asset, result.asset, held), "prompt": result.views.prompt,
                             "seconds": round(time.perf_counter() - t0, 2)}
                variants[mode] = result.asset
            geometry = render_geometry(asset, res, opts.supersample, renderer=renderer)
            oracle = bake_views(asset, geometry, _true_views(test, int(i)), opts.texture_size, renderer).asset
            row["oracle"] = rerender_metrics(renderer, asset, oracle, held)
            mean = _mean_asset(asset, means.get(cat, np.full(5, 0.5, np.float32)))
            row["category_mean"] = rerender_metrics(renderer, asset, mean, held)
            proj = project_reference_image(asset, cam, ref, config=BakeConfig(resolution=opts.texture_size),
                                           renderer=renderer).asset
            row["reference_projection"] = rerender_metrics(renderer, asset, proj, held)
            rows.append(row)
            if n % -(-len(picks) // PICTURE_ROWS) == 0:  # evenly spread rows, at most PICTURE_ROWS of them
                pictures.append((cat, asset, variants["image"], variants["both"], proj, mean, oracle, held[0]))
            print(f"{n + 1}/{len(picks)} {cat}: image {row['image']['albedo_psnr']:.2f} dB, both "
                  f"{row['both']['albedo_psnr']:.2f}, projection {row['reference_projection']['albedo_psnr']:.2f}, "
                  f"mean {row['category_mean']['albedo_psnr']:.2f}, oracle {row['oracle']['albedo_psnr']:.2f}",
                  flush=True)
        _picture(renderer, pictures, picture)
    finally:
        renderer.close()
    return rows


def _picture(renderer: Any, pictures: list[Any], path: Path) -> None:
    """Per baked asset, one held-out view: truth | image → texture | image + words | reference projection |
    category mean | oracle (true views at the generator's resolution) | generated metallic (B) / roughness (G)."""
    tiles = []
    for _cat, truth, img, both, proj, mean, oracle, cam in pictures:
        row = []
        for a in (truth, img, both, proj, mean, oracle):
            buf = renderer.render(a, cam, buffers=("mask", "albedo"))
            row.append(np.where(buf.mask[..., None], linear_to_srgb(buf.albedo), 1.0))
        mr = renderer.render(img, cam, buffers=("mask", "metallic", "roughness"))
        row.append(np.where(mr.mask[..., None], np.stack([np.zeros_like(mr.metallic), mr.roughness, mr.metallic],
                                                         -1), 1.0))
        tiles.append(np.concatenate(row, axis=1))
    grid = (np.clip(np.concatenate(tiles, axis=0), 0, 1) * 255).astype(np.uint8)
    labels = ("truth", "image", "image + words", "projection", "category mean", "oracle", "metal (B) / rough (G)")
    with atomic_file(path) as tmp:
        _with_header(Image.fromarray(grid), labels).save(tmp, format="PNG")


def _with_header(img: Image.Image, labels: tuple[str, ...]) -> Image.Image:
    """``img`` under a white strip naming its equal-width columns."""
    from PIL import ImageDraw

    out = Image.new("RGB", (img.width, img.height + 18), "white")
    out.paste(img, (0, 18))
    draw, width = ImageDraw.Draw(out), img.width / len(labels)
    for k, text in enumerate(labels):
        draw.text((int(k * width) + 4, 3), text, fill="black")
    return out


def views_picture(test: dict[str, np.ndarray], idx: np.ndarray, preds: dict[str, np.ndarray], path: Path,
                  rows: int = 8) -> None:
    """Per sample (rows), the six views' albedo side by side: truth, then each condition (left to right)."""
    tiles = []
    for k in range(min(rows, len(idx))):
        i = idx[k]
        true = (test["target"][i].astype(np.float32) + 1.0) / 2.0
        m = test["mask"][i].astype(bool)[:, None]
        strips = [np.where(m, true, 1.0)[:, :3]] + [np.where(m, preds[c][k], 1.0)[:, :3] for c in CONDITIONS]
        gap = np.ones((3, true.shape[2], 4), np.float32)
        tiles.append(np.concatenate([x for s in strips for x in (np.concatenate(list(s), axis=2), gap)], axis=2))
    grid = np.concatenate(tiles, axis=1).transpose(1, 2, 0)
    img = Image.fromarray((np.clip(grid, 0, 1) * 255).astype(np.uint8))
    img = img.resize((img.width * 2, img.height * 2), Image.NEAREST)
    with atomic_file(path) as tmp:
        _with_header(img, ("truth",) + tuple("image + words" if c == "both" else c for c in CONDITIONS)).save(
            tmp, format="PNG")


def main() -> None:
    """Run both parts and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", help="PBR model folder with generator/ and tagger/ (default: the shipped one)")
    parser.add_argument("--data", default="data/synth")
    parser.add_argument("--split", default="test", choices=("test", "val"),
                        help="held-out split to score (default test; val: for choosing between models without the test "
                             "split, `seed3d data build --split val`)")
    parser.add_argument("--per-category", type=int, default=2)
    parser.add_argument("--bake-assets", type=int, default=None,
                        help="assets for the baked part, evenly spread over the view samples (default: all of them; "
                             "0: skip it)")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--guidance", type=float, default=1.0)
    parser.add_argument("--out", default=str(RESULTS / "pbr.json"))
    args = parser.parse_args()
    from seed3d.pipeline import weights_component

    folder = Path(args.model) if args.model else weights_component("pbr")
    texturer = Texturer.from_pretrained(folder)
    gen = texturer.generator
    cfg = gen.config
    torch.manual_seed(0)
    cache = Path(args.data) / "cache"
    test = load_views(args.data, args.split, cfg.resolution, cfg.reference_resolution, cache)
    train = load_views(args.data, "train", cfg.resolution, cfg.reference_resolution, cache)
    means = category_means(train)
    del train
    idx = np.array(pick_per_category(test["category"], args.per_category))
    t0 = time.perf_counter()
    preds = {c: sample_views(gen, test, idx, args.steps, args.guidance, c) for c in CONDITIONS}
    conditions = CONDITIONS
    tag_test = test
    if texturer.tagger is not None:
        size = texturer.tagger.config.image_size
        if size != cfg.reference_resolution:  # the same reference images, made at the tagger's size
            tag_test = {**test, "reference": load_references(args.data, args.split, size, cache)}
        preds["tagged"] = sample_views(gen, tagged_views(texturer.tagger, test, idx, tag_test["reference"]), idx,
                                       args.steps, args.guidance)
        conditions = (*CONDITIONS, "tagged")
    view_doc: dict[str, Any] = {c: {k: round(v, 4) for k, v in view_scores(preds[c], test, idx).items()}
                                for c in conditions}
    view_doc["category_mean"] = {k: round(v, 4) for k, v in view_scores(mean_views(means, test, idx), test,
                                                                         idx).items()}
    per_cat = {}
    for cat in sorted({str(c) for c in test["category"][idx]}):
        sel = np.array([str(test["category"][i]) == cat for i in idx])
        per_cat[cat] = {c: round(score_views(preds[c][sel], test, idx[sel])["albedo_psnr"], 2)
                        for c in ("both", "image", "text", "tagged") if c in preds}
    view_doc["albedo_psnr_per_category"] = per_cat
    view_doc["samples"] = len(idx)
    tagging = ({k: round(v, 4) for k, v in tagger_scores(texturer.tagger, tag_test).items()}
               if texturer.tagger is not None else None)
    if tagging:
        print(f"material tagger, reference view 0 of every {args.split} sample: "
              + ", ".join(f"{k} {v}" for k, v in tagging.items()))
    view_doc["seconds"] = round(time.perf_counter() - t0, 1)
    print(f"generated views ({len(idx)} {args.split} samples, {cfg.resolution}² per view):")
    for name in (*conditions, "category_mean"):
        print(f"  {name:14s} " + "  ".join(f"{k} {view_doc[name][k]:.4f}" for k in KEYS))
    out = Path(args.out)
    views_picture(test, idx[:: max(1, len(idx) // 8)], {c: p[:: max(1, len(idx) // 8)] for c, p in preds.items()},
                  out.with_name(out.stem + "_views.png"))
    doc: dict[str, Any] = {
        "benchmark": "multi-view PBR generator: generated views and baked textures vs category mean and reference "
                     "projection", "command": "python eval/bench_pbr.py", "model": str(folder), "split": args.split,
        "parameters": gen.parameter_counts(), "steps": args.steps, "guidance": args.guidance, "views": view_doc,
        "tagger": tagging, "threads": torch.get_num_threads(), "machine": platform.processor() or platform.machine(),
        "pictures": {"pbr_views.png": "per test sample (rows): the six rig views' albedo, truth | image + words | "
                                      "image | words | nothing",
                     "pbr_baked.png": f"per baked asset (at most {PICTURE_ROWS}, evenly spread), a held-out view: "
                                      "truth | image (+ tagger) | image + words | "
                                      "reference projection | category mean | oracle | generated metallic (B) / "
                                      "roughness (G)"}}
    bake = len(idx) if args.bake_assets is None else min(args.bake_assets, len(idx))
    if bake > 0:
        ds = ShardDataset(args.data, args.split, fields=("seed", "cond_rgb", "cond_alpha", "cond_K",
                                                      "cond_world_to_camera"))
        picks = idx[np.linspace(0, len(idx) - 1, bake).round().astype(int)]
        t0 = time.perf_counter()
        rows = baked_rows(texturer, test, ds, picks, means, args.steps, args.guidance,
                          out.with_name(out.stem + "_baked.png"))
        names = ("image", "text", "both", "category_mean", "reference_projection", "oracle")
        doc["baked"] = {"assets": len(rows), "texture_size": TextureOptions().texture_size, "held_out_views": 4,
                        "mean": {n: {k: round(float(np.mean([r[n][k] for r in rows])), 4) for k in KEYS}
                                 for n in names},
                        "rows": rows, "seconds": round(time.perf_counter() - t0, 1)}
        print(f"baked, re-rendered from held-out views ({len(rows)} assets):")
        for n in names:
            print(f"  {n:20s} " + "  ".join(f"{k} {doc['baked']['mean'][n][k]:.4f}" for k in KEYS))
    with atomic_file(out) as tmp:
        Path(tmp).write_text(json.dumps(doc, indent=2, default=float) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
