"""View data of the PBR generator: the rig's geometry buffers of a mesh (for inference) and, from a built data
set, the same buffers with their true albedo / metallic / roughness, reference images and material texts
(for training), downsampled to the model's resolution and cached.

Downsampling is by area, weighted by coverage: a low-resolution pixel is on the mesh when at least half of the
high-resolution pixels under it are, and its values are the mean over those that are (normals renormalised).
Inference renders at ``supersample`` times the model's resolution and downsamples the same way, so a model
sees the same kind of buffers in training and in use.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from seed3d.asset import atomic_file
from seed3d.condition.text import encode_token_arrays
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.typed import PathType, ProgressCallback

log = logging.getLogger(__name__)


#: Bump when the cached arrays change meaning.
CACHE_VERSION = 1
_FIELDS = ("pbr_mask", "pbr_albedo", "pbr_metallic", "pbr_roughness", "pbr_normal", "pbr_canonical", "cond_rgb",
           "cond_alpha", "cond_background", "description", "attributes", "category")


def _blocks(x: np.ndarray, f: int) -> np.ndarray:
    """(V, H, W, ...) -> (V, H/f, W/f, ...) sums over f x f blocks."""
    v, h, w = x.shape[:3]
    return x.reshape(v, h // f, f, w // f, f, *x.shape[3:]).sum(axis=(2, 4))


def downsample_views(mask: np.ndarray, factor: int, **values: np.ndarray) -> dict[str, np.ndarray]:
    """Coverage-weighted area downsampling of per-view buffers by an integer ``factor``.

    ``mask`` (V, H, W) bool; each of ``values`` (V, H, W) or (V, H, W, C) float. Returns ``mask`` (coverage >= 0.5)
    and every value averaged over the covered pixels of each block (0 off the mesh); a value named ``normal``
    is renormalised to unit length."""
    if mask.ndim != 3 or factor < 1 or mask.shape[1] % factor or mask.shape[2] % factor:
        raise InvalidInputError(f"cannot downsample views of shape {mask.shape} by {factor}")
    m = mask.astype(np.float32)
    cover = _blocks(m, factor)
    out_mask = cover >= 0.5 * factor * factor
    out: dict[str, np.ndarray] = {"mask": out_mask}
    denom = np.maximum(cover, 1e-6)
    for name, val in values.items():
        val = np.asarray(val, np.float32)
        w = m if val.ndim == 3 else m[..., None]
        d = denom if val.ndim == 3 else denom[..., None]
        avg = _blocks(val * w, factor) / d
        if name == "normal":
            avg = avg / np.maximum(np.linalg.norm(avg, axis=-1, keepdims=True), 1e-6)
        keep = out_mask if val.ndim == 3 else out_mask[..., None]
        out[name] = np.where(keep, avg, 0.0).astype(np.float32)
    return out


def geometry_array(normal: np.ndarray, canonical: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Model geometry input (V, 7, H, W): unit normal, canonical position mapped to [-1, 1], coverage; 0 off."""
    m = mask.astype(np.float32)[..., None]
    arr = np.concatenate([normal * m, (canonical * 2.0 - 1.0) * m, m], axis=-1)
    return arr.transpose(0, 3, 1, 2).astype(np.float32)


def target_array(albedo_srgb: np.ndarray, metallic: np.ndarray, roughness: np.ndarray, mask: np.ndarray
                 ) -> np.ndarray:
    """Model target (V, 5, H, W): albedo sRGB, metallic, roughness mapped from [0, 1] to [-1, 1]; 0 off the mesh."""
    m = mask.astype(np.float32)[..., None]
    arr = np.concatenate([albedo_srgb, metallic[..., None], roughness[..., None]], axis=-1) * 2.0 - 1.0
    return (arr * m).transpose(0, 3, 1, 2).astype(np.float32)


