"""Post-processing: one closed outward shell, decimation that stays closed, real-world size and the asset frame."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from seed3d.asset import Mesh
from seed3d.catalog.measure import parse_size_text
from seed3d.errors import InvalidInputError
from seed3d.geometry import postprocess as pp
from seed3d.geometry.extract import extract_surface
from seed3d.geometry.postprocess import (
    DEFAULT_LONGEST_M,
    RealWorldSize,
    RepairError,
    asset_frame_matrix,
    category_size,
    clean_shell,
    real_world_size,
    to_asset_frame,
)


def _closed(mesh: Mesh) -> trimesh.Trimesh:
    tm = mesh.to_trimesh()
    assert tm.is_watertight and tm.is_winding_consistent
    return tm


def _sphere(radius: float = 0.6, subdivisions: int = 3, centre: tuple[float, ...] = (0, 0, 0)) -> Mesh:
    s = trimesh.creation.icosphere(subdivisions=subdivisions, radius=radius)
    return Mesh(s.vertices + np.asarray(centre), s.faces)


def _torus(p: np.ndarray) -> np.ndarray:
    q = np.stack([np.hypot(p[:, 0], p[:, 1]) - 0.55, p[:, 2]], 1)
    return np.linalg.norm(q, axis=1) - 0.2


# --------------------------------------------------------------------------------------------- clean_shell


def test_noisy_mesh_becomes_one_closed_shell() -> None:
    rng = np.random.default_rng(0)
    body = _sphere(subdivisions=3)
    verts = body.vertices + rng.normal(scale=0.004, size=body.vertices.shape)
    faces = body.faces[~(body.faces == 0).any(axis=1)]  # a hole around vertex 0
    floater = _sphere(0.04, 1, (0.9, 0, 0))
    faces = np.concatenate([faces, floater.faces + len(verts)])
    verts = np.concatenate([verts, floater.vertices, [[1.0, 1.0, 1.0]]])
    fin = [[faces[10, 0], faces[10, 1], len(verts) - 1]]  # a third face on an edge: non-manifold
    faces = np.concatenate([faces, fin, faces[20:21], faces[30:31, ::-1], [[5, 5, 6]]])  # doubled, opposed, null
    soup = Mesh(verts[faces].reshape(-1, 3), np.arange(3 * len(faces)).reshape(-1, 3))  # unwelded
    soup.vertices[1::2] += 1e-10  # and not bit-identical where triangles meet

    out = clean_shell(soup)
    tm = _closed(out)
    assert tm.body_count == 1
    assert tm.volume == pytest.approx(4 / 3 * np.pi * 0.6**3, rel=0.03)
    assert not pp._has_nonmanifold_vertices(out)


def test_inward_mesh_is_flipped_and_cavity_kept() -> None:
    inward = _sphere()
    inward = Mesh(inward.vertices, inward.faces[:, ::-1])
    assert _closed(clean_shell(inward)).volume > 0

    hollow = extract_surface(lambda p: np.maximum(np.linalg.norm(p, axis=1) - 0.6, 0.5 - np.linalg.norm(p, axis=1)),
                             resolution=32, coarse=16)
    for mesh in (hollow, Mesh(hollow.vertices, hollow.faces[:, ::-1])):
        tm = _closed(clean_shell(mesh))
        assert tm.body_count == 2
        assert tm.volume == pytest.approx(4 / 3 * np.pi * (0.6**3 - 0.5**3), rel=0.05)  # inner shell faces inward


def test_substantial_components_kept_floaters_dropped() -> None:
    a = trimesh.creation.box((0.4, 0.4, 0.4))
    b = trimesh.creation.box((0.3, 0.3, 0.3))
    b.apply_translation((1, 0, 0))
    c = trimesh.creation.box((0.01, 0.01, 0.01))
    c.apply_translation((0, 1, 0))
    mesh = Mesh.from_trimesh(trimesh.util.concatenate([a, b, c]))
    tm = _closed(clean_shell(mesh))
    assert tm.body_count == 2
    assert tm.volume == pytest.approx(0.4**3 + 0.3**3)
    assert _closed(clean_shell(mesh, min_component_fraction=0.0)).body_count == 3


@pytest.mark.parametrize(("field", "target", "euler"), [
    (lambda p: np.linalg.norm(p, axis=1) - 0.7, 2000, 2),
    (_torus, 1500, 0),
])
def test_decimation_hits_target_and_stays_closed(field, target: int, euler: int) -> None:  # type: ignore[no-untyped-def]
    mesh = extract_surface(field, resolution=64, coarse=16)
    before = mesh.to_trimesh().volume
    out = clean_shell(mesh, target_faces=target)
    tm = _closed(out)
    assert abs(len(out.faces) - target) <= 0.1 * target
    assert tm.euler_number == euler  # topology kept
    assert tm.volume == pytest.approx(before, rel=0.02)


def test_decimation_that_opens_the_mesh_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pp._decimate
    targets: list[int] = []

    def flaky(mesh: Mesh, target: int) -> Mesh | None:
        targets.append(target)
        return None if len(targets) == 1 else real(mesh, target)

    monkeypatch.setattr(pp, "_decimate", flaky)
    out = clean_shell(_sphere(subdivisions=3), target_faces=400)
    _closed(out)
    assert targets == [400, 600] and len(out.faces) <= 660


def test_decimation_reports_while_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 57 item 9: pymeshlab's collapse cannot report from inside, so a heartbeat reports for it (and
    clean_shell passes its messages on). The collapse here waits until the heartbeat has spoken: no timing."""
    import threading

    import seed3d.progress

    spoke = threading.Event()
    real = pp._decimate

    def slow(mesh: Mesh, target: int) -> Mesh | None:
        assert spoke.wait(timeout=120)
        return real(mesh, target)

    monkeypatch.setattr(pp, "_decimate", slow)
    monkeypatch.setattr(seed3d.progress, "HEARTBEAT_S", 0.002)
    calls: list[tuple[float, ...] | tuple[float, str]] = []

    def progress(fraction: float, *message: str) -> None:
        calls.append((fraction, *message))
        if message:
            spoke.set()

    sphere = _sphere(subdivisions=3)
    _closed(clean_shell(sphere, target_faces=400, progress=progress))
    said = [c for c in calls if len(c) == 2]
    assert said and all(str(c[1]).startswith("decimating 1k faces… ") and 0.5 < c[0] < 1.0 for c in said)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls) and calls[-1] == (1.0,)


