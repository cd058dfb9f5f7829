"""Image → program on hand-drawn pictures our engine did not make (``eval/drawn_objects.py``), test or validation set.

    python eval/bench_drawn.py                                   # test set (10) → eval/results/drawn.json
    python eval/bench_drawn.py --set validation                  # validation set (14) → eval/results/drawn_val.json
    python eval/bench_drawn.py --model runs/program-image/model --out /tmp/drawn_try.json

``--set test`` (the default) draws ``draw_all``: ten pictures on busy, photo-like backgrounds (patterned wallpaper
or tiles above a wooden floor or table top). ``--set validation`` draws ``draw_validation``: fourteen other objects
drawn with other choices (plain walls, studio backdrops, a garden, dim rooms, perspective, side and high views,
small objects, ink outlines), the set on which thresholds are to be chosen; keep the test set for the final word.
The pictures are drawn with PIL.ImageDraw; none is a render of ``seed3d.synth``.
For every picture: ``predict_program`` (GrabCut finds the object, ProgramNet reads it, render-and-compare fits it;
timed), then ``build_program(prog, seed=0)``. Measured per picture: the true and predicted category, the
confidence, the network's top categories, the built asset's movable doors / drawers / lids against the truth,
whether the category is right and whether the movable total (doors + drawers + lids) matches, the fit record,
the seconds and which path ``--generator auto`` would take (``seed3d.pipeline``'s thresholds). Summary: category
accuracy, movable total exact, mean seconds, the share auto would build as a program. The JSON records the set.

Writes the JSON to ``--out`` (default ``eval/results/drawn.json`` for the test set, ``eval/results/drawn_val.json``
for the validation set), a picture grid next to it (same stem, .png: input | the built asset's front
three-quarter render | caption) and the inputs, 256 px high, to ``drawn_inputs/NAME.png`` beside it for the test set
(``eval/results/drawn_inputs/`` for the default ``--out``), ``drawn_val_inputs/NAME.png`` for the validation set.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from drawn_objects import draw_all, draw_validation  # noqa: E402

from seed3d.program import build_program  # noqa: E402
from seed3d.program.image import predict_program  # noqa: E402
from seed3d.program.image_data import asset_labels  # noqa: E402
from seed3d.render.preview import turntable  # noqa: E402

ROW = 256
"""Height of a grid row (the input, the render) and of the saved inputs."""
CAPTION_WIDTH = 500
COUNTS = ("doors", "drawers", "lids")
SETS = {"test": (draw_all, "drawn.json", "drawn_inputs"),
        "validation": (draw_validation, "drawn_val.json", "drawn_val_inputs")}
"""Each ``--set``: the function drawing its pictures, its default results JSON and its inputs folder."""


def jsonable(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """``record`` with only the keys whose values survive ``json.dumps``."""
    if record is None:
        return None
    out = {}
    for key, value in record.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            continue
        out[str(key)] = value
    return out


def fmt_counts(counts: dict[str, int]) -> str:
    return "/".join(str(counts[k]) for k in COUNTS)


def caption(lines: list[str], ok: bool) -> Image.Image:
    strip = Image.new("RGB", (CAPTION_WIDTH, ROW), (250, 250, 248) if ok else (252, 236, 234))
    d = ImageDraw.Draw(strip)
    font = ImageFont.load_default(size=16)
    y = 14
    for line in lines:
        d.text((12, y), line, fill=(20, 20, 20), font=font)
        y += 26
    return strip


def run_one(pic: dict[str, Any], model: str) -> tuple[dict[str, Any], np.ndarray]:
    img = pic["image"]
    t0 = time.perf_counter()
    prog = predict_program(np.asarray(img), model, seed=0)
    seconds = time.perf_counter() - t0
    asset = build_program(prog, seed=0)
    lab = asset_labels(asset)
    built = {"doors": int(lab.doors), "drawers": int(lab.drawers), "lids": int(lab.lids)}
    truth = pic["counts"]
    top = prog.notes[0].removeprefix("top categories: ") if prog.notes else ""
    # what `--generator auto` would do with this program (the pipeline's own rule)
    from seed3d.pipeline import image_program_accepted

    auto = "program" if image_program_accepted(prog) else "learned"
    record = {
        "name": pic["name"], "note": pic["note"], "category": pic["category"], "predicted": prog.category,
        "confidence": round(float(prog.confidence), 4), "top_categories": top, "counts": truth, "built": built,
        "category_right": prog.category == pic["category"],
        "movable_total_exact": sum(built.values()) == sum(truth.values()),
        "fit": jsonable(prog.fit), "seconds": round(seconds, 2), "auto_takes": auto,
    }
    view = turntable(asset, frames=1, size=ROW, start=30.0)[0]
    return record, view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(ROOT / "weights" / "program-image"), help="ProgramNet folder")
    parser.add_argument("--set", choices=SETS, default="test",
                        help="which pictures: the test set (draw_all) or the validation set (draw_validation)")
    parser.add_argument("--out", default=None, help="results JSON (default: eval/results/drawn.json for the test "
                        "set, eval/results/drawn_val.json for the validation set)")
    parser.add_argument("--size", type=int, default=384, help="side of the drawn pictures (px)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)

    draw, default_out, inputs_name = SETS[args.set]
    out = Path(args.out) if args.out is not None else ROOT / "eval" / "results" / default_out
    out.parent.mkdir(parents=True, exist_ok=True)
    inputs = out.parent / inputs_name  # eval/results/drawn_inputs (drawn_val_inputs) by default
    inputs.mkdir(parents=True, exist_ok=True)

    records, rows = [], []
    for pic in draw(args.size):
        small = pic["image"].resize((round(pic["image"].width * ROW / pic["image"].height), ROW),
                                    Image.Resampling.LANCZOS)
        small.save(inputs / f"{pic['name']}.png")
        record, view = run_one(pic, args.model)
        records.append(record)
        ok = record["category_right"] and record["movable_total_exact"]
        print(f"{record['name']:13s} truth {record['category']:13s} predicted {record['predicted']!s:15s} "
              f"({record['confidence']:.2f})  counts {fmt_counts(record['counts'])} built "
              f"{fmt_counts(record['built'])}  {'ok' if ok else '--'}  {record['seconds']:.1f} s  "
              f"[{record['top_categories']}]", flush=True)
        lines = [record["name"],
                 f"{record['category']} -> {record['predicted']} ({record['confidence']:.2f})",
                 f"counts d/dr/l: truth {fmt_counts(record['counts'])} / built {fmt_counts(record['built'])}",
                 f"top: {record['top_categories']}",
                 f"category {'right' if record['category_right'] else 'wrong'}, movable total "
                 f"{'exact' if record['movable_total_exact'] else 'off'}",
                 f"{record['seconds']:.1f} s; --generator auto takes the {record['auto_takes']} path"]
        rows.append(np.concatenate([np.asarray(small), view, np.asarray(caption(lines, ok))], axis=1))

    n = len(records)
    summary = {
        "pictures": n,
        "category_accuracy": round(sum(r["category_right"] for r in records) / n, 4),
        "movable_total_exact": round(sum(r["movable_total_exact"] for r in records) / n, 4),
        # a wrong object with nothing movable "matches" a truth of none: the share right on both counts
        "category_and_movable_right": round(sum(r["category_right"] and r["movable_total_exact"]
                                                for r in records) / n, 4),
        "mean_seconds": round(sum(r["seconds"] for r in records) / n, 2),
        "auto_takes_program": round(sum(r["auto_takes"] == "program" for r in records) / n, 4),
        "auto_takes_program_and_right": round(sum(r["auto_takes"] == "program" and r["category_right"]
                                                  for r in records) / n, 4),
    }
    result = {"what": "image -> program on hand-drawn photo-like pictures (eval/drawn_objects.py)",
              "set": args.set, "model": args.model, "size": args.size, "platform": platform.platform(),
              "summary": summary, "pictures": records}
    out.write_text(json.dumps(result, indent=1) + "\n")
    grid = out.with_suffix(".png")
    Image.fromarray(np.concatenate(rows, axis=0)).save(grid)
    print(f"category accuracy {summary['category_accuracy']:.2f}, movable total exact "
          f"{summary['movable_total_exact']:.2f}, mean {summary['mean_seconds']:.1f} s per picture; auto takes the "
          f"program for {summary['auto_takes_program']:.2f} ({summary['auto_takes_program_and_right']:.2f} right)")
    print(f"wrote {out}, {grid}, {inputs}/")


if __name__ == "__main__":
    main()
