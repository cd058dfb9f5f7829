"""Program-from-text benchmark: hand-written prompts → ``seed3d.program.parse_text`` → ``build_program``, measured
on the built asset.

    python eval/bench_program.py                       # every prompt of eval/program_prompts.jsonl, and the grid
    python eval/bench_program.py --limit 20 --no-grid  # a quick run

Each line of eval/program_prompts.jsonl is a prompt written by hand for this benchmark (not by the engine's
describer): ``{"text", "category", "counts", "finishes"?, "size"?}``. ``category`` null marks an object the
engine cannot build: the right answer there is no program (no category, or a confidence below
``seed3d.pipeline.PROGRAM_MIN_CONFIDENCE``, so ``auto`` falls back to the learned path). For every prompt:

- category: the parsed category, taken only at or above ``PROGRAM_MIN_CONFIDENCE`` (what ``auto`` would take),
  equals the expected one (null for unbuildable objects);
- counts: every count the prompt states, exact, read off the BUILT asset (``built_counts``): parts by label
  (door, drawer, lid, wheel, handle/lever, knob, button), legs and burners from the asset's attributes (legs
  merged into one frame, burners drawn on the hob), shelves per compartment from the built parameters (shelves
  are part of the body mesh);
- finishes: every part finish the prompt states, read off the built parts' materials (``built_finish``);
  expected values are ``kind:colour`` patterns (``*`` wildcards; a list gives alternatives);
- size: relative error of the built ``size_m`` against each stated measurement (``length``: the longer
  horizontal side); within 5 % counts as right;
- seconds per parse and per build (the text encoder's first load is timed apart, before the prompts).

Writes eval/results/program.json and, unless ``--no-grid``, eval/results/program_prompts.png: twelve prompts,
each beside the asset built from it (at rest and opened). Failures are printed as a table (prompt, expected, got).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import logging
import os
import platform
import statistics
import sys
import textwrap
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
PROMPTS = ROOT / "program_prompts.jsonl"
RESULTS = ROOT / "results" / "program.json"
GRID = ROOT / "results" / "program_prompts.png"

#: Count names → the part labels whose parts are counted on the built asset.
LABEL_COUNTS: dict[str, tuple[str, ...]] = {
    "doors": ("door",), "drawers": ("drawer",), "lids": ("lid",), "wheels": ("wheel",),
    "handles": ("handle", "lever"), "dials": ("knob", "dial"), "buttons": ("button",),
}

#: Finish roles of the prompt file → part labels that carry them, in order of preference (the first label
#: with parts wins: a table's "body" is its top, a stool's its seat, a lamp's its base, a door's its leaf).
ROLE_LABELS: dict[str, tuple[str, ...]] = {
    "body": ("body", "top", "seat", "base", "door"), "front": ("door", "drawer"), "handle": ("handle", "lever"),
    "leg": ("leg",), "top": ("top",), "lid": ("lid",), "cap": ("lid",), "seat": ("seat",), "shade": ("shade",),
    "frame": ("frame", "leg"), "base": ("base",),
}

#: A stated size within this relative error counts as right.
SIZE_TOLERANCE = 0.05


def read_prompts(path: Path = PROMPTS) -> list[dict[str, Any]]:
    """The prompt file's rows (blank lines and lines starting with ``#`` skipped)."""
    rows = []
    for k, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            row = json.loads(line)
            row["line"] = k
            rows.append(row)
    return rows


# --------------------------------------------------------------------------------------------- measurements


def built_counts(asset: Any) -> dict[str, int]:
    """Counts read off a built asset: parts by label (``LABEL_COUNTS``); legs from ``attributes["legs"]``
    (a stool's legs are one frame part), else leg parts; burners from ``attributes["burners"]``; shelves per
    compartment from the built parameters (the most in any compartment: shelves are part of the body mesh)."""
    labels = Counter(p.label for p in asset.parts)
    attrs = asset.metadata.get("attributes", {})
    out = {name: sum(labels[label] for label in group) for name, group in LABEL_COUNTS.items()}
    legs = attrs.get("legs")
    out["legs"] = int(legs["count"]) if isinstance(legs, dict) and "count" in legs else labels["leg"]
    out["burners"] = int(attrs.get("burners") or 0)
    shelves = asset.metadata.get("params", {}).get("shelves", 0)
    out["shelves"] = int(max(shelves, default=0) if isinstance(shelves, list) else shelves or 0)
    return out


def _decode_material(name: str) -> str:
    """A synth part material name (``kind_colour_words``) as ``kind:colour words``."""
    from seed3d.synth.materials import KINDS

    for kind in sorted(KINDS, key=len, reverse=True):
        if name.startswith(kind + "_"):
            return f"{kind}:{name[len(kind) + 1:].replace('_', ' ')}"
    return name


