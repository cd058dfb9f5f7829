"""Procedural sim-ready object engine: parametric categories → ``Asset`` with parts, joints, PBR textures,
physical materials, real-world sizes and a text description.

``generate(category, seed, params)`` is deterministic: the same (category, seed, params) gives the same asset,
byte for byte once saved; ``params`` sets any of the category's documented parameters and the seed draws the
rest. ``CATEGORIES`` maps each name to its ``Category`` (description, parameters and ranges).
"""

from __future__ import annotations

from typing import Any

from seed3d.asset import Asset
from seed3d.errors import InvalidInputError
from seed3d.synth import appliances, containers, decor, freeform, furniture, household, misc, partnet, rooms, tools
from seed3d.synth.core import SYNTH_VERSION, AssetBuilder, Category, Param

#: The first 27 categories, in their fixed order: the data configs' default (the shipped weights were trained on
#: data cycling through exactly these; a longer default would change every seed's category).
BASE_CATEGORIES: tuple[str, ...] = (
    "cabinet", "wardrobe", "nightstand", "dresser", "bookshelf", "refrigerator", "microwave", "oven", "dishwasher",
    "washing_machine", "box", "trash_can", "jar", "bottle", "mug", "bowl", "vase", "table", "chair", "stool",
    "lamp", "laptop", "faucet", "door", "toolbox", "suitcase", "freeform",
)

#: Modules of the categories added after the first 27 (each lists its own in order): handheld tools and small
#: devices, household appliances and fixtures, room furniture, the kitchen pot and folding chair, then the
#: furnishings (floor and ceiling lamps, range hood, curtain rod, rug), each module appended after the last so the
#: categories before it keep their places.
_MORE = (tools, household, rooms, partnet, decor)

_ALL = {c.name: c for mod in (furniture, appliances, containers, misc, freeform, *_MORE) for c in mod.CATEGORIES}

#: Every category, by CLI name, in a fixed order: ``BASE_CATEGORIES``, then the later ones.
CATEGORIES: dict[str, Category] = {name: _ALL[name] for name in BASE_CATEGORIES} | {
    c.name: c for mod in _MORE for c in mod.CATEGORIES}


def check_categories(categories: Any, owner: str) -> tuple[str, ...] | None:
    """``categories`` as a tuple of known names (None stays None); ``InvalidInputError`` naming ``owner``."""
    if categories is None:
        return None
    categories = tuple(categories)
    unknown = [c for c in categories if c not in CATEGORIES]
    if unknown or not categories:
        raise InvalidInputError(f"{owner}: unknown categories {unknown}; known: {', '.join(CATEGORIES)}")
    return categories


def list_categories() -> list[str]:
    """The category names, in the order ``seed3d synth --list`` shows them."""
    return list(CATEGORIES)


def generate(category: str, seed: int = 0, params: dict[str, Any] | None = None) -> Asset:
    """Build the asset for (``category``, ``seed``, ``params``); the same inputs always give the same asset.

    ``params`` sets any subset of the category's parameters (``CATEGORIES[category].params``; values or their
    text forms, checked against each range); the seed draws the rest. asset.json's metadata lists every
    parameter the build read under ``params``.
    """
    if category not in CATEGORIES:
        raise InvalidInputError(f"unknown category {category!r}; known: {', '.join(CATEGORIES)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidInputError(f"seed must be a non-negative integer, got {seed!r}")
    cat = CATEGORIES[category]
    builder = AssetBuilder(cat, seed, params)
    cat.builder(builder)
    return builder.build()


__all__ = ["BASE_CATEGORIES", "CATEGORIES", "SYNTH_VERSION", "Category", "Param", "check_categories", "generate",
           "list_categories"]
