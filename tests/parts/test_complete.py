"""seed3d.parts.complete: closed parts, hidden geometry filled in, a carved body and no interpenetration at rest."""

from __future__ import annotations

import itertools

import manifold3d
import numpy as np
import pytest

from seed3d.asset import Asset, Mesh, Part
from seed3d.errors import InvalidInputError
from seed3d.parts.complete import CompletionConfig, complete_parts
from seed3d.parts.shell import merged_shell
from seed3d.physics._geometry import is_edge_manifold, weld
from seed3d.synth import generate
from seed3d.synth.primitives import box, cylinder


def _solid(mesh: Mesh) -> manifold3d.Manifold:
    m = mesh.to_manifold(float32=True)
    assert m.status() == manifold3d.Error.NoError
    return m


def _envelope(truth: Asset) -> tuple[Mesh, np.ndarray]:
    """What a generator gives: the union of each part's hull, so drawer boxes and cavities are gone."""
    parts = []
    for p in truth.parts:
        hull = Mesh.from_manifold(manifold3d.Manifold.hull_points(p.mesh.welded().vertices))
        parts.append(Part(p.name, hull, p.label))
    return merged_shell(Asset(truth.name, parts, joints_known=False))


def _assert_closed(meshes: list[Mesh]) -> None:
    for i, mesh in enumerate(meshes):
        tm = mesh.to_trimesh()
        assert tm.is_watertight, f"part {i} is not watertight"
        assert tm.is_winding_consistent, f"part {i} winding is inconsistent"
        assert tm.volume > 0, f"part {i} is inside out or empty"
        assert tm.area_faces.min() > 1e-12, f"part {i} has zero-area faces"


def _assert_apart(meshes: list[Mesh]) -> None:
    solids = [_solid(m) for m in meshes]
    for i, j in itertools.combinations(range(len(solids)), 2):
        overlap = (solids[i] ^ solids[j]).volume()
        assert overlap < 1e-7, f"parts {i} and {j} overlap by {overlap:.2e} m³"


@pytest.fixture(scope="module")
def cabinet() -> Asset:
    return generate("cabinet", 0)


@pytest.fixture(scope="module", params=["shell", "envelope"])
def completed(request: pytest.FixtureRequest, cabinet: Asset) -> tuple[Asset, list[Mesh]]:
    shell, face_part = merged_shell(cabinet) if request.param == "shell" else _envelope(cabinet)
    assert np.all(np.bincount(face_part, minlength=len(cabinet.parts)) > 0)
    return cabinet, complete_parts(shell, face_part, [p.label for p in cabinet.parts])


def test_every_part_is_closed(completed: tuple[Asset, list[Mesh]]) -> None:
    truth, meshes = completed
    assert len(meshes) == len(truth.parts)
    _assert_closed(meshes)


def test_parts_do_not_interpenetrate(completed: tuple[Asset, list[Mesh]]) -> None:
    _assert_apart(completed[1])


def test_drawers_reach_inside_and_slide_out_freely(completed: tuple[Asset, list[Mesh]]) -> None:
    truth, meshes = completed
    body = _solid(meshes[0])
    for i, p in enumerate(truth.parts):
        if p.label != "drawer":
            continue
        true_depth = float(np.ptp(p.mesh.bounds[:, 0]))
        got = meshes[i].bounds
        assert got[1, 0] == pytest.approx(p.mesh.bounds[1, 0], abs=1e-3)  # the front stays where it was
        assert got[1, 0] - got[0, 0] >= 0.5 * true_depth
        drawer = _solid(meshes[i])
        for travel in np.linspace(0.0, 0.5 * true_depth, 5):
            assert (body ^ drawer.translate((float(travel), 0.0, 0.0))).volume() < 1e-7
        lo, hi = p.mesh.bounds[0] + 0.03, p.mesh.bounds[1] - 0.03  # the room the true drawer needs is free
        grid = np.stack(np.meshgrid(*[np.linspace(a, b, 6) for a, b in zip(lo, hi, strict=True)]), -1).reshape(-1, 3)
        handle = truth.part(f"{p.name}_handle").mesh.bounds.mean(axis=0)  # also right behind the handle
        grid = np.concatenate([grid, np.c_[np.linspace(lo[0], hi[0], 6), np.tile(handle[1:], (6, 1))]])
        assert not meshes[0].to_trimesh().contains(grid).any(), f"the body fills part of {p.name}'s room"
        gap = 0.5 * CompletionConfig().clearance  # the body keeps clear of the drawer on every side
        for shift in np.concatenate([np.eye(3), -np.eye(3)]) * gap:
            assert (body ^ drawer.translate(tuple(shift))).volume() < 1e-7, f"{p.name} touches the body at {shift}"


