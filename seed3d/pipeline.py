"""The end-to-end pipeline: the only module that knows the order of the stages.

``Seed3DPipeline.from_pretrained()`` reads ``weights/pipeline.json`` (the component manifest) and loads each
component when a stage first needs it; ``pipe(image=..., text=..., seed=...)`` returns an ``Asset``. Built
today: the geometry stage (image and/or text -> one watertight body in meters). Texture, parts and
articulation inside the pipeline are not wired yet and raise ``NotBuiltError`` when asked for.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seed3d.asset import Asset, Part
from seed3d.errors import InvalidInputError, NotBuiltError, Seed3DError
from seed3d.typed import PathType

log = logging.getLogger(__name__)

#: Stages in the order the pipeline runs them.
STAGES: tuple[str, ...] = ("geometry", "texture", "parts", "articulation")
#: Stages the pipeline can run today.
BUILT_STAGES: tuple[str, ...] = ("geometry",)

StageProgress = Callable[[str, float, str], None]


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


@dataclass
class PipelineOptions:
    """What to run and how (the CLI's ``seed3d generate`` options)."""

    stages: tuple[str, ...] = BUILT_STAGES
    """Stages to run, a subset of ``STAGES`` (geometry is always first)."""
    seed: int = 0
    """Seed of every random draw (same inputs and seed -> same asset)."""
    steps: int = 25
    """Flow sampling steps."""
    guidance: float = 3.0
    """Classifier-free guidance scale."""
    resolution: int = 256
    """Surface-extraction resolution."""
    target_faces: int | None = 50_000
    """Faces of the generated mesh after decimation."""
    category: str | None = None
    """Category whose typical size applies when the text names no size."""
    device: str = "cpu"
    """cpu or cuda."""

    def __post_init__(self) -> None:
        self.stages = tuple(self.stages)
        unknown = [s for s in self.stages if s not in STAGES]
        if unknown:
            raise InvalidInputError(f"unknown stages {unknown}; stages are {', '.join(STAGES)}")
        if "geometry" not in self.stages:
            raise InvalidInputError("the geometry stage cannot be skipped: every other stage works on its shape")
        missing = [s for s in self.stages if s not in BUILT_STAGES]
        if missing:
            raise NotBuiltError(f"the {', '.join(missing)} stage(s) are not wired into the pipeline yet; run "
                                f"with stages {BUILT_STAGES} (`seed3d articulate` runs parts + articulation on a "
                                "mesh today)")


def _sha(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


class Seed3DPipeline:
    """Image and/or text -> ``Asset``, stage by stage, loading the components listed in ``pipeline.json``."""

    def __init__(self, root: PathType | None = None, device: str = "cpu") -> None:
        self.root = weights_root(root)
        self.device = device
        self._geometry: Any = None

    @classmethod
    def from_pretrained(cls, root: PathType | None = None, device: str = "cpu") -> Seed3DPipeline:
        """A pipeline on the weights folder ``root`` (default: ``weights_root()``); components load lazily."""
        pipe = cls(root, device)
        weights_component("geometry_vae", pipe.root)  # fail early on a folder without the manifest
        return pipe

    def geometry(self) -> Any:
        """The loaded ``ShapeGenerator`` (VAE, stage-1 flow and conditioner, stage-2 flow when listed)."""
        if self._geometry is None:
            from seed3d.geometry.generate import ShapeGenerator

            manifest = json.loads((self.root / "pipeline.json").read_text())["components"]
            detail = weights_component("geometry_detail", self.root) if "geometry_detail" in manifest else None
            self._geometry = ShapeGenerator.from_folders(weights_component("geometry_vae", self.root),
                                                         weights_component("geometry_coarse", self.root), detail,
                                                         self.device)
        return self._geometry

    def model_versions(self) -> dict[str, str]:
        """Short sha256 of each geometry component's weights (recorded in the asset's metadata)."""
        out = {}
        for name in ("geometry_vae", "geometry_coarse", "geometry_detail"):
            try:
                folder = weights_component(name, self.root)
            except Seed3DError:
                continue
            files = sorted(folder.rglob("model.safetensors"))
            out[name] = ",".join(_sha(f) for f in files)
        return out

    def __call__(self, image: Any = None, text: str | None = None, options: PipelineOptions | None = None,
                 progress: StageProgress | None = None, name: str | None = None) -> Asset:
        """Run the chosen stages on an image (path, bytes, PIL image or array) and/or a text."""
        from seed3d.geometry.generate import GenerateOptions

        opts = options or PipelineOptions()
        report = progress or (lambda s, f, m: None)
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        report("geometry", 0.0, "loading models")
        gen = self.geometry()
        shape = gen.generate(image=image, text=text, category=opts.category,
                             options=GenerateOptions(seed=opts.seed, steps=opts.steps, guidance=opts.guidance,
                                                     resolution=opts.resolution, target_faces=opts.target_faces),
                             callback=lambda stage, f: report("geometry", 0.9 * f, f"{stage} flow"))
        timings["geometry"] = round(time.perf_counter() - t0, 3)
        report("geometry", 1.0, f"{len(shape.mesh.faces)} faces")
        metadata = {"prompt": text, "image": image if isinstance(image, str) else None, "seed": opts.seed,
                    "stages": list(opts.stages), "models": self.model_versions(),
                    "timings": {**timings, "geometry_detail": shape.timings},
                    "size": {"dims": shape.size.dims, "source": shape.size.source}}
        return Asset(name or "generated", [Part("body", shape.mesh, label="body")], [], metadata)


def stage_list(text: str | Sequence[str]) -> tuple[str, ...]:
    """Parse ``"geometry,parts"`` (or a sequence) into a tuple of stage names."""
    items = text.split(",") if isinstance(text, str) else list(text)
    return tuple(s.strip() for s in items if s.strip())
