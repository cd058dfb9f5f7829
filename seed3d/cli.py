"""The ``seed3d`` command: one entry point with a subcommand per job."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seed3d import __version__
from seed3d.errors import Seed3DError

if TYPE_CHECKING:
    from seed3d.typed import ProgressCallback

log = logging.getLogger("seed3d")


def _progress_bar(desc: str) -> tuple[ProgressCallback, Callable[[], None]]:
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


def _write_sim_ready(asset: Any, out: Path, formats: Sequence[str], overwrite: bool, physics: Any = None,
                     preview: bool = False, validate: bool = False,
                     extra: dict[str, Any] | None = None) -> dict[str, Path]:
    """Make ``asset`` sim-ready (hulls, inertials; ``physics`` settings, default the library's), save it as an
    asset folder at ``out`` and export beside it (``seed3d.pipeline.finish_asset``, the same path ``seed3d
    generate`` takes; validated, repaired where a part drifts, with report.json, when ``validate``; with the
    turntable preview when ``preview``)."""
    from seed3d.pipeline import finish_asset

    update, close = _progress_bar(asset.name)
    try:
        summary = finish_asset(asset, out, formats=tuple(formats), physics=physics, validate=validate,
                               preview=preview, overwrite=overwrite, keep_existing=overwrite, extra=extra,
                               progress=lambda stage, f, m: update((0.5 * f) if stage == "physics" else
                                                                   (0.5 + 0.5 * f), m))
    finally:
        close()
    return {"asset": out, **{role: out / rel for role, rel in summary["files"].items() if role != "asset"}}


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
    from seed3d.physics.validate import ValidationConfig, validate_path

    report = validate_path(args.path, ValidationConfig(robot=True if args.robot else None, mount=args.mount))
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
    if args.params:
        if not args.category:
            raise Seed3DError("give a CATEGORY to list its parameters")
        if args.category not in synth.CATEGORIES:
            synth.generate(args.category)  # the error that lists the categories
        print(synth.CATEGORIES[args.category].help())
        return 0
    if not args.category or not args.output:
        raise Seed3DError("give a CATEGORY and -o DIR (or --list to see the categories)")
    asset = synth.generate(args.category, seed=args.seed, params=_params(args.param))
    written = _write_sim_ready(asset, Path(args.output), args.formats, overwrite=args.overwrite, preview=True)
    _print_written(written)
    return 0


def cmd_data_build(args: argparse.Namespace) -> int:
    """Build (or resume) one split of the procedural training data set: shards, manifest.json and DATASET.md."""
    from seed3d.synth.dataset import DatasetConfig, build_split

    sizes = {"samples_per_shard": args.samples_per_shard, "surface_points": args.surface_points,
             "sharp_points": args.sharp_points, "volume_points": args.volume_points,
             "near_points": args.near_points,
             "grid_resolution": args.grid_resolution, "cond_views": args.cond_views,
             "cond_resolution": args.cond_resolution, "pbr_resolution": args.pbr_resolution}
    categories = None
    if args.categories:
        categories = tuple(dict.fromkeys(c.strip() for c in args.categories.split(",") if c.strip()))
    config = DatasetConfig(**{k: v for k, v in sizes.items() if v is not None}, categories=categories,
                           backend=args.backend, renders=not args.no_renders, queries=args.queries)
    update, close = _progress_bar(f"data {args.split}")
    try:
        report = build_split(args.out, args.split, args.count, config, workers=args.workers, progress=update,
                             overwrite=args.overwrite)
    finally:
        close()
    print(f"manifest {report.manifest}")
    print(f"samples  {report.samples} of {args.count} ({report.failures} failed seed(s), "
          f"{len(report.skipped)} sample(s) left out)")
    print(f"shards   {report.shards_written} written, {report.shards_reused} reused, "
          f"{report.bytes / 1e6:.1f} MB, {report.seconds:.1f} s")
    return 0


#: ``seed3d train NAME``: (module, config class, train function, what it trains).
TRAINERS: dict[str, tuple[str, str, str, str]] = {
    "part-seg": ("seed3d.parts.train", "PartSegTrainConfig", "train_part_segmenter",
                 "Train (or resume) the point-prompted part segmenter on a built data set's train split."),
    "geometry-vae": ("seed3d.geometry.train", "VAETrainConfig", "train_vae",
                     "Train (or resume) the locality-aware shape VAE on a built data set's train split."),
    "geometry-coarse": ("seed3d.geometry.train", "CoarseTrainConfig", "train_coarse",
                        "Train (or resume) the stage-1 shape flow and its image encoder on the coarse SDF grids "
                        "of a built data set's train split."),
    "geometry-detail": ("seed3d.geometry.train", "DetailTrainConfig", "train_detail",
                        "Train (or resume) the stage-2 detail flow (initialised from the shipped stage 1, or "
                        "--init-from a stage-2 model) to carry the shipped VAE's latent of each shape's coarse "
                        "surface (its true grid's, or with --coarse-from stage1 the grid stage 1 samples from its "
                        "condition), noised, to the shape's own latent at the same voxels."),
    "program-image": ("seed3d.program.image", "ProgramImageTrainConfig", "train_program_image",
                      "Train (or resume) the image -> program network (category, door / drawer / lid counts, "
                      "proportions) on renders of the procedural categories (--build renders them first)."),
    "pbr": ("seed3d.pbr.train", "PBRTrainConfig", "train_pbr",
            "Train (or resume) the multi-view PBR generator (albedo + metallic-roughness, MoE) and the material "
            "tagger on a built data set's rig views."),
}


def cmd_train(args: argparse.Namespace) -> int:
    """Train (or resume) the model ``args.train_command`` with the shared options."""
    import importlib

    module, config_name, fn_name, _ = TRAINERS[args.train_command]
    mod = importlib.import_module(module)
    defaults = getattr(mod, config_name)()
    options = {"steps": args.steps or defaults.steps, "batch": args.batch or defaults.batch,
               "lr": args.lr or defaults.lr, "seed": args.seed, "max_minutes": args.max_minutes, "device": args.device}
    if args.init_from:
        if not hasattr(defaults, "init_from"):
            raise Seed3DError(f"--init-from does not apply to {args.train_command} (it starts from stage 1)")
        options["init_from"] = args.init_from
    for name in ("coarse_from", "shapes", "shape_offset"):
        if getattr(args, name, None) is not None:
            options[name] = getattr(args, name)
    if getattr(args, "trainable", None):
        options["trainable"] = args.trainable
    if getattr(args, "distil", False):
        options["distil"] = True
    if getattr(args, "queries", None):
        options["near_queries"], options["volume_queries"] = args.queries
    if getattr(args, "model_option", None):
        options["model"] = _model_options(defaults.model, args.model_option)
    if getattr(args, "tagger_steps", None) is not None:
        options["tagger_steps"] = args.tagger_steps
    if getattr(args, "tagger_size", None) is not None:
        from seed3d.pbr.tagger import TaggerConfig

        options["tagger"] = TaggerConfig(image_size=args.tagger_size)
    if getattr(args, "tagger_only", False):
        if not args.init_from:
            raise Seed3DError("--tagger-only needs --init-from: the model folder whose generator is kept")
        options["steps"] = 0  # the generator is copied from --init-from; only the tagger's run trains
    config = getattr(mod, config_name)(**options)
    if getattr(args, "build", False):
        from seed3d.program.image_data import build_program_data

        for split in ("train", "test"):
            update, close = _progress_bar(f"data {split}")
            try:
                manifest = build_program_data(args.data, split, progress=update, workers=args.build_workers)
            finally:
                close()
            print(f"data {split}: {manifest['samples']} objects, {len(manifest['failures'])} failed seed(s)")
    update, close = _progress_bar(args.train_command)
    try:
        final = getattr(mod, fn_name)(args.data, args.out or f"runs/{args.train_command}", config, progress=update)
    finally:
        close()
    print(f"model {final}")
    return 0


def _model_options(defaults: Any, items: Sequence[str]) -> Any:
    """The training config's model config ``defaults`` with ``KEY=VALUE`` overrides (values read as JSON, else as
    text)."""
    fields = {f.name for f in dataclasses.fields(defaults)}
    values: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or key not in fields:
            raise Seed3DError(f"--model-option {item!r}: expected KEY=VALUE with KEY one of "
                              f"{', '.join(sorted(fields))}")
        try:
            values[key] = json.loads(text)
        except json.JSONDecodeError:
            values[key] = text
    try:
        return dataclasses.replace(defaults, **values)
    except (TypeError, ValueError) as exc:
        raise Seed3DError(f"--model-option: {exc}") from exc


def _stage_progress(desc: str, stages: Sequence[str]) -> tuple[Callable[[str, float, str], None], Callable[[], None]]:
    """A tqdm bar driven by a ``(stage, fraction, message)`` callback over ``stages`` in order, each stage taking
    its share of the time (``seed3d.progress.OverallProgress``); a stage not listed shows its message only."""
    from seed3d.progress import OverallProgress

    update, close = _progress_bar(desc)
    overall = OverallProgress(stages)

    def report(stage: str, fraction: float, message: str) -> None:
        update(overall(stage, fraction), f"{stage}: {message}" if message else stage)

    return report, close


def _job_spec(args: argparse.Namespace) -> Any:
    """The ``JobSpec`` of ``seed3d generate``'s options (errors before any model loads)."""
    from seed3d.pipeline import JobSpec, stage_list

    if not args.image and not args.text:
        raise Seed3DError("give --image PATH, --text TEXT or both")
    if args.image and not Path(args.image).is_file():
        raise Seed3DError(f"{args.image}: no such file")
    stages = [s for s in stage_list(args.stages)
              if not (args.no_texture and s == "texture") and not (args.no_articulation and s == "articulation")]
    spec = JobSpec(text=args.text, image=args.image, seed=args.seed, stages=tuple(stages), target_faces=args.faces,
                   texture_size=args.texture_size, steps=args.steps, guidance=args.guidance,
                   resolution=args.resolution, formats=args.formats, name=args.name, category=args.category,
                   generator=args.generator, params=_params(args.param) or None,
                   require_valid=bool(getattr(args, "require_valid", False)))
    spec.check()  # refuse a file that is not an image before loading any model
    return spec


