"""``seed3d articulate`` on six hand-built objects from outside our engine (``eval/foreign_objects.py``).

Each object (one merged mesh, OBJ, +Z up) goes through the CLI itself in a child process with a wall-clock limit
(``seed3d articulate <obj> -o <dir> --up +z``: part segmenter, one part per closed body where its cut disagrees,
``articulate``, physics, exports, ``validate_path``), with a fresh ``SEED3D_HOME`` so no collision cache is
reused. The written asset is then scored against the truth:

- ``moving_iou``: surface samples of the input, labelled moving or still by the truth, are given to the nearest
  output part; a movable joint's moving set is the samples of its child's subtree; the best joint's IoU with the
  truth's moving set (found when ≥ 0.5);
- ``type_right``, ``axis_error_deg`` (sign ignored) and ``limit_ratio`` (its travel over the true free travel;
  continuous: 1 when both are continuous) of that joint;
- ``spurious``: the other movable joints; ``short_travel``: movable joints failing the functional travel check;
- ``parts``, ``seconds`` (the whole command), the validator's verdict and which checks failed.

    python eval/bench_foreign_articulation.py [--timeout 600] [--no-bodies] [names…]
        → eval/results/foreign_articulation.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from foreign_objects import OBJECTS, write

RESULTS = Path(__file__).parent / "results"
SAMPLES = 20000


def _samples(vertices: np.ndarray, faces: np.ndarray, flag: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Area-weighted surface samples and the moving flag of the face each lies on."""
    rng = np.random.default_rng(0)
    tri = vertices[faces]
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    pick = rng.choice(len(faces), n, p=area / area.sum())
    u, v = rng.random((2, n))
    swap = u + v > 1
    u[swap], v[swap] = 1 - u[swap], 1 - v[swap]
    t = tri[pick]
    return t[:, 0] + u[:, None] * (t[:, 1] - t[:, 0]) + v[:, None] * (t[:, 2] - t[:, 0]), flag[pick]


def score(asset_dir: Path, obj_dir: Path, name: str, truth: dict[str, Any]) -> dict[str, Any]:
    """Scores of the asset written at ``asset_dir`` against the object's truth (see module docstring)."""
    import trimesh
    from scipy.spatial import cKDTree

    from seed3d.asset import Asset
    from seed3d.physics.functional import joint_verdicts

    asset = Asset.load(asset_dir)
    mesh = trimesh.load(obj_dir / f"{name}.obj", process=False, force="mesh")
    flag = np.load(obj_dir / f"{name}_moving.npy")
    points, moving = _samples(np.asarray(mesh.vertices), np.asarray(mesh.faces), flag, SAMPLES)
    # the asset may be re-centred (origin at the bottom centre of its box): align the boxes
    allv = np.concatenate([p.mesh.vertices for p in asset.parts])
    lo_in, hi_in = points.min(axis=0), points.max(axis=0)
    lo_out, hi_out = allv.min(axis=0), allv.max(axis=0)
    shift = np.array([*((lo_out + hi_out)[:2] - (lo_in + hi_in)[:2]) / 2, lo_out[2] - lo_in[2]])
    dense, owner = [], []
    for i, p in enumerate(asset.parts):
        if len(p.mesh.faces):
            pts = p.mesh.sample_surface(8000, seed=0)[0]
            dense.append(pts)
            owner.append(np.full(len(pts), i))
    tree = cKDTree(np.concatenate(dense))
    nearest = np.concatenate(owner)[tree.query(points + shift)[1]]
    names = [p.name for p in asset.parts]
    verdicts, _ = joint_verdicts(asset)
    true_travel = float(truth["upper"]) - float(truth["lower"])
    rows = []
    for j in asset.joints:
        if not j.movable:
            continue
        sub = {names.index(n) for n in asset.subtree(j.child)}
        pred = np.isin(nearest, list(sub))
        iou = float((pred & moving).sum() / max((pred | moving).sum(), 1))
        axis = j.unit_axis
        err = math.degrees(math.acos(min(1.0, abs(float(axis @ np.asarray(truth["axis"], float))))))
        if j.type == "continuous" or truth["joint"] == "continuous":
            ratio = 1.0 if j.type == truth["joint"] else float("nan")
        else:
            ratio = (j.upper - j.lower) / true_travel if true_travel > 0 else float("nan")
        rows.append({"joint": j.name, "type": j.type, "child": j.child, "label": asset.part(j.child).label,
                     "iou": round(iou, 3), "axis_error_deg": round(err, 2), "lower": j.lower, "upper": j.upper,
                     "limit_ratio": round(ratio, 3), "failed": verdicts.get(j.name, [])})
    best = max(rows, key=lambda r: r["iou"], default=None)
    found = best is not None and best["iou"] >= 0.5
    right_type = found and best["type"] == truth["joint"]
    if found and truth["joint"] == "continuous" and best["type"] == "revolute":  # a revolute joint turning ≥ 270°
        right_type = best["upper"] - best["lower"] >= 1.5 * math.pi
    return {
        "moving_iou": best["iou"] if best else 0.0, "found": found, "type_right": bool(right_type),
        "predicted_type": best["type"] if best else None,
        "axis_error_deg": best["axis_error_deg"] if found else None,
        "limit_ratio": best["limit_ratio"] if found else None,
        "limits_within_25pct": bool(found and math.isfinite(best["limit_ratio"])
                                    and abs(best["limit_ratio"] - 1) <= 0.25),
        "spurious": sum(1 for r in rows if r is not best or not found),
        "short_travel": sum(1 for r in rows if "travel" in r["failed"]),
        "parts": len(asset.parts), "joints": rows,
    }


