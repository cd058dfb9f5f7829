"""Parts painted from the words of a prompt: the part a material names takes it (visual and physical), the rest
take the object's main material, fittings keep theirs, and words that name no known object change nothing."""

from __future__ import annotations

import numpy as np
import pytest

from seed3d.asset import Asset
from seed3d.program.paint import paint_parts
from seed3d.synth import generate


@pytest.fixture(scope="module")
def cabinet() -> Asset:
    return generate("cabinet", seed=0)


def test_named_parts_take_their_material_and_the_rest_the_main_one(cabinet: Asset) -> None:
    painted, what = paint_parts(cabinet, "an oak wood cabinet with brass handles")
    by_label = {p.name: p.label for p in painted.parts}
    assert what and set(what) == {p.name for p in painted.parts if p.label in ("body", "door", "drawer", "handle")}
    for part in painted.parts:
        if part.label == "handle":
            assert what[part.name] == "brushed_metal:brass" and part.physical.name == "brass"
        elif part.name in what:
            assert what[part.name] == "wood:oak" and part.physical.name == "wood"
        if part.name in what:
            assert part.inertial is None  # recomputed from the new density by the physics step
            assert part.mesh.uv is not None and len(part.mesh.uv) == len(part.mesh.vertices)
    brass = next(p for p in painted.parts if by_label[p.name] == "handle")
    oak = next(p for p in painted.parts if by_label[p.name] == "body")
    assert brass.physical.density > 4 * oak.physical.density
    # the grain: an oak map is not one flat colour
    assert np.asarray(oak.material.base_color_map, float)[..., :3].std() > 2.0
    assert painted.metadata["painted"] == what
    assert [j.name for j in painted.joints] == [j.name for j in cabinet.joints]


def test_a_kind_without_colour_changes_only_the_physical_material(cabinet: Asset) -> None:
    painted, what = paint_parts(cabinet, "a plastic cabinet")
    assert what and all(v == "physical:plastic" for v in what.values())
    for before, after in zip(cabinet.parts, painted.parts, strict=True):
        if after.name in what:
            assert after.physical.name == "plastic" and after.material is before.material
    _, what = paint_parts(cabinet, "a white plastic cabinet with black handles")
    assert set(what.values()) == {"plastic:white", "plastic:black"}


def test_words_for_no_known_object_paint_nothing(cabinet: Asset) -> None:
    for text in ("a rubber duck", "a cabinet", "", None):
        same, what = paint_parts(cabinet, text)
        assert what == {} and same is cabinet
