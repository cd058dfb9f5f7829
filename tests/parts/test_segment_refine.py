"""Geometric refinement of a face segmentation: patches, connected pieces, protrusions, and its use in Segmenter."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from seed3d.asset import Mesh
from seed3d.errors import InvalidInputError
from seed3d.parts.model import PartSegmenter, SegmenterConfig
from seed3d.parts.patches import (
    FaceGraph,
    RefineConfig,
    convex_pieces,
    merge_to_count,
    refine_parts,
    smooth_patches,
)
from seed3d.parts.segment import MeshSegmentation, SegmentConfig, Segmenter, protrusion_label


def _cube(size: tuple[float, float, float], centre: tuple[float, float, float]) -> object:
    import manifold3d

    return manifold3d.Manifold.cube(list(size), center=True).translate(list(centre))


def _mesh(solid: object, max_edge: float = 0.04) -> FaceGraph:
    """A manifold3d solid as a finely subdivided, vertex-merged triangle mesh."""
    import trimesh

    out = Mesh.from_manifold(solid)
    v, f = trimesh.remesh.subdivide_to_size(out.vertices, out.faces, max_edge, max_iter=12)
    tm = trimesh.Trimesh(v, f, process=True)
    return FaceGraph.from_mesh(np.asarray(tm.vertices), np.asarray(tm.faces))


def _grooved_front(handle: bool = False) -> FaceGraph:
    """A 1 m cube whose +X face carries a flush 0.56 m square panel bounded by a 2 cm wide, 1 cm deep groove
    (the panel is coplanar with the face around it); with ``handle``, a 10 x 4 x 4 cm block on the panel."""
    ring = _cube((0.02, 0.6, 0.6), (0.5, 0.0, 0.0)) - _cube((0.04, 0.56, 0.56), (0.5, 0.0, 0.0))
    solid = _cube((1.0, 1.0, 1.0), (0.0, 0.0, 0.0)) - ring
    if handle:
        solid = solid + _cube((0.04, 0.1, 0.04), (0.52, 0.0, 0.1))
    return _mesh(solid)


def _front(graph: FaceGraph) -> tuple[np.ndarray, np.ndarray]:
    """Faces of the panel's front and of the face around the groove (both on the plane x = 0.5)."""
    c = graph.centres
    on_plane = np.abs(c[:, 0] - 0.5) < 1e-6
    inside = np.maximum(np.abs(c[:, 1]), np.abs(c[:, 2])) < 0.28
    outside = np.maximum(np.abs(c[:, 1]), np.abs(c[:, 2])) > 0.3
    return on_plane & inside, on_plane & outside


def _sloppy_door(graph: FaceGraph) -> np.ndarray:
    """A prediction whose door mask bleeds 3 cm over the groove onto the face around it, and misses a corner."""
    c = graph.centres
    door = (c[:, 0] > 0.45) & (np.maximum(np.abs(c[:, 1]), np.abs(c[:, 2])) < 0.33)
    door &= ~((c[:, 1] > 0.2) & (c[:, 2] > 0.2))
    return door.astype(np.int64)


def test_a_flush_front_bounded_by_a_groove_is_its_own_patch() -> None:
    graph = _grooved_front()
    patch = smooth_patches(graph)
    panel, around = _front(graph)
    assert len(np.unique(patch[panel])) == 1 and len(np.unique(patch[around])) == 1
    assert patch[panel][0] != patch[around][0]  # coplanar, but separated by the groove's sharp edges
    # the groove's bottom is cut off at its concave corners: the panel and the body are separate convex pieces
    piece = convex_pieces(graph)
    assert piece[panel][0] != piece[around][0]


def test_refinement_snaps_a_sloppy_door_mask_to_the_grooved_panel() -> None:
    graph = _grooved_front()
    panel, around = _front(graph)
    pred = _sloppy_door(graph)
    assert pred[around].any() and not pred[panel].all()  # the prediction is wrong on both sides of the groove
    out = refine_parts(graph, pred)
    assert out.face_part.max() == 1 and len(out.origin) == 2
    door = out.face_part[panel][0]
    assert (out.face_part[panel] == door).all()
    assert (out.face_part[around] != door).all()
    assert out.origin[door] == 1 and not out.protrusion.any()  # a flush panel is no protrusion