def built_finish(asset: Any, role: str) -> list[str]:
    """The finishes (``kind:colour``) of the built parts that carry ``role`` (see ``ROLE_LABELS``)."""
    for label in ROLE_LABELS.get(role, (role,)):
        parts = [p for p in asset.parts if p.label == label]
        if parts:
            return sorted({_decode_material(p.material.name) for p in parts})
    return []


def _norm(finish: str) -> str:
    return finish.lower().replace("-", " ").replace("_", " ")


def finish_matches(expected: str | list[str], got: list[str]) -> bool:
    """Every built finish matches one of the expected patterns (and there is one)."""
    patterns = [expected] if isinstance(expected, str) else list(expected)
    return bool(got) and all(any(fnmatch.fnmatchcase(_norm(g), _norm(p)) for p in patterns) for g in got)


def size_errors(asset: Any, stated: dict[str, float]) -> dict[str, float]:
    """Relative error of the built size against each stated measurement (``length``: longer horizontal side; a
    width stated beside a longer length: the shorter horizontal side, as ``build_program`` reads it)."""
    size = asset.metadata["attributes"]["size_m"]
    built = {"width": float(size["width"]), "depth": float(size["depth"]), "height": float(size["height"])}
    built["length"] = max(built["width"], built["depth"])
    if "length" in stated and stated.get("width", float("inf")) < stated["length"]:
        built["width"] = min(built["width"], built["depth"])
    return {dim: round(built[dim] / value - 1.0, 4) for dim, value in stated.items() if dim in built}


# --------------------------------------------------------------------------------------------- the run


def run_prompt(row: dict[str, Any], threshold: float, keep: bool) -> tuple[dict[str, Any], Any]:
    """Parse and build one prompt; its record (and the built asset when ``keep``)."""
    from seed3d.program import build_program, parse_text

    rec: dict[str, Any] = {"line": row["line"], "text": row["text"], "expected": row["category"]}
    t0 = time.perf_counter()
    try:
        prog = parse_text(row["text"], seed=0)
    except Exception:  # a crash is a result here, with its traceback
        rec["error"] = "parse: " + traceback.format_exc()
        rec["category_ok"] = False
        return rec, None
    rec["parse_s"] = round(time.perf_counter() - t0, 4)
    taken = prog.category if prog.category is not None and prog.confidence >= threshold else None
    rec.update(category=prog.category, confidence=round(float(prog.confidence), 3), how=prog.how, taken=taken,
               category_ok=taken == row["category"],
               params=prog.to_dict()["params"], unplaced=list(prog.unplaced),
               notes=list(prog.notes))
    if prog.category is None:
        return rec, None
    t0 = time.perf_counter()
    try:
        asset = build_program(prog, seed=0)
    except Exception:
        rec["error"] = "build: " + traceback.format_exc()
        return rec, None
    rec["build_s"] = round(time.perf_counter() - t0, 4)
    if row["category"] is None:
        return rec, (asset if keep else None)
    same = prog.category == row["category"]
    counts = built_counts(asset)
    rec["counts"] = {name: {"expected": n, "built": counts.get(name), "ok": same and counts.get(name) == n}
                     for name, n in row.get("counts", {}).items()}
    finishes = {}
    for role, want in row.get("finishes", {}).items():
        got = built_finish(asset, role)
        finishes[role] = {"expected": want, "built": got, "ok": same and finish_matches(want, got)}
    rec["finishes"] = finishes
    if row.get("size"):
        errors = size_errors(asset, row["size"])
        rec["size"] = {dim: {"expected": v, "error": errors.get(dim),
                             "ok": same and errors.get(dim) is not None and abs(errors[dim]) <= SIZE_TOLERANCE}
                       for dim, v in row["size"].items()}
    return rec, (asset if keep else None)


