"""Render-and-compare fitting of an image's program, and per-part finishes read off the image.

``fit_program(pre, prediction, seed=...)`` takes a preprocessed image (``seed3d.condition.image.Preprocessed``
with an object mask) and the image network's ``ImagePrediction``, and tries candidate programs: the network's top
categories × its count heads' top classes (``candidate_programs``). Each candidate is built with the procedural
engine in ``styles`` styles (``synth.generate(category, seed + k, params)``: k = 0 is the seed the program will be
built with; another style's structural parameters are carried into the program, so what is compared is what is
built) and rendered with the project's renderer as a silhouette, a part-id map and normals,
then cropped and recentred exactly as ``preprocess_image`` crops the input (``preprocess_rgba``: the object box,
``FIT_FILL`` of the square, Lanczos). The score of a view is

    silhouette IoU + ``edge_weight`` × edge agreement + ``colour_weight`` × colour agreement

where edge agreement is the correlation, inside the object, of the input's luminance edges with the render's line
drawing (part boundaries and creases), and colour agreement the share of the input's colour variance the
candidate's parts explain (each part one colour). Unknowns: camera azimuth, elevation and focal length (perspective)
and the object's horizontal proportions (width and depth scale relative to the height, where the category's size
parameters can realise them: ``build_program``'s size fit builds them). Search: a coarse camera grid per category,
then Nelder–Mead (scipy) on every candidate for a few evaluations, then longer on the best ``refine_top``; a
candidate's total adds ``prior_weight`` × log(network probability), so the silhouette overturns the network's
choice only by a clear margin.
Budget: ``max_evaluations`` renders (the deterministic limit: the same inputs and seed give the same fit) and
``budget_s`` seconds of wall time (a safety net on a slow machine; when it cuts, the fit is no longer repeatable).

``read_part_finishes`` then renders the winner's part ids at the fitted camera and, for every finish parameter
whose parts are visible enough, takes the median input colour of those parts and picks the nearest finish among
the parameter's own kinds and palettes (``*_matches_body`` flags turned off where a part reads differently from
the body).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.errors import InvalidInputError, Seed3DError

log = logging.getLogger(__name__)

#: Share of the square the object fills after recentring (``preprocess_image``'s default ``fill``).
FIT_FILL = 0.85
#: Flags that tie a part's finish to another's: flag → (the part's finish parameter, the one it follows).
MATCH_FLAGS: dict[str, tuple[str, str]] = {
    "front_matches_body": ("front_finish", "body_finish"), "legs_match_body": ("leg_finish", "body_finish"),
    "lid_matches_body": ("lid_finish", "body_finish"), "door_matches_frame": ("body_finish", "frame_finish"),
}
_LUMA = np.array([0.299, 0.587, 0.114], np.float32)


@dataclass
class FitConfig:
    """Candidates, search and score weights of the render-and-compare fit."""

    max_evaluations: int = 400
    """Most renders in one fit (the deterministic budget)."""
    budget_s: float = 12.0
    """Most seconds of wall time (a safety net; reaching it makes the fit depend on the machine's speed)."""
    top_categories: int = 3
    """Categories tried: the network's most likely ones ..."""
    min_category_probability: float = 0.05
    """... at or above this probability (the first is always tried)."""
    count_alternatives: int = 2
    """Classes tried per count head (doors, drawers, lids): its most likely ones ..."""
    min_count_probability: float = 0.1
    """... at or above this probability (the first is always tried)."""
    max_candidates: int = 6
    """Most candidate programs, most probable first."""
    styles: int = 3
    """Styles tried per candidate: the candidate built with seeds ``seed``, ``seed + 1``, … (the category's
    other parameters — base, legs, top, layout of its parts — as each seed draws them), its main structural
    choice (``MAIN_CHOICES``: a lamp's kind, a fridge's layout) taking each of its values in turn."""
    render_size: int = 160
    """Side of the renders (pixels) before they are recentred to the input's size."""
    azimuths: tuple[float, ...] = (-60.0, -30.0, 0.0, 30.0, 60.0)
    """Coarse camera azimuths (degrees, 0 = the object's front)."""
    elevations: tuple[float, ...] = (5.0, 25.0, 45.0)
    """Coarse camera elevations (degrees above the horizon)."""
    focal_mm: float = 50.0
    """Starting 35 mm-equivalent focal length."""
    explore_evaluations: int = 8
    """Nelder–Mead evaluations for every candidate."""
    refine_evaluations: int = 60
    """Further Nelder–Mead evaluations for each of the ``refine_top`` best candidates."""
    refine_top: int = 2
    """Candidates refined further."""
    edge_weight: float = 0.1
    """Weight of the edge agreement (correlation in [-1, 1]) in a view's score."""
    colour_weight: float = 0.05
    """Weight of the colour agreement (explained variance in [0, 1]) in a view's score."""
    prior_weight: float = 1.0
    """Weight of log(network probability) in a candidate's total. Chosen on validation renders (seeds 20000-20001,
    eval/results/program_image_fit_val.json ``weights``): with network v2 (67 categories) 1.0 gives 91.3 % category
    accuracy there, 0.2 90.6 %, 0.02 87.8 %, 0 86.2 % (the network alone: 92.5 %; v1 kept its category from 0.2 up),
    so the fit overturns the network only on a large silhouette difference (about 0.69 IoU for probabilities 0.5
    against 0.25)."""
    min_part_pixels: int = 40
    """Fewest visible input pixels (at the input's 128 px) a finish is read from."""

    def __post_init__(self) -> None:
        for name in ("max_evaluations", "top_categories", "count_alternatives", "max_candidates", "styles",
                     "render_size",
                     "explore_evaluations", "refine_evaluations", "refine_top", "min_part_pixels"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(f"FitConfig.{name} must be a positive integer, got {value!r}")
        if not self.budget_s > 0:
            raise InvalidInputError(f"FitConfig.budget_s must be positive, got {self.budget_s}")
        if not self.azimuths or not self.elevations:
            raise InvalidInputError("FitConfig.azimuths and elevations need at least one angle each")
        self.azimuths = tuple(float(a) for a in self.azimuths)
        self.elevations = tuple(float(e) for e in self.elevations)


#: Parameter names of the structural choice that most changes an object's silhouette, the first a category has
#: wins (a lamp's ``kind``, a fridge's ``layout``, a bin's ``shape``): the fit's styles try its values in turn, as
#: the seeds' own draws can all miss one (three styles of a lamp all drawn as desk lamps fitted a table lamp at IoU
#: 0.15).
MAIN_CHOICES: tuple[str, ...] = ("kind", "layout", "shape", "style", "lid")


def main_choice(category: str, fixed: dict[str, Any] | None = None) -> tuple[str, tuple[Any, ...]] | None:
    """The category's main structural choice (``MAIN_CHOICES``) and its values, unless ``fixed`` sets it."""
    from seed3d import synth

    cat = synth.CATEGORIES[category]
    for name in MAIN_CHOICES:
        prm = cat.params.get(name)
        if prm is not None and prm.choices and not prm.is_finish and name not in (fixed or {}):
            return name, tuple(prm.choices)
    return None


def style_params(candidate: Candidate, style: int) -> dict[str, Any]:
    """``candidate``'s parameters for its ``style``-th try: its counts' parameters and, when the category has a
    main structural choice the counts leave open, that choice's ``style``-th value (cycling)."""
    params = dict(candidate.params)
    main = main_choice(candidate.category, params)
    if main is not None:
        name, values = main
        params[name] = values[style % len(values)]
    return params


@dataclass
class Candidate:
    """One candidate program: a category and the counts it is built with."""

    category: str
    counts: dict[str, int]
    params: dict[str, Any]
    """The category's parameters for ``counts`` (``count_params``)."""
    probability: float
    """The network's probability of the category times that of the counts."""


@dataclass
class ViewState:
    """A camera and the object's horizontal scale: what the fit adjusts for one candidate."""

    azimuth: float
    elevation: float
    focal_mm: float
    scale_width: float = 1.0
    scale_depth: float = 1.0

    def to_dict(self) -> dict[str, float]:
        """JSON form, rounded."""
        return {"azimuth_deg": round(self.azimuth, 2), "elevation_deg": round(self.elevation, 2),
                "focal_mm": round(self.focal_mm, 2), "scale_width": round(self.scale_width, 4),
                "scale_depth": round(self.scale_depth, 4)}


@dataclass
class FitResult:
    """The chosen candidate, its fitted view and every candidate's scores."""

    candidate: Candidate
    asset: Any
    """The chosen candidate's asset as built (unscaled)."""
    view: ViewState
    iou: float
    score: float
    edge: float
    colour: float
    size: dict[str, float]
    """Width and depth targets (meters) for ``build_program``'s size fit (empty: proportions not fitted)."""
    tried: list[dict[str, Any]]
    evaluations: int
    seconds: float
    stopped: str
    """Why the search stopped: done | evaluations | time."""
    style: int = 0
    """Which style won: the candidate built with the seed ``seed + style`` (0: the program's own seed)."""
    params: dict[str, Any] = field(default_factory=dict)
    """The parameters to build the program with (its counts; with another style, that style's structure)."""
    finishes: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """report.json's ``program.fit.render``."""
        return {"category": self.candidate.category, "counts": dict(self.candidate.counts), "style": self.style,
                "iou": round(self.iou, 4), "score": round(self.score, 4), "edge": round(self.edge, 4),
                "colour": round(self.colour, 4), "view": self.view.to_dict(),
                "size": {k: round(v, 4) for k, v in self.size.items()}, "candidates": self.tried,
                "evaluations": self.evaluations, "seconds": round(self.seconds, 3), "stopped": self.stopped,
                "finishes": {k: str(v) for k, v in self.finishes.items()}}


class _OutOfBudget(Exception):
    """Raised inside the objective when the evaluation or time budget is spent."""


# ---------------------------------------------------------------------------------------------- candidates


def candidate_programs(prediction: Any, config: FitConfig | None = None) -> list[Candidate]:
    """Candidate programs from an ``ImagePrediction``: top categories × every combination of the count heads' top
    classes, deduplicated by the parameters they build with, most probable first."""
    from seed3d.program.image import COUNT_HEADS, count_params

    cfg = config or FitConfig()
    probs = prediction.count_probabilities
    if not probs:
        raise InvalidInputError("the prediction has no count probabilities: make it with predict_batch")
    cats = [(c, p) for i, (c, p) in enumerate(prediction.categories[:cfg.top_categories])
            if i == 0 or p >= cfg.min_category_probability]
    seen: dict[tuple[str, str], Candidate] = {}
    for category, p_cat in cats:
        # each head's probabilities within the counts the category can have (a dresser read as having no drawers
        # tries its likeliest real drawer counts, not its minimum twice), renormalised
        heads = {}
        for head in COUNT_HEADS:
            p = np.asarray(probs[head], np.float64)
            span = count_range(category, head)
            if span is not None:
                inside = np.zeros_like(p)
                inside[span[0]:span[1] + 1] = p[span[0]:span[1] + 1]
                p = inside / inside.sum() if inside.sum() > 0 else p
            heads[head] = p
        classes = {}
        for head in COUNT_HEADS:
            p = heads[head]
            order = np.argsort(-p, kind="stable")[:cfg.count_alternatives]
            classes[head] = [int(c) for i, c in enumerate(order) if i == 0 or p[c] >= cfg.min_count_probability]
        variants: list[tuple[dict[str, int], float]] = []
        for combo in itertools.product(*(classes[h] for h in COUNT_HEADS)):
            counts = dict(zip(COUNT_HEADS, combo, strict=True))
            variants.append((counts, float(np.prod([heads[h][counts[h]] for h in COUNT_HEADS]))))
        for counts, p_counts in variants:
            params, _ = count_params(category, counts)
            key = (category, json.dumps(params, sort_keys=True, default=str))
            prob = float(p_cat) * p_counts
            if key not in seen or seen[key].probability < prob:
                seen[key] = Candidate(category, dict(counts), params, prob)
    ordered = sorted(seen.values(), key=lambda c: -c.probability)
    return ordered[:cfg.max_candidates]


def count_range(category: str, head: str) -> tuple[int, int] | None:
    """The counts of ``head`` (doors, drawers, lids) ``category`` can be built with, or None when the engine keeps
    its own (no parameter for it)."""
    from seed3d import synth

    cat = synth.CATEGORIES[category]
    if head == "lids":
        return (0, 1) if category == "trash_can" else None
    prm = cat.params.get(head)
    if prm is None or prm.lo is None:
        return None
    lo, hi = prm.bounds
    flag = next((f for f in (f"has_{head}", f"has_{head.rstrip('s')}") if f in cat.params), None)
    return (0 if flag else int(lo), int(hi))


def _size_names(category: str, dim: str) -> list[str]:
    from seed3d import synth
    from seed3d.program.text import SIZE_PARAMS

    cat = synth.CATEGORIES[category]
    return [n for n in SIZE_PARAMS[dim] if n in cat.params and cat.params[n].choices is None
            and cat.params[n].lo is not None and n != "scale"]


def scalable_axes(category: str) -> tuple[bool, bool, bool]:
    """(width scales, depth scales, both tied to one parameter) for ``category``: which horizontal proportions
    ``build_program``'s size fit can realise."""
    width, depth = _size_names(category, "width"), _size_names(category, "depth")
    tied = bool(width) and bool(depth) and width[0] == depth[0]
    return bool(width), bool(depth), tied


@dataclass
class _Scaling:
    """Which horizontal scales a candidate may take and within what bounds (its parameters' ranges)."""

    width: bool = False
    depth: bool = False
    tied: bool = False
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    """dim → (lowest, highest) factor its size parameter allows on the built value (width, depth, height)."""

    def bounds(self, dim: str) -> tuple[float, float]:
        """(lo, hi) of the width or depth scale relative to the height: what some height in range allows."""
        lo, hi = self.ranges.get(dim, (1.0, 1.0))
        h_lo, h_hi = self.ranges.get("height", (1.0, 1.0))
        return max(lo / h_hi, 0.3), min(hi / h_lo, 3.0)


def _scaling(category: str, asset: Any, allowed: bool = True) -> _Scaling:
    """The ``_Scaling`` of a built candidate (none unless ``allowed``)."""
    from seed3d import synth

    if not allowed:
        return _Scaling()
    width, depth, tied = scalable_axes(category)
    cat = synth.CATEGORIES[category]
    built = asset.metadata.get("params", {})
    ranges: dict[str, tuple[float, float]] = {}
    for dim in ("width", "depth", "height"):
        for name in _size_names(category, dim):
            value = built.get(name)
            if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
                prm = cat.params[name]
                lo, hi = prm.bounds
                ranges[dim] = (float(lo) / float(value), float(hi) / float(value))  # type: ignore[arg-type]
                break
    return _Scaling(width and "width" in ranges, depth and "depth" in ranges, tied, ranges)


# ------------------------------------------------------------------------------------------------ features


def _sobel(lum: np.ndarray) -> np.ndarray:
    p = np.pad(lum, 1, mode="edge")
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    return np.hypot(gx, gy)


def _blur(x: np.ndarray) -> np.ndarray:
    from scipy.ndimage import gaussian_filter

    return gaussian_filter(x.astype(np.float32), 1.0)


@dataclass
class _Input:
    alpha: np.ndarray
    rgb: np.ndarray
    inside: np.ndarray
    edges: np.ndarray


def _input_features(pre: Any) -> _Input:
    from scipy.ndimage import binary_erosion

    alpha = np.asarray(pre.alpha, np.float32)
    rgb = np.asarray(pre.rgb, np.float32)
    inside = binary_erosion(alpha > 0.5, iterations=2)
    mag = _sobel(_blur(rgb @ _LUMA)) * inside
    top = float(np.percentile(mag[inside], 98)) if inside.any() else 0.0
    edges = _blur(np.clip(mag / top, 0, 1) if top > 1e-6 else mag)
    return _Input(alpha, rgb, inside, edges)


def _line_drawing(part: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """Pixels where the part id changes or the surface folds by more than ~30 degrees (right or down neighbour)."""
    out = np.zeros(part.shape, bool)
    for dy, dx in ((0, 1), (1, 0)):
        a, b = part[:part.shape[0] - dy, :part.shape[1] - dx], part[dy:, dx:]
        na, nb = normal[:normal.shape[0] - dy, :normal.shape[1] - dx], normal[dy:, dx:]
        fold = np.einsum("ijk,ijk->ij", na, nb) < 0.87
        out[:part.shape[0] - dy, :part.shape[1] - dx] |= (a != b) | fold
    return out


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    den = math.sqrt(float((a * a).sum()) * float((b * b).sum()))
    return float((a * b).sum()) / den if den > 1e-12 else 0.0


def _explained_colour(rgb: np.ndarray, labels: np.ndarray) -> float:
    """Share of the colour variance of ``rgb`` (N, 3) explained by one mean colour per label."""
    total = float(((rgb - rgb.mean(0)) ** 2).sum())
    if total < 1e-8 or len(rgb) < 2:
        return 0.0
    inv = labels.astype(np.int64) + 1
    counts = np.maximum(np.bincount(inv), 1)
    sums = np.stack([np.bincount(inv, rgb[:, c], minlength=len(counts)) for c in range(3)], axis=1)
    means = sums / counts[:, None]
    within = float(((rgb - means[inv]) ** 2).sum())
    return 1.0 - within / total


# -------------------------------------------------------------------------------------------------- views


@dataclass
class RenderedView:
    """One candidate view, recentred into the input's frame."""

    alpha: np.ndarray
    """(S, S) coverage, cropped and resampled as ``preprocess_image`` crops an input."""
    part: np.ndarray
    """(S, S) part index (``asset.parts`` order; -1 off the object), nearest sample."""
    normal: np.ndarray
    """(S, S, 3) world normals, nearest sample."""


def _resample_alpha(alpha: np.ndarray, box: tuple[float, float, float, float], size: int) -> np.ndarray:
    """``alpha`` inside ``box`` resampled to (size, size) with Lanczos, zero outside the image: the crop
    ``preprocess_image`` makes of an input's alpha (``seed3d.condition.image._resample``)."""
    from PIL import Image

    h, w = alpha.shape
    x0, y0, x1, y1 = box
    margin = math.ceil(3.0 * max(1.0, (x1 - x0) / size)) + 1
    left, top = max(0, math.ceil(-x0) + margin), max(0, math.ceil(-y0) + margin)
    right, bottom = max(0, math.ceil(x1 - w) + margin), max(0, math.ceil(y1 - h) + margin)
    padded = np.pad(alpha.astype(np.float32), ((top, bottom), (left, right)))
    out = Image.fromarray(np.ascontiguousarray(padded), mode="F").resize(
        (size, size), Image.Resampling.LANCZOS, box=(x0 + left, y0 + top, x1 + left, y1 + top))
    return np.clip(np.asarray(out, np.float32), 0.0, 1.0)


class _Subject:
    """A built candidate ready to render under any ``ViewState``."""

    def __init__(self, asset: Any, renderer: Any, config: FitConfig, size: int) -> None:
        from seed3d.render import RenderMesh

        self.asset = asset
        self.mesh = RenderMesh.from_asset(asset)
        self.renderer = renderer
        self.config = config
        self.size = size

    def render(self, view: ViewState) -> RenderedView | None:
        """The view recentred like the input (None when the object leaves the frame entirely)."""
        from seed3d.condition.image import object_box
        from seed3d.render import RenderMesh, orbit_camera

        m = self.mesh
        vertices = m.vertices * np.array([view.scale_depth, view.scale_width, 1.0])
        mesh = RenderMesh(vertices, m.faces, m.face_part, m.materials, m.part_names)
        res = self.config.render_size
        fov = math.degrees(2 * math.atan(18.0 / view.focal_mm))  # 35 mm-equivalent: a 36 mm wide sensor
        cam = orbit_camera(mesh, view.azimuth, view.elevation, res, fov_deg=fov, margin=1.1)
        buf = self.renderer.render(mesh, cam, buffers=("mask", "part_id", "normal"))
        if not buf.mask.any():
            return None
        mask = buf.mask.astype(np.float32)
        box = object_box(mask, FIT_FILL)
        alpha = _resample_alpha(mask, box, self.size)
        x0, y0, x1, y1 = box
        centres = (np.arange(self.size) + 0.5) / self.size
        xs = np.floor(x0 + centres * (x1 - x0)).astype(np.int64)
        ys = np.floor(y0 + centres * (y1 - y0)).astype(np.int64)
        okx, oky = (xs >= 0) & (xs < res), (ys >= 0) & (ys < res)
        xi, yi = np.clip(xs, 0, res - 1), np.clip(ys, 0, res - 1)
        valid = oky[:, None] & okx[None, :]
        part = np.where(valid, buf.part_id[yi[:, None], xi[None, :]], -1)
        normal = np.where(valid[..., None], buf.normal[yi[:, None], xi[None, :]], 0.0)
        return RenderedView(alpha, part, normal.astype(np.float32))


def _score(inp: _Input, view: RenderedView | None, cfg: FitConfig) -> tuple[float, float, float, float]:
    """(score, IoU, edge agreement, colour agreement) of a rendered view against the input."""
    if view is None:
        return -1.0, 0.0, 0.0, 0.0
    a, b = inp.alpha, view.alpha
    union = float(np.maximum(a, b).sum())
    iou = float(np.minimum(a, b).sum()) / union if union > 0 else 0.0
    inside = inp.inside & (view.part >= 0) & (b > 0.5)
    edge = colour = 0.0
    if inside.sum() >= 16:
        lines = _blur(_line_drawing(view.part, view.normal) & inside)
        edge = _correlation(inp.edges[inside], lines[inside])
        colour = _explained_colour(inp.rgb[inside].astype(np.float64), view.part[inside])
    return iou + cfg.edge_weight * edge + cfg.colour_weight * colour, iou, edge, colour


# ------------------------------------------------------------------------------------------------- search


class _Search:
    """Counts evaluations against the budget and keeps each candidate's best view."""

    def __init__(self, inp: _Input, cfg: FitConfig, deadline: float) -> None:
        self.inp, self.cfg, self.deadline = inp, cfg, deadline
        self.evaluations = 0
        self.stopped = "done"

    def evaluate(self, subject: _Subject, view: ViewState) -> tuple[float, float, float, float]:
        """Score one view (raises ``_OutOfBudget`` when the budget is spent)."""
        if self.evaluations >= self.cfg.max_evaluations:
            self.stopped = "evaluations"
            raise _OutOfBudget
        if time.perf_counter() > self.deadline:
            self.stopped = "time"
            raise _OutOfBudget
        self.evaluations += 1
        return _score(self.inp, subject.render(view), self.cfg)


def _to_view(x: np.ndarray, axes: _Scaling) -> ViewState:
    az = float(x[0])
    el = float(np.clip(x[1], -30.0, 85.0))
    focal = float(np.clip(50.0 * math.exp(float(x[2])), 24.0, 120.0))
    k = 3
    sw = sd = 1.0
    if axes.tied and axes.width:
        sw = sd = float(np.clip(math.exp(float(x[k])), *axes.bounds("width")))
    else:
        if axes.width:
            sw = float(np.clip(math.exp(float(x[k])), *axes.bounds("width")))
            k += 1
        if axes.depth:
            sd = float(np.clip(math.exp(float(x[k])), *axes.bounds("depth")))
    return ViewState(az, el, focal, sw, sd)


def _to_vector(view: ViewState, axes: _Scaling) -> np.ndarray:
    x = [view.azimuth, view.elevation, math.log(view.focal_mm / 50.0)]
    if axes.tied and axes.width:
        x.append(math.log(view.scale_width))
    else:
        if axes.width:
            x.append(math.log(view.scale_width))
        if axes.depth:
            x.append(math.log(view.scale_depth))
    return np.asarray(x, np.float64)


@dataclass
class _Track:
    candidate: Candidate
    subject: _Subject
    axes: _Scaling
    view: ViewState
    best: tuple[float, float, float, float] = (-math.inf, 0.0, 0.0, 0.0)
    evaluations: int = 0
    style: int = 0
    params: dict[str, Any] = field(default_factory=dict)
    """The parameters the track's asset was built with (``style_params``)."""

    def total(self, cfg: FitConfig) -> float:
        return self.best[0] + cfg.prior_weight * math.log(max(self.candidate.probability, 1e-6))


def _nelder_mead(search: _Search, track: _Track, evaluations: int) -> None:
    """Refine ``track``'s view by Nelder–Mead for at most ``evaluations`` renders (its best view kept)."""
    from scipy.optimize import minimize

    x0 = _to_vector(track.view, track.axes)
    steps = np.array([12.0, 8.0, 0.3] + [0.15] * (len(x0) - 3))
    simplex = np.vstack([x0] + [x0 + np.eye(len(x0))[i] * steps[i] for i in range(len(x0))])

    def objective(x: np.ndarray) -> float:
        view = _to_view(x, track.axes)
        result = search.evaluate(track.subject, view)
        track.evaluations += 1
        if result[0] > track.best[0]:
            track.best, track.view = result, view
        return -result[0]

    with contextlib.suppress(_OutOfBudget):
        minimize(objective, x0, method="Nelder-Mead",
                 options={"maxfev": evaluations, "initial_simplex": simplex, "xatol": 0.05, "fatol": 1e-4})


def _coarse(search: _Search, track: _Track, cfg: FitConfig) -> None:
    """Try every coarse camera on ``track`` (its best kept)."""
    for el in cfg.elevations:
        for az in cfg.azimuths:
            view = ViewState(az, el, cfg.focal_mm)
            result = search.evaluate(track.subject, view)
            track.evaluations += 1
            if result[0] > track.best[0]:
                track.best, track.view = result, view


def fit_program(pre: Any, prediction: Any, seed: int = 0, config: FitConfig | None = None, renderer: Any = None,
                progress: Callable[[float, str], None] | None = None) -> FitResult:
    """Fit the candidate programs of ``prediction`` to the masked image ``pre`` by render-and-compare; the best
    total (score + prior) wins. ``seed`` is the seed the program will be built with."""
    from seed3d import synth

    cfg = config or FitConfig()
    if pre.method == "none":
        raise InvalidInputError("render-and-compare needs an object mask; this image had none (method 'none')")
    t0 = time.perf_counter()
    search = _Search(_input_features(pre), cfg, t0 + cfg.budget_s)
    candidates = candidate_programs(prediction, cfg)
    size = int(np.asarray(pre.alpha).shape[0])
    own = renderer is None
    if own:
        from seed3d.render import get_renderer

        renderer = get_renderer()
    tracks: list[_Track] = []
    failed: list[dict[str, Any]] = []
    try:
        camera_of: dict[str, ViewState] = {}
        jobs = [(cand, k) for cand in candidates for k in range(cfg.styles)]
        for i, (cand, k) in enumerate(jobs):
            if progress:
                progress(0.6 * i / len(jobs), f"trying {cand.category} {cand.counts} style {k}")
            params = style_params(cand, k)
            try:
                try:
                    asset = synth.generate(cand.category, seed + k, params)
                except Seed3DError:  # the main choice cannot go with these counts: the seed's own draw
                    params = dict(cand.params)
                    asset = synth.generate(cand.category, seed + k, params)
            except Seed3DError as exc:
                failed.append({"category": cand.category, "counts": cand.counts, "style": k, "error": str(exc)})
                continue
            # the coarse camera search runs once per category and main choice (a camera fitted to a table lamp
            # is a poor start for a desk lamp's few evaluations)
            main = main_choice(cand.category)
            shape_key = json.dumps([cand.category, None if main is None else params.get(main[0])], default=str)
            track = _Track(cand, _Subject(asset, renderer, cfg, size), _scaling(cand.category, asset),
                           camera_of.get(shape_key, ViewState(0.0, 20.0, cfg.focal_mm)), style=k, params=params)
            tracks.append(track)
            try:
                if shape_key not in camera_of:
                    _coarse(search, track, cfg)
                    camera_of[shape_key] = track.view
                else:
                    track.best = search.evaluate(track.subject, track.view)
                    track.evaluations += 1
            except _OutOfBudget:
                break
            _nelder_mead(search, track, cfg.explore_evaluations)
            if search.stopped != "done":
                break
        scored = [t for t in tracks if t.best[0] > -math.inf]
        if not scored:
            raise InvalidInputError("no candidate program could be built or rendered: "
                                    + "; ".join(f"{f['category']}: {f['error']}" for f in failed))
        if search.stopped == "done":
            for j, track in enumerate(sorted(scored, key=lambda t: -t.total(cfg))[:cfg.refine_top]):
                if progress:
                    progress(0.6 + 0.4 * j / cfg.refine_top, f"refining {track.candidate.category}")
                _nelder_mead(search, track, cfg.refine_evaluations)
                if search.stopped != "done":
                    break
        best = max(scored, key=lambda t: t.total(cfg))
    finally:
        if own:
            renderer.close()
    tried = [{"category": t.candidate.category, "counts": t.candidate.counts, "style": t.style,
              "probability": round(t.candidate.probability, 4), "score": round(t.best[0], 4),
              "iou": round(t.best[1], 4), "edge": round(t.best[2], 4), "colour": round(t.best[3], 4),
              "total": round(t.total(cfg), 4), "evaluations": t.evaluations, "view": t.view.to_dict()}
             for t in scored] + failed
    sizes = _size_targets(best)
    log.info("fit: %s %s style %d IoU %.3f after %d renders (%s)", best.candidate.category, best.candidate.counts,
             best.style, best.best[1], search.evaluations, search.stopped)
    return FitResult(best.candidate, best.subject.asset, best.view, best.best[1], best.best[0], best.best[2],
                     best.best[3], sizes, tried, search.evaluations, time.perf_counter() - t0, search.stopped,
                     style=best.style, params=_style_params(best))


def _style_params(track: _Track) -> dict[str, Any]:
    """The parameters to build the winner with at the program's seed: its counts, and for a style drawn from
    another seed every structural parameter of that build (finishes and per-part lists left to the seed)."""
    from seed3d import synth

    if track.style == 0:
        return dict(track.params)
    cat = synth.CATEGORIES[track.candidate.category]
    built = track.subject.asset.metadata["params"]
    out = {k: v for k, v in built.items()
           if k in cat.params and not cat.params[k].is_finish and not isinstance(v, list)}
    return {**out, **track.params}


def fit_view(pre: Any, asset: Any, config: FitConfig | None = None, renderer: Any = None, scale: bool = False,
             category: str | None = None) -> tuple[ViewState, tuple[float, float, float, float], int]:
    """The best view of one ``asset`` against the masked image ``pre``: the coarse camera grid, then Nelder–Mead on
    the camera (and the horizontal scales ``category`` allows, with ``scale``) for ``refine_evaluations``.
    Returns (view, (score, IoU, edge, colour), renders)."""
    cfg = config or FitConfig()
    search = _Search(_input_features(pre), cfg, time.perf_counter() + cfg.budget_s)
    own = renderer is None
    if own:
        from seed3d.render import get_renderer

        renderer = get_renderer()
    try:
        axes = _scaling(category, asset, bool(scale and category))
        track = _Track(Candidate(category or "", {}, {}, 1.0), _Subject(asset, renderer, cfg,
                                                                        int(np.asarray(pre.alpha).shape[0])),
                       axes, ViewState(0.0, 20.0, cfg.focal_mm))
        with contextlib.suppress(_OutOfBudget):
            _coarse(search, track, cfg)
        _nelder_mead(search, track, cfg.refine_evaluations)
    finally:
        if own:
            renderer.close()
    return track.view, track.best, search.evaluations


def view_score(pre: Any, asset: Any, view: ViewState, config: FitConfig | None = None, renderer: Any = None
               ) -> tuple[float, float, float, float]:
    """(score, IoU, edge, colour) of ``asset`` seen from ``view`` against the masked image ``pre``."""
    cfg = config or FitConfig()
    own = renderer is None
    if own:
        from seed3d.render import get_renderer

        renderer = get_renderer()
    try:
        rendered = _Subject(asset, renderer, cfg, int(np.asarray(pre.alpha).shape[0])).render(view)
    finally:
        if own:
            renderer.close()
    return _score(_input_features(pre), rendered, cfg)


def _size_targets(track: _Track) -> dict[str, float]:
    """Width, depth and height (meters) that give the fitted proportions within the category's ranges: the built
    size times the fitted scales and one overall factor, the one nearest 1 that keeps every dimension in range
    (empty when the fit moved no proportion)."""
    axes = track.axes
    if not (axes.width or axes.depth):
        return {}
    size = track.subject.asset.metadata["attributes"]["size_m"]
    rel = {"width": track.view.scale_width if axes.width else 1.0,
           "depth": track.view.scale_depth if axes.depth else 1.0, "height": 1.0}
    lo, hi = 0.0, math.inf
    for dim, (r_lo, r_hi) in axes.ranges.items():
        lo, hi = max(lo, r_lo / rel[dim]), min(hi, r_hi / rel[dim])
    k = min(max(1.0, lo), hi) if lo <= hi else math.sqrt(lo * hi)
    return {dim: round(float(size[dim]) * rel[dim] * k, 4) for dim in ("width", "depth", "height")
            if dim in axes.ranges}


# ------------------------------------------------------------------------------------------------ finishes


def _material_key(value: Any) -> str:
    kind, _, colour = str(value).partition(":")
    return f"{kind}_{colour.replace(' ', '_').replace('-', '_')}"


def _finish_parts(category: str, seed: int, params: dict[str, Any]) -> tuple[Any, dict[str, list[int]]]:
    """The asset built with every ``MATCH_FLAGS`` flag it reads turned off, and the parts each finish parameter
    paints (by material; parameters that share a finish are told apart by rebuilding with one changed)."""
    from seed3d import synth
    from seed3d.synth.materials import PALETTES

    cat = synth.CATEGORIES[category]
    built = synth.generate(category, seed, dict(params))
    given = {k: v for k, v in built.metadata["params"].items()}
    given.update({flag: False for flag in MATCH_FLAGS if given.get(flag) is True})
    asset = synth.generate(category, seed, given)
    values = {k: v for k, v in asset.metadata["params"].items() if k in cat.params and cat.params[k].is_finish}
    names = [p.material.name for p in asset.parts]
    owners: dict[str, list[int]] = {k: [i for i, n in enumerate(names) if n == _material_key(v)]
                                    for k, v in values.items()}
    shared = {k for k, v in values.items() if sum(_material_key(w) == _material_key(v) for w in values.values()) > 1}
    used = {_material_key(v) for v in values.values()}
    for name in sorted(shared):
        kind = (cat.params[name].finish_kinds or ("plastic",))[0]
        probe = next((f"{kind}:{c}" for c in PALETTES[kind] if _material_key(f"{kind}:{c}") not in used), None)
        if probe is None:
            continue
        changed = synth.generate(category, seed, {**given, name: probe})
        owners[name] = [i for i, p in enumerate(changed.parts) if i < len(names) and p.material.name != names[i]]
    return asset, {k: v for k, v in owners.items() if v}


#: Finish kinds painted in any colour: beyond their palettes, an image may show them in a plain colour word.
PAINTED_KINDS = ("painted_wood", "painted_metal", "plastic", "ceramic", "fabric")
#: Added to the distance of a plain colour word outside the kind's palette (the palettes are likelier).
OFF_PALETTE_COST = 0.02
#: Weight of the log-brightness difference beside the chromaticity difference (shading darkens, it does not tint).
BRIGHTNESS_WEIGHT = 0.01


def _linear(rgb: np.ndarray) -> np.ndarray:
    rgb = np.asarray(rgb, np.float64)
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def colour_distance(seen: np.ndarray, finish_rgb: np.ndarray) -> float:
    """How far an image colour is from a finish's colour: chromaticity (linear RGB over its sum) first, brightness
    (log of the sum) weighted by ``BRIGHTNESS_WEIGHT``, so a shaded red stays red rather than turning mahogany."""
    a, b = _linear(seen), _linear(finish_rgb)
    la, lb = float(a.sum()) + 1e-3, float(b.sum()) + 1e-3
    return float(np.sum((a / la - b / lb) ** 2) + BRIGHTNESS_WEIGHT * (np.log(la) - np.log(lb)) ** 2)


#: Largest chromaticity difference (``colour_distance`` without brightness) of two parts read as one finish lit
#: differently, within ``SHADE_RATIO`` in brightness.
SAME_HUE = 0.002
SHADE_RATIO = 3.0


def _same_hue(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two image colours are one finish in light and in shade: the same chromaticity, brightness within
    ``SHADE_RATIO``."""
    la, lb = _linear(a), _linear(b)
    sa, sb = float(la.sum()) + 1e-3, float(lb.sum()) + 1e-3
    return float(np.sum((la / sa - lb / sb) ** 2)) <= SAME_HUE and max(sa, sb) / min(sa, sb) <= SHADE_RATIO


def nearest_finish(category: str, param: str, colour: np.ndarray) -> str:
    """The ``kind:colour`` of ``param``'s kinds nearest to an sRGB ``colour`` (``colour_distance``): its palettes,
    and for painted kinds the plain colour words too (at ``OFF_PALETTE_COST``)."""
    from seed3d import synth
    from seed3d.synth.materials import COLOURS, PALETTES

    prm = synth.CATEGORIES[category].params[param]
    kinds = list(dict.fromkeys(prm.finish_kinds or ()))
    pairs = [(kind, name, PALETTES[kind][name], 0.0) for kind in kinds for name in PALETTES[kind]
             if prm.finish_colours is None or name in prm.finish_colours] or \
            [(kind, name, PALETTES[kind][name], 0.0) for kind in kinds for name in PALETTES[kind]]
    if prm.finish_colours is None:
        named = {n for pal in PALETTES.values() for n in pal}
        plain = {n: c for n, c in COLOURS.items() if n not in named or any(n in PALETTES[k] for k in PAINTED_KINDS)}
        pairs += [(kind, name, rgb, OFF_PALETTE_COST) for kind in kinds if kind in PAINTED_KINDS
                  for name, rgb in plain.items() if name not in PALETTES[kind]]
    seen = np.asarray(colour, np.float64)
    kind, name, _, _ = min(pairs, key=lambda p: colour_distance(seen, np.asarray(p[2])) + p[3])
    return f"{kind}:{name}"


def read_part_finishes(pre: Any, fit: FitResult, seed: int = 0, config: FitConfig | None = None,
                       renderer: Any = None) -> tuple[dict[str, Any], list[str]]:
    """Finish parameters read off the image at the fitted view: for each finish parameter whose parts show at
    least ``min_part_pixels`` clean input pixels, the nearest finish to their median colour; flags of
    ``MATCH_FLAGS`` set by whether the part reads like the one it follows. Returns (params, notes)."""
    from scipy.ndimage import maximum_filter, minimum_filter

    cfg = config or FitConfig()
    category = fit.candidate.category
    asset, owners = _finish_parts(category, seed, fit.params or fit.candidate.params)
    if not owners:
        return {}, []
    own = renderer is None
    if own:
        from seed3d.render import get_renderer

        renderer = get_renderer()
    try:
        view = _Subject(asset, renderer, cfg, int(np.asarray(pre.alpha).shape[0])).render(fit.view)
    finally:
        if own:
            renderer.close()
    if view is None:
        return {}, []
    part = view.part
    clean = (minimum_filter(part, 3) == maximum_filter(part, 3)) & (np.asarray(pre.alpha) > 0.9) & (part >= 0)
    rgb = np.asarray(pre.rgb, np.float64)
    read: dict[str, str] = {}
    seen: dict[str, str] = {}
    medians: dict[str, tuple[np.ndarray, int]] = {}
    for name, parts in owners.items():
        sel = clean & np.isin(part, parts)
        if int(sel.sum()) < cfg.min_part_pixels:
            continue
        colour = np.median(rgb[sel], axis=0)
        medians[name] = (colour, int(sel.sum()))
        read[name] = nearest_finish(category, name, colour)
        seen[name] = "#" + "".join(f"{round(float(c) * 255):02x}" for c in np.clip(colour, 0, 1)) + \
            f", {int(sel.sum())} px"
    if not read:
        return {}, []
    from seed3d import synth

    cat = synth.CATEGORIES[category]
    params: dict[str, Any] = {}
    followers = {dep for flag, (dep, _) in MATCH_FLAGS.items() if flag in cat.params}
    for name, value in read.items():
        if name not in followers:
            params[name] = value
    for flag, (dep, ref) in MATCH_FLAGS.items():
        if flag not in cat.params or dep not in read:
            continue
        same = ref in read and (read[ref] == read[dep] or (
            read[ref].split(":")[0] == read[dep].split(":")[0] and _same_hue(medians[ref][0], medians[dep][0])))
        params[flag] = same
        if not same:
            params[dep] = read[dep]
        elif read[ref] != read[dep] and ref in params and medians[dep][1] > medians[ref][1]:
            params[ref] = read[dep]  # one finish, lit differently (a red front, its shaded side): the larger view's
    notes = ["finishes read off the image: " + ", ".join(f"{k} {v} ({seen[k]})" for k, v in read.items())]
    return params, notes


__all__ = ["FIT_FILL", "MATCH_FLAGS", "Candidate", "FitConfig", "FitResult", "RenderedView", "ViewState",
           "candidate_programs", "colour_distance", "fit_program", "fit_view", "nearest_finish",
           "read_part_finishes", "scalable_axes", "view_score"]
