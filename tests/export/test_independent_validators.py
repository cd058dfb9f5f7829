"""Independent format validators on a synth asset and a generated one: zero errors, zero warnings.

Each format is checked by a tool that is not ours: the Khronos glTF validator (npm ``gltf-validator``, driven by
``gltf_validator/validate.js``), urdfdom's ``check_urdf`` (Debian's liburdfdom-tools), yourdfpy, MuJoCo's compiler
and simulator, and usd-core's validation framework (``pxr.UsdValidation``: every registered validator, as the new
``usdchecker`` runs them). ``scripts/bootstrap.sh --dev`` installs all of them, so a missing one fails the test with
the setup step to run; it is never skipped.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
GLTF_VALIDATOR = HERE / "gltf_validator"
SETUP = "run scripts/bootstrap.sh --dev (or `make setup-dev`)"
#: Validators the USD check must have loaded (so that a plugin that failed to load cannot make it pass vacuously).
USD_VALIDATORS = ("usdValidation:CompositionErrorTest", "usdValidation:StageMetadataChecker",
                  "usdGeomValidators:StageMetadataChecker", "usdPhysicsValidators:PhysicsJointChecker",
                  "usdPhysicsValidators:RigidBodyChecker", "usdPhysicsValidators:ColliderChecker",
                  "usdShadeValidators:MaterialBindingApiAppliedValidator", "usdUtilsValidators:UsdzPackageValidator")

KINDS = ("synth", "generated")

pytestmark = pytest.mark.slow  # builds two assets (about 10 s on an idle machine)


def _build_synth(out: Path) -> dict[str, Path]:
    """A cabinet with legs, drawers over doors and a top slab, exported as ``seed3d synth`` does."""
    from seed3d import synth
    from seed3d.pipeline import finish_asset

    asset = synth.generate("cabinet", seed=3, params={"layout": "drawers_over_doors", "base": "legs",
                                                       "top_slab": "true", "drawers": "3"})
    summary = finish_asset(asset, out, validate=False, preview=False)
    return {role: out / rel for role, rel in summary["files"].items()}


def _build_generated(out: Path) -> dict[str, Path]:
    """``seed3d generate --text "a wooden cabinet with two drawers"`` (the program path) with the shipped weights."""
    from seed3d.pipeline import JobSpec, Seed3DPipeline, run_job

    spec = JobSpec(text="a wooden cabinet with two drawers")
    summary = run_job(spec, out, pipe=Seed3DPipeline.from_pretrained())
    assert summary["generator"]["path"] == "program", summary["generator"]
    return {role: out / rel for role, rel in summary["files"].items()}


@pytest.fixture(scope="module", params=KINDS)
def files(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Format → path of the exports of one asset (built once per module and kind)."""
    build = _build_synth if request.param == "synth" else _build_generated
    out = build(tmp_path_factory.mktemp(request.param) / "asset")
    missing = {"glb", "urdf", "mjcf", "usd", "usdz"} - set(out)
    assert not missing, f"{request.param}: no {sorted(missing)} written"
    return out


def test_gltf_validator_reports_no_error_and_no_warning(files: dict[str, Path]) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail(f"Node.js (node) not found; the Khronos glTF validator runs on it: {SETUP}")
    if not (GLTF_VALIDATOR / "node_modules" / "gltf-validator" / "package.json").is_file():
        pytest.fail(f"npm package gltf-validator not installed in {GLTF_VALIDATOR}/node_modules: {SETUP} "
                    f"(it runs `npm ci` there)")
    run = subprocess.run([node, str(GLTF_VALIDATOR / "validate.js"), str(files["glb"])], capture_output=True,
                         text=True, timeout=120, check=False)
    assert run.returncode == 0, f"validate.js failed ({run.returncode}): {run.stderr}"
    report = json.loads(run.stdout)
    issues = report["issues"]
    bad = [m for m in issues["messages"] if m["severity"] <= 1]  # 0 error, 1 warning (2 info, 3 hint: allowed)
    assert issues["numErrors"] == 0 and issues["numWarnings"] == 0, json.dumps(bad, indent=1)
    assert report["info"]["drawCallCount"] > 0 and report["info"]["totalTriangleCount"] > 0


