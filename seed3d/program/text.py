"""Text → program: the object's category and the parameters the words give (counts, kinds, sizes, finishes).

``parse_text("a small red toolbox with a hinged lid and two drawers")`` returns a ``Program``: category
``toolbox`` (found by its noun), ``params`` {lid: hinged, drawers: 2, body_finish: painted_metal:red, …} and,
for every phrase, where it went (``placed``) or why it could not be placed (``unplaced``) — nothing is dropped in
silence. Sizes stated in the text ("80 cm tall") are kept as ``size`` targets for ``build_program``'s fit; size
words ("tall", "narrow", "small") set a position within the category's own ranges.

How the category is found: the category nouns and aliases of ``seed3d.program.nouns`` in the text's head clause
(before "with", "that", a comma…), the head noun of an English noun phrase being its last noun; then anywhere in
the text (a listed item, "drawers: 4, oak, dresser"); then the nearest noun by MiniLM embedding (the mapper's
measured threshold). ``confidence`` is 1.0 for a category's own noun, 0.9 for an alias ("desk" → table), 0.5 for
a poor stand-in ("sofa" → chair), the cosine similarity for an embedding match.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.catalog.measure import parse_size_text
from seed3d.errors import InvalidInputError
from seed3d.program.nouns import (
    ALIASES,
    COMPOUND_HEADS,
    CONTEXT_NOUNS,
    NOT_THESE,
    NounMapper,
    NounMatch,
    default_mapper,
    singular,
)
from seed3d.synth.materials import Finish

#: Number words → counts ("a drawer", "double doors", "a pair of doors").
COUNT_WORDS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "double": 2, "twin": 2, "pair of": 2, "a pair of": 2,
    "three": 3, "triple": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "no": 0, "zero": 0,
}

#: Aliases whose category is a poor stand-in for a single object: below auto's confidence, so the learned path
#: takes them (none today: the sofa, once built as a chair, has its own category).
POOR_STAND_INS: frozenset[str] = frozenset()

#: The dimension a bare measurement names, where the trade sells the object by it ("an 18 inch dishwasher", "a
#: 90 cm cooker"); elsewhere a bare measurement is the longest side.
NOMINAL_DIMENSION: dict[str, str] = {
    "dishwasher": "width", "oven": "width", "washing_machine": "width", "refrigerator": "width",
    "microwave": "width", "kitchen_counter": "width", "vanity": "width", "tv_stand": "width", "desk": "width",
    "range_hood": "width", "curtain_rod": "width",
}

#: Part nouns (singular) → the count parameter they set.
COUNT_NOUNS: dict[str, str] = {
    "door": "doors", "drawer": "drawers", "shelf": "shelves", "leg": "legs", "wheel": "wheels", "castor": "wheels",
    "caster": "wheels", "burner": "burners", "hob": "burners", "knob": "dials", "dial": "dials", "button": "buttons",
    "handle": "handles", "tap handle": "handles", "shelves": "shelves", "hook": "hooks", "slice": "slots",
    "slot": "slots", "curtain": "panels", "filter": "filters",
}

#: Phrases that set parameters of one category ("an office chair on wheels" is the office kind).
PHRASES: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "chair": ((r"on (?:wheels|castors|casters)|swivel|rolling|office|desk chair|computer chair|gaming",
               {"kind": "office"}), (r"armchair|with arms|armrests?", {"arms": True}),
              (r"cushion(?:ed)?|padded", {"cushion": True}), (r"[a-z]+-legged|legs", {"kind": "dining"})),
    "stool": ((r"bar stool|swivel|spinning", {"swivel": True}),),
    "table": ((r"coffee table|low table", {"kind": "coffee"}), (r"side table|end table|bedside", {"kind": "side"}),
              (r"dining|kitchen table", {"kind": "dining"}), (r"round|circular", {"shape": "round"}),
              (r"rectangular|square|oblong", {"shape": "rectangular"})),
    "lamp": ((r"desk lamp|task lamp|articulated|adjustable|architect", {"kind": "desk"}),
             (r"table lamp|bedside lamp", {"kind": "table"})),
    "refrigerator": ((r"side[- ]by[- ]side|american", {"layout": "side_by_side"}),
                     (r"bottom freezer|freezer (?:at the )?bottom", {"layout": "bottom_freezer"}),
                     (r"top freezer|freezer (?:at the )?top|freezer on top", {"layout": "top_freezer"}),
                     (r"single[- ]door|larder", {"layout": "single"}),
                     (r"freezer drawer|drawer freezer", {"drawers": 1})),
    "trash_can": ((r"pedal|step[- ]on", {"lid": "pedal"}),
                  (r"flip[- ]?(?:top|lid)|swing lid|with (?:a |an )?(?:\w+ )?lid|lidded", {"lid": "flip"}),
                  (r"open[- ]top|no lid|without (?:a )?lid|lidless", {"lid": "none"})),
    "faucet": ((r"two handles|two[- ]handle|double[- ]handle|cross handles|separate hot and cold",
                {"handles": "two"}), (r"single[- ](?:lever|handle)|one handle|mixer", {"handles": "one"}),
               (r"swivel spout|swivelling|swiveling|pull[- ]out", {"spout": "swivel"})),
    "box": ((r"sliding lid|slide lid", {"lid": "sliding"}), (r"hinged lid|chest", {"lid": "hinged"})),
    "bottle": ((r"wine", {"style": "wine"}), (r"water", {"style": "water"}), (r"milk", {"style": "milk"})),
    "rug": ((r"runner|hallway|stair", {"shape": "runner"}),),
    "floor_lamp": ((r"arc|arched|arching|overarching|reading", {"kind": "arc"}),),
    "ceiling_lamp": ((r"down[- ]?rod|on a rod|rod", {"suspension": "rod"}),),
    "curtain_rod": ((r"pair of curtains|curtain pair|curtains|drapes|two (?:curtain )?panels", {"panels": 2}),
                    (r"single curtain|one curtain|one panel", {"panels": 1})),
}

#: Part nouns (singular) → the finish parameter a material in front of them sets ("brass handles").
FINISH_ROLES: dict[str, str] = {
    "handle": "handle_finish", "knob": "handle_finish", "pull": "handle_finish", "leg": "leg_finish",
    "top": "top_finish", "worktop": "top_finish", "countertop": "top_finish", "door": "front_finish",
    "front": "front_finish", "drawer": "front_finish", "lid": "lid_finish", "cap": "cap_finish",
    "seat": "seat_finish", "frame": "frame_finish", "base": "base_finish", "shade": "shade_finish",
    "cushion": "cushion_finish", "body": "body_finish", "shell": "body_finish", "stand": "base_finish",
    "spout": "body_finish", "screen": "lid_finish", "pedestal": "leg_finish", "case": "body_finish",
    "casing": "body_finish", "housing": "body_finish", "face": "dial_finish", "curtain": "curtain_finish",
    "rod": "rod_finish", "pole": "rod_finish", "canopy": "canopy_finish",
}

#: The finish a material or colour before the object's own noun sets where it is not ``body_finish`` (nor the
#: category's first finish): "blue curtains" are their fabric. In a category without a body finish, a noun that ends
#: in a part word ("a brass curtain rod") names that part's finish instead.
MAIN_FINISH: dict[str, str] = {"curtain_rod": "curtain_finish"}

#: Finishes a part word falls back to, in order, where the category has no finish of the word's own.
_ROLE_FALLBACKS: dict[str, tuple[str, ...]] = {
    "frame": ("body_finish",), "base": ("frame_finish", "leg_finish"), "stand": ("frame_finish", "leg_finish"),
}

#: Part nouns that are not finish roles: a material or colour before one of them ("steel blades", "chrome trim",
#: "a black pump") describes that part, never the object's main finish.
OTHER_PARTS = frozenset({
    "blade", "blades", "trim", "pump", "spout", "lens", "lenses", "key", "keys", "keypad", "strap", "cord",
    "cable", "plug", "wheel", "wheels", "castor", "castors", "caster", "casters", "screen", "hinge", "hinges",
    "hook", "hooks", "rail", "rails", "pole", "hand", "hands", "dial", "dials", "button", "buttons",
    "lever", "levers", "tray", "trays", "drum", "basin", "tap", "taps", "accents", "accent", "details", "detail",
    "edging", "edge", "edges", "feet", "foot", "arm", "arms", "armrests", "backrest", "headboard", "mattress",
    "pillow", "pillows", "clip", "rim", "ring", "rings", "collar", "nozzle", "grip", "grips", "tip", "tips",
})

#: (category, parameter) a phrase implies → the counted parameter that overrules it when the text states it.
_GIVES_WAY: dict[tuple[str, str], str] = {("stool", "swivel"): "legs"}

#: Flags a finish role turns off or on when the text gives that part its own finish.
_ROLE_FLAGS: dict[str, dict[str, Any]] = {
    "front_finish": {"front_matches_body": False}, "leg_finish": {"legs_match_body": False},
    "top_finish": {"top_slab": True}, "lid_finish": {"lid_matches_body": False},
}

#: Flags that put a part in the body's finish → the part's own finish parameter. A stated body finish ("a green
#: cabinet") sets the flag unless the text gives that part a finish of its own ("a green cabinet with oak doors").
MATCHES_BODY: dict[str, str] = {"front_matches_body": "front_finish", "lid_matches_body": "lid_finish"}

#: Part words of a layout choice's name ("drawer_over_door", "open_over_drawers") → the part they name.
LAYOUT_PARTS: dict[str, str] = {"drawer": "drawer", "drawers": "drawer", "door": "door", "doors": "door",
                                "shelf": "shelf", "shelves": "shelf", "open": "shelf", "flap": "flap",
                                "flaps": "flap"}

#: "A above B" / "A below B" between two part words: the first part on top (above) or at the bottom (below).
_RELATION = re.compile(r"\b(drawer|door|shel(?:f|ves)|flap)s?\b(?:\s+[a-z0-9-]+){0,3}?\s+"
                       r"(above|over|on top of|atop|below|under|underneath|beneath)\s+"
                       r"(?:[a-z0-9-]+\s+){0,3}?(drawer|door|shel(?:f|ves)|flap)s?\b")

#: Material words → (finish kind, colour or None: the colour word next to it, else the kind's first).
MATERIALS: dict[str, tuple[str, str | None]] = {
    **{w: ("wood", w) for w in ("oak", "walnut", "cherry", "birch", "pine", "maple", "mahogany", "teak")},
    "dark-stained": ("wood", "dark-stained"), "wooden": ("wood", None), "wood": ("wood", None),
    "timber": ("wood", None), "painted": ("painted_wood", None),
    "stainless steel": ("brushed_metal", "stainless steel"), "stainless": ("brushed_metal", "stainless steel"),
    "steel": ("brushed_metal", "stainless steel"), "metal": ("brushed_metal", None),
    "metallic": ("brushed_metal", None), "aluminium": ("brushed_metal", "aluminium"),
    "aluminum": ("brushed_metal", "aluminium"), "brass": ("brushed_metal", "brass"),
    "copper": ("brushed_metal", "copper"), "bronze": ("brushed_metal", "bronze"),
    "black steel": ("brushed_metal", "black steel"), "iron": ("painted_metal", "black"),
    "chrome": ("chrome", "chrome"), "chromed": ("chrome", "chrome"), "nickel": ("chrome", "polished nickel"),
    "polished brass": ("chrome", "polished brass"),
    "plastic": ("plastic", None), "ceramic": ("ceramic", None), "porcelain": ("ceramic", "white"),
    "stoneware": ("ceramic", "speckled grey"), "terracotta": ("ceramic", "terracotta"),
    "glass": ("glass", None), "fabric": ("fabric", None), "upholstered": ("fabric", None),
    "enamel": ("painted_metal", None), "enamelled": ("painted_metal", None), "gold": ("brushed_metal", "gold"),
    "golden": ("brushed_metal", "gold"), "silver": ("brushed_metal", "silver"),
    "linen": ("fabric", "beige"), "cotton": ("fabric", None), "wool": ("fabric", "grey"),
    "velvet": ("fabric", "burgundy"), "canvas": ("fabric", "beige"),
    "leather": ("fabric", "charcoal"), "rubber": ("rubber", None),
    "marble": ("stone", "white marble"), "white marble": ("stone", "white marble"),
    "black marble": ("stone", "black marble"), "granite": ("stone", "grey granite"), "slate": ("stone", "slate"),
    "stone": ("stone", None), "travertine": ("stone", "travertine"),
    "acrylic": ("plastic", None), "upvc": ("plastic", None), "pvc": ("plastic", None),
    "faux leather": ("fabric", "charcoal"), "leatherette": ("fabric", "charcoal"), "mdf": ("painted_wood", None),
    "plywood": ("wood", "birch"), "bamboo": ("wood", None), "solid wood": ("wood", None),
    "bentwood": ("wood", None), "brushed nickel": ("brushed_metal", "stainless steel"),
    "brushed steel": ("brushed_metal", "stainless steel"), "satin nickel": ("brushed_metal", "stainless steel"),
    "painted wood": ("painted_wood", None), "painted metal": ("painted_metal", None),
    "painted steel": ("painted_metal", None), "dark wood": ("wood", "dark-stained"),
    "light wood": ("wood", "birch"),
}

#: Finish kinds a bare colour word can paint ("a red cabinet": painted wood), in order of preference.
_PAINTABLE = ("painted_wood", "painted_metal", "plastic", "ceramic", "fabric", "glass")

#: Size words → (dimension parameters they move, position within the range: 0 = smallest, 1 = largest).
SIZE_WORDS: dict[str, tuple[tuple[str, ...], float]] = {
    "tiny": (("*",), 0.0), "mini": (("*",), 0.05), "miniature": (("*",), 0.05), "small": (("*",), 0.15),
    "little": (("*",), 0.15), "compact": (("*",), 0.2), "large": (("*",), 0.85), "big": (("*",), 0.85),
    "huge": (("*",), 1.0), "oversized": (("*",), 1.0),
    "tall": (("height",), 0.9), "high": (("height",), 0.9), "short": (("height",), 0.1), "low": (("height",), 0.1),
    "narrow": (("width",), 0.1), "slim": (("width",), 0.1), "wide": (("width",), 0.9), "broad": (("width",), 0.9),
    "deep": (("depth",), 0.9), "shallow": (("depth",), 0.1),
}

#: Parameters that size words move, by dimension ("*": all of them).
SIZE_PARAMS: dict[str, tuple[str, ...]] = {
    "height": ("height", "seat_height"),
    "width": ("width", "seat_width", "radius", "seat_radius", "scale", "length"),
    "depth": ("depth", "seat_depth", "radius", "seat_radius", "length"),
}
#: Size parameters that run along the longer horizontal side, whichever axis that is (a bath's ``length`` is its
#: width, a pair of scissors' its depth): ``build_program``'s size fit moves them only on that side.
LONG_SIDE_PARAMS: frozenset[str] = frozenset({"length"})

_STOP = {
    "a", "an", "the", "with", "and", "of", "in", "on", "for", "that", "has", "have", "its", "it", "is", "are",
    "which", "to", "by", "at", "from", "some", "made", "about", "around", "approximately", "roughly", "very",
    "really", "style", "styled", "looking", "finish", "finished", "colour", "color", "coloured", "colored",
    "object", "model", "3d", "asset", "one", "inside", "front", "each", "both", "plus", "also", "like", "me",
    "please", "make", "create", "generate", "i", "want", "need", "build", "give", "nice", "simple", "modern",
    "classic", "new", "old", "standard", "typical", "regular", "ordinary", "real", "realistic", "cm", "m", "mm",
    "built-in", "integrated", "freestanding", "free-standing", "standing", "fitted", "solid",
}

_CLAUSE = re.compile(r"\s(?:with|that|which|having|featuring|where|whose|including|without|in|made of|on|and|plus|"
                     r"sitting|standing|next|beside|for|holding|containing|to)\s|\s[-–]\s|[,;:.(]")


@dataclass
class Program:
    """An object's program: category, the parameters its inputs set, and how sure we are of it."""

    category: str | None
    params: dict[str, Any] = field(default_factory=dict)
    confidence: float = 0.0
    source: str = "text"
    how: str = ""
    """How the category was found: exact | alias | embedding | rejected | none (text), image (image network)."""
    noun: str = ""
    masked: bool | None = None
    """An image's program: whether the object was masked out of its background (None: not from an image)."""
    size: dict[str, float] = field(default_factory=dict)
    """Measurements stated in the text (``RealWorldSize.dims`` keys, meters): targets of the size fit."""
    placed: list[str] = field(default_factory=list)
    unplaced: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fit: dict[str, Any] | None = None
    """An image's program: the render-and-compare fit (``seed3d.program.fit.FitResult.to_dict``); None: no fit."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (report.json's ``program``)."""
        return {"category": self.category, "params": {k: _jsonable(v) for k, v in self.params.items()},
                "confidence": round(float(self.confidence), 3), "source": self.source, "how": self.how,
                "noun": self.noun, "size": {k: round(v, 4) for k, v in self.size.items()},
                "placed": list(self.placed), "unplaced": list(self.unplaced), "notes": list(self.notes)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if hasattr(value, "kind") and hasattr(value, "colour"):
        return f"{value.kind}:{value.colour}"
    if isinstance(value, np.generic):
        return value.item()
    return value


# --------------------------------------------------------------------------------------------- category


def _find_nouns(text: str, vocab: dict[str, str]) -> list[tuple[int, int, str, str]]:
    """Every vocabulary noun in ``text``: (start, end, word, category), longest first where they overlap."""
    words = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"[a-z][a-z'-]*", text)]
    hits: list[tuple[int, int, str, str]] = []
    for n in (3, 2, 1):
        for i in range(len(words) - n + 1):
            phrase = " ".join(w for _, _, w in words[i:i + n])
            key = singular(phrase)
            if key not in vocab and n > 1 and singular(phrase.replace(" ", "-")) in vocab:
                key = singular(phrase.replace(" ", "-"))  # "fridge freezer" is the "fridge-freezer"
            if key in vocab:
                s, e = words[i][0], words[i + n - 1][1]
                if not any(s < he and hs < e for hs, he, _, _ in hits):
                    hits.append((s, e, key, vocab[key]))
    return sorted(hits)


