"""Measurements and size words in text: "80 cm tall", "60 x 40 x 80 cm", "a foot high", "small".

The shared vocabulary of sizes (``catalog`` is the ground floor every stage may import): the geometry stage
sizes a generated shape with it, the program stage sets a category's dimensions from it.
"""

from __future__ import annotations

import logging
import re

import numpy as np

from seed3d.errors import InvalidInputError

log = logging.getLogger(__name__)

#: Where size words put an object within its category's size range [lo, hi]: ``lo · (hi / lo) ** t`` (t = 0.5
#: without one; below 0 or above 1 leaves the range). Ignored when the text states a measurement.
SIZE_MODIFIERS: dict[str, float] = {
    "tiny": -0.3, "miniature": -0.2, "mini": -0.2, "small": 0.15, "little": 0.15, "compact": 0.25,
    "large": 0.85, "big": 0.85, "oversized": 1.1, "huge": 1.2, "giant": 1.3, "enormous": 1.3,
}

#: Dimension names a ``RealWorldSize`` may hold: bounding-box sides of the asset frame (x depth, y width,
#: z height), the longer horizontal side (``length``, also diameters) and the longest side.
DIMENSIONS = ("height", "width", "depth", "length", "longest")

#: Meters per unit.
UNITS: dict[str, float] = {
    "mm": 1e-3, "millimeter": 1e-3, "millimetre": 1e-3, "cm": 1e-2, "centimeter": 1e-2, "centimetre": 1e-2,
    "m": 1.0, "meter": 1.0, "metre": 1.0, "in": 0.0254, "inch": 0.0254, '"': 0.0254, "ft": 0.3048,
    "foot": 0.3048, "feet": 0.3048, "'": 0.3048, "yd": 0.9144, "yard": 0.9144,
}

_DIM_WORDS: dict[str, str] = {
    "tall": "height", "high": "height", "height": "height", "wide": "width", "width": "width", "across": "width",
    "deep": "depth", "depth": "depth", "long": "length", "length": "length", "diameter": "length",
}
_NUMBER_WORDS: dict[str, float] = {
    "half a": 0.5, "half an": 0.5, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
_LONG_UNITS = r"(?:millimet(?:er|re)s?|centimet(?:er|re)s?|met(?:er|re)s?|inch(?:es)?|foot|feet|yards?)"
# "in" is a unit only where it cannot be the preposition: "30 in tall", "30 in.", "30 in x 20 in", "30 in,"
_UNIT = (r"(?:mm|cm|m|in(?:\.|(?=\s*(?:[,;:)]|$|(?:tall|high|wide|deep|long|by|and|x)\b|×)))|ft|yd|\"|''|'|"
         + _LONG_UNITS + r")")
_NUM = r"(\d+(?:\.\d+)?|\.\d+)"
_MEASURE = re.compile(
    r"(?<![\w.])(?:" + _NUM + r"\s*-?\s*(" + _UNIT + r")"
    r"|(" + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True)) + r")\s+-?(" + _LONG_UNITS
    + r"))(?![\w])", re.IGNORECASE)
_FEET_INCHES = re.compile(r"(?<![\w.])(\d+)\s*(?:'|ft|feet|foot)\s*(\d+(?:\.\d+)?)\s*(?:\"|''|in(?:ch(?:es)?)?)(?!\w)",
                          re.IGNORECASE)
_TRIPLE = re.compile(r"(?<![\w.])" + _NUM + r"\s*(?:" + _UNIT + r")?\s*[x×*]\s*" + _NUM + r"\s*(?:" + _UNIT
                     + r")?\s*[x×*]\s*" + _NUM + r"\s*(" + _UNIT + r")(?!\w)(\s*\(([^)]*)\))?", re.IGNORECASE)
_PAIR = re.compile(r"(?<![\w.])" + _NUM + r"\s*(?:" + _UNIT + r")?\s*[x×*]\s*" + _NUM + r"\s*(" + _UNIT
                   + r")(?!\w)(\s*\(([^)]*)\))?", re.IGNORECASE)
# "150cm W x 200cm H", "45 W x 40 D x 60 H cm": each number labelled by a letter, the unit inside or after
_LETTERED = re.compile(r"(?<![\w.])" + _NUM + r"\s*(" + _UNIT + r")?\s*(w|d|h|l)\b(?:\s*[x×*,]\s*" + _NUM
                       + r"\s*(" + _UNIT + r")?\s*(w|d|h|l)\b){1,2}(?:\s*(" + _UNIT + r"))?", re.IGNORECASE)
