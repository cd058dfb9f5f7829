"""Training data for the image → program network: renders of the procedural engine's objects with their labels.

``build_program_data("data/program", "train", seeds=range(0, 200))`` writes ``data/program/train/``:

- ``train-00000.npz``, … — shards of ``seeds_per_shard`` seeds × every category (category-major within a
  seed block). Arrays (sample axis first): ``rgb`` (n, V, R, R, 3) uint8 — the object rendered over black, sRGB
  of its premultiplied linear colour; ``alpha`` (n, V, R, R) uint8 coverage; ``category`` (n,) int16 (index
  into the manifest's ``categories``); ``seed`` (n,) int64; ``doors``, ``drawers``, ``lids`` (n,) int16 — the
  asset's movable doors, drawers and lids; ``size_m`` (n, 3) float32 — width, depth, height in meters;
  ``params`` (n,) str — JSON of every parameter the build read.
- ``manifest.json`` — format, version, synth version, config, categories, seeds, shards (file, sha256, count),
  failures; written after every shard, so a stopped build resumes where it stopped.

Views: ``views`` random cameras per object (``seed3d.render.random_views`` over ``ProgramDataConfig.view``:
the front half of the azimuth circle by default, where doors and drawers show), random studio lighting
(``Lighting.random``), antialiased. The photo augmentations (colour, crop, backgrounds, JPEG, blur, occlusion)
are applied at training time (``seed3d.program.image.PhotoAugmenter``), so one cache serves every recipe.
Everything is seeded by a hash of (category, seed): the same config gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import Asset, _write_npz, atomic_file
from seed3d.errors import InvalidInputError
from seed3d.typed import PathType, ProgressCallback

log = logging.getLogger(__name__)

FORMAT = "seed3d.program-data"
#: Version of the shard format; bump it when a field changes meaning, shape or dtype.
PROGRAM_DATA_VERSION = 1
#: Default seed ranges of the splits (seeds never shared between splits).
SPLIT_SEEDS: dict[str, tuple[int, int]] = {"train": (0, 200), "val": (5000, 5010), "test": (10000, 10040)}


@dataclass
class ProgramDataConfig:
    """Sizes and camera ranges of the rendered views; the same config and seeds give the same bytes."""

    views: int = 3
    """Random views per object."""
    resolution: int = 128
    """Side of each view in pixels."""
    supersample: int = 2
    """Antialiasing factor of the renders."""
    seeds_per_shard: int = 8
    """Seeds per shard (each seed gives one object of every category)."""
    azimuth_deg: tuple[float, float] = (-80.0, 80.0)
    """Camera azimuth range (0 = the object's front, +X)."""
    elevation_deg: tuple[float, float] = (-5.0, 50.0)
    """Camera elevation range (degrees above the horizon)."""
    focal_mm: tuple[float, float] = (28.0, 85.0)
    """35 mm-equivalent focal length range (log-uniform)."""
    distance_jitter: tuple[float, float] = (0.9, 1.3)
    """Factor on the distance that fits the bounding sphere (below 1 crops a little)."""
    categories: tuple[str, ...] | None = None
    """Categories (None: every category of ``seed3d.synth.CATEGORIES``, the shipped network's)."""
    backend: str = "auto"
    """Render backend (auto, moderngl, open3d, nvdiffrast)."""

    def __post_init__(self) -> None:
        for name in ("views", "resolution", "supersample", "seeds_per_shard"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(f"ProgramDataConfig.{name} must be a positive integer, got {value!r}")
        for name in ("azimuth_deg", "elevation_deg", "focal_mm", "distance_jitter"):
            setattr(self, name, tuple(float(v) for v in getattr(self, name)))
        from seed3d import synth

        self.categories = synth.check_categories(self.categories, "ProgramDataConfig.categories")

    def category_list(self) -> list[str]:
        """The categories of every seed block."""
        from seed3d import synth

        return list(self.categories) if self.categories is not None else list(synth.CATEGORIES)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form (categories resolved)."""
        d = asdict(self)
        d["categories"] = self.category_list()
        for name in ("azimuth_deg", "elevation_deg", "focal_mm", "distance_jitter"):
            d[name] = list(d[name])
        return d


@dataclass
class Labels:
    """What the network learns of one asset: movable doors, drawers and lids, and its size in meters."""

    doors: int
    drawers: int
    lids: int
    size_m: tuple[float, float, float]
    params: dict[str, Any] = field(default_factory=dict)


def asset_labels(asset: Asset) -> Labels:
    """Labels of a synth asset from its metadata (attributes' doors/drawers lists, parts labelled "lid")."""
    attrs = asset.metadata.get("attributes", {})
    doors = len(attrs.get("doors") or [])
    drawers = len(attrs.get("drawers") or [])
    lids = sum(1 for p in asset.parts if p.label == "lid")
    size = attrs.get("size_m") or {}
    if size:
        dims = (float(size["width"]), float(size["depth"]), float(size["height"]))
    else:
        lo, hi = asset.bounds()
        ext = np.asarray(hi) - np.asarray(lo)
        dims = (float(ext[1]), float(ext[0]), float(ext[2]))
    return Labels(doors, drawers, lids, dims, dict(asset.metadata.get("params", {})))


def _rng(category: str, seed: int, stream: str) -> np.random.Generator:
    """A generator seeded by a stable hash of (category, seed, stream)."""
    digest = hashlib.sha256(f"seed3d.program-data/{category}/{seed}/{stream}".encode()).digest()
    return np.random.default_rng(np.random.SeedSequence(int.from_bytes(digest[:16], "little")))


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def render_views(asset: Asset, config: ProgramDataConfig, renderer: Any, rng: np.random.Generator
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``config.views`` random views of ``asset``: (V, R, R, 3) sRGB of the colour over black and (V, R, R) alpha."""
    from seed3d.render import Lighting, RandomViewConfig, RenderMesh, linear_to_srgb, random_views, srgb_to_linear

    mesh = RenderMesh.from_asset(asset)
    cfg = RandomViewConfig(elevation_deg=config.elevation_deg, azimuth_deg=config.azimuth_deg,
                           focal_mm=config.focal_mm, distance_jitter=config.distance_jitter)
    res = config.resolution
    cams = random_views(mesh, config.views, seed=int(rng.integers(2**31)), width=res, config=cfg)
    rgb, alpha = [], []
    for cam in cams:
        lighting = Lighting.random(int(rng.integers(2**31)), background=(0.0, 0.0, 0.0))
        rgba = renderer.render_image(mesh, cam, lighting, supersample=config.supersample)
        lin = srgb_to_linear(np.clip(rgba[..., :3], 0.0, 1.0))
        rgb.append(np.round(np.clip(linear_to_srgb(lin), 0, 1) * 255).astype(np.uint8))
        alpha.append(np.round(np.clip(rgba[..., 3], 0, 1) * 255).astype(np.uint8))
    return np.stack(rgb), np.stack(alpha)


def make_sample(category: str, seed: int, config: ProgramDataConfig, renderer: Any) -> dict[str, Any]:
    """One object's views and labels (raises what ``synth.generate`` raises)."""
    from seed3d import synth

    asset = synth.generate(category, seed)
    labels = asset_labels(asset)
    rgb, alpha = render_views(asset, config, renderer, _rng(category, seed, "views"))
    return {"rgb": rgb, "alpha": alpha, "category": config.category_list().index(category), "seed": seed,
            "doors": labels.doors, "drawers": labels.drawers, "lids": labels.lids, "size_m": labels.size_m,
            "params": json.dumps(_jsonable(labels.params), sort_keys=True)}


def _stack(samples: list[dict[str, Any]], config: ProgramDataConfig) -> dict[str, np.ndarray]:
    r, v = config.resolution, config.views
    if not samples:
        return {"rgb": np.zeros((0, v, r, r, 3), np.uint8), "alpha": np.zeros((0, v, r, r), np.uint8),
                "category": np.zeros(0, np.int16), "seed": np.zeros(0, np.int64),
                "doors": np.zeros(0, np.int16), "drawers": np.zeros(0, np.int16), "lids": np.zeros(0, np.int16),
                "size_m": np.zeros((0, 3), np.float32), "params": np.zeros(0, "<U1")}
    return {"rgb": np.stack([s["rgb"] for s in samples]), "alpha": np.stack([s["alpha"] for s in samples]),
            "category": np.array([s["category"] for s in samples], np.int16),
            "seed": np.array([s["seed"] for s in samples], np.int64),
            "doors": np.array([s["doors"] for s in samples], np.int16),
            "drawers": np.array([s["drawers"] for s in samples], np.int16),
            "lids": np.array([s["lids"] for s in samples], np.int16),
            "size_m": np.array([s["size_m"] for s in samples], np.float32),
            "params": np.array([s["params"] for s in samples])}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_WORKER_RENDERER: Any = None


def _render_block(config: ProgramDataConfig, block: list[int], renderer: Any = None
                  ) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """One shard's samples (every category of every seed in ``block``) and the seeds that failed."""
    global _WORKER_RENDERER
    if renderer is None:  # a worker process keeps one renderer for all its blocks
        if _WORKER_RENDERER is None:
            from seed3d.render import get_renderer

            _WORKER_RENDERER = get_renderer(config.backend).__enter__()
        renderer = _WORKER_RENDERER
    samples, failures = [], []
    for seed in block:
        for cat in config.category_list():
            try:
                samples.append(make_sample(cat, seed, config, renderer))
            except Exception as exc:  # a seed the engine cannot build is recorded, not fatal
                log.warning("%s seed %d failed: %s", cat, seed, exc)
                failures.append({"category": cat, "seed": seed, "error": f"{type(exc).__name__}: {exc}"})
    return _stack(samples, config), failures


def build_program_data(out: PathType, split: str, seeds: Iterable[int] | None = None,
                       config: ProgramDataConfig | None = None, progress: ProgressCallback | None = None,
                       workers: int = 1) -> dict[str, Any]:
    """Render ``seeds`` × every category into ``out/split`` shards (resumable); returns the manifest.
    ``workers`` > 1 renders shards in that many processes (each with its own renderer); the bytes are the same."""
    from seed3d import synth

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidInputError(f"workers must be a positive integer, got {workers!r}")
    config = config or ProgramDataConfig()
    if seeds is None:
        if split not in SPLIT_SEEDS:
            raise InvalidInputError(f"no default seeds for split {split!r}; give seeds (known: {list(SPLIT_SEEDS)})")
        seeds = range(*SPLIT_SEEDS[split])
    seed_list = [int(s) for s in seeds]
    if not seed_list:
        raise InvalidInputError("build_program_data needs at least one seed")
    root = Path(out) / split
    root.mkdir(parents=True, exist_ok=True)
    cats = config.category_list()
    key = {"format": FORMAT, "version": PROGRAM_DATA_VERSION, "synth_version": synth.SYNTH_VERSION,
           "config": config.to_dict(), "split": split}
    manifest_path = root / "manifest.json"
    manifest: dict[str, Any] = {**key, "categories": cats, "seeds": seed_list, "shards": [], "failures": []}
    if manifest_path.exists():
        old = json.loads(manifest_path.read_text())
        if {k: old.get(k) for k in key} != key or old.get("seeds") != seed_list:
            raise InvalidInputError(f"{root} holds a build with another config or seeds; build into a new folder")
        manifest = old
    done = {s["file"]: s for s in manifest["shards"]}
    blocks = [seed_list[i:i + config.seeds_per_shard] for i in range(0, len(seed_list), config.seeds_per_shard)]
    total, count = len(seed_list) * len(cats), 0
    todo: list[tuple[str, list[int]]] = []
    for k, block in enumerate(blocks):
        name = f"{split}-{k:05d}.npz"
        if name in done and (root / name).exists() and _sha256(root / name) == done[name]["sha256"]:
            count += len(block) * len(cats)
            if progress:
                progress(count / total, f"{name} already built")
        else:
            todo.append((name, block))

    def save(name: str, block: list[int], arrays: dict[str, np.ndarray], failures: list[dict[str, Any]]) -> None:
        nonlocal count
        path = root / name
        with atomic_file(path) as tmp:
            _write_npz(tmp, arrays)
        entry = {"file": name, "sha256": _sha256(path), "count": len(arrays["category"]), "seeds": block}
        manifest["shards"] = sorted([s for s in manifest["shards"] if s["file"] != name] + [entry],
                                    key=lambda s: s["file"])
        manifest["failures"] = [f for f in manifest["failures"] if f["seed"] not in block] + failures
        manifest["samples"] = sum(s["count"] for s in manifest["shards"])
        with atomic_file(manifest_path) as tmp:
            tmp.write_text(json.dumps(manifest, indent=1))
        count += len(block) * len(cats)
        if progress:
            progress(count / total, f"{split} seeds {block[0]}..{block[-1]}")

    if workers > 1 and len(todo) > 1:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(min(workers, len(todo)), mp_context=mp.get_context("spawn")) as pool:
            futures = [pool.submit(_render_block, config, block) for _, block in todo]
            for (name, block), fut in zip(todo, futures, strict=True):
                save(name, block, *fut.result())
    elif todo:
        from seed3d.render import get_renderer

        with get_renderer(config.backend) as renderer:
            for name, block in todo:
                save(name, block, *_render_block(config, block, renderer))
    manifest["complete"] = len(manifest["shards"]) == len(blocks)
    with atomic_file(manifest_path) as tmp:
        tmp.write_text(json.dumps(manifest, indent=1))
    return manifest


def load_program_data(root: PathType, split: str) -> dict[str, np.ndarray]:
    """Every shard of ``root/split`` concatenated (the manifest's shards, in order)."""
    from seed3d.asset import _read_npz

    base = Path(root) / split
    manifest_path = base / "manifest.json"
    if not manifest_path.exists():
        raise InvalidInputError(f"{base} has no manifest.json: build it with `seed3d train program-image --build`")
    manifest = json.loads(manifest_path.read_text())
    parts = [_read_npz(base / s["file"]) for s in manifest["shards"] if s["count"] > 0]
    if not parts:
        raise InvalidInputError(f"{base} holds no samples")
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def data_manifest(root: PathType, split: str) -> dict[str, Any]:
    """The manifest of ``root/split``."""
    return json.loads((Path(root) / split / "manifest.json").read_text())
