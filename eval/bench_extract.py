"""Hierarchical surface extraction against a dense grid: SDF queries, time, peak memory and mesh difference.

Run: ``python eval/bench_extract.py [--vae DIR]`` → prints a table and writes eval/results/extract.json.

Fields: analytic ones (a sphere, a torus and a union of two boxes, truncated at 0.1 like the VAE's) at 256^3
and 512^3, and, with the shipped VAE, decoded test shapes at 128^3 and 256^3 (a dense 512^3 grid of learned
SDF queries is out of reach on a CPU). Dense = the same marching cubes on every lattice point
(``(R + 1)^3`` queries, evaluated block-wise so memory stays bounded). The mesh difference is the symmetric
Chamfer-L1 and Hausdorff distance between the two meshes (20k samples each), in units of the grid cell. A learned
field is no distance field everywhere: where it dips just below zero far from the shape, dense marching cubes
meshes sheets that the hierarchical pass (whose coarse corners read clearly positive there) never visits. So the
VAE rows also give the difference after the pipeline's ``clean_shell`` on both meshes, and each mesh's distance
to the true surface (its samples to the nearest of the test shape's surface points): which of the two is closer
to the truth, not only how far apart they are.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import Mesh, atomic_file
from seed3d.geometry.extract import extract_surface

RESULTS = Path(__file__).parent / "results"
TAU = 0.1


def sphere(p: np.ndarray) -> np.ndarray:
    """Sphere of radius 0.7."""
    return np.clip(np.linalg.norm(p, axis=1) - 0.7, -TAU, TAU).astype(np.float32)


def torus(p: np.ndarray) -> np.ndarray:
    """Torus with radii 0.6 and 0.15 around z."""
    q = np.stack([np.linalg.norm(p[:, :2], axis=1) - 0.6, p[:, 2]], 1)
    return np.clip(np.linalg.norm(q, axis=1) - 0.15, -TAU, TAU).astype(np.float32)


def boxes(p: np.ndarray) -> np.ndarray:
    """Union of a flat box and a thin upright plate (2 cm thick at 1 m scale)."""
    def box(p: np.ndarray, c: np.ndarray, h: np.ndarray) -> np.ndarray:
        d = np.abs(p - c) - h
        return np.linalg.norm(np.maximum(d, 0), axis=1) + np.minimum(d.max(1), 0)

    a = box(p, np.array([0, 0, -0.3]), np.array([0.8, 0.5, 0.1]))
    b = box(p, np.array([0, 0, 0.2]), np.array([0.6, 0.018, 0.4]))
    return np.clip(np.minimum(a, b), -TAU, TAU).astype(np.float32)


def dense_extract(sdf: Any, resolution: int, block: int = 64) -> tuple[Mesh, int]:
    """Marching cubes on the full lattice, evaluated in slabs (memory: one (R + 1)^2 x block slab of queries)."""
    from skimage.measure import marching_cubes

    n = resolution + 1
    axis = np.linspace(-1, 1, n, dtype=np.float32)
    vol = np.empty((n, n, n), np.float32)
    yy, zz = np.meshgrid(axis, axis, indexing="ij")
    for s in range(0, n, block):
        xs = axis[s: s + block]
        pts = np.stack(np.broadcast_arrays(xs[:, None, None], yy[None], zz[None]), -1).reshape(-1, 3)
        vol[s: s + len(xs)] = sdf(pts).reshape(len(xs), n, n)
    v, f, _, _ = marching_cubes(vol, 0.0, spacing=(2 / resolution,) * 3)
    return Mesh(v - 1.0, f[:, ::-1].astype(np.int64)), n ** 3


def _to_surface(points: np.ndarray, mesh: Mesh) -> np.ndarray:
    import open3d as o3d

    scene = o3d.t.geometry.RaycastingScene()
    scene.add_triangles(o3d.core.Tensor(mesh.vertices.astype(np.float32)),
                        o3d.core.Tensor(mesh.faces.astype(np.uint32)))
    return scene.compute_distance(o3d.core.Tensor(points.astype(np.float32))).numpy()


def difference(a: Mesh, b: Mesh, cell: float) -> dict[str, float]:
    """Symmetric Chamfer-L1 and Hausdorff distance between two meshes (points of each to the other's triangles,
    20k samples a side), in grid cells."""
    pa, _, _ = a.sample_surface(20000, seed=0)
    pb, _, _ = b.sample_surface(20000, seed=1)
    dab, dba = _to_surface(pa, b), _to_surface(pb, a)
    return {"chamfer_cells": round(float(0.5 * (dab.mean() + dba.mean())) / cell, 4),
            "hausdorff_cells": round(float(max(dab.max(), dba.max())) / cell, 4)}


def to_truth(mesh: Mesh, truth: np.ndarray, cell: float) -> dict[str, float]:
    """Distance from 20k samples of the mesh to the nearest true surface point, in grid cells."""
    from scipy.spatial import cKDTree

    d, _ = cKDTree(truth).query(mesh.sample_surface(20000, seed=2)[0])
    return {"mean": round(float(d.mean()) / cell, 4), "p99": round(float(np.quantile(d, 0.99)) / cell, 4),
            "max": round(float(d.max()) / cell, 4)}


def run_case(name: str, sdf: Any, resolution: int, dense: bool, truth: np.ndarray | None = None) -> dict[str, Any]:
    """One field at one resolution: hierarchical (and dense) queries, times and the mesh difference (with the
    true surface points: also after ``clean_shell``, and each mesh's distance to the truth)."""
    from seed3d.geometry.generate import coarse_grid

    t0 = time.perf_counter()
    mesh, stats = extract_surface(sdf, resolution=resolution, coarse=coarse_grid(resolution, TAU), return_stats=True)
    row: dict[str, Any] = {"field": name, "resolution": resolution, "queries": stats.evaluations,
                           "dense_queries": stats.dense_evaluations,
                           "share": round(stats.evaluations / stats.dense_evaluations, 4),
                           "seconds": round(time.perf_counter() - t0, 2), "faces": len(mesh.faces),
                           "watertight": bool(mesh.to_trimesh().is_watertight)}
    if dense:
        t0 = time.perf_counter()
        ref, _ = dense_extract(sdf, resolution)
        row["dense_seconds"] = round(time.perf_counter() - t0, 2)
        row["dense_faces"] = len(ref.faces)
        row.update(difference(mesh, ref, 2.0 / resolution))
        if truth is not None:
            from seed3d.geometry.postprocess import clean_shell

            cell = 2.0 / resolution
            clean, clean_ref = clean_shell(mesh), clean_shell(ref)
            row["after_clean_shell"] = difference(clean, clean_ref, cell)
            row["to_truth_cells"] = {"hierarchical": to_truth(mesh, truth, cell), "dense": to_truth(ref, truth, cell),
                                     "hierarchical_cleaned": to_truth(clean, truth, cell),
                                     "dense_cleaned": to_truth(clean_ref, truth, cell)}
    print(f"{name:>22s} {resolution:4d}^3  queries {row['queries']:>11,d} of {row['dense_queries']:>12,d} "
          f"({100 * row['share']:.2f} %)  {row['seconds']:.1f} s" +
          (f"  dense {row['dense_seconds']:.1f} s  chamfer {row['chamfer_cells']:.3f} cells, "
           f"hausdorff {row['hausdorff_cells']:.3f} cells" if dense else "") +
          (f"; after clean_shell {row['after_clean_shell']['hausdorff_cells']:.3f}; to truth, max: hierarchical "
           f"{row['to_truth_cells']['hierarchical']['max']:.2f}, dense {row['to_truth_cells']['dense']['max']:.2f}"
           if "to_truth_cells" in row else ""), flush=True)
    return row


def main() -> None:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vae", help="shape VAE folder (default: the shipped weights; 'none' to skip)")
    parser.add_argument("--data", default="data/synth")
    parser.add_argument("--shapes", type=int, default=3, help="decoded test shapes")
    parser.add_argument("--out", default=str(RESULTS / "extract.json"))
    args = parser.parse_args()
    rows = []
    for name, fn in (("sphere", sphere), ("torus", torus), ("box + thin plate", boxes)):
        for res in (256, 512):
            rows.append(run_case(name, fn, res, dense=True))
    if args.vae != "none":
        import torch

        from seed3d.geometry.train import load_geometry
        from seed3d.geometry.vae import ShapeVAE
        from seed3d.pipeline import weights_component

        vae = ShapeVAE.from_pretrained(args.vae or weights_component("geometry_vae")).eval()
        c = vae.config
        data = load_geometry(args.data, "test", fields=("sample_id", "surface_points", "surface_normals",
                                                        "sharp_points", "sharp_normals", "sharp_on_edge"))
        for i in np.linspace(0, len(data["sample_id"]) - 1, args.shapes).astype(int):
            p = np.concatenate([data["surface_points"][i, : c.surface_points],
                                data["sharp_points"][i, : c.sharp_points]])
            n = np.concatenate([data["surface_normals"][i, : c.surface_points],
                                data["sharp_normals"][i, : c.sharp_points]])
            s = np.concatenate([np.zeros(c.surface_points, bool), data["sharp_on_edge"][i, : c.sharp_points]])
            with torch.no_grad():
                lat = vae.encode(torch.from_numpy(p.astype(np.float32))[None],
                                 torch.from_numpy(n.astype(np.float32))[None], torch.from_numpy(s)[None])
            sdf = vae.sdf_function(lat)
            truth = data["surface_points"][i]
            rows.append(run_case(f"VAE {data['sample_id'][i]}", sdf, 128, dense=True, truth=truth))
            rows.append(run_case(f"VAE {data['sample_id'][i]}", sdf, 256, dense=False))
    doc = {"benchmark": "hierarchical extraction vs dense grid", "command": "python eval/bench_extract.py",
           "rows": rows, "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
           "machine": platform.processor() or platform.machine()}
    out = Path(args.out)
    with atomic_file(out) as tmp:
        Path(tmp).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
