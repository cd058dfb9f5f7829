"""Paint an asset's parts from the words of its prompt: "an oak cabinet with brass handles" gives oak (with its
grain) on the body, doors and drawers and brass on the handles, and the physical materials follow (wood's
density and friction, brass's).

The words are read by the text parser (``seed3d.program.text.parse_text``): its finishes are the parameters a
material or colour sets (``body_finish``, ``handle_finish``, ``leg_finish``…). Each part takes the finish its label
names (``FINISH_ROLES``: a handle the handle finish, a leg the leg finish); a part whose own finish the words do
not give takes the object's main one, except fittings (handles, knobs, buttons, wheels, bulbs, screens, spouts),
which keep the paint they had. A painted part gets box-projected UVs and the finish's own textures, as the
procedural engine paints its parts.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import Any

from seed3d.asset import PART_LABELS, Asset
from seed3d.program.text import FINISH_ROLES, Program, parse_text

log = logging.getLogger(__name__)

#: Labels that keep their paint unless the words name them ("brass handles"): the main finish is not theirs.
FITTING_LABELS: frozenset[str] = frozenset({"handle", "knob", "button", "wheel", "bulb", "screen", "spout", "lever",
                                            "keyboard", "tray", "other"})
#: Finish parameters that count as the object's main finish, in order of preference.
MAIN_FINISHES: tuple[str, ...] = ("body_finish", "top_finish", "seat_finish", "frame_finish", "base_finish")


#: Finish kinds whose look is their pattern (grain, brushing, polish, veining): painted even when the words give
#: no colour ("a wooden chair" gets oak). Others ("a plastic stool") keep the paint they had and change only their
#: physical material, unless the words give the colour ("a red plastic stool").
PATTERNED_KINDS: frozenset[str] = frozenset({"wood", "brushed_metal", "chrome", "stone"})


def _colour_stated(program: Program, param: str) -> bool:
    """Whether the words that set ``param`` name its colour ("red plastic", "oak", "brass"), not only a kind."""
    from seed3d.program.text import MATERIALS
    from seed3d.synth.materials import COLOURS

    for line in program.placed:
        phrase, _, target = line.partition(" → ")
        if target.split("=")[0] != param:
            continue
        words = f" {' '.join(re.findall(r'[a-z]+', phrase.lower()))} "
        if any(f" {c} " in words for c in COLOURS) or any(f" {m} " in words and MATERIALS[m][1] for m in MATERIALS):
            return True
    return False


def label_finishes(program: Program) -> dict[str, tuple[Any, bool]]:
    """Part label → (the finish (``seed3d.synth.materials.Finish``) the program's words give it, whether to paint
    it or only take its physical material); ``"*"`` is the main finish, for parts whose label the words do not
    name."""
    from seed3d.synth.materials import Finish

    given = {k: (v, v.kind in PATTERNED_KINDS or _colour_stated(program, k)) for k, v in program.params.items()
             if isinstance(v, Finish)}
    out: dict[str, Any] = {}
    for noun, param in FINISH_ROLES.items():
        if noun in PART_LABELS and param in given:
            out.setdefault(noun, given[param])
    main = next((given[p] for p in MAIN_FINISHES if p in given), None)
    if main is not None:
        out["*"] = main
    return out


def paint_parts(asset: Asset, text: str | None, seed: int = 0) -> tuple[Asset, dict[str, str]]:
    """``asset`` with the parts the words of ``text`` give a finish painted in it (visual and physical), and
    {part name: ``kind:colour``, or ``physical:<name>`` where only the physical material changed}. Words that name
    no object the parser knows ("a rubber duck") and parts the words say nothing of are left as they were; a
    changed part's inertial is dropped so that the physics step computes it from the new density."""
    from seed3d.synth.core import rng_for
    from seed3d.synth.materials import pbr_material, physical_material, physical_name
    from seed3d.synth.primitives import box_uv

    if not text or not text.strip():
        return asset, {}
    program = parse_text(text, seed=seed)
    finishes = label_finishes(program) if program.category is not None else {}
    if not finishes:
        return asset, {}
    painted: dict[str, str] = {}
    parts = []
    for part in asset.parts:
        got = finishes.get(part.label)
        if got is None and part.label not in FITTING_LABELS:
            got = finishes.get("*")
        if got is None:
            parts.append(part)
            continue
        fin, visual = got
        physical = physical_material(physical_name(fin))
        if not visual:
            parts.append(dataclasses.replace(part, physical=physical, inertial=None))
            painted[part.name] = f"physical:{physical.name}"
            continue
        extent = float(max(part.mesh.bounds[1] - part.mesh.bounds[0]))
        size = 128 if extent > 0.45 else 64
        rng = rng_for("paint", seed, f"{fin.kind}/{fin.colour}/{size}")
        parts.append(dataclasses.replace(part, mesh=box_uv(part.mesh), material=pbr_material(fin, rng, size),
                                         physical=physical, inertial=None))  # inertial: from the new density
        painted[part.name] = f"{fin.kind}:{fin.colour}"
    log.info("painted %d of %d parts from the words %r", len(painted), len(asset.parts), text)
    out = dataclasses.replace(asset, parts=parts, metadata={**asset.metadata, "painted": painted})
    return out, painted


__all__ = ["FITTING_LABELS", "MAIN_FINISHES", "PATTERNED_KINDS", "label_finishes", "paint_parts"]
