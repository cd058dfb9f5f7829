"""Benchmark the end-to-end pipeline on CPU with the shipped weights: time per asset per stage, peak memory, and
batch throughput with 1 and 2 local workers and on a local Ray cluster.

Per asset: ``run_job`` (every built stage, every export, validation, preview) in a fresh child process, at the
default settings (steps 25, resolution 128, 50k faces) and at the reduced settings of the end-to-end tests
(steps 2, resolution 64, 800 faces), for one text and one image (a rendered procedural cabinet). Peak memory is
the largest sum of proportional set sizes (PSS: pages shared copy-on-write with a parent count once) over the
child's process tree (CoACD and the engine checks run in further processes), polled every 0.1 s with psutil,
beside the child's own peak resident size, and the peak within each stage (a sample belongs to the stage the
child last reported starting); CPU seconds are the tree's user + system time. Each child loads the
models itself, so the figures include loading (the ``geometry`` stage).

Batch: ``run_batch`` over ``--items`` small jobs (reduced settings, distinct seeds) with 1 worker (in process,
the baseline), 2 worker processes and a local Ray cluster of 2 actors, each into a fresh folder; throughput
is items per minute, also as a ratio to the 1-worker run beside it.

Sweep (``--sweep N``): ``run_job`` at default settings on the test-split descriptions of N categories spread over
the data set's list (the first sample of each) and on view 0 of the same samples (PNG with alpha, no category
given), each in a fresh child process: how many assets pass validation, which
checks fail, parts and joints per asset, beside a sheet of their previews (``<out>_sweep.png``). One text and one
image say little about whether a geometry model's surfaces survive parts, articulation and the engine checks;
this is the figure to compare weights folders by (``SEED3D_WEIGHTS=DIR``).

The machine may be shared (other jobs beside this one): the JSON records the load average before and after.
Writes ``eval/results/pipeline.json`` and ``eval/results/pipeline.png``.
Run: ``nice -n 10 python eval/bench_pipeline.py``; the sweep alone: ``nice -n 10 python eval/bench_pipeline.py
--skip-default --skip-reduced --skip-batch --sweep 8 --out eval/results/pipeline_sweep.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]
DEFAULTS: dict[str, Any] = {}
REDUCED = {"steps": 2, "resolution": 64, "target_faces": 800}

CHILD = """
import json, sys, time
from seed3d.pipeline import JobSpec, run_job
spec = JobSpec(**json.loads(sys.argv[1]))
stages = open(sys.argv[3], "w")
seen = []
def progress(stage, fraction, message):
    if not seen or seen[-1] != stage:  # when each stage starts, for the parent's per-stage memory peaks
        seen.append(stage)
        stages.write(json.dumps([time.time(), stage]) + "\\n")
        stages.flush()