_COUNT_BEFORE = re.compile(r"(?:\d+|" + "|".join(COUNT_WORDS) + r")[\s-]+(?:[a-z]+\s+)?$")


def _listed(text: str, start: int) -> bool:
    """Whether the word at ``start`` begins a listed item: after a comma, colon, semicolon or dash, with no
    clause word ("with", "on", …) between that mark and it."""
    marks = [m.end() for m in re.finditer(r"[,;:]|\s[-–]\s", text[:start])]
    if not marks:
        return False
    between = text[marks[-1]:start]
    return not re.search(r"\b(?:with|that|which|having|featuring|including|without|in|on|and|plus)\b", between)


def _colours() -> dict[str, Any]:
    from seed3d.synth.materials import COLOURS

    return COLOURS


#: Words after which a chatty request names its object ("… and need a comfy couch", "can you make me a lamp").
_LEAD_IN = re.compile(r"\b(?:need|needs|want|wants|looking for|would like|'d like|make me|build me|give me|"
                      r"get me|create|generate|model|design)\s+")


def _edits(a: str, b: str, limit: int) -> int:
    """Damerau–Levenshtein distance (adjacent swaps count one) of ``a`` and ``b``; ``limit + 1`` once above it."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


#: Embedding similarity a compound ending in one of ``COMPOUND_HEADS`` needs to map to another noun with that head.
COMPOUND_SIMILARITY = 0.8

_KNOWN_WORDS: set[str] | None = None


def _known_words() -> set[str]:
    """Whole words of the text encoder's vocabulary (about 20,000 common English words): never respelled."""
    global _KNOWN_WORDS
    if _KNOWN_WORDS is None:
        from seed3d.program.nouns import minilm_dir

        try:
            _KNOWN_WORDS = {w for w in (minilm_dir() / "vocab.txt").read_text().split() if w.isalpha()}
        except OSError:
            _KNOWN_WORDS = set()
    return _KNOWN_WORDS


