"""Every synth category over many seeds, through physics preparation, every exporter and ``seed3d validate``.

Run: ``python eval/bench_synth.py [--seeds 0-19] [--categories bucket,kettle] [--no-grid]``
→ eval/results/synth.json (and eval/results/synth_grid.png: every category at seeds 0, 1, 2, at rest and opened).

For each (category, seed), seeds outermost (so an interrupted run has covered every category evenly), the asset is
built (``seed3d.synth.generate``: the build seconds), prepared (``seed3d.physics.prepare``), saved, exported to GLB,
URDF, MJCF and USD/USDZ and validated (``seed3d.physics.validate.validate_path``, as ``seed3d validate`` runs it).
The validator's checks are grouped by the engine that runs them: PyBullet (the URDF's checks, MJCF's PyBullet
import), MuJoCo (the MJCF's checks, the URDF loaded in MuJoCo) and UsdPhysics (the USD and USDZ checks); an asset is
valid in an engine when none of that engine's checks failed, and valid when the whole report passed (the functional
checks included: every movable joint moves as far as its kind needs without its part passing through another).
Joints exercised: the movable joints the validator drove to both limits in PyBullet and in MuJoCo. The collision
hulls are checked against the GPU simulator's caps (``CollisionConfig``: hulls per part, vertices and face planes
per hull). Parts the builder gives no exact collision pieces are decomposed by CoACD with ``PART_BUDGET_S`` per
part instead of the default 20 s (on a loaded machine the default runs out and the part gets the coarse box
fallback: that measures the machine, not the builder) and a cache of the bench's own; each row records the
decomposition methods used.

Each finished (category, seed) is appended to eval/results/synth_rows.jsonl; a rerun skips those (``--fresh``
starts over) and ``--report-only`` writes the JSON from the rows alone. A (category, seed) that was running when the
process died (a crash in an engine) is recorded as such on the next run, not retried.
"""

from __future__ import annotations

import argparse
import json
import platform
import signal
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
ROWS = RESULTS / "synth_rows.jsonl"
ENGINES = ("pybullet", "mujoco", "usd")
GRID_SEEDS = (0, 1, 2)
#: CoACD's time budget per part (s), wall clock (the library default is 20 s).
PART_BUDGET_S = 300.0
#: The bench's own collision cache: the shared one (``~/.seed3d/cache/collision``) may hold single-hull fallbacks
#: written when a script without a ``__main__`` guard could not start CoACD's process.
CACHE = Path(tempfile.gettempdir()) / "seed3d_bench_synth" / "collision"


