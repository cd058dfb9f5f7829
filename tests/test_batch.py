"""``seed3d batch``: manifests (CSV, JSONL, bad ones), resume after an interruption, failures that do not stop the
batch, the summary files, local worker processes and a local Ray cluster, with tiny random models."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

import seed3d.batch as batch
from seed3d.batch import ManifestError, read_manifest, run_batch
from seed3d.cli import main
from seed3d.pipeline import JobSpec, Seed3DPipeline
from tests.broken_assets import FixedPipe
from tests.test_pipeline import make_tiny_weights, noise_image

#: Job fields that keep tiny-model runs fast (geometry only: parts and joints of random models say nothing here).
FAST = {"steps": 2, "resolution": 32, "target_faces": None, "stages": ["geometry"], "formats": ["glb", "urdf"]}


@pytest.fixture(scope="module")
def tiny_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_weights(tmp_path_factory.mktemp("weights"))


def _jsonl(path: Path, jobs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(j) + "\n" for j in jobs))
    return path


def _images(folder: Path, n: int) -> list[str]:
    (folder / "img").mkdir(exist_ok=True)
    return [noise_image(folder / "img" / f"{i}.png", seed=i).relative_to(folder).as_posix() for i in range(n)]


def test_csv_and_jsonl_manifests_give_the_same_jobs(tmp_path: Path) -> None:
    images = _images(tmp_path, 2)
    with (tmp_path / "jobs.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image", "text", "seed", "target_faces", "guidance", "stages", "formats"])
        w.writerow([images[0], "", "3", "none", "2.5", "geometry,parts", "glb,usd"])
        w.writerow(["", "a stool", "", "", "", "", ""])
        w.writerow([",", ",", ",", ",", ",", ",", ""][:7])  # only separators: a row of values, not a blank row
    rows = read_manifest(tmp_path / "jobs.csv")
    assert [r.row for r in rows] == [1, 2, 3]
    first = rows[0].spec
    assert first is not None and first.image == str(tmp_path / images[0])  # relative to the manifest
    assert (first.seed, first.target_faces, first.guidance) == (3, None, 2.5)
    assert first.stages == ("geometry", "parts") and first.formats == ("glb", "usd")
    assert rows[1].spec == JobSpec(text="a stool")
    assert rows[2].spec is None and rows[2].error  # bad values fail that row only
    _jsonl(tmp_path / "jobs.jsonl", [{"image": images[0], "text": None, "seed": 3, "target_faces": None,
                                      "guidance": 2.5, "stages": ["geometry", "parts"], "formats": "glb,usd"},
                                     {"text": "a stool"}])
    same = read_manifest(tmp_path / "jobs.jsonl")
    assert [r.key for r in same] == [r.key for r in rows[:2]]


@pytest.mark.parametrize(("name", "text", "message"), [
    ("jobs.txt", "text\na chair\n", "a manifest is a .csv or .jsonl file"),
    ("jobs.csv", "", "empty CSV manifest"),
    ("jobs.csv", "text,colour\na chair,red\n", "unknown column(s) 'colour'"),
    ("jobs.csv", "text\n\n", "lists no jobs"),
    ("jobs.jsonl", '{"text": "a chair"}\n{"text": \n', "line 2 is not JSON"),
    ("jobs.jsonl", '["a chair"]\n', "line 1 is not a JSON object"),
    ("jobs.jsonl", '{"txt": "a chair"}\n', "unknown field(s) 'txt'"),
])
def test_bad_manifests_are_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str,
                                           message: str) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(ManifestError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_manifest(tmp_path / name)
    assert main(["batch", str(tmp_path / name), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("seed3d batch: error:") and err.count("\n") == 1 and message in err
    assert not (tmp_path / "out").exists()
    assert main(["batch", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "out")]) == 2
    assert "no such manifest file" in capsys.readouterr().err


def test_interrupted_batch_resumes_and_makes_each_item_once(tiny_weights: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    images = _images(tmp_path, 3)
    jobs = [{"image": im, "seed": i, **FAST} for i, im in enumerate(images)]
    jobs.append(dict(jobs[0]))  # the same job twice: one folder
    manifest = _jsonl(tmp_path / "jobs.jsonl", jobs)
    calls: list[str] = []
    real = batch.run_job

    def counting(spec: JobSpec, out: Any, **kw: Any) -> dict[str, Any]:
        calls.append(spec.key())
        return real(spec, out, **kw)

    monkeypatch.setattr(batch, "run_job", counting)

    def interrupt(row: dict[str, Any]) -> None:
        if row["status"] == "done":
            raise KeyboardInterrupt

    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_batch(manifest, out, weights=tiny_weights, on_result=interrupt)
    assert len(calls) == 1 and not (out / "summary.json").exists()  # the summary is written last
    assert [p.name for p in (out / "items").iterdir() if not p.name.startswith(".")] == [calls[0]]

    result = run_batch(manifest, out, weights=tiny_weights)
    keys = [JobSpec(**{**j, "image": str(tmp_path / j["image"])}).key() for j in jobs]
    assert sorted(calls) == sorted(set(keys)) and len(calls) == 3  # each item generated exactly once
    assert [r["status"] for r in result.rows] == ["resumed", "done", "done", "resumed"]
    assert [r["key"] for r in result.rows] == keys and result.rows[3]["folder"] == result.rows[0]["folder"]
    assert sorted(p.name for p in (out / "items").iterdir()) == sorted(set(keys))  # no temporary folders left
    doc = json.loads((out / "summary.json").read_text())
    assert doc["counts"] == {"done": 2, "resumed": 2, "failed": 0, "valid": result.counts["valid"], "rows": 4}
    with (out / "summary.csv").open() as f:
        table = list(csv.DictReader(f))
    assert [r["status"] for r in table] == ["resumed", "done", "done", "resumed"]
    assert all((out / r["folder"] / "report.json").is_file() for r in doc["items"])

    again = run_batch(manifest, out, weights=tiny_weights)  # all finished: nothing runs
    assert len(calls) == 3 and {r["status"] for r in again.rows} == {"resumed"}


def test_failing_items_are_recorded_and_the_batch_goes_on(tiny_weights: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    images = _images(tmp_path, 2)
    (tmp_path / "img" / "broken.png").write_text("not an image")
    manifest = _jsonl(tmp_path / "jobs.jsonl", [
        {"image": "img/broken.png", **FAST},
        {"image": images[0], **FAST},
        {"image": "img/missing.png", **FAST},
        {"image": images[1], **FAST, "stages": ["geometry", "paint"]},
        {"image": images[1], **FAST, "steps": 0},
        {"image": images[1], **FAST},
    ])
    code = main(["batch", str(manifest), "-o", str(tmp_path / "out"), "--weights", str(tiny_weights)])
    assert code == 1  # some items failed
    doc = json.loads((tmp_path / "out" / "summary.json").read_text())
    status = [r["status"] for r in doc["items"]]
    assert status == ["failed", "done", "failed", "failed", "failed", "done"]
    errors = [r["error"] for r in doc["items"]]
    assert "broken.png" in errors[0] and "no such image file" in errors[2] and "paint" in errors[3]
    assert "steps" in errors[4] and all("\n" not in e for e in errors if e)
    printed = capsys.readouterr().out
    assert "6 rows: 2 generated, 0 already done, 4 failed" in printed and "no such image file" in printed


def test_the_summary_shows_validity_and_require_valid_fails_a_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(Seed3DPipeline, "from_pretrained", lambda *a, **k: FixedPipe())  # a drawer that cannot open
    job = {"text": "a cabinet with a drawer", "generator": "learned", "stages": "geometry", "formats": "urdf"}
    with (tmp_path / "jobs.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=[*job, "name", "require_valid"])
        w.writeheader()
        w.writerow({**job, "name": "plain", "require_valid": ""})
        w.writerow({**job, "name": "strict", "require_valid": "true"})
        w.writerow({**job, "name": "odd", "require_valid": "maybe"})
    out = tmp_path / "out"
    assert main(["batch", str(tmp_path / "jobs.csv"), "-o", str(out)]) == 1
    printed = capsys.readouterr().out
    doc = json.loads((out / "summary.json").read_text())
    plain, strict, odd = doc["items"]
    assert plain["status"] == "done" and plain["valid"] is False
    assert plain["sound"] is True and plain["functional"] is False and plain["failed_checks"] == ["functional.travel"]
    assert strict["status"] == "failed" and strict["valid"] is False
    assert strict["failed_checks"] == ["functional.travel"]
    assert "functional.travel: drawer_slide (drawer) moves 1.0 mm" in strict["error"]
    assert (out / strict["folder"] / "report.json").is_file()  # the refused asset stays to be looked at
    assert odd["status"] == "failed" and "require_valid must be true or false" in odd["error"]
    with (out / "summary.csv").open() as f:
        table = list(csv.DictReader(f))
    assert [r["failed_checks"] for r in table] == ["functional.travel", "functional.travel", ""]
    assert [r["sound"] for r in table[:2]] == ["True", "True"] and table[0]["functional"] == "False"
    assert "failed: functional.travel" in printed and "drawer_slide (drawer) moves 1.0 mm" in printed
    # resumed: the folders are complete, nothing runs again, the same verdicts (read back from report.json)
    again = run_batch(tmp_path / "jobs.csv", out)
    assert [r["status"] for r in again.rows] == ["resumed", "failed", "failed"]
    assert again.rows[0]["failed_checks"] == ["functional.travel"] and "functional.travel" in again.rows[1]["error"]


def test_local_worker_processes(tiny_weights: Path, tmp_path: Path) -> None:
    images = _images(tmp_path, 2)
    manifest = _jsonl(tmp_path / "jobs.jsonl", [{"image": im, **FAST} for im in images])
    result = run_batch(manifest, tmp_path / "out", workers=2, weights=tiny_weights)
    assert result.backend == "processes" and [r["status"] for r in result.rows] == ["done"] * 2
    one = run_batch(manifest, tmp_path / "one", workers=1, weights=tiny_weights, resume=False)
    # the same jobs make the same assets whichever backend runs them
    for a, b in zip(result.rows, one.rows, strict=True):
        assert a["key"] == b["key"] and a["faces"] == b["faces"]
        assert (tmp_path / "out" / a["folder"] / "meshes" / "body.npz").read_bytes() == \
            (tmp_path / "one" / b["folder"] / "meshes" / "body.npz").read_bytes()


def test_ray_backend_on_a_local_cluster(tiny_weights: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    images = _images(tmp_path, 2)
    manifest = _jsonl(tmp_path / "jobs.jsonl", [{"image": im, **FAST} for im in images] +
                      [{"image": "img/missing.png", **FAST}])
    result = run_batch(manifest, tmp_path / "out", workers=1, ray="local", weights=tiny_weights)
    assert result.backend == "ray" and [r["status"] for r in result.rows] == ["done", "done", "failed"]
    assert all((tmp_path / "out" / r["folder"] / "report.json").is_file() for r in result.rows[:2])
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["backend"] == "ray"


def test_batch_help_lists_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["batch", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for flag in ("MANIFEST", "--output", "--workers", "--ray", "--weights", "--device", "--no-resume"):
        assert flag in text
