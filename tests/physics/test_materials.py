"""Material table: known names, priors from REFERENCES.md, aliases, copies and errors."""

from __future__ import annotations

import pytest

from seed3d.asset import PhysicalMaterial
from seed3d.errors import InvalidInputError
from seed3d.physics.materials import ALIASES, MATERIALS, get_material, material_names

REQUIRED = ("wood", "steel", "aluminium", "plastic", "glass", "ceramic", "rubber", "fabric", "foam", "stone",
            "cardboard")

# Density ranges (kg/m³) from REFERENCES.md.
PRIORS = {"wood": (600, 1000), "plastic": (850, 1400), "aluminium": (2600, 2800), "steel": (7750, 7950),
          "ceramic": (2300, 2500), "glass": (2400, 2600), "rubber": (1200, 1400), "fabric": (50, 250),
          "stone": (2550, 2750)}


def test_required_materials_exist_and_are_physical() -> None:
    for name in REQUIRED:
        m = MATERIALS[name]
        assert isinstance(m, PhysicalMaterial) and m.name == name
        assert m.density > 0 and m.friction >= 0 and 0 <= m.restitution <= 1
    assert len(MATERIALS) >= 15
    assert all(key == m.name for key, m in MATERIALS.items())


@pytest.mark.parametrize(("name", "bounds"), sorted(PRIORS.items()))
def test_densities_follow_reference_priors(name: str, bounds: tuple[float, float]) -> None:
    lo, hi = bounds
    assert lo <= get_material(name).density <= hi


def test_relative_densities_make_sense() -> None:
    d = {n: get_material(n).density for n in material_names()}
    assert d["foam"] < d["fabric"] < d["wood"] < d["plastic"] < d["aluminium"] < d["steel"] < d["brass"]
    assert get_material("rubber").friction > get_material("steel").friction
    assert get_material("rubber").restitution > get_material("wood").restitution


def test_plastic_matches_the_data_model_default() -> None:
    default = PhysicalMaterial()
    plastic = get_material("plastic")
    assert (plastic.name, plastic.density, plastic.friction, plastic.restitution) == (
        default.name, default.density, default.friction, default.restitution)


def test_lookup_normalises_names_and_aliases() -> None:
    assert get_material("  Stainless-Steel ").name == "stainless_steel"
    assert get_material("ALUMINUM").name == "aluminium"
    assert get_material("metal").density == MATERIALS["steel"].density
    for alias, target in ALIASES.items():
        assert target in MATERIALS, alias


def test_get_material_returns_a_copy() -> None:
    m = get_material("wood")
    m.density = 1.0
    assert MATERIALS["wood"].density == 700.0
    assert get_material("wood").density == 700.0


def test_unknown_material_lists_known_names() -> None:
    with pytest.raises(InvalidInputError) as info:
        get_material("unobtainium")
    message = str(info.value)
    assert "unobtainium" in message
    for name in REQUIRED:
        assert name in message
    with pytest.raises(InvalidInputError):
        get_material(7)  # type: ignore[arg-type]