def test_handles_are_capped_not_inflated(cabinet: Asset) -> None:
    shell, face_part = merged_shell(cabinet)
    meshes = complete_parts(shell, face_part, [p.label for p in cabinet.parts])
    for i, p in enumerate(cabinet.parts):
        if p.label == "handle":
            assert np.bincount(face_part)[i] < len(p.mesh.faces)  # its patch was cut open where it met the door
            assert meshes[i].to_trimesh().volume == pytest.approx(p.mesh.to_trimesh().volume, rel=0.05)


def test_solid_body_gets_cavities(cabinet: Asset) -> None:
    shell, face_part = _envelope(cabinet)
    labels = [p.label for p in cabinet.parts]
    meshes = complete_parts(shell, face_part, labels)
    lo, hi = meshes[0].bounds
    body_box = float(np.prod(hi - lo))
    drawers = sum(float(np.prod(np.ptp(p.mesh.bounds, axis=0))) for p in cabinet.parts if p.label == "drawer")
    assert meshes[0].to_trimesh().volume < body_box - 0.5 * drawers
    # behind each door, halfway into the body, there is room, not wall
    body = meshes[0].to_trimesh()
    for p in cabinet.parts:
        if p.label == "door":
            (x0, y0, z0), (_, y1, z1) = p.mesh.bounds
            probe = np.array([[0.5 * (x0 + lo[0]), 0.5 * (y0 + y1), 0.5 * (z0 + z1)]])
            assert not body.contains(probe)[0]


def _sheet(x: float, y0: float, y1: float, z0: float, z1: float) -> Mesh:
    """A single-sided rectangle in the plane x, facing +x."""
    v = np.array([[x, y0, z0], [x, y1, z0], [x, y1, z1], [x, y0, z1]], float)
    return Mesh(v, np.array([[0, 1, 2], [0, 2, 3]]))


def _body_and_sheet(label: str) -> tuple[Mesh, np.ndarray, list[str]]:
    body = box([-0.2, -0.25, 0.0], [0.2, 0.25, 0.5])
    front = _sheet(0.203, -0.23, 0.23, 0.05, 0.45)
    shell = Mesh.concatenate([body, front])
    face_part = np.r_[np.zeros(len(body.faces), int), np.ones(len(front.faces), int)]
    return shell, face_part, ["body", label]


def test_single_sided_door_gets_a_slab_and_a_cavity() -> None:
    shell, face_part, labels = _body_and_sheet("door")
    cfg = CompletionConfig()
    body, door = complete_parts(shell, face_part, labels, cfg)
    _assert_closed([body, door])
    _assert_apart([body, door])
    thickness = float(np.ptp(door.bounds[:, 0]))
    lo, hi = cfg.panel_thickness_range
    assert lo - 1e-6 <= thickness <= hi + 1e-6
    assert door.bounds[1, 0] == pytest.approx(0.203, abs=1e-6)
    assert not body.to_trimesh().contains([[0.0, 0.0, 0.25]])[0]  # the middle of the body is now room
    assert body.to_trimesh().contains([[0.0, 0.245, 0.25]])[0]  # its side walls stay
    assert body.to_trimesh().volume < 0.5 * 0.4 * 0.5 * 0.5


def test_single_sided_drawer_front_gets_a_hollow_box() -> None:
    shell, face_part, labels = _body_and_sheet("drawer")
    body, drawer = complete_parts(shell, face_part, labels)
    _assert_closed([body, drawer])
    _assert_apart([body, drawer])
    depth = float(np.ptp(drawer.bounds[:, 0]))
    assert depth >= 0.8 * 0.4
    assert drawer.bounds[0, 0] > -0.2  # a back wall of body stays behind it
    tm = drawer.to_trimesh()
    assert not tm.contains([[0.0, 0.0, 0.3]])[0]  # hollow, open at the top
    assert tm.volume < 0.5 * np.prod(np.ptp(drawer.bounds, axis=0))
    solid = complete_parts(shell, face_part, labels, CompletionConfig(hollow_drawers=False))[1]
    assert solid.to_trimesh().volume > 0.8 * np.prod(np.ptp(solid.bounds, axis=0))


