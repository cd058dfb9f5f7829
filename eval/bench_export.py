"""Export and validation time per format for a 3-part, ~100k-triangle articulated asset.

Run: ``python eval/bench_export.py`` → prints a table and writes eval/results/export.json.
The asset is the demo cabinet's body, door and drawer, each subdivided (geometry unchanged) until the
three parts hold about 100k triangles together; the physics preparation (CoACD hulls, inertials) is timed
separately from the exporters, and validation is timed per exported format.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import trimesh

from seed3d.asset import Asset, Mesh, atomic_file
from seed3d.export import FORMATS, export_asset
from seed3d.physics import prepare
from seed3d.physics.validate import validate_path
from seed3d.synth.primitives import demo_cabinet

RESULTS = Path(__file__).parent / "results"


def three_part_asset(target_faces: int = 100_000) -> Asset:
    """Body, door and drawer of the demo cabinet, subdivided to about ``target_faces`` triangles in all."""
    cab = demo_cabinet()
    keep = {"body", "door", "drawer"}
    parts = [p for p in cab.parts if p.name in keep]
    joints = [j for j in cab.joints if j.child in keep]
    def subdivide(mesh: Mesh) -> Mesh:
        if mesh.uv is None:
            return Mesh(*trimesh.remesh.subdivide(mesh.vertices, mesh.faces))
        vu, f = trimesh.remesh.subdivide(np.hstack([mesh.vertices, mesh.uv]), mesh.faces)
        return Mesh(vu[:, :3], f, vu[:, 3:])

    while True:  # split the smallest part that still fits the budget (each split quadruples its faces)
        total = sum(len(p.mesh.faces) for p in parts)
        fits = [p for p in parts if total + 3 * len(p.mesh.faces) <= 1.1 * target_faces]
        if not fits:
            break
        smallest = min(fits, key=lambda p: len(p.mesh.faces))
        smallest.mesh = subdivide(smallest.mesh)
    return Asset("bench_cabinet", parts, joints)


def main() -> None:
    """Time physics preparation, each exporter and each format's validation."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faces", type=int, default=100_000, help="target triangle count over the 3 parts")
    args = parser.parse_args()
    asset = three_part_asset(args.faces)
    faces = sum(len(p.mesh.faces) for p in asset.parts)
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        from seed3d.physics import PhysicsConfig
        from seed3d.physics.collision import CollisionConfig

        t0 = time.perf_counter()
        ready = prepare(asset, PhysicsConfig(collision=CollisionConfig(cache_dir=cache)))
        t_prepare = time.perf_counter() - t0
        hulls = {p.name: len(p.collision) for p in ready.parts}
        root = Path(tmp) / "out"
        ready.save(root)
        for fmt in FORMATS:
            t0 = time.perf_counter()
            written = export_asset(ready, root, formats=(fmt,))
            t_export = time.perf_counter() - t0
            size = sum(f.stat().st_size for f in written[fmt].parent.rglob("*") if f.is_file()) if fmt != "glb" \
                else written[fmt].stat().st_size
            t0 = time.perf_counter()
            report = validate_path(written[fmt])
            t_validate = time.perf_counter() - t0
            rows[fmt] = {"export_s": t_export, "validate_s": t_validate, "bytes": size,
                         "checks": len(report.checks), "passed": report.passed}
        t0 = time.perf_counter()
        full = validate_path(root)
        t_full = time.perf_counter() - t0
    result = {
        "command": "python eval/bench_export.py",
        "machine": f"{platform.machine()} {platform.processor() or ''} cpus={__import__('os').cpu_count()}".strip(),
        "triangles": faces,
        "prepare_s": t_prepare,
        "hulls_per_part": hulls,
        "formats": rows,
        "validate_asset_folder_s": t_full,
        "validate_asset_folder_passed": full.passed,
    }
    print(f"3-part asset, {faces} triangles; physics prepare (CoACD + inertia) {t_prepare:.2f} s; hulls {hulls}")
    print(f"{'format':8s} {'export s':>9s} {'validate s':>11s} {'checks':>7s} {'MB':>7s}")
    for fmt, r in rows.items():
        print(f"{fmt:8s} {r['export_s']:9.2f} {r['validate_s']:11.2f} {r['checks']:7d} {r['bytes'] / 1e6:7.2f}"
              f"{'' if r['passed'] else '  FAILED'}")
    print(f"asset folder, every format: validate {t_full:.2f} s, passed={full.passed}")
    RESULTS.mkdir(exist_ok=True)
    with atomic_file(RESULTS / "export.json") as f:
        f.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
