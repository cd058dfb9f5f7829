"""Joints the learned path emits for the hand-written prompt set, held to the functional checks (issue 58 §2).

    python eval/bench_learned_joints.py                       # the default subset (see below)
    python eval/bench_learned_joints.py --limit 3 --out /tmp/lj.json
    python eval/bench_learned_joints.py --categories cabinet microwave --per-category 2

Prompts: eval/program_prompts.jsonl and eval/program_prompts_heldout.jsonl (written by hand, with the expected
category and counts). The subset: prompts whose category the engine builds and that state at least one count of a
moving part (doors, drawers, lids, wheels, buttons, dials), the first ``--per-category`` of each category in file
order (program_prompts.jsonl first), then ``--limit``.

Each prompt goes through ``Seed3DPipeline`` twice: ``generator="learned"`` with the geometry, parts and
articulation stages (texture left out: it changes no joint) at ``--steps`` / ``--resolution`` / ``--target-faces``,
and ``generator="program"`` for contrast. On each asset: ``seed3d.physics.functional.check_asset`` (travel, axis,
mass share, free space, kinds; the learned asset's category is the one the text names by an exact noun, as the
pipeline records it), and per movable joint the checks it fails (``joint_verdicts``). Reported per path:

- movable joints emitted per asset;
- the share of movable joints that pass every functional check, and the share of assets whose checks all pass;
- count match: per stated moving-part count the output's movable joints whose child carries that label
  (doors: door; drawers: drawer; lids: lid; wheels: wheel; buttons: button; dials: knob or dial) against the
  prompt's number; an asset matches when every stated count does; also the share of stated counts right;
- the expected parts the checks say are missing ("asked for two doors, found none"), and seconds per stage.

With ``--test-split CATEGORY ...`` the same runs also take images of held-out test-split objects (the clean view 0
render of ``synth.generate(category, seed)`` for each ``--seeds``, as eval/bench_program_compare.py renders it),
the expected counts being the truth asset's movable doors, drawers and lids (the image's movable-part count); the
learned asset is told the true category before the checks (measurement only: the image path does not know it), so
the kinds check runs.

Resumable: each finished prompt is a line of ``--work``/items.jsonl. Writes eval/results/learned_joints.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

EVAL = Path(__file__).resolve().parent
ROOT = EVAL.parent
sys.path.insert(0, str(EVAL))
sys.path.insert(0, str(ROOT))

RESULTS = EVAL / "results"
PROMPT_FILES = (EVAL / "program_prompts.jsonl", EVAL / "program_prompts_heldout.jsonl")
#: Stated counts of moving parts → the labels of the movable joints' children that count for them.
MOVING_COUNTS: dict[str, tuple[str, ...]] = {"doors": ("door",), "drawers": ("drawer",), "lids": ("lid",),
                                             "wheels": ("wheel",), "buttons": ("button",), "dials": ("knob", "dial")}


def read_prompts(files: tuple[Path, ...]) -> list[dict[str, Any]]:
    """Rows of the prompt files, each with its file and line."""
    rows = []
    for path in files:
        for k, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip() and not line.lstrip().startswith("#"):
                row = json.loads(line)
                row.update(file=path.name, line=k)
                rows.append(row)
    return rows


def pick(rows: list[dict[str, Any]], categories: list[str] | None, per_category: int, limit: int | None
         ) -> list[dict[str, Any]]:
    """The subset (see the module doc)."""
    seen: dict[str, int] = {}
    out = []
    for r in rows:
        cat = r.get("category")
        stated = {k: v for k, v in (r.get("counts") or {}).items() if k in MOVING_COUNTS}
        if not cat or not stated or (categories and cat not in categories) or seen.get(cat, 0) >= per_category:
            continue
        seen[cat] = seen.get(cat, 0) + 1
        out.append(r)
    return out[:limit] if limit else out


def measure(asset: Any, row: dict[str, Any]) -> dict[str, Any]:
    """Functional checks, per-joint verdicts and count match of one asset against its prompt."""
    from seed3d.physics.functional import check_asset

    t0 = time.perf_counter()
    report = check_asset(asset)
    labels = {p.name: p.label for p in asset.parts}
    movable = [j for j in asset.joints if j.movable]
    failed = {name: list(v["failed"]) for name, v in report.joints.items()}
    joints = [{"name": j.name, "type": j.type, "label": labels.get(j.child), "failed": failed.get(j.name, [])}
              for j in movable]
    stated = {k: int(v) for k, v in (row.get("counts") or {}).items() if k in MOVING_COUNTS}
    got = {k: sum(1 for j in movable if labels.get(j.child) in MOVING_COUNTS[k]) for k in stated}
    return {"category": report.category, "category_source": report.category_source, "parts": len(asset.parts),
            "movable_joints": len(movable), "joints_passing": sum(1 for j in joints if not j["failed"]),
            "joints": joints, "functional_passed": report.passed,
            "checks": {r.name: r.status for r in report.results}, "missing": list(report.missing),
            "counts": {k: {"expected": stated[k], "got": got[k], "ok": got[k] == stated[k]} for k in stated},
            "count_match": all(got[k] == stated[k] for k in stated),
            "check_seconds": round(time.perf_counter() - t0, 3)}


def test_rows(categories: list[str], seeds: list[int]) -> list[dict[str, Any]]:
    """Held-out test-split objects as rows: the clean render as ``image`` and the truth's moving-part counts."""
    import bench_program_compare as bc

    from seed3d import synth
    from seed3d.render import get_renderer

    rows = []
    renderer = get_renderer("moderngl")
    for seed in seeds:
        for cat in categories:
            truth = synth.generate(cat, seed)
            rgb, alpha, _ = bc.render_input(truth, renderer, cat, seed)
            labels = {p.name: p.label for p in truth.parts}
            moving = [labels.get(j.child) for j in truth.joints if j.movable]
            counts = {k: sum(lab in MOVING_COUNTS[k] for lab in moving) for k in ("doors", "drawers", "lids")}
            rows.append({"file": "test-split", "line": f"{cat}/{seed}", "text": None, "category": cat,
                         "counts": counts,
                         "image": bc.straight_rgba(rgb, alpha)})
    renderer.close()
    return rows