def test_pane_set_into_a_door_gets_its_own_pocket() -> None:
    body = box([-0.2, -0.25, 0.0], [0.2, 0.25, 0.5])
    door = box([0.203, -0.24, 0.04], [0.223, 0.24, 0.46])
    # the segmenter gave the middle of the door's front to a pane: the door's front has a hole there
    front = np.flatnonzero(door.vertices[door.faces].mean(axis=1)[:, 0] > 0.2229)
    kept = np.setdiff1d(np.arange(len(door.faces)), front)
    v = door.vertices
    ring = np.array([[0.223, -0.24, 0.04], [0.223, 0.24, 0.04], [0.223, 0.24, 0.46], [0.223, -0.24, 0.46]])
    hole = np.array([[0.223, -0.1, 0.15], [0.223, 0.1, 0.15], [0.223, 0.1, 0.35], [0.223, -0.1, 0.35]])
    rim_v = np.concatenate([ring, hole])
    rim_f = np.array([[0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]])
    pane = Mesh(hole, np.array([[0, 1, 2], [0, 2, 3]]))
    shell = Mesh.concatenate([body, Mesh(v, door.faces[kept]), Mesh(rim_v, rim_f), pane])
    face_part = np.r_[np.zeros(12, int), np.ones(len(kept) + len(rim_f), int), np.full(2, 2)]
    meshes = complete_parts(shell, face_part, ["body", "door", "panel"])
    _assert_closed(meshes)
    _assert_apart(meshes)
    assert meshes[2].bounds[1, 0] == pytest.approx(0.223, abs=1e-6)
    assert meshes[1].to_trimesh().volume < 0.48 * 0.42 * 0.02 - 0.5 * 0.2 * 0.2 * 0.008


def test_a_part_lying_inside_the_body_gets_a_clearance_and_one_on_it_stays_flush() -> None:
    """A washing machine's drum (label "other") lies inside the body's closed shape: the body is carved by it grown
    by the clearance, as by a moving part, so the articulation sees it clear of the body and can let it turn
    (held flush, it was glued). A part standing on the body's face is cut out exactly and stays flush."""
    body = box([-0.3, -0.3, 0.0], [0.3, 0.3, 0.8])
    drum = cylinder(0.2, 0.56, 48, (1, 0, 0), (-0.25, 0.0, 0.4))  # its front shows 1 cm out of the body
    knob = box([0.3, -0.05, 0.7], [0.33, 0.05, 0.75])  # "other" on the front face, outside the body
    shell = Mesh.concatenate([body, drum, knob])
    face_part = np.repeat([0, 1, 2], [len(body.faces), len(drum.faces), len(knob.faces)])
    carved, inner, outer = complete_parts(shell, face_part, ["body", "other", "other"])
    _assert_closed([carved, inner, outer])
    _assert_apart([carved, inner, outer])
    gap = CompletionConfig().clearance
    tm = carved.to_trimesh()
    # just outside the drum's curved side and its back face: room in the body, not body
    assert not tm.contains([[0.0, 0.0, 0.4 + 0.2 + gap / 2], [-0.25 - gap / 2, 0.0, 0.4]]).any()
    assert tm.contains([[0.0, 0.0, 0.4 + 0.2 + 2 * gap]])[0]
    assert tm.contains([[0.3 - gap / 2, 0.0, 0.725]])[0]  # right behind the part on the face: body
    flush = complete_parts(shell, face_part, ["body", "other", "other"], CompletionConfig(enclosed=2.0))[0]
    assert flush.to_trimesh().contains([[0.0, 0.0, 0.4 + 0.2 + gap / 2]])[0]  # without the rule: held flush


def test_a_thin_sheet_inside_a_synthesized_door_joins_it() -> None:
    """A 1 mm sheet cut from the shell ends up (all but its edge) inside the thickness completion gives a
    single-sided door: cutting it out would leave it in a slot that stops the door, so it joins the door (its
    entry is None)."""
    shell, face_part, labels = _body_and_sheet("door")
    sheet = box([0.195, -0.1, 0.2], [0.196, 0.24, 0.3])
    shell = Mesh.concatenate([shell, sheet])
    face_part = np.r_[face_part, np.full(len(sheet.faces), 2)]
    body, door, gone = complete_parts(shell, face_part, [*labels, "other"])
    assert gone is None
    _assert_closed([body, door])
    _assert_apart([body, door])
    assert door.to_trimesh().contains([[0.1955, 0.0, 0.25], [0.19, 0.0, 0.25]]).all()
    kept = complete_parts(shell, face_part, [*labels, "other"], CompletionConfig(embedded_sheet=0.0))
    assert kept[2] is not None  # without the rule it is cut out of the door, which keeps a slot
    assert kept[1].to_trimesh().volume < door.to_trimesh().volume - 0.001 * 0.3 * 0.1