print(json.dumps(run_job(spec, sys.argv[2], progress=progress)))
"""


def _tree_sample(proc: Any, cpu: dict[int, float]) -> tuple[int, int]:
    """(proportional set size summed over a psutil process and its descendants, resident size of the process
    itself); ``cpu[pid]`` gets each one's own CPU seconds so far (a process that ends between two samples loses
    at most the last 0.1 s). PSS splits pages shared between processes (forked children share their parent's
    memory copy-on-write), so the sum is the memory the tree really holds; a sum of RSS would count them twice."""
    import psutil

    pss, root = 0, 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            mem = p.memory_full_info()
            pss += mem.pss
            if p.pid == proc.pid:
                root = mem.rss
            t = p.cpu_times()
            cpu[p.pid] = max(cpu.get(p.pid, 0.0), t.user + t.system)
        except psutil.Error:
            continue
    return pss, root


def run_child(spec: dict[str, Any], out: Path) -> dict[str, Any]:
    """``run_job`` in a child process; its summary plus wall seconds, peak tree RSS and CPU seconds."""
    import psutil

    t0 = time.perf_counter()
    env = {**os.environ, "SEED3D_HOME": str(out.parent / f".home-{out.name}")}  # no collision cache hits
    stage_log = out.parent / f".stages-{out.name}.jsonl"
    child = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(spec), str(out), str(stage_log)], cwd=ROOT,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc = psutil.Process(child.pid)
    peak_root, cpu, samples = 0, {}, []
    while child.poll() is None:
        try:
            pss, root = _tree_sample(proc, cpu)
        except psutil.NoSuchProcess:
            break
        samples.append((time.time(), pss))
        peak_root = max(peak_root, root)
        time.sleep(0.1)
    stdout, stderr = child.communicate()
    wall = time.perf_counter() - t0
    if child.returncode != 0:
        raise RuntimeError(f"run_job failed ({child.returncode}): {stderr.strip().splitlines()[-1:]}")
    summary = json.loads(stdout.strip().splitlines()[-1])
    starts = [json.loads(line) for line in stage_log.read_text().splitlines()]
    per_stage: dict[str, int] = {}
    for when, pss in samples:  # each sample belongs to the last stage started before it (model loading: first)
        stage = next((name for t, name in reversed(starts) if t <= when), starts[0][1] if starts else "start")
        per_stage[stage] = max(per_stage.get(stage, 0), pss)
    return {"summary": summary, "wall_seconds": round(wall, 2),
            "peak_pss_mb": round(max((p for _, p in samples), default=0) / 2**20),
            "peak_pss_mb_per_stage": {k: round(v / 2**20) for k, v in per_stage.items()},
            "peak_rss_main_mb": round(peak_root / 2**20),
            "cpu_seconds": round(sum(cpu.values()), 1)}


#: The text input of the per-asset runs.
TEXT = "a wooden cabinet with two doors"


def cabinet_image(path: Path) -> Path:
    """A 256-pixel render of a procedural cabinet with alpha (the image input)."""
    import numpy as np
    from PIL import Image

    from seed3d.render import get_renderer, orbit_camera
    from seed3d.synth import generate

    cabinet = generate("cabinet", seed=1)
    with get_renderer() as r:
        rgba = r.render_image(cabinet, orbit_camera(cabinet, 30.0, 20.0, 256))
    Image.fromarray((rgba * 255).round().astype(np.uint8), "RGBA").save(path)
    return path


def failed_checks(out: Path) -> list[str]:
    """``name: message`` of each check that failed in the validation report of the job written to ``out``."""
    report = json.loads((out / "report.json").read_text())
    return [f"{c['name']}: {c['message']}" for c in report["checks"] if c["status"] == "fail"]


def per_asset(tmp: Path, image: Path, settings: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One child-process run per (settings, input)."""
    rows = []
    inputs = {"text": {"text": TEXT},
              "image": {"image": str(image), "category": "cabinet"}}
    for label, options in settings.items():
        for kind, given in inputs.items():
            spec = {**given, **options}
            print(f"{label:8s} {kind:5s} ...", end=" ", flush=True)
            out = tmp / f"{label}-{kind}"
            res = run_child(spec, out)
            s = res["summary"]
            row = {"settings": label, "input": kind, "options": options, "valid": s["valid"], "parts": s["parts"],
                   "joints": s["joints"], "faces": s["faces"], "failed_checks": failed_checks(out),
                   "stage_seconds": s["timings"],
                   "total_seconds": s["timings"]["total"], "wall_seconds": res["wall_seconds"],
                   "cpu_seconds": res["cpu_seconds"], "peak_pss_mb": res["peak_pss_mb"],
                   "peak_pss_mb_per_stage": res["peak_pss_mb_per_stage"], "peak_rss_main_mb": res["peak_rss_main_mb"]}
            rows.append(row)
            print(f"{row['total_seconds']:6.1f} s, {row['cpu_seconds']:6.1f} CPU s, {row['peak_pss_mb']} MB, "
                  f"{row['parts']} parts, valid {row['valid']}  " +
                  "".join(f"[{f}] " for f in row["failed_checks"]) +
                  " ".join(f"{k} {v:.1f}" for k, v in s["timings"].items() if k != "total") +
                  "; peak MB per stage " + " ".join(f"{k} {v}" for k, v in res["peak_pss_mb_per_stage"].items()),
                  flush=True)
    return rows