@dataclass
class GeometryViews:
    """Geometry buffers of the texture rig's views of one mesh at the model's resolution."""

    normal: np.ndarray
    """(V, H, W, 3) unit world normals (0 off the mesh)."""
    canonical: np.ndarray
    """(V, H, W, 3) canonical coordinates in [0, 1] (``seed3d.render``; 0 off the mesh)."""
    mask: np.ndarray
    """(V, H, W) bool coverage."""
    cameras: list[Any]
    """The rig's cameras (``seed3d.render.Camera``) at the rendered (supersampled) resolution."""
    full_mask: np.ndarray | None = None
    """(V, H * s, W * s) bool coverage at the cameras' (supersampled) resolution, when rendered here."""

    def tensor(self) -> torch.Tensor:
        """The model's geometry input (V, 7, H, W) float32."""
        return torch.from_numpy(geometry_array(self.normal, self.canonical, self.mask))


def render_geometry(target: object, resolution: int, supersample: int = 4, renderer: Any = None,
                    rig: Sequence[tuple[float, float]] | None = None) -> GeometryViews:
    """Render normal, canonical position and coverage of the rig's views of ``target`` (Asset, Mesh or
    RenderMesh) at ``resolution * supersample`` and downsample them to ``resolution``."""
    from seed3d.asset import Asset, Mesh
    from seed3d.render import TEXTURE_RIG, RenderMesh, as_render_mesh, fixed_views, get_renderer

    if resolution < 1 or supersample < 1:
        raise InvalidInputError(f"resolution and supersample must be >= 1, got {resolution} and {supersample}")
    if not isinstance(target, Asset | Mesh | RenderMesh):
        raise InvalidInputError(f"render_geometry needs an Asset, a Mesh or a RenderMesh, got {type(target).__name__}")
    mesh = as_render_mesh(target)
    cams = fixed_views(mesh, resolution * supersample, rig=tuple(rig or TEXTURE_RIG))
    own = renderer is None
    rend = renderer or get_renderer()
    try:
        views = rend.render_views(mesh, cams, None, ("mask", "normal", "canonical"))
    finally:
        if own:
            rend.close()
    full = np.stack([v.mask for v in views])
    small = downsample_views(full, supersample, normal=np.stack([v.normal for v in views]),
                             canonical=np.stack([v.canonical for v in views]))
    return GeometryViews(small["normal"], small["canonical"], small["mask"], cams, full)


# ---------------------------------------------------------------------------------------------- material text


def finish_words(finish: dict[str, str]) -> str:
    """How a synth finish is named (``walnut wood``, ``brushed brass``), as in the data set's descriptions."""
    from seed3d.synth.describe import finish_words as words

    return words(finish)


def asset_finishes(attributes: dict[str, Any] | str) -> list[dict[str, str]]:
    """The distinct finishes ({kind, colour}) of a synth asset's attributes, in the order they are listed."""
    attrs = json.loads(attributes) if isinstance(attributes, str) else attributes
    found: list[dict[str, str]] = []

    def add(fin: Any) -> None:
        if isinstance(fin, dict) and isinstance(fin.get("kind"), str) and isinstance(fin.get("colour"), str):
            item = {"kind": fin["kind"], "colour": fin["colour"]}
            if item not in found:
                found.append(item)

    for fin in (attrs.get("materials") or {}).values():
        add(fin)
    legs = attrs.get("legs")
    if isinstance(legs, dict):
        add(legs.get("finish"))
    return found


def material_words_text(attributes: dict[str, Any] | str) -> str:
    """Material words of a synth asset, comma separated (``charcoal painted wood, polished nickel``)."""
    return ", ".join(finish_words(f) for f in asset_finishes(attributes))


def kind_words_text(attributes: dict[str, Any] | str) -> str:
    """The kinds of a synth asset's finishes without their colours, comma separated (``painted wood, polished
    metal``), as the material tagger's kind head names them (``MaterialTagger.predict_kinds``)."""
    from seed3d.synth.materials import KIND_WORDS

    kinds = dict.fromkeys(KIND_WORDS.get(f["kind"], f["kind"]) for f in asset_finishes(attributes))
    return ", ".join(kinds)


# ---------------------------------------------------------------------------------------------- training views