def _respell(text: str, vocab: dict[str, str]) -> tuple[str, list[str]]:
    """Misspelt object and part nouns put right ("wardobe", "washing mashine", "drawes"): a word of five letters or
    more that is neither a known English word nor ours, one edit (two from eight letters) from exactly one of our
    nouns' words. Returns (text, notes)."""
    ours = {w for phrase in (*vocab, *COUNT_NOUNS, *FINISH_ROLES) for w in phrase.split() if len(w) >= 4}
    ours |= {w + "s" for w in ours} | {w[:-1] + "ves" for w in ours if w.endswith("f")}
    notes: list[str] = []

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        if len(word) < 5 or word in ours or word in _known_words() or singular(word) in ours:
            return word
        limit = 2 if len(word) >= 8 else 1
        near = sorted(w for w in ours if _edits(word, w, limit) <= limit)
        if len({singular(w) for w in near}) == 1 and len(near) > 1:  # "drawes": drawer or drawers, one noun
            near = [next((w for w in near if (w != singular(w)) == word.endswith("s")), near[0])]
        if len(near) != 1:
            return word
        notes.append(f"{word!r} read as {near[0]!r}")
        return near[0]

    return re.sub(r"[a-z]+", fix, text), notes


def _category(text: str, mapper: NounMapper | None) -> tuple[str | None, str, float, str, list[str]]:
    """(category, noun, confidence, how, notes)."""
    from seed3d.program.nouns import vocabulary

    vocab = mapper.vocab if mapper is not None else vocabulary()
    notes: list[str] = []
    # the head clause ends at the first clause word after the first word ("standing coat rack with hooks")
    clause = next((c for c in _CLAUSE.finditer(f" {text} ") if c.start() > 0), None)
    head_end = (clause.start() - 1) if clause else len(text)
    other = next((n for n in NOT_THESE if re.search(r"\b" + re.escape(n) + r"s?\b", text[:max(head_end, 0)])), None)
    if other is not None:  # "a ceiling fan": the head word names a category that builds another object
        return None, other, 0.0, "rejected", [NounMatch(other, None, other, 1.0, "rejected").message]
    hits = _find_nouns(text, vocab)
    compound = next((f"{h[2]} {m.group(1)}" for h in hits if h[1] <= max(head_end, 0)
                     for m in [re.match(r"\s+([a-z]+)\b", text[h[1]:])]
                     if m and singular(m.group(1)) in COMPOUND_HEADS), None)
    if compound is not None:  # "a wine rack", "a camera tripod": the last noun is the object
        return None, compound, 0.0, "rejected", [
            f"{compound!r} is not an object Seed3D can build (a {singular(compound.split()[-1])}, not a "
            f"{compound.split()[0]})"]
    head = [h for h in hits if h[1] <= max(head_end, 0)]
    lead = list(_LEAD_IN.finditer(text))
    if not head and lead and lead[-1].end() < len(text):
        # "we just moved into a new flat and need a comfy couch": the object follows the request
        return _category(text[lead[-1].end():], mapper)
    # part nouns outside the head clause ("with two doors", "a shelf") or after a count ("cupboard - 2 doors")
    # are parts, not objects
    counted = {h for h in hits if h[2] in COUNT_NOUNS and _COUNT_BEFORE.search(text[:h[0]])}
    if any(h not in counted and h[2] not in COUNT_NOUNS and h[2] not in FINISH_ROLES for h in hits) \
            or any(h not in counted for h in head):
        head = [h for h in head if h not in counted]
    # else "a door", "a single curtain": the part noun after a count is the only object the text names
    hits = [h for h in hits if h in head or (h[2] not in COUNT_NOUNS and h[2] not in FINISH_ROLES)]
    head_words = [w for w in re.findall(r"[a-z][a-z'-]*", text[:head_end]) if w not in _STOP
                  and w not in COUNT_WORDS and w not in SIZE_WORDS and w not in MATERIALS and w not in _colours()]
    # with no known noun in a head clause that names something, a noun after "with" is a part or an accessory;
    # one in a listed item ("drawers: 4, oak, dresser") is still the object
    listed = [h for h in hits if _listed(text, h[0])]
    pick = head[-1] if head else (hits[0] if hits and not head_words else (listed[0] if listed else None))
    if pick is not None:
        others = sorted({h[3] for h in hits if h is not pick and h[3] != pick[3]})
        if others:
            notes.append(f"also names {', '.join(others)}: one object is built (the {pick[2]}); "
                         f"`seed3d scene` builds several")
        how = "alias" if pick[2] in ALIASES else "exact"
        if pick[2] in POOR_STAND_INS:
            notes.append(f"a {pick[2]} is not built: the nearest category, {pick[3]}, only stands in for it")
            return pick[3], pick[2], 0.5, how, notes
        return pick[3], pick[2], 1.0 if how == "exact" else 0.9, how, notes
    for word, (category, context) in CONTEXT_NOUNS.items():
        m = re.search(r"\b" + word + r"\b", text)
        beside = re.search(r"\b(?:" + context + r")\b", text)
        if m is not None and m.start() <= max(head_end, 0) and beside is not None:
            notes.append(f"{word!r} read as {category.replace('_', ' ')} (beside {beside.group(0)!r})")
            return category, word, 0.9, "alias", notes
    # no known noun: the head clause's last words, by embedding
    head_words = head_words or [w for w in re.findall(r"[a-z][a-z'-]*", text) if w not in _STOP]
    if not head_words:
        return None, "", 0.0, "none", ["no object noun in the text"]
    noun = " ".join(head_words[-2:])
    if mapper is None:
        return None, noun, 0.0, "none", [f"{noun!r} is not a known object noun"]
    match = mapper.map(noun)
    if match.category is not None and singular(noun.split()[-1]) in COMPOUND_HEADS \
            and match.similarity < COMPOUND_SIMILARITY and match.word.split()[0] != noun.split()[0]:
        # "a bicycle rack" is not a towel rack: one head noun, another object
        return None, noun, float(match.similarity), "rejected", [
            f"{noun!r} is not an object Seed3D can build: the nearest known noun is {match.word!r} (similarity "
            f"{match.similarity:.2f} < {COMPOUND_SIMILARITY} for a compound whose head is {noun.split()[-1]!r})"]
    if match.category is None:
        return None, noun, float(match.similarity), "rejected", [match.message]
    return match.category, noun, float(match.similarity), "embedding", [match.message]