def parse_seeds(text: str) -> list[int]:
    """``0-19`` or ``0,3,5-7`` as a list of seeds."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def engine_of(check: str) -> str | None:
    """The engine whose run a validator check belongs to (None: engine-independent, e.g. ``asset.*``, ``glb.*``)."""
    fmt, _, what = check.partition(".")
    if fmt == "kinematics":
        fmt, what = what, ""
    if "pybullet" in what:
        return "pybullet"
    if "mujoco" in what:
        return "mujoco"
    return {"urdf": "pybullet", "mjcf": "mujoco", "usd": "usd", "usdz": "usd"}.get(fmt)


def hull_caps(asset: Any) -> dict[str, Any]:
    """The asset's collision hulls against the GPU caps: most hulls on a part, most vertices and face planes on a
    hull, and the hulls over a cap."""
    from seed3d.physics.collision import CollisionConfig, hull_problems

    cfg = CollisionConfig()
    most_hulls = max((len(p.collision) for p in asset.parts), default=0)
    verts = 0
    over: list[str] = []
    for p in asset.parts:
        for k, h in enumerate(p.collision):
            verts = max(verts, len(h.vertices))
            problems = hull_problems(h, cfg.max_hull_vertices, cfg.max_hull_polygons)
            if problems:
                over.append(f"{p.name}[{k}]: {'; '.join(problems)}")
        if len(p.collision) > cfg.max_hulls:
            over.append(f"{p.name}: {len(p.collision)} hulls (> {cfg.max_hulls})")
    return {"most_hulls_per_part": most_hulls, "most_hull_vertices": verts, "over_caps": over[:5],
            "within_caps": not over}


def run_one(category: str, seed: int, tmp: Path) -> dict[str, Any]:
    """Build, prepare, export and validate one asset; its row."""
    from seed3d.export import export_asset
    from seed3d.physics import PhysicsConfig, prepare
    from seed3d.physics.collision import CollisionConfig
    from seed3d.physics.validate import validate_path
    from seed3d.synth import generate

    row: dict[str, Any] = {"category": category, "seed": seed}
    t0 = time.perf_counter()
    asset = generate(category, seed)
    t1 = time.perf_counter()
    # CoACD (for parts the builder gives no exact pieces) may take its time: on a loaded machine the default
    # 20 s per part runs out and the part gets the coarse box fallback, which measures the machine, not the builder
    collision = CollisionConfig(time_budget=PART_BUDGET_S, cache_dir=str(CACHE))
    asset = prepare(asset, PhysicsConfig(collision, collision_budget=0.0))
    t2 = time.perf_counter()
    physics = asset.metadata.get("physics", {})
    methods = physics.get("methods", {})
    row["collision_methods"] = {m: sum(v == m for v in methods.values()) for m in sorted(set(methods.values()))}
    row["prepare_warnings"] = [w[:200] for w in physics.get("warnings", []) if "collision" in w][:4]
    out = asset.save(tmp / asset.name)
    export_asset(asset, out)
    t3 = time.perf_counter()
    report = validate_path(out)
    t4 = time.perf_counter()
    row["seconds"] = {"build": round(t1 - t0, 3), "prepare": round(t2 - t1, 3), "export": round(t3 - t2, 3),
                      "validate": round(t4 - t3, 3), "total": round(t4 - t0, 3)}
    row["parts"] = len(asset.parts)
    movable = [j for j in asset.joints if j.movable]
    row["joints"] = {t: sum(j.type == t for j in movable) for t in ("revolute", "prismatic", "continuous")}
    info = report.functional_info.get("joints", {}) or {}
    row["kinds"] = sorted({str(v.get("kind")) for v in info.values() if isinstance(v, dict)})
    engines: dict[str, dict[str, Any]] = {}
    for e in ENGINES:
        checks = [c for c in report.checks if engine_of(c.name) == e]
        failed = [f"{c.name}: {c.message}" for c in checks if c.status == "fail"]
        ran = [c for c in checks if c.status != "skip"]
        engines[e] = {"valid": bool(ran) and not failed, "checks": len(ran), "failed": failed}
    row["engines"] = engines
    other = [f"{c.name}: {c.message}" for c in report.checks if engine_of(c.name) is None and c.status == "fail"]
    row["other_failed"] = other
    row["functional"] = {"passed": report.functional_passed,
                         "failed": [f"{c.name}: {c.message}" for c in report.functional if c.status == "fail"]}
    driven = {}
    for e, name in (("pybullet", "urdf.drive"), ("mujoco", "mjcf.drive")):
        try:
            c = report.check(name)
        except KeyError:
            driven[e] = 0
            continue
        driven[e] = int(c.numbers.get("joints", 0)) if c.status == "pass" else 0
    row["movable_joints"] = len(movable)
    row["driven"] = driven
    row["exercised"] = min(driven.values())
    row["hulls"] = hull_caps(asset)
    row["valid"] = report.passed
    return row


def _interrupt(signum: int, frame: Any) -> None:
    """SIGTERM as Ctrl-C: the sweep stops and writes what finished."""
    raise KeyboardInterrupt


def _load_rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by a kill
    return rows


def _append(path: Path, row: dict[str, Any]) -> None:
    with path.open("a") as f:
        f.write(json.dumps(row) + "\n")
        f.flush()


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def summarise(rows: list[dict[str, Any]], categories: list[str], seeds_requested: list[int]) -> dict[str, Any]:
    """The JSON document: per category the seeds tried, validity per engine, joints, hulls, build seconds."""
    per: dict[str, Any] = {}
    for cat in categories:
        mine = sorted((r for r in rows if r["category"] == cat), key=lambda r: r["seed"])
        ok = [r for r in mine if "error" not in r]
        joints: dict[str, int] = {}
        kinds: set[str] = set()
        methods: dict[str, int] = {}
        for r in ok:
            for t, n in r["joints"].items():
                joints[t] = joints.get(t, 0) + n
            kinds.update(r["kinds"])
            for m, n in r.get("collision_methods", {}).items():
                methods[m] = methods.get(m, 0) + n
        failures = []
        for r in mine:
            if "error" in r:
                failures.append({"seed": r["seed"], "error": r["error"]})
            elif not r["valid"] or not r["hulls"]["within_caps"]:
                failed = [m for e in ENGINES for m in r["engines"][e]["failed"]] + r["other_failed"] + \
                    r["functional"]["failed"] + [f"hull caps: {m}" for m in r["hulls"]["over_caps"]]
                failures.append({"seed": r["seed"], "failed": failed[:6]})
        per[cat] = {
            "seeds_tried": [r["seed"] for r in mine],
            "tried": len(mine),
            "valid": sum(1 for r in ok if r["valid"]),
            "valid_per_engine": {e: sum(1 for r in ok if r["engines"][e]["valid"]) for e in ENGINES},
            "functional_passed": sum(1 for r in ok if r["functional"]["passed"]),
            "hulls_within_caps": sum(1 for r in ok if r["hulls"]["within_caps"]),
            "movable_joints": sum(r["movable_joints"] for r in ok),
            "joints_exercised": sum(r["exercised"] for r in ok),
            "movable_joints_by_type": joints,
            "joint_kinds": sorted(kinds),
            "median_build_s": _median([r["seconds"]["build"] for r in ok]),
            "median_total_s": _median([r["seconds"]["total"] for r in ok]),
            "most_hulls_per_part": max((r["hulls"]["most_hulls_per_part"] for r in ok), default=0),
            "collision_methods": methods,
            "failures": failures,
        }
    tried = sum(v["tried"] for v in per.values())
    totals = {"categories": len(per), "assets_tried": tried, "valid": sum(v["valid"] for v in per.values()),
              "valid_per_engine": {e: sum(v["valid_per_engine"][e] for v in per.values()) for e in ENGINES},
              "hulls_within_caps": sum(v["hulls_within_caps"] for v in per.values()),
              "movable_joints": sum(v["movable_joints"] for v in per.values()),
              "joints_exercised": sum(v["joints_exercised"] for v in per.values()),
              "categories_with_failures": sorted(c for c, v in per.items() if v["failures"]),
              "categories_complete": sum(1 for v in per.values() if set(seeds_requested) <= set(v["seeds_tried"]))}
    return {"what": "every synth category: build, prepare, export, seed3d validate (PyBullet, MuJoCo, UsdPhysics, "
                    "functional checks), GPU hull caps",
            "command": "python eval/bench_synth.py " + " ".join(sys.argv[1:]),
            "machine": {"platform": platform.platform(), "python": platform.python_version()},
            "seeds_requested": seeds_requested, "totals": totals, "categories": per,
            "grid": "eval/results/synth_grid.png"}


def main() -> None:
    """Run the sweep (resuming), write the JSON and the picture grid."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-19", help="seeds per category, e.g. 0-19 or 0,1,5-9")
    parser.add_argument("--categories", default=None, help="comma-separated categories (default: all)")
    parser.add_argument("--rows", type=Path, default=ROWS, help="JSONL of finished (category, seed) rows")
    parser.add_argument("--out", type=Path, default=RESULTS / "synth.json")
    parser.add_argument("--fresh", action="store_true", help="ignore the rows of an earlier run")
    parser.add_argument("--report-only", action="store_true", help="write the JSON from the rows; run nothing")
    parser.add_argument("--no-grid", action="store_true", help="do not render the picture grid")
    parser.add_argument("--grid-only", action="store_true", help="render the picture grid only")
    parser.add_argument("--grid-size", type=int, default=128, help="grid tile size in pixels")
    args = parser.parse_args()

    from tqdm import tqdm

    from seed3d.asset import atomic_file
    from seed3d.synth import check_categories, list_categories

    cats = list(check_categories(args.categories.split(","), "--categories") if args.categories
                else list_categories())
    seeds = parse_seeds(args.seeds)
    RESULTS.mkdir(exist_ok=True)
    if not args.grid_only:
        if args.fresh and args.rows.exists():
            args.rows.unlink()
        running = args.rows.with_suffix(".running")
        rows = _load_rows(args.rows)
        done = {(r["category"], r["seed"]) for r in rows}
        if running.exists():  # the last run died inside this one: record it, do not retry
            cat, _, seed = running.read_text().strip().rpartition("/")
            if cat and (cat, int(seed)) not in done:
                row = {"category": cat, "seed": int(seed), "error": "the process died while validating it"}
                _append(args.rows, row)
                rows.append(row)
                done.add((cat, int(seed)))
            running.unlink()
        todo = [(c, s) for s in seeds for c in cats if (c, s) not in done]
        if not args.report_only:
            # stopped (Ctrl-C or SIGTERM): the JSON is written from the rows that finished
            signal.signal(signal.SIGTERM, _interrupt)
            bar = tqdm(todo, desc="synth", unit="asset")
            try:
                with tempfile.TemporaryDirectory(prefix="bench_synth_") as tmp:
                    for cat, seed in bar:
                        bar.set_postfix_str(f"{cat} {seed}")
                        running.write_text(f"{cat}/{seed}")
                        try:
                            row = run_one(cat, seed, Path(tmp) / f"{cat}_{seed}")
                        except Exception as exc:  # a builder or exporter bug: recorded, the sweep goes on
                            row = {"category": cat, "seed": seed, "error": f"{type(exc).__name__}: {exc}",
                                   "traceback": traceback.format_exc(limit=4)}
                        _append(args.rows, row)
                        rows.append(row)
                        running.unlink()
            except KeyboardInterrupt:
                running.unlink(missing_ok=True)
                args.no_grid = True
                print("stopped: writing the JSON from the rows that finished")
        doc = summarise([r for r in rows if r["category"] in cats], cats, seeds)
        with atomic_file(args.out) as tmp_path:
            Path(tmp_path).write_text(json.dumps(doc, indent=1) + "\n")
        t = doc["totals"]
        print(f"{t['valid']} / {t['assets_tried']} valid; per engine {t['valid_per_engine']}; "
              f"failures in: {', '.join(t['categories_with_failures']) or 'none'} → {args.out}")
    if not args.no_grid and not args.report_only:
        sys.path.insert(0, str(Path(__file__).parent))
        from synth_gallery import gallery

        grid_cats = tqdm(total=len(cats) * len(GRID_SEEDS), desc="grid", unit="asset")
        path = gallery(cats, GRID_SEEDS, RESULTS / "synth_grid.png", args.grid_size,
                       progress=lambda c, s: grid_cats.update(1))
        grid_cats.close()
        print(path)


if __name__ == "__main__":
    main()
