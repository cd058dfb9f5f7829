"""``seed3d texture`` from the command line with the shipped PBR weights: one-line errors with nothing written, an
asset folder textured with its parts and joints kept (the parts the text names painted, a preview written), a bare
mesh textured from an image alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pygltflib
import pytest

from seed3d.asset import Asset
from seed3d.cli import main
from seed3d.synth import generate


@pytest.fixture(scope="module")
def drawer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("src") / "nightstand"
    generate("nightstand", seed=2).save(folder)
    return folder


def test_bad_inputs_are_one_line_errors(drawer: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "o")
    (tmp_path / "notes.png").write_text("not an image")
    cases = [
        (["texture", str(tmp_path / "none.obj"), "-o", out], "none.obj"),
        (["texture", str(drawer), "--image", str(tmp_path / "none.png"), "-o", out], "no such file"),
        (["texture", str(drawer), "--image", str(tmp_path / "notes.png"), "-o", out], "notes.png"),
        (["texture", str(drawer), "--texture-size", "4096", "-o", out], "texture_size must be at most 2048"),
        (["texture", str(drawer), "--guidance", "-1", "-o", out], "guidance must be"),
        (["texture", str(drawer), "--weights", str(tmp_path), "-o", out], "generator"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("seed3d texture: error:") and err.count("\n") == 1 and message in err, (argv, err)
    assert not (tmp_path / "o").exists()  # nothing half-written
    (tmp_path / "o").mkdir()
    assert main(["texture", str(drawer), "-o", out]) == 2
    assert "exists (use --overwrite" in capsys.readouterr().err


def test_an_asset_folder_is_textured_with_its_parts_and_joints_kept(drawer: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tex"
    argv = ["texture", str(drawer), "--material", "walnut wood, brushed brass", "--texture-size", "256",
            "--text", "a nightstand with brass handles", "--formats", "glb,urdf", "-o", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "material text: 'walnut wood, brushed brass. a nightstand with brass handles'" in printed
    assert "painted from the words: drawer_0_handle brushed_metal:brass" in printed
    assert (out / "preview.png").is_file()  # the turntable a user looks at first
    source, asset = Asset.load(drawer), Asset.load(out)
    handles = [p for p in asset.parts if p.label == "handle"]
    assert handles and all(p.physical.name == "brass" for p in handles)
    assert all(asset.metadata["painted"][p.name] == "brushed_metal:brass" for p in handles)
    assert [p.name for p in asset.parts] == [p.name for p in source.parts]
    assert [(j.name, j.type, j.parent, j.child) for j in asset.joints] == \
        [(j.name, j.type, j.parent, j.child) for j in source.joints]
    for part in asset.parts:
        assert part.material.base_color_map is not None and part.material.metallic_roughness_map is not None
        assert part.mesh.uv is not None and len(part.mesh.uv) == len(part.mesh.vertices)
    glb = pygltflib.GLTF2().load(str(next(out.rglob("*.glb"))))
    # base colour and metallic-roughness on every material (painted handles share their brass)
    assert len(glb.images) >= 2 * len({p.material.name for p in asset.parts})
    assert all(m.pbrMetallicRoughness.baseColorTexture is not None for m in glb.materials)
    assert next(out.rglob("*.urdf")).is_file()
    # the same inputs and seed give the same textures
    again = tmp_path / "again"
    assert main([*argv[:-1], str(again)]) == 0
    assert np.array_equal(Asset.load(again).parts[0].material.base_color_map, asset.parts[0].material.base_color_map)


def test_a_bare_mesh_is_textured_from_an_image_alone(drawer: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    from seed3d.render import get_renderer, orbit_camera

    source = generate("mug", seed=1)
    mesh = tmp_path / "mug.obj"
    source.parts[0].mesh.to_trimesh().export(mesh)
    with get_renderer() as r:
        rgba = r.render_image(source, orbit_camera(source, 30.0, 20.0, 128))
    image = tmp_path / "mug.png"
    Image.fromarray((rgba * 255).round().astype(np.uint8), "RGBA").save(image)
    out = tmp_path / "mug"
    assert main(["texture", str(mesh), "--image", str(image), "--texture-size", "128", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "material text: '" in printed  # the tagger named the image's materials
    asset = Asset.load(out)
    assert len(asset.parts) == 1 and asset.parts[0].material.base_color_map is not None
    assert asset.metadata["texture"]["prompt"] in printed