def test_decimate_keeps_a_small_mesh_and_rejects_a_bad_target() -> None:
    sphere = _sphere(subdivisions=2)
    assert pp.decimate(sphere, len(sphere.faces)) is sphere
    out = pp.decimate(sphere, 100)
    _closed(out)
    assert abs(len(out.faces) - 100) <= 10
    for bad in (3, 2.5, True):
        with pytest.raises(InvalidInputError, match="target_faces"):
            pp.decimate(sphere, bad)  # type: ignore[arg-type]


def test_a_much_larger_mesh_is_pre_reduced_before_the_topology_keeping_collapse(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A raw surface with far more faces than the target is first collapsed fast to PRE_REDUCE × target faces;
    pymeshlab then gets that smaller, still closed mesh and the result keeps the topology."""
    mesh = extract_surface(lambda p: np.clip(np.linalg.norm(p, axis=1) - 0.7, -0.1, 0.1).astype(np.float32),
                           resolution=128, coarse=16)
    target = 500
    assert len(mesh.faces) > 2 * pp.PRE_REDUCE * target
    pre = pp._pre_reduce(mesh, target)
    _closed(pre)
    assert abs(len(pre.faces) - pp.PRE_REDUCE * target) <= 0.05 * pp.PRE_REDUCE * target
    assert pp._pre_reduce(pre, target) is pre  # not much larger than the target any more: left alone
    seen: list[int] = []
    real = pp._pre_reduce

    def spy(m: Mesh, t: int) -> Mesh:
        out = real(m, t)
        seen.append(len(out.faces))
        return out

    monkeypatch.setattr(pp, "_pre_reduce", spy)
    tm = _closed(clean_shell(mesh, target_faces=target))
    assert seen and seen[0] <= 1.05 * pp.PRE_REDUCE * target and tm.euler_number == 2


def test_target_above_face_count_keeps_mesh() -> None:
    mesh = _sphere(subdivisions=2)
    out = clean_shell(mesh, target_faces=10_000)
    assert len(out.faces) == len(mesh.faces)


def test_clean_shell_errors() -> None:
    with pytest.raises(InvalidInputError):
        clean_shell(Mesh(np.zeros((0, 3)), np.zeros((0, 3), np.int64)))
    with pytest.raises(InvalidInputError):
        clean_shell(_sphere(subdivisions=1), target_faces=2)
    with pytest.raises(InvalidInputError):
        clean_shell(_sphere(subdivisions=1), min_component_fraction=1.5)
    flat = Mesh([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], [[0, 1, 2], [0, 2, 3]])
    with pytest.raises(RepairError):
        clean_shell(flat)


# --------------------------------------------------------------------------------------------- size


@pytest.mark.parametrize(("text", "dims"), [
    ("a 50 cm tall lamp", {"height": 0.5}),
    ("a table 1.2 m wide", {"width": 1.2}),
    ("a 30-inch suitcase", {"longest": 0.762}),
    ("30 inch suitcase", {"longest": 0.762}),
    ("a toolbox 2 ft long", {"length": 0.6096}),
    ("a stool two feet high", {"height": 0.6096}),
    ("a mug, 12cm in height", {"height": 0.12}),
    ("Height: 0.8m", {"height": 0.8}),
    ("a vase with a height of 450 mm", {"height": 0.45}),
    ("a 5'6\" tall door", {"height": 1.6764}),
    ("a bowl 40 cm in diameter", {"length": 0.4}),
    ("about 90 cm high and 45 cm wide", {"height": 0.9, "width": 0.45}),
    ("measuring 60 × 40 × 80 cm (width × depth × height)", {"width": 0.6, "depth": 0.4, "height": 0.8}),
    ("a 120x60x75cm desk", {"width": 1.2, "depth": 0.6, "height": 0.75}),
    ("box, 40 x 30 x 20 cm (H x W x D)", {"height": 0.4, "width": 0.3, "depth": 0.2}),
    ("80 cm tall with a 60 cm by 40 cm footprint", {"height": 0.8, "width": 0.6, "depth": 0.4}),
    ("30 in. wide", {"width": 0.762}),
    ("desk 120x60", {"width": 1.2, "depth": 0.6}),  # no unit: centimetres
    ("80 wide 202 high", {"width": 0.8, "height": 2.02}),
    ("a 600 wide base unit", {"width": 0.6}),  # no unit, above 400: millimetres
])
def test_size_phrasings(text: str, dims: dict[str, float]) -> None:
    assert parse_size_text("a 2x4 plank") == {}  # no unit and too small for centimetres: not read
    got = parse_size_text(text)
    assert got.keys() == dims.keys()
    for k, v in dims.items():
        assert got[k] == pytest.approx(v)
    size = real_world_size(text, "lamp")
    assert size.source == "text" and size.dims == got  # a stated size beats the category prior


@pytest.mark.parametrize("text", ["three in a row", "a wooden chair", "4000 m tall", "", "size: large-ish"])
def test_no_measurement_parsed(text: str) -> None:
    assert parse_size_text(text) == {}


def test_category_prior_and_modifiers() -> None:
    base = real_world_size(None, "wardrobe")
    assert base.source == "category" and set(base.dims) == {"depth", "width", "height"}
    assert 1.7 <= base.dims["height"] <= 2.35  # inside the synth range
    small = real_world_size("a small wardrobe", "wardrobe").dims
    huge = real_world_size("a huge wardrobe", "wardrobe").dims
    tiny = real_world_size("a tiny wardrobe", "wardrobe").dims
    assert tiny["height"] < small["height"] < base.dims["height"] < huge["height"]
    assert category_size("wardrobe") == base.dims
    assert category_size("not_a_category") is None


def test_the_size_says_where_it_came_from() -> None:
    stated = real_world_size("a box 30 cm tall").to_dict()
    assert stated == {"dims": {"height": 0.3}, "source": "text", "note": "stated in the prompt", "modifiers": []}
    prior = real_world_size("a small cup", "mug").to_dict()
    assert prior["source"] == "category"
    assert prior["note"] == "the typical size of a mug (its category), moved by 'small'"
    assert set(prior["dims"]) == {"depth", "width", "height"} and prior["modifiers"] == ["small"]
    fallback = real_world_size(None).to_dict()
    assert fallback["source"] == "default" and fallback["dims"] == {"longest": DEFAULT_LONGEST_M}
    assert "no known category" in fallback["note"] and "0.5 m" in fallback["note"]


def test_category_from_text_and_fallbacks(caplog: pytest.LogCaptureFixture) -> None:
    assert real_world_size("a red mug with a handle").note == "mug"  # noun found in the text
    assert real_world_size("it is tall", "fridge").note == "refrigerator"  # category given as a noun
    unknown = real_world_size("a thing", "spaceship")
    assert unknown.source == "default" and unknown.dims == {"longest": DEFAULT_LONGEST_M}
    assert real_world_size("a tiny thing").dims["longest"] < DEFAULT_LONGEST_M
    assert real_world_size("a vase 4000 m tall").source == "category"  # implausible size ignored
    with pytest.raises(InvalidInputError):
        real_world_size(42)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        RealWorldSize({"height": -1.0})
    with pytest.raises(InvalidInputError):
        RealWorldSize({"girth": 1.0})


# --------------------------------------------------------------------------------------------- asset frame


def _normalised_box() -> Mesh:
    box = trimesh.creation.box((0.6, 1.8, 0.9))  # depth x, width y, height z in the normalised frame
    box.apply_translation((0.05, -0.02, 0.1))
    return Mesh.from_trimesh(box)


def test_asset_frame_rests_on_floor_centred_with_height() -> None:
    out = to_asset_frame(_normalised_box(), real_world_size("50 cm tall"))
    lo, hi = out.bounds
    assert lo[2] == 0.0
    np.testing.assert_allclose((lo[:2] + hi[:2]) / 2, 0.0, atol=1e-12)
    assert hi[2] - lo[2] == pytest.approx(0.5)
    np.testing.assert_allclose(hi - lo, np.array([0.6, 1.8, 0.9]) * 0.5 / 0.9)  # uniform scale
    assert _closed(out).volume > 0  # winding kept


def test_asset_frame_other_dimensions() -> None:
    mesh = _normalised_box()
    width = to_asset_frame(mesh, RealWorldSize({"width": 1.2}))
    assert np.ptp(width.vertices[:, 1]) == pytest.approx(1.2)
    longest = to_asset_frame(mesh, 0.9)
    assert np.ptp(longest.vertices, axis=0).max() == pytest.approx(0.9)
    default = to_asset_frame(mesh)
    assert np.ptp(default.vertices, axis=0).max() == pytest.approx(DEFAULT_LONGEST_M)
    fit = to_asset_frame(mesh, RealWorldSize({"depth": 0.3, "width": 0.9, "height": 1.8}))  # ratios 0.5, 0.5, 2
    assert np.ptp(fit.vertices, axis=0) == pytest.approx(np.array([0.6, 1.8, 0.9]) * (0.5 * 0.5 * 2) ** (1 / 3))


def test_asset_frame_matrix_matches_and_keeps_uv() -> None:
    mesh = _normalised_box()
    mesh.uv = np.random.default_rng(0).random((len(mesh.vertices), 2))
    mat = asset_frame_matrix(mesh, 0.7)
    out = to_asset_frame(mesh, 0.7)
    np.testing.assert_allclose(out.vertices, mesh.vertices @ mat[:3, :3].T + mat[:3, 3], atol=1e-12)
    assert out.uv is not None and np.array_equal(out.uv, mesh.uv)
    with pytest.raises(InvalidInputError):
        to_asset_frame(Mesh(np.zeros((0, 3)), np.zeros((0, 3), np.int64)), 1.0)


# --------------------------------------------------------------------------------------------- rest pose


def _tilted_box(degrees: float, extents: tuple[float, float, float] = (0.6, 0.4, 0.8)) -> Mesh:
    box = trimesh.creation.box(extents=extents)
    box.apply_transform(trimesh.transformations.rotation_matrix(np.radians(degrees), [1.0, 0.0, 0.0]))
    return Mesh(box.vertices, box.faces)


def test_rest_pose_sets_a_rocking_base_down_on_the_face_that_holds_it() -> None:
    tilted = _tilted_box(6.0)
    assert np.ptp(np.sort(tilted.vertices[:, 2])[:4]) > 0.01  # set down as it is, it stands on one edge
    rested = pp.rest_pose(tilted)
    low = np.sort(rested.vertices[:, 2])[:4]
    assert np.ptp(low) < 1e-9  # its four bottom corners on one level: the base face is the floor
    assert rested.to_trimesh().volume == pytest.approx(tilted.to_trimesh().volume)
    assert np.allclose(rested.to_trimesh().center_mass, tilted.to_trimesh().center_mass)  # turned about it


def test_rest_pose_keeps_a_flat_base_and_a_shape_past_the_tilt_limit() -> None:
    flat = _tilted_box(0.0)
    assert pp.rest_pose(flat) is flat
    steep = _tilted_box(30.0)  # no hull face within 20 degrees of the floor holds the centre of mass
    assert pp.rest_pose(steep) is steep
    assert pp.rest_pose(steep, max_tilt_deg=35.0) is not steep


def _bumpy_base_box() -> Mesh:
    """A 0.4 × 0.4 × 0.6 m box on z = 0 whose bottom face is dimpled by up to 2 mm (a generated base)."""
    box = trimesh.creation.box(extents=(0.4, 0.4, 0.6))
    box.apply_translation([0.0, 0.0, 0.3])
    for _ in range(3):
        box = box.subdivide()
    v = np.array(box.vertices)
    bottom = v[:, 2] < 1e-9
    v[bottom, 2] += np.random.default_rng(0).uniform(0.0, 0.002, bottom.sum())
    v[:, 2] -= v[:, 2].min()
    return Mesh(v, np.asarray(box.faces))


def test_flatten_base_stands_a_bumpy_base_on_one_flat_face() -> None:
    bumpy = _bumpy_base_box()
    assert np.count_nonzero(bumpy.vertices[:, 2] < 1e-9) == 1  # set down as it is, it touches at one point
    flat = pp.flatten_base(bumpy)  # 0.5 % of 0.6 m: 3 mm, below the deepest dimple
    tm = _closed(flat)
    assert flat.vertices[:, 2].min() == pytest.approx(0.0, abs=1e-12)
    assert np.ptp(flat.vertices[:, 2]) == pytest.approx(0.995 * np.ptp(bumpy.vertices[:, 2]), abs=1e-9)
    down = tm.face_normals[:, 2] < -0.999
    assert np.abs(tm.vertices[tm.faces[down]][..., 2]).max() < 1e-9  # every downward face lies on the floor
    assert tm.area_faces[down].sum() == pytest.approx(0.16, rel=1e-6)  # the whole footprint
    capped = pp.flatten_base(bumpy, fraction=0.001, most=0.005)  # 0.6 mm: only where it dips below that
    assert 0.0 < _closed(capped).area_faces[_closed(capped).face_normals[:, 2] < -0.999].sum() < 0.16


def test_flatten_base_leaves_what_it_cannot_cut_and_rejects_bad_settings() -> None:
    box = _bumpy_base_box()
    assert pp.flatten_base(box, fraction=0.0) is box
    open_box = Mesh(box.vertices, box.faces[1:])  # not a solid: left as it is
    assert pp.flatten_base(open_box) is open_box
    with pytest.raises(InvalidInputError, match="fraction"):
        pp.flatten_base(box, fraction=-0.1)
    from seed3d.geometry.generate import GenerateOptions

    with pytest.raises(InvalidInputError, match="flat_base"):
        GenerateOptions(flat_base=-1.0)