def test_without_a_body_label_the_base_is_the_body() -> None:
    """A closed laptop cut into a screen sheet and a base: the base (a root label) is the body, not the first
    part, so the screen gets a slab's thickness on top of it."""
    base = box([-0.15, -0.1, 0.0], [0.15, 0.1, 0.02])
    v = np.array([[-0.14, -0.09, 0.023], [0.14, -0.09, 0.023], [0.14, 0.09, 0.023], [-0.14, 0.09, 0.023]])
    screen = Mesh(v, np.array([[0, 1, 2], [0, 2, 3]]))
    shell = Mesh.concatenate([screen, base])
    face_part = np.r_[np.zeros(2, int), np.ones(len(base.faces), int)]
    lid, body = complete_parts(shell, face_part, ["screen", "base"])
    _assert_closed([lid, body])
    _assert_apart([lid, body])
    lo, hi = CompletionConfig().panel_thickness_range
    assert lo - 1e-6 <= float(np.ptp(lid.bounds[:, 2])) <= hi + 1e-6
    assert float(np.ptp(lid.bounds[:, 0])) == pytest.approx(0.28, abs=1e-6)


@pytest.mark.parametrize(("points", "faces", "label"), [
    # a cut 'door' of zero-area faces: collinear points along the body's edge
    ([[0.2, -0.25, 0.1], [0.2, -0.25, 0.2], [0.2, -0.25, 0.3], [0.2, -0.25, 0.4]], [[0, 1, 2], [1, 2, 3]], "door"),
    # only faces that collapse when the vertices are welded (two corners at one point: a box with lipped runners
    # left such a segment), which used to raise
    ([[0.2, -0.25, 0.1], [0.2, -0.25, 0.1], [0.2, -0.25, 0.2]], [[0, 1, 2]], "handle"),
])
def test_part_with_no_area_joins_the_body(points: list[list[float]], faces: list[list[int]], label: str) -> None:
    """A cut part with no area to build on cannot be completed: None, not an error, and the body stays whole."""
    body = box([-0.2, -0.25, 0.0], [0.2, 0.25, 0.5])
    sliver = Mesh(np.array(points), np.array(faces))
    front = _sheet(0.203, -0.23, 0.23, 0.05, 0.45)
    shell = Mesh.concatenate([body, sliver, front])
    face_part = np.r_[np.zeros(12, int), np.ones(len(faces), int), np.full(2, 2)]
    body_m, gone, door = complete_parts(shell, face_part, ["body", label, "door"])
    assert gone is None
    _assert_closed([body_m, door])
    _assert_apart([body_m, door])
    assert body_m.bounds == pytest.approx(np.array([[-0.2, -0.25, 0.0], [0.2, 0.25, 0.5]]), abs=1e-6)


def test_a_shell_of_only_collapsing_faces_is_an_error() -> None:
    collapsed = Mesh(np.array([[0.2, -0.25, 0.1], [0.2, -0.25, 0.1], [0.2, -0.25, 0.2]]), np.array([[0, 1, 2]]))
    with pytest.raises(InvalidInputError, match="every face of the shell is degenerate"):
        complete_parts(collapsed, np.zeros(1, int), ["body"])


def test_flat_body_patch_is_shaped_by_the_shell_hull() -> None:
    """A body cut down to one sheet (its back) spans no volume: the shell's hull shapes it, carved by the door."""
    back = _sheet(-0.2, -0.25, 0.25, 0.0, 0.5)
    door = box([0.0, -0.25, 0.0], [0.03, 0.25, 0.5])
    shell = Mesh.concatenate([back, door])
    face_part = np.r_[np.zeros(2, int), np.ones(12, int)]
    meshes = complete_parts(shell, face_part, ["body", "door"])
    _assert_closed(meshes)
    _assert_apart(meshes)
    assert meshes[0].bounds[0, 0] == pytest.approx(-0.2, abs=1e-6)  # the body reaches back to its sheet


def _welds_closed(mesh: Mesh) -> bool:
    """Closed as the validator sees it: coincident vertices welded, every edge shared by exactly two faces."""
    v, f = weld(mesh.vertices, mesh.faces)
    return is_edge_manifold(f, len(v))


