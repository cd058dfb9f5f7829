"""Program inference: an object's program (synth category + every structural parameter) from text and/or an
image, fitted and built by the procedural engine, so parts and joints are exact.

``parse_text`` reads a prompt (``seed3d.program.text``); ``build_program`` builds a ``Program`` with
``seed3d.synth.generate`` and fits its stated measurements by rescaling the category's size parameters.
Inference from images (a network trained on the engine's renders, then render-and-compare) is not built yet.
"""

from __future__ import annotations

import logging
from typing import Any

from seed3d.asset import Asset
from seed3d.errors import InvalidInputError
from seed3d.program.text import LONG_SIDE_PARAMS, SIZE_PARAMS, Program, parse_text

log = logging.getLogger(__name__)

#: Relative size error the fit stops at, and the most rebuilds it tries.
FIT_TOLERANCE = 0.02
FIT_ROUNDS = 3


def _extent(asset: Asset) -> dict[str, float]:
    size = asset.metadata["attributes"]["size_m"]
    return {"width": float(size["width"]), "depth": float(size["depth"]), "height": float(size["height"])}


def _targets(stated: dict[str, float], extent: dict[str, float]) -> dict[str, float]:
    """Stated measurements on the asset's dimensions ("length" is the longer horizontal side, "longest" the
    longest side; a width stated beside a longer length is the shorter horizontal side: a bath "170 long x 70
    wide")."""
    out = {k: v for k, v in stated.items() if k in ("width", "depth", "height")}
    if "length" in stated:
        long_side = "width" if extent["width"] >= extent["depth"] else "depth"
        if long_side == "width" and "depth" not in out and out.get("width", float("inf")) < stated["length"]:
            out["depth"] = out.pop("width")
        out.setdefault(long_side, stated["length"])
    if "longest" in stated:
        out.setdefault(max(extent, key=extent.__getitem__), stated["longest"])
    return out


def _fit_sizes(category: str, seed: int, given: dict[str, Any], targets: dict[str, float],
               fixed: set[str]) -> tuple[Asset, list[str]]:
    """Rescale the category's continuous size parameters (not those in ``fixed``) towards ``targets``: the asset
    built and the parameters that reached the end of their range."""
    from seed3d import synth

    cat = synth.CATEGORIES[category]
    asset = synth.generate(category, seed, given)
    values = dict(asset.metadata["params"])
    clamped: list[str] = []
    for _ in range(FIT_ROUNDS):
        extent = _extent(asset)
        errors = {d: extent[d] / t - 1.0 for d, t in targets.items() if extent[d] > 0}
        if all(abs(e) <= FIT_TOLERANCE for e in errors.values()):
            break
        changed = False
        for dim, target in targets.items():
            for name in SIZE_PARAMS[dim]:
                prm = cat.params.get(name)
                if prm is None or name not in values or prm.choices is not None or extent[dim] <= 0:
                    continue
                if name in fixed:
                    continue  # a parameter the caller set is not refitted
                if name in LONG_SIDE_PARAMS and extent[dim] < max(extent["width"], extent["depth"]):
                    continue  # "length" runs along the longer horizontal side only
                lo, hi = prm.bounds
                want = float(values[name]) * target / extent[dim]
                new = min(max(want, float(lo)), float(hi))  # type: ignore[arg-type]
                if abs(new - want) > 1e-9 and name not in clamped:
                    clamped.append(name)
                if abs(new - float(values[name])) > 1e-9:
                    values[name] = new
                    given[name] = new
                    changed = True
                break  # one parameter per dimension
        if not changed:
            break
        asset = synth.generate(category, seed, given)
    return asset, clamped


def _worst_error(asset: Asset, targets: dict[str, float]) -> float:
    extent = _extent(asset)
    return max((abs(extent[d] / t - 1.0) for d, t in targets.items() if extent[d] > 0), default=0.0)


def _discrete_size_params(category: str, taken: set[str]) -> list[str]:
    """Structural choices drawn up front that may change the size ("size" of a bed: single … king), not set."""
    from seed3d import synth

    out = []
    for name, prm in synth.CATEGORIES[category].params.items():
        if name in taken or prm.is_finish or prm.draw != "upfront" or prm.choices is None:
            continue
        values = list(dict.fromkeys(prm.choices))
        if 1 < len(values) <= 6 and not all(isinstance(v, bool) for v in values):
            out.append(name)
    return out


def build_program(program: Program, seed: int = 0, params: dict[str, Any] | None = None) -> Asset:
    """Build ``program`` (its params, then ``params`` over them) and fit its stated size; the asset's metadata
    gets ``program`` (the program, with every parameter the build read and the fit's result). The fit rescales
    the category's continuous size parameters; when that leaves a stated size more than twice the tolerance off,
    the structural choices that were drawn (a bed's size, a counter's layout) are tried too, the closest kept."""
    from seed3d import synth

    if program.category is None:
        raise InvalidInputError("the program has no category: " + "; ".join(program.notes or ["nothing to build"]))
    cat = synth.CATEGORIES[program.category]
    given = {**program.params, **cat.check_params(params)}
    asset = synth.generate(program.category, seed, given)
    fit: dict[str, Any] = {}
    if program.size:
        targets = _targets(program.size, _extent(asset))
        fixed = set(params or ())
        start = dict(given)
        asset, clamped = _fit_sizes(program.category, seed, given, targets, fixed)
        if _worst_error(asset, targets) > 2 * FIT_TOLERANCE:
            for name in _discrete_size_params(program.category, set(start) | fixed):
                best = (_worst_error(asset, targets), None)
                for value in dict.fromkeys(cat.params[name].choices or ()):
                    trial = synth.generate(program.category, seed, {**start, name: value})
                    best = min(best, (_worst_error(trial, targets), value), key=lambda b: b[0])
                if best[1] is not None:
                    start[name] = best[1]
                    given = dict(start)
                    asset, clamped = _fit_sizes(program.category, seed, given, targets, fixed)
                    program.placed.append(f"size: {name}={best[1]} comes closest to the stated size")
        extent = _extent(asset)
        fit = {"target": {d: round(t, 4) for d, t in targets.items()},
               "built": {d: round(extent[d], 4) for d in targets},
               "error": {d: round(extent[d] / t - 1.0, 4) for d, t in targets.items()}}
        if clamped:
            fit["clamped"] = clamped
            program.notes.append(f"size: {', '.join(clamped)} reached the end of the {program.category}'s range; "
                                 f"built {', '.join(f'{d} {extent[d]:.2f} m' for d in targets)}")
    doc = program.to_dict()
    doc["params"] = dict(asset.metadata["params"])
    doc["given"] = sorted(given)
    if fit:
        doc["fit"] = fit
    asset.metadata["program"] = doc
    return asset


__all__ = ["FIT_ROUNDS", "FIT_TOLERANCE", "Program", "build_program", "parse_text"]
