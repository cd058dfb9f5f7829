"""One part per closed body for meshes made of several (``seed3d.parts.by_bodies``)."""

from __future__ import annotations

import numpy as np
import trimesh

from seed3d.asset import Mesh
from seed3d.parts import by_bodies
from seed3d.parts.segment import MeshSegmentation


def _mesh(*pieces: trimesh.Trimesh) -> Mesh:
    m = trimesh.util.concatenate(list(pieces))
    return Mesh(np.asarray(m.vertices), np.asarray(m.faces))


def _seg(mesh: Mesh, labels: list[str], face_part: np.ndarray) -> MeshSegmentation:
    return MeshSegmentation(mesh, face_part, labels, [1.0] * len(labels))


def _frame_and_sash() -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
    frame = trimesh.creation.box([0.06, 0.8, 0.6])
    sash = trimesh.creation.box([0.012, 0.36, 0.5])
    sash.apply_translation([0.1, 0.2, 0.0])
    return trimesh.remesh.subdivide(frame.vertices, frame.faces), sash


def test_cuts_inside_a_closed_body_are_undone() -> None:
    """A frame the segmenter cut in pieces comes back whole; the sash keeps the label most of its area has."""
    (fv, ff), sash = _frame_and_sash()
    mesh = _mesh(trimesh.Trimesh(fv, ff), sash)
    n_frame = len(ff)
    face_part = np.concatenate([np.arange(n_frame) % 4, np.full(len(sash.faces), 4)])
    face_part[n_frame] = 0  # one stray face of the sash given to a frame piece
    seg = _seg(mesh, ["body", "door", "leg", "frame", "drawer"], face_part)
    parts = by_bodies(mesh, seg)
    assert parts is not None and len(parts) == 2
    (body, body_label), (moving, moving_label) = parts
    assert body_label == "body" and moving_label == "drawer"
    assert len(body.faces) == n_frame and len(moving.faces) == len(sash.faces)


def test_one_shell_is_left_to_the_segmenter() -> None:
    """A single closed shell (what the geometry stage makes) is not touched."""
    box = trimesh.creation.box([1.0, 1.0, 1.0])
    mesh = _mesh(box)
    assert by_bodies(mesh, _seg(mesh, ["body", "door"], np.arange(len(box.faces)) % 2)) is None


def test_open_pieces_are_left_to_the_segmenter() -> None:
    """Components that are not closed are not solids: no bodies are assumed."""
    a = trimesh.creation.box([1.0, 1.0, 1.0])
    b = trimesh.creation.box([1.0, 1.0, 1.0])
    b.apply_translation([2.0, 0.0, 0.0])
    a = trimesh.Trimesh(a.vertices, a.faces[:-2])  # open
    b = trimesh.Trimesh(b.vertices, b.faces[:-2])
    mesh = _mesh(a, b)
    assert by_bodies(mesh, _seg(mesh, ["body", "door"], np.arange(len(mesh.faces)) % 2)) is None


def test_cli_articulate_takes_bodies() -> None:
    """``seed3d articulate`` splits by bodies by default; ``--no-bodies`` keeps the segmenter's cut."""
    from seed3d.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["articulate", "in.obj", "-o", "out"]).bodies
    assert not parser.parse_args(["articulate", "in.obj", "-o", "out", "--no-bodies"]).bodies


def test_a_cut_that_agrees_with_the_bodies_is_kept() -> None:
    """No part spans two bodies and there are few parts per body: the segmenter's cut stands."""
    (fv, ff), sash = _frame_and_sash()
    mesh = _mesh(trimesh.Trimesh(fv, ff), sash)
    face_part = np.concatenate([np.zeros(len(ff), np.int64), np.ones(len(sash.faces), np.int64)])
    assert by_bodies(mesh, _seg(mesh, ["body", "door"], face_part)) is None


def test_a_second_body_cut_in_pieces_is_made_whole() -> None:
    """A body other than the largest is one rigid piece: a press's handle the segmenter cut in two comes back whole,
    even though each piece lies within one body and there are few parts."""
    (fv, ff), sash = _frame_and_sash()
    sv, sf = trimesh.remesh.subdivide(sash.vertices, sash.faces)
    mesh = _mesh(trimesh.Trimesh(fv, ff), trimesh.Trimesh(sv, sf))
    centres = np.asarray(trimesh.Trimesh(sv, sf).triangles_center)
    face_part = np.concatenate([np.zeros(len(ff), np.int64), np.where(centres[:, 2] > 0, 1, 2)])
    parts = by_bodies(mesh, _seg(mesh, ["body", "knob", "spout"], face_part))
    assert parts is not None and len(parts) == 2
    assert len(parts[1][0].faces) == len(sf) and parts[1][1] in ("knob", "spout")
