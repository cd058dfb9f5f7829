"""Procedural PBR material library: small tileable albedo and metallic-roughness maps, named colours, and
the physical material (density, friction, restitution) that goes with each finish.

A ``Finish`` is what a builder asks for ("walnut wood", "stainless brushed metal"); ``pbr_material`` turns
it into a ``PBRMaterial`` whose factors are 1 and whose maps carry the values (glTF packing: G = roughness,
B = metallic), so textured and untextured consumers agree. Physical values come from
``seed3d.physics.materials`` when that module knows the name, else from ``FALLBACK_PHYSICAL`` here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from seed3d.asset import PBRMaterial, PhysicalMaterial
from seed3d.typed import FloatArray, UInt8Array

logger = logging.getLogger(__name__)

#: Visual finish kinds the library can paint.
KINDS: tuple[str, ...] = (
    "wood", "painted_wood", "brushed_metal", "painted_metal", "chrome", "plastic", "glass", "ceramic",
    "fabric", "rubber", "stone",
)

#: Named sRGB colours per finish kind (the names go into descriptions).
PALETTES: dict[str, dict[str, tuple[float, float, float]]] = {
    "wood": {
        "oak": (0.72, 0.53, 0.34), "walnut": (0.42, 0.27, 0.17), "cherry": (0.62, 0.33, 0.21),
        "birch": (0.86, 0.75, 0.59), "pine": (0.83, 0.66, 0.43), "maple": (0.87, 0.71, 0.51),
        "mahogany": (0.47, 0.21, 0.14), "dark-stained": (0.22, 0.15, 0.11), "teak": (0.64, 0.45, 0.26),
    },
    "painted_wood": {
        "white": (0.93, 0.93, 0.91), "cream": (0.93, 0.89, 0.78), "light grey": (0.75, 0.76, 0.77),
        "charcoal": (0.22, 0.23, 0.25), "black": (0.08, 0.08, 0.09), "navy blue": (0.15, 0.2, 0.36),
        "sage green": (0.6, 0.68, 0.56), "dusty pink": (0.84, 0.66, 0.66), "mustard yellow": (0.84, 0.66, 0.2),
        "teal": (0.14, 0.45, 0.47),
    },
    "brushed_metal": {
        "stainless steel": (0.76, 0.76, 0.77), "aluminium": (0.86, 0.87, 0.89), "brass": (0.84, 0.67, 0.37),
        "copper": (0.83, 0.52, 0.39), "bronze": (0.6, 0.45, 0.3), "black steel": (0.2, 0.2, 0.21),
        "gold": (0.9, 0.75, 0.4),
    },
    "painted_metal": {
        "white": (0.92, 0.92, 0.92), "black": (0.07, 0.07, 0.08), "silver grey": (0.66, 0.67, 0.69),
        "red": (0.72, 0.12, 0.1), "blue": (0.16, 0.3, 0.62), "green": (0.24, 0.48, 0.3),
        "yellow": (0.9, 0.75, 0.15), "anthracite": (0.18, 0.19, 0.2), "cream": (0.92, 0.88, 0.76),
        "orange": (0.9, 0.45, 0.12),
    },
    "chrome": {"chrome": (0.93, 0.93, 0.94), "polished nickel": (0.86, 0.84, 0.8), "polished brass": (0.9, 0.74, 0.4)},
    "plastic": {
        "white": (0.94, 0.94, 0.93), "black": (0.06, 0.06, 0.07), "grey": (0.55, 0.56, 0.57),
        "red": (0.78, 0.1, 0.1), "blue": (0.12, 0.32, 0.72), "green": (0.18, 0.58, 0.28),
        "yellow": (0.95, 0.8, 0.12), "orange": (0.95, 0.47, 0.1), "beige": (0.84, 0.78, 0.66),
        "teal": (0.1, 0.55, 0.55), "pink": (0.93, 0.55, 0.68), "purple": (0.45, 0.25, 0.6),
    },
    "glass": {
        "clear": (0.9, 0.95, 0.95), "green": (0.42, 0.7, 0.48), "amber": (0.8, 0.53, 0.22),
        "blue": (0.45, 0.62, 0.86), "smoked": (0.33, 0.33, 0.35), "frosted": (0.86, 0.88, 0.9),
    },
    "ceramic": {
        "white": (0.95, 0.94, 0.92), "cream": (0.93, 0.88, 0.77), "terracotta": (0.74, 0.4, 0.26),
        "celadon": (0.65, 0.78, 0.68), "cobalt blue": (0.17, 0.27, 0.62), "matte black": (0.1, 0.1, 0.1),
        "speckled grey": (0.62, 0.62, 0.6), "mustard": (0.82, 0.64, 0.22), "blush pink": (0.9, 0.7, 0.68),
        "forest green": (0.17, 0.38, 0.25),
    },
    "fabric": {
        "grey": (0.5, 0.5, 0.52), "beige": (0.78, 0.7, 0.58), "navy": (0.14, 0.18, 0.32),
        "olive green": (0.42, 0.45, 0.25), "mustard": (0.8, 0.62, 0.2), "burgundy": (0.45, 0.1, 0.15),
        "charcoal": (0.2, 0.2, 0.22), "sky blue": (0.5, 0.65, 0.82),
    },
    "rubber": {"black": (0.05, 0.05, 0.05), "dark grey": (0.18, 0.18, 0.19)},
    "stone": {
        "white marble": (0.9, 0.9, 0.88), "black marble": (0.12, 0.12, 0.13), "grey granite": (0.5, 0.5, 0.5),
        "slate": (0.3, 0.32, 0.35), "travertine": (0.83, 0.76, 0.64),
    },
}

#: Words used for a kind in descriptions.
KIND_WORDS: dict[str, str] = {
    "wood": "wood", "painted_wood": "painted wood", "brushed_metal": "brushed metal",
    "painted_metal": "painted metal", "chrome": "polished metal", "plastic": "plastic", "glass": "glass",
    "ceramic": "ceramic", "fabric": "fabric", "rubber": "rubber", "stone": "stone",
}

#: Finish kinds that are metal (containers made of them use the effective density of sheet metal walls).
METAL_KINDS: tuple[str, ...] = ("brushed_metal", "painted_metal", "chrome")

#: Physical material name for each finish kind (brushed metals pick by colour, see ``physical_name``).
_PHYSICAL_OF_KIND: dict[str, str] = {
    "wood": "wood", "painted_wood": "wood", "brushed_metal": "steel", "painted_metal": "steel",
    "chrome": "steel", "plastic": "plastic", "glass": "glass", "ceramic": "ceramic", "fabric": "fabric",
    "rubber": "rubber", "stone": "stone",
}

#: Used only where ``seed3d.physics.materials`` does not know a name. Densities kg/m³ (REFERENCES.md priors);
#: the composite entries are effective densities of parts whose insides are not modelled (a fridge wall is
#: sheet steel around foam, a laptop is mostly air and boards, a camera lens is glass elements with air between
#: them in a barrel: 860–1,190 kg/m³ over its cylinder for today's zoom lenses; a moulded shell, an office chair's
#: seat or back, is a hollow plastic moulding: about 3 kg over a 0.5 × 0.5 × 0.08 m seat).
FALLBACK_PHYSICAL: dict[str, tuple[float, float, float]] = {
    "wood": (700.0, 0.5, 0.2), "steel": (7850.0, 0.45, 0.3), "aluminium": (2700.0, 0.4, 0.3),
    "stainless_steel": (8000.0, 0.4, 0.3), "brass": (8500.0, 0.4, 0.3), "copper": (8960.0, 0.4, 0.3),
    "marble": (2700.0, 0.5, 0.15), "granite": (2700.0, 0.6, 0.15), "plastic": (1100.0, 0.45, 0.3),
    "glass": (2500.0, 0.3, 0.2), "ceramic": (2400.0, 0.5, 0.15), "fabric": (150.0, 0.8, 0.05),
    "rubber": (1300.0, 1.0, 0.6), "stone": (2650.0, 0.6, 0.1), "foam": (40.0, 0.8, 0.05),
    "appliance_shell": (350.0, 0.45, 0.2), "sheet_metal": (1300.0, 0.4, 0.3), "electronics": (1300.0, 0.45, 0.2),
    "camera_lens": (1000.0, 0.4, 0.3), "moulded_shell": (250.0, 0.5, 0.2),
    "luggage_shell": (250.0, 0.5, 0.2), "upholstery": (120.0, 0.8, 0.05),
}


@dataclass(frozen=True)
class Finish:
    """A visual finish: kind (see ``KINDS``), colour name and its sRGB value."""

    kind: str
    colour: str
    rgb: tuple[float, float, float]

    @property
    def words(self) -> str:
        """How a description names it, e.g. ``walnut wood`` or ``red plastic``."""
        if self.kind == "wood":
            return f"{self.colour} wood"
        if self.kind in ("brushed_metal", "chrome") or (self.kind == "stone" and " " in self.colour):
            return self.colour if self.kind != "brushed_metal" else f"brushed {self.colour}"
        return f"{self.colour} {KIND_WORDS[self.kind]}"

    def to_dict(self) -> dict[str, str]:
        """JSON-able attributes."""
        return {"kind": self.kind, "colour": self.colour}


def finish(kind: str, colour: str) -> Finish:
    """The finish of ``kind`` called ``colour`` in ``PALETTES``."""
    return Finish(kind, colour, PALETTES[kind][colour])


#: Colour words a finish may be given in, beyond its kind's palette (``any_finish``): the palettes' own names
#: and plain colour words, sRGB.
COLOURS: dict[str, tuple[float, float, float]] = {
    **{name: rgb for pal in reversed(list(PALETTES.values())) for name, rgb in pal.items()},
    "red": (0.72, 0.12, 0.1), "dark red": (0.45, 0.07, 0.07), "orange": (0.9, 0.45, 0.12),
    "yellow": (0.9, 0.75, 0.15), "green": (0.24, 0.48, 0.3), "dark green": (0.12, 0.3, 0.17),
    "light green": (0.55, 0.75, 0.45), "blue": (0.16, 0.3, 0.62), "light blue": (0.55, 0.7, 0.88),
    "dark blue": (0.1, 0.15, 0.35), "navy": (0.14, 0.18, 0.32), "turquoise": (0.2, 0.7, 0.68),
    "purple": (0.45, 0.25, 0.6), "lilac": (0.72, 0.62, 0.82), "pink": (0.93, 0.55, 0.68),
    "brown": (0.42, 0.27, 0.15), "tan": (0.76, 0.62, 0.45), "beige": (0.84, 0.78, 0.66),
    "cream": (0.93, 0.89, 0.78), "ivory": (0.95, 0.93, 0.85), "white": (0.93, 0.93, 0.92),
    "grey": (0.55, 0.56, 0.57), "light grey": (0.75, 0.76, 0.77), "dark grey": (0.25, 0.26, 0.27),
    "black": (0.07, 0.07, 0.08), "silver": (0.75, 0.76, 0.78), "gold": (0.9, 0.75, 0.4),
}


def any_finish(kind: str, colour: str) -> Finish:
    """A finish of a known ``kind`` in ``colour``: its palette's colour of that name, else a ``COLOURS`` word.

    Raises ``KeyError`` with a message naming what is known.
    """
    if kind not in PALETTES:
        raise KeyError(f"unknown finish kind {kind!r}; known: {', '.join(KINDS)}")
    if colour in PALETTES[kind]:
        return Finish(kind, colour, PALETTES[kind][colour])
    if colour in COLOURS:
        return Finish(kind, colour, COLOURS[colour])
    raise KeyError(f"unknown colour {colour!r} for {kind}; known: {', '.join(PALETTES[kind])} "
                   f"or a colour word ({', '.join(sorted(COLOURS))})")


def pick_finish(rng: np.random.Generator, kinds: tuple[str, ...] | list[str] | str,
                colours: tuple[str, ...] | None = None) -> Finish:
    """Draw a kind (one of ``kinds``) and a colour from its palette (restricted to ``colours`` if given)."""
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    kind = kinds[int(rng.integers(len(kinds)))]
    names = [c for c in PALETTES[kind] if colours is None or c in colours] or list(PALETTES[kind])
    return finish(kind, names[int(rng.integers(len(names)))])


# --------------------------------------------------------------------------------------------- textures


def _noise(rng: np.random.Generator, size: int, feature: float, stretch: float = 1.0) -> FloatArray:
    """Tileable band-limited noise in [0, 1]: white noise low-passed in the Fourier domain.

    ``feature`` is the blob size in pixels; ``stretch`` > 1 elongates blobs along the u (column) axis.
    """
    white = rng.standard_normal((size, size))
    f = np.fft.fftfreq(size)
    fv, fu = np.meshgrid(f, f, indexing="ij")
    k2 = (fu * stretch) ** 2 + fv**2
    out = np.fft.ifft2(np.fft.fft2(white) * np.exp(-k2 * (np.pi * feature) ** 2)).real
    lo, hi = out.min(), out.max()
    return (out - lo) / max(hi - lo, 1e-12)


def _to_u8(x: FloatArray) -> UInt8Array:
    return np.round(np.clip(x, 0.0, 1.0) * 255.0).astype(np.uint8)


def texture_maps(fin: Finish, rng: np.random.Generator, size: int = 64) -> tuple[UInt8Array, UInt8Array]:
    """Procedural (base colour sRGB, metallic-roughness) maps for a finish; RGBA base colour for glass."""
    v, u = np.mgrid[0:size, 0:size] / size
    rgb = np.asarray(fin.rgb, np.float64)
    n1 = _noise(rng, size, size / 10)
    alpha = None
    kind = fin.kind
    if kind == "wood":
        warp = _noise(rng, size, size / 6, stretch=0.25)
        freq = int(rng.integers(7, 15))
        rings = (0.5 + 0.5 * np.sin(2 * np.pi * (v * freq + 0.9 * warp))) ** 2
        fine = _noise(rng, size, 1.0, stretch=0.1)
        tone = 0.86 + 0.18 * rings + 0.1 * (fine - 0.5)
        color = rgb[None, None] * tone[..., None]
        rough = 0.58 + 0.2 * rings + 0.05 * n1
        metal = np.zeros_like(u)
    elif kind == "brushed_metal":
        streak = _noise(rng, size, 0.8, stretch=0.04)
        color = rgb[None, None] * (0.88 + 0.14 * streak)[..., None]
        rough = 0.28 + 0.14 * streak + 0.04 * n1
        metal = np.full_like(u, 0.96)
    elif kind == "chrome":
        color = rgb[None, None] * (0.97 + 0.03 * n1)[..., None]
        rough = 0.06 + 0.06 * n1
        metal = np.ones_like(u)
    elif kind == "fabric":
        weave_f = int(rng.integers(14, 24))
        weave = np.abs(np.sin(np.pi * u * weave_f * 2)) * np.abs(np.sin(np.pi * v * weave_f * 2))
        color = rgb[None, None] * (0.78 + 0.16 * weave + 0.12 * (n1 - 0.5))[..., None]
        rough = 0.86 + 0.1 * weave
        metal = np.zeros_like(u)
    elif kind == "stone":
        turb = _noise(rng, size, size / 8) + 0.5 * _noise(rng, size, size / 20)
        if "marble" in fin.colour or fin.colour == "travertine":
            veins = np.abs(np.sin(2 * np.pi * (u * 2 + v + 2.5 * turb))) ** 0.25
            shade = 0.62 + 0.38 * veins if rgb.mean() > 0.4 else 1.0 + 2.5 * (1 - veins)
            color = rgb[None, None] * shade[..., None]
        else:
            grain = _noise(rng, size, 0.7)
            color = rgb[None, None] * (0.65 + 0.7 * grain)[..., None]
        rough = 0.25 + 0.25 * _noise(rng, size, size / 12)
        metal = np.zeros_like(u)
    elif kind == "ceramic":
        speck = (_noise(rng, size, 0.6) > 0.8).astype(np.float64)
        color = rgb[None, None] * (0.97 + 0.03 * n1 - 0.25 * speck)[..., None]
        rough = 0.12 + 0.1 * n1 + 0.3 * speck
        metal = np.zeros_like(u)
    elif kind == "glass":
        color = rgb[None, None] * (0.98 + 0.02 * n1)[..., None]
        rough = np.full_like(u, 0.45 if fin.colour == "frosted" else 0.04) + 0.03 * n1
        metal = np.zeros_like(u)
        alpha = np.full_like(u, 0.65 if fin.colour == "frosted" else 0.32)
    else:  # painted_wood, painted_metal, plastic, rubber: a flat colour with a little surface noise
        base_rough = {"painted_wood": 0.5, "painted_metal": 0.38, "plastic": 0.42, "rubber": 0.9}[kind]
        peel = _noise(rng, size, 1.2)
        color = rgb[None, None] * (0.96 + 0.05 * n1 + 0.02 * peel)[..., None]
        rough = base_rough + 0.08 * (peel - 0.5) + 0.04 * n1
        metal = np.zeros_like(u)
    base = _to_u8(color)
    if alpha is not None:
        base = np.concatenate([base, _to_u8(alpha)[..., None]], axis=2)
    mr = np.zeros((size, size, 3), np.uint8)
    mr[..., 1] = _to_u8(rough)
    mr[..., 2] = _to_u8(metal)
    return base, mr


def pbr_material(fin: Finish, rng: np.random.Generator, size: int = 64, name: str | None = None) -> PBRMaterial:
    """A textured ``PBRMaterial`` for a finish: factors 1 (alpha aside), values in the maps."""
    base, mr = texture_maps(fin, rng, size)
    label = name or f"{fin.kind}_{fin.colour.replace(' ', '_').replace('-', '_')}"
    return PBRMaterial(label, (1.0, 1.0, 1.0, 1.0), metallic=1.0, roughness=1.0, base_color_map=base,
                       metallic_roughness_map=mr)


def physical_name(fin: Finish) -> str:
    """The physical material a finish is made of (brass and copper finishes are those metals)."""
    if fin.kind in ("brushed_metal", "chrome"):
        for metal in ("brass", "copper", "aluminium"):
            if metal in fin.colour:
                return metal
        if fin.colour in ("bronze", "gold"):
            return "brass"
        if fin.colour == "stainless steel":
            return "stainless_steel"
    if fin.kind == "stone":
        return "marble" if "marble" in fin.colour else "granite" if "granite" in fin.colour else "stone"
    return _PHYSICAL_OF_KIND[fin.kind]


def physical_material(name: str) -> PhysicalMaterial:
    """Physical values for ``name``: from ``seed3d.physics.materials`` when it knows the name, else ours."""
    try:
        from seed3d.physics.materials import get_material
    except ImportError:
        get_material = None
    if get_material is not None:
        try:
            got = get_material(name)
            return PhysicalMaterial(name, got.density, got.friction, got.restitution)
        except (KeyError, ValueError, LookupError):
            logger.debug("physics material table has no %r; using the synth fallback", name)
    if name not in FALLBACK_PHYSICAL:
        raise KeyError(f"unknown physical material {name!r}; known: {', '.join(sorted(FALLBACK_PHYSICAL))}")
    density, friction, restitution = FALLBACK_PHYSICAL[name]
    return PhysicalMaterial(name, density, friction, restitution)