def _shard_views(arrays: dict[str, np.ndarray], resolution: int, reference_resolution: int, seed_base: int
                 ) -> dict[str, np.ndarray]:
    """Downsampled targets, geometry and reference images of one loaded shard."""
    n, v, hp = arrays["pbr_mask"].shape[:3]
    if hp % resolution:
        raise InvalidInputError(f"the data set's {hp} px views do not downsample to {resolution} px (use a divisor "
                                f"of {hp}, or rebuild the data set with a larger pbr_resolution)")
    f = hp // resolution
    targets = np.zeros((n, v, 5, resolution, resolution), np.float16)
    geometry = np.zeros((n, v, 6, resolution, resolution), np.float16)
    masks = np.zeros((n, v, resolution, resolution), bool)
    for i in range(n):
        small = downsample_views(arrays["pbr_mask"][i], f,
                                 albedo=arrays["pbr_albedo"][i].astype(np.float32) / 255.0,
                                 metallic=arrays["pbr_metallic"][i].astype(np.float32) / 255.0,
                                 roughness=arrays["pbr_roughness"][i].astype(np.float32) / 255.0,
                                 normal=arrays["pbr_normal"][i].astype(np.float32),
                                 canonical=arrays["pbr_canonical"][i].astype(np.float32))
        masks[i] = small["mask"]
        targets[i] = target_array(small["albedo"], small["metallic"], small["roughness"], small["mask"])
        geometry[i] = geometry_array(small["normal"], small["canonical"], small["mask"])[:, :6]
    return {"target": targets, "geometry": geometry, "mask": masks,
            "reference": _shard_references(arrays, reference_resolution, seed_base)}


def _shard_references(arrays: dict[str, np.ndarray], size: int, seed_base: int) -> np.ndarray:
    """Reference images (N, Vc, 3, size, size) uint8 of one loaded shard's conditioning renders: the object
    recentred over the canonical background, with mild exposure / crop jitter (no hue or saturation change: the
    reference's colours are what the albedo should follow)."""
    from seed3d.condition.augment import AugmentConfig, ViewAugmenter

    aug = ViewAugmenter(AugmentConfig(size=size, p_canonical=1.0, exposure=0.3, gamma=0.1, saturation=0.0, hue=0.0,
                                      crop_scale=0.08, crop_shift=0.04))
    n, vc = arrays["cond_rgb"].shape[:2]
    flat = aug(arrays["cond_rgb"].reshape(n * vc, *arrays["cond_rgb"].shape[2:]),
               arrays["cond_alpha"].reshape(n * vc, *arrays["cond_alpha"].shape[2:]),
               arrays["cond_background"].reshape(n * vc, *arrays["cond_background"].shape[2:]),
               generator=seed_base).rgb
    return np.round(flat.numpy().clip(0, 1) * 255).astype(np.uint8).reshape(n, vc, 3, size, size)


def load_views(root: PathType, split: str, resolution: int, reference_resolution: int, cache_dir: PathType,
               max_text_tokens: int = 64, progress: ProgressCallback | None = None) -> dict[str, np.ndarray]:
    """Training arrays of a built split at ``resolution``, cached in ``cache_dir`` (keyed by the build):

    ``target`` (N, V, 5, r, r) f16, ``geometry`` (N, V, 6, r, r) f16 (normal, position; coverage is ``mask``),
    ``mask`` (N, V, r, r), ``reference`` (N, Vc, 3, R, R) uint8, ``category``, ``description``, ``materials``
    (material words), ``kinds`` (their kinds only), ``attributes`` (JSON), and MiniLM states of the three texts:
    ``desc_tokens`` / ``desc_mask``, ``mat_tokens`` / ``mat_mask``, ``kind_tokens`` / ``kind_mask``."""
    from seed3d.synth.dataset import ShardDataset

    report = progress or (lambda f, m: None)
    ds = ShardDataset(root, split, fields=_FIELDS, cache_shards=1)
    if not len(ds):
        raise AssetFormatError(f"{ds.root}: the split has no samples")
    key_doc = json.dumps([CACHE_VERSION, ds.manifest.get("build_key"), split, len(ds), resolution,
                          reference_resolution, max_text_tokens])
    key = hashlib.sha256(key_doc.encode()).hexdigest()[:12]
    path = Path(cache_dir) / f"pbr-views-{split}-{key}.npz"
    if path.is_file():
        with np.load(path, allow_pickle=False) as z:
            cached = {k: z[k] for k in z.files}
        return _with_kind_tokens(cached, max_text_tokens)
    chunks: list[dict[str, np.ndarray]] = []
    texts: dict[str, list[str]] = {"category": [], "description": [], "attributes": []}
    for s in range(len(ds.shards)):
        report(s / len(ds.shards), f"downsampling views, shard {s + 1}/{len(ds.shards)}")
        arrays = ds.load_shard(s)
        chunks.append(_shard_views(arrays, resolution, reference_resolution, seed_base=s))
        for k in texts:
            texts[k] += [str(x) for x in arrays[k]]
    out = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
    out.update({k: np.array(v) for k, v in texts.items()})
    out["materials"] = np.array([material_words_text(a) for a in texts["attributes"]])
    out["desc_tokens"], out["desc_mask"] = encode_token_arrays(texts["description"], max_text_tokens,
                                                               progress=progress, message="encoding material texts")
    out["mat_tokens"], out["mat_mask"] = encode_token_arrays(list(out["materials"]), max_text_tokens,
                                                             progress=progress, message="encoding material texts")
    Path(cache_dir).mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, **out)
    log.info("cached %d samples of %s at %d px in %s", len(out["target"]), split, resolution, path)
    return _with_kind_tokens(out, max_text_tokens)