def sweep(tmp: Path, n: int, data_root: str) -> list[dict[str, Any]]:
    """``run_job`` at default settings on the descriptions and images of ``n`` test samples of distinct categories."""
    import numpy as np
    from PIL import Image

    from seed3d.geometry.train import load_geometry
    from seed3d.synth.dataset import JOINT_TYPE_IDS

    data = load_geometry(data_root, "test", fields=("sample_id", "category", "description", "cond_rgb",
                                                    "cond_alpha", "num_parts", "num_joints", "joint_type"))
    fixed = JOINT_TYPE_IDS.index("fixed")
    first: dict[str, int] = {}  # each category's first sample, in data-set order
    for i, c in enumerate(data["category"]):
        first.setdefault(str(c), i)
    order = list(first.values())
    picks = [order[k] for k in np.linspace(0, len(order) - 1, min(n, len(order))).round().astype(int)]
    rows = []
    for kind in ("text", "image"):
        for i in picks:
            sid, category = str(data["sample_id"][i]), str(data["category"][i])
            if kind == "text":
                spec: dict[str, Any] = {"text": str(data["description"][i])}
            else:
                rgba = np.concatenate([data["cond_rgb"][i, 0], data["cond_alpha"][i, 0][..., None]], -1)
                path = tmp / f"sweep-{sid}.png"
                Image.fromarray(rgba, "RGBA").save(path)
                spec = {"image": str(path)}
            print(f"sweep {kind:5s} {category:9s} {sid} ...", end=" ", flush=True)
            out = tmp / f"sweep-{kind}-{sid}"
            res = run_child(spec, out)
            s = res["summary"]
            failed = failed_checks(out)
            preview = out / "preview.png"
            types = data["joint_type"][i][: int(data["num_joints"][i])]
            row = {"input": kind, "sample_id": sid, "category": category, "prompt": spec.get("text", ""),
                   "valid": s["valid"], "parts": s["parts"], "joints": s["joints"],
                   "movable_joints": s["movable_joints"], "true_parts": int(data["num_parts"][i]),
                   "true_movable_joints": int((types != fixed).sum()), "failed_checks": failed,
                   "total_seconds": s["timings"]["total"], "stage_seconds": s["timings"],
                   "cpu_seconds": res["cpu_seconds"], "peak_pss_mb": res["peak_pss_mb"],
                   "preview": np.asarray(Image.open(preview).convert("RGB")) if preview.exists() else None}
            rows.append(row)
            print(f"{row['total_seconds']:6.1f} s, {row['parts']} parts, {row['movable_joints']} movable "
                  f"(truth {row['true_parts']}, {row['true_movable_joints']}), valid {row['valid']}"
                  + "".join(f"\n    FAIL {f}" for f in failed), flush=True)
    return rows


def _mean(values: list[int]) -> float | None:
    """Mean rounded to 3 places (None for no values)."""
    return round(sum(values) / len(values), 3) if values else None


