"""``seed3d generate`` from the command line: bad input, and text -> a validated asset folder with the shipped
weights (image input end to end is in tests/test_pipeline.py with tiny models)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from seed3d.cli import main


def test_bad_inputs_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "-o", str(tmp_path / "o")]) == 2
    assert "give --image PATH, --text TEXT or both" in capsys.readouterr().err
    assert main(["generate", "--image", str(tmp_path / "none.png"), "-o", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["generate", "--text", "a chair", "--stages", "geometry,texture", "-o", str(tmp_path / "o")]) == 2
    assert "not wired into the pipeline yet" in capsys.readouterr().err
    (tmp_path / "notes.png").write_text("not an image")
    assert main(["generate", "--image", str(tmp_path / "notes.png"), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "image" in err
    assert not (tmp_path / "o").exists()  # nothing half-written


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("SEED3D_TEST_GENERATE") != "1",
                    reason="opt-in (SEED3D_TEST_GENERATE=1): CoACD on the v0 generator's rough shapes can take up to "
                           "its 15-minute timeout per part on 2 cores")
def test_text_makes_a_validated_asset_folder(tmp_path: Path) -> None:
    out = tmp_path / "box"
    code = main(["generate", "--text", "a wooden box 40 cm tall", "--steps", "8", "--resolution", "128",
                 "--faces", "1500", "-o", str(out)])
    report = json.loads((out / "report.json").read_text())
    assert code == 0, [c for c in report["checks"] if not c.get("passed", True)][:3]
    assert (out / "asset.json").is_file() and (out / "generated.glb").is_file()
    assert "geometry" in report["timings"]
    verts = np.load(out / "meshes" / "body.npz")["vertices"]
    assert np.ptp(verts[:, 2]) == pytest.approx(0.40, rel=1e-3) and verts[:, 2].min() == pytest.approx(0, abs=1e-6)