def load_references(root: PathType, split: str, size: int, cache_dir: PathType,
                    progress: ProgressCallback | None = None) -> np.ndarray:
    """The reference images (N, Vc, 3, size, size) uint8 of a built split alone, as :func:`load_views` makes them
    at ``reference_resolution = size`` (the same images), cached in ``cache_dir`` (keyed by the build): for a
    material tagger that reads the references at another size than the generator."""
    from seed3d.synth.dataset import ShardDataset

    report = progress or (lambda f, m: None)
    ds = ShardDataset(root, split, fields=("cond_rgb", "cond_alpha", "cond_background"), cache_shards=1)
    if not len(ds):
        raise AssetFormatError(f"{ds.root}: the split has no samples")
    key_doc = json.dumps([CACHE_VERSION, ds.manifest.get("build_key"), split, len(ds), "references", size])
    path = Path(cache_dir) / f"pbr-references-{split}-{hashlib.sha256(key_doc.encode()).hexdigest()[:12]}.npz"
    if path.is_file():
        with np.load(path, allow_pickle=False) as z:
            return z["reference"]
    chunks = []
    for s in range(len(ds.shards)):
        report(s / len(ds.shards), f"reference images at {size} px, shard {s + 1}/{len(ds.shards)}")
        chunks.append(_shard_references(ds.load_shard(s), size, seed_base=s))
    out = np.concatenate(chunks)
    Path(cache_dir).mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, reference=out)
    log.info("cached %d samples' reference images of %s at %d px in %s", len(out), split, size, path)
    return out


def _with_kind_tokens(views: dict[str, np.ndarray], max_text_tokens: int) -> dict[str, np.ndarray]:
    """Add ``kinds`` (each sample's :func:`kind_words_text`) and their MiniLM states ``kind_tokens`` /
    ``kind_mask`` (few distinct texts: encoded once each, not cached)."""
    kinds = [kind_words_text(str(a)) for a in views["attributes"]]
    unique = sorted(set(kinds))
    tokens, masks = encode_token_arrays(unique, max_text_tokens)
    pos = {k: i for i, k in enumerate(unique)}
    where = np.array([pos[k] for k in kinds], np.int64)
    return {**views, "kinds": np.array(kinds), "kind_tokens": tokens[where], "kind_mask": masks[where]}


def geometry_batch(views: dict[str, np.ndarray], idx: np.ndarray) -> torch.Tensor:
    """Model geometry input (B, V, 7, r, r) float32 of cached samples ``idx``."""
    g = views["geometry"][idx].astype(np.float32)
    m = views["mask"][idx].astype(np.float32)[:, :, None]
    return torch.from_numpy(np.concatenate([g, m], axis=2))
