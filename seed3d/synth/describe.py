"""Text descriptions of synthetic assets in varied wording, written from their structured attributes.

The attributes (``asset.metadata["attributes"]``) are the ground truth; the text says the same things —
category, size, colours and materials, doors (count, placement, hinge side), drawers, handles, legs,
controls and category features — with wording, order and units drawn from a seeded generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from seed3d.synth.materials import KIND_WORDS

_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")

_HANDLE_WORDS: dict[str, tuple[str, ...]] = {
    "bar": ("bar handles", "round bar pulls", "tubular handles"),
    "knob": ("round knobs", "knobs", "mushroom knobs"),
    "pull": ("D-shaped pulls", "square pull handles", "bridge handles"),
    "tab": ("flat tab pulls", "slim edge tabs", "minimal tab handles"),
    "arch": ("arch handles", "rectangular bar handles", "flat-topped handles"),
    "lever": ("lever handles", "levers"),
    "cross": ("cross handles", "four-spoke handles"),
}


def number(n: int) -> str:
    """``3`` → ``three`` (digits above twelve)."""
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def finish_words(fin: dict[str, str]) -> str:
    """``{"kind": "wood", "colour": "walnut"}`` → ``walnut wood``."""
    kind, colour = fin["kind"], fin["colour"]
    if kind == "wood":
        return f"{colour} wood"
    if kind == "brushed_metal":
        return f"brushed {colour}"
    if kind == "chrome" or (kind == "stone" and " " in colour):
        return colour
    return f"{colour} {KIND_WORDS[kind]}"


def _pick(rng: np.random.Generator, options: tuple[str, ...] | list[str]) -> str:
    return options[int(rng.integers(len(options)))]


def _length(m: float, rng: np.random.Generator, unit: str) -> str:
    if unit == "m" and m >= 1.0:
        return f"{m:.2f} m"
    if unit == "mm" or m < 0.1:
        return f"{round(m * 1000)} mm"
    return f"{round(m * 100)} cm"


def _size_phrase(size: dict[str, float], rng: np.random.Generator) -> str:
    w, d, h = size["width"], size["depth"], size["height"]
    unit = _pick(rng, ("cm", "cm", "m"))
    style = int(rng.integers(4))
    if style == 0:
        return f"{_length(w, rng, unit)} wide, {_length(d, rng, unit)} deep and {_length(h, rng, unit)} tall"
    if style == 1:
        return f"measuring {round(w * 100)} × {round(d * 100)} × {round(h * 100)} cm (width × depth × height)"
    if style == 2:
        return f"about {_length(h, rng, unit)} high and {_length(w, rng, unit)} wide"
    return f"{_length(h, rng, unit)} tall with a {_length(w, rng, unit)} by {_length(d, rng, unit)} footprint"


def _doors_phrase(doors: list[dict[str, Any]], rng: np.random.Generator) -> str:
    n = len(doors)
    hinges = [d["hinge"] for d in doors]
    window = any(d.get("window") for d in doors)
    if all(d.get("round") for d in doors):
        return "a round porthole door with a glass window, hinged on the left"
    if all(h == "bottom" for h in hinges):
        core = ("a bottom-hinged door that folds down" if n == 1
                else f"{number(n)} drop-down doors hinged at the bottom")
    elif n == 1:
        core = _pick(rng, (f"a single door hinged on the {hinges[0]}", f"one door that opens from the "
                           f"{'right' if hinges[0] == 'left' else 'left'}, hinged on the {hinges[0]}",
                           f"a {hinges[0]}-hinged door"))
    elif n == 2 and sorted(hinges) == ["left", "right"]:
        core = _pick(rng, ("a pair of doors hinged on the outer sides", "two doors opening from the middle",
                           "double doors"))
    else:
        lefts = hinges.count("left")
        core = f"{number(n)} doors ({number(lefts)} hinged on the left, {number(n - lefts)} on the right)"
    places = sorted({d["position"] for d in doors if d["position"] != "front"})
    if n == 1 and places:
        core += " " + _at(places[0])
    if window:
        core += _pick(rng, (" with a glass window", " with glazed panels", ", glass-fronted"))
    return core


def _drawers_phrase(drawers: list[dict[str, Any]], rng: np.random.Generator) -> str:
    n = len(drawers)
    if n == 1:
        pos = drawers[0]["position"]
        return f"a drawer{'' if pos == 'front' else ' ' + _at(pos)}"
    rows = {d["position"].split(" ")[0] for d in drawers}
    if len(rows) > 1:
        return _pick(rng, (f"{number(n)} drawers", f"{number(n)} drawers in {number(len(rows))} rows",
                           f"a stack of {number(n)} drawers"))
    pos = drawers[0]["position"].split(" ")[0]
    where = "" if pos in ("left", "right", "centre", "front") else f" at the {pos}"
    return _pick(rng, (f"{number(n)} side-by-side drawers{where}", f"a row of {number(n)} drawers{where}"))


def _legs_phrase(legs: dict[str, Any], rng: np.random.Generator) -> str:
    style, n = legs.get("style", ""), int(legs.get("count", 0))
    if style == "pedestal":
        return _pick(rng, ("a central pedestal base", "a single pedestal"))
    if style == "feet":
        return "small rubber feet"
    words = {"square": "square", "round": "round", "tapered": "tapered"}.get(style, "")
    return f"{number(n)} {words} legs".replace("  ", " ")


def describe(attrs: dict[str, Any], rng: np.random.Generator, nouns: tuple[str, ...] = ()) -> str:
    """A one-paragraph description from the attributes (wording from ``rng``; their ``nouns`` replace ``nouns``)."""
    cat = attrs.get("category", "object")
    nouns = tuple(attrs.get("nouns") or ()) or nouns
    noun = _pick(rng, nouns) if nouns else cat.replace("_", " ")
    kind = attrs.get("kind")
    if kind and kind not in noun:
        noun = f"{kind} {noun}"
    shape = attrs.get("shape")
    if shape and shape not in noun:
        noun = f"{shape} {noun}"
    materials: dict[str, dict[str, str]] = attrs.get("materials", {})
    roles = list(materials)
    main = finish_words(materials[roles[0]]) if roles else ""
    size = _size_phrase(attrs["size_m"], rng) if "size_m" in attrs else ""
    article = "An" if (main or noun)[:1].lower() in "aeiou" else "A"
    opening = int(rng.integers(3))
    if opening == 0 or not main:
        first = f"{article} {main + ' ' if main else ''}{noun}{', ' + size if size else ''}."
    elif opening == 1:
        first = f"This {noun} is made of {main}{', ' + size if size else ''}."
    else:
        article = "An" if noun[:1].lower() in "aeiou" else "A"
        first = f"{article} {noun} in {main}{', ' + size if size else ''}."
    sentences = [first]
    feats: list[str] = []
    lid = attrs.get("lid")
    if isinstance(lid, dict) and lid.get("type"):
        feats.append({"none": "an open top", "sliding": "a sliding lid", "screw cap": "a screw cap",
                      "screw-on": "a screw-on lid"}.get(lid["type"], f"a lid {lid['type']}"))
    if attrs.get("doors"):
        feats.append(_doors_phrase(attrs["doors"], rng))
    if attrs.get("drawers"):
        feats.append(_drawers_phrase(attrs["drawers"], rng))
    if attrs.get("open_compartments"):
        n = int(attrs["open_compartments"])
        feats.append(f"{number(n)} open compartment{'s' if n > 1 else ''}")
    if attrs.get("shelves"):
        n = int(attrs["shelves"])
        feats.append(_pick(rng, (f"{number(n)} fixed shelf" if n == 1 else f"{number(n)} fixed shelves",
                                 f"{number(n)} internal shel{'f' if n == 1 else 'ves'}")))
    if attrs.get("wheels"):
        n = int(attrs["wheels"])
        feats.append(f"{number(n)} castor wheels" if n == 5 else f"{number(n)} wheels")
    if attrs.get("swivel"):
        feats.append(_pick(rng, ("a swivel seat", "a seat that swivels")))
    if attrs.get("arms") is True:
        feats.append("armrests")
    if feats:
        lead = _pick(rng, ("It has ", "It features ", "It comes with ", "There is "))
        if lead == "There is " and len(feats) > 0 and feats[0][:2] not in ("a ", "an", "on"):
            lead = "It has "
        sentences.append(lead + _join(feats) + ".")
    h = attrs.get("handles")
    if h:
        words = _pick(rng, _HANDLE_WORDS.get(h["style"], ("handles",)))
        fin = materials.get("handles")
        made = f" in {finish_words(fin)}" if fin else ""
        n = int(h["count"])
        if n == 1:
            word = words[:-1] if words.endswith("s") else words
            art = "An" if word[:1].lower() in "aeiou" else "A"
            sentences.append(_pick(rng, (f"It has a single {word}{made}.", f"{art} {word}{made} opens it.")))
        else:
            sentences.append(_pick(rng, (f"It has {number(n)} {words}{made}.", f"{number(n).capitalize()} {words}"
                                         f"{made} open it.", f"Handles: {number(n)} {words}{made}.")))
    controls = []
    if attrs.get("dials"):
        n = int(attrs["dials"])
        controls.append(f"{number(n)} rotary dial{'s' if n > 1 else ''}")
    if attrs.get("buttons"):
        n = int(attrs["buttons"])
        controls.append(f"{number(n)} push button{'s' if n > 1 else ''}")
    if controls:
        sentences.append(f"Controls: {_join(controls)}.")
    if attrs.get("legs"):
        sentences.append(_pick(rng, ("It stands on ", "It rests on ", "Underneath are ")) +
                         _legs_phrase(attrs["legs"], rng) + ".")
    elif attrs.get("base") == "plinth":
        sentences.append(_pick(rng, ("It sits on a recessed plinth.", "A kick plinth runs along the bottom.")))
    for role in roles[1:]:
        if role in ("handles",) or materials[role] == materials[roles[0]]:
            continue
        sentences.append(f"{_pick(rng, ('The ', 'Its '))}{role.replace('_', ' ')} "
                         f"{'is' if not role.endswith('s') else 'are'} {finish_words(materials[role])}.")
    extras = list(attrs.get("extras", []))
    if extras:
        sentences.append(_pick(rng, ("It also has ", "Other details: ", "Details: ")) + _join(extras) + ".")
    return " ".join(sentences)


def _at(position: str) -> str:
    """``top left`` → ``at the top left``; ``middle`` → ``in the middle``."""
    return f"in the {position}" if position.split(" ")[0] in ("middle", "centre") else f"at the {position}"


def _join(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]
