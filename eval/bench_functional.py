"""Functional checks on the synthetic test split: no false alarms on objects we know are right.

Run: ``python eval/bench_functional.py`` → prints a per-category table and writes eval/results/functional.json.

For every category and the first ``--per-category`` (20) samples the test split holds of it (sample ``i`` of the split
is category ``i % 27`` with seed ``SPLIT_SEEDS["test"] + i``; ``--seeds 10000-10004`` takes those seeds instead)
the synthetic asset is built and ``seed3d.physics.functional.check_asset`` runs on it as generated (masses from
its closed meshes × density, as the inertials ``seed3d.physics.prepare`` computes). Every check should pass:
a warning or failure on a synthetic asset is a false alarm. Beside the verdicts it records, per kind of joint,
the smallest and largest figures behind each threshold (travel over need, mass share, axis angle, hinge offset,
off-level angle, roundness, swept overlap), which is what ``KIND_RULES`` and ``FunctionalConfig`` were set from.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path
from typing import Any

from seed3d.asset import atomic_file
from seed3d.physics.functional import CHECKS, KIND_RULES, FunctionalConfig, check_asset
from seed3d.synth import generate, list_categories
from seed3d.synth.dataset import SPLIT_SEEDS

RESULTS = Path(__file__).parent / "results"

#: Figures gathered per kind: (numbers key, what it is).
FIGURES = {"travel": "range (rad or m)", "travel_over_need": "range over the kind's need",
           "mass_share": "moving subtree's share of the object's mass", "axis_off_deg": "axis to nearest box axis",
           "hinge_edge_share": "hinge line's distance to the panel's edge over its width",
           "off_level_deg": "slide's angle to level", "roundness": "smaller over larger extent across the axis",
           "swept_overlap_share": "growth of the shared volume over the sweep, share of the moving volume"}


def _seeds(category_index: int, count: int, n_categories: int, explicit: list[int] | None) -> list[int]:
    if explicit is not None:
        return explicit
    return [SPLIT_SEEDS["test"] + category_index + n_categories * k for k in range(count)]


def _parse_seeds(text: str | None) -> list[int] | None:
    if not text:
        return None
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def _figures(row: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    travel, need = row.get("travel"), row.get("travel_needed")
    if isinstance(travel, float):
        out["travel"] = travel
        if isinstance(need, float) and need > 0:
            out["travel_over_need"] = travel / need
    for key in ("mass_share", "axis_off_deg", "off_level_deg", "roundness", "swept_overlap_share"):
        if isinstance(row.get(key), (int, float)):
            out[key] = float(row[key])
    if isinstance(row.get("hinge_from_edge"), float) and row.get("panel_width"):
        out["hinge_edge_share"] = row["hinge_from_edge"] / row["panel_width"]
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the sweep, print the table, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-category", type=int, default=20, help="test-split samples per category")
    ap.add_argument("--seeds", help="explicit seeds for every category instead, e.g. 10000-10004")
    ap.add_argument("--categories", help="comma-separated categories (default: all)")
    ap.add_argument("--out", default=str(RESULTS / "functional.json"))
    args = ap.parse_args(argv)
    every = list_categories()
    cats = args.categories.split(",") if args.categories else every
    explicit = _parse_seeds(args.seeds)
    cfg = FunctionalConfig()
    assets: list[dict[str, Any]] = []
    kinds: dict[str, dict[str, list[float]]] = {}
    start = time.perf_counter()
    print(f"{'category':16s} {'assets':>6s} {'joints':>6s} " + " ".join(f"{c:>10s}" for c in CHECKS) + "  seconds")
    for cat in cats:
        tally = {c: {"pass": 0, "warn": 0, "fail": 0, "skip": 0} for c in CHECKS}
        n_joints, seconds, built = 0, 0.0, 0
        for seed in _seeds(every.index(cat), args.per_category, len(every), explicit):
            try:
                asset = generate(cat, seed)
            except Exception as exc:  # a category the synth engine cannot build: recorded, not fatal
                assets.append({"category": cat, "seed": seed, "error": f"{type(exc).__name__}: {exc}"})
                continue
            t0 = time.perf_counter()
            report = check_asset(asset, cfg)
            dt = time.perf_counter() - t0
            seconds += dt
            built += 1
            n_joints += len(report.joints)
            for r in report.results:
                tally[r.name.removeprefix("functional.")][r.status] += 1
            for row in report.joints.values():
                for key, value in _figures(row).items():
                    kinds.setdefault(row["kind"], {}).setdefault(key, []).append(value)
            assets.append({"category": cat, "seed": seed, "seconds": round(dt, 3), "passed": report.passed,
                           "joints": len(report.joints), "kinds": sorted({r["kind"] for r in report.joints.values()}),
                           "checks": {r.name: r.status for r in report.results},
                           "alarms": [f"{r.name}: {r.message}" for r in report.results
                                      if r.status in ("warn", "fail")]})
        cells = " ".join(f"{tally[c]['pass']:>4d}/{tally[c]['warn'] + tally[c]['fail']:<2d}"
                         f"{'s' + str(tally[c]['skip']) if tally[c]['skip'] else '':>3s}" for c in CHECKS)
        print(f"{cat:16s} {built:>6d} {n_joints:>6d} {cells}  {seconds:7.1f}", flush=True)
    built_assets = [a for a in assets if "error" not in a]
    alarms = [a for a in built_assets if a["alarms"]]
    per_check = {c: sum(a["checks"].get(f"functional.{c}") in ("warn", "fail") for a in built_assets) for c in CHECKS}
    summary = {
        "assets": len(built_assets), "crashed": [f"{a['category']} {a['seed']}" for a in assets if "error" in a],
        "joints": sum(a["joints"] for a in built_assets),
        "assets_with_alarms": len(alarms),
        "false_alarm_rate": len(alarms) / max(len(built_assets), 1),
        "alarms_per_check": per_check,
        "seconds_per_asset_median": sorted(a["seconds"] for a in built_assets)[len(built_assets) // 2]
        if built_assets else None,
    }
    figures = {k: {key: {"n": len(v), "min": min(v), "max": max(v)} for key, v in sorted(figs.items())}
               for k, figs in sorted(kinds.items())}
    doc = {
        "what": "seed3d.physics.functional.check_asset on synthetic test-split assets; every alarm is a false alarm",
        "command": "python eval/bench_functional.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "seeds": "explicit " + args.seeds if explicit else f"test split, first {args.per_category} per category",
        "config": {k: v for k, v in vars(cfg).items()},
        "rules": {k: {"min_travel": r.min_travel, "min_travel_ratio": r.min_travel_ratio,
                      "min_share": r.min_share, "max_share": r.max_share, "doc": r.doc}
                  for k, r in KIND_RULES.items()},
        "figure_keys": FIGURES, "summary": summary, "by_kind": figures, "assets": assets,
        "seconds": round(time.perf_counter() - start, 1), "python": platform.python_version(),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(out) as tmp:
        tmp.write_text(json.dumps(doc, indent=1, allow_nan=False, default=_finite) + "\n")
    print(f"{summary['assets']} assets, {summary['joints']} movable joints: {summary['assets_with_alarms']} with "
          f"alarms (false-alarm rate {summary['false_alarm_rate']:.1%}); wrote {out}")
    for a in alarms:
        print(f"  {a['category']} {a['seed']}: " + " | ".join(a["alarms"]))
    return 0 if not alarms else 1


def _finite(value: Any) -> Any:
    return value if not isinstance(value, float) or math.isfinite(value) else str(value)


if __name__ == "__main__":
    raise SystemExit(main())
