"""Tabulate ``--generator auto``'s rule for an image-only program on the validation data, to choose its thresholds.

    python eval/auto_rule.py        # → eval/results/auto_rule_val.json

The rule (``seed3d.pipeline.image_program_accepted``) takes a masked image's program when its confidence and its
render-and-compare fit IoU pass (``IMAGE_PROGRAM_MIN_CONFIDENCE``, ``IMAGE_PROGRAM_MIN_FIT_IOU``) or a second pair
with less confidence and a closer fit (``IMAGE_PROGRAM_CLOSE_FIT_MIN_CONFIDENCE``, ``IMAGE_PROGRAM_CLOSE_FIT_IOU``);
never ``freeform``. For each second pair it reports, on the two validation sets, the share of images taken and
the category accuracy among them:

- engine renders: ``eval/results/program_image_fit_val.json`` (``python eval/bench_program_image.py --fit --seeds
  20000-20001 --out eval/results/program_image_fit_val.json``; clean and photo-augmented);
- drawn pictures: ``eval/results/drawn_val.json`` (``python eval/bench_drawn.py --set validation``).

Both must come from the same network (checked against their ``model`` / ``weights`` records where present). The
test drawings (``eval/results/drawn.json``) are scored with the shipped thresholds only, for the final word.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from seed3d import pipeline  # noqa: E402

CLOSE_CONFIDENCES = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
CLOSE_IOUS = (0.8, 0.85, 0.88, 0.9, 0.92, 0.95)


def engine_rows(path: Path) -> list[tuple[float, float, bool, str]]:
    """(confidence, fit IoU, category right, category) per validation render."""
    out = []
    for r in json.loads(path.read_text())["records"]:
        out.append((float(r["confidence"]), float(r["fit_iou"]), bool(r["category_right_after"]),
                    str(r["fitted"]["category"])))
    return out


def drawn_rows(path: Path) -> list[tuple[float, float, bool, str]]:
    """(confidence, fit IoU, category right, category) per drawn picture (fit IoU 0 when there was no fit)."""
    return [(float(r["confidence"]), float((r["fit"] or {}).get("iou", 0.0)), bool(r["category_right"]),
             str(r["predicted"])) for r in json.loads(path.read_text())["pictures"]]


def taken(rows: list[tuple[float, float, bool, str]], base: tuple[float, float], close: tuple[float, float]
          ) -> dict[str, Any]:
    """Share of ``rows`` the rule takes and the category accuracy of those."""
    got = [r for r in rows if r[3] != "freeform" and ((r[0] >= base[0] and r[1] >= base[1])
                                                      or (r[0] >= close[0] and r[1] >= close[1]))]
    return {"share": round(len(got) / max(len(rows), 1), 4), "taken": len(got), "right": sum(r[2] for r in got),
            "category_accuracy": round(sum(r[2] for r in got) / len(got), 4) if got else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=str(ROOT / "eval/results/program_image_fit_val.json"))
    parser.add_argument("--drawn", default=str(ROOT / "eval/results/drawn_val.json"))
    parser.add_argument("--test", default=str(ROOT / "eval/results/drawn.json"))
    parser.add_argument("--out", default=str(ROOT / "eval/results/auto_rule_val.json"))
    args = parser.parse_args()

    engine, drawn = engine_rows(Path(args.engine)), drawn_rows(Path(args.drawn))
    base = (pipeline.IMAGE_PROGRAM_MIN_CONFIDENCE, pipeline.IMAGE_PROGRAM_MIN_FIT_IOU)
    shipped = (pipeline.IMAGE_PROGRAM_CLOSE_FIT_MIN_CONFIDENCE, pipeline.IMAGE_PROGRAM_CLOSE_FIT_IOU)
    table = [{"close_confidence": c, "close_fit_iou": i, "engine": taken(engine, base, (c, i)),
              "drawn": taken(drawn, base, (c, i))} for c in CLOSE_CONFIDENCES for i in CLOSE_IOUS]
    print(f"first pair: confidence {base[0]}, fit IoU {base[1]} (alone: engine "
          f"{taken(engine, base, (2.0, 2.0))}, drawn {taken(drawn, base, (2.0, 2.0))})")
    print("close conf  close IoU   engine share / accuracy   drawn taken / right")
    for row in table:
        e, d = row["engine"], row["drawn"]
        mark = "  <- shipped" if (row["close_confidence"], row["close_fit_iou"]) == shipped else ""
        print(f"{row['close_confidence']:10.2f} {row['close_fit_iou']:10.2f}   {e['share']:.3f} / "
              f"{e['category_accuracy'] or 0:.3f}             {d['taken']:2d} / {d['right']:2d}{mark}")
    result = {"what": "auto's image rule on the validation renders and the validation drawings",
              "command": "python eval/auto_rule.py", "engine": args.engine, "drawn": args.drawn,
              "first_pair": {"confidence": base[0], "fit_iou": base[1]},
              "shipped_close_pair": {"confidence": shipped[0], "fit_iou": shipped[1]},
              "first_pair_alone": {"engine": taken(engine, base, (2.0, 2.0)), "drawn": taken(drawn, base, (2.0, 2.0))},
              "shipped": {"engine": taken(engine, base, shipped), "drawn": taken(drawn, base, shipped)},
              "table": table}
    if Path(args.test).exists():
        result["test_drawings_shipped"] = taken(drawn_rows(Path(args.test)), base, shipped)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"shipped rule: engine {result['shipped']['engine']}, drawn validation {result['shipped']['drawn']}, "
          f"test drawings {result.get('test_drawings_shipped')}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
