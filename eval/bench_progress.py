"""Does progress look alive? One job per path through ``run_job``'s progress callback, every event recorded.

A text job on the learned path (``generator="learned"``, every other setting at its default: all stages, 25 flow
steps, 128³ extraction, 50k faces, 1024² textures, every export format, validation and preview) and the same text
on the program path. Every call of the progress callback is recorded as (seconds since the job started, stage,
fraction, message). A *gap* is the time between two consecutive events, charged to the stage the earlier event
reported (the one the bar showed while nothing moved); the silence before the first event counts too, and so does
the one after the last (until ``run_job`` returned). Also checked: every stage's fraction never goes back, and the
overall figure the service shows (``api.worker._Progress``'s mapping, ``seed3d.progress.OverallProgress``: each stage
weighted by its share of the time on the job's path) never goes back; its longest *stall* is the longest time it
moved less than ``STALL_PERCENT`` (the bar that "looks stuck"), and ``overall_at_stage_end`` where it stood as each
stage ended (before stage weights, when every stage had an equal share, the geometry stage ended at 12.5 %).

    python eval/bench_progress.py [--text "a small wooden cabinet"] [--paths learned,program] [--tag before]
                                  [--before eval/results/progress_before.json]
        → eval/results/progress[_TAG].json (+ .png: overall progress against time, coloured by stage; with
          --before, the earlier run's figures are kept under "before" and its panels plotted below, with the
          equal-share figure the service showed then)

The issue's target: every stage reports at least every few seconds (here: no gap over ``TARGET_S`` on 2 busy cores).
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

RESULTS = Path(__file__).parent / "results"
#: The largest silence (seconds) the issue accepts: "at least every few seconds".
TARGET_S = 5.0
#: The overall figure "stalls" while it moves less than this many percentage points.
STALL_PERCENT = 1.0


def record(text: str, generator: str, seed: int) -> dict[str, Any]:
    """Run one job; its events, its stage order and the seconds it took."""
    from seed3d.pipeline import POST_STAGES, JobSpec, Seed3DPipeline, run_job

    pipe = Seed3DPipeline.from_pretrained()  # as a worker holds it: components load inside their stage
    spec = JobSpec(text=text, seed=seed, generator=generator)
    events: list[tuple[float, str, float, str]] = []
    with tempfile.TemporaryDirectory(prefix="progress_") as tmp:
        t0 = time.perf_counter()

        def progress(stage: str, fraction: float, message: str = "") -> None:
            events.append((round(time.perf_counter() - t0, 3), stage, round(float(fraction), 4), message))

        summary = run_job(spec, Path(tmp) / "job", pipe=pipe, progress=progress)
        seconds = time.perf_counter() - t0
    order = ([] if generator == "learned" else ["program"]) + list(spec.stages) + list(POST_STAGES)
    return {"generator": generator, "path": summary["generator"].get("path"), "text": text, "seed": seed,
            "stages": order, "valid": summary["valid"], "parts": summary["parts"], "seconds": round(seconds, 2),
            "timings": summary["timings"], "events": events}


def overall(order: list[str], events: list[Any], weighted: bool = True) -> list[float | None]:
    """Where each event lies on the service's overall figure, in percent (``api.worker._Progress``'s mapping,
    ``seed3d.progress.OverallProgress.figure``; ``weighted=False``: the equal share per stage it gave before; None
    for a stage not in ``order``)."""
    from seed3d.progress import OverallProgress

    shown = OverallProgress(order, weights=None if weighted else [1.0] * len(order))
    return [None if (v := shown.figure(e[1], e[2])) is None else 100.0 * v for e in events]


def stall(events: list[Any], values: list[float], seconds: float) -> tuple[float, float, float]:
    """(seconds, from, at percent) of the longest time the overall figure moved less than ``STALL_PERCENT``."""
    best = (0.0, 0.0, 0.0)
    t_start, v_start = 0.0, 0.0
    for e, v in zip(events, values, strict=True):
        if v - v_start >= STALL_PERCENT:
            t_start, v_start = e[0], v
        elif e[0] - t_start > best[0]:
            best = (e[0] - t_start, t_start, v_start)
    if seconds - t_start > best[0]:
        best = (seconds - t_start, t_start, v_start)
    return round(best[0], 2), round(best[1], 2), round(best[2], 1)


def analyse(run: dict[str, Any]) -> dict[str, Any]:
    """Gaps per stage and overall, event counts, monotonicity."""
    events, order = run["events"], run["stages"]
    times = [0.0] + [e[0] for e in events] + [run["seconds"]]
    stages = ["start"] + [e[1] for e in events]
    messages = [""] + [e[3] for e in events]
    per_stage: dict[str, dict[str, Any]] = {}
    for i in range(len(times) - 1):
        gap = times[i + 1] - times[i]
        s = per_stage.setdefault(stages[i], {"events": 0, "max_gap_s": 0.0, "at_s": 0.0, "message": ""})
        if gap > s["max_gap_s"]:
            s.update(max_gap_s=round(gap, 2), at_s=round(times[i], 2), message=messages[i])
    for e in events:
        per_stage[e[1]]["events"] += 1
    back_in_stage = 0
    last: dict[str, float] = {}
    for _, stage, fraction, _ in events:
        back_in_stage += fraction < last.get(stage, 0.0) - 1e-9
        last[stage] = max(fraction, last.get(stage, 0.0))
    back_overall, value, values = 0, 0.0, []
    for v in overall(order, events):
        if v is not None:
            back_overall += v < value - 1e-9
            value = max(value, v)
        values.append(value)  # what the service shows: never lower than before
    at_end = {e[1]: round(v, 1) for e, v in zip(events, values, strict=True)}  # the last event of each stage
    stalled = stall(events, values, run["seconds"])
    worst = max(per_stage.items(), key=lambda kv: kv[1]["max_gap_s"])
    return {"generator": run["generator"], "path": run["path"], "text": run["text"], "stages": order,
            "valid": run["valid"],
            "parts": run["parts"], "seconds": run["seconds"], "events": len(events),
            "max_gap_s": worst[1]["max_gap_s"], "max_gap_stage": worst[0], "max_gap_message": worst[1]["message"],
            "stages_over_target": sorted(k for k, v in per_stage.items() if v["max_gap_s"] > TARGET_S),
            "per_stage": per_stage,
            "stage_events_missing": [s for s in order if s in run["timings"] and s not in per_stage],
            "fraction_went_back_within_a_stage": back_in_stage, "overall_went_back": back_overall,
            "overall_at_stage_end": at_end,
            "overall_longest_stall": {"seconds": stalled[0], "from_s": stalled[1], "at_percent": stalled[2],
                                      "moving_less_than_percent": STALL_PERCENT},
            "timings": run["timings"]}


def plot(runs: list[dict[str, Any]], path: Path) -> None:
    """Overall progress (the service's figure) against time, one panel per path, points coloured by stage."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(runs), 1, figsize=(11, 3.6 * len(runs)), squeeze=False)
    cmap = plt.get_cmap("tab10")
    for ax, run in zip(axes[:, 0], runs, strict=True):
        order = run["stages"]
        xs = [e[0] for e in run["events"]]
        ys = [v or 0.0 for v in overall(order, run["events"], weighted=not run.get("equal_shares"))]
        ax.step(xs, ys, where="post", color="0.7", lw=0.8)
        for k, stage in enumerate(order):
            pts = [(x, y) for x, y, e in zip(xs, ys, run["events"], strict=True) if e[1] == stage]
            if pts:
                ax.scatter(*zip(*pts, strict=True), s=9, color=cmap(k % 10), label=stage, zorder=3)
        how = "equal share per stage" if run.get("equal_shares") else "stages weighted by their time"
        ax.set_title(f"{run['generator']} path: {run['text']!r}, {len(xs)} events in {run['seconds']:.0f} s ({how})")
        ax.set_xlabel("seconds since the job started")
        ax.set_ylabel("overall progress (%)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", default="a small wooden cabinet")
    parser.add_argument("--paths", default="learned,program", help="generators to run, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tag", default="", help="suffix of the result files (progress_TAG.json)")
    parser.add_argument("--before", type=Path, help="an earlier result of this script (e.g. before a change): kept "
                                                     "in the result under 'before' and plotted beside this run")
    args = parser.parse_args()
    started = time.time()
    runs = [record(args.text, p, args.seed) for p in args.paths.split(",")]
    doc: dict[str, Any] = {
        "benchmark": "progress events of one job per path (run_job's progress callback, default settings)",
        "command": f"python eval/bench_progress.py --text {args.text!r} --paths {args.paths} --seed {args.seed}"
                   + (f" --tag {args.tag}" if args.tag else "") + (f" --before {args.before}" if args.before else ""),
        "target_max_gap_s": TARGET_S, "machine": platform.machine(), "cpus": os.cpu_count(),
        "load_average_at_start": os.getloadavg(), "python": platform.python_version(),
        "runs": [analyse(r) for r in runs]}
    doc["max_gap_s"] = max(r["max_gap_s"] for r in doc["runs"])
    doc["events"] = {r["generator"]: r["events"] for r in runs}  # (seconds, stage, fraction, message)
    shown = list(runs)
    if args.before is not None:
        earlier = json.loads(args.before.read_text())
        earlier = earlier.get("before", earlier) if "runs" not in earlier else earlier
        doc["before"] = {k: earlier[k] for k in ("command", "load_average_at_start", "max_gap_s", "runs", "events",
                                                 "note") if k in earlier}
        doc["max_gap_s_before_after"] = {
            r["generator"]: {"before": b["max_gap_s"], "after": r["max_gap_s"],
                             "per_stage": {st: {"before": b["per_stage"].get(st, {}).get("max_gap_s"),
                                                "after": v["max_gap_s"]} for st, v in r["per_stage"].items()}}
            for r in doc["runs"] for b in earlier["runs"] if b["generator"] == r["generator"]}
        for b in earlier["runs"]:
            if b["generator"] in earlier.get("events", {}):
                shown.append({"generator": f"before: {b['generator']}", "text": b["text"], "seconds": b["seconds"],
                              "equal_shares": True,
                              "stages": b.get("stages") or [*([] if b["generator"] == "learned" else ["program"]),
                                                            *[st for st in runs[0]["stages"] if st != "program"]],
                              "events": earlier["events"][b["generator"]]})
    doc["seconds"] = round(time.time() - started, 1)
    RESULTS.mkdir(exist_ok=True)
    from seed3d.asset import atomic_file

    stem = "progress" + (f"_{args.tag}" if args.tag else "")
    with atomic_file(RESULTS / f"{stem}.json") as f:
        f.write_text(json.dumps(doc, indent=1) + "\n")
    plot(shown, RESULTS / f"{stem}.png")
    print(json.dumps({k: v for k, v in doc.items() if k != "events"}, indent=1))


if __name__ == "__main__":
    main()