def test_a_handle_on_the_panel_becomes_a_part_labelled_handle() -> None:
    graph = _grooved_front(handle=True)
    panel, _ = _front(graph)
    handle = graph.centres[:, 0] > 0.5 + 1e-6
    pred = _sloppy_door(graph)  # the handle is predicted as door: the model missed it
    out = refine_parts(graph, pred)
    h = out.face_part[handle]
    assert len(np.unique(h)) == 1 and h[0] not in out.face_part[~handle]
    assert out.protrusion[h[0]] and not out.below[h[0]] and out.origin[h[0]] == 1
    mesh = Mesh(graph.vertices, graph.faces)
    seg = Segmenter(PartSegmenter(SegmenterConfig(num_points=64, edge_points=0, tokens=8, fps_pool=64, group=4,
                                                  point_dim=8, width=16, depth=1, heads=2, decoder_depth=1,
                                                  mask_dim=8)))
    refined = seg.refine(MeshSegmentation(mesh, pred, ["body", "door"], [0.9, 0.8]))
    assert sorted(refined.labels) == ["body", "door", "handle"]
    assert refined.labels[int(refined.face_part[np.flatnonzero(handle)[0]])] == "handle"
    assert refined.labels[int(refined.face_part[np.flatnonzero(panel)[0]])] == "door"


@pytest.mark.parametrize(("gap", "split"), [(0.003, False), (0.05, True)])
def test_a_stem_carrying_a_piece_across_a_running_gap_stays_with_its_body(gap: float, split: bool) -> None:
    # a 4 cm stem on a 1 m body, a separate 6 cm cap beyond it: 3 mm away the stem is a mount (part of the body
    # the cap turns on); 5 cm away it is a fitting of its own
    solid = _cube((1.0, 1.0, 1.0), (0.0, 0.0, 0.0)) + _cube((0.04, 0.04, 0.04), (0.52, 0.0, 0.0))
    solid = solid + _cube((0.06, 0.06, 0.06), (0.54 + gap + 0.03, 0.0, 0.0))
    graph = _mesh(solid)
    cap = graph.centres[:, 0] > 0.54 + gap - 1e-6
    stem = (graph.centres[:, 0] > 0.5 + 1e-6) & ~cap
    out = refine_parts(graph, cap.astype(np.int64))
    body = out.face_part[np.flatnonzero(~cap & ~stem)[0]]
    assert len(np.unique(out.face_part[stem])) == 1
    assert (out.face_part[stem][0] != body) == split
    assert (out.face_part[cap] != body).all()
    kept = refine_parts(graph, cap.astype(np.int64), RefineConfig(mount_share=2.0))  # the rule off: always split
    assert kept.face_part[stem][0] != kept.face_part[np.flatnonzero(~cap & ~stem)[0]]


def test_protrusion_labels() -> None:
    assert protrusion_label("drawer", False) == "handle" and protrusion_label("body", True) == "leg"
    assert protrusion_label("body", False) == "body"


def test_a_smooth_shape_is_left_as_predicted() -> None:
    import trimesh

    sphere = trimesh.creation.icosphere(subdivisions=4)
    graph = FaceGraph.from_mesh(np.asarray(sphere.vertices), np.asarray(sphere.faces))
    assert smooth_patches(graph).max() == 0  # one patch: no sharp edge anywhere
    c = graph.centres
    pred = (c[:, 0] + 0.3 * np.sin(5 * c[:, 1]) > 0.2).astype(np.int64)  # a wavy two-part prediction
    out = refine_parts(graph, pred)
    assert np.array_equal(out.face_part, pred) and out.origin.tolist() == [0, 1]
    three = np.where(c[:, 2] > 0.5, 2, pred)
    assert np.array_equal(refine_parts(graph, three).face_part, three)


def test_a_part_spanning_separate_pieces_is_split_and_small_spills_fold_back() -> None:
    graph = _mesh(_cube((0.4, 0.4, 0.4), (0.0, 0.0, 0.0)) + _cube((0.4, 0.4, 0.4), (1.0, 0.0, 0.0)), 0.05)
    left = graph.centres[:, 0] < 0.5
    out = refine_parts(graph, np.zeros(graph.num_faces, np.int64))
    assert out.face_part.max() == 1 and out.origin.tolist() == [0, 0]
    assert len(np.unique(out.face_part[left])) == 1 and out.face_part[left][0] != out.face_part[~left][0]
    # part 1 holds the right cube and one face of the left one: that face is a spill and joins part 0
    spill = left & (graph.centres[:, 2] > 0.2 - 1e-6)
    pred = np.where(~left | spill, 1, 0)
    out = refine_parts(graph, pred, RefineConfig(spill=0.2))
    assert len(np.unique(out.face_part[left])) == 1 and len(np.unique(out.face_part[~left])) == 1
    assert out.origin[out.face_part[left][0]] == 0 and out.origin[out.face_part[~left][0]] == 1


