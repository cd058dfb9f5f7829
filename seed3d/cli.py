"""The ``seed3d`` command: one entry point with a subcommand per job."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from seed3d import __version__
from seed3d.errors import Seed3DError

log = logging.getLogger("seed3d")


def _progress_bar(desc: str) -> tuple[Callable[[float, str], None], Callable[[], None]]:
    """A tqdm bar driven by a ``(fraction, message)`` callback; returns (callback, close)."""
    from tqdm import tqdm

    bar = tqdm(total=100, desc=desc, leave=False, file=sys.stderr, bar_format="{desc} {percentage:3.0f}%|{bar}|")

    def update(fraction: float, message: str = "") -> None:
        bar.n = round(100 * min(max(fraction, 0.0), 1.0))
        bar.set_description_str(f"{desc}: {message}" if message else desc, refresh=False)
        bar.refresh()

    return update, bar.close


def _formats(text: str) -> tuple[str, ...]:
    from seed3d.export import FORMATS

    if text.strip().lower() in ("", "none"):
        return ()
    names = tuple(dict.fromkeys(f.strip().lower() for f in text.split(",") if f.strip()))
    unknown = [f for f in names if f not in FORMATS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown format(s) {', '.join(unknown)}; choose from {', '.join(FORMATS)}")
    return names


def _write_sim_ready(asset: Any, out: Path, formats: Sequence[str], overwrite: bool) -> dict[str, Path]:
    """Make ``asset`` sim-ready (hulls, inertials), save it as an asset folder at ``out`` and export beside it."""
    from seed3d.export import export_asset
    from seed3d.physics import prepare

    update, close = _progress_bar(asset.name)
    try:
        ready = prepare(asset, progress=lambda f, m: update(0.5 * f, m))
        ready.save(out, overwrite=overwrite)
        written = {"asset": out}
        if formats:
            written.update(export_asset(ready, out, formats=tuple(formats),
                                        progress=lambda f, m: update(0.5 + 0.5 * f, m)))
        return written
    finally:
        close()


def _print_written(written: dict[str, Path]) -> None:
    for kind, path in written.items():
        print(f"{kind:5s} {path}")


def cmd_export(args: argparse.Namespace) -> int:
    """Make an asset folder sim-ready (hulls, inertials) and export it to GLB, URDF, MJCF and USD."""
    from seed3d.asset import Asset

    asset = Asset.load(args.asset_dir)
    out = Path(args.output) if args.output else Path(args.asset_dir)
    in_place = out.resolve() == Path(args.asset_dir).resolve()
    _print_written(_write_sim_ready(asset, out, args.formats, overwrite=in_place or args.overwrite))
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate an asset folder, URDF, MJCF or USD file; exit 1 when a check fails."""
    from seed3d.physics.validate import validate_path

    report = validate_path(args.path)
    doc = report.to_dict()
    if args.report:
        from seed3d.asset import atomic_file

        with atomic_file(args.report) as tmp:
            tmp.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2) if args.json else report.summary())
    return report.exit_code


def cmd_synth(args: argparse.Namespace) -> int:
    """Make one procedural sim-ready object (or list the categories)."""
    from seed3d import synth

    if args.list:
        for name in synth.list_categories():
            print(synth.CATEGORIES[name].summary())
        return 0
    if not args.category or not args.output:
        raise Seed3DError("give a CATEGORY and -o DIR (or --list to see the categories)")
    asset = synth.generate(args.category, seed=args.seed)
    _print_written(_write_sim_ready(asset, Path(args.output), args.formats, overwrite=args.overwrite))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``seed3d`` command."""
    parser = argparse.ArgumentParser(
        prog="seed3d", description="Simulation-ready 3D assets: make, export and validate them.")
    parser.add_argument("--version", action="version", version=f"seed3d {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("export", help=cmd_export.__doc__, description=cmd_export.__doc__)
    p.add_argument("asset_dir", help="asset folder (with asset.json)")
    p.add_argument("--formats", type=_formats, default="glb,urdf,mjcf,usd",
                   help="comma-separated formats from glb,urdf,mjcf,usd (default: all)")
    p.add_argument("-o", "--output", help="output asset folder (default: the asset folder itself)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("validate", help=cmd_validate.__doc__, description=cmd_validate.__doc__)
    p.add_argument("path", help="asset folder, .urdf, MJCF .xml, or .usd/.usda/.usdc/.usdz file")
    p.add_argument("--json", action="store_true", help="print the JSON report instead of the summary")
    p.add_argument("--report", metavar="FILE", help="also write the JSON report to FILE")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("synth", help=cmd_synth.__doc__, description=cmd_synth.__doc__)
    p.add_argument("category", nargs="?", help="object category (see --list)")
    p.add_argument("--list", action="store_true", help="print one category per line with its parameters")
    p.add_argument("--seed", type=_seed, default=0, help="random seed (same category and seed: same asset)")
    p.add_argument("-o", "--output", help="output asset folder")
    p.add_argument("--formats", type=_formats, default="glb,urdf,mjcf,usd",
                   help="exports to write beside the asset: comma-separated, or 'none' (default: all)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
    p.set_defaults(func=cmd_synth)
    return parser


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be >= 0, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; errors print one clear line and return a non-zero code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except Seed3DError as exc:
        print(f"seed3d {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"seed3d {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