# --------------------------------------------------------------------------------------------- parameters


def _count_pattern() -> re.Pattern[str]:
    nums = "|".join(sorted(map(re.escape, COUNT_WORDS), key=len, reverse=True))
    nouns = "|".join(sorted({re.escape(n) for n in COUNT_NOUNS}, key=len, reverse=True))
    # up to two words between ("two oak doors"), but never across a clause: "a bookshelf without doors" counts none
    gap = r"(?:(?!(?:without|with|and|or|no|not|never)\b)[a-z][a-z-]*\s+){0,2}?"
    return re.compile(r"\b(\d+|" + nums + r")(?:\s+|-)" + gap + r"(" + nouns + r")(?:e?s|ves|ged|ed)?\b")


_COUNTS = _count_pattern()
_COUNTS_AFTER = re.compile(r"\b(" + "|".join(sorted({re.escape(n) for n in COUNT_NOUNS}, key=len, reverse=True))
                           + r")(?:e?s|ves)?\s*[:=]\s*(\d+)\b")
_NEGATED = re.compile(r"\b(?:without|no|not|never)\s+(?:a\s+|an\s+|any\s+)?([a-z-]+(?:\s[a-z-]+)?)")


class _Text:
    """The text with the spans claimed so far (what is left over is reported as unplaced)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.taken = np.zeros(len(text), bool)

    def claim(self, start: int, end: int) -> None:
        self.taken[start:end] = True

    def free(self, start: int, end: int) -> bool:
        return not self.taken[start:end].any()

    def leftover(self) -> list[str]:
        out = []
        for m in re.finditer(r"[a-z][a-z'-]*", self.text):
            if not self.taken[m.start():m.end()].any() and m.group(0) not in _STOP:
                out.append(m.group(0))
        return out


def _set(prog: Program, params: dict[str, Any], name: str, value: Any, phrase: str) -> bool:
    """Set ``name`` when the category has it and ``value`` is in its range; report either way."""
    from seed3d.synth import CATEGORIES

    cat = CATEGORIES[prog.category]  # type: ignore[index]
    prm = cat.params.get(name)
    if prm is None:
        prog.unplaced.append(f"{phrase!r}: a {prog.category} has no {name.replace('_', ' ')}")
        return False
    if prm.choices is not None and isinstance(value, int) and not isinstance(value, bool):
        words = {1: "one", 2: "two", 3: "three", 4: "four"}
        if value not in prm.choices and words.get(value) in prm.choices:
            value = words[value]
    try:
        value = prm.check(value, name, prog.category)  # type: ignore[arg-type]
    except InvalidInputError:
        prog.unplaced.append(f"{phrase!r}: {name} must be {prm.describe()} for a {prog.category}")
        return False
    params[name] = value
    prog.placed.append(f"{phrase!r} → {name}={_jsonable(value)}")
    return True


def _counts_after(prog: Program, t: _Text, params: dict[str, Any]) -> None:
    """Counts written after their noun, as in a list ("drawers: 4")."""
    for m in _COUNTS_AFTER.finditer(t.text):
        target = COUNT_NOUNS[m.group(1)]
        if target not in params and t.free(m.start(2), m.end(2)):
            _set(prog, params, target, int(m.group(2)), m.group(0))
            t.claim(m.start(), m.end())


def _phrases(prog: Program, t: _Text, params: dict[str, Any]) -> None:
    """The category's own phrases (``PHRASES``)."""
    from seed3d.synth import CATEGORIES

    cat = CATEGORIES[prog.category]  # type: ignore[index]
    for pattern, values in PHRASES.get(prog.category or "", ()):
        for m in re.finditer(r"\b(?:" + pattern + r")\b", t.text):
            part = _part_noun(t.text[m.end():])
            if part and any(n.split("_")[0] == part and m.group(0) in (p.choices or ()) for n, p in cat.params.items()):
                continue  # "a table with round legs": the legs' shape (a choice of leg_style), not the table's
            ok = False  # a phrase may reuse words a count took ("three-legged": legs=3 and a dining chair)
            for name, value in values.items():
                if _GIVES_WAY.get((prog.category, name)) in params:
                    continue  # "a bar stool with 4 legs": the legs stated, not the swivel pedestal implied
                if name not in params:
                    ok = _set(prog, params, name, value, m.group(0)) or ok
                else:
                    ok = ok or params[name] == value
            if ok:  # colour and material words inside stay free for the finishes ("with a red lid")
                for w in re.finditer(r"[a-z][a-z'-]*", m.group(0)):
                    if w.group(0) not in MATERIALS and w.group(0) not in _colours():
                        t.claim(m.start() + w.start(), m.start() + w.end())


