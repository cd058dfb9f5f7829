"""Texture baking: time and peak memory on a 100k-face mesh, and accuracy of baked true views seen from new views.

Run: ``python eval/bench_bake.py [--quick]`` → prints a table, writes eval/results/bake.json and
eval/results/bake.png.

* **Speed** — the bumpy, checker-textured torus of ``eval/bench_render.py`` (100,000 triangles), its six
  true rig views at 512² baked at 1024² and 2048² with the box-projection atlas (what ``unwrap="auto"`` picks
  above 30k faces), split into unwrap / view depth / projection / fill; beside it, in the same process, the
  time to render the six input views (albedo, metallic, roughness), so the ratio says how baking compares
  with rendering its inputs whatever the machine's load. xatlas on the same mesh is timed once (child
  process). Peak memory: the largest traced numpy allocation during the bake (``tracemalloc``) and the
  process's peak RSS.
* **Accuracy** — synth assets (``--assets``): the six true rig views (albedo, metallic, roughness) at 512²
  and 128² (the data set's size) baked at 1024², then re-rendered from 4 random views the rig never saw
  (``random_views``, seed 1000 + i) and compared with the true material there: albedo PSNR and SSIM
  (sRGB, surface pixels), metallic and roughness MAE. The same for the reference-image baseline
  (``project_reference_image``: one shaded view, 512², projected as albedo; metallic 0, roughness 0.5).

``rerender_metrics`` and its helpers are what the texture generator's eval reuses.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import resource
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from seed3d import synth
from seed3d.asset import Asset, Mesh, Part, atomic_file
from seed3d.pbr.bake import BakeConfig, bake_asset, project_reference_image
from seed3d.pbr.unwrap import unwrap_meshes
from seed3d.render import (
    Camera,
    Lighting,
    RenderBuffers,
    Renderer,
    fixed_views,
    get_renderer,
    linear_to_srgb,
    random_views,
)

RESULTS = Path(__file__).parent / "results"
ASSETS = ("cabinet", "chair", "lamp", "mug", "toolbox", "suitcase")


# ----------------------------------------------------------------------------------------------- metrics


def albedo_psnr(truth: RenderBuffers, pred: RenderBuffers) -> float:
    """PSNR (dB) of sRGB albedo over pixels where both views see the surface."""
    m = truth.mask & pred.mask
    err = float(np.mean((linear_to_srgb(truth.albedo)[m] - linear_to_srgb(pred.albedo)[m]) ** 2))
    return float("inf") if err == 0 else 10 * float(np.log10(1.0 / err))


def ssim(a: np.ndarray, b: np.ndarray, mask: np.ndarray, sigma: float = 1.5) -> float:
    """Mean SSIM of two (H, W, C) images in [0, 1] (Gaussian window, per channel) over the ``mask``ed pixels;
    pixels off the mask count as 0 in both images' windows."""
    from scipy.ndimage import gaussian_filter

    a = np.where(mask[..., None], a, 0.0).astype(np.float64)
    b = np.where(mask[..., None], b, 0.0).astype(np.float64)
    c1, c2 = 0.01**2, 0.03**2
    out = []
    for ch in range(a.shape[2]):
        x, y = a[..., ch], b[..., ch]
        mx, my = gaussian_filter(x, sigma), gaussian_filter(y, sigma)
        vx = gaussian_filter(x * x, sigma) - mx * mx
        vy = gaussian_filter(y * y, sigma) - my * my
        cxy = gaussian_filter(x * y, sigma) - mx * my
        s = ((2 * mx * my + c1) * (2 * cxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
        out.append(s[mask])
    return float(np.mean(out))


def albedo_ssim(truth: RenderBuffers, pred: RenderBuffers, sigma: float = 1.5) -> float:
    """Mean SSIM of sRGB albedo (Gaussian window, per channel) over pixels where both views see the surface."""
    return ssim(linear_to_srgb(truth.albedo), linear_to_srgb(pred.albedo), truth.mask & pred.mask, sigma)


def view_metrics(truth: RenderBuffers, pred: RenderBuffers) -> dict[str, float]:
    """Albedo PSNR / SSIM and metallic / roughness MAE of one view (surface pixels of both)."""
    m = truth.mask & pred.mask
    return {"albedo_psnr": albedo_psnr(truth, pred), "albedo_ssim": albedo_ssim(truth, pred),
            "metallic_mae": float(np.abs(truth.metallic - pred.metallic)[m].mean()),
            "roughness_mae": float(np.abs(truth.roughness - pred.roughness)[m].mean())}


def rerender_metrics(renderer: Renderer, truth: Asset, baked: Asset, cameras: Sequence[Camera]
                     ) -> dict[str, float]:
    """Mean ``view_metrics`` of ``baked`` against ``truth`` over ``cameras`` (PSNR averaged in dB)."""
    rows = []
    for cam in cameras:
        names = ("mask", "albedo", "metallic", "roughness")
        rows.append(view_metrics(renderer.render(truth, cam, buffers=names), renderer.render(baked, cam,
                                                                                               buffers=names)))
    return {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}


def held_out_views(asset: Asset, count: int = 4, seed: int = 1000, width: int = 256) -> list[Camera]:
    """Random views (``seed3d.render.random_views``) the fixed rig does not contain."""
    return random_views(asset, count, seed=seed, width=width)


def bake_true_views(renderer: Renderer, asset: Asset, view_size: int, config: BakeConfig) -> Any:
    """Render the asset's six true rig views (sRGB albedo, metallic, roughness) and bake them."""
    cams = fixed_views(asset, view_size)
    views = renderer.render_views(asset, cams, None, ("mask", "albedo", "metallic", "roughness"))
    return bake_asset(asset, cams, [linear_to_srgb(v.albedo) for v in views], [v.metallic for v in views],
                      [v.roughness for v in views], config=config, renderer=renderer)


# ----------------------------------------------------------------------------------------------- speed


def bench_mesh() -> Asset:
    """The 100k-triangle textured torus of eval/bench_render.py as a one-part asset."""
    spec = importlib.util.spec_from_file_location("bench_render", Path(__file__).parent / "bench_render.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    rm = module.bumpy_torus()
    return Asset("torus", [Part("torus", Mesh(rm.vertices, rm.faces, rm.uv), material=rm.materials[0])])


def speed(renderer: Renderer, resolutions: Sequence[int], with_xatlas: bool) -> dict[str, Any]:
    """Bake time (split by step), peak memory and re-render accuracy of the torus at each resolution."""
    asset = bench_mesh()
    cams = fixed_views(asset, 512)
    names = ("mask", "albedo", "metallic", "roughness")
    renderer.render_views(asset, cams[:1], None, names)  # warm-up
    t0, c0 = time.perf_counter(), time.process_time()
    views = renderer.render_views(asset, cams, None, names)
    render_s, render_cpu = time.perf_counter() - t0, time.process_time() - c0
    albedo = [linear_to_srgb(v.albedo) for v in views]
    metallic, roughness = [v.metallic for v in views], [v.roughness for v in views]
    out: dict[str, Any] = {"faces": len(asset.parts[0].mesh.faces), "views": len(cams), "view_size": 512,
                           "render_inputs_s": round(render_s, 3),
                           "render_inputs_cpu_s": round(render_cpu, 3), "rows": []}
    held = held_out_views(asset)
    for res in resolutions:
        cfg = BakeConfig(resolution=res, unwrap="box")
        t0, c0 = time.perf_counter(), time.process_time()
        result = bake_asset(asset, cams, albedo, metallic, roughness, config=cfg, renderer=renderer)
        total, cpu = time.perf_counter() - t0, time.process_time() - c0
        tracemalloc.start()
        bake_asset(asset, cams, albedo, metallic, roughness, config=cfg, renderer=renderer)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        row = {"resolution": res, "unwrap": result.parts[0].unwrap, "charts": result.parts[0].charts,
               "seconds": round(total, 3), "cpu_seconds": round(cpu, 3),
               **{f"{k}_s": round(v, 3) for k, v in result.timings.items() if k != "total"},
               "ratio_to_render_inputs": round(total / render_s, 2),
               "peak_numpy_mb": round(peak / 2**20, 1),
               "seen_fraction": round(result.parts[0].seen_fraction, 4),
               **{k: round(v, 4) for k, v in rerender_metrics(renderer, asset, result.asset, held).items()}}
        out["rows"].append(row)
        print(f"torus 100k @ {res}²: {total:.2f} s wall, {cpu:.2f} s CPU ({row['ratio_to_render_inputs']}x "
              f"rendering the inputs), numpy peak {row['peak_numpy_mb']} MB, albedo PSNR {row['albedo_psnr']:.2f} dB",
              flush=True)
    if with_xatlas:
        mesh = asset.parts[0].mesh
        t0 = time.perf_counter()
        (atlas,) = unwrap_meshes([(mesh.vertices, mesh.faces)], [1024], method="xatlas")
        out["xatlas_unwrap"] = {"seconds": round(time.perf_counter() - t0, 2), "method": atlas.method,
                                "charts": atlas.charts, "reason": atlas.reason}
        print(f"xatlas unwrap of the torus: {out['xatlas_unwrap']}", flush=True)
    return out


# ----------------------------------------------------------------------------------------------- accuracy


def accuracy(renderer: Renderer, categories: Sequence[str], seed: int) -> tuple[dict[str, Any], list[Any]]:
    """Baked-true-view and reference-projection metrics per synth asset, and picture material."""
    rows, pictures = [], []
    for cat in categories:
        asset = synth.generate(cat, seed)
        held = held_out_views(asset)
        row: dict[str, Any] = {"asset": f"{cat}/{seed}", "parts": len(asset.parts),
                               "faces": sum(len(p.mesh.faces) for p in asset.parts)}
        baked = {}
        for size in (512, 128):
            t0 = time.perf_counter()
            result = bake_true_views(renderer, asset, size, BakeConfig(resolution=1024))
            row[f"views{size}"] = {**{k: round(v, 4) for k, v in rerender_metrics(renderer, asset, result.asset,
                                                                                   held).items()},
                                   "seconds": round(time.perf_counter() - t0, 2),
                                   "unwrap": sorted({p.unwrap for p in result.parts})}
            baked[size] = result.asset
        ref_cam = random_views(asset, 1, seed=7, width=512)[0]
        image = renderer.render_image(asset, ref_cam, Lighting(), supersample=2)
        rgba = np.concatenate([image[..., :3], (image[..., 3:] > 0.5).astype(np.float32)], axis=2)
        ref = project_reference_image(asset, ref_cam, rgba, config=BakeConfig(resolution=1024), renderer=renderer)
        row["reference_projection"] = {k: round(v, 4) for k, v in rerender_metrics(renderer, asset, ref.asset,
                                                                                    held).items()}
        rows.append(row)
        print(f"{cat}: 512² views {row['views512']['albedo_psnr']:.2f} dB, 128² views "
              f"{row['views128']['albedo_psnr']:.2f} dB, reference projection "
              f"{row['reference_projection']['albedo_psnr']:.2f} dB", flush=True)
        pictures.append((cat, asset, baked[512], baked[128], ref.asset, held[0]))
    keys = ("albedo_psnr", "albedo_ssim", "metallic_mae", "roughness_mae")
    summary = {name: {k: round(float(np.mean([r[name][k] for r in rows])), 4) for k in keys}
               for name in ("views512", "views128", "reference_projection")}
    return {"rows": rows, "mean": summary}, pictures


def picture(renderer: Renderer, pictures: list[Any], path: Path) -> None:
    """Per asset: true albedo from a held-out view, baked from 512² / 128² views, reference projection."""
    tiles = []
    for _cat, truth, b512, b128, ref, cam in pictures:
        row = []
        for a in (truth, b512, b128, ref):
            buf = renderer.render(a, cam, buffers=("mask", "albedo"))
            img = np.where(buf.mask[..., None], linear_to_srgb(buf.albedo), 1.0)
            row.append(img)
        mr = renderer.render(b512, cam, buffers=("mask", "metallic", "roughness"))
        row.append(np.where(mr.mask[..., None], np.stack([np.zeros_like(mr.metallic), mr.roughness, mr.metallic],
                                                         -1), 1.0))
        tiles.append(np.concatenate(row, axis=1))
    grid = (np.clip(np.concatenate(tiles, axis=0), 0, 1) * 255).astype(np.uint8)
    with atomic_file(path) as tmp:
        Image.fromarray(grid).save(tmp, format="PNG")


def main() -> None:
    """Run both parts and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--assets", default=",".join(ASSETS), help="synth categories for the accuracy part")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="1024² only, no xatlas timing, two assets")
    parser.add_argument("--out", default=str(RESULTS / "bake.json"))
    args = parser.parse_args()
    renderer = get_renderer()
    cats = [c for c in args.assets.split(",") if c][: 2 if args.quick else None]
    speed_doc = speed(renderer, (1024,) if args.quick else (1024, 2048), with_xatlas=not args.quick)
    acc_doc, pictures = accuracy(renderer, cats, args.seed)
    out = Path(args.out)
    picture(renderer, pictures, out.with_suffix(".png"))
    doc = {"command": "python eval/bench_bake.py" + (" --quick" if args.quick else ""),
           "backend": renderer.backend_name, "speed": speed_doc, "accuracy": acc_doc,
           "picture": out.with_suffix(".png").name + ": per asset, a held-out view: true albedo | baked from 512² "
                      "views | baked from 128² views | reference projection | baked metallic (B) / roughness (G)",
           "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
           "machine": platform.processor() or platform.machine()}
    renderer.close()
    with atomic_file(out) as tmp:
        Path(tmp).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
