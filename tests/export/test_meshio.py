"""Reading mesh files: glTF's +Y up, the up axis of OBJ/PLY/STL/OFF read from how the object rests, and ``up``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh

from seed3d.asset import Mesh
from seed3d.errors import InvalidInputError
from seed3d.export.glb import GLTF_FROM_ASSET
from seed3d.export.meshio import UP_CHOICES, choose_up, read_mesh, read_mesh_oriented, up_rotation
from seed3d.parts.shell import merged_shell
from seed3d.synth import generate


@pytest.fixture(scope="module")
def cabinets() -> dict[int, Mesh]:
    """Merged shells of two synth cabinets in the asset frame (+Z up, front +X)."""
    return {seed: merged_shell(generate("cabinet", seed))[0] for seed in (0, 1)}


def _write(mesh: Mesh, path: Path, rotation: np.ndarray | None = None) -> Path:
    """``mesh`` written to ``path`` with its vertices turned by ``rotation`` (row vectors: v @ rotation)."""
    verts = mesh.vertices if rotation is None else mesh.vertices @ rotation
    trimesh.Trimesh(verts, mesh.faces, process=False).export(path)
    return path


def test_up_rotations_are_proper_and_plus_y_is_gltfs() -> None:
    assert np.allclose(up_rotation("+y"), GLTF_FROM_ASSET.T)  # the GLB reader's and exporter's rotation
    for up in UP_CHOICES[1:]:
        rot = up_rotation(up)
        axis = np.eye(3)["xyz".index(up[1])] * (1.0 if up[0] == "+" else -1.0)
        assert np.allclose(rot @ rot.T, np.eye(3)) and np.isclose(np.linalg.det(rot), 1.0)
        assert np.allclose(rot @ axis, (0, 0, 1))
    with pytest.raises(InvalidInputError, match="up must be one of"):
        up_rotation("up")


def test_a_y_up_obj_cabinet_is_read_upright_and_says_why(cabinets: dict[int, Mesh], tmp_path: Path) -> None:
    shell = cabinets[1]
    path = _write(shell, tmp_path / "cabinet.obj", GLTF_FROM_ASSET.T)  # as glTF tools write it: +Y up, front +Z
    mesh, how = read_mesh_oriented(path)
    assert (how.up, how.source) == ("+y", "support")
    assert "+y breaks its mirror symmetry" in how.note  # the geometry decided, not the file type's habit
    assert np.allclose(np.sort(mesh.vertices, axis=0), np.sort(shell.vertices, axis=0), atol=1e-5)  # the asset frame
    doc = how.to_dict()
    assert doc["up"] == "+y" and {s["up"] for s in doc["supports"]} == set(UP_CHOICES[1:])
    assert next(s for s in doc["supports"] if s["up"] == "+y")["stable"]
    # the same cabinet written +Z up (the asset frame) stays as it is: lying on its side is not upright
    mesh, how = read_mesh_oriented(_write(shell, tmp_path / "cabinet_z.obj"))
    assert how.up == "+z" and np.allclose(mesh.vertices, shell.vertices, atol=1e-6)


def test_ambiguous_supports_take_the_file_types_usual_axis_and_say_so(cabinets: dict[int, Mesh],
                                                                      tmp_path: Path) -> None:
    shell = cabinets[0]  # stands upright and on its back, about as symmetric either way
    obj = read_mesh_oriented(_write(shell, tmp_path / "c.obj", GLTF_FROM_ASSET.T))[1]
    assert obj.up == "+y" and obj.note.startswith("ambiguous") and "usual up axis of OBJ files" in obj.note
    assert "--up" in obj.note
    stl = read_mesh_oriented(_write(shell, tmp_path / "c.stl", GLTF_FROM_ASSET.T))[1]
    assert stl.up == "+z" and "usual up axis of STL files" in stl.note  # wrong here, and it says so


def test_gltf_is_y_up_by_its_spec_and_up_overrides(tmp_path: Path) -> None:
    box = trimesh.creation.box(extents=(1.0, 2.0, 3.0))  # stands best on the file's z, yet glTF says +y
    box.export(tmp_path / "b.glb")
    box.export(tmp_path / "b.obj")
    mesh, how = read_mesh_oriented(tmp_path / "b.glb")
    assert (how.up, how.source) == ("+y", "format") and "specification" in how.note
    assert np.allclose(np.ptp(mesh.vertices, axis=0), (3, 1, 2))
    mesh, how = read_mesh_oriented(tmp_path / "b.glb", "+z")
    assert (how.up, how.source) == ("+z", "given") and np.allclose(np.ptp(mesh.vertices, axis=0), (1, 2, 3))
    mesh, how = read_mesh_oriented(tmp_path / "b.obj", "-x")
    assert how.source == "given" and np.allclose(np.ptp(mesh.vertices, axis=0), (2, 3, 1))
    assert np.allclose(read_mesh(tmp_path / "b.obj").vertices, box.vertices)  # no up given: the file's own axes
    with pytest.raises(InvalidInputError, match="up must be one of"):
        read_mesh_oriented(tmp_path / "b.obj", "z")


def test_a_ball_has_no_stable_face_and_keeps_plus_z_with_a_note(tmp_path: Path) -> None:
    ball = trimesh.creation.icosphere(subdivisions=2, radius=0.1)
    ball.apply_translation((0.3, -0.2, 0.5))
    ball.export(tmp_path / "ball.ply")
    mesh, how = read_mesh_oriented(tmp_path / "ball.ply")
    assert (how.up, how.source) == ("+z", "default") and "no stable resting face" in how.note
    assert "--up" in how.note and not any(s.stable for s in how.supports)
    assert np.allclose(mesh.vertices, ball.vertices)


def test_an_object_resting_only_on_another_axis_is_turned_onto_it() -> None:
    cone = trimesh.creation.cone(radius=0.3, height=1.0)  # base on z = 0, tip up
    upright = choose_up(Mesh(cone.vertices, cone.faces))
    assert upright.up == "+z" and upright.source == "support"
    flipped = Mesh(cone.vertices * (1.0, -1.0, -1.0), cone.faces[:, ::-1])  # tip down: it stands with -z up
    how = choose_up(flipped, prefer="+y")
    assert how.up == "-z" and "neither +z nor +y" in how.note
    with pytest.raises(InvalidInputError, match="prefer"):
        choose_up(flipped, prefer="-z")


def test_the_cli_offers_every_up_choice() -> None:
    from seed3d.cli import build_parser

    parser = build_parser()
    for up in UP_CHOICES:
        assert parser.parse_args(["articulate", "m.obj", "-o", "out", f"--up={up}"]).up == up