def run_one(name: str, obj_dir: Path, truth: dict[str, Any], timeout: float, extra: tuple[str, ...] = ()
            ) -> dict[str, Any]:
    """Run the CLI on one object with a wall-clock limit and score what it wrote."""
    with tempfile.TemporaryDirectory(prefix=f"foreign_{name}_") as tmp:
        out = Path(tmp) / "asset"
        env = {**os.environ, "SEED3D_HOME": str(Path(tmp) / "home")}
        cmd = [sys.executable, "-m", "seed3d.cli", "articulate", str(obj_dir / f"{name}.obj"), "-o", str(out),
               "--up", "+z", *extra]
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                                  start_new_session=True)
        except subprocess.TimeoutExpired:
            return {"name": name, "seconds": round(time.perf_counter() - start, 1), "timed_out": True,
                    "faces": truth["faces"]}
        seconds = time.perf_counter() - start
        row: dict[str, Any] = {"name": name, "seconds": round(seconds, 1), "timed_out": False,
                               "faces": truth["faces"], "exit_code": proc.returncode}
        report_path = out / "report.json"
        if not report_path.is_file():
            row["error"] = (proc.stderr or proc.stdout)[-2000:]
            return row
        report = json.loads(report_path.read_text())
        checks = list(report.get("checks", [])) + list((report.get("functional") or {}).get("checks", []))
        row["validator_passed"] = bool(report.get("passed"))
        row["sound"] = bool(report.get("sound"))
        row["failed_checks"] = [{"name": c.get("name"), "message": str(c.get("message", ""))[:300]}
                                for c in checks if c.get("status") == "fail"]
        try:
            row.update(score(out, obj_dir, name, truth))
            meta = json.loads((out / "asset.json").read_text()).get("metadata", {})
            physics = meta.get("physics", {})
            row["stage_seconds"] = {"parts": (meta.get("parts") or {}).get("seconds"),
                                    "articulate": (meta.get("articulation") or {}).get("seconds")}
            row["collision"] = {"methods": physics.get("methods"), "hulls": physics.get("hulls"),
                                "warnings": [w for w in physics.get("warnings", []) if "budget" in w or "flat" in w]}
        except Exception as exc:  # a scoring failure is recorded, not fatal to the other objects
            row["error"] = f"scoring failed: {type(exc).__name__}: {exc}"
        return row


def main() -> None:
    """Command line: build the objects, run and score them, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="objects to run (default: all six)")
    ap.add_argument("--timeout", type=float, default=600.0, help="wall-clock limit per object (s)")
    ap.add_argument("--objects", default=None, help="folder for the object files (default: a temporary one)")
    ap.add_argument("--out", default=str(RESULTS / "foreign_articulation.json"))
    ap.add_argument("--no-bodies", dest="bodies", action="store_false",
                    help="pass --no-bodies to seed3d articulate (the segmenter's cut only, no split by bodies)")
    args = ap.parse_args()
    names = args.names or list(OBJECTS)
    with tempfile.TemporaryDirectory(prefix="foreign_objects_") as tmp:
        obj_dir = Path(args.objects or tmp)
        truth = write(obj_dir, names)
        rows = []
        for name in names:
            row = run_one(name, obj_dir, truth[name], args.timeout, () if args.bodies else ("--no-bodies",))
            row["truth"] = truth[name]
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k not in ("joints", "truth")}), flush=True)
            partial = Path(args.out).with_suffix(".partial.json")
            partial.parent.mkdir(parents=True, exist_ok=True)
            partial.write_text(json.dumps(rows, indent=2, default=float) + "\n")
    done = [r for r in rows if not r.get("timed_out") and "error" not in r]
    moving = [r for r in done if r["truth"]["joint"] != "continuous"]
    summary = {
        "objects": len(rows), "timed_out": sum(1 for r in rows if r.get("timed_out")),
        "found_right_type": sum(1 for r in done if r.get("type_right")),
        "limits_within_25pct": sum(1 for r in moving if r.get("limits_within_25pct")),
        "spurious": sum(r.get("spurious", 0) for r in done),
        "short_travel": sum(r.get("short_travel", 0) for r in done),
        "validator_passed": sum(1 for r in done if r.get("validator_passed")),
        "max_seconds": max((r["seconds"] for r in rows), default=0.0),
    }
    doc = {"summary": summary, "bodies": args.bodies, "timeout_s": args.timeout, "cpus": os.cpu_count(),
           "python": platform.python_version(), "objects": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=2, default=float) + "\n")
    Path(args.out).with_suffix(".partial.json").unlink(missing_ok=True)  # the full results stand in for it
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
