"""Decimation of raw extracted surfaces: pymeshlab alone against the fast pre-reduction plus pymeshlab.

Run: ``python eval/bench_decimation.py [--resolutions 256,512] [--target 50000] [--generated]`` → prints a table
and writes eval/results/decimation.json.

``seed3d.geometry.postprocess.clean_shell`` decimates a raw marching-cubes surface (about 1.3 M faces for a
generated shape at 512³) to the pipeline's target. Both ways are run side by side in one process on the same
surfaces: ``pymeshlab`` is the topology-preserving quadric collapse alone on the full mesh (the earlier
``_decimate``); ``two-stage`` first collapses to ``PRE_REDUCE`` × target faces with Fast-Quadric-Mesh-Simplification,
then finishes with the same pymeshlab call (today's ``_decimate``). The surfaces are analytic fields with
bumps, a thin slab and a hole (``extract_surface``, the extractor the pipeline uses); error is the distance of
20,000 points sampled on the raw surface to each decimated one (mean and max, in units of the grid cell), and
both results are checked closed. ``--generated`` adds the raw surfaces the shipped generator makes for
eval/bench_pipeline.py's two inputs (its text and its cabinet image) at the default settings but 256³ (the
large surfaces the pipeline extracted before its default became 128³).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import Mesh, atomic_file
from seed3d.geometry import postprocess
from seed3d.geometry.extract import extract_surface

RESULTS = Path(__file__).parent / "results"
TAU = 0.1


def bumpy(p: np.ndarray) -> np.ndarray:
    """A bumpy ball with a slab through it and a round hole through the slab (truncated at ``TAU``)."""
    x, y, z = p[:, 0], p[:, 1], p[:, 2]
    ball = np.linalg.norm(p, axis=1) - 0.6 - 0.06 * np.sin(9 * x) * np.sin(8 * y) * np.sin(7 * z)
    slab = np.maximum(np.abs(x - 0.45) - 0.35, np.maximum(np.abs(y) - 0.04, np.abs(z) - 0.45))
    hole = 0.12 - np.hypot(x - 0.65, z)
    d = np.maximum(np.minimum(ball, slab), hole)
    return np.clip(d, -TAU, TAU).astype(np.float32)


def _error(raw: Mesh, dec: Mesh, cell: float) -> tuple[float, float]:
    import trimesh

    pts = trimesh.Trimesh(raw.vertices, raw.faces, process=False).sample(20000, seed=0)
    _, dist, _ = trimesh.proximity.closest_point(trimesh.Trimesh(dec.vertices, dec.faces, process=False), pts)
    return float(np.mean(dist) / cell), float(np.max(dist) / cell)


def _pymeshlab_only(mesh: Mesh, target: int) -> Mesh | None:
    saved = postprocess.PRE_REDUCE
    postprocess.PRE_REDUCE = 10**9  # never pre-reduce: the full mesh goes to pymeshlab
    try:
        return postprocess._decimate(mesh, target)
    finally:
        postprocess.PRE_REDUCE = saved


def generated_surfaces(folder: Path) -> list[tuple[str, int, Mesh]]:
    """(name, resolution, raw surface) for bench_pipeline's text and image inputs, default generation settings
    extracted at 256³."""
    from bench_pipeline import TEXT, cabinet_image

    from seed3d.geometry.generate import GenerateOptions
    from seed3d.pipeline import Seed3DPipeline

    gen = Seed3DPipeline.from_pretrained().geometry()
    opts = GenerateOptions(resolution=256)
    out = []
    for name, kwargs in (("text", {"text": TEXT}), ("image", {"image": cabinet_image(folder / "cabinet.png")})):
        field, truncation = gen.surface_field(*gen.sample(*gen.condition(**kwargs), opts))
        out.append((f"generated {name}", opts.resolution, gen.extract(field, truncation, opts.resolution)))
    return out


def run(resolutions: list[int], target: int, generated: bool = False) -> list[dict[str, Any]]:
    """One row per surface and way: faces, seconds, closed, error."""
    import tempfile

    surfaces = [(f"analytic {res}³", res, extract_surface(bumpy, resolution=res, coarse=32)) for res in resolutions]
    if generated:
        with tempfile.TemporaryDirectory() as tmp:
            surfaces += generated_surfaces(Path(tmp))
    rows = []
    for name, res, raw in surfaces:
        cell = 2.0 / res
        for way, fn in (("pymeshlab", _pymeshlab_only), ("two-stage", postprocess._decimate)):
            t0 = time.perf_counter()
            out = fn(raw, target)
            seconds = time.perf_counter() - t0
            row: dict[str, Any] = {"surface": name, "resolution": res, "raw_faces": len(raw.faces), "way": way,
                                   "seconds": round(seconds, 2), "closed": out is not None}
            if out is not None:
                mean, worst = _error(raw, out, cell)
                row.update(faces=len(out.faces), error_mean_cells=round(mean, 4), error_max_cells=round(worst, 3))
            rows.append(row)
            print(row, flush=True)
    return rows


def main() -> None:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resolutions", default="256,512", help="extraction resolutions (comma-separated)")
    parser.add_argument("--target", type=int, default=50000, help="target face count")
    parser.add_argument("--generated", action="store_true",
                        help="also the shipped generator's raw surfaces for bench_pipeline's text and image")
    parser.add_argument("--out", default=str(RESULTS / "decimation.json"))
    args = parser.parse_args()
    resolutions = [int(r) for r in args.resolutions.split(",")]
    rows = run(resolutions, args.target, args.generated)
    speedup = {}
    for name in dict.fromkeys(r["surface"] for r in rows):
        a, b = (next(r for r in rows if r["surface"] == name and r["way"] == way)
                for way in ("pymeshlab", "two-stage"))
        speedup[name] = round(a["seconds"] / max(b["seconds"], 1e-9), 2)
    head = (f"{'surface':>16} {'raw faces':>10} {'way':>10} {'faces':>7} {'s':>7} {'closed':>6} {'err mean':>8} "
            f"{'err max':>7}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['surface']:>16} {r['raw_faces']:>10} {r['way']:>10} {r.get('faces', 0):>7} "
                     f"{r['seconds']:>7.2f} {r['closed']!s:>6} {r.get('error_mean_cells', float('nan')):>8.4f} "
                     f"{r.get('error_max_cells', float('nan')):>7.3f}")
    text = "\n".join(lines)
    print(text)
    print("speed-up (pymeshlab / two-stage):", speedup)
    doc = {"benchmark": "decimation of raw extracted surfaces: pymeshlab alone vs fast pre-reduction + pymeshlab",
           "command": "python eval/bench_decimation.py" + (f" --resolutions {args.resolutions}"
                                                          if args.resolutions != "256,512" else "")
           + (f" --target {args.target}" if args.target != 50000 else "") + (" --generated" if args.generated else ""),
           "pre_reduce": postprocess.PRE_REDUCE, "target": args.target,
           "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
           "rows": rows, "speedup": speedup, "table": text.splitlines()}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(out) as tmp:
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
