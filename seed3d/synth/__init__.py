"""Procedural sim-ready object engine: parametric categories → ``Asset`` with parts, joints, PBR textures,
physical materials, real-world sizes and a text description.

``generate(category, seed)`` is deterministic: the same (category, seed) gives the same asset, byte for byte
once saved. ``CATEGORIES`` maps each name to its ``Category`` (description, parameters and ranges).
"""

from __future__ import annotations

from seed3d.asset import Asset
from seed3d.errors import InvalidInputError
from seed3d.synth import appliances, containers, freeform, furniture, misc
from seed3d.synth.core import SYNTH_VERSION, AssetBuilder, Category, Param

_ORDER = (
    "cabinet", "wardrobe", "nightstand", "dresser", "bookshelf", "refrigerator", "microwave", "oven", "dishwasher",
    "washing_machine", "box", "trash_can", "jar", "bottle", "mug", "bowl", "vase", "table", "chair", "stool",
    "lamp", "laptop", "faucet", "door", "toolbox", "suitcase", "freeform",
)

_ALL = {c.name: c for mod in (furniture, appliances, containers, misc, freeform) for c in mod.CATEGORIES}

#: Every category, by CLI name, in a fixed order.
CATEGORIES: dict[str, Category] = {name: _ALL[name] for name in _ORDER}


def list_categories() -> list[str]:
    """The category names, in the order ``seed3d synth --list`` shows them."""
    return list(CATEGORIES)


def generate(category: str, seed: int = 0) -> Asset:
    """Build the asset for (``category``, ``seed``); the same inputs always give the same asset."""
    if category not in CATEGORIES:
        raise InvalidInputError(f"unknown category {category!r}; known: {', '.join(CATEGORIES)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidInputError(f"seed must be a non-negative integer, got {seed!r}")
    cat = CATEGORIES[category]
    builder = AssetBuilder(cat, seed)
    cat.builder(builder)
    return builder.build()


__all__ = ["CATEGORIES", "SYNTH_VERSION", "Category", "Param", "generate", "list_categories"]
