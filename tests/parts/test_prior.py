"""seed3d.parts.prior: label-size priors fitted from per-point parts, saved and loaded, used in relabelling;
label-material priors fitted from the materials of parts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from seed3d.asset import Asset, Mesh, Part, PhysicalMaterial
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.parts.prior import (
    MATERIAL_FILE,
    PRIOR_FILE,
    MaterialPrior,
    SizePrior,
    beside,
    fit_material_prior,
    fit_size_prior,
    wall,
)
from seed3d.physics._geometry import signed_volume
from seed3d.synth.primitives import box, difference

LABELS = ("body", "handle", "drawer")


def _shapes() -> tuple[np.ndarray, np.ndarray]:
    """Ten shapes of 1,000 points: a body (~90 %), a drawer (~9.5 %) and a handle (0.5 %)."""
    part = np.zeros((10, 1000), np.int64)
    part[:, 900:995] = 1
    part[:, 995:] = 2
    label = np.select([part == 0, part == 1], [0, 2], 1)
    return part, label


def test_fitted_prior_prefers_each_label_at_its_size() -> None:
    prior = fit_size_prior(*_shapes(), LABELS)
    assert prior.counts == (10, 10, 10)
    assert int(np.argmax(prior.score(0.9))) == LABELS.index("body")
    assert int(np.argmax(prior.score(0.1))) == LABELS.index("drawer")
    assert int(np.argmax(prior.score(0.005))) == LABELS.index("handle")
    assert np.allclose(np.exp(prior.log_prob).sum(axis=1), 1.0)
    assert np.isfinite(prior.score(0.0)).all() and np.isfinite(prior.score(1.0)).all()


def test_unseen_label_gets_a_flat_row() -> None:
    part, label = _shapes()
    prior = fit_size_prior(part, label, (*LABELS, "wheel"))
    assert prior.counts[-1] == 0
    assert np.allclose(prior.log_prob[-1], prior.log_prob[-1][0])


def test_save_load_round_trip(tmp_path: Path) -> None:
    prior = fit_size_prior(*_shapes(), LABELS)
    path = prior.save(tmp_path)
    assert path.name == PRIOR_FILE
    back = SizePrior.load(tmp_path)
    assert back is not None and back.labels == LABELS and back.counts == prior.counts
    assert np.allclose(back.log_prob, prior.log_prob, atol=1e-5)
    assert SizePrior.load(tmp_path / "nowhere") is None


def test_bad_input_and_files_raise(tmp_path: Path) -> None:
    part, label = _shapes()
    with pytest.raises(InvalidInputError, match="matching"):
        fit_size_prior(part[:, :10], label, LABELS)
    with pytest.raises(InvalidInputError, match="label ids"):
        fit_size_prior(part, label + 5, LABELS)
    (tmp_path / PRIOR_FILE).write_text("{not json")
    with pytest.raises(AssetFormatError, match="not a size prior"):
        SizePrior.load(tmp_path)
    prior = fit_size_prior(part, label, LABELS)
    doc = json.loads(prior.save(tmp_path).read_text())
    doc["log_prob"] = doc["log_prob"][:2]
    (tmp_path / PRIOR_FILE).write_text(json.dumps(doc))
    with pytest.raises(AssetFormatError, match="do not match"):
        SizePrior.load(tmp_path)


STEEL = PhysicalMaterial("steel", 7850.0, 0.4, 0.1)
WOOD = PhysicalMaterial("wood", 700.0, 0.5, 0.3)
RUBBER = PhysicalMaterial("rubber", 1300.0, 0.9, 0.5)


def _asset(*parts: tuple[str, PhysicalMaterial]) -> Asset:
    cube = box([0.0, 0.0, 0.0], [0.1, 0.1, 0.1])
    return Asset("a", [Part(f"p{k}", Mesh(cube.vertices, cube.faces), label=label, physical=m)
                       for k, (label, m) in enumerate(parts)], joints_known=False)


def test_material_prior_gives_each_label_its_commonest_material() -> None:
    prior = fit_material_prior([_asset(("handle", STEEL), ("handle", WOOD), ("wheel", RUBBER)),
                                _asset(("handle", STEEL), ("door", WOOD), ("door", STEEL))])
    assert prior.material("handle") == STEEL and prior.material("wheel") == RUBBER
    assert prior.counts["handle"] == {"steel": 2, "wood": 1}
    assert prior.material("door") == STEEL  # a tie goes to the first name
    assert prior.material("lid") is None  # never seen
    got = prior.material("handle")
    assert got is not None
    got.density = 1.0  # a copy: the prior's own is untouched
    assert prior.material("handle") == STEEL


def test_material_prior_picks_a_labels_material_by_the_labels_beside_it(tmp_path: Path) -> None:
    """A base is electronics in most training assets (laptops, with a screen beside it) and steel in desk lamps
    (with a shade beside it): alone the label gives electronics, beside a shade steel, beside a screen
    electronics; labels the prior never saw beside a base change nothing. It survives a round trip."""
    glass = PhysicalMaterial("glass", 2500.0, 0.4, 0.1)
    laptops = [_asset(("base", RUBBER), ("screen", glass), ("keyboard", RUBBER)) for _ in range(3)]
    lamps = [_asset(("base", STEEL), ("shade", STEEL), ("arm", STEEL)) for _ in range(2)]
    prior = fit_material_prior(laptops + lamps)
    assert prior.counts["base"] == {"rubber": 3, "steel": 2}
    assert prior.together["base"] == {"rubber": {"screen": 3, "keyboard": 3}, "steel": {"shade": 2, "arm": 2}}
    assert beside(["base", "shade", "arm", "shade"], 1) == {"base", "shade", "arm"}
    assert prior.material("base") == RUBBER
    assert prior.material("base", context={"shade", "arm", "bulb"}) == STEEL
    assert prior.material("base", context=["shade"]) == STEEL
    assert prior.material("base", context={"screen"}) == RUBBER
    assert prior.material("base", context={"wheel"}) == RUBBER  # never beside a base: the commonest
    assert prior.material("base", context={"shade", "keyboard", "screen"}) == RUBBER  # more of the laptop
    prior.save(tmp_path)
    back = MaterialPrior.load(tmp_path)
    assert back is not None and back.together == prior.together and back.known == prior.known
    assert back.material("base", context={"shade"}) == STEEL
    doc = json.loads((tmp_path / MATERIAL_FILE).read_text())
    doc.pop("materials")
    (tmp_path / MATERIAL_FILE).write_text(json.dumps(doc))
    with pytest.raises(AssetFormatError, match="have no values"):
        MaterialPrior.load(tmp_path)


def test_material_prior_round_trips_and_rejects_bad_input(tmp_path: Path) -> None:
    prior = fit_material_prior([_asset(("handle", STEEL), ("body", WOOD))])
    assert prior.save(tmp_path).name == MATERIAL_FILE
    back = MaterialPrior.load(tmp_path)
    assert back is not None and back.materials == prior.materials and back.counts == prior.counts
    assert back.walls == pytest.approx(prior.walls, abs=1e-6) and set(back.walls) == {"handle", "body"}
    assert back.material_walls["body"] == pytest.approx(prior.material_walls["body"], abs=1e-6)
    assert MaterialPrior.load(tmp_path / "nowhere") is None
    doc = json.loads((tmp_path / MATERIAL_FILE).read_text())
    for key in ("wall_m", "wall_m_by_material"):  # a prior written before walls were kept: no cap for that label
        doc["labels"]["body"].pop(key)
    doc["labels"]["handle"]["wall_m"] = 0.0
    (tmp_path / MATERIAL_FILE).write_text(json.dumps(doc))
    with pytest.raises(AssetFormatError, match="walls must be positive"):
        MaterialPrior.load(tmp_path)
    doc["labels"]["handle"].pop("wall_m")
    doc["labels"]["handle"].pop("wall_m_by_material")
    (tmp_path / MATERIAL_FILE).write_text(json.dumps(doc))
    back = MaterialPrior.load(tmp_path)
    assert back is not None and back.walls == {} and back.material_walls == {}
    solid = box([0.0, 0.0, 0.0], [0.3, 0.4, 0.2])
    assert back.material("body", Mesh(solid.vertices, solid.faces)) == WOOD
    doc = json.loads((tmp_path / MATERIAL_FILE).read_text())
    doc["labels"]["body"]["material"]["density"] = -1.0
    (tmp_path / MATERIAL_FILE).write_text(json.dumps(doc))
    with pytest.raises(AssetFormatError, match="not a material prior"):
        MaterialPrior.load(tmp_path)
    with pytest.raises(InvalidInputError, match="two sets of values"):
        fit_material_prior([_asset(("handle", STEEL), ("knob", PhysicalMaterial("steel", 7800.0)))])
    with pytest.raises(InvalidInputError, match="no parts"):
        fit_material_prior([])


def _mass(mesh: Mesh, m: PhysicalMaterial) -> float:
    return abs(signed_volume(mesh.vertices, mesh.faces)) * m.density


def test_a_completed_solid_part_weighs_what_a_box_of_panels_with_its_label_weighs() -> None:
    """Synth drawers are boxes of 12 mm panels; a completed drawer is a solid block of the same size and, at the
    wood's density, would weigh several times as much. The prior keeps the drawers' median wall (twice the volume
    over the area: the panels' thickness) and scales the density of a part with more volume than wall × area so
    its mass is wall × area × density: the block then weighs about what the drawer does (40 % more here: its
    closed top counts as a panel). A part with no more volume than wall × area keeps its material."""
    outer = ([0.0, 0.0, 0.0], [0.4, 0.5, 0.2])
    drawer = difference(box(*outer), box([0.012, 0.012, 0.012], [0.388, 0.488, 0.3]))
    assert wall(drawer) == pytest.approx(0.012, rel=0.1)
    prior = fit_material_prior([Asset("d", [Part("drawer", drawer, label="drawer", physical=WOOD),
                                            Part("body", box([0, 0, -0.1], [0.4, 0.5, 0.0]), label="body",
                                                 physical=WOOD)], joints_known=False)])
    assert prior.walls["drawer"] == pytest.approx(wall(drawer))
    block = box(*outer)  # the drawer completed from its front and rim: solid
    assert _mass(block, WOOD) > 5 * _mass(drawer, WOOD)
    hollow = prior.material("drawer", block)
    assert hollow is not None and hollow.name == "wood (hollow)" and hollow.friction == WOOD.friction
    assert 1.0 < _mass(block, hollow) / _mass(drawer, WOOD) < 1.5
    thin = box([0.0, 0.0, 0.0], [0.4, 0.5, 0.02])  # a 20 mm board: no more volume than wall × area, kept
    assert prior.material("drawer", thin) == WOOD
    assert prior.material("lid", block) is None
    assert wall(Mesh(np.zeros((0, 3)), np.zeros((0, 3), np.int64))) == 0.0


def test_walls_are_kept_per_material_of_a_label() -> None:
    """A wooden carcass is a box of panels, an appliance's body a solid of its shell's effective density: the wall
    cap of a completed body depends on the material picked for it, so the appliance keeps its mass and the
    carcass is made lighter."""
    shell = PhysicalMaterial("appliance_shell", 350.0, 0.5, 0.2)
    outer = ([0.0, 0.0, 0.0], [0.4, 0.5, 0.6])
    carcass = difference(box(*outer), box([0.015, 0.015, 0.015], [0.385, 0.485, 0.7]))
    knob = box([0.4, 0.2, 0.5], [0.42, 0.22, 0.52])
    prior = fit_material_prior([
        Asset("c", [Part("body", carcass, label="body", physical=WOOD),
                    Part("drawer", knob, label="drawer", physical=WOOD)], joints_known=False),
        Asset("o", [Part("body", box(*outer), label="body", physical=shell),
                    Part("knob", knob, label="knob", physical=STEEL)], joints_known=False)])
    assert prior.material_walls["body"]["wood"] == pytest.approx(wall(carcass))
    assert prior.material_walls["body"]["appliance_shell"] == pytest.approx(wall(box(*outer)))
    block = box(*outer)  # a completed body: solid
    oven = prior.material("body", block, context={"knob"})
    assert oven == shell  # an appliance's body is solid at its effective density: not made lighter
    cabinet = prior.material("body", block, context={"drawer"})
    assert cabinet is not None and cabinet.name == "wood (hollow)" and cabinet.density < 0.5 * WOOD.density