def _rate(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def _seconds(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {"mean": round(statistics.fmean(values), 4), "median": round(statistics.median(values), 4),
            "p95": round(float(np.percentile(values, 95)), 4), "max": round(max(values), 4), "n": len(values)}


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracies (category, counts, finishes, sizes) and seconds over the records."""
    buildable = [r for r in records if r["expected"] is not None]
    null = [r for r in records if r["expected"] is None]
    count_items = [(name, c) for r in buildable for name, c in r.get("counts", {}).items()]
    finish_items = [f for r in buildable for f in r.get("finishes", {}).values()]
    size_items = [s for r in buildable for s in r.get("size", {}).values()]
    per_count = {name: _rate([c["ok"] for n, c in count_items if n == name])
                 for name in sorted({n for n, _ in count_items})}
    per_category: dict[str, Any] = {}
    for cat in sorted({r["expected"] for r in buildable}):
        rows = [r for r in buildable if r["expected"] == cat]
        per_category[cat] = {
            "prompts": len(rows), "category": _rate([r["category_ok"] for r in rows]),
            "counts": _rate([c["ok"] for r in rows for c in r.get("counts", {}).values()]),
            "finishes": _rate([f["ok"] for r in rows for f in r.get("finishes", {}).values()])}
    with_counts = [r for r in buildable if r.get("counts")]
    return {
        "prompts": len(records), "buildable_prompts": len(buildable), "unbuildable_prompts": len(null),
        "category_accuracy": _rate([r["category_ok"] for r in records]),
        "category_accuracy_buildable": _rate([r["category_ok"] for r in buildable]),
        "category_found_any_confidence": _rate([r.get("category") == r["expected"] for r in buildable]),
        "unbuildable_rejected": _rate([r["category_ok"] for r in null]),
        "count_accuracy": _rate([c["ok"] for _, c in count_items]), "count_items": len(count_items),
        "prompts_all_counts_right": _rate([all(c["ok"] for c in r["counts"].values()) for r in with_counts]),
        "count_accuracy_by_name": per_count,
        "finish_accuracy": _rate([f["ok"] for f in finish_items]), "finish_items": len(finish_items),
        "size_within_5pct": _rate([s["ok"] for s in size_items]), "size_items": len(size_items),
        "size_mean_abs_error": (round(statistics.fmean(abs(s["error"]) for s in size_items
                                                       if s["error"] is not None), 4)
                                if any(s["error"] is not None for s in size_items) else None),
        "errors": sum("error" in r for r in records),
        "seconds_parse": _seconds([r["parse_s"] for r in records if "parse_s" in r]),
        "seconds_build": _seconds([r["build_s"] for r in records if "build_s" in r]),
        "targets": {"category": 0.95, "counts": 0.95},
        "per_category": per_category,
    }


def failures(records: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(prompt, expected, got) for every wrong category, count, finish or size and every crash."""
    out: list[tuple[str, str, str]] = []
    for r in records:
        text = r["text"]
        if "error" in r:
            out.append((text, "no crash", r["error"].strip().splitlines()[-1]))
        if not r["category_ok"] and "category" in r:
            got = f"{r['category']} ({r['how']} {r['confidence']:.2f})" if r["category"] else "none"
            out.append((text, f"category {r['expected']}", got))
        for name, c in r.get("counts", {}).items():
            if not c["ok"]:
                parsed = r["params"].get(name, "-")
                out.append((text, f"{name}={c['expected']}", f"built {c['built']} (parsed {name}={parsed})"))
        for role, f in r.get("finishes", {}).items():
            if not f["ok"]:
                want = f["expected"] if isinstance(f["expected"], str) else " | ".join(f["expected"])
                out.append((text, f"{role} {want}", "built " + ", ".join(f["built"] or ["no such part"])))
        for dim, s in r.get("size", {}).items():
            if not s["ok"]:
                err = "n/a" if s["error"] is None else f"{s['error']:+.1%}"
                out.append((text, f"{dim} {s['expected']} m", f"error {err}"))
    return out


def print_failures(rows: list[tuple[str, str, str]]) -> None:
    """The failure table, one line per failure."""
    if not rows:
        print("no failures")
        return
    w0 = min(60, max(len(r[0]) for r in rows))
    w1 = min(36, max(len(r[1]) for r in rows))
    print(f"{'prompt':<{w0}}  {'expected':<{w1}}  got")
    print("-" * (w0 + w1 + 30))
    for text, want, got in rows:
        short = text if len(text) <= w0 else text[:w0 - 1] + "…"
        print(f"{short:<{w0}}  {want:<{w1}}  {got}")


# --------------------------------------------------------------------------------------------- picture grid


def grid_choice(prompts: list[dict[str, Any]], n: int = 12) -> list[int]:
    """Indices of ``n`` prompts spread over the categories: per category the prompt stating the most."""
    best: dict[str, int] = {}
    for i, row in enumerate(prompts):
        cat = row["category"]
        if cat is None:
            continue
        if cat not in best or _facts(row) > _facts(prompts[best[cat]]):
            best[cat] = i
    cats = list(best)
    if len(cats) <= n:
        return [best[c] for c in cats]
    return [best[cats[k]] for k in np.linspace(0, len(cats) - 1, n).round().astype(int)]


def _facts(row: dict[str, Any]) -> int:
    return len(row.get("counts", {})) + len(row.get("finishes", {})) + len(row.get("size", {}))


def plot_grid(items: list[tuple[dict[str, Any], Any]], path: Path, size: int = 200) -> None:
    """Each prompt (text, and what was built) beside its asset at rest and with its joints opened (the view
    of eval/synth_gallery.py); red text where something failed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from seed3d.render import get_renderer
    from seed3d.render.preview import strip, turntable

    sys.path.insert(0, str(ROOT))
    from synth_gallery import opened

    cols = 2
    rows = (len(items) + cols - 1) // cols
    fig, axes = plt.subplots(rows, 2 * cols, figsize=(16.0, 2.4 * rows), squeeze=False,
                             gridspec_kw={"width_ratios": [1.0, 1.6] * cols})
    for ax in axes.ravel():
        ax.axis("off")
    renderer = get_renderer()
    try:
        for k, (rec, asset) in enumerate(items):
            r, c = divmod(k, cols)
            bad = not rec["category_ok"] or any(not v["ok"] for key in ("counts", "finishes", "size")
                                                for v in rec.get(key, {}).values())
            built = built_counts(asset) if asset is not None else {}
            stated = ", ".join(f"{name} {built.get(name)}" for name in rec.get("counts", {}))
            caption = "\n".join(textwrap.wrap(f"“{rec['text']}”", 34))
            caption += f"\n→ {rec.get('category')} ({rec.get('confidence', 0):.2f})"
            if stated:
                caption += "\n" + "\n".join(textwrap.wrap("built: " + stated, 34))
            axes[r, 2 * c].text(0.0, 0.5, caption, fontsize=9, va="center", ha="left", wrap=True,
                                color="r" if bad else "k", transform=axes[r, 2 * c].transAxes)
            if asset is not None:
                views = [turntable(target, frames=1, size=size, start=30.0, renderer=renderer)[0]
                         for target in (asset, opened(asset))]
                axes[r, 2 * c + 1].imshow(strip(views))
    finally:
        renderer.close()
    fig.tight_layout()
    fig.savefig(path, dpi=90, format="png")
    plt.close(fig)


# --------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write eval/results/program.json (and the picture grid)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prompts", type=Path, default=PROMPTS)
    ap.add_argument("--limit", type=int, default=None, help="only the first N prompts")
    ap.add_argument("--no-grid", action="store_true", help="skip the picture grid")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    from tqdm import tqdm

    from seed3d.pipeline import PROGRAM_MIN_CONFIDENCE
    from seed3d.program import parse_text

    t_all = time.perf_counter()
    prompts = read_prompts(args.prompts)
    if args.limit:
        prompts = prompts[:args.limit]
    t0 = time.perf_counter()
    for text in ("a cabinet", "a gadget"):  # loads the text encoder and the noun embeddings once
        parse_text(text, seed=0)
    warmup = round(time.perf_counter() - t0, 2)
    chosen = set() if args.no_grid else set(grid_choice(prompts))
    records: list[dict[str, Any]] = []
    kept: list[tuple[dict[str, Any], Any]] = []
    for i, row in enumerate(tqdm(prompts, desc="prompts", unit="prompt", file=sys.stderr)):
        rec, asset = run_prompt(row, PROGRAM_MIN_CONFIDENCE, keep=i in chosen)
        records.append(rec)
        if i in chosen:
            kept.append((rec, asset))
    summary = summarise(records)
    summary["seconds_text_encoder_load"] = warmup
    fails = failures(records)
    print_failures(fails)
    print(json.dumps({k: v for k, v in summary.items() if k != "per_category"}, indent=2))
    doc: dict[str, Any] = {
        "summary": summary, "threshold": PROGRAM_MIN_CONFIDENCE,
        "failures": [{"prompt": p, "expected": e, "got": g} for p, e, g in fails],
        "records": records, "prompts_file": str(args.prompts.relative_to(ROOT.parent))
        if args.prompts.is_relative_to(ROOT.parent) else str(args.prompts),
    }
    if kept:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        grid = args.out.with_name(GRID.name) if args.out != RESULTS else GRID
        from seed3d.asset import atomic_file

        with atomic_file(grid) as tmp:
            plot_grid(kept, Path(tmp))
        doc["picture_grid"] = str(grid.relative_to(ROOT.parent)) if grid.is_relative_to(ROOT.parent) else str(grid)
        print(f"wrote {grid}")
    doc["command"] = "python eval/bench_program.py" + (" " + " ".join(argv if argv is not None else sys.argv[1:])
                                                       ).rstrip()
    doc["machine"] = {"python": platform.python_version(), "platform": platform.platform(),
                      "cpus": os.cpu_count()}
    doc["seconds"] = round(time.perf_counter() - t_all, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2, default=lambda o: o.item() if hasattr(o, "item") else str(o))
                        + "\n")
    print(f"wrote {args.out} in {doc['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
