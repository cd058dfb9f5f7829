"""Data set builder throughput and size, and the measurements behind its signed-distance method.

Run: ``python eval/bench_dataset.py`` → prints tables, writes eval/results/dataset.json.

1. **Throughput and size**: builds the same ``--count`` samples of the train split (default config: 16,384
   surface + 4,096 sharp points, 8,192 + 8,192 SDF samples, 4 conditioning views at 128², 6 PBR views at 128²)
   with 1 and with 2 worker processes, from scratch each time, and reports samples per second over the whole
   build (worker start-up included) and in the steady state (between the first and the last sample), the CPU
   seconds per sample of the builder and its workers (the figure that holds on a busy machine), bytes
   per 1,000 samples (extrapolated from the measured shards) and the compressed bytes of
   each field. The two builds must be byte-identical.
2. **Sign of the SDF** (one asset per category, ``--sign-points`` points each, half uniform in the normalised
   cube, half near the surface), each method against the exact generalised winding number of all parts:
   Open3D ray parity (``compute_signed_distance``, 3 rays) on the exact boolean union of the parts as one
   mesh, and on all parts as one mesh; Open3D occupancy (3 rays) per part, "inside any part"; and the
   builder's choice, ``PartSolids.inside``: parity along 3 fixed oblique rays per part, bounding-box
   prefiltered, with the winding number where the rays disagree.
3. **Distance accuracy**: Open3D's float32 BVH distance and the builder's float64 refinement against brute
   force over every triangle, on near-surface points.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from seed3d import synth
from seed3d.asset import Mesh, atomic_file
from seed3d.synth.dataset import DatasetConfig, build_split
from seed3d.synth.sampling import PartSolids, point_triangle_distance, winding_number

RESULTS = Path(__file__).parent / "results"


# ----------------------------------------------------------------------------------------------- throughput


def _cpu_seconds() -> float:
    """User + system CPU time of this process and of its finished children (the spawned workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def throughput(count: int, workers: list[int], samples_per_shard: int) -> dict[str, Any]:
    """Build ``count`` samples once per worker count; timings, sizes and a byte-identity check."""
    config = DatasetConfig(samples_per_shard=samples_per_shard)
    runs, digests = {}, {}
    scratch = Path(tempfile.mkdtemp(prefix="bench_dataset_"))
    try:
        for w in workers:
            out = scratch / f"w{w}"
            stamps: list[float] = []

            def tick(fraction: float, message: str, stamps: list[float] = stamps) -> None:
                if message.startswith("sample"):
                    stamps.append(time.perf_counter())

            cpu0 = _cpu_seconds()
            t0 = time.perf_counter()
            report = build_split(out, "train", count, config, workers=w, progress=tick)
            seconds = time.perf_counter() - t0
            cpu = _cpu_seconds() - cpu0
            steady = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else float("nan")
            manifest = json.loads(report.manifest.read_text())
            digests[w] = [s["sha256"] for s in manifest["shards"]]
            runs[str(w)] = {"seconds": round(seconds, 2), "samples_per_s": round(report.samples / seconds, 3),
                            "steady_samples_per_s": round(steady, 3), "first_sample_s": round(stamps[0] - t0, 2),
                            "cpu_seconds_per_sample": round(cpu / report.samples, 3),
                            "samples": report.samples, "failures": report.failures}
            fields: dict[str, int] = {}
            for shard in manifest["shards"]:
                with zipfile.ZipFile(report.root / shard["file"]) as zf:
                    for info in zf.infolist():
                        name = info.filename.removesuffix(".npy")
                        fields[name] = fields.get(name, 0) + info.compress_size
            size = {"bytes": manifest["bytes"], "samples": report.samples,
                    "bytes_per_1000_samples": round(manifest["bytes"] / report.samples * 1000),
                    "renderer": manifest["renderer"],
                    "field_bytes_per_sample": {k: round(v / report.samples) for k, v in
                                               sorted(fields.items(), key=lambda kv: -kv[1])}}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    same = len({tuple(d) for d in digests.values()}) == 1
    return {"count": count, "samples_per_shard": samples_per_shard, "config": config.to_dict(),
            "workers": runs, "identical_across_workers": same, "size": size}


# ----------------------------------------------------------------------------------------------- sign, distance


def _union_mesh(asset: Any, offset: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The exact boolean union of the parts (manifold3d), as one mesh in the normalised frame."""
    import manifold3d

    solids = []
    for p in asset.parts:
        solids.append(Mesh((p.mesh.vertices - offset) * scale, p.mesh.faces).welded().to_manifold())
    union = manifold3d.Manifold.batch_boolean(solids, manifold3d.OpType.Add) if len(solids) > 1 else solids[0]
    out = Mesh.from_manifold(union)
    return out.vertices, out.faces


def _parity(vertices: np.ndarray, faces: np.ndarray, points: np.ndarray) -> np.ndarray:
    import open3d as o3d

    scene = o3d.t.geometry.RaycastingScene()
    scene.add_triangles(o3d.core.Tensor(vertices.astype(np.float32)), o3d.core.Tensor(faces.astype(np.uint32)))
    sd = scene.compute_signed_distance(o3d.core.Tensor(points.astype(np.float32)), nsamples=3).numpy()
    return sd < 0


def _brute_distance(points: np.ndarray, tri: np.ndarray, chunk: int = 64) -> np.ndarray:
    """Exact distance to the nearest of ``tri`` (F, 3, 3) by testing every triangle (chunks of ``chunk``)."""
    best = np.full(len(points), np.inf)
    for start in range(0, len(tri), chunk):
        t = tri[start:start + chunk]
        p = np.repeat(points, len(t), axis=0)
        rows = np.tile(t, (len(points), 1, 1))
        d = point_triangle_distance(p, rows[:, 0], rows[:, 1], rows[:, 2]).reshape(len(points), len(t))
        best = np.minimum(best, d.min(axis=1))
    return best


def sign_and_distance(n_points: int, seed: int) -> dict[str, Any]:
    """Sign disagreements with the winding number, per method, and distance errors, over every category."""
    import open3d as o3d

    methods = ("union_parity", "concatenated_parity", "per_part_occupancy", "per_part_parity_winding")
    wrong = dict.fromkeys(methods, 0)
    seconds = dict.fromkeys(methods, 0.0)
    worst_o3d, worst_ours, total = 0.0, 0.0, 0
    per_category = {}
    for category in synth.list_categories():
        asset = synth.generate(category, seed)
        lo, hi = asset.bounds()
        offset, scale = (lo + hi) / 2, 0.9 / (float(np.max(hi - lo)) / 2)
        solids = PartSolids.from_asset(asset, offset, scale)
        rng = np.random.default_rng(seed)
        near = solids.sample_surface(n_points // 2, rng).points + rng.normal(0, 0.01, (n_points // 2, 3))
        points = np.concatenate([rng.uniform(-1, 1, (n_points - n_points // 2, 3)), near])
        parts = [solids.part_mesh(i) for i in range(solids.num_parts)]
        offsets = np.cumsum([0] + [len(v) for v, _ in parts[:-1]])
        all_v = np.concatenate([v for v, _ in parts])
        all_f = np.concatenate([f + o for (_, f), o in zip(parts, offsets, strict=True)])
        truth = winding_number(points, all_v, all_f) > 0.5
        t0 = time.perf_counter()
        union_v, union_f = _union_mesh(asset, offset, scale)
        got = {"union_parity": _parity(union_v, union_f, points)}
        seconds["union_parity"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        got["concatenated_parity"] = _parity(all_v, all_f, points)
        seconds["concatenated_parity"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        occupied = np.zeros(len(points), bool)
        for j in range(solids.num_parts):
            occupied |= solids._scene(j).compute_occupancy(o3d.core.Tensor(points.astype(np.float32)),
                                                           nsamples=3).numpy() > 0.5
        got["per_part_occupancy"] = occupied
        seconds["per_part_occupancy"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        got["per_part_parity_winding"] = solids.inside(points)
        seconds["per_part_parity_winding"] += time.perf_counter() - t0
        row = {m: int(np.sum(got[m] != truth)) for m in methods}
        for m in methods:
            wrong[m] += row[m]
        # distances on the near-surface points: Open3D float32 vs our float64 refinement vs brute force
        probe = near[:256]
        tri = all_v[all_f]
        exact = _brute_distance(probe, tri)
        scene = o3d.t.geometry.RaycastingScene()
        scene.add_triangles(o3d.core.Tensor(all_v.astype(np.float32)), o3d.core.Tensor(all_f.astype(np.uint32)))
        raw = scene.compute_distance(o3d.core.Tensor(probe.astype(np.float32))).numpy()
        ours = solids.unsigned_distance(probe)
        row["o3d_distance_max_error"] = float(np.abs(raw - exact).max())
        row["refined_distance_max_error"] = float(np.abs(ours - exact).max())
        worst_o3d = max(worst_o3d, row["o3d_distance_max_error"])
        worst_ours = max(worst_ours, row["refined_distance_max_error"])
        total += len(points)
        per_category[category] = row
    return {"points_per_category": n_points, "seed": seed, "points": total,
            "sign_disagreements": wrong, "sign_seconds": {m: round(s, 3) for m, s in seconds.items()},
            "distance_max_error": {"open3d_float32": worst_o3d, "refined_float64": worst_ours,
                                   "near_points_per_category": 256, "near_sigma": 0.01},
            "per_category": per_category}


def main() -> None:
    """Run the measurements, write dataset.json, print tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=32, help="samples per timed build")
    parser.add_argument("--samples-per-shard", type=int, default=8, help="samples per shard in the timed builds")
    parser.add_argument("--workers", default="1,2", help="comma list of worker counts to time")
    parser.add_argument("--sign-points", type=int, default=4096, help="SDF points per category for the sign check")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    load_before = os.getloadavg()[0]
    result: dict[str, Any] = {"throughput": throughput(args.count, workers, args.samples_per_shard)}
    load_after = os.getloadavg()[0]
    result["sdf"] = sign_and_distance(args.sign_points, seed=1)
    result["machine"] = {"cpu_count": os.cpu_count(), "platform": platform.platform(),
                         "processor": platform.processor() or platform.machine(),
                         "load_average_1min_before_after_builds": [round(load_before, 2), round(load_after, 2)]}
    args.out.mkdir(parents=True, exist_ok=True)
    with atomic_file(args.out / "dataset.json") as tmp:
        tmp.write_text(json.dumps(result, indent=2) + "\n")
        tmp.chmod(0o644)

    tp = result["throughput"]
    print(f"build of {tp['count']} train samples (default config, renderer {tp['size']['renderer']}), "
          f"identical bytes across worker counts: {tp['identical_across_workers']}; {os.cpu_count()} CPUs, "
          f"load average {load_before:.1f} before and {load_after:.1f} after the builds")
    print(f"{'workers':<10}{'seconds':>10}{'samples/s':>12}{'steady/s':>10}{'first sample s':>16}{'CPU s/sample':>14}")
    for w, row in tp["workers"].items():
        print(f"{w:<10}{row['seconds']:>10.1f}{row['samples_per_s']:>12.2f}{row['steady_samples_per_s']:>10.2f}"
              f"{row['first_sample_s']:>16.1f}{row['cpu_seconds_per_sample']:>14.3f}")
    size = tp["size"]
    print(f"size: {size['bytes_per_1000_samples'] / 1e9:.2f} GB per 1,000 samples "
          f"({size['bytes'] / 1e6:.1f} MB for {size['samples']} samples); largest fields per sample:")
    for name, b in list(size["field_bytes_per_sample"].items())[:8]:
        print(f"  {name:<22}{b / 1e3:>9.1f} kB")
    sdf = result["sdf"]
    print(f"SDF sign vs winding number ({sdf['points']} points over {len(sdf['per_category'])} categories):")
    print(f"{'method':<26}{'wrong signs':>12}{'seconds':>10}")
    for m, n in sdf["sign_disagreements"].items():
        print(f"{m:<26}{n:>12}{sdf['sign_seconds'][m]:>10.2f}")
    dist = sdf["distance_max_error"]
    print(f"distance max error on near-surface points (normalised units): open3d float32 "
          f"{dist['open3d_float32']:.2e}, refined float64 {dist['refined_float64']:.2e}")
    print(f"wrote {args.out / 'dataset.json'}")


if __name__ == "__main__":
    main()
