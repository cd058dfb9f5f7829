"""What a scene leaves out of its sentence, or builds as a stand-in, with the reason: one entry per noun or object.

A scene reports them under ``report["omissions"]`` (``seed3d scene`` prints one line each, the API's scene job
lists them in its result)::

    {"noun": "piano", "status": "left out", "stand_in": null, "objects": [],
     "reason": "not an object Seed3D can build: the nearest known noun is 'bookshelf' (similarity 0.55 < 0.64)"}
    {"noun": "medicine cabinet", "status": "substituted", "stand_in": "cabinet", "objects": ["cabinet"],
     "reason": "Seed3D builds no medicine cabinet; a plain cabinet stands in (from the word 'cabinet')"}
    {"noun": "wardrobe", "status": "left out", "stand_in": null, "objects": ["wardrobe_2"],
     "reason": "the layout search found no place for it: ..."}

Left out: nouns the planner could not map to any category (``LayoutPlan.rejected``) and objects the layout could
not place (``seed3d.scene.compose`` drops them, and what stands on them, when missing objects are allowed).
Substituted: a noun built as another kind of object, by an alias (``loveseat`` → sofa), by its head word
(``medicine cabinet`` → cabinet) or by the nearest noun in MiniLM space (``wastebasket`` → trash can), or a category a
language-model planner chose that the noun does not map to.
"""

from __future__ import annotations

from typing import Any

from seed3d.errors import InvalidInputError, Seed3DError
from seed3d.program.nouns import ALIASES, SIMILARITY_THRESHOLD, NounMapper, alias_size, default_mapper, singular
from seed3d.scene.plan import LayoutPlan

LEFT_OUT = "left out"
SUBSTITUTED = "substituted"


class MissingObjectsError(InvalidInputError):
    """The scene would leave out objects its sentence named; ``omissions`` lists every omission (see module doc)."""

    def __init__(self, message: str, omissions: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.omissions = [dict(o) for o in omissions]


def _a(word: str) -> str:
    """``word`` with its indefinite article (``an armchair``, ``a sofa``)."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def entry(noun: str, status: str, reason: str, stand_in: str | None = None,
          objects: list[str] | None = None) -> dict[str, Any]:
    """One omission in its JSON form."""
    return {"noun": noun, "status": status, "stand_in": stand_in, "objects": list(objects or []), "reason": reason}


def rejected_entries(plan: LayoutPlan) -> list[dict[str, Any]]:
    """The plan's rejected nouns as 'left out' entries."""
    out = []
    for r in plan.rejected:
        noun = str(r.get("noun") or "?")
        nearest, sim = r.get("nearest"), r.get("similarity")
        reason = "not an object Seed3D can build"
        if nearest and isinstance(sim, (int, float)):
            reason += (f": the nearest known noun is {nearest!r} (similarity {float(sim):.2f} < "
                       f"{SIMILARITY_THRESHOLD})")
        out.append(entry(noun, LEFT_OUT, reason))
    return out


def _own_nouns() -> dict[str, str]:
    """The nouns each synth category is built as (its name and nouns, no aliases) → category."""
    from seed3d.synth import CATEGORIES

    own: dict[str, str] = {}
    for name, cat in CATEGORIES.items():
        for noun in (name.replace("_", " "), *cat.nouns):
            own.setdefault(singular(noun.replace("-", " ")), name)
            own.setdefault(singular(noun), name)
    return own


def substituted_entries(plan: LayoutPlan, mapper: NounMapper | None = None) -> list[dict[str, Any]]:
    """The plan's object groups built as another kind of object than their noun names, as 'substituted' entries.

    Uses the noun mapper's exact and head-word rules; only a noun those do not know is embedded (MiniLM)."""
    own = _own_nouns()
    aliases = {singular(a) for a in ALIASES}
    out = []
    for g in plan.objects:
        noun = " ".join(g.noun.split())
        if not noun or own.get(singular(noun)) == g.category:
            continue
        cat = g.category.replace("_", " ")
        m = (mapper or default_mapper()).lookup(noun)
        if m is None:
            try:
                m = (mapper or default_mapper()).map(noun)
            except (Seed3DError, ImportError, OSError) as exc:  # no text encoder here: say what is known
                why = f"not a noun Seed3D knows (could not compare it: {exc}); the planner chose {_a(cat)}"
                out.append(entry(noun, SUBSTITUTED, why, g.category, g.instance_names()))
                continue
        if m.category != g.category:
            why = (f"the planner chose {_a(cat)}; {noun!r} maps to {m.category.replace('_', ' ')}"
                   if m.category is not None else f"the planner chose {_a(cat)}; {m.message}")
        elif m.method == "embedding":
            why = (f"not a noun Seed3D knows; the nearest known noun is {m.word!r} (similarity {m.similarity:.2f}), "
                   f"so {_a(cat)} stands in")
        elif m.method == "head":
            plain = "" if m.word in aliases and own.get(m.word.split()[-1]) != g.category else "plain "
            why = f"Seed3D builds no {noun}; {_a(plain + cat)} stands in (from the word {m.word!r})"
        elif m.word in aliases and own.get(m.word.split()[-1]) != g.category:
            sized = f"{noun}-sized " if alias_size(noun) is not None else ""
            why = f"Seed3D builds no {noun}; {_a(sized + cat)} stands in"
        else:
            continue  # an alias of the category's own kind ('dining table', 'floor lamp')
        out.append(entry(noun, SUBSTITUTED, why, g.category, g.instance_names()))
    return out


def plan_omissions(plan: LayoutPlan, mapper: NounMapper | None = None) -> list[dict[str, Any]]:
    """What the plan leaves out (rejected nouns) and what it builds as a stand-in."""
    return rejected_entries(plan) + substituted_entries(plan, mapper)


def left_out(omissions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The 'left out' entries."""
    return [o for o in omissions if o.get("status") == LEFT_OUT]


def describe(o: dict[str, Any]) -> str:
    """One readable line: ``left out     piano: why`` / ``substituted  loveseat → sofa: why``."""
    noun = str(o.get("noun"))
    objects = [n for n in o.get("objects") or [] if n]
    if o.get("status") == SUBSTITUTED:
        return f"substituted  {noun} → {str(o.get('stand_in')).replace('_', ' ')}: {o.get('reason')}"
    named = f"{noun} ({', '.join(objects)})" if objects and objects != [noun] else noun
    return f"left out     {named}: {o.get('reason')}"


def missing_message(omissions: list[dict[str, Any]]) -> str:
    """The error text of a scene that would leave out named objects."""
    gone = left_out(omissions)
    names = ", ".join(f"{o['noun']!r} ({o['reason']})" for o in gone)
    return (f"the scene would leave out {len(gone)} object(s) the sentence named: {names}; rephrase it, or pass "
            "allow_missing=True (CLI: --allow-missing) to build the rest")


__all__ = ["LEFT_OUT", "SUBSTITUTED", "MissingObjectsError", "describe", "entry", "left_out", "missing_message",
           "plan_omissions", "rejected_entries", "substituted_entries"]