def test_pieces_touching_along_an_edge_stay_closed_when_welded() -> None:
    """Two blocks that share an edge make a body Manifold keeps as two pieces with coincident vertices; welded
    as exported, that edge would have four faces. The pieces come out moved a hair apart instead."""
    a, b = box([0.0, 0.0, 0.0], [0.2, 0.2, 0.2]), box([0.2, 0.2, 0.0], [0.4, 0.4, 0.2])
    shell = Mesh.concatenate([a, b])
    union = manifold3d.Manifold.batch_boolean([_solid(a), _solid(b)], manifold3d.OpType.Add)
    raw = Mesh.from_manifold(union)
    assert not _welds_closed(raw)  # what the body was before: open once welded
    (body,) = complete_parts(shell, np.zeros(len(shell.faces), int), ["body"])
    assert _welds_closed(body)
    _assert_closed([body])
    assert body.to_trimesh().volume == pytest.approx(2 * 0.2**3, rel=1e-3)
    assert np.abs(body.bounds - shell.bounds).max() < 1e-4


def test_self_intersecting_piece_is_detected() -> None:
    """Manifold accepts a mesh whose faces cross (it checks topology only); completion replaces such a capped
    patch by its hull, since booleans on it leave zero-thickness sheets."""
    from seed3d.parts.complete import _self_intersects

    a, b = box([0.0, 0.0, 0.0], [0.2, 0.2, 0.2]), box([0.1, 0.1, 0.1], [0.3, 0.3, 0.3])
    crossing = _solid(Mesh.concatenate([a, b]))
    assert not crossing.is_empty()
    assert _self_intersects(crossing)
    assert not _self_intersects(_solid(a))


def test_a_closed_piece_keeps_its_shape_and_crossing_caps_give_the_hull(monkeypatch: pytest.MonkeyPatch) -> None:
    """A piece that is closed already is kept as it is even when its faces cross (the hull of a spout would
    swallow its post); only a piece whose caps cross becomes its hull."""
    import seed3d.parts.complete as complete

    ell = manifold3d.Manifold.cube([0.3, 0.1, 0.1]) + manifold3d.Manifold.cube([0.1, 0.1, 0.3])  # an L, not convex
    out = Mesh.from_manifold(ell)
    v, f = out.vertices, out.faces
    monkeypatch.setattr(complete, "_self_intersects", lambda solid: True)  # every piece counts as crossing
    kept, hulled = complete._close_piece(v, f)
    assert kept.volume() == pytest.approx(ell.volume(), rel=1e-6) and not hulled
    top = np.flatnonzero(v[f].min(axis=1)[:, 2] > 0.3 - 1e-9)  # the L's top face: open it, so it gets a cap
    capped, hulled = complete._close_piece(v, np.delete(f, top, axis=0))
    assert capped.volume() == pytest.approx(manifold3d.Manifold.hull(ell).volume(), rel=1e-6) and hulled


def _union_of_boxes(*corners: tuple[list[float], list[float]]) -> manifold3d.Manifold:
    solid = manifold3d.Manifold()
    for lo, hi in corners:
        solid = solid + manifold3d.Manifold.cube(np.subtract(hi, lo).tolist()).translate(lo)
    return solid


def _shell_of(parts: list[tuple[str, manifold3d.Manifold]]) -> tuple[Mesh, np.ndarray, list[str]]:
    meshes = []
    for name, solid in parts:
        meshes.append(Part(name, Mesh.from_manifold(solid), name))
    shell, face_part = merged_shell(Asset("probe", meshes, joints_known=False))
    return shell, face_part, [name for name, _ in parts]


def test_a_body_whose_caps_cross_keeps_the_shells_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    """A U-shaped body whose cut caps cross it (forced here) is the shell's solid minus the other parts, not its
    convex hull, which would fill the U."""
    import seed3d.parts.complete as complete

    u = _union_of_boxes(([0.0, 0.0, 0.0], [0.3, 0.1, 0.05]), ([0.0, 0.0, 0.05], [0.05, 0.1, 0.3]),
                        ([0.25, 0.0, 0.05], [0.3, 0.1, 0.3]))
    knob = _union_of_boxes(([0.13, 0.03, 0.05], [0.17, 0.07, 0.08]))
    shell, face_part, labels = _shell_of([("body", u), ("knob", knob)])
    monkeypatch.setattr(complete, "_self_intersects", lambda solid: True)
    body, part = complete_parts(shell, face_part, labels)
    _assert_closed([body, part])
    _assert_apart([body, part])
    assert body.to_trimesh().volume == pytest.approx(u.volume(), rel=0.02)  # its hull: 0.009 m³, 1.9 times
    assert part.to_trimesh().volume == pytest.approx(knob.volume(), rel=0.05)