_LETTER_ITEM = re.compile(_NUM + r"\s*(" + _UNIT + r")?\s*(w|d|h|l)\b", re.IGNORECASE)
# "W160 x D45 x H80 cm", "H 55cm x W 40cm x D 20cm": the letter before each number
_LETTER_FIRST = re.compile(r"(?<![\w.])(w|d|h|l)\s*:?\s*" + _NUM + r"\s*(" + _UNIT + r")?(?:\s*[x×*,/]?\s*(w|d|h|l)"
                           r"\s*:?\s*" + _NUM + r"\s*(" + _UNIT + r")?(?![\w.])){1,2}(?:\s*(" + _UNIT + r"))?(?!\w)",
                           re.IGNORECASE)
_LETTER_FIRST_ITEM = re.compile(r"(w|d|h|l)\s*:?\s*" + _NUM + r"\s*(" + _UNIT + r")?", re.IGNORECASE)
_BY = re.compile(r"(?<![\w.])" + _NUM + r"\s*(?:" + _UNIT + r")?\s+by\s+" + _NUM + r"\s*(" + _UNIT + r")(?!\w)",
                 re.IGNORECASE)
# numbers with no unit at all: "120x60", "80 wide 202 high" (read as centimetres, or millimetres above 400)
_BARE_GROUP = re.compile(r"(?<![\w.])" + _NUM + r"\s*[x×*]\s*" + _NUM + r"(?:\s*[x×*]\s*" + _NUM + r")?(?![\w.])",
                         re.IGNORECASE)
_BARE_DIM = re.compile(r"(?<![\w.])" + _NUM + r"\s+(tall|high|wide|deep|long)\b", re.IGNORECASE)
_AFTER = re.compile(r"^\s*(?:(?:in|of)\s+)?(tall|high|height|wide|width|across|deep|depth|long|length|diameter)\b",
                    re.IGNORECASE)
_BEFORE = re.compile(r"\b(height|width|depth|length|diameter)\s*(?:of|is|:|=|about|around|approximately|roughly|\s)*$",
                     re.IGNORECASE)


def _unit_m(unit: str) -> float:
    """Meters per ``unit`` as written ("cm", "Inches", "metres", "''")."""
    u = unit.lower().strip().rstrip(".")
    u = '"' if u == "''" else u
    for cand in (u, u[:-2] if u.endswith("es") else u, u[:-1] if u.endswith("s") else u):
        if cand in UNITS:
            return UNITS[cand]
    raise InvalidInputError(f"unknown length unit {unit!r}")


def _legend_order(legend: str, n: int) -> list[str] | None:
    """The dimensions a legend such as "(W x D x H)" or "(width x height)" names, in order; None without one."""
    words = re.findall(r"width|depth|height|length|w\b|d\b|h\b|l\b", legend.lower())
    if len(words) != n:
        return None
    full = {"w": "width", "d": "depth", "h": "height", "l": "length"}
    return [full.get(w, w) for w in words]


def _bare_unit(values: list[float]) -> float | None:
    """Meters per unit of numbers written without one: centimetres for 10…400, millimetres for 400…4000 (a
    kitchen unit's "600 wide"); None (not read) when any value is outside both."""
    if all(10 <= v <= 400 for v in values):
        return 0.01
    if all(40 <= v <= 4000 for v in values) and max(values) > 400:
        return 0.001
    return None