def _counts(prog: Program, t: _Text, params: dict[str, Any], parts: dict[str, int] | None = None) -> None:
    """Counted part nouns ("two doors", "a drawer"); ``parts`` collects the count of every part a layout names."""
    from seed3d.synth import CATEGORIES

    cat = CATEGORIES[prog.category]  # type: ignore[index]
    for m in _COUNTS.finditer(t.text):
        num, noun = m.group(1), m.group(2)
        if not t.free(m.start(2), m.end()):
            continue  # the object's own noun ("a white painted door")
        n = int(num) if num.isdigit() else COUNT_WORDS[num]
        target = COUNT_NOUNS[noun]
        if target not in cat.params:
            # a bool stands in for "a drawer" where the category counts none ("has_drawer", "drawer")
            for alt in (f"has_{target}", f"has_{noun}", noun):
                prm = cat.params.get(alt)
                if prm is not None and (prm.is_flag or prm.choices == (False, True)):
                    target = alt
                    n = n > 0  # type: ignore[assignment]
                    break
        if target not in cat.params and noun in ("handle", "knob", "button", "dial") and n == 1:
            continue  # "a brass knob": a finish (or nothing) where the category counts none
        part = LAYOUT_PARTS.get(noun)
        if parts is not None and part is not None:
            parts[part] = max(parts.get(part, 0), n)
            if target not in cat.params and part in _layout_parts(cat):
                # "a nightstand with a drawer and a door": no door count, but a layout that has one
                t.claim(m.start(1), m.end(1))
                t.claim(m.start(2), m.end())
                for w in re.finditer(r"\b(?:open|small|little)\b", t.text[m.end(1):m.start(2)]):
                    t.claim(m.end(1) + w.start(), m.end(1) + w.end())  # "an open shelf", "a small door"
                continue
        if target not in cat.params and _part_choice(cat, target, params) is not None:
            t.claim(m.start(1), m.end(1))  # "a desk on four legs": the choice that has legs (``_part_choices``)
            t.claim(m.start(2), m.end())
            continue
        if target not in cat.params and _built_count(prog.category, noun) == n:
            prog.placed.append(f"{m.group(0).strip()!r}: a {prog.category} is built with {n} {noun}"
                               + ("s" if n != 1 else ""))  # "a microwave with a glass door": it has one
            t.claim(m.start(1), m.end(1))
            t.claim(m.start(2), m.end())
            continue
        alt = _conditional_count(cat, target, n, params)
        if alt:  # "a writing desk with 3 drawers": the pedestal's drawers, and the pedestal that has them
            for name, value in alt.items():
                _set(prog, params, name, value, m.group(0))
        else:
            _set(prog, params, target, n, m.group(0))
        t.claim(m.start(1), m.end(1))  # the words between stay free: "four chrome legs" names a finish too
        t.claim(m.start(2), m.end())


def _conditional_count(cat: Any, target: str, n: int, params: dict[str, Any]) -> dict[str, Any]:
    """Where ``n`` is outside ``target``'s range, another count of the same parts that holds it ("drawers_in_
    pedestal") with the choices its doc names as its condition ("(pedestal=drawers)", and that one's "(kind=
    pedestal)"): {parameter: value}, or {} when there is none."""
    prm = cat.params.get(target)
    if prm is not None and _in_range(prm, n):
        return {}
    for name, alt in cat.params.items():
        if not name.startswith(target + "_") or alt.choices is not None or not _in_range(alt, n):
            continue
        out: dict[str, Any] = {name: n}
        doc = alt.doc
        for _ in range(3):  # a condition's own condition
            cond = re.search(r"\((\w+)=(\w+)\)", doc)
            if cond is None or cond.group(1) not in cat.params:
                break
            key, value = cond.group(1), cond.group(2)
            if params.get(key, value) != value:
                break  # the text chose otherwise
            out[key] = value
            doc = cat.params[key].doc
        return out
    return {}


#: Part words whose mention picks the choice that builds those parts ("black metal legs" → base=legs).
_PART_CHOICE_WORDS: dict[str, str] = {"legs": r"legs?|[a-z]+-legged"}


def _part_choice(cat: Any, part: str, params: dict[str, Any]) -> str | None:
    """The first parameter of ``cat`` not yet set with ``part`` among its choices whose condition in its doc
    ("(kind=pedestal)") the set parameters meet: a desk's ``kind``, or once kind=pedestal, its ``end``."""
    for name, prm in cat.params.items():
        if name in params or prm.choices is None or part not in prm.choices:
            continue
        cond = re.search(r"\((\w+)=(\w+)\)", prm.doc)
        if cond is None or cond.group(1) not in cat.params or params.get(cond.group(1)) == cond.group(2):
            return name
    return None


def _part_choices(prog: Program, t: _Text, params: dict[str, Any]) -> None:
    """A part the text mentions in any phrase ("on four legs", "with black metal legs") and the category builds
    only with one choice of a parameter: that choice, unless negated ("without legs") or already chosen."""
    from seed3d.synth import CATEGORIES

    cat = CATEGORIES[prog.category]  # type: ignore[index]
    for part, pattern in _PART_CHOICE_WORDS.items():
        m = re.search(r"\b(?:" + pattern + r")\b", t.text)  # the first mention decides
        name = _part_choice(cat, part, params) if m is not None else None
        if m is None or name is None:
            continue
        neg = re.search(r"\b(?:without|no|not)\s+(?:[a-z]+\s+){0,2}$", t.text[:m.start()])
        # "without legs": the parameter's first other choice that builds something ("plinth", "pedestal")
        value = next((c for c in cat.params[name].choices if c not in (part, "none")), None) if neg else part
        start = neg.start() if neg else m.start()
        if value is not None and _set(prog, params, name, value, t.text[start:m.end()]):
            t.claim(start, m.end())


def _in_range(prm: Any, n: int) -> bool:
    lo, hi = prm.bounds
    return lo is not None and hi is not None and isinstance(lo, int) and lo <= n <= hi


@functools.lru_cache(maxsize=256)
def _built_count(category: str, noun: str) -> int | None:
    """How many parts labelled ``noun`` the engine builds for ``category`` when it has no parameter for their
    count: the count if seeds 0-2 all build the same, else None."""
    from seed3d import synth

    counts = {sum(p.label == noun for p in synth.generate(category, seed).parts) for seed in range(3)}
    return counts.pop() if len(counts) == 1 else None


def _part_of(word: str) -> str | None:
    """The part a part noun names, by its finish role ("knob" and "pull" are handles), or None."""
    role = FINISH_ROLES.get(word)
    return role.removesuffix("_finish") if role else None


def _part_noun(after: str) -> str | None:
    """The part named by the word that starts ``after`` ("knobs" → "handle", "legs" → "leg"), or None."""
    nxt = re.match(r"\s+([a-z]+)\b", after)
    word = nxt.group(1) if nxt else ""
    return next((_part_of(w) for w in (word, word[:-1], word[:-2]) if _part_of(w)), None)


def _choices(prog: Program, t: _Text, params: dict[str, Any]) -> None:
    """Words naming a choice of a parameter ("sliding lid", "office", "round") and bool parameters by name."""
    from seed3d.synth import CATEGORIES

    cat = CATEGORIES[prog.category]  # type: ignore[index]
    options: dict[str, list[tuple[str, Any]]] = {}
    for name, prm in cat.params.items():
        if name in params or prm.is_finish:
            continue
        if prm.choices is not None and not all(isinstance(c, bool) for c in prm.choices):
            for c in dict.fromkeys(prm.choices):
                if isinstance(c, str) and c not in ("none", "one", "two"):
                    options.setdefault(c.replace("_", " ").replace("-", " "), []).append((name, c))
        elif prm.is_flag or prm.choices == (False, True):
            word = name.replace("has_", "").replace("_", " ")
            options.setdefault(word, []).append((name, True))
    for name, value in params.items():  # "a dining chair with chrome legs": kind=dining came from "legs"
        if isinstance(value, str) and value in ((cat.params[name].choices or ()) if name in cat.params else ()):
            for m in re.finditer(r"\b" + re.escape(value.replace("_", " ")) + r"\b", t.text):
                if t.free(m.start(), m.end()) and _part_noun(t.text[m.end():]) is None:  # not "round legs"
                    t.claim(m.start(), m.end())
    for phrase in sorted(options, key=len, reverse=True):
        for m in re.finditer(r"\b" + re.escape(phrase) + r"(?:e?s)?\b", t.text):
            if not t.free(m.start(), m.end()):
                continue
            part = _part_noun(t.text[m.end():])
            # "round knobs": a choice word in front of a part names that part's choice, not another part's
            targets = [tg for tg in options[phrase] if tg[0] not in params and (
                part is None or _part_of(tg[0].split("_")[0]) in (None, part))]
            if part is not None:  # "round legs": the legs' shape before the table's
                targets = [tg for tg in targets if _part_of(tg[0].split("_")[0]) == part] or targets
            if not targets:
                continue
            neg = re.search(r"\b(?:without|no|not)\s+(?:a\s+|an\s+|any\s+)?$", t.text[:m.start()])
            if len(targets) > 1:
                names = [n for n, _ in targets]
                pref = [n for n in names if n in ("kind", "shape", "style", "lid", "layout")]
                targets = [tg for tg in targets if tg[0] == (pref or names)[0]]
            name, value = targets[0]
            if neg and value is True:
                value = False
            elif neg:
                continue
            if _set(prog, params, name, value, m.group(0)):
                t.claim(m.start(), m.end())
                if neg:
                    t.claim(neg.start(), m.start())
                nxt = re.match(r"\s+[a-z]+\b", t.text[m.end():])
                if part is not None and _part_of(name.split("_")[0]) == part and nxt:
                    t.claim(m.end(), m.end() + nxt.end())  # "bar handles": the part the choice shapes


