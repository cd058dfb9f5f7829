"""Physics stage: collision hulls and mass properties for every part (``prepare``), materials, validation.

``prepare(asset)`` returns a copy whose parts all have convex collision hulls (``collision.decompose``)
and an ``Inertial`` (``inertia.compute_inertial`` from the part mesh × its physical material's density).
What had to be approximated (hull fallbacks, inertials from hulls, clamped tiny parts) is listed in
``asset.metadata["physics"]["warnings"]``, with the hull count and method per part beside it.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from seed3d.asset import Asset, Part
from seed3d.errors import InvalidInputError
from seed3d.physics.collision import CollisionConfig, CollisionResult, decompose, hull_problems
from seed3d.physics.inertia import compute_inertial, inertia_problems
from seed3d.physics.materials import MATERIALS, get_material
from seed3d.typed import ProgressCallback

logger = logging.getLogger(__name__)


__all__ = [
    "MATERIALS", "CollisionConfig", "CollisionResult", "PhysicsConfig", "ProgressCallback", "compute_inertial",
    "decompose", "get_material", "hull_problems", "inertia_problems", "prepare",
]


@dataclass
class PhysicsConfig:
    """Settings of the physics stage."""

    collision: CollisionConfig = field(default_factory=CollisionConfig)
    """Convex decomposition settings (hull caps, CoACD parameters, cache)."""
    min_thickness: float = 1e-3
    """Flat parts are treated as at least this thick (meters) when computing mass properties."""
    collision_budget: float = 60.0
    """Seconds the convex decomposition may take over all parts of one ``prepare`` call: each part gets at most
    ``collision.time_budget`` and no more than what is left of this, though at least ``MIN_PART_BUDGET``; a part
    whose CoACD overruns its share gets the box fallback (``collision.box_decomposition``). 0: no asset budget.
    Wall-clock seconds: with several ``workers`` the parts share it side by side."""
    workers: int = 0
    """Parts decomposed side by side (each CoACD run is a child process of its own, on one core): 0 = one per
    usable CPU, at most ``MAX_WORKERS``; 1 = one part after another."""

    def __post_init__(self) -> None:
        if not float(self.collision_budget) >= 0:
            raise InvalidInputError(f"collision_budget must be ≥ 0 seconds, got {self.collision_budget}")
        if int(self.workers) < 0:
            raise InvalidInputError(f"workers must be ≥ 0 (0: one per CPU), got {self.workers}")

    def resolved_workers(self) -> int:
        """How many parts are decomposed side by side."""
        if self.workers > 0:
            return int(self.workers)
        try:
            cpus = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            cpus = os.cpu_count() or 1
        return max(1, min(MAX_WORKERS, cpus))


#: Most parts decomposed side by side by default (``PhysicsConfig.workers`` = 0).
MAX_WORKERS = 4


#: The least time (s) CoACD gets on a part once an asset's collision budget is spent (small parts finish in it).
MIN_PART_BUDGET = 1.0


def _part_collision_config(cfg: PhysicsConfig, spent: float) -> CollisionConfig:
    """The collision settings of the next part: its time budget cut to what is left of the asset's (``spent``:
    wall-clock seconds since the first part started)."""
    if cfg.collision_budget <= 0:
        return cfg.collision
    left = max(MIN_PART_BUDGET, cfg.collision_budget - spent)
    own = cfg.collision.time_budget
    return dataclasses.replace(cfg.collision, time_budget=min(own, left) if own > 0 else left)


def _prefix(part: str, kind: str) -> str:
    return f"part {part!r} {kind}: "


def prepare(asset: Asset, config: PhysicsConfig | None = None, force: bool = False,
            progress: ProgressCallback | None = None) -> Asset:
    """A copy of ``asset`` whose parts all have collision hulls and inertials.

    Parts that already have them keep them unless ``force``. ``progress(fraction, message)`` is called
    as parts are processed. ``metadata["physics"]`` gets ``warnings`` (strings starting with
    ``part '<name>' collision: `` or ``part '<name>' inertial: ``; earlier warnings about what is not
    recomputed are kept), ``hulls`` (count per part) and ``methods`` (how each part's hulls were made:
    convex, coacd, hull, boxes, or given); the decomposition of all parts together is held to
    ``config.collision_budget`` seconds; a ``clearance`` entry (``collision.clear_moving_parts``) is kept unless
    ``force``.
    """
    cfg = config or PhysicsConfig()
    out = asset.copy()
    previous = dict(out.metadata.get("physics") or {})
    old_warnings = [str(w) for w in previous.get("warnings", [])]
    old_methods = dict(previous.get("methods", {}))
    warnings: list[str] = []
    hulls: dict[str, int] = {}
    methods: dict[str, str] = {}
    n = len(out.parts)
    todo = [part for part in out.parts if force or not part.collision]
    results = _decompose_parts(todo, cfg, lambda f, m: progress(0.8 * f, m) if progress else None)
    for index, part in enumerate(out.parts):
        col_prefix, in_prefix = _prefix(part.name, "collision"), _prefix(part.name, "inertial")
        if part.name in results:
            result = results[part.name]
            part.collision = result.hulls
            methods[part.name] = result.method
            warnings.extend(col_prefix + w for w in dict.fromkeys(result.warnings))
            logger.info("%s: %d hulls (%s) in %.2f s%s", part.name, len(result.hulls), result.method,
                        result.seconds, " (cached)" if result.cached else "")
        else:
            methods[part.name] = str(old_methods.get(part.name, "given"))
            warnings.extend(w for w in old_warnings if w.startswith(col_prefix))
        if force or part.inertial is None:
            if progress is not None:
                progress(0.8 + 0.2 * index / n, f"mass properties of {part.name}")
            notes: list[str] = []
            part.inertial = compute_inertial(part.mesh, part.physical.density, notes,
                                             min_thickness=cfg.min_thickness)
            if part.watertight and part.inertial.source == "hull":
                notes.append("the asset marks this part watertight but its mesh is not closed")
            warnings.extend(in_prefix + w for w in dict.fromkeys(notes))
        else:
            kept = [w for w in old_warnings if w.startswith(in_prefix)]
            problems = inertia_problems(part.inertial.mass, part.inertial.com, part.inertial.inertia)
            kept += [in_prefix + f"given inertial: {p}" for p in problems if in_prefix + f"given inertial: {p}"
                     not in kept]
            warnings.extend(kept)
        hulls[part.name] = len(part.collision)
    out.metadata["physics"] = {"warnings": warnings, "hulls": hulls, "methods": methods}
    if "clearance" in previous and not force:  # hulls kept, so what clearing them did still holds
        out.metadata["physics"]["clearance"] = previous["clearance"]
    if progress is not None:
        progress(1.0, "physics ready")
    return out


def _decompose_parts(parts: list[Part], cfg: PhysicsConfig, progress: ProgressCallback) -> dict[str, CollisionResult]:
    """Each part's ``decompose`` result by name, ``cfg.resolved_workers()`` parts side by side, all held to
    ``cfg.collision_budget`` wall-clock seconds; ``progress(fraction, message)`` from this thread as parts finish."""
    results: dict[str, CollisionResult] = {}
    if not parts:
        return results
    start = time.perf_counter()

    def one(part: Part) -> CollisionResult:
        return decompose(part.mesh, _part_collision_config(cfg, time.perf_counter() - start))

    workers = min(cfg.resolved_workers(), len(parts))
    progress(0.0, f"collision hulls of {len(parts)} parts, {workers} at a time")
    with ThreadPoolExecutor(workers, thread_name_prefix="seed3d-collision") as pool:
        running: dict[Future[CollisionResult], str] = {pool.submit(one, part): part.name for part in parts}
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                results[running.pop(future)] = future.result()
            progress(len(results) / len(parts), f"collision hulls of {len(results)} of {len(parts)} parts")
    return results
