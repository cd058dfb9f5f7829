"""Runs inside .venv-blender (bpy), driven by test_addon.py: install the add-on as an extension, exercise its
operators against a live service, and write what Blender ended up with as JSON.

Usage: python addon_script.py CONFIG.json OUT.json (CONFIG: url, cabinet_job, refused_job, addon_dir, work_dir).
"""

from __future__ import annotations

import json
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import bpy
import numpy as np

config = json.loads(Path(sys.argv[1]).read_text())
out_path = Path(sys.argv[2])
work = Path(config["work_dir"])
report: dict[str, Any] = {}


def install() -> Any:
    """Zip blender/ as an extension and install it into a fresh local repository, enabled."""
    src = Path(config["addon_dir"])
    archive = work / "seed3d-addon.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(src.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                zf.write(path, path.relative_to(src).as_posix())
    repo_dir = work / "repo"
    repo_dir.mkdir()
    bpy.context.preferences.extensions.repos.new(name="seed3d_tests", module="seed3d_tests",
                                                 custom_directory=str(repo_dir), source="USER")
    result = bpy.ops.extensions.package_install_files(filepath=str(archive), repo="seed3d_tests",
                                                      enable_on_install=True)
    report["install"] = sorted(result)
    return sys.modules["bl_ext.seed3d_tests.seed3d"]


def run_task(addon: Any, timeout: float = 300.0) -> list[str]:
    """Call the add-on's timer callback (as Blender's event loop would) until it unregisters; returns the
    statuses it showed."""
    assert bpy.app.timers.is_registered(addon.drain), "the operator registered no timer"
    shown: list[str] = []
    deadline = time.monotonic() + timeout
    while True:
        again = addon.drain()
        status = addon._state["status"]
        if status and (not shown or shown[-1] != status):
            shown.append(status)
        if again is None:
            return shown
        if time.monotonic() > deadline:
            raise TimeoutError(f"the add-on's task did not end in {timeout:g} s; shown: {shown}")
        time.sleep(0.05)


def world_bounds(obj: Any) -> list[list[float]]:
    """World-space bounding box of an object's evaluated mesh."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(depsgraph)
    mesh = ev.to_mesh()
    co = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    ev.to_mesh_clear()
    co = co.reshape(-1, 3)
    m = np.array(ev.matrix_world)
    world = co @ m[:3, :3].T + m[:3, 3]
    return [world.min(axis=0).tolist(), world.max(axis=0).tolist()]


def snapshot(collection: str) -> dict[str, Any]:
    """Objects of a collection: parent, joint properties, world bounds, materials."""
    bpy.context.view_layer.update()
    objs = {}
    for obj in bpy.data.collections[collection].objects:
        entry: dict[str, Any] = {"parent": obj.parent.name if obj.parent else None, "type": obj.type,
                                 "part": obj.get("seed3d_part"), "joint": obj.get("seed3d_joint"),
                                 "materials": [s.material.name for s in obj.material_slots if s.material]}
        if obj.type == "MESH":
            entry["bounds"] = world_bounds(obj)
        if "seed3d_q" in obj:
            ui = obj.id_properties_ui("seed3d_q").as_dict()
            entry["q"] = {"value": obj["seed3d_q"], "min": ui["min"], "max": ui["max"], "subtype": ui["subtype"]}
        objs[obj.name] = entry
    return objs


addon = install()
prefs = bpy.context.preferences.addons["bl_ext.seed3d_tests.seed3d"].preferences
prefs.server_url = config["url"]
prefs.download_dir = str(work / "downloads")
report["panels"] = [name for name in ("VIEW3D_PT_seed3d", "VIEW3D_PT_seed3d_joints") if hasattr(bpy.types, name)]
settings = bpy.context.scene.seed3d

# 1. import an existing (articulated) job through the operator: worker thread downloads, timer imports
settings.job_id = config["cabinet_job"]
settings.articulated = True
settings.name = "cabinet"
report["import_op"] = sorted(bpy.ops.seed3d.import_job())
report["import_shown"] = run_task(addon)
report["import_error"] = addon._state["error"]
report["import_made"] = list(addon._state["made"])
# the job was made by a program: its parameters go into the settings, to change one and generate again
report["use_program_op"] = sorted(bpy.ops.seed3d.use_program())
report["use_program"] = {"prompt": settings.prompt, "seed": settings.seed, "generator": settings.generator,
                         "params": settings.params}
settings.prompt, settings.seed, settings.generator, settings.params = "", 0, "auto", ""
report["rest"] = snapshot("cabinet")
report["images_packed"] = {img.name: img.packed_file is not None for img in bpy.data.images
                           if img.source == "FILE"}

# drive every movable joint to its upper limit through its custom property (what the joint slider sets)
for obj in bpy.data.collections["cabinet"].objects:
    if "seed3d_q" in obj:
        obj["seed3d_q"] = obj.id_properties_ui("seed3d_q").as_dict()["max"]
        obj.update_tag()
report["open"] = snapshot("cabinet")

# 2. the same job without the hierarchy: free parts where the GLB put them
settings.articulated = False
settings.name = "cabinet_flat"
bpy.ops.seed3d.import_job()
report["flat_shown"] = run_task(addon)
report["flat"] = snapshot("cabinet_flat")

# 3. generate: submit from the panel's settings, see it queued, cancel it from Blender
settings.prompt = "a chair"
settings.seed = 5
settings.want_usd = False
settings.generator = "program"
settings.params = "legs=3; arms=true"
settings.require_valid = True
report["generate_op"] = sorted(bpy.ops.seed3d.generate())
deadline = time.monotonic() + 60
while not (addon._task and addon._task.job):
    addon.drain()
    assert time.monotonic() < deadline, "no job reached the main thread"
    time.sleep(0.05)
report["generated_job"] = addon._task.job
report["cancel_op"] = sorted(bpy.ops.seed3d.cancel())
report["generate_shown"] = run_task(addon)
report["generate_state"] = dict(addon._state)

# 4. a job that made an asset failing validation (require_valid): the panel says which checks failed
settings.job_id = config["refused_job"]
bpy.ops.seed3d.import_job()
run_task(addon)
report["refused_state"] = {k: addon._state[k] for k in ("status", "error", "verdict", "valid")}

bpy.ops.preferences.addon_disable(module="bl_ext.seed3d_tests.seed3d")
report["unregistered"] = not hasattr(bpy.types.Scene, "seed3d")
out_path.write_text(json.dumps(report, indent=1))