def _negations(prog: Program, t: _Text, params: dict[str, Any]) -> None:
    """"without drawers", "no lid": a zero count (the bool form is handled with the choices)."""
    from seed3d.synth import CATEGORIES

    cat = CATEGORIES[prog.category]  # type: ignore[index]
    for m in _NEGATED.finditer(t.text):
        noun = singular(m.group(1).split()[0])
        target = COUNT_NOUNS.get(noun)
        if target and target in cat.params and t.free(m.start(), m.end()):
            if _set(prog, params, target, 0, m.group(0)):
                t.claim(m.start(), m.end())
        elif (noun == "lid" and "lid" in cat.params and "none" in (cat.params["lid"].choices or ())
              and _set(prog, params, "lid", "none", m.group(0))):
            t.claim(m.start(), m.end())


def _finish_value(kind: str, colour: str | None, seed_pick: int) -> str:
    from seed3d.synth.materials import COLOURS, PALETTES

    if colour is None:
        names = list(PALETTES[kind])
        colour = names[seed_pick % len(names)]
    elif colour not in PALETTES[kind] and colour not in COLOURS:
        colour = next(iter(PALETTES[kind]))
    return f"{kind}:{colour}"


def _named_materials() -> dict[str, str]:
    """Palette names of materials that are not paint ("grey granite", "polished nickel") → their kind."""
    from seed3d.synth.materials import PALETTES

    return {name: kind for kind in ("stone", "brushed_metal", "chrome", "wood") for name in PALETTES[kind]
            if " " in name}


def _palette(kind: str) -> dict[str, Any]:
    from seed3d.synth.materials import PALETTES

    return PALETTES[kind]


def _other_object(words: str, prog: Program) -> bool:
    """Whether ``words`` (what follows a material) start with the noun of an object other than ``prog``'s."""
    from seed3d.program.nouns import vocabulary
    from seed3d.synth import CATEGORIES

    vocab = vocabulary()
    if prog.noun and re.match(re.escape(prog.noun) + r"\b", words):
        return False  # "a red trolley case": the object's own noun, though "trolley" alone names another
    head = re.sub(r"\(.*?\)", "", CATEGORIES[prog.category].description.split(":")[0])  # type: ignore[index]
    own = re.findall(r"[a-z]+", head)[-1:]  # "pump dispenser bottle": a dispenser's "amber glass bottle" is itself
    for phrase in (words, words.split()[0]):
        key = singular(phrase)
        if key in vocab and vocab[key] != prog.category and key not in FINISH_ROLES and key not in COUNT_NOUNS \
                and [key] != own:
            return True
    return False


def _painted(kind: str, colour: str | None) -> str:
    """A wood or metal in a colour it does not come in is painted: "red metal", "white timber"."""
    if colour and kind in ("brushed_metal", "wood") and colour not in _palette(kind):
        return "painted_metal" if kind == "brushed_metal" else "painted_wood"
    return kind


def _finish_target(cat: Any, role: str | None, main: str | None) -> str | None:
    """The finish parameter a part word names: its ``FINISH_ROLES`` entry, else a finish whose name or doc
    mentions the part ("frame_finish: legs and footrest"), else None; no part word: the main finish."""
    if role is None:
        return main
    target = FINISH_ROLES[role]
    if target in cat.params:
        return target
    for name in _ROLE_FALLBACKS.get(role, ()):  # a bar stool's "chrome base" is its frame
        if name in cat.params:
            return name
    for name, prm in cat.params.items():
        if prm.is_finish and (role in name or re.search(r"\b" + re.escape(role), prm.doc.lower())):
            return name
    return None