def test_crumbs_and_rough_surfaces_make_no_parts() -> None:
    import manifold3d

    big = _cube((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
    crumbs = [_cube((0.01, 0.01, 0.01), (1.0, 0.1 * k, 0.0)) for k in range(3)]
    graph = _mesh(manifold3d.Manifold.batch_boolean([big, *crumbs], manifold3d.OpType.Add), 0.1)
    assert graph.groups().max() == 3
    assert refine_parts(graph, np.zeros(graph.num_faces, np.int64)).face_part.max() == 0
    # 16 bumps on one face: a rough surface, not 16 handles
    bumps = [_cube((0.02, 0.04, 0.04), (0.51, -0.3 + 0.2 * i, -0.3 + 0.2 * j)) for i in range(4) for j in range(4)]
    graph = _mesh(manifold3d.Manifold.batch_boolean([big, *bumps], manifold3d.OpType.Add), 0.1)
    assert graph.groups().max() == 0
    assert refine_parts(graph, np.zeros(graph.num_faces, np.int64)).face_part.max() == 0
    assert refine_parts(graph, np.zeros(graph.num_faces, np.int64), RefineConfig(max_protrusions=20)
                        ).face_part.max() == 16


def test_a_small_button_fitted_in_its_hole_is_a_part() -> None:
    import manifold3d

    # a 1 m cube with a 16 mm square hole in its +X face and a 12 mm button standing in it with 2 mm clearance:
    # the button is a separate piece of the shell under min_piece of its area, but not a crumb
    body = _cube((1.0, 1.0, 1.0), (0.0, 0.0, 0.0)) - _cube((0.03, 0.016, 0.016), (0.5, 0.0, 0.0))
    button = _cube((0.02, 0.012, 0.012), (0.497, 0.0, 0.0))
    graph = _mesh(manifold3d.Manifold.batch_boolean([body, button], manifold3d.OpType.Add), 0.1)
    assert graph.groups().max() == 1
    on_button = np.all(np.abs(graph.centres - [0.497, 0.0, 0.0]) <= [0.0101, 0.0061, 0.0061], axis=1)
    assert graph.area[on_button].sum() < RefineConfig().min_piece * graph.area.sum()
    out = refine_parts(graph, np.zeros(graph.num_faces, np.int64)).face_part
    assert len(np.unique(out[on_button])) == 1 and len(np.unique(out[~on_button])) == 1
    assert out[on_button][0] != out[~on_button][0]


def test_a_given_count_merges_the_smallest_parts() -> None:
    graph = _grooved_front(handle=True)
    out = refine_parts(graph, _sloppy_door(graph), max_parts=2)
    assert out.face_part.max() == 1
    merged = merge_to_count(graph, np.arange(graph.num_faces) % 3, 1)
    assert (merged == merged[0]).all()
    with pytest.raises(InvalidInputError):
        refine_parts(graph, _sloppy_door(graph), max_parts=0)
    with pytest.raises(InvalidInputError):
        refine_parts(graph, np.zeros(3, np.int64))


def test_refinement_is_deterministic_and_segment_mesh_uses_it() -> None:
    graph = _grooved_front(handle=True)
    pred = _sloppy_door(graph)
    a, b = refine_parts(graph, pred), refine_parts(graph, pred)
    assert np.array_equal(a.face_part, b.face_part) and np.array_equal(a.origin, b.origin)
    mesh = Mesh(graph.vertices, graph.faces)
    cfg = SegmenterConfig(num_points=128, edge_points=16, tokens=16, fps_pool=128, group=8, point_dim=16, width=32,
                          depth=1, heads=2, decoder_depth=1, mask_dim=16)
    torch.manual_seed(0)
    model = PartSegmenter(cfg).eval()
    on = Segmenter(model, SegmentConfig(prompts=8)).segment_mesh(mesh)
    again = Segmenter(model, SegmentConfig(prompts=8)).segment_mesh(mesh)
    assert np.array_equal(on.face_part, again.face_part) and on.labels == again.labels
    off = Segmenter(model, SegmentConfig(prompts=8, refine=False)).segment_mesh(mesh)
    assert off.prompts is not None and off.prompts.shape == (8, 3)
    redo = Segmenter(model, SegmentConfig(prompts=8)).refine(off)
    assert np.array_equal(redo.face_part, on.face_part) and redo.labels == on.labels
