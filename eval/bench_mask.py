"""Foreground-mask benchmark: ``preprocess_image`` on photos whose background is neither transparent nor plain.

    python eval/bench_mask.py                       # 30 scenes, 256 px → eval/results/mask.json
    python eval/bench_mask.py --scenes 60 --size 320 --out /tmp/mask.json

Each scene is one procedural object (``seed3d.synth``, the base categories in turn, seed = scene index) rendered
with alpha from a random orbit, scaled to fill 45-80 % of the frame along its longest side, shifted off centre by
up to 10 % of the frame, and composited in linear light over a busy background (drawn with a fixed seed, in turn):

- **clutter**: a vertical two-colour gradient with 2-4 other procedural objects behind the subject (partly cut by
  the frame, often overlapping it: the hardest case, as ambiguous for GrabCut as for a viewer without depth);
- **blotches**: a smooth random colour field (bicubic upsampling of a 3-8 px grid);
- **pattern**: stripes or checks of two colours (tiles, planks, fabric), 8-40 px period, any angle;
- **grain**: one colour with fine noise (concrete, carpet).

Then sensor noise (sigma 0.01) and 8-bit quantisation. The image goes through the inference path
(``preprocess_image``) as a plain RGB array; the truth is the render's coverage >= 0.5. Measured per scene: which
method found the object ('grabcut', or 'none' when the mask was refused and the whole frame kept), the IoU with
the truth of the mask in the input's pixels (``grabcut_alpha`` >= 0.5, the mask ``preprocess_image`` used; for
'none' the whole frame, whose IoU is the object's share of it), and seconds per ``preprocess_image`` call.
``GrabCutConfig``'s seed box and border were chosen on the scenes of ``--seed 1``, not on the default seed 0.
Results: eval/results/mask.json.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from seed3d.condition.image import grabcut_alpha, linear_to_srgb, preprocess_image, srgb_to_linear  # noqa: E402

BACKGROUNDS = ("clutter", "blotches", "pattern", "grain")


def render_objects(count: int, size: int) -> list[tuple[str, np.ndarray]]:
    """``count`` procedural objects (the 26 base categories but freeform in turn, seed = index) as (category,
    RGBA float (S, S, 4)); the base categories, so that categories added later do not change the scenes."""
    from seed3d.render import get_renderer, orbit_camera
    from seed3d.synth import BASE_CATEGORIES, generate

    cats = [c for c in BASE_CATEGORIES if c != "freeform"]
    out = []
    with get_renderer() as renderer:
        for i in range(count):
            cat = cats[i % len(cats)]
            asset = generate(cat, seed=i)
            rng = np.random.default_rng(1000 + i)
            cam = orbit_camera(asset, float(rng.uniform(10, 80)), float(rng.uniform(10, 35)), size)
            out.append((cat, renderer.render_image(asset, cam, supersample=2)))
    return out


def _place(rgba: np.ndarray, size: int, fill: float, shift: tuple[float, float]) -> np.ndarray:
    """Scale an RGBA render so that its object's longest side is ``fill`` of ``size`` and move its centre by
    ``shift`` (fractions of ``size``); premultiplied linear colour + alpha (S, S, 4)."""
    from PIL import Image

    a = rgba[..., 3]
    ys, xs = np.nonzero(a >= 0.5)
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    scale = fill * size / max(x1 - x0, y1 - y0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    # output pixel (u, v) samples input (cx + (u - size/2 - dx) / scale, ...)
    dx, dy = shift[0] * size, shift[1] * size
    inv = (1 / scale, 0, cx - (size / 2 + dx) / scale, 0, 1 / scale, cy - (size / 2 + dy) / scale)
    premult = np.concatenate([srgb_to_linear(rgba[..., :3]) * a[..., None], a[..., None]], -1)
    chans = [np.asarray(Image.fromarray(np.ascontiguousarray(premult[..., c]), mode="F")
                        .transform((size, size), Image.Transform.AFFINE, inv, Image.Resampling.BILINEAR), np.float32)
             for c in range(4)]
    return np.clip(np.stack(chans, -1), 0, 1)


def background(kind: str, size: int, rng: np.random.Generator, others: list[np.ndarray]) -> np.ndarray:
    """A busy (S, S, 3) linear-light background of ``kind`` (see the module doc)."""
    import torch
    import torch.nn.functional as F

    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    c0, c1 = rng.uniform(0, 1, 3).astype(np.float32), rng.uniform(0, 1, 3).astype(np.float32)
    if kind == "clutter":
        bg = srgb_to_linear(c0 + yy[..., None] * (c1 - c0))
        for _ in range(int(rng.integers(2, 5))):
            other = others[int(rng.integers(len(others)))]
            moved = _place(other, size, float(rng.uniform(0.4, 0.9)), tuple(rng.uniform(-0.45, 0.45, 2)))
            bg = moved[..., :3] + bg * (1 - moved[..., 3:])
        return bg.astype(np.float32)
    if kind == "blotches":
        g = int(rng.integers(3, 9))
        grid = torch.from_numpy(rng.uniform(0, 1, (1, 3, g, g)).astype(np.float32))
        field = F.interpolate(grid, size=(size, size), mode="bicubic", align_corners=True)[0].clamp(0, 1)
        return srgb_to_linear(field.permute(1, 2, 0).numpy())
    if kind == "pattern":
        period, ang = rng.uniform(8, 40), rng.uniform(0, np.pi)
        u = (np.cos(ang) * xx + np.sin(ang) * yy) * size / period
        v = (-np.sin(ang) * xx + np.cos(ang) * yy) * size / period
        pattern = (np.floor(u) % 2) if rng.uniform() < 0.5 else ((np.floor(u) + np.floor(v)) % 2)
        return srgb_to_linear(c0 + pattern[..., None] * (c1 - c0))
    fine = rng.uniform(-0.15, 0.15, (size // 2, size // 2)).astype(np.float32)
    fine = np.repeat(np.repeat(fine, 2, 0), 2, 1)
    return srgb_to_linear(np.clip(c0 + fine[..., None], 0, 1))


def make_scenes(count: int, size: int, seed: int = 0) -> list[dict[str, Any]]:
    """``count`` scenes: dict(category, background, image (S, S, 3) uint8 sRGB, truth (S, S) bool)."""
    renders = render_objects(count, size)
    rng = np.random.default_rng(seed)
    scenes = []
    for i, (cat, rgba) in enumerate(renders):
        kind = BACKGROUNDS[i % len(BACKGROUNDS)]
        obj = _place(rgba, size, float(rng.uniform(0.45, 0.8)), tuple(rng.uniform(-0.1, 0.1, 2)))
        others = [r for j, (_, r) in enumerate(renders) if j != i]
        bg = background(kind, size, rng, others)
        lin = obj[..., :3] + bg * (1 - obj[..., 3:])
        img = np.clip(linear_to_srgb(lin) + rng.normal(0, 0.01, lin.shape), 0, 1)
        scenes.append({"category": cat, "background": kind, "image": np.round(img * 255).astype(np.uint8),
                       "truth": obj[..., 3] >= 0.5})
    return scenes


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two boolean masks."""
    union = np.logical_or(a, b).sum()
    return float(np.logical_and(a, b).sum() / union) if union else 1.0