def _finishes(prog: Program, t: _Text, params: dict[str, Any], seed: int) -> None:
    """Materials and colours, with the part they name ("brass handles", "an oak top") or the body."""
    from seed3d.synth import CATEGORIES
    from seed3d.synth.materials import COLOURS

    cat = CATEGORIES[prog.category]  # type: ignore[index]
    mats = "|".join(sorted(map(re.escape, MATERIALS), key=len, reverse=True))
    cols = "|".join(sorted(map(re.escape, COLOURS), key=len, reverse=True))
    roles = "|".join(sorted(map(re.escape, FINISH_ROLES), key=len, reverse=True))
    pat = re.compile(r"\b(?:(" + cols + r")(?![a-z])(?:-|\s+)?)?(?:(" + mats + r")\b\s*)?(?:(?:[a-z]+\s+)?(" + roles
                     + r")(?:e?s)?\b(?!-))?")
    main = MAIN_FINISH.get(cat.name) or ("body_finish" if "body_finish" in cat.params else next(
        (n for n, p in cat.params.items() if p.is_finish), None))
    head = singular(prog.noun.split()[-1]) if prog.noun else ""
    if "body_finish" not in cat.params and FINISH_ROLES.get(head) in cat.params:  # "a brass curtain rod": the rod
        main = FINISH_ROLES[head]
    plain = "|".join(sorted((re.escape(k) for k, v in MATERIALS.items() if v[1] is None), key=len, reverse=True))
    hues = "|".join(sorted((re.escape(c) for c in COLOURS if c not in MATERIALS and c not in _named_materials()),
                           key=len, reverse=True))
    parts = "|".join(sorted(map(re.escape, OTHER_PARTS), key=len, reverse=True))
    swap = re.compile(r"\b(" + plain + r") (" + hues + r")(?= (?:[a-z]+ )?(?:" + roles + r")(?:e?s)?\b| (?:"
                      + parts + r")\b)")
    for m in swap.finditer(t.text):  # "upholstered grey headboard" read as "grey upholstered headboard"
        if t.free(m.start(), m.end()):
            t.text = t.text[:m.start()] + f"{m.group(2)} {m.group(1)}" + t.text[m.end():]
    from_material: dict[str, str] = {}  # target → kind set by a material word without its own colour
    stated: dict[str, tuple[str, str | None]] = {}  # target → the phrase that set it here and its material word
    for m in pat.finditer(t.text):
        colour, material, role = m.group(1), m.group(2), m.group(3)
        if colour in MATERIALS and material is None:  # "brass", "oak", "stainless steel": materials first
            colour, material = None, colour
        elif colour in MATERIALS and material and MATERIALS[colour][0] == MATERIALS[material][0]:
            # one material named twice ("silver aluminium", "dark-stained wood", "gold metal"): the specific one
            colour, material = None, (colour if MATERIALS[material][1] is None else material)
        elif colour in _named_materials() and material is None:  # "grey granite", "polished nickel"
            colour, material = None, colour
        words_end = max(m.end(1), m.end(2))  # the colour and material words (-1 for a group not matched)
        if not (colour or material) or not t.free(m.start(), words_end):
            continue
        if role and (role == prog.noun or singular(prog.noun).endswith(role)):
            role = None  # "an oak door" on a door: the object itself
        nxt = re.match(r"\s*([a-z]+(?:\s[a-z]+)?)", t.text[words_end:])
        if not role and nxt and _other_object(nxt.group(1), prog):
            t.claim(m.start(), words_end)  # "a mug on a wooden table": the table's wood, not the mug's
            prog.notes.append(f"{m.group(0).strip()!r} describes another object; not used")
            continue
        nxt_word = re.match(r"\s*([a-z]+)\b", t.text[words_end:])
        part_target = None
        if not role and nxt_word and nxt_word.group(1) in OTHER_PARTS:
            part = singular(nxt_word.group(1))
            part_target = next((n for n in (f"{part}_finish", f"{part}s_finish") if n in cat.params), None)
            end = words_end + nxt_word.end()
            if part_target is None:
                prog.unplaced.append(f"{t.text[m.start():end].strip()!r}: a {prog.category} has no {part} finish")
                t.claim(m.start(), end)
                continue
            t.claim(words_end, end)
        target = part_target or _finish_target(cat, role, main)
        if target is not None and role and target == main and target in params \
                and FINISH_ROLES.get(role) != main:
            # "a stainless steel kettle with a black handle": the handle is drawn in the body's finish, stated
            prog.unplaced.append(f"{m.group(0).strip()!r}: a {prog.category}'s {role} is drawn in its "
                                 f"{main.replace('_', ' ')}, already stated")
            t.claim(m.start(), m.end())
            continue
        if target is None:
            what = f"{role} finish" if role else "finish parameter"
            prog.unplaced.append(f"{m.group(0).strip()!r}: a {prog.category} has no {what}")
            t.claim(m.start(), m.end())
            continue
        if role is None and part_target is None and target in stated and material and stated[target][1] \
                and MATERIALS.get(material, (material,))[0] != MATERIALS.get(stated[target][1], (None,))[0]:
            # "a wooden door with a glass panel": the door's finish is stated already; a second main finish is not
            # silently put over it
            prog.unplaced.append(f"{m.group(0).strip()!r}: the {prog.category.replace('_', ' ')}'s "
                                 f"{target.replace('_', ' ')} is already {stated[target][0]!r}")
            t.claim(m.start(), m.end())
            continue
        prm = cat.params[target]
        if (material == "glass" and prm.finish_kinds and "glass" not in prm.finish_kinds
                and "glass_finish" in cat.params and "window" in cat.params["glass_finish"].doc
                and (re.search(r"window|porthole", cat.description) or "glass_doors" in cat.params)):
            # "a glass door" on a microwave is its window; "glass doors" on a cabinet are glazed in their frames
            target, prm = "glass_finish", cat.params["glass_finish"]
        if material:
            kind, mcol = MATERIALS[material] if material in MATERIALS else (_named_materials()[material], material)
            kind = _painted(kind, colour)
            value = _finish_value(kind, colour or mcol, seed)
            if not colour and target not in from_material:
                from_material[target] = kind
        elif target in from_material:  # "a plastic box, blue": the material's kind in that colour
            value = _finish_value(_painted(from_material.pop(target), colour), colour, seed)
        else:
            own = [k for k in (prm.finish_kinds or ()) if k in _PAINTABLE]
            kinds = own or [k for k in _PAINTABLE if k not in ("glass", "fabric")]
            body = params.get(main) if main else None
            if target != main and isinstance(body, Finish) and body.kind in _PAINTABLE and (
                    not own or body.kind in own):
                # "a red plastic box with a white lid": a white plastic lid; but a glass pump bottle's "black pump"
                # is in a kind the pump comes in
                kinds = [body.kind]
            value = f"{kinds[0]}:{colour}"
        if _set(prog, params, target, value, m.group(0).strip()):
            stated[target] = (m.group(0).strip(), material)
            t.claim(m.start(), words_end)
            if role:
                t.claim(m.start(3), m.end())
                _role_choice(prog, cat, params, role, m.group(0).strip())
                for flag_name in (f"has_{role}s", f"has_{role}"):  # "glass doors" on a bookshelf: it has doors
                    prm = cat.params.get(flag_name)
                    if prm is not None and flag_name not in params and (prm.is_flag or prm.choices == (False, True)):
                        params[flag_name] = True
                        prog.placed.append(f"{m.group(3)!r} → {flag_name}=true")
                        break
            for flag_name, flag_value in _ROLE_FLAGS.get(target, {}).items():
                allowed = cat.params.get(flag_name)
                if allowed is not None and flag_name not in params and (
                        allowed.choices is None or flag_value in allowed.choices or allowed.is_flag):
                    params[flag_name] = flag_value
        else:
            t.claim(m.start(), m.end())
    if "glass_doors" in cat.params and re.search(r"\bglass(?:-fronted|\s+doors?|\s+fronts?|ed)\b", t.text):
        params["glass_doors"] = True
        prog.placed.append("'glass doors' → glass_doors=true")


def _role_choice(prog: Program, cat: Any, params: dict[str, Any], role: str, phrase: str) -> None:
    """A part noun that is also a shape of that part ("brass knobs", "chrome pulls") sets the shape too."""
    part = _part_of(role)
    for name, prm in cat.params.items():
        if name not in params and name.split("_")[0] == part and role in (prm.choices or ()):
            _set(prog, params, name, role, phrase)
            return


def _matches_body(prog: Program, params: dict[str, Any]) -> None:
    """A stated body finish reaches the parts drawn in it by default (``MATCHES_BODY``): "a green cabinet with two
    doors" has green doors, unless the text gives the doors a finish of their own or says they differ."""
    from seed3d.synth import CATEGORIES

    cat = CATEGORIES[prog.category]  # type: ignore[index]
    if "body_finish" not in params:
        return
    for flag, own in MATCHES_BODY.items():
        if flag in cat.params and flag not in params and own not in params:
            params[flag] = True
            prog.placed.append(f"body finish {_jsonable(params['body_finish'])} → {flag}=true")
    body, top = params["body_finish"], cat.params.get("top_finish")
    if top is not None and "top_finish" not in params and isinstance(body, Finish) and (
            not top.finish_kinds or body.kind in top.finish_kinds):
        params["top_finish"] = body  # "a solid oak desk": its top is oak too, not a drawn stone
        prog.placed.append(f"body finish {_jsonable(body)} → top_finish")


def _choice_parts(choice: str) -> tuple[list[set[str]], bool]:
    """The parts a layout choice's name lists, row by row top first ("drawers_over_doors" → [{drawer}, {door}]),
    and whether the rows are stacked ("over")."""
    rows = [{LAYOUT_PARTS[w] for w in row.split("_") if w in LAYOUT_PARTS} for row in choice.split("_over_")]
    return rows, len(rows) > 1


def _layout_parts(cat: Any) -> set[str]:
    """Every part some choice of the category's ``layout`` names."""
    prm = cat.params.get("layout")
    if prm is None or not prm.choices:
        return set()
    return {p for c in prm.choices if isinstance(c, str) for row in _choice_parts(c)[0] for p in row}


def _layout(prog: Program, t: _Text, params: dict[str, Any], parts: dict[str, int]) -> None:
    """The ``layout`` the counted parts ask for: the choice that has every part the text names with the fewest
    others ("a nightstand with a drawer and a door": drawer_over_door), the rows in the order "above"/"below"
    give ("two doors above two drawers": doors_over_drawers); nothing when two choices fit as well."""
    from seed3d.synth import CATEGORIES

    cat = CATEGORIES[prog.category]  # type: ignore[index]
    named = {p for p, n in parts.items() if n > 0}
    if "layout" in params or not named or not named <= _layout_parts(cat):
        return
    order: tuple[str, str] | None = None
    rel = _RELATION.search(t.text)
    if rel:
        a, b = LAYOUT_PARTS.get(rel.group(1), "shelf"), LAYOUT_PARTS.get(rel.group(3), "shelf")
        if a != b:
            order = (a, b) if rel.group(2) in ("above", "over", "on top of", "atop") else (b, a)
    fits: list[tuple[int, str]] = []
    for choice in cat.params["layout"].choices or ():
        rows, stacked = _choice_parts(str(choice))
        has = set().union(*rows)
        if not has or not named <= has:
            continue
        if order is not None and not (stacked and order[0] in rows[0] and order[1] in rows[-1]):
            continue
        fits.append((len(has - named), str(choice)))
    fits.sort()
    if not fits or (len(fits) > 1 and fits[0][0] == fits[1][0]):
        return
    words = " and ".join(sorted(named)) + (f", {order[0]} above {order[1]}" if order else "")
    if _set(prog, params, "layout", fits[0][1], words):
        if rel and order:
            t.claim(rel.start(2), rel.end(2))
        if "drawer" in named and "drawers" in cat.params and "drawers" in params and fits[0][1] != "drawers" \
                and "drawers" in (cat.params["layout"].choices or ()) and params["drawers"] > 1:
            prog.notes.append(f"layout {fits[0][1]} has one drawer; {params['drawers']} asked for")


