"""Geometry time and peak memory per asset on CPU at default settings (shipped weights, 25 flow steps, guidance 3,
extraction at 128^3, 50k faces), through ``Seed3DPipeline`` as ``seed3d generate`` runs it.

Run: ``python eval/bench_generate.py [--runs 3]`` → prints per-stage times and writes
eval/results/generate.json. Inputs: test-split descriptions and, for image runs, view 0 of the same samples
(written to PNG with alpha, as a user would pass them). Peak memory is this process's maximum resident set size
(models, inputs and every run; the data set is read before the first run and counted).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from seed3d.asset import atomic_file

RESULTS = Path(__file__).parent / "results"


def main() -> None:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="text runs and image runs each")
    parser.add_argument("--data", default="data/synth")
    parser.add_argument("--weights", help="weights folder (default: shipped)")
    parser.add_argument("--out", default=str(RESULTS / "generate.json"))
    args = parser.parse_args()
    from PIL import Image

    from seed3d.geometry.train import load_geometry
    from seed3d.pipeline import PipelineOptions, Seed3DPipeline

    data = load_geometry(args.data, "test", fields=("sample_id", "category", "description", "cond_rgb",
                                                    "cond_alpha"))
    picks = np.linspace(0, len(data["sample_id"]) - 1, args.runs).astype(int)
    t0 = time.perf_counter()
    pipe = Seed3DPipeline.from_pretrained(args.weights)
    pipe.geometry()
    load_seconds = time.perf_counter() - t0
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("text", "image"):
            for i in picks:
                image = None
                if mode == "image":
                    rgba = np.concatenate([data["cond_rgb"][i, 0], data["cond_alpha"][i, 0][..., None]], -1)
                    image = str(Path(tmp) / f"{i}.png")
                    Image.fromarray(rgba, "RGBA").save(image)
                text = str(data["description"][i]) if mode == "text" else None
                t = time.perf_counter()
                asset = pipe(image=image, text=text, options=PipelineOptions(seed=0, stages=("geometry",)),
                             name=str(data["sample_id"][i]))
                total = time.perf_counter() - t
                stages = asset.metadata["timings"]["geometry_detail"]
                rows.append({"mode": mode, "sample": str(data["sample_id"][i]), "seconds": round(total, 2),
                             "faces": len(asset.parts[0].mesh.faces), **{k: v for k, v in stages.items()}})
                print(f"{mode:5s} {rows[-1]['sample']:24s} {total:6.1f} s  " +
                      "  ".join(f"{k} {v:.1f}" for k, v in stages.items()), flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    doc = {"benchmark": "geometry stage per asset on CPU (defaults)", "command": "python eval/bench_generate.py",
           "load_seconds": round(load_seconds, 2),
           "mean_seconds": round(float(np.mean([r["seconds"] for r in rows])), 2),
           "max_seconds": round(max(r["seconds"] for r in rows), 2), "peak_rss_mb": round(peak),
           "threads": torch.get_num_threads(), "machine": platform.processor() or platform.machine(), "rows": rows}
    print(f"mean {doc['mean_seconds']} s per asset, peak RSS {doc['peak_rss_mb']} MB")
    out = Path(args.out)
    with atomic_file(out) as tmp_out:
        Path(tmp_out).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
