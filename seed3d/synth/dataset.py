"""Training data from the procedural categories: sharded, documented, resumable, deterministic splits.

``build_split(out, "train", 1000)`` writes ``out/train/``:

- ``train-00000.npz``, ``train-00001.npz``, … — shards of ``samples_per_shard`` samples each. Every array
  has the sample axis first and a fixed size (``FIELDS`` documents names, shapes, dtypes and meanings), so
  a shard loads as a batch; strings are fixed-width numpy unicode arrays (no pickles).
- ``manifest.json`` — version, synth version, split, count, seed range, categories, config, the field
  table, every shard (file, sha256, bytes, sample ids) and every failed (category, seed), written last.
- ``DATASET.md`` — the same field table for people.

Samples. Sample ``i`` of a split uses category ``categories[i % len(categories)]`` and seed
``SPLIT_SEEDS[split] + i``; splits own disjoint seed ranges of ``SPLIT_SPAN`` seeds, so their samples never
overlap. When ``synth.generate`` raises for a seed (or the asset is not a set of closed parts), the failure
is recorded and the sample retries the same category with seeds counted down from the top of the split's
range (``sample_seed``), at most ``max_retries`` times; a sample whose every attempt fails is left out,
and listed.

Geometry is stored in a **normalised frame**: ``x_norm = (x_m - norm_offset) * norm_scale`` with
``norm_offset`` the centre of the asset's bounding box (meters) and ``norm_scale = extent / (longest side /
2)``, so the bounding box is centred and its longest side spans ``[-extent, extent]`` (0.9 by default: points
in ``[-1, 1]³`` with a margin, as a VecSet VAE wants). Distances scale by ``norm_scale`` alone. Both are
stored per sample (float64), so meters come back exactly: ``ShardDataset(..., meters=True)`` does it.

Builds are resumable: a shard is written atomically and recorded (with its sha256) in ``progress.json``;
a rerun with the same split and config skips shards whose files still match, and produces the same bytes
as an uninterrupted build. Workers (``spawn`` processes) each create their own renderer.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import multiprocessing
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import PART_LABELS, Asset, _write_npz, atomic_file
from seed3d.errors import AssetFormatError, DependencyError, InvalidInputError, Seed3DError
from seed3d.typed import PathType, ProgressCallback

log = logging.getLogger(__name__)


FORMAT = "seed3d.dataset"
#: Version of the shard format; bump it when a field changes meaning, shape or dtype.
DATASET_VERSION = 1
#: First seed of each split; a split owns ``SPLIT_SPAN`` seeds from there.
SPLIT_SEEDS: dict[str, int] = {"train": 0, "val": 1_000_000, "test": 2_000_000}
SPLIT_SPAN = 1_000_000
#: Joint types in the order of their ids in ``joint_type``.
JOINT_TYPE_IDS: tuple[str, ...] = ("fixed", "revolute", "prismatic", "continuous")
_OTHER_LABEL = PART_LABELS.index("other")
#: Render backend recorded for a split built without renders.
NO_RENDERER = "none"


# ----------------------------------------------------------------------------------------------- config


@dataclass
class DatasetConfig:
    """Sizes and options of every sample; the same config, split and count give the same bytes."""

    samples_per_shard: int = 64
    """Samples per shard file (about 1.5–2.5 MB each at the default sizes)."""
    surface_points: int = 16384
    """N: surface points (uniform by area on the union's visible surface)."""
    sharp_points: int = 4096
    """S: points on sharp edges."""
    sharp_angle_deg: float = 30.0
    """An edge is sharp when the normals of its two faces differ by more than this."""
    volume_points: int = 8192
    """U: SDF samples uniform in the normalised cube [-1, 1]³."""
    near_points: int = 8192
    """Q: SDF samples near the surface (surface points plus isotropic Gaussian offsets)."""
    near_sigmas: tuple[float, ...] = (0.005, 0.02)
    """Standard deviations of the near-surface offsets (normalised units), one equal share of Q each."""
    grid_resolution: int = 16
    """G: cells per side of the coarse SDF grid over the normalised cube (the stage-1 shape flow's target)."""
    extent: float = 0.9
    """Half of the longest bounding-box side in the normalised frame (1 - margin)."""
    cond_views: int = 4
    """Vc: random conditioning views per sample."""
    cond_resolution: int = 128
    """Hc = Wc: conditioning image size."""
    cond_supersample: int = 2
    """Antialiasing factor of the conditioning renders."""
    pbr_resolution: int = 128
    """Hp = Wp: size of the fixed-rig PBR target views (Vp = 6, ``TEXTURE_RIG``)."""
    max_parts: int = 64
    """P: part slots per sample (J = P - 1 joint slots); assets with more parts are recorded as failures."""
    max_retries: int = 3
    """Further seeds tried when a seed fails."""
    categories: tuple[str, ...] | None = None
    """Categories to cycle through (None: ``seed3d.synth.BASE_CATEGORIES``, the shipped weights' categories)."""
    backend: str = "auto"
    """Render backend (auto, nvdiffrast, moderngl, open3d); the one used is recorded in the manifest."""
    renders: bool = True
    """Render the conditioning and PBR views; False builds geometry and structure only (``RENDER_FIELDS`` are
    left out and no renderer is needed: enough for the shape VAE and the part segmenter)."""
    queries: str = "open3d"
    """Engine of the inside / distance queries (``seed3d.synth.sampling.PartSolids``): open3d, torch (exact
    brute force on the CPU) or cuda (the same on the GPU)."""

    def __post_init__(self) -> None:
        positive = ("samples_per_shard", "surface_points", "sharp_points", "volume_points", "near_points",
                    "grid_resolution", "cond_resolution", "cond_supersample", "pbr_resolution", "max_parts")
        for name in positive:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(f"DatasetConfig.{name} must be a positive integer, got {value!r}")
        for name in ("cond_views", "max_retries"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidInputError(f"DatasetConfig.{name} must be an integer >= 0, got {value!r}")
        self.near_sigmas = tuple(float(s) for s in self.near_sigmas)
        if not self.near_sigmas or min(self.near_sigmas) <= 0:
            raise InvalidInputError(f"DatasetConfig.near_sigmas must be positive, got {self.near_sigmas}")
        if not 0 < self.extent <= 1:
            raise InvalidInputError(f"DatasetConfig.extent must lie in (0, 1], got {self.extent}")
        if not 0 < self.sharp_angle_deg < 180:
            raise InvalidInputError(f"DatasetConfig.sharp_angle_deg must lie in (0, 180), got {self.sharp_angle_deg}")
        if not isinstance(self.renders, bool):
            raise InvalidInputError(f"DatasetConfig.renders must be true or false, got {self.renders!r}")
        if self.queries not in QUERY_ENGINES:
            raise InvalidInputError(f"DatasetConfig.queries must be one of {', '.join(QUERY_ENGINES)}, "
                                    f"got {self.queries!r}")
        if self.categories is not None:
            from seed3d import synth

            self.categories = tuple(self.categories)
            unknown = [c for c in self.categories if c not in synth.CATEGORIES]
            if unknown or not self.categories:
                raise InvalidInputError(f"unknown categories {unknown}; known: {', '.join(synth.CATEGORIES)}")

    def category_list(self) -> list[str]:
        """The categories samples cycle through."""
        from seed3d import synth

        return list(self.categories) if self.categories is not None else list(synth.BASE_CATEGORIES)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form (categories resolved)."""
        d = asdict(self)
        d["near_sigmas"] = list(self.near_sigmas)
        d["categories"] = self.category_list()
        return d


# ----------------------------------------------------------------------------------------------- fields


@dataclass(frozen=True)
class Field:
    """One array of a sample: name, per-sample shape (symbols resolved from the config), dtype and meaning."""

    name: str
    shape: tuple[int | str, ...]
    dtype: str
    doc: str


#: Every array of a sample, in shard order. Shape symbols: N surface points, S sharp points, U volume points,
#: Q near points, G coarse grid cells per side, P part slots, J = P - 1 joint slots, Vc/Hc/Wc conditioning
#: views, Vp/Hp/Wp PBR views.
#: ``str`` fields are numpy unicode arrays whose width is the longest value in the shard.
FIELDS: tuple[Field, ...] = (
    Field("sample_id", (), "str", "'{category}_{seed}': the synth asset's name, unique across splits"),
    Field("index", (), "int64", "index of the sample in its split (0..count-1)"),
    Field("category", (), "str", "synth category"),
    Field("seed", (), "int64", "synth seed (seed3d.synth.generate(category, seed) rebuilds the asset)"),
    Field("description", (), "str", "text description (asset.metadata['description'])"),
    Field("attributes", (), "str", "JSON of the structured attributes (asset.metadata['attributes'])"),
    Field("norm_offset", (3,), "float64", "centre of the bounding box in meters: x_norm = (x_m - offset) * scale"),
    Field("norm_scale", (), "float64", "normalised units per meter (extent / half the longest bounding-box side)"),
    Field("bounds_m", (2, 3), "float64", "asset bounding box [min, max] in meters (asset frame, +Z up, front +X)"),
    Field("surface_points", ("N", 3), "float32", "points uniform by area on the visible surface (normalised)"),
    Field("surface_normals", ("N", 3), "float32", "unit outward normals of the surface points"),
    Field("surface_part", ("N",), "int16", "index of the part each surface point lies on (into part_*)"),
    Field("surface_label", ("N",), "uint8", "semantic label id of that part (index into manifest label_names)"),
    Field("sharp_points", ("S", 3), "float32", "points on sharp edges (dihedral above sharp_angle_deg; normalised)"),
    Field("sharp_normals", ("S", 3), "float32", "unit mean of the two face normals at each sharp point"),
    Field("sharp_part", ("S",), "int16", "part index of each sharp point"),
    Field("sharp_label", ("S",), "uint8", "semantic label id of each sharp point"),
    Field("sharp_on_edge", ("S",), "bool", "False where a shape without sharp edges got surface points instead"),
    Field("vol_points", ("U", 3), "float32", "SDF query points uniform in the cube [-1, 1]^3 (normalised)"),
    Field("vol_sdf", ("U",), "float32", "signed distance to the union of the parts (normalised units; < 0 inside; "
          "occupancy = sdf < 0)"),
    Field("near_points", ("Q", 3), "float32", "SDF query points: surface points + N(0, sigma^2) offsets, an equal "
          "share per sigma in config.near_sigmas, in that order"),
    Field("near_sdf", ("Q",), "float32", "signed distance of near_points (normalised units; < 0 inside)"),
    Field("grid_sdf", ("G", "G", "G"), "float32", "signed distance at the centres of a G^3 grid of cells over the "
          "cube [-1, 1]^3 (normalised units; < 0 inside); [i, j, k] is the cell at x, y, z index i, j, k"),
    Field("num_parts", (), "int16", "number of parts (slots beyond are padding)"),
    Field("part_name", ("P",), "str", "part names ('' padding)"),
    Field("part_label", ("P",), "int16", "semantic label id per part (-1 padding)"),
    Field("num_joints", (), "int16", "number of joints (num_parts - 1: one joint per non-root part)"),
    Field("joint_type", ("J",), "int8", "joint type id (index into manifest joint_types; -1 padding)"),
    Field("joint_parent", ("J",), "int16", "parent part index (-1 padding)"),
    Field("joint_child", ("J",), "int16", "child part index (-1 padding)"),
    Field("joint_origin", ("J", 3), "float32", "joint origin (a point on the axis) at rest, normalised frame"),
    Field("joint_axis", ("J", 3), "float32", "unit joint axis (asset axes; a rotation axis or slide direction)"),
    Field("joint_limits", ("J", 2), "float32", "[lower, upper] joint values: radians (revolute) or meters "
          "(prismatic); 0 for fixed and continuous"),
    Field("joint_dynamics", ("J", 4), "float32", "[effort, velocity, damping, friction] as in the asset"),
    Field("cond_rgb", ("Vc", "Hc", "Wc", 3), "uint8", "conditioning renders (random views and lighting), sRGB, "
          "antialiased and composited over a random background"),
    Field("cond_alpha", ("Vc", "Hc", "Wc"), "uint8", "coverage of the object in each conditioning pixel (0..255)"),
    Field("cond_background", ("Vc", "Hc", "Wc", 3), "uint8", "the background each view was composited over (sRGB); "
          "rgb = srgb(lin(object) * a + lin(background) * (1 - a))"),
    Field("cond_K", ("Vc", 3, 3), "float32", "conditioning camera intrinsics (pixels, OpenCV)"),
    Field("cond_world_to_camera", ("Vc", 4, 4), "float32", "conditioning camera poses, asset frame in meters -> "
          "OpenCV camera (x right, y down, z forward)"),
    Field("pbr_mask", ("Vp", "Hp", "Wp"), "bool", "object coverage of the fixed-rig views (TEXTURE_RIG order)"),
    Field("pbr_albedo", ("Vp", "Hp", "Wp", 3), "uint8", "base colour, sRGB-encoded (as base-colour textures are)"),
    Field("pbr_metallic", ("Vp", "Hp", "Wp"), "uint8", "metallic x 255"),
    Field("pbr_roughness", ("Vp", "Hp", "Wp"), "uint8", "roughness x 255"),
    Field("pbr_normal", ("Vp", "Hp", "Wp", 3), "float16", "unit world (asset-frame) normals; 0 on background"),
    Field("pbr_canonical", ("Vp", "Hp", "Wp", 3), "float16", "canonical coordinates (seed3d.render): "
          "(x_m - bbox centre) / longest side + 0.5 = x_norm / (2 extent) + 0.5; 0 on background"),
    Field("pbr_K", ("Vp", 3, 3), "float32", "fixed-rig camera intrinsics (pixels)"),
    Field("pbr_world_to_camera", ("Vp", 4, 4), "float32", "fixed-rig camera poses (asset frame in meters -> camera)"),
)
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)
#: Fields made by the renderer (left out of a split built with ``renders=False``).
RENDER_FIELDS: tuple[str, ...] = tuple(n for n in FIELD_NAMES if n.startswith(("cond_", "pbr_")))
#: ``DatasetConfig.queries`` values: the PartSolids backend and device each stands for.
QUERY_ENGINES: dict[str, tuple[str, str]] = {"open3d": ("open3d", "cpu"), "torch": ("torch", "cpu"),
                                             "cuda": ("torch", "cuda")}
#: Fields holding points and distances of the normalised frame (``ShardDataset(meters=True)`` converts them).
POINT_FIELDS: tuple[str, ...] = ("surface_points", "sharp_points", "vol_points", "near_points", "joint_origin")
DISTANCE_FIELDS: tuple[str, ...] = ("vol_sdf", "near_sdf", "grid_sdf")


def config_fields(config: DatasetConfig) -> tuple[Field, ...]:
    """The fields a split built with ``config`` holds."""
    return FIELDS if config.renders else tuple(f for f in FIELDS if f.name not in RENDER_FIELDS)


def resolve_shape(shape: tuple[int | str, ...], config: DatasetConfig) -> tuple[int, ...]:
    """A field's per-sample shape with its symbols replaced by the config's sizes."""
    from seed3d.render import TEXTURE_RIG

    sizes = {"N": config.surface_points, "S": config.sharp_points, "U": config.volume_points,
             "Q": config.near_points, "G": config.grid_resolution, "P": config.max_parts, "J": config.max_parts - 1,
             "Vc": config.cond_views, "Hc": config.cond_resolution, "Wc": config.cond_resolution,
             "Vp": len(TEXTURE_RIG), "Hp": config.pbr_resolution, "Wp": config.pbr_resolution}
    return tuple(sizes[d] if isinstance(d, str) else d for d in shape)


def field_table(config: DatasetConfig) -> list[dict[str, Any]]:
    """The field documentation of the manifest: name, symbolic and resolved shape, dtype, meaning."""
    return [{"name": f.name, "dims": list(f.shape), "shape": list(resolve_shape(f.shape, config)),
             "dtype": f.dtype, "doc": f.doc} for f in config_fields(config)]


# ----------------------------------------------------------------------------------------------- seeds


def _check_split(split: str) -> None:
    if split not in SPLIT_SEEDS:
        raise InvalidInputError(f"unknown split {split!r}; choose {', '.join(SPLIT_SEEDS)}")


def max_count(config: DatasetConfig) -> int:
    """Largest count a split can have: primary and retry seeds must fit in its ``SPLIT_SPAN`` seeds."""
    return SPLIT_SPAN // (1 + config.max_retries)


def sample_seed(split: str, index: int, attempt: int, max_retries: int) -> int:
    """Seed of ``attempt`` (0 = first try) for sample ``index``: ``base + index`` first, then retry seeds
    counted down from the top of the split's range (``base + SPAN - 1 - index * max_retries - (attempt - 1)``)."""
    _check_split(split)
    base = SPLIT_SEEDS[split]
    if attempt == 0:
        return base + index
    return base + SPLIT_SPAN - 1 - index * max_retries - (attempt - 1)


def _stream(sample_id: str, name: str) -> np.random.Generator:
    """A generator seeded by a stable hash of the sample id and a stream name."""
    digest = hashlib.sha256(f"seed3d.dataset/{sample_id}/{name}".encode()).digest()
    return np.random.default_rng(np.random.SeedSequence(int.from_bytes(digest[:16], "little")))


# ----------------------------------------------------------------------------------------------- one sample


@dataclass
class _Failure:
    index: int
    category: str
    seed: int
    attempt: int
    error: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _normalisation(asset: Asset, extent: float) -> tuple[np.ndarray, float]:
    lo, hi = asset.bounds()
    longest = float(np.max(hi - lo))
    if not longest > 0:
        raise AssetFormatError(f"asset {asset.name!r} has an empty bounding box")
    return (lo + hi) / 2.0, extent / (longest / 2.0)


def _random_background(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """An sRGB (h, w, 3) float background: a flat colour, a linear gradient or smooth colour noise."""
    kind = int(rng.integers(3))
    if kind == 0:
        return np.broadcast_to(rng.uniform(0, 1, 3), (h, w, 3)).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    if kind == 1:
        angle = rng.uniform(0, 2 * np.pi)
        t = (np.cos(angle) * (xx / max(w - 1, 1) - 0.5) + np.sin(angle) * (yy / max(h - 1, 1) - 0.5)) + 0.5
        c0, c1 = rng.uniform(0, 1, (2, 3))
        return (c0 + np.clip(t, 0, 1)[..., None] * (c1 - c0)).astype(np.float32)
    grid = rng.uniform(0, 1, (4, 4, 3))
    gy, gx = yy / max(h - 1, 1) * 3, xx / max(w - 1, 1) * 3
    y0, x0 = np.minimum(gy.astype(int), 2), np.minimum(gx.astype(int), 2)
    fy, fx = (gy - y0)[..., None], (gx - x0)[..., None]
    top = grid[y0, x0] * (1 - fx) + grid[y0, x0 + 1] * fx
    bottom = grid[y0 + 1, x0] * (1 - fx) + grid[y0 + 1, x0 + 1] * fx
    return (top * (1 - fy) + bottom * fy).astype(np.float32)


def _u8(x: np.ndarray) -> np.ndarray:
    return np.round(np.clip(x, 0.0, 1.0) * 255.0).astype(np.uint8)


def _render(asset: Asset, sample_id: str, config: DatasetConfig, renderer: Any) -> dict[str, np.ndarray]:
    from seed3d.render import Lighting, RenderMesh, fixed_views, linear_to_srgb, random_views, srgb_to_linear

    mesh = RenderMesh.from_asset(asset)
    out: dict[str, np.ndarray] = {}
    rng = _stream(sample_id, "views")
    res = config.cond_resolution
    cams = random_views(mesh, config.cond_views, seed=int(rng.integers(2**31)), width=res)
    rgb, alpha, backgrounds = [], [], []
    for cam in cams:
        lighting = Lighting.random(int(rng.integers(2**31)), background=(0.0, 0.0, 0.0))
        rgba = renderer.render_image(mesh, cam, lighting, supersample=config.cond_supersample)
        background = _random_background(rng, res, res)
        a = rgba[..., 3:4]
        # over a black background the filtered colour is premultiplied (linear light)
        lin = srgb_to_linear(rgba[..., :3]) + (1.0 - a) * srgb_to_linear(background)
        rgb.append(_u8(linear_to_srgb(lin)))
        alpha.append(_u8(a[..., 0]))
        backgrounds.append(_u8(background))
    out["cond_rgb"] = np.stack(rgb) if rgb else np.zeros((0, res, res, 3), np.uint8)
    out["cond_alpha"] = np.stack(alpha) if alpha else np.zeros((0, res, res), np.uint8)
    out["cond_background"] = np.stack(backgrounds) if backgrounds else np.zeros((0, res, res, 3), np.uint8)
    out["cond_K"] = np.array([c.K for c in cams], np.float32).reshape(-1, 3, 3)
    out["cond_world_to_camera"] = np.array([c.world_to_camera for c in cams], np.float32).reshape(-1, 4, 4)

    pbr_cams = fixed_views(mesh, config.pbr_resolution)
    views = renderer.render_views(mesh, pbr_cams, None,
                                  ("mask", "normal", "canonical", "albedo", "metallic", "roughness"))
    out["pbr_mask"] = np.stack([v.mask for v in views])
    out["pbr_albedo"] = np.stack([_u8(linear_to_srgb(v.albedo)) for v in views])
    out["pbr_metallic"] = np.stack([_u8(v.metallic) for v in views])
    out["pbr_roughness"] = np.stack([_u8(v.roughness) for v in views])
    out["pbr_normal"] = np.stack([v.normal for v in views]).astype(np.float16)
    out["pbr_canonical"] = np.stack([v.canonical for v in views]).astype(np.float16)
    out["pbr_K"] = np.array([c.K for c in pbr_cams], np.float32)
    out["pbr_world_to_camera"] = np.array([c.world_to_camera for c in pbr_cams], np.float32)
    return out


def grid_centres(resolution: int) -> np.ndarray:
    """Centres (G, G, G, 3) of a ``resolution``-cell grid per side over [-1, 1]^3; [i, j, k] is at x, y, z index
    i, j, k."""
    c = (np.arange(resolution) + 0.5) * (2.0 / resolution) - 1.0
    return np.stack(np.meshgrid(c, c, c, indexing="ij"), -1)


def _geometry(asset: Asset, solids: Any, config: DatasetConfig, sample_id: str) -> dict[str, np.ndarray]:
    rng = _stream(sample_id, "points")
    label_of_part = np.array([PART_LABELS.index(p.label) if p.label in PART_LABELS else _OTHER_LABEL
                              for p in asset.parts], np.uint8)
    surf = solids.sample_surface(config.surface_points, rng)
    sharp = solids.sample_sharp(config.sharp_points, rng, config.sharp_angle_deg)
    vol = rng.uniform(-1.0, 1.0, (config.volume_points, 3))
    base = solids.sample_surface(config.near_points, rng)
    shares = np.array_split(np.arange(config.near_points), len(config.near_sigmas))
    sigma = np.concatenate([np.full(len(s), sg) for s, sg in zip(shares, config.near_sigmas, strict=True)])
    near = base.points + rng.normal(size=(config.near_points, 3)) * sigma[:, None]
    grid = grid_centres(config.grid_resolution)
    sdf = solids.signed_distance(np.concatenate([vol, near, grid.reshape(-1, 3)]))
    n_vol, n_near = config.volume_points, config.near_points
    return {
        "surface_points": surf.points.astype(np.float32),
        "surface_normals": surf.normals.astype(np.float32),
        "surface_part": surf.part.astype(np.int16),
        "surface_label": label_of_part[surf.part],
        "sharp_points": sharp.points.astype(np.float32),
        "sharp_normals": sharp.normals.astype(np.float32),
        "sharp_part": sharp.part.astype(np.int16),
        "sharp_label": label_of_part[sharp.part],
        "sharp_on_edge": np.asarray(sharp.on_edge, bool),
        "vol_points": vol.astype(np.float32),
        "vol_sdf": sdf[:n_vol].astype(np.float32),
        "near_points": near.astype(np.float32),
        "near_sdf": sdf[n_vol:n_vol + n_near].astype(np.float32),
        "grid_sdf": sdf[n_vol + n_near:].reshape(grid.shape[:3]).astype(np.float32),
    }


def _structure(asset: Asset, offset: np.ndarray, scale: float, config: DatasetConfig) -> dict[str, np.ndarray]:
    p_slots, j_slots = config.max_parts, config.max_parts - 1
    index = {p.name: i for i, p in enumerate(asset.parts)}
    names = [p.name for p in asset.parts] + [""] * (p_slots - len(asset.parts))
    labels = np.full(p_slots, -1, np.int16)
    labels[:len(asset.parts)] = [PART_LABELS.index(p.label) if p.label in PART_LABELS else _OTHER_LABEL
                                 for p in asset.parts]
    jt, jp, jc = (np.full(j_slots, -1, dt) for dt in (np.int8, np.int16, np.int16))
    origin, axis = np.zeros((j_slots, 3), np.float32), np.zeros((j_slots, 3), np.float32)
    limits, dyn = np.zeros((j_slots, 2), np.float32), np.zeros((j_slots, 4), np.float32)
    for k, j in enumerate(asset.joints):
        jt[k], jp[k], jc[k] = JOINT_TYPE_IDS.index(j.type), index[j.parent], index[j.child]
        origin[k] = (j.origin - offset) * scale
        axis[k] = j.axis / max(float(np.linalg.norm(j.axis)), 1e-12)
        if j.type in ("revolute", "prismatic"):
            limits[k] = (j.lower, j.upper)
        dyn[k] = (j.effort, j.velocity, j.damping, j.friction)
    return {"num_parts": np.int16(len(asset.parts)), "part_name": np.array(names), "part_label": labels,
            "num_joints": np.int16(len(asset.joints)), "joint_type": jt, "joint_parent": jp, "joint_child": jc,
            "joint_origin": origin, "joint_axis": axis, "joint_limits": limits, "joint_dynamics": dyn}


def _prepare(category: str, seed: int, config: DatasetConfig, threads: int) -> tuple[Asset, Any, np.ndarray, float]:
    """Generate the asset and check it can be sampled (raises on any problem of this seed)."""
    from seed3d import synth
    from seed3d.synth.sampling import PartSolids

    asset = synth.generate(category, seed)
    if len(asset.parts) > config.max_parts:
        raise AssetFormatError(f"{len(asset.parts)} parts exceed max_parts={config.max_parts}")
    offset, scale = _normalisation(asset, config.extent)
    backend, device = QUERY_ENGINES[config.queries]
    solids = PartSolids.from_asset(asset, offset, scale, threads=threads, backend=backend, device=device)
    solids.check_closed()
    return asset, solids, offset, scale


def make_sample(split: str, index: int, config: DatasetConfig, renderer: Any, threads: int = 0
                ) -> tuple[dict[str, np.ndarray] | None, list[dict[str, Any]]]:
    """Sample ``index`` of ``split``: its arrays (None when every seed failed) and the failures on the way."""
    cats = config.category_list()
    category = cats[index % len(cats)]
    failures: list[dict[str, Any]] = []
    for attempt in range(config.max_retries + 1):
        seed = sample_seed(split, index, attempt, config.max_retries)
        try:
            asset, solids, offset, scale = _prepare(category, seed, config, threads)
        except DependencyError:
            raise
        except Exception as exc:  # a category failing for one seed is recorded, never fatal
            failures.append(_Failure(index, category, seed, attempt, f"{type(exc).__name__}: {exc}").to_dict())
            log.warning("sample %d: %s seed %d failed: %s: %s", index, category, seed, type(exc).__name__, exc)
            continue
        sample_id = asset.name
        arrays: dict[str, np.ndarray] = {
            "sample_id": np.array(sample_id), "index": np.int64(index), "category": np.array(category),
            "seed": np.int64(seed), "description": np.array(str(asset.metadata.get("description", ""))),
            "attributes": np.array(json.dumps(asset.metadata.get("attributes", {}), sort_keys=True)),
            "norm_offset": offset.astype(np.float64), "norm_scale": np.float64(scale),
            "bounds_m": asset.bounds().astype(np.float64),
        }
        arrays.update(_geometry(asset, solids, config, sample_id))
        arrays.update(_structure(asset, offset, scale, config))
        if config.renders:
            arrays.update(_render(asset, sample_id, config, renderer))
        return arrays, failures
    return None, failures


# ----------------------------------------------------------------------------------------------- shards


def _stack(samples: list[dict[str, np.ndarray]], config: DatasetConfig) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for f in config_fields(config):
        values = [np.asarray(s[f.name]) for s in samples]
        if f.dtype == "str":
            width = max(1, max((int(np.char.str_len(v).max()) if v.size else 0) for v in values))
            out[f.name] = np.stack([v.astype(f"<U{width}") for v in values])
        else:
            arr = np.stack(values).astype(f.dtype)
            expect = (len(samples), *resolve_shape(f.shape, config))
            if arr.shape != expect:
                raise AssetFormatError(f"field {f.name}: built shape {arr.shape}, expected {expect}")
            out[f.name] = arr
    return out


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _shard_name(split: str, shard: int) -> str:
    return f"{split}-{shard:05d}.npz"


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` atomically, leaving the file untouched when it already holds exactly that."""
    if path.is_file() and path.read_text() == text:
        return
    with atomic_file(path) as tmp:
        tmp.write_text(text)
        tmp.chmod(0o644)


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    _write_text(path, json.dumps(doc, indent=1, allow_nan=False) + "\n")


# ----------------------------------------------------------------------------------------------- workers

_WORKER: dict[str, Any] = {}


def _worker_init(config: dict[str, Any], backend: str, threads: int) -> None:
    """Per-process setup: thread caps, then this process's own renderer (its GL context is never inherited)."""
    os.environ["LP_NUM_THREADS"] = str(threads)  # Mesa llvmpipe: read when the context is created
    cfg = dict(config)
    cfg["near_sigmas"] = tuple(cfg["near_sigmas"])
    cfg["categories"] = tuple(cfg["categories"])
    _WORKER["config"] = DatasetConfig(**cfg)
    if _WORKER["config"].queries != "open3d":
        import torch

        torch.set_num_threads(threads)
    _WORKER["renderer"] = _renderer(backend)
    _WORKER["threads"] = threads


def _worker_sample(task: tuple[str, int]) -> tuple[int, dict[str, np.ndarray] | None, list[dict[str, Any]]]:
    split, index = task
    arrays, failures = make_sample(split, index, _WORKER["config"], _WORKER["renderer"], _WORKER["threads"])
    return index, arrays, failures


# ----------------------------------------------------------------------------------------------- build


@dataclass
class BuildReport:
    """What ``build_split`` did."""

    root: Path
    manifest: Path
    samples: int
    failures: int
    shards_written: int
    shards_reused: int
    bytes: int
    seconds: float
    skipped: list[int] = field(default_factory=list)
    """Sample indices left out because every seed failed."""


def _build_key(split: str, config: DatasetConfig, backend: str) -> str:
    from seed3d.synth.core import SYNTH_VERSION

    cfg = config.to_dict()
    if cfg["renders"] and cfg["queries"] == "open3d":  # keys of builds made before these options stay valid
        del cfg["renders"], cfg["queries"]
    doc = {"format": FORMAT, "version": DATASET_VERSION, "synth_version": SYNTH_VERSION, "split": split,
           "renderer": backend, "config": cfg}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


def _resolve_backend(config: DatasetConfig) -> str:
    """The render backend a build uses (``none`` when it renders nothing)."""
    if not config.renders:
        return NO_RENDERER
    if config.backend != "auto":
        return config.backend
    from seed3d.render import get_renderer

    with get_renderer(config.backend) as r:
        return r.backend_name


def _renderer(backend: str) -> Any:
    """A renderer context for ``backend`` (an empty one for ``none``)."""
    if backend == NO_RENDERER:
        return contextlib.nullcontext()
    from seed3d.render import get_renderer

    return get_renderer(backend)


def _load_records(root: Path, key: str, overwrite: bool) -> dict[str, dict[str, Any]]:
    """Shard records of an earlier build of the same key (manifest or progress), by file name."""
    records: dict[str, dict[str, Any]] = {}
    for name in ("manifest.json", "progress.json"):
        path = root / name
        if not path.is_file():
            continue
        try:
            doc = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            log.warning("%s is unreadable; ignoring it", path)
            continue
        if doc.get("build_key") != key:
            if not overwrite:
                raise InvalidInputError(f"{root} holds a build with another config or renderer ({path.name}); "
                                        "pass overwrite=True (CLI: --overwrite) to replace it")
            continue
        for rec in doc.get("shards", []):
            records[rec["file"]] = rec
    return records


def build_split(out: PathType, split: str, count: int, config: DatasetConfig | None = None,
                workers: int | None = None, progress: ProgressCallback | None = None,
                overwrite: bool = False) -> BuildReport:
    """Build (or resume) ``count`` samples of ``split`` under ``out/split`` with ``workers`` processes.

    ``progress(fraction, message)`` is called after each sample and each shard; an exception it raises stops
    the build, and finished shards are kept for the next run.
    """
    _check_split(split)
    config = config or DatasetConfig()
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidInputError(f"count must be a positive integer, got {count!r}")
    if count > max_count(config):
        raise InvalidInputError(f"count {count} exceeds {max_count(config)}: a split has {SPLIT_SPAN} seeds for "
                                f"samples and their {config.max_retries} retries each")
    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    if workers < 1:
        raise InvalidInputError(f"workers must be >= 1, got {workers}")
    t0 = time.perf_counter()
    root = Path(out) / split
    root.mkdir(parents=True, exist_ok=True)
    backend = _resolve_backend(config)
    key = _build_key(split, config, backend)
    records = _load_records(root, key, overwrite)
    k = config.samples_per_shard
    plan = [(s, list(range(s * k, min((s + 1) * k, count)))) for s in range((count + k - 1) // k)]
    done: dict[int, dict[str, Any]] = {}
    for s, indices in plan:
        rec = records.get(_shard_name(split, s))
        path = root / _shard_name(split, s)
        if not rec or rec.get("indices") != indices:
            continue
        if (rec["count"] == 0 and not path.exists()) or (path.is_file() and _sha256(path) == rec["sha256"]):
            done[s] = rec
    todo = [(s, indices) for s, indices in plan if s not in done]
    reused = len(done)
    report = progress or (lambda f, m: None)
    finished = sum(len(idx) for s, idx in plan if s in done)
    report(finished / count, f"{reused} shard(s) already built")

    def manifest_doc(final: bool) -> dict[str, Any]:
        return _manifest(split, count, config, backend, key, [done[s] for s, _ in plan if s in done], final)

    def on_shard(s: int, samples: list[dict[str, np.ndarray]], failures: list[dict[str, Any]],
                 skipped: list[int]) -> None:
        name = _shard_name(split, s)
        path = root / name
        if samples:
            with atomic_file(path) as tmp:
                _write_npz(tmp, _stack(samples, config))
                tmp.chmod(0o644)
        elif path.exists():
            path.unlink()
        rec = {"file": name, "indices": dict(plan)[s], "count": len(samples),
               "sample_ids": [str(x["sample_id"]) for x in samples],
               "sha256": _sha256(path) if samples else None, "bytes": path.stat().st_size if samples else 0,
               "failures": failures, "skipped": skipped}
        done[s] = rec
        _write_json(root / "progress.json", manifest_doc(final=False))

    if todo:  # from here until the new manifest, progress.json alone describes the folder
        _write_json(root / "progress.json", manifest_doc(final=False))
        (root / "manifest.json").unlink(missing_ok=True)
    _run(split, todo, config, backend, workers, count, finished, report, on_shard)

    doc = manifest_doc(final=True)
    _write_text(root / "manifest.json", json.dumps(doc, indent=1, allow_nan=False) + "\n")
    _write_text(root / "DATASET.md", dataset_markdown(doc))
    (root / "progress.json").unlink(missing_ok=True)
    keep = {rec["file"] for rec in doc["shards"]}
    for stale in root.glob(f"{split}-*.npz"):
        if stale.name not in keep:
            stale.unlink()
    report(1.0, "done")
    return BuildReport(root=root, manifest=root / "manifest.json", samples=doc["samples"],
                       failures=len(doc["failures"]), shards_written=len(todo), shards_reused=reused,
                       bytes=doc["bytes"], seconds=time.perf_counter() - t0, skipped=doc["skipped"])


def _run(split: str, todo: list[tuple[int, list[int]]], config: DatasetConfig, backend: str, workers: int,
         count: int, finished: int, report: ProgressCallback,
         on_shard: Callable[[int, list[dict[str, np.ndarray]], list[dict[str, Any]], list[int]], None]) -> None:
    """Compute the samples of the ``todo`` shards in order, in-process or on a spawn pool, and hand each
    finished shard to ``on_shard``."""
    tasks = [(split, i) for _, indices in todo for i in indices]
    if not tasks:
        return
    shard_of = {i: s for s, indices in todo for i in indices}
    size = {s: len(indices) for s, indices in todo}
    pending: dict[int, list[tuple[int, dict[str, np.ndarray] | None, list[dict[str, Any]]]]] = {}
    n_shards, written = len(todo), 0

    def collect(result: tuple[int, dict[str, np.ndarray] | None, list[dict[str, Any]]]) -> None:
        nonlocal finished, written
        index = result[0]
        s = shard_of[index]
        pending.setdefault(s, []).append(result)
        finished += 1
        report(finished / count, f"sample {finished}/{count}")
        if len(pending[s]) == size[s]:
            results = sorted(pending.pop(s), key=lambda r: r[0])
            samples = [r[1] for r in results if r[1] is not None]
            failures = [f for r in results for f in r[2]]
            skipped = [r[0] for r in results if r[1] is None]
            on_shard(s, samples, failures, skipped)
            written += 1
            report(finished / count, f"shard {s} written ({written}/{n_shards} this run)")

    workers = min(workers, len(tasks))
    if workers == 1:
        with _renderer(backend) as renderer:
            for _, index in tasks:
                arrays, failures = make_sample(split, index, config, renderer)
                collect((index, arrays, failures))
        return
    threads = max(1, (os.cpu_count() or 1) // workers)
    # spawn: a fresh interpreter per worker, so no GL context (or other native state) is inherited. A worker
    # that dies (e.g. a script without an ``if __name__ == "__main__":`` guard) breaks the pool with an error
    # instead of hanging it, as multiprocessing.Pool would.
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_worker_init, initargs=(config.to_dict(), backend, threads))
    futures: list[Any] = []
    try:
        futures = [executor.submit(_worker_sample, task) for task in tasks]
        for k in range(len(futures)):
            result = futures[k].result()
            futures[k] = None  # let the arrays go once collected
            collect(result)
    except BrokenProcessPool as exc:
        raise Seed3DError(f"a dataset worker process died ({exc}); when calling build_split from a script, "
                              "guard it with `if __name__ == \"__main__\":` (workers are spawned)") from exc
    finally:
        for fut in futures:
            if fut is not None:
                fut.cancel()
        executor.shutdown(wait=True, cancel_futures=True)


def _manifest(split: str, count: int, config: DatasetConfig, backend: str, key: str,
              shards: list[dict[str, Any]], final: bool) -> dict[str, Any]:
    from seed3d import __version__
    from seed3d.synth.core import SYNTH_VERSION

    base = SPLIT_SEEDS[split]
    failures = sorted((f for rec in shards for f in rec["failures"]), key=lambda f: (f["index"], f["attempt"]))
    return {
        "format": FORMAT, "version": DATASET_VERSION, "complete": final, "build_key": key,
        "seed3d_version": __version__, "synth_version": SYNTH_VERSION, "split": split, "count": count,
        "samples": sum(rec["count"] for rec in shards),
        "bytes": sum(rec["bytes"] for rec in shards),
        "seed_range": [base, base + SPLIT_SPAN],
        "seed_rule": "sample i: categories[i % len(categories)] with seed base + i; retry k >= 1 of sample i: "
                     "base + span - 1 - i * max_retries - (k - 1)",
        "categories": config.category_list(), "renderer": backend, "config": config.to_dict(),
        "normalisation": "x_norm = (x_m - norm_offset) * norm_scale; norm_offset = bounding-box centre (m); "
                         "norm_scale = extent / (longest side / 2); distances scale by norm_scale",
        "label_names": list(PART_LABELS), "joint_types": list(JOINT_TYPE_IDS),
        "fields": field_table(config), "shards": shards, "failures": failures,
        "skipped": sorted(i for rec in shards for i in rec["skipped"]),
    }


def dataset_markdown(manifest: dict[str, Any]) -> str:
    """DATASET.md for a built split: layout, sample rule, normalisation and the field table."""
    cfg = manifest["config"]
    lines = [
        f"# Seed3D procedural data set — split `{manifest['split']}`", "",
        f"Format `{manifest['format']}` v{manifest['version']}, synth v{manifest['synth_version']}, "
        f"renderer `{manifest['renderer']}`. {manifest['samples']} samples of {manifest['count']} in "
        f"{len(manifest['shards'])} shard(s); {len(manifest['failures'])} failed seed(s) (see manifest.json).", "",
        "## Layout", "",
        f"`{manifest['split']}-NNNNN.npz`: {cfg['samples_per_shard']} samples per shard (the last may hold fewer), "
        "every array with the sample axis first; load with `numpy.load` or "
        "`seed3d.synth.dataset.ShardDataset`. `manifest.json` lists each shard's sha256 and sample ids.", "",
        "## Samples", "",
        f"Seeds {manifest['seed_range'][0]}..{manifest['seed_range'][1] - 1}; {manifest['seed_rule']}.", "",
        f"Normalised frame: {manifest['normalisation']} (extent {cfg['extent']}). SDF: negative inside the union "
        "of the parts; occupancy = sdf < 0.", "",
        "## Fields", "",
        "Shapes are per sample (symbol, then its size in this build); a shard's arrays add the sample axis "
        "in front.", "",
        "| name | shape | dtype | meaning |", "| --- | --- | --- | --- |",
    ]
    for f in manifest["fields"]:
        if f["dims"]:
            dims = " × ".join(str(d) for d in f["dims"])
            shape = f"{dims} ({' × '.join(str(d) for d in f['shape'])})" if dims != " × ".join(
                str(d) for d in f["shape"]) else dims
        else:
            shape = "scalar"
        lines.append(f"| `{f['name']}` | {shape} | {f['dtype']} | {f['doc']} |")
    lines += ["", "Label ids index: " + ", ".join(manifest["label_names"]) + ".",
              "Joint type ids index: " + ", ".join(manifest["joint_types"]) + ".", ""]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- reading


class ShardDataset:
    """A built split as an indexable data set of per-sample dicts (numpy arrays; str, or a list of str, for text).

    Works as a map-style ``torch.utils.data.Dataset`` (``DataLoader`` collates the numpy arrays to tensors)
    without importing torch. Shards are loaded whole (only the requested ``fields``) and kept in a small
    LRU cache: iterate in order, or shuffle shards and samples within them, rather than fully at random.
    ``meters=True`` returns points and distances in meters instead of the normalised frame.
    """

    def __init__(self, root: PathType, split: str | None = None, fields: Sequence[str] | None = None,
                 meters: bool = False, cache_shards: int = 2) -> None:
        path = Path(root)
        if split is not None:
            path = path / split
        manifest_path = path / "manifest.json"
        if not manifest_path.is_file():
            raise AssetFormatError(f"{path}: no manifest.json (build it with `seed3d data build`)")
        self.root = path
        self.manifest: dict[str, Any] = json.loads(manifest_path.read_text())
        if self.manifest.get("format") != FORMAT or self.manifest.get("version") != DATASET_VERSION:
            raise AssetFormatError(f"{manifest_path}: not a {FORMAT} v{DATASET_VERSION} manifest")
        built = tuple(f["name"] for f in self.manifest["fields"])
        self.fields = tuple(fields) if fields is not None else built
        unknown = [f for f in self.fields if f not in FIELD_NAMES]
        if unknown:
            raise InvalidInputError(f"unknown fields {unknown}; known: {', '.join(FIELD_NAMES)}")
        missing = [f for f in self.fields if f not in built]
        if missing:
            raise AssetFormatError(f"{path}: the split has no {', '.join(missing)} (built with renders="
                                   f"{str(self.manifest['config'].get('renders', True)).lower()}); rebuild it "
                                   "with renders to get them")
        self.meters = meters
        self._load = list(self.fields)
        if meters:
            self._load += [f for f in ("norm_offset", "norm_scale") if f not in self._load]
        self.shards = [rec for rec in self.manifest["shards"] if rec["count"]]
        self._starts = np.cumsum([0] + [rec["count"] for rec in self.shards])
        self._cache: OrderedDict[int, dict[str, np.ndarray]] = OrderedDict()
        self._cache_size = max(1, int(cache_shards))

    def __len__(self) -> int:
        return int(self._starts[-1])

    @property
    def sample_ids(self) -> list[str]:
        """Every sample id, in order."""
        return [sid for rec in self.shards for sid in rec["sample_ids"]]

    def locate(self, index: int) -> tuple[int, int]:
        """(shard number, position in the shard) of sample ``index``."""
        if not -len(self) <= index < len(self):
            raise IndexError(f"sample {index} out of range 0..{len(self) - 1}")
        index %= len(self)
        s = int(np.searchsorted(self._starts, index, side="right") - 1)
        return s, index - int(self._starts[s])

    def load_shard(self, shard: int) -> dict[str, np.ndarray]:
        """The arrays of one shard (the requested fields), stacked along the sample axis."""
        if shard in self._cache:
            self._cache.move_to_end(shard)
            return self._cache[shard]
        path = self.root / self.shards[shard]["file"]
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {name: z[name] for name in self._load}
        except (OSError, KeyError, ValueError) as exc:
            raise AssetFormatError(f"{path}: unreadable shard ({exc})") from exc
        self._cache[shard] = arrays
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return arrays

    def __getitem__(self, index: int) -> dict[str, Any]:
        s, pos = self.locate(index)
        arrays = self.load_shard(s)
        out: dict[str, Any] = {}
        for name in self.fields:
            value = arrays[name][pos]
            out[name] = value.tolist() if value.dtype.kind == "U" else np.array(value)  # str, or a list of str
        if self.meters:
            offset, scale = arrays["norm_offset"][pos], float(arrays["norm_scale"][pos])
            for name in POINT_FIELDS:
                if name in out:
                    out[name] = (out[name] / scale + offset).astype(np.float32)
            for name in DISTANCE_FIELDS:
                if name in out:
                    out[name] = (out[name] / scale).astype(np.float32)
        return out

    def verify(self) -> None:
        """Raise ``AssetFormatError`` unless every shard's sha256 matches the manifest."""
        for rec in self.shards:
            path = self.root / rec["file"]
            if not path.is_file() or _sha256(path) != rec["sha256"]:
                raise AssetFormatError(f"{path}: missing or its sha256 differs from the manifest")