def test_a_part_whose_caps_cross_is_cut_to_the_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """A U-shaped bracket on a box (its caps forced to cross, so its patch closes as its hull) is cut back to the
    shell's solid: the bracket, not the hull that bridges its arms; with the share set above what the cut keeps,
    the hull stays."""
    import seed3d.parts.complete as complete

    base = _union_of_boxes(([0.0, 0.0, 0.0], [0.4, 0.2, 0.1]))
    bracket = _union_of_boxes(([0.1, 0.05, 0.1], [0.3, 0.15, 0.12]), ([0.1, 0.05, 0.12], [0.12, 0.15, 0.25]),
                              ([0.28, 0.05, 0.12], [0.3, 0.15, 0.25]))
    shell, face_part, labels = _shell_of([("body", base), ("handle", bracket)])
    monkeypatch.setattr(complete, "_self_intersects", lambda solid: True)
    body, handle = complete_parts(shell, face_part, labels)
    _assert_closed([body, handle])
    _assert_apart([body, handle])
    assert handle.to_trimesh().volume == pytest.approx(bracket.volume(), rel=0.05)
    assert body.to_trimesh().volume == pytest.approx(base.volume(), rel=0.02)
    hull = manifold3d.Manifold.hull(bracket).volume()
    share = bracket.volume() / hull
    _, kept = complete_parts(shell, face_part, labels, CompletionConfig(hull_clip_share=share + 0.1))
    assert kept.to_trimesh().volume == pytest.approx(hull, rel=0.05)


def test_truth_cut_mug_parts_close_when_welded() -> None:
    """A mug cut along its true parts used to complete to a body and a handle that were open once welded;
    every part now welds closed."""
    mug = generate("mug", 0)
    shell, face_part = merged_shell(mug)
    meshes = complete_parts(shell, face_part, [p.label for p in mug.parts])
    assert all(m is not None for m in meshes)
    assert all(_welds_closed(m) for m in meshes if m is not None)
    _assert_apart([m for m in meshes if m is not None])


def test_deterministic(cabinet: Asset) -> None:
    shell, face_part = _envelope(cabinet)
    labels = [p.label for p in cabinet.parts]
    first = complete_parts(shell, face_part, labels)
    second = complete_parts(shell, face_part, labels)
    assert all(a == b for a, b in zip(first, second, strict=True))


@pytest.mark.parametrize(("face_part", "labels", "message"), [
    (np.zeros(11, int), ["body"], "one part id per face"),
    (np.r_[np.zeros(6, int), np.full(6, 2)], ["body", "door"], "0..1"),
    (np.zeros(12, int), ["body", "door"], "no faces"),
    (np.zeros(12), ["body"], "integer"),
    (np.zeros(12, int), [], "labels is empty"),
])
def test_bad_input_raises(face_part: np.ndarray, labels: list[str], message: str) -> None:
    shell = box([0, 0, 0], [1, 1, 1])
    assert len(shell.faces) == 12
    with pytest.raises(InvalidInputError, match=message):
        complete_parts(shell, face_part, labels)


@pytest.mark.slow
def test_completed_nightstand_articulates_and_validates(tmp_path: object) -> None:
    from seed3d.articulation import articulate
    from seed3d.export import export_asset
    from seed3d.physics.validate import validate_path

    truth = generate("nightstand", 0)
    shell, face_part = _envelope(truth)
    meshes = complete_parts(shell, face_part, [p.label for p in truth.parts])
    asset = Asset("nightstand", [Part(p.name, m, label=p.label) for p, m in zip(truth.parts, meshes, strict=True)],
                  joints_known=False)
    art = articulate(asset)
    assert {j.child: j.type for j in art.joints} == {j.child: j.type for j in truth.joints}
    folder = art.save(tmp_path / "asset")  # type: ignore[operator]
    export_asset(art, folder)
    report = validate_path(folder)
    assert report.passed, [f"{c.name}: {c.message}" for c in report.failures]