def found_mask(image: np.ndarray) -> tuple[str, np.ndarray, float]:
    """(method, mask (H, W) in the input's pixels, seconds) of ``preprocess_image`` on ``image``."""
    t0 = time.perf_counter()
    pre = preprocess_image(image, size=128)
    seconds = time.perf_counter() - t0
    h, w = image.shape[:2]
    if pre.method == "none":
        return pre.method, np.ones((h, w), bool), seconds
    # the mask itself (the same function preprocess_image calls), at the input's resolution
    alpha = grabcut_alpha(image.astype(np.float32) / 255.0)
    if alpha is None:
        raise RuntimeError("preprocess_image found a grabcut mask that grabcut_alpha refuses")
    return pre.method, alpha >= 0.5, seconds


def main() -> int:
    """Run the benchmark and write the JSON results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=30, help="number of scenes (default 30)")
    ap.add_argument("--size", type=int, default=256, help="image side in pixels (default 256)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the placements and backgrounds (default 0)")
    ap.add_argument("--out", type=Path, default=ROOT / "eval" / "results" / "mask.json")
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)

    scenes = make_scenes(args.scenes, args.size, args.seed)
    rows = []
    for i, sc in enumerate(scenes):
        method, mask, seconds = found_mask(sc["image"])
        rows.append({"scene": i, "category": sc["category"], "background": sc["background"], "method": method,
                     "iou": round(iou(mask, sc["truth"]), 4), "object_share": round(float(sc["truth"].mean()), 4),
                     "seconds": round(seconds, 4)})
    ious = np.array([r["iou"] for r in rows])
    cut = np.array([r["method"] == "grabcut" for r in rows])
    by_bg = {kind: {"n": int(sum(r["background"] == kind for r in rows)),
                    "mean_iou": round(float(np.mean([r["iou"] for r in rows if r["background"] == kind])), 4)}
             for kind in BACKGROUNDS if any(r["background"] == kind for r in rows)}
    summary = {
        "scenes": len(rows), "size": args.size, "seed": args.seed,
        "grabcut_share": round(float(cut.mean()), 4),
        "mean_iou": round(float(ious.mean()), 4), "median_iou": round(float(np.median(ious)), 4),
        "share_iou_ge_0.8": round(float((ious >= 0.8).mean()), 4),
        "mean_iou_grabcut_only": round(float(ious[cut].mean()), 4) if cut.any() else None,
        "mean_iou_whole_frame": round(float(np.mean([r["object_share"] for r in rows])), 4),
        "by_background": by_bg,
        "seconds_per_image": round(float(np.mean([r["seconds"] for r in rows])), 4),
    }
    result = {"summary": summary, "rows": rows,
              "command": " ".join(["python eval/bench_mask.py", *sys.argv[1:]]),
              "machine": f"{platform.machine()} {platform.processor() or ''}".strip()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    logging.getLogger(__name__).info("wrote %s", args.out)
    sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