def cmd_generate(args: argparse.Namespace) -> int:
    """Generate a sim-ready asset from an image and/or a text: parts, joints, every export, validation
    (report.json) and a turntable preview; exit 1 when validation fails (``--require-valid``: with an error
    naming the failed checks)."""
    from seed3d.errors import AssetInvalidError
    from seed3d.physics.validate import ValidationReport
    from seed3d.pipeline import POST_STAGES, Seed3DPipeline, run_job

    spec = _job_spec(args)
    out = Path(args.output)
    if out.exists() and not args.overwrite:
        raise Seed3DError(f"{out} exists (use --overwrite to replace it)")
    pipe = Seed3DPipeline.from_pretrained(args.weights, device=args.device, low_memory=args.low_memory)
    report, close = _stage_progress("generate", ["program", *spec.stages, *POST_STAGES])
    refused: AssetInvalidError | None = None
    try:
        summary = run_job(spec, out, pipe=pipe, device=args.device, progress=report, overwrite=args.overwrite)
    except AssetInvalidError as exc:  # the folder is written: show it and its report, then the error
        refused, summary = exc, exc.summary
    finally:
        close()
    _print_written({role: out / rel for role, rel in summary["files"].items()})
    doc = json.loads((out / "report.json").read_text())
    print(ValidationReport.from_dict(doc).summary())
    timings = summary["timings"]
    print(f"{summary['parts']} part(s), {summary['joints']} joint(s) ({summary['movable_joints']} movable); "
          + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
    _print_generator(summary.get("generator", {}))
    if doc.get("size"):  # where the size came from: the text, the category or the default
        dims = ", ".join(f"{k} {v:.3g} m" for k, v in doc["size"]["dims"].items())
        print(f"size: {dims} ({doc['size']['source']}: {doc['size']['note']})")
    if refused is not None:
        print(f"seed3d generate: error: {refused}", file=sys.stderr)
    return 0 if summary["valid"] else 1


def _print_generator(doc: dict[str, Any]) -> None:
    """Which path made the object and why; for a program, its category, parameters and what was not placed."""
    if not doc:
        return
    print(f"generator: {doc.get('path')} ({doc.get('why')})")
    prog = doc.get("program")
    if prog:
        given = set(prog.get("given", []))
        shown = ", ".join(f"{k}={v}" for k, v in prog.get("params", {}).items() if k in given)
        print(f"program: {prog['category']} [{shown}]  (every parameter in asset.json; rerun with --param NAME=VALUE)")
        for line in prog.get("unplaced", []):
            print(f"  not placed: {line}")
        for line in prog.get("notes", []):
            print(f"  note: {line}")


def _params(items: Sequence[str] | None) -> dict[str, Any]:
    """``--param NAME=VALUE`` options as a dict (values stay text: the category checks and converts them)."""
    out: dict[str, Any] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise Seed3DError(f"--param takes NAME=VALUE, got {item!r}")
        value = value.strip()
        out[name.strip()] = [v.strip() for v in value.split(",")] if "," in value else value
    return out


def cmd_batch(args: argparse.Namespace) -> int:
    """Generate every job of a CSV or JSONL manifest into DIR (one folder per job, resumable), then print and
    write a summary (DIR/summary.json, DIR/summary.csv); exit 1 when an item failed or is not valid."""
    from seed3d.batch import format_summary, run_batch

    result = run_batch(args.manifest, args.output, workers=args.workers, ray=args.ray, weights=args.weights,
                       device=args.device, resume=args.resume, low_memory=args.low_memory, show_progress=True)
    print(format_summary(result))
    return result.exit_code


def _read_input(src: Path, up: str | None = None) -> tuple[Any, Any, str, Any]:
    """(asset or None, mesh or None, name, orientation or None) of a mesh file or an asset folder; the mesh is a
    one-part asset's own. ``up``: see ``read_mesh_oriented`` (None: the format's convention, no guess)."""
    from seed3d.asset import Asset
    from seed3d.export.meshio import read_mesh, read_mesh_oriented

    if (src / "asset.json").is_file():
        if up not in (None, "auto"):
            raise Seed3DError(f"--up applies to mesh files; {src} is an asset folder, +Z up already")
        given = Asset.load(src)
        return given, given.parts[0].mesh if len(given.parts) == 1 else None, given.name, None
    mesh, orientation = (read_mesh(src), None) if up is None else read_mesh_oriented(src, up)
    return None, mesh, "".join(c if c.isalnum() or c in "_-" else "_" for c in src.stem) or "asset", orientation


#: Seconds ``seed3d articulate`` keeps for writing and validating the exports out of its ``--time-budget``.
ARTICULATE_EXPORT_SECONDS = 20.0


def cmd_articulate(args: argparse.Namespace) -> int:
    """Split a mesh (or an asset folder's parts) into parts, infer joints, export and validate."""
    from seed3d.articulation import ArticulationConfig, articulate
    from seed3d.parts import decompose
    from seed3d.parts.segment import Segmenter
    from seed3d.physics.validate import ValidationReport
    from seed3d.pipeline import weights_component

    began = time.perf_counter()
    src = Path(args.input)
    out = Path(args.output)
    if out.exists() and not args.overwrite:
        raise Seed3DError(f"{out} exists (use --overwrite to replace it)")
    update, close = _progress_bar("articulate")
    try:
        given, mesh, name, orientation = _read_input(src, args.up)
        if mesh is not None:
            segmenter = Segmenter.from_pretrained(args.weights or weights_component("part_segmenter"))
            parts = decompose(mesh, segmenter, name=name, num_parts=args.parts, bodies=args.bodies,
                              progress=lambda f, m: update(0.3 * f, m))
        else:
            assert given is not None
            parts = given
        left = None
        if args.time_budget:  # what segmenting left, less the exports' share
            left = max(1.0, args.time_budget - (time.perf_counter() - began) - ARTICULATE_EXPORT_SECONDS)
        config = ArticulationConfig(time_budget=left)
        asset = articulate(parts, config=config, progress=lambda f, m: update(0.3 + 0.5 * f, m))
    finally:
        close()
    extra = {"orientation": orientation.to_dict()} if orientation is not None else {}
    asset.metadata.update(extra)
    written = _write_sim_ready(asset, out, args.formats, overwrite=args.overwrite, validate=True, extra=extra)
    report = ValidationReport.from_dict(json.loads((out / "report.json").read_text()))
    _print_written(written)
    if orientation is not None:
        print(orientation.summary())
    for j in asset.joints:
        if j.movable:
            print(f"joint {j.name}: {j.type} {j.parent} -> {j.child} axis {[round(float(a), 3) for a in j.axis]}")
    print(report.summary())
    return report.exit_code


def cmd_texture(args: argparse.Namespace) -> int:
    """Texture a mesh or an asset folder: PBR views generated from an image and/or a text, baked into UV textures
    on every part, then the parts the text gives a material painted with it ("brass handles"); writes a textured
    asset folder with its exports (default: GLB) and a turntable preview."""
    from seed3d.asset import Asset, Part
    from seed3d.pbr.texture import TextureOptions, Texturer
    from seed3d.pipeline import generated_physics, weights_component

    src, out = Path(args.input), Path(args.output)
    if out.exists() and not args.overwrite:
        raise Seed3DError(f"{out} exists (use --overwrite to replace it)")
    image = None
    if args.image:  # read before any model loads: a file that is not an image is refused first
        from seed3d.condition.image import load_image

        if not Path(args.image).is_file():
            raise Seed3DError(f"{args.image}: no such file")
        image = load_image(Path(args.image))
    sampling = {k: v for k, v in (("steps", args.steps), ("guidance", args.guidance)) if v is not None}
    options = TextureOptions(seed=args.seed, texture_size=args.texture_size, **sampling)
    given, mesh, name, _ = _read_input(src)
    target = given if given is not None else Asset(name, [Part("body", mesh, label="body")])
    words = [w.strip() for w in args.material.split(",") if w.strip()] if args.material else None
    texturer = Texturer.from_pretrained(args.weights or weights_component("pbr"))
    update, close = _progress_bar("texture")
    try:
        result = texturer(target, image=image, text=args.text, material_words=words, options=options,
                          progress=update)
    finally:
        close()
    print(f"material text: {result.summary['prompt']!r}" if result.summary["prompt"] else
          "material text: none (unconditional)")
    from seed3d.program.paint import paint_parts

    asset, painted = paint_parts(result.asset, args.text, seed=args.seed)
    if painted:
        print("painted from the words: " + ", ".join(f"{k} {v}" for k, v in painted.items()))
    _print_written(_write_sim_ready(asset, out, args.formats, overwrite=args.overwrite,
                                    physics=None if given is not None else generated_physics(), preview=True))
    return 0


def cmd_scene(args: argparse.Namespace) -> int:
    """Plan, lay out and assemble a sim-ready scene from a sentence (URDF, MJCF, USD, plan image, overview)."""
    from seed3d.scene import LayoutError, MissingObjectsError, generate_scene
    from seed3d.scene.omissions import LEFT_OUT, describe, entry

    update, close = _progress_bar("scene")
    try:
        result = generate_scene(args.text, room_size=args.room_size, seed=args.seed, out=args.output,
                                progress=update, planner=args.planner, overwrite=args.overwrite,
                                allow_missing=args.allow_missing)
    except MissingObjectsError as exc:  # the sentence named what cannot be built: say what, build nothing
        close()  # (closing twice is harmless)
        for item in exc.omissions:
            print(describe(item))
        print(f"seed3d scene: error: {exc}", file=sys.stderr)
        return 1
    except LayoutError as exc:
        if not exc.objects:  # the request as a whole does not fit: an error
            raise
        close()
        for name, why in exc.objects.items():
            print(describe(entry(name, LEFT_OUT, why)))
        print(f"seed3d scene: error: {exc}; pass --allow-missing to build the scene without "
              f"{'it' if len(exc.objects) == 1 else 'them'}", file=sys.stderr)
        return 1
    finally:
        close()
    _print_written({k: Path(v) for k, v in result.paths.items()})
    for item in result.report.get("unmet") or []:
        print(f"unmet  {item}")
    for item in result.report.get("omissions") or []:
        print(describe(item))
    return 0


def _room_size(text: str) -> tuple[float, ...]:
    try:
        size = tuple(float(v) for v in text.lower().replace("×", "x").split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"room size must look like 4x3 or 4x3x2.7 (meters), got {text!r}") from None
    if len(size) not in (2, 3) or min(size) <= 0:
        raise argparse.ArgumentTypeError(f"room size must be 2 or 3 positive numbers like 4x3, got {text!r}")
    return size


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
    p.add_argument("--robot", action="store_true",
                   help="validate as a robot: joints held by their motors at rest, a link and its parent not compared "
                        "for overlap, self-collision within the joint limits a warning (default: a robot when the "
                        "file declares actuated joints, <transmission> or <actuator>)")
    p.add_argument("--mount", choices=("floor", "wall", "ceiling"),  # seed3d.asset.MOUNTS
                   help="how the object is held at rest: dropped on the floor, or its root fixed as on a wall or "
                        "a ceiling (default: what the folder's asset.json says, else the floor)")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("synth", help=cmd_synth.__doc__, description=cmd_synth.__doc__)
    p.add_argument("category", nargs="?", help="object category (see --list)")
    p.add_argument("--list", action="store_true", help="print one category per line with its parameters")
    p.add_argument("--params", action="store_true", help="print CATEGORY's parameters: ranges and what each means")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="set a parameter (repeatable; see --params), e.g. --param doors=2 --param "
                        "body_finish=wood:oak; a per-item one takes a list: --param hinge=left,right")
    p.add_argument("--seed", type=_non_negative, default=0, help="random seed (same category and seed: same asset)")
    p.add_argument("-o", "--output", help="output asset folder")
    p.add_argument("--formats", type=_formats, default="glb,urdf,mjcf,usd",
                   help="exports to write beside the asset: comma-separated, or 'none' (default: all)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
    p.set_defaults(func=cmd_synth)

    p = sub.add_parser("scene", help=cmd_scene.__doc__, description=cmd_scene.__doc__)
    p.add_argument("text", help='the room in words, e.g. "a kitchen with a fridge against the wall and a table"')
    p.add_argument("--room-size", type=_room_size, metavar="WxD[xH]", help="room size in meters (default: planned)")
    p.add_argument("--seed", type=_non_negative, default=0, help="random seed (same text and seed: same scene)")
    p.add_argument("--planner", default="rules", choices=("rules", "llm"),
                   help="rules: offline parser (default); llm: an OpenAI-compatible endpoint (see docs)")
    p.add_argument("-o", "--output", required=True, help="output scene folder")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
    p.add_argument("--allow-missing", action="store_true",
                   help="build the scene without the objects the sentence names that Seed3D cannot build or place "
                        "(they are listed either way; without this flag the command stops and exits 1)")
    p.set_defaults(func=cmd_scene)

    p = sub.add_parser("articulate", help=cmd_articulate.__doc__, description=cmd_articulate.__doc__ + (
        " A mesh file (meters; GLB/glTF: +Y up; OBJ/PLY/STL/OFF: the up axis read from how it rests, printed and "
        "in report.json, or --up) or a one-part asset folder is segmented by the shipped part segmenter; an asset "
        "folder with several parts keeps them."))
    p.add_argument("input", help="mesh file (.glb .gltf .obj .ply .stl .off) or asset folder")
    p.add_argument("-o", "--output", required=True, help="output asset folder (with exports and report.json)")
    p.add_argument("--parts", type=_positive, help="number of parts to cut (default: automatic)")
    p.add_argument("--up", choices=("auto", "+x", "-x", "+y", "-y", "+z", "-z"), default="auto",  # meshio.UP_CHOICES
                   help="the mesh file's axis that points up, written --up=-x for a minus (default auto: glTF "
                        "+y by its spec; other formats: read from the face it rests on)")
    p.add_argument("--weights", help="part segmenter folder (default: from weights/pipeline.json)")
    p.add_argument("--formats", type=_formats, default="glb,urdf,mjcf,usd",
                   help="exports to write: comma-separated, or 'none' (default: all)")
    p.add_argument("--bodies", action=argparse.BooleanOptionalAction, default=True,
                   help="a mesh of several closed bodies (a CAD export) gets one part per body where the segmenter's "
                        "cut disagrees with them (seed3d.parts.by_bodies; default on; --no-bodies keeps the "
                        "segmenter's cut)")
    p.add_argument("--time-budget", type=_seconds, default=120.0, metavar="SECONDS",
                   help="seconds the command aims to take: the convex decomposition gets what segmenting and the "
                        "later steps leave (parts past it get box collision shapes, with a warning); default 120, "
                        "0 for no limit beyond the physics defaults")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
    p.set_defaults(func=cmd_articulate)

    p = sub.add_parser("texture", help=cmd_texture.__doc__.split(":")[0] + ".", description=cmd_texture.__doc__ + (
        " A mesh file (GLB/glTF: +Y up; OBJ/PLY/STL/OFF: +Z up, meters, front +X) becomes a one-part asset; an asset "
        "folder keeps its parts, joints and collision shapes. With an image and no words, the shipped material "
        "tagger names the image's materials."))
    p.add_argument("input", help="mesh file (.glb .gltf .obj .ply .stl .off) or asset folder")
    p.add_argument("-o", "--output", required=True, help="output asset folder (with its exports)")
    p.add_argument("--image", metavar="PATH", help="reference image (PNG/JPEG/...; alpha or a plain background)")
    p.add_argument("--text", metavar="TEXT", help="description of the object and its materials")
    p.add_argument("--material", metavar="WORDS", help='material words, comma-separated ("walnut wood, brass")')
    p.add_argument("--seed", type=_non_negative, default=0, help="seed (same inputs and seed -> same textures)")
    p.add_argument("--steps", type=_positive, help="flow sampling steps (default: the texture stage's, 2)")
    p.add_argument("--guidance", type=float, help="classifier-free guidance scale (default: the texture stage's, 1)")
    p.add_argument("--texture-size", type=_positive, default=1024, help="texture side for the asset (default 1024)")
    p.add_argument("--formats", type=_formats, default="glb",
                   help="exports to write: comma-separated from glb,urdf,mjcf,usd, or 'none' (default: glb)")
    p.add_argument("--weights", metavar="DIR", help="PBR model folder (default: from weights/pipeline.json)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
    p.set_defaults(func=cmd_texture)

    p = sub.add_parser("generate", help="Generate a sim-ready asset from an image and/or a text.",
                       description=cmd_generate.__doc__ + (
        " Stages: geometry (one watertight body sized from the text or the category), parts (the shipped part "
        "segmenter), texture (PBR views from the same image and/or text, baked into UV textures on every part), "
        "articulation (joints, limits, physical properties)."))
    p.add_argument("--image", metavar="PATH", help="reference image (PNG/JPEG/...; alpha or a plain background)")
    p.add_argument("--text", metavar="TEXT", help="description (size words such as '80 cm tall' set the size)")
    p.add_argument("-o", "--output", required=True, help="output asset folder (with exports and report.json)")
    p.add_argument("--seed", type=_non_negative, default=0, help="seed (same inputs and seed -> same asset)")
    p.add_argument("--stages", default="geometry,parts,texture,articulation",
                   help="comma-separated stages from geometry,parts,texture,articulation; geometry always runs "
                        "(default: all)")
    p.add_argument("--no-texture", action="store_true", help="skip the texture stage (parts keep a plain material)")
    p.add_argument("--no-articulation", action="store_true",
                   help="skip the articulation stage (parts are fixed rigidly to the largest one)")
    p.add_argument("--formats", type=_formats, default="glb,urdf,mjcf,usd",
                   help="exports to write: comma-separated, or 'none' (default: glb,urdf,mjcf,usd)")
    p.add_argument("--faces", type=_positive, default=50_000, help="faces after decimation (default 50000)")
    p.add_argument("--steps", type=_positive, default=25, help="flow sampling steps (default 25)")
    p.add_argument("--guidance", type=float, default=3.0, help="classifier-free guidance scale (default 3)")
    p.add_argument("--resolution", type=_positive, default=128, help="surface extraction grid (default 128)")
    p.add_argument("--texture-size", type=_positive, default=1024,
                   help="texture side for the whole asset, up to 2048 (default 1024)")
    p.add_argument("--category", help="category whose typical size applies when the text gives none")
    p.add_argument("--generator", default="auto", choices=("auto", "program", "learned"),
                   help="program: infer the object's program from the text and build it (exact parts and joints); "
                        "learned: the geometry flow; auto (default): the program when the text names a known "
                        "object, else the learned path")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="override a program parameter (repeatable; `seed3d synth CATEGORY --params` lists them)")
    p.add_argument("--name", help="asset name (default: from the text, else the image file name)")
    p.add_argument("--weights", metavar="DIR", help="weights folder with pipeline.json (default: shipped)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="device (default cpu)")
    p.add_argument("--low-memory", action="store_true", help="hold one model at a time (slower on repeat runs)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
    p.add_argument("--require-valid", action="store_true",
                   help="treat an asset that fails validation as an error naming the failed checks (exit 1; the "
                        "folder and its report.json are still written)")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("batch", help="Generate every job of a CSV or JSONL manifest (resumable; local workers or "
                       "Ray).", description=cmd_batch.__doc__ + (
        " MANIFEST columns (CSV) or keys (JSONL) are the job fields: text, image (relative to the manifest), seed, "
        "stages, target_faces, texture_size, steps, guidance, resolution, formats, name, category, generator, params, "
        "require_valid (true: an asset that fails validation is a failed row); lists such as "
        "stages and formats are comma-separated in CSV. A job whose folder DIR/items/KEY is complete is skipped "
        "(KEY: a hash of its inputs and options)."))
    p.add_argument("manifest", metavar="MANIFEST", help="jobs: a .csv file with a header row, or .jsonl")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="output folder (items/KEY/ per job)")
    p.add_argument("--workers", type=_positive, default=1,
                   help="local worker processes, each loading the pipeline once (default 1: in this process); "
                        "with --ray: the number of Ray actors")
    p.add_argument("--ray", metavar="ADDRESS", help="run on a Ray cluster (ADDRESS, e.g. ray://host:10001 or auto; "
                   "'local' starts one on this machine); DIR must be on storage every node can write")
    p.add_argument("--weights", metavar="DIR", help="weights folder with pipeline.json (default: shipped)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                   help="device of every worker (default cpu; cuda: each Ray actor asks for one GPU)")
    p.add_argument("--low-memory", action="store_true", help="each worker holds one model at a time")
    p.add_argument("--no-resume", dest="resume", action="store_false",
                   help="run every job again, replacing finished folders (default: skip finished jobs)")
    p.set_defaults(func=cmd_batch, resume=True)

    p = sub.add_parser("data", help="training data sets made from the procedural categories",
                       description="Training data sets made from the procedural categories.")
    sub_data = p.add_subparsers(dest="data_command", metavar="ACTION")
    p.set_defaults(func=lambda _args, _p=p: _p.print_help() or 2)
    b = sub_data.add_parser("build", help=cmd_data_build.__doc__, description=cmd_data_build.__doc__)
    b.add_argument("--out", required=True, metavar="DIR", help="data set folder; the split goes to DIR/SPLIT")
    b.add_argument("--split", required=True, choices=("train", "val", "test"),
                   help="split: each owns a disjoint seed range")
    b.add_argument("--count", required=True, type=_positive, help="number of samples")
    b.add_argument("--workers", type=_positive, default=os.cpu_count() or 1,
                   help="worker processes (default: the number of CPUs)")
    b.add_argument("--samples-per-shard", type=_positive, help="samples per shard file (default 64)")
    b.add_argument("--surface-points", type=_positive, help="surface points per sample (default 16384)")
    b.add_argument("--sharp-points", type=_positive, help="sharp-edge points per sample (default 4096)")
    b.add_argument("--volume-points", type=_positive, help="uniform SDF samples per sample (default 8192)")
    b.add_argument("--near-points", type=_positive, help="near-surface SDF samples per sample (default 8192)")
    b.add_argument("--grid-resolution", type=_positive,
                   help="cells per side of the coarse SDF grid (default 16; the stage-1 shape flow's target)")
    b.add_argument("--cond-views", type=_non_negative, help="random conditioning views per sample (default 4)")
    b.add_argument("--cond-resolution", type=_positive, help="conditioning image size in pixels (default 128)")
    b.add_argument("--pbr-resolution", type=_positive, help="PBR target view size in pixels (default 128)")
    b.add_argument("--categories", help="comma-separated categories to cycle through (default: all)")
    b.add_argument("--backend", default="auto", choices=("auto", "nvdiffrast", "moderngl", "open3d"),
                   help="render backend (default: the first that works)")
    b.add_argument("--no-renders", action="store_true",
                   help="geometry and structure only: no conditioning or PBR views, no renderer needed (enough "
                        "to train the shape VAE and the part segmenter)")
    b.add_argument("--queries", default="open3d", choices=("open3d", "torch", "cuda"),
                   help="inside/distance query engine: open3d (default), torch (exact brute force on the CPU) "
                        "or cuda (the same on the GPU)")
    b.add_argument("--overwrite", action="store_true",
                   help="replace a split built with other settings (same settings always resume)")
    b.set_defaults(func=cmd_data_build)

    p = sub.add_parser("train", help="train a model on a built data set (resumes from OUT's checkpoint)",
                       description="Train a model on a built data set; a run resumes from OUT's checkpoint.")
    sub_train = p.add_subparsers(dest="train_command", metavar="MODEL")
    p.set_defaults(func=lambda _args, _p=p: _p.print_help() or 2)
    for name, (_, _, _, about) in TRAINERS.items():
        t = sub_train.add_parser(name, help=about, description=about)
        data_dir = "data/program" if name == "program-image" else "data/synth"
        t.add_argument("--data", default=data_dir, metavar="DIR", help=f"built data set (default {data_dir})")
        t.add_argument("--out", metavar="DIR",
                       help=f"run folder: checkpoint.pt, log.jsonl, model/ (default runs/{name})")
        t.add_argument("--steps", type=_positive, help="optimiser steps (default: the model's training config)")
        t.add_argument("--batch", type=_positive, help="shapes per step (default: the model's training config)")
        t.add_argument("--lr", type=float, help="peak learning rate (default: the model's training config)")
        t.add_argument("--seed", type=_non_negative, default=0, help="seed of initialisation and batches")
        t.add_argument("--max-minutes", type=float, help="stop and save after this much wall time")
        t.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="device (default cpu)")
        t.add_argument("--init-from", metavar="DIR", help="start a fresh run from a saved model's weights")
        if name == "geometry-vae":
            t.add_argument("--trainable", choices=("all", "decoder", "queries"),
                           help="what trains: all (default); decoder: the encoder is kept from --init-from (its "
                                "latents keep their meaning, so the flows trained on them stay valid); queries: the "
                                "decoder's token blocks are kept too, only the per-query layers train")
            t.add_argument("--distil", action="store_true",
                           help="learn --init-from's own SDF instead of the data's (for a changed query path with "
                                "--trainable queries; a light path with head_width = width starts from a "
                                "least-squares fit of --init-from's)")
            t.add_argument("--queries", type=_positive, nargs=2, metavar=("NEAR", "VOLUME"),
                           help="SDF queries per shape and step, near the surface and uniform in the cube "
                                "(default: the training config's, 1024 512)")
        if name == "geometry-coarse":
            t.add_argument("--trainable", choices=("all", "shape_head"),
                           help="what trains: all (default); shape_head: only the conditioner's shape head (which "
                                "ranks stage-1 samples), on --init-from's frozen flow and image encoder")
        if name == "geometry-detail":
            t.add_argument("--coarse-from", choices=("truth", "stage1"),
                           help="each shape's coarse grid: its true one, or stage 1's sample from the shape's own "
                                "condition (default: the training config's, truth)")
            t.add_argument("--shapes", type=_positive, help="train shapes used (default: the training config's)")
            t.add_argument("--shape-offset", type=_non_negative,
                           help="first train shape used (2560 skips the shapes stage 1 trained on; default 0)")
        if name in ("geometry-vae", "geometry-detail"):
            example = "light_queries=true" if name == "geometry-vae" else "anchor_offsets=true"
            t.add_argument("--model-option", action="append", metavar="KEY=VALUE",
                           help=f"set a field of the model config, e.g. {example} (repeatable; the rest as the "
                                "training config has them)")
        if name == "program-image":
            t.add_argument("--build", action="store_true",
                           help="render the train and test views into --data first (resumes a stopped build)")
            t.add_argument("--build-workers", type=_positive, default=1, metavar="N",
                           help="processes rendering --build's shards (default 1; the bytes are the same)")
        if name == "pbr":
            t.add_argument("--tagger-only", action="store_true",
                           help="train only the material tagger (from --init-from's); keep --init-from's generator")
            t.add_argument("--tagger-steps", type=_non_negative,
                           help="optimiser steps of the material tagger (default: the training config's)")
            t.add_argument("--tagger-size", type=_positive, metavar="PX",
                           help="side of the material tagger's input images (default: the training config's)")
        t.set_defaults(func=cmd_train)
    _load_plugin_commands(sub)
    return parser


#: Entry point group of subcommands that live outside the seed3d package (``seed3d serve`` from api/).
COMMANDS_GROUP = "seed3d.commands"


def _load_plugin_commands(sub: Any) -> None:
    """Let every entry point of group ``seed3d.commands`` add its subcommands (``register(subparsers)``); one
    that fails to import or register is skipped with a warning."""
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=COMMANDS_GROUP), key=lambda e: e.name):
        if ep.name in sub.choices:
            log.warning("command %r from %s ignored: seed3d has a command of that name", ep.name, ep.value)
            continue
        try:
            ep.load()(sub)
        except Exception as exc:  # a broken plugin must not take the whole CLI down
            log.warning("command %r from %s is unavailable: %s: %s", ep.name, ep.value, type(exc).__name__, exc)


def _integer_at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
    return value


def _positive(text: str) -> int:
    return _integer_at_least(text, 1)


def _non_negative(text: str) -> int:
    return _integer_at_least(text, 0)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds (a number >= 0), got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected seconds (a number >= 0), got {text!r}")
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
