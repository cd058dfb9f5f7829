"""Benchmark the convex decomposition: time, hull counts and fit per part.

Cases: every part of ``demo_cabinet()``, a square frame and a 3×3 shelf built by boolean difference, a
torus (~2.3k triangles), and two ~100k-triangle meshes (a finely tessellated torus and the shelf
subdivided into small triangles) that exercise the decimation before CoACD.

Per case: faces, method, hull count, largest hull vertex count, wall seconds (cache off), the volume of
the hulls over the mesh's volume (1.0 = tight; overlaps between hulls also count), the fraction of
20k surface samples within 1 mm of the hulls (coverage; 1.0 = no gaps), the largest such gap in mm,
how far hull surfaces stick out of the mesh (bulge, mm: e.g. into a drawer slot) and whether every
hull is a closed, outward, convex mesh within the caps. ``--baseline`` adds CoACD with its own
defaults (merge on, threshold 0.05, resolution 2000, preprocess auto) on the cases under 5k faces.

Prints a table and writes ``eval/results/collision.json``. Run: ``python eval/bench_collision.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import trimesh

from seed3d.asset import Mesh, atomic_file
from seed3d.physics import _geometry as geo
from seed3d.physics.collision import CollisionConfig, _coacd_version, decompose, hull_problems
from seed3d.synth.primitives import box, demo_cabinet, difference

RESULTS = Path(__file__).resolve().parent / "results" / "collision.json"


def frame() -> Mesh:
    """A square picture-frame ring (non-convex, genus 1) cut by difference."""
    return difference(box([-0.5, -0.5, 0.0], [0.5, 0.5, 0.2]), box([-0.3, -0.3, -0.1], [0.3, 0.3, 0.3]))


def shelf() -> Mesh:
    """A 0.6 × 1.0 × 1.0 m shelf with 3 × 3 open compartments cut by difference."""
    cuts = [box([-0.28, -0.48 + i * 0.32 + 0.02, 0.02 + j * 0.32], [0.3, -0.48 + (i + 1) * 0.32, (j + 1) * 0.32])
            for i in range(3) for j in range(3)]
    return difference(box([-0.3, -0.5, 0.0], [0.3, 0.5, 1.0]), *cuts)


def torus(major: int = 48, minor: int = 24) -> Mesh:
    """A torus (R = 0.4 m, r = 0.1 m) with major × minor × 2 triangles."""
    tm = trimesh.creation.torus(0.4, 0.1, major_sections=major, minor_sections=minor)
    return Mesh(np.asarray(tm.vertices), np.asarray(tm.faces))


def subdivided(mesh: Mesh, max_edge: float) -> Mesh:
    """``mesh`` split until no edge is longer than ``max_edge`` (same shape, many more triangles)."""
    v, f = trimesh.remesh.subdivide_to_size(mesh.vertices, mesh.faces, max_edge=max_edge)
    return Mesh(v, f)


def cases() -> dict[str, Mesh]:
    """Name → mesh of every benchmark case."""
    out = {f"cabinet/{p.name}": p.mesh for p in demo_cabinet().parts}
    out["frame"] = frame()
    out["shelf_3x3"] = shelf()
    out["torus"] = torus()
    out["torus_100k"] = torus(320, 160)
    out["shelf_3x3_100k"] = subdivided(shelf(), 0.025)
    return out


def gaps(mesh: Mesh, hulls: list[Mesh], samples: int = 20000) -> np.ndarray:
    """Distance (m) of surface samples of ``mesh`` outside the union of hulls (0 inside; a lower bound)."""
    tm = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
    pts, _ = trimesh.sample.sample_surface(tm, samples, seed=0)
    outside = np.full(len(pts), np.inf)
    for h in hulls:  # loop over hulls; each test is vectorised over samples and faces
        p = h.vertices[h.faces]
        n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        d = pts @ n.T - np.einsum("ij,ij->i", n, p[:, 0])[None, :]
        outside = np.minimum(outside, np.maximum(d.max(axis=1), 0.0))
    return outside


def coverage(mesh: Mesh, hulls: list[Mesh], tol: float = 1e-3) -> tuple[float, float]:
    """(fraction of surface samples within ``tol`` m of some hull, largest gap in mm)."""
    g = gaps(mesh, hulls)
    return float((g <= tol).mean()), float(g.max() * 1000.0)


def max_bulge_mm(mesh: Mesh, hulls: list[Mesh], per_hull: int = 200) -> float:
    """How far (mm) the hulls' surfaces stick out of the mesh (vertices + ``per_hull`` samples each)."""
    tm = trimesh.Trimesh(mesh.vertices, mesh.faces)
    points = [h.vertices for h in hulls]
    for i, h in enumerate(hulls):
        points.append(trimesh.sample.sample_surface(h.to_trimesh(), per_hull, seed=i)[0])
    inside_positive = trimesh.proximity.signed_distance(tm, np.concatenate(points))
    return float(max(0.0, -inside_positive.min()) * 1000.0)