def _split_edge_near_corner(mesh: Mesh, offset: float) -> Mesh:
    """``mesh`` with its first edge split by a vertex ``offset`` from one end (two sliver faces appear)."""
    f = mesh.faces
    a, b = int(f[0, 0]), int(f[0, 1])
    c = int(f[0, 2])
    other = next(i for i in range(1, len(f)) if {a, b} <= set(f[i].tolist()))
    d = int(next(x for x in f[other] if x not in (a, b)))
    v = mesh.vertices
    w = len(v)
    direction = (v[b] - v[a]) / np.linalg.norm(v[b] - v[a])
    verts = np.concatenate([v, (v[a] + offset * direction)[None]])
    faces = [row for i, row in enumerate(f.tolist()) if i not in (0, other)]
    faces += [[a, w, c], [w, b, c], [b, w, d], [w, a, d]]
    return Mesh(verts, np.array(faces, np.int64))


def test_edges_float32_files_flatten_are_collapsed() -> None:
    """A closed mesh with a 3 nm edge has faces of real area that become zero-area once stored as float32 (as
    OBJ, GLB and USD files keep vertices); completion collapses such edges while the mesh stays closed."""
    from seed3d.parts.complete import _stored_areas, _without_slivers

    cube = box([0.3, 0.3, 0.3], [0.7, 0.7, 0.7])
    split = _split_edge_near_corner(cube, 3e-9)
    assert _welds_closed(split)
    assert split.to_trimesh().area_faces.min() > 1e-12
    assert _stored_areas(split.vertices, split.faces).min() <= 1e-12
    v, f = _without_slivers(split.vertices, split.faces, 1e-12)
    assert len(f) == len(cube.faces) and _stored_areas(v, f).min() > 1e-12
    assert _welds_closed(Mesh(v, f))


def test_segmented_parts_keep_every_face_when_stored_as_float32() -> None:
    """The parts completed from a segmented nightstand had edges of a few nanometres (0.4 % of a drawer's faces
    were zero-area in its USD file, a failed check); stored as float32 they now keep every face."""
    from seed3d.parts.complete import _stored_areas
    from seed3d.parts.segment import Segmenter
    from seed3d.pipeline import weights_component

    shell, _ = merged_shell(generate("nightstand", 1000))
    seg = Segmenter.from_pretrained(weights_component("part_segmenter")).segment_mesh(shell)
    meshes = [m for m in complete_parts(seg.mesh, seg.face_part, seg.labels) if m is not None]
    assert len(meshes) >= 5
    for m in meshes:
        assert _welds_closed(m)
        assert float(np.mean(_stored_areas(m.vertices, m.faces) <= 1e-12)) <= 0.001


def _assert_one_sliver_removed(verts: np.ndarray, faces: np.ndarray, faces_after: int) -> None:
    """A closed 0.5 m cube with one sliver face comes out of ``_without_slivers`` with none, ``faces_after`` faces,
    closed and with its volume."""
    from seed3d.parts.complete import _slivers, _without_slivers

    assert _welds_closed(Mesh(verts, faces)) and _slivers(verts, faces, 1e-12) == 1
    v, out = _without_slivers(verts, faces, 1e-12)
    assert _slivers(v, out, 1e-12) == 0 and len(out) == faces_after
    assert _welds_closed(Mesh(v, out))
    assert Mesh(v, out).to_trimesh().volume == pytest.approx(0.125)


def test_needle_faces_are_flipped_away() -> None:
    """A T-junction left by a boolean is a needle: a face whose three corners lie on one line (zero area in any
    precision). It and the face across its long edge become two faces at the needle's middle corner."""
    cube = box([0.0, 0.0, 0.0], [0.5, 0.5, 0.5])
    f = cube.faces
    a, c, x = (int(i) for i in f[0])
    b = len(cube.vertices)
    verts = np.concatenate([cube.vertices, ((cube.vertices[a] + cube.vertices[c]) / 2)[None]])
    # the first face split at the middle of its edge a-c, and the needle (b, a, c) closing the surface
    faces = np.concatenate([f[1:], [[a, b, x], [b, c, x], [b, a, c]]])
    _assert_one_sliver_removed(verts, faces, len(faces))