def plot_sweep(rows: list[dict[str, Any]], path: Path) -> None:
    """The sweep's preview strips, one row per category, text on the left and image on the right, each labelled
    with its parts, movable joints and verdict (red when a check failed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    categories = list(dict.fromkeys(r["category"] for r in rows))
    fig, axes = plt.subplots(len(categories), 2, figsize=(12.0, 1.75 * len(categories)), squeeze=False)
    for ax in axes.ravel():
        ax.axis("off")
    for r in rows:
        ax = axes[categories.index(r["category"]), 0 if r["input"] == "text" else 1]
        if r["preview"] is not None:
            ax.imshow(r["preview"])
        verdict = "valid" if r["valid"] else "FAILS " + ", ".join(f.split(":")[0] for f in r["failed_checks"])
        ax.set_title(f"{r['input']} → {r['category']}: {r['parts']} parts, {r['movable_joints']} movable "
                     f"(truth {r['true_parts']}, {r['true_movable_joints']}), {verdict}",
                     fontsize=8, color="k" if r["valid"] else "r")
    fig.tight_layout()
    fig.savefig(path, dpi=90, format="png")
    plt.close(fig)


def batch_throughput(tmp: Path, items: int) -> list[dict[str, Any]]:
    """run_batch over ``items`` reduced jobs with 1 worker, 2 processes and a local Ray cluster."""
    from seed3d.batch import run_batch

    manifest = tmp / "jobs.jsonl"
    manifest.write_text("".join(json.dumps({"text": TEXT, "seed": i, **REDUCED}) + "\n"
                                for i in range(items)))
    rows = []
    for label, kw in (("1 worker", {"workers": 1}), ("2 workers", {"workers": 2}),
                      ("ray local, 2 actors", {"workers": 2, "ray": "local"})):
        print(f"batch {label:20s} ...", end=" ", flush=True)
        os.environ["SEED3D_HOME"] = str(tmp / f".home-{len(rows)}")  # fresh collision cache (workers inherit it)
        t0 = time.perf_counter()
        result = run_batch(manifest, tmp / f"batch-{label.replace(' ', '_').replace(',', '')}", resume=False, **kw)
        wall = time.perf_counter() - t0
        row = {"backend": label, "items": items, "seconds": round(wall, 1),
               "items_per_minute": round(60 * items / wall, 2),
               "done": result.counts["done"], "failed": result.counts["failed"]}
        rows.append(row)
        print(f"{wall:6.1f} s, {row['items_per_minute']} items/min, {row['failed']} failed", flush=True)
    base = rows[0]["items_per_minute"]
    for r in rows:
        r["speedup_vs_1_worker"] = round(r["items_per_minute"] / base, 2)
    return rows


def plot(doc: dict[str, Any], path: Path) -> None:
    """Stacked per-stage bars per asset run, and batch throughput bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from seed3d.pipeline import POST_STAGES, STAGES

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [2, 1]})
    runs = doc["per_asset"]
    labels = [f"{r['settings']}\n{r['input']}" for r in runs]
    bottom = [0.0] * len(runs)
    colours = plt.get_cmap("tab10").colors
    for k, stage in enumerate((*STAGES, *POST_STAGES)):
        vals = [float(r["stage_seconds"].get(stage, 0.0)) for r in runs]
        a.bar(labels, vals, bottom=bottom, label=stage, color=colours[k % 10])
        bottom = [x + v for x, v in zip(bottom, vals, strict=True)]
    a.axhline(60, color="k", ls="--", lw=1, label="60 s target")
    a.set_ylabel("seconds (wall, 2-core machine)")
    a.set_title("run_job per asset, per stage (CPU, shipped weights)")
    a.legend(fontsize=8, ncols=2)
    for i, r in enumerate(runs):
        a.text(i, bottom[i], f"{r['peak_pss_mb'] / 1024:.1f} GB", ha="center", va="bottom", fontsize=8)
    rows = doc["batch"]
    if rows:
        b.bar([r["backend"].replace(", ", "\n") for r in rows], [r["items_per_minute"] for r in rows],
              color=colours[0])
        b.set_ylabel("items per minute")
        b.set_title(f"seed3d batch, {rows[0]['items']} reduced jobs")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def main() -> None:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=4, help="jobs per batch run (default 4)")
    parser.add_argument("--skip-default", action="store_true", help="only the reduced settings per asset")
    parser.add_argument("--skip-reduced", action="store_true", help="no per-asset runs at the reduced settings")
    parser.add_argument("--skip-batch", action="store_true", help="no batch throughput runs")
    parser.add_argument("--sweep", type=int, default=0, metavar="N",
                        help="also run N test-split texts and images (N categories) at default settings")
    parser.add_argument("--data", default="data/synth", help="built data set for --sweep")
    parser.add_argument("--out", default=str(RESULTS / "pipeline.json"))
    args = parser.parse_args()
    from seed3d.asset import atomic_file
    from seed3d.pipeline import Seed3DPipeline

    load_before = os.getloadavg()
    skip = {"default": args.skip_default, "reduced": args.skip_reduced}
    settings = {k: v for k, v in (("default", DEFAULTS), ("reduced", REDUCED)) if not skip[k]}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_pipeline_") as tmp_name:
        tmp = Path(tmp_name)
        asset_rows = per_asset(tmp, cabinet_image(tmp / "cabinet.png"), settings) if settings else []
        sweep_rows = sweep(tmp, args.sweep, args.data) if args.sweep else []
        batch_rows = [] if args.skip_batch else batch_throughput(tmp, args.items)
    default_rows = [r for r in asset_rows if r["settings"] == "default"]
    doc = {
        "benchmark": "end-to-end pipeline on CPU with the shipped weights: per asset per stage, peak memory, "
                     "batch throughput",
        "command": " ".join([*([f"SEED3D_WEIGHTS={os.environ['SEED3D_WEIGHTS']}"] if os.environ.get("SEED3D_WEIGHTS")
                                else []), *([f"nice -n {os.nice(0)}"] if os.nice(0) else []),
                            "python eval/bench_pipeline.py", *sys.argv[1:]]),
        "machine": {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine(),
                    "shared": "other jobs may share the cores (see the load averages), so wall times vary between "
                              "runs (compare cpu_seconds)",
                    "load_average_before": [round(x, 2) for x in load_before],
                    "load_average_after": [round(x, 2) for x in os.getloadavg()]},
        "models": Seed3DPipeline.from_pretrained().model_versions(),
        "targets": {"seconds_per_asset": 60, "peak_memory_gb": 4},
        "per_asset": asset_rows,
        "default_settings": {
            "max_total_seconds": max((r["total_seconds"] for r in default_rows), default=None),
            "max_cpu_seconds": max((r["cpu_seconds"] for r in default_rows), default=None),
            "max_peak_memory_gb": max((round(r["peak_pss_mb"] / 1024, 2) for r in default_rows), default=None),
            "valid": [r["valid"] for r in default_rows]},
        "batch": batch_rows,
        "sweep": {"inputs": args.sweep, "data": args.data,
                  "valid": {kind: [sum(r["valid"] for r in sweep_rows if r["input"] == kind),
                                   sum(r["input"] == kind for r in sweep_rows)] for kind in ("text", "image")},
                  "mean_parts": round(float(sum(r["parts"] for r in sweep_rows) / max(1, len(sweep_rows))), 2),
                  "movable_joints_abs_error": {kind: _mean([abs(r["movable_joints"] - r["true_movable_joints"])
                                                           for r in sweep_rows if r["input"] == kind])
                                               for kind in ("text", "image")},
                  "max_total_seconds": max((r["total_seconds"] for r in sweep_rows), default=None),
                  "rows": [{k: v for k, v in r.items() if k != "preview"} for r in sweep_rows]},
        "total_seconds": round(time.perf_counter() - t0, 1),
    }
    out = Path(args.out)
    with atomic_file(out) as tmp_out:
        Path(tmp_out).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {out}")
    if asset_rows or batch_rows:
        png = out.with_suffix(".png")
        with atomic_file(png) as tmp_png:
            plot(doc, Path(tmp_png))
        print(f"wrote {png}")
    if sweep_rows:
        sheet = out.with_name(out.stem + "_sweep.png")
        with atomic_file(sheet) as tmp_png:
            plot_sweep(sweep_rows, Path(tmp_png))
        print(f"wrote {sheet}: {doc['sweep']['valid']} valid (text, image)")


if __name__ == "__main__":
    main()
