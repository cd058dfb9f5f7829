"""Physical materials a part can be made of: density (kg/m³), Coulomb friction and restitution.

Densities follow the priors in REFERENCES.md (wood 600–1000, plastic 850–1400, aluminium ~2700,
steel ~7850, ceramic 2300–2500, glass ~2500, rubber 1200–1400, fabric 50–250, stone 2550–2750) and
common handbook values for the rest. Densities are for the *solid* volume a part mesh encloses, so
porous or layered materials (fabric, foam, cardboard) use the bulk density of the material as it sits
in an object, not the density of its fibres. Friction is a typical dry coefficient of the material on
itself or on wood, restitution a typical bounce; both are defaults a simulator can start from.
"""

from __future__ import annotations

import dataclasses

from seed3d.asset import PhysicalMaterial
from seed3d.errors import InvalidInputError


def _m(name: str, density: float, friction: float, restitution: float) -> PhysicalMaterial:
    return PhysicalMaterial(name, density=density, friction=friction, restitution=restitution)


#: Known materials by name; ``get_material`` returns copies.
MATERIALS: dict[str, PhysicalMaterial] = {m.name: m for m in (
    _m("wood", 700.0, 0.5, 0.2),           # REFERENCES: 600–1000; oak ~750, pine ~500
    _m("plywood", 600.0, 0.5, 0.2),
    _m("mdf", 750.0, 0.5, 0.15),
    _m("steel", 7850.0, 0.4, 0.3),         # REFERENCES: ~7850
    _m("stainless_steel", 8000.0, 0.4, 0.3),
    _m("iron", 7200.0, 0.4, 0.3),          # cast iron
    _m("aluminium", 2700.0, 0.4, 0.3),     # REFERENCES: ~2700
    _m("brass", 8500.0, 0.4, 0.3),
    _m("copper", 8960.0, 0.4, 0.3),
    _m("plastic", 1100.0, 0.5, 0.2),       # REFERENCES: 850–1400 (same as PhysicalMaterial())
    _m("acrylic", 1180.0, 0.4, 0.3),
    _m("glass", 2500.0, 0.4, 0.2),         # REFERENCES: ~2500
    _m("ceramic", 2400.0, 0.5, 0.2),       # REFERENCES: 2300–2500
    _m("porcelain", 2400.0, 0.5, 0.2),
    _m("rubber", 1300.0, 0.9, 0.6),        # REFERENCES: 1200–1400
    _m("silicone", 1100.0, 0.8, 0.4),
    _m("fabric", 150.0, 0.7, 0.05),        # REFERENCES: 50–250 (upholstery as it drapes over a part)
    _m("leather", 860.0, 0.6, 0.1),
    _m("foam", 40.0, 0.8, 0.1),            # flexible polyurethane foam 25–60
    _m("cork", 240.0, 0.6, 0.3),
    _m("stone", 2650.0, 0.6, 0.15),        # REFERENCES: 2550–2750
    _m("marble", 2700.0, 0.5, 0.15),
    _m("granite", 2700.0, 0.6, 0.15),
    _m("concrete", 2400.0, 0.7, 0.1),
    _m("cardboard", 250.0, 0.5, 0.1),      # corrugated board: air in the flutes
    _m("paper", 800.0, 0.5, 0.05),         # stacked paper (a book block)
)}

#: Other spellings accepted by ``get_material``.
ALIASES: dict[str, str] = {
    "aluminum": "aluminium",
    "metal": "steel",
    "stainless": "stainless_steel",
    "cast_iron": "iron",
    "timber": "wood",
    "polymer": "plastic",
    "abs": "plastic",
    "cloth": "fabric",
    "textile": "fabric",
    "rock": "stone",
    "paperboard": "cardboard",
}


def material_names() -> list[str]:
    """Names ``get_material`` knows, sorted (aliases not included)."""
    return sorted(MATERIALS)


def get_material(name: str) -> PhysicalMaterial:
    """A copy of the material called ``name`` (case, spaces and hyphens ignored; aliases allowed).

    Unknown names raise ``InvalidInputError`` listing the known ones.
    """
    if not isinstance(name, str):
        raise InvalidInputError(f"material name must be a string, got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    key = ALIASES.get(key, key)
    if key not in MATERIALS:
        raise InvalidInputError(
            f"unknown material {name!r}; known materials: {', '.join(material_names())} "
            f"(aliases: {', '.join(sorted(ALIASES))})")
    return dataclasses.replace(MATERIALS[key])