def test_near_needles_that_a_joint_frame_flattens_are_removed() -> None:
    """A needle whose middle corner is 0.1 nm off the line has an area of ~1e-11 m²: not zero where it was made, but
    re-expressed in a joint's frame and stored as float32 (as exporters do) it is. Completion counts faces up to
    ``SLIVER_AREA`` as slivers, so it goes (a predicted drawer's USD file failed the zero-area check before)."""
    from seed3d.parts.complete import SLIVER_AREA, _slivers, _stored_areas, _without_slivers

    cube = box([0.0, 0.0, 0.0], [0.5, 0.5, 0.5])
    f = cube.faces
    a, c, x = (int(i) for i in f[0])
    va, vc, vx = cube.vertices[a], cube.vertices[c], cube.vertices[x]
    mid = (va + vc) / 2
    mid = mid + 1e-10 * (vx - mid) / np.linalg.norm(vx - mid)
    b = len(cube.vertices)
    verts = np.concatenate([cube.vertices, mid[None]])
    faces = np.concatenate([f[1:], [[a, b, x], [b, c, x], [b, a, c]]])
    assert _slivers(verts, faces, 1e-12) == 0  # not flat where it was made
    assert (_stored_areas(verts + [0.7, -0.3, 1.1], faces) <= 1e-12).sum() == 1  # flat in another frame
    assert _slivers(verts, faces, SLIVER_AREA) == 1
    v, out = _without_slivers(verts, faces, SLIVER_AREA)
    assert _slivers(v, out, SLIVER_AREA) == 0 and _welds_closed(Mesh(v, out))
    assert Mesh(v, out).to_trimesh().volume == pytest.approx(0.125)


def test_needle_at_the_tip_of_a_flat_fold_is_collapsed() -> None:
    """A completed microwave door kept one needle no flip could remove: its corners P, M, T on one line, T the tip
    of a fold flat in the face's plane (faces P-T-M, T-P-F, M-T-F), the edge M-F already there. Its tip is merged
    into M, which leaves the face M-P-F the fold replaced and the volume as it was."""
    cube = box([0.0, 0.0, 0.0], [0.5, 0.5, 0.5])
    f = cube.faces
    m, p, far = (int(i) for i in f[0])
    t = len(cube.vertices)
    verts = np.concatenate([cube.vertices, (cube.vertices[m] + 0.25 * (cube.vertices[m] - cube.vertices[p]))[None]])
    faces = np.concatenate([f[1:], [[p, t, m], [t, p, far], [m, t, far]]])
    _assert_one_sliver_removed(verts, faces, len(f))


def test_a_tiny_face_whose_shortest_edge_would_pinch_is_collapsed_at_another() -> None:
    """A completed stool leg kept one 1 µm face (7.7e-13 m², a failed zero-area check): merging its shortest edge
    would pinch the surface (both ends share three neighbours), and no flip applies. Here: a thin face (x, y, z)
    set in a cube's face, x-z 0.5 µm and y 20 µm from both, the cube corner Q joined to all three. Merging y into z
    removes it and leaves the cube closed, with its volume."""
    from seed3d.parts.complete import SLIVER_AREA, _slivers, _without_slivers

    cube = box([0.0, 0.0, 0.0], [0.5, 0.5, 0.5])
    v, f = cube.vertices, cube.faces
    p, q, r = (int(i) for i in f[0])
    normal = np.cross(v[q] - v[p], v[r] - v[p])
    centre = (v[p] + v[q] + v[r]) / 3
    toward_q = (v[q] - centre) / np.linalg.norm(v[q] - centre)
    side = np.cross(normal / np.linalg.norm(normal), toward_q)
    near_p, near_r = centre - 2e-5 * toward_q + 2.5e-7 * side, centre - 2e-5 * toward_q - 2.5e-7 * side
    if np.linalg.norm(near_p - v[p]) > np.linalg.norm(near_r - v[p]):
        near_p, near_r = near_r, near_p
    verts = np.concatenate([v, [centre, near_p, near_r]])
    y, x, z = len(v), len(v) + 1, len(v) + 2
    fill = [[p, q, x], [x, q, y], [y, q, z], [z, q, r], [x, y, z], [p, x, z], [p, z, r]]
    fill = [row if np.cross(*(verts[row[1:]] - verts[row[0]])) @ normal > 0 else row[::-1] for row in fill]
    faces = np.concatenate([f[1:], fill])
    assert _welds_closed(Mesh(verts, faces)) and _slivers(verts, faces, SLIVER_AREA) == 1
    out_v, out_f = _without_slivers(verts, faces, SLIVER_AREA)
    assert _slivers(out_v, out_f, SLIVER_AREA) == 0 and len(out_f) == len(faces) - 2
    assert _welds_closed(Mesh(out_v, out_f))
    assert Mesh(out_v, out_f).to_trimesh().volume == pytest.approx(0.125)