def test_check_urdf_parses_the_urdf(files: dict[str, Path]) -> None:
    check_urdf = shutil.which("check_urdf")
    if check_urdf is None:
        pytest.fail(f"check_urdf not found (Debian package liburdfdom-tools): {SETUP}")
    run = subprocess.run([check_urdf, str(files["urdf"])], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, f"check_urdf exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    assert "Successfully Parsed XML" in run.stdout
    noise = [ln for ln in (run.stdout + run.stderr).splitlines() if "error" in ln.lower() or "warn" in ln.lower()]
    assert not noise, "\n".join(noise)


def test_yourdfpy_loads_and_validates_the_urdf(files: dict[str, Path], caplog: pytest.LogCaptureFixture) -> None:
    try:
        import yourdfpy
    except ImportError:
        pytest.fail(f"yourdfpy is not installed (a dev dependency in pyproject.toml): {SETUP}")
    with caplog.at_level(logging.WARNING):  # yourdfpy and trimesh (mesh, material and texture files) log problems
        robot = yourdfpy.URDF.load(str(files["urdf"]), build_scene_graph=True, load_meshes=True,
                                   build_collision_scene_graph=True, load_collision_meshes=True,
                                   force_collision_mesh=False)  # one geometry per <collision>, not per link
        valid = robot.validate()
    logged = [f"{r.levelname}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.WARNING]
    assert valid, [str(e) for e in robot.errors]
    assert not logged, logged
    assert robot.validate_filenames()
    for scene, kind in ((robot.scene, "visual"), (robot.collision_scene, "collision")):
        meshes = sum(1 for link in robot.robot.links for e in getattr(link, kind + "s")
                     if e.geometry.mesh is not None)
        loaded = len(scene.graph.nodes_geometry)
        assert meshes > 0 and loaded == meshes, f"{kind}: {loaded} of {meshes} meshes loaded"
    assert robot.num_actuated_joints > 0


def test_mujoco_compiles_and_steps_the_mjcf_without_warnings(files: dict[str, Path]) -> None:
    import mujoco

    warned: list[str] = []
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(warned.append)  # compiler and simulator warnings (else printed and logged to a file)
    try:
        model = mujoco.MjModel.from_xml_path(str(files["mjcf"]))
        data = mujoco.MjData(model)
        for _ in range(500):
            mujoco.mj_step(model, data)
    finally:
        mujoco.set_mju_user_warning(previous)
    assert not warned, warned
    counters = {mujoco.mjtWarning(i).name: w.number for i, w in enumerate(data.warning) if w.number}
    assert not counters, counters
    assert model.nbody > 1 and model.njnt > 0


@pytest.mark.parametrize("fmt", ["usd", "usdz"])
def test_usd_validation_reports_no_error_and_no_warning(files: dict[str, Path], fmt: str) -> None:
    from pxr import Usd, UsdValidation

    validators = UsdValidation.ValidationRegistry().GetOrLoadAllValidators()
    names = {v.GetMetadata().name for v in validators}
    assert set(USD_VALIDATORS) <= names, f"usd-core validators not loaded: {sorted(set(USD_VALIDATORS) - names)}"
    stage = Usd.Stage.Open(str(files[fmt]))
    issues = UsdValidation.ValidationContext(validators).Validate(stage)
    found = [f"{e.GetType().displayName} {e.GetIdentifier()}: {e.GetMessage()}" for e in issues
             if e.GetType() in (UsdValidation.ValidationErrorType.Error, UsdValidation.ValidationErrorType.Warn)]
    assert not found, "\n".join(found)