#: How much the written order of an unlabelled "A x B (x C)" counts against the category's proportions (log units).
_ORDER_PRIOR = 0.15


def _reassign(size: dict[str, float], dims: tuple[str, ...], cat: Any) -> dict[str, float]:
    """Give an unlabelled group ("180 x 90 cm", read as ``dims``) the dimensions of the category's typical shape
    that fit its values best (a door's "80 x 203 cm" is width x height), the written order breaking ties."""
    import itertools

    lo, hi = np.asarray(cat.extent_min, float), np.asarray(cat.extent_max, float)
    mid = np.sqrt(lo * hi)
    typical = {"depth": mid[0], "width": mid[1], "height": mid[2]}
    values = [size[d] for d in dims if d in size]
    if len(values) != len(dims):
        return size

    def cost(order: tuple[str, ...]) -> float:
        fit = sum(abs(np.log(v / typical[d])) for v, d in zip(values, order, strict=True))
        # the written order, then its first number as the width ("100 x 120 cm" for a window: width x height)
        return float(fit) - (_ORDER_PRIOR if order == dims else _ORDER_PRIOR / 2 if order[0] == dims[0] else 0.0)

    best = min(itertools.permutations(("width", "depth", "height"), len(dims)), key=cost)
    out = {k: v for k, v in size.items() if k not in dims}
    out.update(dict(zip(best, values, strict=True)))
    return out


def _sizes(prog: Program, t: _Text, params: dict[str, Any]) -> None:
    """Stated measurements become fit targets; size words a position within the category's ranges."""
    from seed3d.synth import CATEGORIES

    cat = CATEGORIES[prog.category]  # type: ignore[index]
    groups: list[tuple[str, ...]] = []
    assumed: list[str] = []
    prog.size = parse_size_text(t.text, groups, assumed)
    for dims in groups:
        prog.size = _reassign(prog.size, dims, cat)
    nominal = NOMINAL_DIMENSION.get(prog.category or "")
    if nominal and "longest" in prog.size and nominal not in prog.size:
        prog.size[nominal] = prog.size.pop("longest")  # "an 18 inch dishwasher" is 18 inches wide
        prog.placed.append(f"a bare measurement of a {prog.category} is its {nominal}")
    for phrase in assumed:
        prog.placed.append(f"{phrase.rsplit(' (', 1)[0]!r} has no unit: read in {phrase.rsplit('(', 1)[1][:-1]}")
        at = t.text.find(phrase.rsplit(" (", 1)[0])
        if at >= 0:
            t.claim(at, at + len(phrase.rsplit(" (", 1)[0]))
    round_object = any(n in cat.params for n in ("radius", "seat_radius"))
    if round_object and "depth" in prog.size and "height" not in prog.size:
        prog.size["height"] = prog.size.pop("depth")  # "a bowl 6 cm deep"
    if prog.size:
        for m in re.finditer(r"(?<![\w.])(?:\d+(?:\.\d+)?|\.\d+)[\s-]*(?:mm|cm|m|inch(?:es)?|in|ft|feet|foot|\"|')"
                             r"(?:\s*(?:tall|high|wide|deep|long|in diameter|across))?", t.text):
            t.claim(m.start(), m.end())
        for m in re.finditer(r"\b(?:tall|high|wide|deep|long|height|width|depth|length|diameter|by|x)\b", t.text):
            t.claim(m.start(), m.end())
        prog.placed.append(f"measurements {', '.join(f'{k} {v:.3g} m' for k, v in prog.size.items())} → size fit")
    for word, (dims, pos) in SIZE_WORDS.items():
        for m in re.finditer(r"\b" + word + r"\b", t.text):
            if not t.free(m.start(), m.end()):
                continue
            # "a drawer and a small door": the door's size, not the object's ("a small top-freezer fridge" is small)
            nxt = re.match(r"\s+([a-z]+)\b(?!-)", t.text[m.end():])
            part = singular(nxt.group(1)) if nxt else ""
            if part in COUNT_NOUNS and part != prog.noun and not singular(prog.noun).endswith(part):
                prog.notes.append(f"{word!r} describes the {part}, not the {prog.category}: no size changed")
                t.claim(m.start(), m.end())
                continue
            names = [n for d in (SIZE_PARAMS if dims == ("*",) else dims) for n in SIZE_PARAMS[d]]
            names = [n for n in dict.fromkeys(names) if n in cat.params and n not in params
                     and cat.params[n].lo is not None and not cat.params[n].choices
                     and not (dims != ("*",) and any(d in prog.size for d in dims))]
            for n in names:
                prm = cat.params[n]
                params[n] = float(prm.lo) + pos * (float(prm.hi) - float(prm.lo))  # type: ignore[arg-type]
            if names:
                prog.placed.append(f"{word!r} → {', '.join(f'{n}={params[n]:.3g}' for n in names)}")
            t.claim(m.start(), m.end())


def parse_text(text: str, mapper: NounMapper | None = None, seed: int = 0, embed: bool = True) -> Program:
    """The program a text asks for (see the module doc); ``embed=False`` skips the embedding fallback."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("text must be a non-empty string")
    low = " ".join(text.lower().replace("×", " x ").split())
    low = re.sub(r"\bbuilt[\s-]+in\b", "built-in", low)  # "built in dishwasher": not the clause word "in"
    if mapper is None and embed:
        mapper = default_mapper()
    from seed3d.program.nouns import vocabulary

    low, respelt = _respell(low, mapper.vocab if mapper is not None else vocabulary())
    if re.search(r"\bdraws\b", low):  # the common spelling of "drawers" as said ("chest of draws", "4 draws")
        low = re.sub(r"\bdraws\b", "drawers", low)
        respelt.append("'draws' read as 'drawers'")
    category, noun, conf, how, notes = _category(low, mapper)
    notes = respelt + notes
    prog = Program(category, {}, conf, "text", how, noun, notes=notes)
    if category is None:
        prog.unplaced = [w for w in re.findall(r"[a-z][a-z'-]*", low) if w not in _STOP]
        return prog
    t = _Text(low)
    for m in re.finditer(r"\b" + re.escape(noun) + r"(?:e?s)?\b", low):
        t.claim(m.start(), m.end())
        break
    params: dict[str, Any] = {}
    parts: dict[str, int] = {}
    _sizes(prog, t, params)
    _counts(prog, t, params, parts)
    _counts_after(prog, t, params)
    _phrases(prog, t, params)
    _negations(prog, t, params)
    _finishes(prog, t, params, seed)
    _choices(prog, t, params)
    _layout(prog, t, params, parts)
    _part_choices(prog, t, params)
    _matches_body(prog, params)
    alias = ALIASES.get(noun)
    if alias and alias[1] is not None and not prog.size:
        d, w, h = alias[1]
        prog.size = {"depth": d, "width": w, "height": h}
        prog.placed.append(f"{noun!r} → typical size {w:.2f} x {d:.2f} x {h:.2f} m (w x d x h)")
    prog.params = params
    prog.unplaced += [f"{w!r}: not understood" for w in t.leftover()]
    return prog