def run_prompt(pipe: Any, row: dict[str, Any], paths: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Both paths on one prompt (or one test-split image)."""
    rec: dict[str, Any] = {"id": f"{row['file']}:{row['line']}", "text": row["text"], "category": row["category"],
                           "counts": row.get("counts", {})}
    inputs = {"text": row["text"]} if row.get("image") is None else {"image": row["image"]}
    for path in paths:
        t0 = time.perf_counter()
        try:
            if path == "learned":
                asset = pipe(**inputs, generator="learned", seed=0,
                             stages=("geometry", "parts", "articulation"), steps=args.steps,
                             resolution=args.resolution, target_faces=args.target_faces)
                if "image" in inputs:
                    asset.metadata["category"] = row["category"]  # measurement only (see the module doc)
            else:
                asset = pipe(**inputs, generator="program", seed=0)
            wall = time.perf_counter() - t0
            timings = {k: v for k, v in asset.metadata.get("timings", {}).items() if isinstance(v, int | float)}
            rec[path] = {"seconds": round(wall, 3), "timings": timings, **measure(asset, row)}
        except Exception as exc:  # a failing prompt is a recorded result, never the end of the run
            rec[path] = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc(limit=3)[-600:]}
    return rec


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def summarise(records: list[dict[str, Any]], path: str) -> dict[str, Any]:
    """One path's figures over the records."""
    rows = [r[path] for r in records if path in r]
    ok = [x for x in rows if "error" not in x]
    joints = sum(x["movable_joints"] for x in ok)
    passing = sum(x["joints_passing"] for x in ok)
    stated = [c for x in ok for c in x["counts"].values()]
    stages: dict[str, list[float]] = {}
    for x in ok:
        for k, v in x["timings"].items():
            stages.setdefault(k, []).append(float(v))
    fails: dict[str, int] = {}
    for x in ok:
        for j in x["joints"]:
            for f in j["failed"]:
                fails[f] = fails.get(f, 0) + 1
    return {"assets": len(rows), "failed_runs": len(rows) - len(ok),
            "movable_joints_per_asset": round(joints / len(ok), 3) if ok else None,
            "movable_joints": joints, "joints_passing": passing, "share_joints_passing": _rate(passing, joints),
            "share_assets_functional_passed": _rate(sum(x["functional_passed"] for x in ok), len(ok)),
            "share_assets_count_match": _rate(sum(x["count_match"] for x in ok), len(ok)),
            "share_stated_counts_right": _rate(sum(c["ok"] for c in stated), len(stated)),
            "joint_check_failures": fails,
            "assets_with_missing_parts_reported": sum(1 for x in ok if x["missing"]),
            "seconds_per_stage_mean": {k: round(float(np.mean(v)), 3) for k, v in stages.items()},
            "seconds_wall_mean": round(float(np.mean([x["seconds"] for x in ok])), 3) if ok else None}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write the results."""
    from tqdm import tqdm

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--categories", nargs="*", help="only prompts of these categories")
    ap.add_argument("--per-category", type=int, default=1, help="prompts per category")
    ap.add_argument("--limit", type=int, help="first N prompts of the subset")
    ap.add_argument("--paths", nargs="+", default=["learned", "program"], choices=("learned", "program"))
    ap.add_argument("--steps", type=int, default=10, help="learned path: flow steps")
    ap.add_argument("--resolution", type=int, default=64, help="learned path: extraction grid")
    ap.add_argument("--target-faces", type=int, default=5000, help="learned path: faces after decimation")
    ap.add_argument("--test-split", nargs="*", default=[], metavar="CATEGORY",
                    help="also images of these held-out test-split categories")
    ap.add_argument("--seeds", nargs="+", type=int, default=[10000], help="held-out seeds of --test-split")
    ap.add_argument("--no-prompts", action="store_true", help="only the --test-split images")
    ap.add_argument("--work", type=Path, default=Path("/tmp/seed3d_learned_joints"), help="items.jsonl (resume)")
    ap.add_argument("--out", type=Path, default=RESULTS / "learned_joints.json")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    import torch

    from seed3d.pipeline import Seed3DPipeline

    torch.manual_seed(0)
    settings = {k: getattr(args, k) for k in ("steps", "resolution", "target_faces")}
    prompts = [] if args.no_prompts else pick(read_prompts(PROMPT_FILES), args.categories, args.per_category,
                                                args.limit)
    prompts += test_rows(args.test_split, args.seeds) if args.test_split else []
    args.work.mkdir(parents=True, exist_ok=True)
    log_path = args.work / "items.jsonl"
    done: dict[str, dict[str, Any]] = {}
    if log_path.is_file():
        for line in log_path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                if rec.get("settings") == settings and all(p in rec for p in args.paths):
                    done[rec["id"]] = rec
    pipe = Seed3DPipeline.from_pretrained()
    t0 = time.perf_counter()
    records = []
    bar = tqdm(prompts, desc="prompts", unit="prompt")
    for row in bar:
        key = f"{row['file']}:{row['line']}"
        bar.set_postfix_str(row["category"])
        if key in done:
            records.append(done[key])
            continue
        rec = run_prompt(pipe, row, args.paths, args)
        rec["settings"] = settings
        with log_path.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        records.append(rec)
    summary = {p: summarise([r for r in records if r["text"] is not None], p) for p in args.paths}
    if args.test_split:
        summary["test_split"] = {p: summarise([r for r in records if r["text"] is None], p) for p in args.paths}
    command = "python eval/bench_learned_joints.py " + " ".join(argv if argv is not None else sys.argv[1:])
    doc = {"benchmark": "joints of the learned path (and the program path) on the hand-written prompts, held to the "
                        "functional checks", "command": command.strip(), "settings": settings,
           "prompt_files": [p.name for p in PROMPT_FILES], "prompts": len(records),
           "platform": platform.platform(), "torch_threads": torch.get_num_threads(),
           "seconds": round(time.perf_counter() - t0, 1), "summary": summary, "items": records}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    for p, s in [*summary.items(), *[(f"test {k}", v) for k, v in summary.get("test_split", {}).items()]]:
        if p == "test_split":
            continue
        print(f"{p:8s} assets {s['assets']} joints/asset {s['movable_joints_per_asset']} passing "
              f"{s['share_joints_passing']} assets passing {s['share_assets_functional_passed']} count match "
              f"{s['share_assets_count_match']} stated counts right {s['share_stated_counts_right']} "
              f"fails {s['joint_check_failures']} wall {s['seconds_wall_mean']} s")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
