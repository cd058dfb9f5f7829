"""The end-to-end pipeline: the only module that knows the order of the stages.

``Seed3DPipeline.from_pretrained()`` reads ``weights/pipeline.json`` (the component manifest) and loads each
component when a stage first needs it; ``pipe(image=..., text=..., seed=...)`` returns an ``Asset``:

1. ``geometry``: image and/or text -> one watertight body in meters (``seed3d.geometry``);
2. ``parts``: the body cut into labelled, closed parts by the part segmenter (``seed3d.parts.decompose``);
3. ``texture``: the multi-view PBR generator paints the parts from the same image and/or text and the views are
   baked into UV textures on every part (``seed3d.pbr.texture``);
4. ``articulation``: a joint tree with types, axes, limits and physical properties
   (``seed3d.articulation.articulate``). Parts without articulation are fixed rigidly to the largest part.

``run_job(JobSpec(...), out)`` is the one way to make a finished asset folder: it runs the pipeline, computes
collision hulls and inertials (``physics``), writes every export (``export``), validates the folder in the
physics engines (``validate``), renders a turntable preview (``preview``) and writes ``report.json``; the
folder appears atomically. ``seed3d generate``, ``seed3d batch`` and the REST service's workers all call it.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seed3d.asset import Asset, Joint, Part, atomic_dir
from seed3d.errors import AssetInvalidError, DependencyError, InvalidInputError, NotBuiltError, Seed3DError
from seed3d.physics import CollisionConfig, PhysicsConfig
from seed3d.progress import heartbeat
from seed3d.typed import PathType

log = logging.getLogger(__name__)

#: Stages in the order the pipeline runs them.
STAGES: tuple[str, ...] = ("geometry", "parts", "texture", "articulation")
#: Stages the pipeline can run today (the default of ``PipelineOptions`` and ``JobSpec``).
BUILT_STAGES: tuple[str, ...] = STAGES
#: Seconds the turntable preview takes on a busy CPU (what its heartbeat expects).
PREVIEW_SECONDS = 4.0
#: Seconds reading an image's program takes on a busy CPU (network and render-and-compare fit; its heartbeat's
#: expectation, reported as stage "generator", which moves no overall figure: the path is not known yet).
CHOOSE_SECONDS = 8.0
#: What ``run_job`` does after the pipeline's stages, in order (progress callbacks use these names).
POST_STAGES: tuple[str, ...] = ("physics", "export", "validate", "preview")
#: Which path makes the object: ``program`` (infer the object's program and build it with the procedural engine:
#: exact parts and joints), ``learned`` (the geometry flow, then parts, texture and articulation), or ``auto``
#: (the program when its inference passes ``PROGRAM_MIN_CONFIDENCE``, else the learned path).
GENERATORS: tuple[str, ...] = ("auto", "program", "learned")
#: Confidence at or above which ``auto`` takes the program: an exact or alias noun (1.0 / 0.9) or an embedding match
#: at the noun mapper's own threshold (``seed3d.program.nouns.SIMILARITY_THRESHOLD``, measured in
#: eval/bench_scene.py: below it most nouns name objects we cannot build).
PROGRAM_MIN_CONFIDENCE = 0.64
#: The image network's top-category probability at or above which ``auto`` builds an image-only program. Chosen on
#: validation renders (seeds 20000-20001, 254 clean and photo-augmented images of the 67 categories; network v2, kept
#: with v3, see weights/program-image/MODEL_CARD.md): with the fit IoU below, 0.70 takes 71.3 % of them at 99.4 %
#: category accuracy with v3 (0.80: 65.8 % at 100 %); a wrong program is worse than the learned path's rough shape.
#: On the photo-augmented test renders 0.70 alone keeps 61.1 % of the images at 99.3 %.
IMAGE_PROGRAM_MIN_CONFIDENCE = 0.70
#: The same for an image whose object could not be masked (no alpha, no plain background).
UNMASKED_IMAGE_PROGRAM_MIN_CONFIDENCE = 0.97
#: The image network's top-category probability at or above which a learned shape from an image alone takes that
#: category's typical size (below it, or for freeform, the default size); the shape itself is the learned path's.
#: On the validation renders (eval/results/program_image_fit_val.json, network v3) 0.40 keeps 90.9 % of the images at
#: 97.8 % category accuracy (0.50: 87.4 % at 98.2 %); a mug read as 0.5 mug and 0.14 kettle is still mug-sized.
IMAGE_SIZE_MIN_CONFIDENCE = 0.4
#: The render-and-compare fit's silhouette IoU (``seed3d.program.fit``) at or above which ``auto`` builds a masked
#: image's program (its confidence must pass ``IMAGE_PROGRAM_MIN_CONFIDENCE`` too): the 5th percentile of the fit IoU
#: of the validation renders whose category was read right (0.590 with networks v2 and v3, 0.596 with v1; seeds
#: 20000-20001, 254 clean and augmented images, never the test seeds), so a fit worse than 95 % of good readings — a
#: shape the engine's program does not reproduce — goes to the learned path; thin objects (lamps, faucets, chairs)
#: fit worst. ``python eval/bench_program_image.py --fit --seeds 20000-20001 --out
#: eval/results/program_image_fit_val.json`` (its ``fit_iou_when_category_right_percentiles`` and ``thresholds``).
IMAGE_PROGRAM_MIN_FIT_IOU = 0.60
#: The second way a masked image's program passes: a close fit with less confidence. Pictures unlike our renders
#: (photographs, drawings) rarely reach the confidence above even when the network's top category is right and its
#: program reproduces the picture's silhouette closely. Chosen (network v3) as the pair that takes the most of the
#: 14 validation drawings (``python eval/bench_drawn.py --set validation``) rightly while the validation renders
#: taken stay at least 98 % right, never looking at the test drawings: 0.40 with IoU 0.80 takes 82.3 % of the
#: renders at 98.1 % (the first pair alone: 71.3 % at 99.4 %) and 4 of the 14 drawings, all 4 right (alone: none).
#: ``python eval/auto_rule.py`` → eval/results/auto_rule_val.json.
IMAGE_PROGRAM_CLOSE_FIT_IOU = 0.80
IMAGE_PROGRAM_CLOSE_FIT_MIN_CONFIDENCE = 0.40
#: Rounds of ``seed3d.physics.repair.hold_joints`` (each triples the holding friction and damping) ``finish_asset``
#: tries on an asset whose parts drift at rest before it reports the failure.
REPAIR_ROUNDS = 2
#: Export formats ``run_job`` writes by default (all of ``seed3d.export.FORMATS``).
DEFAULT_FORMATS: tuple[str, ...] = ("glb", "urdf", "mjcf", "usd")

StageProgress = Callable[[str, float, str], None]


class JobCancelled(Seed3DError):
    """A job stopped at a stage boundary because its ``should_cancel()`` returned true."""


def weights_root(root: PathType | None = None) -> Path:
    """The weights folder: ``root``, else $SEED3D_WEIGHTS, else ``weights/`` of the source checkout."""
    return Path(root or os.environ.get("SEED3D_WEIGHTS") or Path(__file__).resolve().parents[1] / "weights")


def weights_component(name: str, root: PathType | None = None) -> Path:
    """Folder of component ``name`` listed in ``pipeline.json`` of the weights folder (see ``weights_root``)."""
    base = weights_root(root)
    manifest = base / "pipeline.json"
    if not manifest.is_file():
        raise Seed3DError(f"{manifest}: no weights manifest (set SEED3D_WEIGHTS or pass --weights)")
    try:
        comp = json.loads(manifest.read_text())["components"][name]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise Seed3DError(f"{manifest}: lists no component {name!r} ({type(exc).__name__})") from None
    return base / comp["path"]


def check_device(device: str) -> str:
    """``device`` when this machine can run on it: cpu, or cuda / cuda:N with a GPU torch can see."""
    if device == "cpu":
        return device
    if not re.fullmatch(r"cuda(:\d+)?", str(device)):
        raise InvalidInputError(f"device must be cpu or cuda (cuda:N), got {device!r}")
    import torch

    if not torch.cuda.is_available():
        raise DependencyError(f"device {device!r} was asked for but torch sees no CUDA GPU "
                              f"(torch {torch.__version__}, cuda build {torch.version.cuda}); use --device cpu")
    index = int(device.split(":")[1]) if ":" in device else 0
    if index >= torch.cuda.device_count():
        raise InvalidInputError(f"device {device!r}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    return device


def generated_physics() -> PhysicsConfig:
    """Collision settings for generated parts: a coarse, bounded CoACD (at most 8 hulls per part).

    Segmented generated parts are rough and often open (CoACD remeshes those first). With the library defaults
    (64 hulls, threshold 0.02, 50 tree-search iterations) CoACD took 15–60 s per part on 2 shared cores, minutes
    per asset; a middle setting (16 hulls, threshold 0.08, 20 iterations) 27 s for six parts of a 1k-face body;
    these settings 6 s for the same parts and 9 s for the six parts of a 50k-face body (up to 45k faces each).
    """
    return PhysicsConfig(collision=CollisionConfig(max_hulls=8, threshold=0.15, resolution=500, mcts_iterations=10,
                                                   mcts_max_depth=2, mcts_nodes=10, max_input_faces=1500,
                                                   preprocess_resolution=20))


def check_generator(generator: str, params: dict[str, Any] | None) -> None:
    """Raise ``InvalidInputError`` unless ``generator`` is one of ``GENERATORS`` and ``params`` a dict of names."""
    if generator not in GENERATORS:
        raise InvalidInputError(f"generator must be one of {', '.join(GENERATORS)}, got {generator!r}")
    if params is not None and (not isinstance(params, dict) or not all(isinstance(k, str) for k in params)):
        raise InvalidInputError(f"params must be a mapping of parameter names to values, got {params!r}")
    if params and generator == "learned":
        raise InvalidInputError("params set the program's parameters; they need generator auto or program")


def learned_category(text: str | None, category: str | None) -> str | None:
    """The synth category a learned-path object is of: ``category`` (a name or one of its nouns), else the one
    the text names by an exact noun (no embedding guess), else None."""
    from seed3d.program.nouns import vocabulary
    from seed3d.program.text import parse_text
    from seed3d.synth import CATEGORIES

    if category:
        if category in CATEGORIES:
            return category
        return vocabulary().get(category.strip().lower())
    if text:
        prog = parse_text(text, embed=False)
        return prog.category if prog.how in ("exact", "alias") and prog.confidence >= PROGRAM_MIN_CONFIDENCE else None
    return None


#: What the progress bar says in each phase of the geometry stage (``seed3d.geometry.generate.GEOMETRY_PHASES``).
GEOMETRY_MESSAGES: dict[str, str] = {"condition": "encoding the input", "coarse": "coarse flow",
                                     "detail": "detail flow", "extract": "extracting the surface",
                                     "postprocess": "cleaning the mesh"}


#: The geometry stage's share of its progress bar spent loading its models (the first job; later ones skip it).
GEOMETRY_LOADING_SHARE = 0.03
#: Seconds loading the geometry models and the text encoder takes on a busy CPU (what its heartbeat expects).
LOADING_SECONDS = 8.0


def geometry_fraction(phase: str, fraction: float) -> float:
    """The geometry stage's overall progress at ``fraction`` of ``phase``: the phases' shares laid end to end, so
    the bar only moves forward (an unknown phase: where the last known one ends)."""
    from seed3d.geometry.generate import GEOMETRY_PHASES

    shares = list(GEOMETRY_PHASES.items())
    total = sum(v for _, v in shares)
    done = 0.0
    for name, share in shares:
        if name == phase:
            return min(1.0, (done + share * min(max(fraction, 0.0), 1.0)) / total)
        done += share
    return 1.0


def program_size(asset: Asset) -> dict[str, Any]:
    """report.json's ``size`` of a built program: its extent (meters), and whether the text stated it (the
    program's size fit) or the category's typical size (moved by any size words) gave it."""
    lo, hi = asset.bounds()
    ext = hi - lo
    dims = {"depth": round(float(ext[0]), 4), "width": round(float(ext[1]), 4), "height": round(float(ext[2]), 4)}
    program = asset.metadata.get("program", {})
    if program.get("size"):
        said = ", ".join(f"{k} {v:.3g} m" for k, v in program["size"].items())
        if program.get("source") == "image":
            return {"dims": dims, "source": "image", "note": f"proportions read off the image at the category's "
                                                           f"typical height ({said}), fitted by the program"}
        return {"dims": dims, "source": "text", "note": f"stated in the prompt ({said}), fitted by the program"}
    category = str(program.get("category") or asset.metadata.get("category") or "object")
    return {"dims": dims, "source": "category",
            "note": f"the {category.replace('_', ' ')} program's size (its typical range, moved by any size words)"}


def normalise_stages(stages: str | Sequence[str]) -> tuple[str, ...]:
    """Stage names in pipeline order with ``geometry`` first (it always runs); unknown names are an error."""
    items = stage_list(stages) if isinstance(stages, str) else tuple(str(s).strip() for s in stages)
    unknown = [s for s in items if s not in STAGES]
    if unknown:
        raise InvalidInputError(f"unknown stages {unknown}; stages are {', '.join(STAGES)}")
    return tuple(s for s in STAGES if s == "geometry" or s in items)


def _check_built(stages: Sequence[str]) -> None:
    missing = [s for s in stages if s not in BUILT_STAGES]
    if missing:
        raise NotBuiltError(f"the {', '.join(missing)} stage is not built yet; run with stages "
                            f"{', '.join(BUILT_STAGES)} (the default)")


@dataclass
class PipelineOptions:
    """What to run and how (the CLI's ``seed3d generate`` options)."""

    stages: tuple[str, ...] = BUILT_STAGES
    """Stages to run, a subset of ``STAGES``; geometry always runs first."""
    seed: int = 0
    """Seed of every random draw (same inputs and seed -> same asset)."""
    steps: int = 25
    """Flow sampling steps."""
    guidance: float = 3.0
    """Classifier-free guidance scale."""
    resolution: int = 128
    """Surface-extraction resolution (see ``GenerateOptions.resolution``)."""
    target_faces: int | None = 50_000
    """Faces of the generated mesh after decimation, and of its parts together after the parts stage (None: keep
    every face)."""
    texture_size: int = 1024
    """Texture side in pixels for the whole asset (16 … 2048; each part gets a power-of-two share)."""
    category: str | None = None
    """Category whose typical size applies when the text names no size."""
    max_parts: int = 6
    """Most parts the segmenter may cut (each part costs a convex decomposition and joint fitting)."""
    physics: PhysicsConfig = field(default_factory=generated_physics)
    """Collision hull and inertia settings of the generated parts."""
    device: str = "cpu"
    """cpu or cuda (the pipeline's own device decides where models run)."""
    generator: str = "auto"
    """Which path makes the object: auto, program or learned (see ``GENERATORS``)."""
    params: dict[str, Any] | None = None
    """Program parameters that replace the inferred ones (``--param doors=3``); the program path only."""

    def __post_init__(self) -> None:
        check_generator(self.generator, self.params)
        self.stages = normalise_stages(self.stages)
        _check_built(self.stages)
        for name, low in (("seed", 0), ("steps", 1), ("resolution", 8), ("texture_size", 16), ("max_parts", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidInputError(f"{name} must be an integer >= {low}, got {value!r}")
        if self.texture_size > 2048:
            raise InvalidInputError(f"texture_size must be at most 2048, got {self.texture_size}")
        if self.target_faces is not None and (isinstance(self.target_faces, bool) or
                                              not isinstance(self.target_faces, int) or self.target_faces < 4):
            raise InvalidInputError(f"target_faces must be None or an integer >= 4, got {self.target_faces!r}")
        if not isinstance(self.guidance, int | float) or not self.guidance >= 0:
            raise InvalidInputError(f"guidance must be a number >= 0, got {self.guidance!r}")


def _sha(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def _root_part(asset: Asset) -> str:
    """The part the others hang from when joints are not inferred: a ``body`` part, else the biggest box."""
    for p in asset.parts:
        if p.label == "body":
            return p.name

    def box(p: Part) -> float:
        lo, hi = p.mesh.bounds
        return float((hi - lo).prod())

    return max(asset.parts, key=box).name


def rigid(asset: Asset) -> Asset:
    """A copy of a segmented asset whose parts are all fixed to the root part (a rigid, non-articulated object)."""
    out = asset.copy()
    if out.joints_known:
        return out
    root = _root_part(out)
    joints = []
    for p in out.parts:
        if p.name != root:
            lo, hi = p.mesh.bounds
            joints.append(Joint(f"{p.name}_mount", "fixed", root, p.name, origin=(lo + hi) / 2))
    out.joints, out.joints_known = joints, True
    out.parts.sort(key=lambda p: p.name != root)  # root first
    out.check_tree()
    return out


def image_program_accepted(program: Any) -> bool:
    """Whether ``auto`` builds an image-only ``program`` (``seed3d.program.image.predict_program``'s): when the
    object was masked, confidence at ``IMAGE_PROGRAM_MIN_CONFIDENCE`` with a fit IoU at ``IMAGE_PROGRAM_MIN_FIT_IOU``,
    or confidence at ``IMAGE_PROGRAM_CLOSE_FIT_MIN_CONFIDENCE`` with a fit IoU at ``IMAGE_PROGRAM_CLOSE_FIT_IOU``;
    ``UNMASKED_IMAGE_PROGRAM_MIN_CONFIDENCE`` when it was not; never the catch-all ``freeform``."""
    if program.category == "freeform":
        return False
    if program.masked is False:
        return program.confidence >= UNMASKED_IMAGE_PROGRAM_MIN_CONFIDENCE
    if program.fit is None:
        return False
    iou, conf = program.fit["iou"], program.confidence
    return (conf >= IMAGE_PROGRAM_MIN_CONFIDENCE and iou >= IMAGE_PROGRAM_MIN_FIT_IOU) or (
        conf >= IMAGE_PROGRAM_CLOSE_FIT_MIN_CONFIDENCE and iou >= IMAGE_PROGRAM_CLOSE_FIT_IOU)


class Seed3DPipeline:
    """Image and/or text -> ``Asset``, stage by stage, loading the components listed in ``pipeline.json``.

    Components load when a stage first needs them and stay loaded for the next call, unless ``low_memory``:
    then one model is held at a time (the geometry models are freed before the part segmenter loads, and the
    segmenter before articulation).
    """

    def __init__(self, root: PathType | None = None, device: str = "cpu", low_memory: bool = False) -> None:
        self.root = weights_root(root)
        self.device = check_device(device)
        self.low_memory = bool(low_memory)
        self._geometry: Any = None
        self._segmenter: Any = None
        self._texturer: Any = None
        self._program_net: Any = None

    @classmethod
    def from_pretrained(cls, root: PathType | None = None, device: str = "cpu",
                        low_memory: bool = False) -> Seed3DPipeline:
        """A pipeline on the weights folder ``root`` (default: ``weights_root()``); components load lazily."""
        pipe = cls(root, device, low_memory)
        weights_component("geometry_coarse", pipe.root)  # fail early on a folder without the manifest
        return pipe

    def _components(self) -> dict[str, Any]:
        return dict(json.loads((self.root / "pipeline.json").read_text())["components"])

    def geometry(self) -> Any:
        """The loaded ``ShapeGenerator`` (stage-1 flow and conditioner; the VAE and stage-2 flow when listed)."""
        if self._geometry is None:
            from seed3d.geometry.generate import ShapeGenerator

            vae = detail = None
            if "geometry_detail" in self._components():
                vae = weights_component("geometry_vae", self.root)
                detail = weights_component("geometry_detail", self.root)
            self._geometry = ShapeGenerator.from_folders(weights_component("geometry_coarse", self.root), vae, detail,
                                                         self.device)
        return self._geometry

    def segmenter(self) -> Any:
        """The loaded part ``Segmenter`` (component ``part_segmenter``)."""
        if self._segmenter is None:
            from seed3d.parts.segment import Segmenter

            self._segmenter = Segmenter.from_pretrained(weights_component("part_segmenter", self.root),
                                                        device=self.device)
        return self._segmenter

    def texturer(self) -> Any:
        """The loaded texture stage (``seed3d.pbr.texture.Texturer``, component ``pbr``)."""
        if self._texturer is None:
            from seed3d.pbr.texture import Texturer

            self._texturer = Texturer.from_pretrained(weights_component("pbr", self.root), device=self.device)
        return self._texturer

    def release(self, *names: str) -> None:
        """Free loaded models (``geometry``, ``segmenter``, ``texturer``; all when no name is given)."""
        for name in names or ("geometry", "segmenter", "texturer", "program_net"):
            setattr(self, f"_{name}", None)
        gc.collect()
        if self.device.startswith("cuda"):
            import torch

            torch.cuda.empty_cache()

    def model_versions(self, stages: Sequence[str] = STAGES) -> dict[str, str]:
        """Short sha256 of the weights of each component the ``stages`` use (recorded in the asset's metadata)."""
        try:
            components = self._components()
        except (OSError, json.JSONDecodeError, KeyError, TypeError):
            return {}
        out = {}
        for name, comp in sorted(components.items()):
            if isinstance(comp, dict) and comp.get("stage", "geometry") in stages:
                files = sorted((self.root / comp["path"]).rglob("model.safetensors"))
                if files:
                    out[name] = ",".join(_sha(f) for f in files)
        return out

    def program_net(self) -> Any:
        """The loaded image → program network (component ``program_image``), or None when the weights folder
        lists none (then images take the learned path)."""
        if self._program_net is None:
            if "program_image" not in self._components():
                return None
            from seed3d.program.image import load_program_net

            self._program_net = load_program_net(weights_component("program_image", self.root), device="cpu")
        return self._program_net

    def image_size_category(self, image: Any) -> tuple[str | None, str | None]:
        """(the category whose typical size a learned shape from an image alone takes, why): the image network's top
        category when at least ``IMAGE_SIZE_MIN_CONFIDENCE`` likely (``UNMASKED_IMAGE_PROGRAM_MIN_CONFIDENCE`` when no
        object mask was found) and not ``freeform``, else (None, None): the default size. A cup and a cabinet are not
        the same height."""
        net = self.program_net()
        if net is None:
            return None, None
        from seed3d.condition.image import preprocess_image
        from seed3d.program.image import INPUT_SIZE, network_views, predict_views

        try:
            pre = preprocess_image(image, size=INPUT_SIZE)
        except Seed3DError:
            return None, None
        category, p = predict_views(net, network_views(pre)).categories[0]
        # the whole frame read (no object mask): near certainty, as for a program (noise reads as a chair at 0.74)
        needs = UNMASKED_IMAGE_PROGRAM_MIN_CONFIDENCE if pre.method == "none" else IMAGE_SIZE_MIN_CONFIDENCE
        if category == "freeform" or p < needs:
            return None, None
        return category, f"size of a typical {category.replace('_', ' ')} (the image looks like one, {p:.2f})"

    def choose_program(self, image: Any, text: str | None, opts: PipelineOptions) -> tuple[Any, str]:
        """(the program to build, or None for the learned path; why), by ``opts.generator``.

        A text's program comes from the parser (``seed3d.program.text``); an image's from the image network
        (``seed3d.program.image``), fitted to a masked image by render-and-compare (``seed3d.program.fit``); its
        counts fill what a text of the same category did not state. ``auto`` takes a text's program at
        ``PROGRAM_MIN_CONFIDENCE``; an image-only one by ``image_program_accepted`` (confidence and
        render-and-compare fit IoU); ``program`` takes either whatever its confidence and fit.
        """
        if opts.generator == "learned":
            return None, "asked for the learned path"
        seen = None
        if image is not None:
            net = self.program_net()
            if net is None:
                if opts.generator == "program" and not text:
                    raise NotBuiltError("this weights folder has no image → program network (component "
                                        "program_image): give a text or use --generator learned")
            else:
                from seed3d.program.image import predict_program

                seen = predict_program(image, net, seed=opts.seed, fit=not text)
        if not text:
            if seen is None:
                return None, "no image → program network in this weights folder; the learned path reads the image"
            fit = seen.fit
            fitted = f", render-and-compare fit IoU {fit['iou']:.2f}" if fit else ""
            found = f"the image shows a {seen.category} (confidence {seen.confidence:.2f}{fitted}; {seen.notes[0]})"
            # no object mask (a busy background: the whole frame was read) — the network saw no such images
            # without an object in front; it then needs near certainty (a noise image reads as a lamp at 0.83)
            unmasked = seen.masked is False
            needs = UNMASKED_IMAGE_PROGRAM_MIN_CONFIDENCE if unmasked else IMAGE_PROGRAM_MIN_CONFIDENCE
            if opts.generator == "program" or image_program_accepted(seen):
                return seen, found if opts.generator == "auto" else f"asked for the program path: {found}"
            if seen.category == "freeform":  # the class of objects that are none of the categories
                return None, f"the image shows none of the categories ({found}); the learned path reads it"
            rule = (f"needs confidence {IMAGE_PROGRAM_MIN_CONFIDENCE} with fit IoU {IMAGE_PROGRAM_MIN_FIT_IOU}, or "
                    f"{IMAGE_PROGRAM_CLOSE_FIT_MIN_CONFIDENCE} with {IMAGE_PROGRAM_CLOSE_FIT_IOU}")
            if seen.confidence >= needs:
                why = ("its fit is poor" if fit is not None else "it could not be fitted") + f"; {rule}"
                return None, f"no program fits the image well enough ({found}; {why})"
            if unmasked:
                return None, (f"no confident program from the image ({found}; no object mask found, the whole "
                              f"frame was read; needs {needs})")
            return None, f"no confident program from the image ({found}; {rule})"
        from seed3d.program import parse_text

        program = parse_text(text, seed=opts.seed)
        found = (f"the text names a {program.category} ({program.how} match on {program.noun!r}, confidence "
                 f"{program.confidence:.2f})" if program.category else "; ".join(program.notes))
        if seen is not None and program.category is not None:
            if seen.category == program.category:
                extra = {k: v for k, v in seen.params.items() if k not in program.params}
                program.params.update(extra)
                found += (f"; the image agrees and gives {', '.join(f'{k}={v}' for k, v in extra.items())}"
                          if extra else "; the image agrees")
            else:
                found += f"; the image looks like a {seen.category} ({seen.confidence:.2f}): the text's category kept"
        if opts.generator == "program":
            if program.category is None:
                raise InvalidInputError(f"no program for {text!r}: {found}")
            return program, f"asked for the program path: {found}"
        if program.category is None or program.confidence < PROGRAM_MIN_CONFIDENCE:
            return None, f"no confident program ({found}; needs {PROGRAM_MIN_CONFIDENCE})"
        return program, found

    def __call__(self, image: Any = None, text: str | None = None, options: PipelineOptions | None = None,
                 progress: StageProgress | None = None, name: str | None = None,
                 should_cancel: Callable[[], bool] | None = None, **overrides: Any) -> Asset:
        """Run the chosen stages on an image (path, bytes, PIL image or array) and/or a text.

        ``overrides`` replace fields of ``options`` (``pipe(text="a stool", seed=3, steps=10)``); ``progress`` is
        called as ``(stage, fraction, message)``; ``should_cancel`` is polled at stage boundaries and raises
        ``JobCancelled`` when it returns true.
        """
        from seed3d.geometry.generate import GenerateOptions

        opts = options or PipelineOptions()
        if overrides:
            known = {f.name for f in dataclasses.fields(PipelineOptions)}
            unknown = sorted(set(overrides) - known)
            if unknown:
                raise InvalidInputError(f"unknown pipeline options {unknown}; known: {', '.join(sorted(known))}")
            opts = dataclasses.replace(opts, **overrides)
        report = progress or (lambda s, f, m: None)

        def boundary(stage: str) -> None:
            if should_cancel is not None and should_cancel():
                raise JobCancelled(f"canceled before the {stage} stage")

        timings: dict[str, float] = {}
        boundary("program")
        t0 = time.perf_counter()
        if image is not None and opts.generator != "learned":  # the image network and its fit: seconds
            with heartbeat(lambda f, m: report("generator", f, m), 0.0, 1.0, "reading the image",
                           expected_s=CHOOSE_SECONDS):
                program, why = self.choose_program(image, text, opts)
        else:
            program, why = self.choose_program(image, text, opts)
        if program is not None:
            from seed3d.program import build_program

            report("program", 0.0, f"building the {program.category} program")
            asset = build_program(program, seed=opts.seed, params=opts.params)
            if getattr(program, "fit", None):  # an image's render-and-compare fit, beside build_program's size fit
                asset.metadata["program"].setdefault("fit", {})["render"] = program.fit
            asset.name = name or asset.name
            timings["program"] = round(time.perf_counter() - t0, 3)
            asset.metadata.update({
                "prompt": text, "image": str(image) if isinstance(image, str | os.PathLike) else None,
                "seed": opts.seed, "stages": ["program"], "device": self.device, "timings": timings,
                "size": program_size(asset), "generator": {"path": "program", "asked": opts.generator,
                                                                  "why": why}})
            report("program", 1.0, f"{len(asset.parts)} parts, {sum(j.movable for j in asset.joints)} movable joints")
            return asset
        timings["program"] = round(time.perf_counter() - t0, 3)
        size_category, size_why = opts.category, None
        if size_category is None and image is not None and not text:
            size_category, size_why = self.image_size_category(image)
        boundary("geometry")
        t0 = time.perf_counter()
        report("geometry", 0.0, "loading models")
        with heartbeat(lambda f, m: report("geometry", f, m), 0.0, GEOMETRY_LOADING_SHARE, "loading models",
                       expected_s=LOADING_SECONDS):  # the first job's: torch weights and MiniLM
            generator = self.geometry()
            if text and text.strip():
                from seed3d.condition.text import default_text_encoder

                default_text_encoder().load()  # the generator's text encoder, loaded here under the heartbeat

        def geometry_report(phase: str, f: float, message: str = "") -> None:
            said = GEOMETRY_MESSAGES.get(phase, phase)
            report("geometry", GEOMETRY_LOADING_SHARE + (1 - GEOMETRY_LOADING_SHARE) * geometry_fraction(phase, f),
                   f"{said}: {message}" if message else said)

        shape = generator.generate(
            image=image, text=text, category=size_category,
            options=GenerateOptions(seed=opts.seed, steps=opts.steps, guidance=opts.guidance,
                                    resolution=opts.resolution, target_faces=opts.target_faces),
            callback=geometry_report)
        timings["geometry"] = round(time.perf_counter() - t0, 3)
        report("geometry", 1.0, f"{len(shape.mesh.faces)} faces")
        skipped = {s: "not built yet" if s not in BUILT_STAGES else "not asked for" for s in STAGES
                   if s not in opts.stages}
        for stage, why in skipped.items():
            log.info("%s stage skipped: %s", stage, why)
        metadata: dict[str, Any] = {
            "prompt": text, "image": str(image) if isinstance(image, str | os.PathLike) else None, "seed": opts.seed,
            "stages": list(opts.stages), "skipped": skipped, "models": self.model_versions(opts.stages),
            "device": self.device, "size": shape.size.to_dict(),
            "options": {"steps": opts.steps, "guidance": opts.guidance, "resolution": opts.resolution,
                        "target_faces": opts.target_faces, "max_parts": opts.max_parts},
            "generator": {"path": "learned", "asked": opts.generator, "why": why}}
        if size_why:
            metadata["size"]["note"] = f"{metadata['size'].get('note', '')}; {size_why}".strip("; ")
        category = learned_category(text, opts.category)
        if category:
            metadata["category"] = category  # what the functional checks hold the joints to
        asset = Asset(name or "generated", [Part("body", shape.mesh, label="body")], [], metadata)
        geometry_detail = {k: round(float(v), 3) for k, v in shape.timings.items()}
        del shape
        if self.low_memory:
            self.release("geometry")

        if "parts" in opts.stages:
            from seed3d.parts import decompose

            boundary("parts")
            t0 = time.perf_counter()
            report("parts", 0.0, "loading the part segmenter")
            parts = decompose(asset.parts[0].mesh, self.segmenter(), name=asset.name, num_parts=opts.max_parts,
                              progress=lambda f, m: report("parts", f, m), target_faces=opts.target_faces)
            parts.metadata = {**metadata, **parts.metadata}
            asset = parts
            timings["parts"] = round(time.perf_counter() - t0, 3)
            if self.low_memory:
                self.release("segmenter")

        if "texture" in opts.stages:
            from seed3d.pbr.texture import TextureOptions

            boundary("texture")
            t0 = time.perf_counter()
            report("texture", 0.0, "loading the PBR generator")
            result = self.texturer()(asset, image=image, text=text,  # the generator's own sampling defaults
                                     options=TextureOptions(seed=opts.seed, texture_size=opts.texture_size),
                                     progress=lambda f, m: report("texture", f, m))
            asset = result.asset
            if text:  # parts the words give a material ("brass handles") take it, visual and physical
                from seed3d.program.paint import paint_parts

                asset, _ = paint_parts(asset, text, seed=opts.seed)
            timings["texture"] = round(time.perf_counter() - t0, 3)
            if self.low_memory:
                self.release("texturer")

        if "articulation" in opts.stages:
            from seed3d.articulation import ArticulationConfig, articulate

            boundary("articulation")
            t0 = time.perf_counter()
            report("articulation", 0.0, "inferring joints")
            asset = articulate(asset, config=ArticulationConfig(physics=opts.physics),
                               progress=lambda f, m: report("articulation", f, m))
            timings["articulation"] = round(time.perf_counter() - t0, 3)
        elif not asset.joints_known:
            asset = rigid(asset)
            asset.metadata["notes"] = [*asset.metadata.get("notes", []),
                                       "articulation not run: every part is fixed to the largest one"]
        asset.metadata["timings"] = {**timings, "geometry_detail": geometry_detail}
        return asset


def stage_list(text: str | Sequence[str]) -> tuple[str, ...]:
    """Parse ``"geometry,parts"`` (or a sequence) into a tuple of stage names."""
    items = text.split(",") if isinstance(text, str) else list(text)
    return tuple(s.strip() for s in items if s.strip())


# --------------------------------------------------------------------------------------------- jobs


def _slug(text: str, most: int = 40) -> str:
    words = re.findall(r"[A-Za-z0-9]+", text.lower())
    return "_".join(words)[:most].strip("_")


@dataclass
class JobSpec:
    """One generation job: inputs and options (JSON-serialisable via dataclasses.asdict)."""

    text: str | None = None
    """Description of the object (size words such as '80 cm tall' set its size)."""
    image: str | None = None
    """Path of an image file on local disk."""
    seed: int = 0
    """Seed of every random draw."""
    stages: tuple[str, ...] = BUILT_STAGES
    """Stages to run, geometry first (it always runs; it is added when missing)."""
    target_faces: int | None = 50_000
    """Faces of the generated mesh after decimation, and of its parts together (None: keep all)."""
    texture_size: int = 1024
    """Texture side in pixels for the whole asset (16 … 2048)."""
    steps: int = 25
    """Flow sampling steps."""
    guidance: float = 3.0
    """Classifier-free guidance scale."""
    resolution: int = 128
    """Surface-extraction grid."""
    formats: tuple[str, ...] = DEFAULT_FORMATS
    """Exports to write: any of glb, urdf, mjcf, usd."""
    name: str | None = None
    """Asset name (file names of the exports); default: from the text, else the image file, else 'generated'."""
    category: str | None = None
    """Category whose typical size applies when the text names no size."""
    generator: str = "auto"
    """Which path makes the object: auto, program or learned (see ``GENERATORS``)."""
    params: dict[str, Any] | None = None
    """Program parameters that replace the inferred ones, e.g. {"doors": 3} (program path)."""
    require_valid: bool = False
    """Fail the job (``AssetInvalidError``, naming the failed checks) when its asset fails validation; the folder
    is still written so its report.json can say why."""

    def __post_init__(self) -> None:
        check_generator(self.generator, self.params)
        if not isinstance(self.require_valid, bool):
            raise InvalidInputError(f"require_valid must be true or false, got {self.require_valid!r}")
        if self.text is not None and not isinstance(self.text, str):
            raise InvalidInputError(f"text must be a string, got {type(self.text).__name__}")
        if self.text is not None and not self.text.strip():
            self.text = None
        if self.image is not None:
            if not isinstance(self.image, str | os.PathLike):
                raise InvalidInputError(f"image must be a file path, got {type(self.image).__name__}")
            self.image = str(self.image) or None
        if self.text is None and self.image is None:
            raise InvalidInputError("a job needs a text, an image or both")
        if self.params and self.image is not None and self.generator == "auto":
            raise InvalidInputError("params set the program's parameters, but with an image auto may take the "
                                    "learned path (when the image's program is not confident): use generator program")
        from seed3d.export import FORMATS

        formats = stage_list(self.formats) if isinstance(self.formats, str) else tuple(self.formats)
        unknown = [f for f in formats if f not in FORMATS]
        if unknown:
            raise InvalidInputError(f"unknown format(s) {', '.join(map(str, unknown))}; "
                                    f"choose from {', '.join(FORMATS)}")
        self.formats = tuple(f for f in FORMATS if f in formats)
        self.stages = normalise_stages(self.stages)
        _check_built(self.stages)
        if self.name is not None and (not isinstance(self.name, str) or
                                      not re.fullmatch(r"[A-Za-z0-9_-]+", self.name)):
            raise InvalidInputError(f"name must be letters, digits, '_' or '-', got {self.name!r}")
        if self.category is not None and not isinstance(self.category, str):
            raise InvalidInputError(f"category must be a string, got {self.category!r}")
        self.pipeline_options()  # range checks of the numbers

    def pipeline_options(self, device: str = "cpu") -> PipelineOptions:
        """The ``PipelineOptions`` of this job."""
        return PipelineOptions(stages=self.stages, seed=self.seed, steps=self.steps, guidance=self.guidance,
                               resolution=self.resolution, target_faces=self.target_faces,
                               texture_size=self.texture_size, category=self.category, device=device,
                               generator=self.generator, params=dict(self.params) if self.params else None)

    def asset_name(self) -> str:
        """The name of the asset this job makes (``name``, else a slug of the text or the image file's stem)."""
        if self.name:
            return self.name
        slug = _slug(self.text or "") or (_slug(Path(self.image).stem) if self.image else "")
        return slug or "generated"

    def image_bytes(self) -> bytes | None:
        """The image file's bytes (None without an image); a missing file is an ``InvalidInputError``."""
        if self.image is None:
            return None
        path = Path(self.image)
        if not path.is_file():
            raise InvalidInputError(f"{path}: no such image file")
        return path.read_bytes()

    def check(self) -> None:
        """Raise ``InvalidInputError`` unless the image (when given) is a readable image file."""
        data = self.image_bytes()
        if data is not None:
            from seed3d.condition.image import load_image

            try:
                load_image(data)
            except InvalidInputError as exc:
                raise InvalidInputError(f"{self.image}: {exc}") from None

    def key(self) -> str:
        """Content hash of the inputs (the image's bytes, not its path) and options: the resume key."""
        doc = dataclasses.asdict(self)
        data = self.image_bytes()
        doc["image"] = None if data is None else hashlib.sha256(data).hexdigest()
        doc["stages"], doc["formats"] = list(self.stages), list(self.formats)
        doc.pop("require_valid")  # how a job ends, not what it makes: the same asset, the same key
        doc["version"] = 1
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:20]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able fields (tuples as lists)."""
        doc = dataclasses.asdict(self)
        doc["stages"], doc["formats"] = list(self.stages), list(self.formats)
        return doc


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def verdict(validation: Any) -> dict[str, Any]:
    """What a ``ValidationReport`` (or None: not validated) says in a job summary: ``sound`` (physically sound),
    ``functional`` (None when no functional check ran), ``failed_checks`` (names) and ``failures`` (name and
    message of each)."""
    if validation is None:
        return {"sound": None, "functional": None, "failed_checks": [], "failures": []}
    failures = validation.failures
    return {"sound": validation.sound,
            "functional": validation.functional_passed if validation.functional else None,
            "failed_checks": [c.name for c in failures],
            "failures": [{"name": c.name, "message": c.message[:300]} for c in failures]}


def verdict_of_report(doc: dict[str, Any]) -> dict[str, Any]:
    """``verdict``'s fields read back from a report.json document (``ValidationReport.to_dict`` form)."""
    functional = doc.get("functional") if isinstance(doc.get("functional"), dict) else {}
    checks = [*(doc.get("checks") or []), *(functional.get("checks") or [])]
    failures = [c for c in checks if isinstance(c, dict) and c.get("status") == "fail"]
    return {"sound": doc.get("sound"), "functional": functional.get("passed") if functional.get("checks") else None,
            "failed_checks": [str(c.get("name")) for c in failures],
            "failures": [{"name": str(c.get("name")), "message": str(c.get("message", ""))[:300]} for c in failures]}


def invalid_asset_message(summary: dict[str, Any], where: PathType | None = None) -> str:
    """One paragraph naming the checks an asset failed (and where its report is)."""
    failures = summary.get("failures") or [{"name": n, "message": ""} for n in summary.get("failed_checks") or []]
    named = "; ".join(f"{f['name']}: {f['message']}" if f.get("message") else str(f["name"]) for f in failures)
    kinds = []
    if summary.get("sound") is False:
        kinds.append("not physically sound")
    if summary.get("functional") is False:
        kinds.append("not functional")
    why = f" ({', '.join(kinds)})" if kinds else ""
    text = f"the asset failed validation{why}: {named or 'no check ran'}"
    return text + (f"; its report: {Path(where) / 'report.json'}" if where is not None else "")


def finish_asset(asset: Asset, out: PathType, *, formats: Sequence[str] = DEFAULT_FORMATS,
                 physics: PhysicsConfig | None = None, validate: bool = True, preview: bool = True,
                 progress: StageProgress | None = None, should_cancel: Callable[[], bool] | None = None,
                 overwrite: bool = False, keep_existing: bool = False, key: str | None = None,
                 started: float | None = None, extra: dict[str, Any] | None = None,
                 repair: bool = True) -> dict[str, Any]:
    """Make ``asset`` sim-ready and write its folder ``out`` atomically: collision hulls and inertials
    (``physics``), the asset folder and ``formats`` (``export``), validation (``validate``, writes
    ``report.json``), a turntable ``preview.png`` and ``preview.gif`` (``preview``). With ``repair``, an asset
    whose parts drift at rest gets joints that hold them (``seed3d.physics.repair``) and is validated again; the
    report's notes say what changed and whether it then passed.

    Returns the summary ``{"name", "valid" (None when not validated), "sound", "functional", "failed_checks",
    "failures" (``verdict``), "faces", "parts", "joints",
    "movable_joints", "timings", "files": {role: path relative to out}}`` (with ``key`` first when given;
    ``timings["total"]`` counts from ``started``, a ``time.perf_counter()`` value, default now). ``extra`` is
    merged into report.json (its ``timings`` and ``notes`` lead the report's); ``keep_existing`` moves files of
    an existing ``out`` that were not rewritten into the new folder (an in-place re-export).
    """
    from seed3d.export import export_asset
    from seed3d.physics import prepare
    from seed3d.physics.repair import drifts, hold_joints

    out = Path(out)
    extra = dict(extra or {})
    report = progress or (lambda s, f, m: None)
    timings: dict[str, float] = dict(extra.pop("timings", {}))
    notes: list[str] = list(extra.pop("notes", []))
    started = time.perf_counter() if started is None else started

    def boundary(stage: str) -> None:
        if should_cancel is not None and should_cancel():
            raise JobCancelled(f"canceled before the {stage} stage")

    files: dict[str, str] = {}
    valid: bool | None = None
    with atomic_dir(out, overwrite=overwrite) as tmp:
        boundary("physics")
        t0 = time.perf_counter()
        report("physics", 0.0, "collision hulls and inertials")
        ready = prepare(asset, physics, progress=lambda f, m: report("physics", f, m))
        timings["physics"] = round(time.perf_counter() - t0, 3)

        boundary("export")
        t0 = time.perf_counter()
        report("export", 0.0, "asset folder")
        ready.save(tmp, overwrite=True)
        files["asset"] = "asset.json"
        if formats:
            written = export_asset(ready, tmp, formats=tuple(formats), progress=lambda f, m: report("export", f, m))
            files.update({fmt: _rel(Path(p), tmp) for fmt, p in written.items()})
        timings["export"] = round(time.perf_counter() - t0, 3)

        validation = None
        if validate:
            from seed3d.physics.validate import validate_path

            boundary("validate")
            t0 = time.perf_counter()
            report("validate", 0.0, "physics engines")
            validation = validate_path(tmp, progress=lambda f, m: report("validate", 0.5 * f, m))
            for attempt in range(REPAIR_ROUNDS if repair and ready.joints else 0):
                failed = [c.name for c in validation.failures]
                if not drifts(failed):
                    break
                # a part drifts at rest: joints that hold it (friction against its gravity load), checked again
                held, changed = hold_joints(ready)
                if not changed:
                    break
                # each round's checks report within its share of the second half (the bar never goes back)
                low, high = 0.5 + 0.5 * attempt / REPAIR_ROUNDS, 0.5 + 0.5 * (attempt + 1) / REPAIR_ROUNDS
                report("validate", low, "repairing: joints that hold their parts at rest")
                held.save(tmp, overwrite=True)
                if formats:
                    export_asset(held, tmp, formats=tuple(formats))
                again = validate_path(tmp, progress=lambda f, m, low=low, high=high:
                                      report("validate", low + (high - low) * f, m))
                notes.append(f"repaired (round {attempt + 1}) after {', '.join(failed)} failed "
                             f"({'now passes' if again.passed else 'still fails'}): " + "; ".join(changed))
                log.info("%s: %s", ready.name, notes[-1])
                ready, validation = held, again
            valid = validation.passed
            timings["validate"] = round(time.perf_counter() - t0, 3)

        if preview:
            boundary("preview")
            t0 = time.perf_counter()
            report("preview", 0.0, "turntable")
            try:
                from seed3d.render.preview import write_preview

                with heartbeat(lambda f, m: report("preview", f, m), 0.0, 1.0, "turntable",
                               expected_s=PREVIEW_SECONDS):
                    write_preview(ready, tmp / "preview.png", tmp / "preview.gif")
                files["preview"], files["preview_gif"] = "preview.png", "preview.gif"
            except Seed3DError as exc:
                log.warning("%s: no preview: %s", ready.name, exc)
                notes.append(f"preview not rendered: {exc}")
            timings["preview"] = round(time.perf_counter() - t0, 3)
            report("preview", 1.0, "done")

        if keep_existing and out.is_dir():
            for item in out.iterdir():
                if not (tmp / item.name).exists():
                    os.replace(item, tmp / item.name)
        timings["total"] = round(time.perf_counter() - started, 3)
        summary: dict[str, Any] = {
            **({"key": key} if key else {}), "name": ready.name, "valid": valid, **verdict(validation),
            "faces": sum(len(p.mesh.faces) for p in ready.parts), "parts": len(ready.parts),
            "joints": len(ready.joints), "movable_joints": sum(j.movable for j in ready.joints),
            "timings": timings, "files": files}
        for failure in summary["failures"]:  # the checks ran in the temporary folder, which becomes out
            failure["message"] = failure["message"].replace(str(tmp), str(out))
        if validation is not None:
            files["report"] = "report.json"
            doc = {**validation.to_dict(), "path": str(out), "valid": valid, "timings": timings,
                   "models": ready.metadata.get("models", {}), "notes": [*validation.notes, *notes], **extra,
                   "summary": summary}
            text = json.dumps(doc, indent=2, default=str).replace(str(tmp), str(out))
            (tmp / "report.json").write_text(text + "\n")
    return summary


def run_job(spec: JobSpec, out: PathType, *, pipe: Seed3DPipeline | None = None,
            weights: PathType | None = None, device: str = "cpu", progress: StageProgress | None = None,
            should_cancel: Callable[[], bool] | None = None, overwrite: bool = False) -> dict[str, Any]:
    """Generate, export every format, validate, render a preview; write ``out`` atomically (temp folder renamed
    into place, so ``out`` either does not exist or is complete). Returns a JSON-able summary:
    ``{"name", "key", "valid": bool, "sound", "functional", "failed_checks", "failures", "faces", "parts",
    "joints", "movable_joints", "timings": {stage: s}, "files": {role: relpath}, "generator"}`` (see ``verdict``)
    where roles are "asset" (asset.json), the formats written ("glb", "urdf", "mjcf", "usd", "usdz"), "report"
    (report.json), "preview" (preview.png) and "preview_gif" (preview.gif); the previews are absent, with a note
    in report.json, when no render backend works.

    Invalid specs raise ``InvalidInputError`` (``NotBuiltError`` for an unbuilt stage) before any model loads;
    ``should_cancel`` is polled at stage boundaries and raises ``JobCancelled``; an existing ``out`` is an error
    unless ``overwrite``. With ``spec.require_valid`` an asset that fails validation raises ``AssetInvalidError``
    (naming the failed checks, carrying the summary) after ``out`` is written.
    """
    started = time.perf_counter()
    spec.check()
    key = spec.key()
    out = Path(out)
    if out.exists() and not overwrite:
        raise InvalidInputError(f"{out} exists (use --overwrite to replace it)")
    options = spec.pipeline_options(device)
    if pipe is None:
        pipe = Seed3DPipeline.from_pretrained(weights, device=device)
    asset = pipe(image=spec.image, text=spec.text, options=options, progress=progress, name=spec.asset_name(),
                 should_cancel=should_cancel)
    job = {**spec.to_dict(), "key": key, "device": device}
    asset.metadata["job"] = job
    generator = dict(asset.metadata.get("generator", {}))
    if "program" in asset.metadata:
        generator["program"] = asset.metadata["program"]
    timings = {k: float(v) for k, v in asset.metadata.get("timings", {}).items() if isinstance(v, int | float)}
    notes = [f"{s} stage skipped: {why}" for s, why in asset.metadata.get("skipped", {}).items()]
    notes += list(asset.metadata.get("notes", []))
    physics = None if "program" in asset.metadata else options.physics  # built parts: the library defaults
    summary = finish_asset(asset, out, formats=spec.formats, physics=physics, progress=progress,
                           should_cancel=should_cancel, overwrite=overwrite, key=key, started=started,
                           extra={"timings": timings, "notes": notes, "job": job, "generator": generator,
                                  **({"size": asset.metadata["size"]} if "size" in asset.metadata else {})})
    summary["generator"] = generator
    log.info("%s: %s in %.1f s (%d parts, %d joints) -> %s", summary["name"],
             "valid" if summary["valid"] else "NOT valid", summary["timings"]["total"], summary["parts"],
             summary["joints"], out)
    if spec.require_valid and summary["valid"] is not True:
        raise AssetInvalidError(invalid_asset_message(summary, out), summary, summary["failed_checks"])
    return summary