def parse_size_text(text: str, unlabelled: list[tuple[str, ...]] | None = None,
                    assumed: list[str] | None = None) -> dict[str, float]:
    """Measurements stated in ``text`` as a ``RealWorldSize.dims`` dict (meters); empty when none are stated.

    Reads "50 cm tall", "1.2 m wide", "height of 80 cm", "30-inch", "2 ft long", "5'6\\"", "a foot high",
    "60 × 40 × 80 cm (width × depth × height)" (W × D × H without a legend), "180 x 90 cm" (width x depth
    without a legend), "45 W x 40 D x 60 H cm", "W160 x D45 x H80 cm" and "60 by 40 cm" (width by depth). A
    measurement with no dimension word is the longest side. Numbers with no unit ("120x60", "80 wide") are read as
    centimetres (millimetres above 400; see ``_bare_unit``), each such phrase appended to ``assumed`` when given.
    Values outside 1 mm … 100 m are ignored. ``unlabelled``, when given, receives the dimension names of each group
    read without a legend ("180 x 90 cm": ("width", "depth")), so a caller who knows the object's proportions may
    reassign them.
    """
    dims: dict[str, float] = {}
    taken = np.zeros(len(text), bool)

    def claim(m: re.Match[str]) -> bool:
        if taken[m.start():m.end()].any():
            return False
        taken[m.start():m.end()] = True
        return True

    def put(dim: str, meters: float, phrase: str) -> None:
        if not 1e-3 <= meters <= 100.0:
            log.warning("real_world_size: ignoring %r (%.4g m is not a plausible object size)", phrase, meters)
            return
        dims.setdefault(dim, meters)

    # each number labelled by a letter, after it ("45 W") or before it ("W160"): (number, unit, letter) group indices
    for pattern, item_re, (gn, gu, gl) in ((_LETTERED, _LETTER_ITEM, (1, 2, 3)),
                                          (_LETTER_FIRST, _LETTER_FIRST_ITEM, (2, 3, 1))):
        for m in pattern.finditer(text):
            if not claim(m):
                continue
            items = list(item_re.finditer(m.group(0)))
            tail = m.group(m.re.groups)  # the unit after the last item ("45 W x 40 D x 60 H cm")
            for item in items:
                unit = item.group(gu) or tail or next((i.group(gu) for i in items if i.group(gu)), None)
                if unit is None:
                    continue
                full = {"w": "width", "d": "depth", "h": "height", "l": "length"}[item.group(gl).lower()]
                put(full, float(item.group(gn)) * _unit_m(unit), m.group(0))
    for m in _TRIPLE.finditer(text):
        if not claim(m):
            continue
        scale = _unit_m(m.group(4))
        values = [float(m.group(i)) * scale for i in (1, 2, 3)]
        order = _legend_order(m.group(6) or "", 3)
        if order is None:
            order = ["width", "depth", "height"]
            if unlabelled is not None:
                unlabelled.append(tuple(order))
        for dim, val in zip(order, values, strict=True):
            put(dim, val, m.group(0))
    for m in _PAIR.finditer(text):
        if not claim(m):
            continue
        scale = _unit_m(m.group(3))
        order = _legend_order(m.group(5) or "", 2)
        if order is None:
            order = ["width", "depth"]
            if unlabelled is not None:
                unlabelled.append(tuple(order))
        for dim, val in zip(order, (float(m.group(1)) * scale, float(m.group(2)) * scale), strict=True):
            put(dim, val, m.group(0))
    for m in _BY.finditer(text):
        if claim(m):
            scale = _unit_m(m.group(3))
            put("width", float(m.group(1)) * scale, m.group(0))
            put("depth", float(m.group(2)) * scale, m.group(0))
    for m in _FEET_INCHES.finditer(text):
        if claim(m):
            meters = int(m.group(1)) * 0.3048 + float(m.group(2)) * 0.0254
            put(_dimension_near(text, m) or "longest", meters, m.group(0))
    for m in _MEASURE.finditer(text):
        if not claim(m):
            continue
        if m.group(1) is not None:
            value, unit = float(m.group(1)), m.group(2)
        else:
            value, unit = _NUMBER_WORDS[re.sub(r"\s+", " ", m.group(3).lower())], m.group(4)
        put(_dimension_near(text, m) or "longest", value * _unit_m(unit), m.group(0))
    for m in _BARE_GROUP.finditer(text):
        values = [float(g) for g in m.groups() if g is not None]
        scale = _bare_unit(values)
        if scale is None or not claim(m):
            continue
        order = ["width", "depth", "height"][:len(values)]
        if unlabelled is not None:
            unlabelled.append(tuple(order))
        for dim, val in zip(order, values, strict=True):
            put(dim, val * scale, m.group(0))
        if assumed is not None:
            assumed.append(f"{m.group(0)} ({'cm' if scale == 0.01 else 'mm'})")
    for m in _BARE_DIM.finditer(text):
        scale = _bare_unit([float(m.group(1))])
        if scale is None or not claim(m):
            continue
        put(_DIM_WORDS[m.group(2).lower()], float(m.group(1)) * scale, m.group(0))
        if assumed is not None:
            assumed.append(f"{m.group(0)} ({'cm' if scale == 0.01 else 'mm'})")
    return dims


def _dimension_near(text: str, m: re.Match[str]) -> str | None:
    """The dimension word right after a measurement ("50 cm tall") or right before it ("height of 50 cm")."""
    after = _AFTER.match(text[m.end():m.end() + 24])
    if after:
        return _DIM_WORDS[after.group(1).lower()]
    before = _BEFORE.search(text[max(0, m.start() - 32):m.start()])
    if before:
        return _DIM_WORDS[before.group(1).lower()]
    return None
