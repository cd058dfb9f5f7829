"""``seed3d articulate`` on large meshes: synth objects welded into one mesh and subdivided to about 100k faces.

Issue 58 asks that any mesh of at most 100k faces be articulated in at most 120 s on 2 cores. Each object here is
``seed3d.synth.generate(category, seed)`` at rest, its parts united (manifold3d: parts that touch become one
solid; a door with clearance stays a body of its own) and every face split in four until one more split would pass
``--faces``; the OBJ goes through the CLI in a child process (``seed3d articulate <obj> -o <dir> --up +z``, a fresh
``SEED3D_HOME`` so no collision cache is reused), once with the default split by closed bodies and once with
``--no-bodies`` (the part segmenter alone). Recorded: seconds of the whole command, whether the validator passed,
the movable joints written against the synth asset's own (by type), the stages' seconds and the collision method
of each part.

    python eval/bench_articulate_speed.py [--objects cabinet:0,microwave:0,dresser:0] [--faces 100000]
        → eval/results/articulate_speed.json
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
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent


def welded(category: str, seed: int, faces: int) -> tuple[Any, dict[str, int]]:
    """The synth object at rest as one united, subdivided mesh (trimesh), and its movable joints by type."""
    import manifold3d as m3d
    import trimesh

    from seed3d.synth import generate
    from seed3d.synth.kinematics import posed_meshes

    asset = generate(category, seed)
    solids = []
    for mesh in posed_meshes(asset, {}).values():
        t = trimesh.Trimesh(mesh.vertices, mesh.faces, process=True)
        t.merge_vertices(digits_vertex=6)
        solid = m3d.Manifold(m3d.Mesh(vert_properties=np.asarray(t.vertices, np.float32),
                                      tri_verts=np.asarray(t.faces, np.uint32)))
        if solid.status() == m3d.Error.NoError and not solid.is_empty():
            solids.append(solid)
    out = m3d.Manifold.batch_boolean(solids, m3d.OpType.Add).to_mesh()
    v, f = np.asarray(out.vert_properties)[:, :3].astype(np.float64), np.asarray(out.tri_verts)
    if not len(f):
        raise RuntimeError(f"{category} {seed}: the union is empty")
    while len(f) * 4 <= faces:
        v, f = trimesh.remesh.subdivide(v, f)
    truth = Counter(j.type for j in asset.joints if j.movable)
    return trimesh.Trimesh(v, f, process=False), dict(truth)


def run(obj: Path, out: Path, extra: tuple[str, ...], timeout: float) -> dict[str, Any]:
    """One ``seed3d articulate`` run: seconds, exit code, validator verdict, movable joints by type."""
    env = dict(os.environ, SEED3D_HOME=tempfile.mkdtemp(prefix="seed3d_home_"), PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "seed3d.cli", "articulate", str(obj), "-o", str(out), "--up", "+z", "--overwrite",
           *extra]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        code, timed_out = proc.returncode, False
    except subprocess.TimeoutExpired:
        code, timed_out = None, True
    row: dict[str, Any] = {"seconds": round(time.perf_counter() - start, 1), "exit_code": code,
                           "timed_out": timed_out}
    if (out / "asset.json").is_file():
        asset = json.loads((out / "asset.json").read_text())
        report = json.loads((out / "report.json").read_text())
        row["passed"] = bool(report.get("passed"))
        row["failed_checks"] = [c["name"] for c in report.get("checks", []) if c.get("status") == "fail"]
        row["parts"] = len(asset["parts"])
        row["joints"] = dict(Counter(j["type"] for j in asset["joints"] if j["type"] != "fixed"))
        meta = asset.get("metadata", {})
        row["stage_seconds"] = {"parts": (meta.get("parts") or {}).get("seconds"),
                                "articulate": (meta.get("articulation") or {}).get("seconds")}
        row["collision_methods"] = (meta.get("physics") or {}).get("methods")
    return row


def main() -> None:
    """Command line: weld, run both ways, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objects", default="cabinet:0,microwave:0,dresser:0", help="category:seed, comma-separated")
    ap.add_argument("--faces", type=int, default=100_000, help="face count not to pass when subdividing")
    ap.add_argument("--timeout", type=float, default=600.0, help="wall-clock limit per run (s)")
    ap.add_argument("--out", default=str(RESULTS / "articulate_speed.json"))
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="articulate_speed_") as tmp:
        for item in args.objects.split(","):
            category, seed = item.split(":")
            mesh, truth = welded(category, int(seed), args.faces)
            obj = Path(tmp) / f"{category}_{seed}.obj"
            mesh.export(obj)
            bodies = len(mesh.split(only_watertight=False))
            for mode, extra in (("bodies", ()), ("no_bodies", ("--no-bodies",))):
                row = {"object": item, "faces": len(mesh.faces), "bodies": bodies, "truth_joints": truth,
                       "mode": mode, **run(obj, Path(tmp) / f"{category}_{seed}_{mode}", extra, args.timeout)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    summary = {mode: {"runs": len(mine), "passed": sum(1 for r in mine if r.get("passed")),
                      "max_seconds": max(r["seconds"] for r in mine),
                      "within_120_s": sum(1 for r in mine if r["seconds"] <= 120 and not r["timed_out"])}
               for mode in ("bodies", "no_bodies") for mine in [[r for r in rows if r["mode"] == mode]]}
    doc = {"benchmark": __doc__.splitlines()[0], "command": " ".join(["python", "eval/bench_articulate_speed.py",
                                                                      *sys.argv[1:]]),
           "summary": summary, "cpus": os.cpu_count(), "python": platform.python_version(), "rows": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
