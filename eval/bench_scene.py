"""Scene benchmark: text → layout → sim-ready scene, measured by independent checks on the final meshes.

    python eval/bench_scene.py                 # every prompt of eval/scene_prompts.txt, seeds 0, 1 and 2
    python eval/bench_scene.py --limit 10      # the first 10 prompts
    python eval/bench_scene.py --nouns         # only the noun-mapping measurement (MiniLM threshold)

For each prompt and seed: ``seed3d.scene.generate_scene`` writes the scene (URDF, MJCF, USD, plan image) and
settles it in PyBullet and MuJoCo (``seed3d.physics.validate``); ``seed3d.scene.checks.check_scene`` measures

- collision-free: no two objects' meshes intersect deeper than 5 mm (manifold3d booleans);
- in bounds: every vertex inside walls, floor and ceiling (5 mm);
- support: every object rests on the floor or on the surface below it (1 cm);
- relation satisfaction: relations of the plan that hold on the meshes (all; and the ones the text asked for);
- navigability: one connected free region for a 0.2 m robot (2 cm raster) and every object reachable;
- articulated clearance: every door, drawer and lid opens through its whole range without hitting anything;
- settle displacement: the largest distance an object moves in 2 s of PyBullet and MuJoCo;
- planning time: text → plan, and the layout search.

Prompts marked "!" must be refused (``LayoutError``) quickly. Published anchors (REFERENCES.md):
LayoutVLM 81.8 % collision-free / 94.9 % in bounds, Holodeck 77.8 % / 8.1 %. Results: eval/results/scene.json
and a picture grid of plan images, eval/results/scene_plans.png.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
PROMPTS = ROOT / "scene_prompts.txt"
RESULTS = ROOT / "results" / "scene.json"
GRID = ROOT / "results" / "scene_plans.png"

#: Held-out nouns with a sensible stand-in (noun → category) and nouns without one, for the MiniLM threshold.
POSITIVE_NOUNS = {
    "office desk": "desk", "study table": "table", "computer desk": "desk", "sectional sofa": "sofa",
    "loveseat": "sofa", "recliner": "armchair", "storage crate": "box", "pantry cupboard": "cabinet",
    "kitchen cupboard": "cabinet", "end table": "table", "console table": "table", "hutch": "cabinet",
    "cooktop": "oven", "range cooker": "oven", "chest freezer": "refrigerator", "wine fridge": "refrigerator",
    "laundry machine": "washing_machine", "clothes dryer": "washing_machine", "wall shelf": "bookshelf",
    "dining chair": "chair", "rocking chair": "chair", "wastebasket": "trash_can", "garbage can": "trash_can",
    "recycling bin": "trash_can", "teapot": "jar", "water bottle": "bottle", "teacup": "mug",
    "salad bowl": "bowl", "flower vase": "vase", "reading lamp": "lamp", "notebook": "laptop",
    "travel bag": "suitcase", "luggage": "suitcase", "coat cupboard": "wardrobe", "drawers": "dresser",
    "footstool": "stool", "kitchen stool": "stool", "trunk": "box", "cardboard box": "box",
    "storage chest": "box", "bench": "chair", "kitchen sink tap": "faucet", "front door": "door",
    "mini fridge": "refrigerator", "dish washer": "dishwasher", "cupboards": "cabinet", "closet": "wardrobe",
    "tool chest": "toolbox", "armoire": "wardrobe", "bureau": "dresser", "cooker hood": "oven",
    "espresso cup": "mug", "pitcher": "jar",
}
NEGATIVE_NOUNS = (
    "elephant", "car", "dog", "banana", "airplane", "piano", "rug", "skateboard", "mirror", "motorcycle", "horse",
    "umbrella", "helmet", "plant", "painting", "violin", "curtain", "person", "bicycle", "guitar", "cat", "tree",
    "pillow", "blanket", "poster", "carpet", "ceiling fan", "radiator", "shower", "lawn mower", "kite",
    "fireplace", "stairs", "treadmill", "aquarium", "sculpture", "bicycle rack", "surfboard", "speaker", "lampshade",
)


def read_prompts(path: Path = PROMPTS) -> list[tuple[str, bool]]:
    """(text, must_be_refused) per non-comment line."""
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append((line.lstrip("! ").strip(), line.startswith("!")))
    return out


def measure_nouns() -> dict[str, Any]:
    """Accuracy of the noun mapper on held-out nouns for four templates and a sweep of thresholds."""
    from seed3d.program import nouns

    mapper = nouns.NounMapper(cache=False)
    vocab = mapper.words
    cats = [mapper.vocab[w] for w in vocab]
    pos = [(n, c) for n, c in POSITIVE_NOUNS.items() if mapper.lookup(n) is None]
    neg = [n for n in NEGATIVE_NOUNS if mapper.lookup(n) is None]
    out: dict[str, Any] = {"vocabulary": len(vocab), "positives": len(pos), "negatives": len(neg), "templates": {}}
    for template in ("{}", "a {}", "a {} in a room", "a photo of a {}"):
        V = nouns.encode([template.format(w) for w in vocab])
        P = nouns.encode([template.format(n) for n, _ in pos])
        N = nouns.encode([template.format(n) for n in neg])
        sp, sn = P @ V.T, N @ V.T
        top = sp.argmax(1)
        right = np.array([cats[i] == c for i, (_, c) in zip(top, pos, strict=True)])
        best_p, nmax = sp.max(1), sn.max(1)
        sweep = []
        for thr in np.round(np.arange(0.50, 0.81, 0.01), 2):
            acc_p = float(np.mean(right & (best_p >= thr)))
            rej_n = float(np.mean(nmax < thr))
            sweep.append({"threshold": float(thr), "positives_mapped_right": round(acc_p, 3),
                          "negatives_rejected": round(rej_n, 3), "balanced": round((acc_p + rej_n) / 2, 3)})
        best = max(sweep, key=lambda r: (r["balanced"], -abs(r["threshold"] - 0.65)))
        entry: dict[str, Any] = {"top1_right": round(float(right.mean()), 3), "best": best, "sweep": sweep}
        if template == "{}":
            entry["table"] = ([{"noun": n, "expected": c, "nearest": vocab[int(i)], "category": cats[int(i)],
                                "similarity": round(float(s), 3)} for (n, c), i, s in zip(pos, top, best_p,
                                                                                           strict=True)]
                              + [{"noun": n, "expected": None, "nearest": vocab[int(row.argmax())],
                                  "category": cats[int(row.argmax())], "similarity": round(float(row.max()), 3)}
                                 for n, row in zip(neg, sn, strict=True)])
            at = next(r for r in sweep if abs(r["threshold"] - nouns.SIMILARITY_THRESHOLD) < 1e-9)
            entry["at_threshold"] = at
        out["templates"][template] = entry
    out["threshold"] = nouns.SIMILARITY_THRESHOLD
    out["template"] = "{}"
    return out


def run_scenes(prompts: list[tuple[str, bool]], seeds: list[int], keep: Path | None) -> tuple[list[dict], list]:
    """Generate, settle and check every (prompt, seed); returns one record per run and some plan images."""
    from seed3d.errors import Seed3DError
    from seed3d.scene import generate_scene
    from seed3d.scene.compose import ComposeConfig

    cfg = ComposeConfig(render=False)
    records, images = [], []
    work = Path(tempfile.mkdtemp(prefix="bench_scene_")) if keep is None else keep
    for i, (text, refuse) in enumerate(prompts):
        for seed in seeds:
            out = work / f"p{i:02d}_s{seed}"
            rec: dict[str, Any] = {"prompt": i, "text": text, "seed": seed, "must_refuse": refuse}
            t0 = time.perf_counter()
            try:
                res = generate_scene(text, seed=seed, out=out, config=cfg, overwrite=True)
            except Seed3DError as exc:
                rec.update(ok=False, refused=True, error=f"{type(exc).__name__}: {exc}",
                           seconds=round(time.perf_counter() - t0, 3))
                records.append(rec)
                print(f"[{i:02d}/{seed}] refused in {rec['seconds']:.1f} s: {str(exc)[:120]}", flush=True)
                continue
            c = res.report["checks"]
            phys = res.report.get("physics", {})
            disp = {}
            for chk in phys.get("checks", []):
                if chk["name"] in ("scene.rest_pybullet", "scene.rest_mujoco"):
                    disp[chk["name"].split("_")[-1]] = chk["numbers"].get("max_displacement_m")
            t = res.report["timings"]
            rec.update(
                ok=True, refused=False, objects=c["objects"], room=res.report["room"],
                collision_free=c["collision_free"], collisions=c["collisions"], in_bounds=c["in_bounds"],
                support_rate=c["support_rate"], relations=len(c["relations"]),
                relations_ok=sum(r["ok"] for r in c["relations"]),
                text_relations=sum(r["source"] == "text" for r in c["relations"]),
                text_relations_ok=sum(r["ok"] for r in c["relations"] if r["source"] == "text"),
                failed_relations=[r for r in c["relations"] if not r["ok"]],
                navigable=c["navigable"], nav_components=c["nav_components"], reachable_rate=c["reachable_rate"],
                fronts_reachable=c["fronts_reachable"], articulated=len(c["articulated"]),
                articulated_ok=sum(v["ok"] for v in c["articulated"].values()),
                articulated_hits=[h for v in c["articulated"].values() for h in v["hits"]],
                physics_passed=phys.get("passed"), displacement_m=disp,
                plan_seconds=t.get("plan"), layout_seconds=t.get("layout"), total_seconds=t.get("total"),
                layout_pass=res.layout.stats.get("pass"), unmet=res.report["unmet"], notes=res.report["notes"],
                seconds=round(time.perf_counter() - t0, 3))
            records.append(rec)
            if seed == seeds[0] and len(images) < 9 and (out / "plan.png").is_file():
                from PIL import Image

                images.append((np.asarray(Image.open(out / "plan.png").convert("RGB")), f"#{i} {text}"))
            print(f"[{i:02d}/{seed}] {rec['objects']} objects, collision-free {rec['collision_free']}, in bounds "
                  f"{rec['in_bounds']}, relations {rec['relations_ok']}/{rec['relations']}, navigable "
                  f"{rec['navigable']}, doors {rec['articulated_ok']}/{rec['articulated']}, physics "
                  f"{rec['physics_passed']}, {rec['seconds']:.1f} s", flush=True)
    return records, images


def summarise(records: list[dict]) -> dict[str, Any]:
    """The metrics over all runs (scenes that were built; refusals counted apart)."""
    built = [r for r in records if r["ok"]]
    should = [r for r in records if not r["must_refuse"]]
    refusals = [r for r in records if r["must_refuse"]]

    def rate(key: str) -> float | None:
        vals = [bool(r[key]) for r in built]
        return round(float(np.mean(vals)), 4) if vals else None

    rel_total = sum(r["relations"] for r in built)
    text_total = sum(r["text_relations"] for r in built)
    art_total = sum(r["articulated"] for r in built)
    disp = [v for r in built for v in r["displacement_m"].values() if v is not None]
    plan_t = [r["plan_seconds"] for r in built if r["plan_seconds"] is not None]
    lay_t = [r["layout_seconds"] for r in built if r["layout_seconds"] is not None]
    refuse_t = [r["seconds"] for r in refusals if r.get("refused")]
    return {
        "runs": len(records), "scenes_built": len(built),
        "build_rate": round(len([r for r in should if r["ok"]]) / max(1, len(should)), 4),
        "refusals_correct": f"{sum(r.get('refused', False) for r in refusals)}/{len(refusals)}",
        "refusal_seconds_max": round(max(refuse_t), 3) if refuse_t else None,
        "objects_per_scene": round(float(np.mean([r["objects"] for r in built])), 2) if built else None,
        "collision_free_rate": rate("collision_free"),
        "in_bounds_rate": rate("in_bounds"),
        "support_rate": round(float(np.mean([r["support_rate"] for r in built])), 4) if built else None,
        "relation_satisfaction": round(sum(r["relations_ok"] for r in built) / rel_total, 4) if rel_total else None,
        "text_relation_satisfaction": round(sum(r["text_relations_ok"] for r in built) / text_total, 4)
        if text_total else None,
        "navigable_rate": rate("navigable"),
        "reachable_rate": round(float(np.mean([r["reachable_rate"] for r in built])), 4) if built else None,
        "articulated_clearance_rate": round(sum(r["articulated_ok"] for r in built) / art_total, 4)
        if art_total else None,
        "physics_pass_rate": rate("physics_passed"),
        "settle_displacement_m": {"median": round(statistics.median(disp), 5) if disp else None,
                                  "p95": round(float(np.percentile(disp, 95)), 5) if disp else None,
                                  "max": round(max(disp), 5) if disp else None},
        "plan_seconds": {"median": round(statistics.median(plan_t), 3) if plan_t else None,
                         "max": round(max(plan_t), 3) if plan_t else None},
        "layout_seconds": {"median": round(statistics.median(lay_t), 3) if lay_t else None,
                           "p95": round(float(np.percentile(lay_t, 95)), 3) if lay_t else None,
                           "max": round(max(lay_t), 3) if lay_t else None},
        "relaxed_layouts": sum(1 for r in built if (r.get("layout_pass") or 1) > 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write eval/results/scene.json."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="only the first N prompts")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="scene seeds per prompt")
    ap.add_argument("--nouns", action="store_true", help="only measure the noun mapping")
    ap.add_argument("--keep", type=Path, default=None, help="keep the scene folders here")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    previous = json.loads(args.out.read_text()) if args.out.is_file() else {}
    t0 = time.perf_counter()
    noun_stats = measure_nouns()
    at = noun_stats["templates"]["{}"]["at_threshold"]
    print(f"nouns: threshold {noun_stats['threshold']}: {at['positives_mapped_right']:.1%} of held-out nouns mapped "
          f"right, {at['negatives_rejected']:.1%} of unbuildable nouns rejected", flush=True)
    doc: dict[str, Any] = dict(previous)
    doc["noun_mapping"] = noun_stats
    if not args.nouns:
        prompts = read_prompts()
        if args.limit:
            prompts = prompts[:args.limit]
        records, images = run_scenes(prompts, args.seeds, args.keep)
        doc["summary"] = summarise(records)
        doc["runs"] = records
        doc["prompts"] = len(prompts)
        doc["seeds"] = args.seeds
        doc["anchors"] = {"LayoutVLM": {"collision_free": 0.818, "in_bounds": 0.949},
                          "Holodeck": {"collision_free": 0.778, "in_bounds": 0.081}}
        if images:
            from seed3d.scene.image import picture_grid, save_png

            save_png(GRID, picture_grid([im for im, _ in images], 3, 420, [cap for _, cap in images]))
            doc["picture_grid"] = str(GRID.relative_to(ROOT.parent))
        print(json.dumps(doc["summary"], indent=2))
    doc["command"] = "python eval/bench_scene.py" + (" " + " ".join(argv or sys.argv[1:])).rstrip()
    doc["machine"] = {"python": platform.python_version(), "platform": platform.platform(),
                      "cpus": __import__("os").cpu_count()}
    doc["seconds"] = round(time.perf_counter() - t0, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2, default=lambda o: o.item() if hasattr(o, "item") else str(o))
                        + "\n")
    print(f"wrote {args.out} in {doc['seconds']:.0f} s")
    return 0 if math.isfinite(doc["seconds"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
