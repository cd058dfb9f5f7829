"""The program path end to end, per stage: a short prompt per category through ``run_job`` (generator program, every
export format, validation, preview), as ``seed3d generate --text`` runs it.

For each category a prompt names it by its first noun ("a cabinet"); the job's summary gives seconds per stage
(program, physics, export, validate, preview, total) and whether the asset passed. The physics step's collision cache
is turned off (``SEED3D_HOME`` is a fresh temporary folder), so every run decomposes from scratch, as a first run does.
The issue's target is 20 s end to end on 2 CPU cores.

    python eval/bench_program_speed.py [--categories cabinet,vase] [--base-only] [--seed 0]
        → eval/results/program_speed.json (and a bar chart program_speed.png)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

RESULTS = Path(__file__).parent / "results"
STAGES = ("program", "physics", "export", "validate", "preview")
TARGET_S = 20.0


def run(categories: list[str], seed: int) -> list[dict[str, Any]]:
    """One job per category; its stage seconds, validity and parts."""
    from tqdm import tqdm

    from seed3d import synth
    from seed3d.pipeline import JobSpec, Seed3DPipeline, run_job

    pipe = Seed3DPipeline.from_pretrained()
    rows = []
    with tempfile.TemporaryDirectory(prefix="program_speed_") as tmp:
        bar = tqdm(categories, desc="program path", unit="asset")
        for category in bar:
            bar.set_postfix_str(category)
            noun = synth.CATEGORIES[category].nouns[0] if synth.CATEGORIES[category].nouns else category
            text = f"a {noun.replace('_', ' ')}"
            t0 = time.perf_counter()
            try:
                summary = run_job(JobSpec(text=text, seed=seed, generator="program"), Path(tmp) / category, pipe=pipe)
            except Exception as exc:  # a failing job is a row of the table, not the end of the run
                rows.append({"category": category, "text": text, "error": f"{type(exc).__name__}: {exc}"})
                continue
            timings = summary["timings"]
            rows.append({"category": category, "text": text, "valid": summary["valid"],
                         "parts": summary["parts"], "movable_joints": summary["movable_joints"],
                         "seconds": {s: round(float(timings.get(s, 0.0)), 2) for s in STAGES},
                         "total": round(float(timings.get("total", time.perf_counter() - t0)), 2)})
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Median / p90 / max of the total and of each stage, and the share within the target."""
    ok = [r for r in rows if "total" in r]
    totals = np.array([r["total"] for r in ok]) if ok else np.zeros(0)
    out: dict[str, Any] = {"assets": len(rows), "errors": len(rows) - len(ok),
                           "valid": sum(bool(r.get("valid")) for r in ok), "target_s": TARGET_S}
    if len(totals):
        out["total"] = {"median": round(float(np.median(totals)), 2), "p90": round(float(np.percentile(totals, 90)), 2),
                        "max": round(float(totals.max()), 2)}
        out["within_target"] = round(float(np.mean(totals <= TARGET_S)), 3)
        out["stages_median"] = {s: round(float(np.median([r["seconds"][s] for r in ok])), 2) for s in STAGES}
        out["slowest"] = [(r["category"], r["total"]) for r in sorted(ok, key=lambda r: -r["total"])[:5]]
    return out


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    """Stacked seconds per stage, a bar per category, with the target line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in rows if "total" in r]
    fig, ax = plt.subplots(figsize=(max(8, 0.32 * len(ok)), 4))
    bottom = np.zeros(len(ok))
    for stage in STAGES:
        values = np.array([r["seconds"][stage] for r in ok])
        ax.bar(range(len(ok)), values, bottom=bottom, label=stage)
        bottom += values
    ax.axhline(TARGET_S, color="k", lw=1, ls="--", label=f"target {TARGET_S:g} s")
    ax.set_xticks(range(len(ok)), [r["category"] for r in ok], rotation=90, fontsize=7)
    ax.set_ylabel("seconds")
    ax.set_title("program path end to end, per stage (run_job, every format)")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    from seed3d import synth

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--categories", default="", help="comma-separated subset (default: every category but freeform)")
    ap.add_argument("--base-only", action="store_true", help="only the 27 base categories")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(RESULTS / "program_speed.json"))
    args = ap.parse_args()
    cats = [c for c in args.categories.split(",") if c] or [
        c for c in (synth.BASE_CATEGORIES if args.base_only else synth.CATEGORIES) if c != "freeform"]
    home = tempfile.mkdtemp(prefix="program_speed_home_")
    os.environ["SEED3D_HOME"] = home  # no collision cache from earlier runs
    t0 = time.perf_counter()
    rows = run(cats, args.seed)
    out = Path(args.out)
    doc = {"benchmark": "program_speed", "command": "python eval/bench_program_speed.py"
           + (f" --categories {args.categories}" if args.categories else "") + (" --base-only" if args.base_only
                                                                                else ""),
           "summary": summarise(rows), "rows": rows, "seconds": round(time.perf_counter() - t0, 1),
           "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                       "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}}
    out.write_text(json.dumps(doc, indent=1) + "\n")
    plot(rows, out.with_suffix(".png"))
    print(json.dumps(doc["summary"], indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