def volume_ratio(mesh: Mesh, hulls: list[Mesh]) -> float:
    """Summed hull volume over the (welded, outward) mesh volume."""
    v, f = geo.weld(mesh.vertices, mesh.faces)
    f, _ = geo.orient_outward(v, f)
    return float(sum(geo.signed_volume(h.vertices, h.faces) for h in hulls) / geo.signed_volume(v, f))


def run_case(name: str, mesh: Mesh, config: CollisionConfig) -> dict[str, Any]:
    """Decompose one mesh and measure the result."""
    result = decompose(mesh, config)
    return {
        "case": name, "faces": len(mesh.faces), "method": result.method, "hulls": len(result.hulls),
        "max_hull_vertices": max(len(h.vertices) for h in result.hulls),
        "seconds": round(result.seconds, 3), "volume_ratio": round(volume_ratio(mesh, result.hulls), 4),
        **dict(zip(("coverage", "max_gap_mm"), (round(x, 4) for x in coverage(mesh, result.hulls)), strict=True)),
        "max_bulge_mm": round(max_bulge_mm(mesh, result.hulls), 3),
        "valid": all(not hull_problems(h, config.max_hull_vertices, config.max_hull_polygons or None)
                     for h in result.hulls),
        "warnings": result.warnings,
    }


def run_baseline(name: str, mesh: Mesh) -> dict[str, Any]:
    """Plain CoACD with its own defaults (merge on, threshold 0.05, resolution 2000, preprocess auto)."""
    import coacd

    coacd.set_log_level("off")
    v, f = geo.weld(mesh.vertices, mesh.faces)
    start = time.perf_counter()
    pieces = coacd.run_coacd(coacd.Mesh(v, f.astype(np.int32)), max_convex_hull=64, max_ch_vertex=60,
                             decimate=True, seed=0)
    seconds = time.perf_counter() - start
    hulls = [Mesh(*h) for h in (geo.convex_hull(p) for p, _ in pieces) if h is not None]
    return {"case": name, "hulls": len(hulls), "seconds": round(seconds, 3),
            "volume_ratio": round(volume_ratio(mesh, hulls), 4),
            **dict(zip(("coverage", "max_gap_mm"), (round(x, 4) for x in coverage(mesh, hulls)), strict=True)),
            "max_bulge_mm": round(max_bulge_mm(mesh, hulls), 3)}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table, write the JSON results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", action="store_true", help="also run plain CoACD on cases under 5k faces")
    parser.add_argument("--only", default="", help="comma-separated case names to run (default: all)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON results")
    args = parser.parse_args(argv)
    config = CollisionConfig(cache=False)
    wanted = {s for s in args.only.split(",") if s}
    rows, baseline = [], []
    header = (f"{'case':22s} {'faces':>7s} {'method':>6s} {'hulls':>5s} {'maxv':>4s} {'sec':>7s} "
              f"{'vol':>6s} {'cover':>6s} {'gap_mm':>6s} {'bulge':>6s} valid")
    print(header)
    print("-" * len(header))
    for name, mesh in cases().items():
        if wanted and name not in wanted:
            continue
        row = run_case(name, mesh, config)
        rows.append(row)
        print(f"{name:22s} {row['faces']:7d} {row['method']:>6s} {row['hulls']:5d} {row['max_hull_vertices']:4d} "
              f"{row['seconds']:7.2f} {row['volume_ratio']:6.3f} {row['coverage']:6.3f} {row['max_gap_mm']:6.1f} "
              f"{row['max_bulge_mm']:6.1f} {row['valid']}", flush=True)
        if args.baseline and row["method"] == "coacd" and row["faces"] <= 5000:
            base = run_baseline(name, mesh)
            baseline.append(base)
            print(f"{'  coacd defaults':22s} {'':7s} {'':6s} {base['hulls']:5d} {'':4s} {base['seconds']:7.2f} "
                  f"{base['volume_ratio']:6.3f} {base['coverage']:6.3f} {base['max_gap_mm']:6.1f} "
                  f"{base['max_bulge_mm']:6.1f}", flush=True)
    doc = {
        "benchmark": "collision",
        "command": "python eval/bench_collision.py" + (" --baseline" if args.baseline else ""),
        "config": config.output_settings(), "coacd": _coacd_version(),
        "machine": {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count()},
        "cases": rows, "baseline": baseline,
        "total_seconds": round(sum(r["seconds"] for r in rows), 2),
    }
    with atomic_file(args.out) as tmp:
        tmp.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
