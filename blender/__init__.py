"""Seed3D for Blender: generate a simulation-ready asset from a prompt or an image on a Seed3D service, and import
it with its PBR materials and, optionally, its articulated hierarchy (parts parented at their joints, each movable
joint driven by a custom property with the joint's limits).

Network work runs in a worker thread (``seed3d_client``, plain Python); everything it reports goes through a
queue that a ``bpy.app.timers`` callback drains on Blender's main thread, the only thread that touches bpy data.
"""

import contextlib
import json
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bpy
from bpy.props import BoolProperty, EnumProperty, IntProperty, PointerProperty, StringProperty

from .seed3d_client import (
    TERMINAL,
    AssetInfo,
    Client,
    ClientError,
    GenerationRequest,
    JointInfo,
    describe_generator,
    describe_validity,
    format_params,
    match_objects,
    parse_asset,
    parse_params,
    run_generation,
)

#: Custom property on a part object holding its joint value (radians or meters), driving its transform.
JOINT_PROP = "seed3d_q"
#: How often the main thread drains the worker's queue (seconds).
DRAIN_INTERVAL = 0.25


# ------------------------------------------------------------------------------------------ worker task


class _Task:
    """One background job (generate, or fetch an existing job): a worker thread and its message queue."""

    def __init__(self, label: str, work: Callable[["_Task"], None]) -> None:
        self.label = label
        self.messages: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.stop = threading.Event()
        self.client: Client | None = None
        self.job: dict[str, Any] | None = None
        self.thread = threading.Thread(target=self._run, args=(work,), name=f"seed3d-{label}", daemon=True)

    def post(self, kind: str, payload: Any = None) -> None:
        """Hand a message to the main thread (called from the worker thread)."""
        self.messages.put((kind, payload))

    def _run(self, work: Callable[["_Task"], None]) -> None:
        try:
            work(self)
        except ClientError as err:
            self.post("error", str(err))
        except Exception as err:  # a worker must report, never die silently
            self.post("error", f"{type(err).__name__}: {err}")
        finally:
            self.post("end")


_task: _Task | None = None
#: What the panel shows about the current or last task.
_state: dict[str, Any] = {"status": "", "progress": 0.0, "job_id": "", "error": "", "running": False, "made": [],
                         "program": None, "verdict": [], "valid": None}


def _set_state(**values: Any) -> None:
    _state.update(values)
    wm = bpy.context.window_manager
    for window in wm.windows if wm else ():
        for area in window.screen.areas:
            if area.type == "VIEW_3D":
                area.tag_redraw()


def _start(task: _Task, client: Client) -> None:
    global _task
    task.client = client
    _task = task
    _set_state(status=f"{task.label}: starting", progress=0.0, job_id="", error="", running=True, made=[],
               program=None, verdict=[], valid=None)
    task.thread.start()
    if not bpy.app.timers.is_registered(drain):
        bpy.app.timers.register(drain, first_interval=DRAIN_INTERVAL)


def drain() -> float | None:
    """Timer callback (main thread): apply what the worker reported; import a finished result."""
    global _task
    task = _task
    if task is None:
        return None
    ended = False
    while True:
        try:
            kind, payload = task.messages.get_nowait()
        except queue.Empty:
            break
        if kind == "job":
            task.job = payload
            stage = f" · {payload['stage']}" if payload.get("stage") else ""
            if payload.get("status") == "running" and payload.get("message"):
                stage += f": {payload['message']}"  # what the stage is doing now ("decimating 445k faces… 6 s")
            queue_pos = payload.get("queue_position")
            where = f" (#{queue_pos} in queue)" if payload.get("status") == "queued" and queue_pos is not None else ""
            _set_state(status=f"{payload['status']}{stage}{where}", progress=float(payload.get("progress") or 0) / 100,
                       job_id=payload["id"])
            made = describe_generator(payload)
            if made:
                program = payload["result"]["generator"].get("program")
                options = payload.get("options") or {}
                _set_state(made=made, program={"text": options.get("text") or "", "seed": options.get("seed", 0),
                                               "params": program["params"]} if program else None)
            verdict = describe_validity(payload)
            if verdict:
                _set_state(verdict=verdict, valid=bool(payload["result"]["valid"]))
            error = payload.get("error")
            if error and payload.get("status") == "failed":
                _set_state(error=f"{error.get('code')}: {error.get('detail')}")
        elif kind == "result":
            _import_finished(task, payload)
        elif kind == "error":
            _set_state(status="error", error=payload)
        elif kind == "end":
            ended = True
    if ended:
        _task = None
        _set_state(running=False)
        return None
    return DRAIN_INTERVAL


def _import_finished(task: _Task, payload: dict[str, Any]) -> None:
    job, files, settings = payload["job"], payload["files"], payload["settings"]
    if job.get("status") != "succeeded":
        _set_state(status=job.get("status", "ended"))
        return
    if "model.glb" not in files:
        _set_state(status="succeeded", error="the job has no model.glb (was GLB among the formats?)")
        return
    try:
        with _window_context():
            objects = import_result(files["model.glb"], files.get("asset.json"), articulated=settings["articulated"],
                                    name=settings["name"] or f"seed3d_{job['id'][:8]}")
    except (RuntimeError, ValueError, OSError) as err:
        _set_state(status="import failed", error=str(err))
        return
    _set_state(status=f"imported {len(objects)} objects", progress=1.0)


def _window_context() -> contextlib.AbstractContextManager[None]:
    """Timers run without a window in their context; give operators the first window when there is one."""
    wm = bpy.context.window_manager
    windows = list(wm.windows) if wm else []
    return bpy.context.temp_override(window=windows[0]) if windows else contextlib.nullcontext()


# --------------------------------------------------------------------------------------------- import


def import_result(glb: str | Path, asset_json: str | Path | None = None, articulated: bool = True,
                  name: str = "seed3d") -> list[bpy.types.Object]:
    """Import a Seed3D GLB into a new collection ``name``; with ``articulated`` and ``asset_json``, parent each part
    at its joint and drive each movable joint by the ``seed3d_q`` property; otherwise parts are free objects."""
    objects_before = set(bpy.data.objects)
    collections_before = set(bpy.data.collections)
    result = bpy.ops.import_scene.gltf(filepath=str(glb))
    if "FINISHED" not in result:
        raise RuntimeError(f"Blender's glTF importer could not read {glb}")
    new = [o for o in bpy.data.objects if o not in objects_before]
    if not new:
        raise RuntimeError(f"{glb} holds no objects")

    scene = bpy.context.scene
    target = bpy.data.collections.new(name)
    scene.collection.children.link(target)
    for obj in new:
        for coll in list(obj.users_collection):
            coll.objects.unlink(obj)
        target.objects.link(obj)
        obj["seed3d_asset"] = target.name
    for coll in set(bpy.data.collections) - collections_before - {target}:
        if not coll.objects and not coll.children:
            bpy.data.collections.remove(coll)
    bpy.context.view_layer.update()

    info = None
    if asset_json is not None:
        with open(asset_json, encoding="utf-8") as fh:
            info = parse_asset(json.load(fh))
    if articulated and info is not None:
        matched = match_objects([o.name for o in new], info.parts)
        by_part = {part: bpy.data.objects[obj] for part, obj in matched.items()}
        missing = sorted(set(info.parts) - set(by_part))
        if missing:
            raise ValueError(f"the GLB has no objects for parts {missing}")
        _articulate(info, by_part)
        target["seed3d_root"] = by_part[info.root].name
    else:
        for obj in new:
            if obj.parent is not None:
                world = obj.matrix_world.copy()
                obj.parent = None
                obj.matrix_world = world
    bpy.context.view_layer.update()
    return new


def _articulate(info: AssetInfo, by_part: dict[str, bpy.types.Object]) -> None:
    """Parent every part at its joint (location = pivot offset from its parent's pivot) and add joint drivers."""
    for part in info.tree_order():
        joint = info.joint_to(part)
        obj = by_part[part]
        obj["seed3d_part"] = part
        if joint is None:
            continue
        obj.parent = by_part[joint.parent]
        obj.matrix_parent_inverse.identity()
        obj.rotation_mode = "QUATERNION"
        obj.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
        obj.scale = (1.0, 1.0, 1.0)
        obj.location = info.local_offset(part)
        obj["seed3d_joint"] = joint.name
        obj["seed3d_joint_type"] = joint.type
        if joint.movable:
            _drive(obj, joint, info.local_offset(part))


def _drive(obj: bpy.types.Object, joint: JointInfo, rest: tuple[float, float, float]) -> None:
    """Make ``obj[JOINT_PROP]`` move ``obj`` along or about the joint axis (simple-expression drivers)."""
    lower, upper = joint.limits
    rotary = joint.type != "prismatic"
    obj[JOINT_PROP] = min(max(0.0, lower), upper)
    obj.id_properties_ui(JOINT_PROP).update(
        min=lower, max=upper, soft_min=lower, soft_max=upper, subtype="ANGLE" if rotary else "DISTANCE",
        description=f"{joint.type} joint {joint.name}: {joint.parent} -> {joint.child}")
    axis = joint.blender_axis
    if rotary:
        obj.rotation_mode = "AXIS_ANGLE"
        obj.rotation_axis_angle = (0.0, *axis)
        channels = [("rotation_axis_angle", 0, "q")]
    else:
        channels = [("location", i, f"{rest[i]:.9f} + {axis[i]:.9f} * q") for i in range(3)]
    for path, index, expression in channels:
        curve = obj.driver_add(path, index)
        driver = curve.driver
        driver.type = "SCRIPTED"
        var = driver.variables.new()
        var.name = "q"
        var.type = "SINGLE_PROP"
        var.targets[0].id_type = "OBJECT"
        var.targets[0].id = obj
        var.targets[0].data_path = f'["{JOINT_PROP}"]'
        driver.expression = expression


# ---------------------------------------------------------------------------------------- properties


def _prefs(context: bpy.types.Context) -> "Seed3DPreferences":
    return context.preferences.addons[__package__].preferences


class Seed3DPreferences(bpy.types.AddonPreferences):
    """Where the Seed3D service is and how to reach it."""

    bl_idname = __package__

    server_url: StringProperty(name="Server URL", default="http://127.0.0.1:8000",
                               description="Base URL of the Seed3D service (seed3d serve prints it)")
    api_key: StringProperty(name="API key", subtype="PASSWORD", default="",
                            description="Bearer key, when the service asks for one")
    download_dir: StringProperty(name="Download folder", subtype="DIR_PATH", default="",
                                 description="Where results are saved (empty: Blender's temporary folder)")

    def draw(self, context: bpy.types.Context) -> None:
        """Preferences layout."""
        for prop in ("server_url", "api_key", "download_dir"):
            self.layout.prop(self, prop)


class Seed3DSettings(bpy.types.PropertyGroup):
    """What to generate and how to import it (per scene)."""

    prompt: StringProperty(name="Prompt", default="", description="Describe the object")
    image: StringProperty(name="Image", subtype="FILE_PATH", default="",
                          description="Optional image of the object (PNG, JPEG or WebP)")
    seed: IntProperty(name="Seed", default=0, min=0, description="Same inputs and seed: same asset")
    use_texture: BoolProperty(name="Texture", default=False, description="Run the PBR texture stage")
    use_parts: BoolProperty(name="Parts", default=False, description="Split the object into functional parts")
    use_articulation: BoolProperty(name="Articulation", default=False, description="Infer joints between parts")
    target_faces: IntProperty(name="Target faces", default=50_000, min=100, description="Mesh face budget")
    texture_size: EnumProperty(name="Texture size", default="1024",
                               items=[(s, s, f"{s}×{s} texture maps") for s in ("512", "1024", "2048")])
    want_urdf: BoolProperty(name="URDF", default=True)
    want_mjcf: BoolProperty(name="MJCF", default=True)
    want_usd: BoolProperty(name="USD", default=True)
    articulated: BoolProperty(name="Articulated hierarchy", default=True,
                              description="Parent parts at their joints and add a slider per movable joint")
    name: StringProperty(name="Name", default="", description="Collection name for the import (empty: from the job)")
    job_id: StringProperty(name="Job ID", default="", description="Import the result of an existing job")
    generator: EnumProperty(
        name="Generator", default="auto",
        items=[("auto", "Auto", "The program when the prompt names a known object, else the learned model"),
               ("program", "Program", "Infer the object's program from the prompt and build it: exact parts and "
                                      "joints"),
               ("learned", "Learned", "The geometry model, then parts, texture and articulation")])
    params: StringProperty(name="Parameters", default="",
                           description="Program parameters that replace the inferred ones: NAME=VALUE separated by "
                                       "';', e.g. doors=3; hinge=left,right (generator auto or program)")
    require_valid: BoolProperty(name="Require valid", default=False,
                                description="Fail the job, naming the failed checks, when its asset fails "
                                            "validation (instead of importing it marked not valid)")

    def request(self) -> GenerationRequest:
        """The generation request these settings describe (GLB is always asked for: it is what gets imported)."""
        stages = [s for s, on in (("texture", self.use_texture), ("parts", self.use_parts),
                                  ("articulation", self.use_articulation)) if on]
        formats = ["glb"] + [f for f, on in (("urdf", self.want_urdf), ("mjcf", self.want_mjcf),
                                             ("usd", self.want_usd)) if on]
        image = bpy.path.abspath(self.image) if self.image else None
        return GenerationRequest(text=self.prompt or None, image=image, seed=self.seed, stages=stages,
                                 target_faces=self.target_faces, texture_size=int(self.texture_size),
                                 formats=formats, generator=self.generator,
                                 params=parse_params(self.params) or None, require_valid=self.require_valid)


def _download_root(context: bpy.types.Context) -> Path:
    chosen = _prefs(context).download_dir
    return Path(bpy.path.abspath(chosen)) if chosen else Path(bpy.app.tempdir or ".") / "seed3d"


# ---------------------------------------------------------------------------------------------- operators


class SEED3D_OT_generate(bpy.types.Operator):
    """Send the prompt or image to the Seed3D service and import the result when it is ready"""

    bl_idname = "seed3d.generate"
    bl_label = "Generate"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        """Only one task at a time."""
        return _task is None

    def execute(self, context: bpy.types.Context) -> set[str]:
        """Check the request, then hand it to a worker thread."""
        settings = context.scene.seed3d
        prefs = _prefs(context)
        try:
            client = Client(prefs.server_url, prefs.api_key)
            request = settings.request()
            request.check()
        except ValueError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        root = _download_root(context)
        options = {"articulated": settings.articulated, "name": settings.name}

        def work(task: _Task) -> None:
            def update(job: dict[str, Any]) -> None:
                task.post("job", job)

            result = run_generation(client, request, root / "pending", on_update=update, stop=task.stop)
            folder = root / result.job["id"]
            files = {n: _move(p, folder) for n, p in result.files.items()}
            task.post("result", {"job": result.job, "files": files, "settings": options})

        _start(_Task("generate", work), client)
        return {"FINISHED"}


class SEED3D_OT_import_job(bpy.types.Operator):
    """Import the result of an existing Seed3D job (its ID)"""

    bl_idname = "seed3d.import_job"
    bl_label = "Import job"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        """Only one task at a time, and a job ID to fetch."""
        return _task is None and bool(context.scene.seed3d.job_id.strip())

    def execute(self, context: bpy.types.Context) -> set[str]:
        """Fetch the job in a worker thread, wait for it if it runs, then import it."""
        settings = context.scene.seed3d
        prefs = _prefs(context)
        try:
            client = Client(prefs.server_url, prefs.api_key)
        except ValueError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        job_id = settings.job_id.strip()
        folder = _download_root(context) / job_id
        options = {"articulated": settings.articulated, "name": settings.name}

        def work(task: _Task) -> None:
            job = client.job(job_id)
            task.post("job", job)
            job = client.wait(job, lambda j: task.post("job", j), stop=task.stop)
            have = {f["name"] for f in job.get("files", [])}
            files = {n: client.download(job, n, folder) for n in ("model.glb", "asset.json") if n in have}
            task.post("result", {"job": job, "files": files, "settings": options})

        _start(_Task("import", work), client)
        return {"FINISHED"}


class SEED3D_OT_cancel(bpy.types.Operator):
    """Ask the service to cancel the running job (it stops at its next stage boundary)"""

    bl_idname = "seed3d.cancel"
    bl_label = "Cancel"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        """A job must be running."""
        return _task is not None and _task.job is not None and _task.job.get("status") not in TERMINAL

    def execute(self, context: bpy.types.Context) -> set[str]:
        """Send the cancel request from a short-lived thread (never block the interface on the network)."""
        task = _task
        job_id = task.job["id"]

        def send() -> None:
            try:
                task.post("job", task.client.cancel(job_id))
            except ClientError as err:
                task.post("error", f"cancel: {err}")

        threading.Thread(target=send, name="seed3d-cancel", daemon=True).start()
        return {"FINISHED"}


class SEED3D_OT_use_program(bpy.types.Operator):
    """Put the last program's prompt, seed and every parameter into the settings, to change one and generate again"""

    bl_idname = "seed3d.use_program"
    bl_label = "Edit parameters"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        """A finished job must have been built from a program."""
        return _task is None and bool(_state["program"])

    def execute(self, context: bpy.types.Context) -> set[str]:
        """Fill prompt, seed, generator (program) and parameters from the last program."""
        settings = context.scene.seed3d
        program = _state["program"]
        settings.prompt = program["text"]
        settings.seed = int(program["seed"])
        settings.generator = "program"
        settings.params = format_params(program["params"])
        return {"FINISHED"}


def _move(path: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / path.name
    path.replace(final)
    return final


# ------------------------------------------------------------------------------------------------ panels


class VIEW3D_PT_seed3d(bpy.types.Panel):
    """Seed3D in the 3D view's sidebar"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Seed3D"
    bl_label = "Seed3D"

    def draw(self, context: bpy.types.Context) -> None:
        """Server, inputs, options, progress."""
        layout = self.layout
        settings = context.scene.seed3d
        prefs = _prefs(context)
        box = layout.box()
        box.prop(prefs, "server_url", text="Server")
        box.prop(prefs, "api_key", text="Key")

        col = layout.column(align=True)
        col.prop(settings, "prompt", text="")
        col.prop(settings, "image", text="")
        col = layout.column(heading="Stages", align=True)
        for prop in ("use_texture", "use_parts", "use_articulation"):
            col.prop(settings, prop)
        col = layout.column(align=True)
        col.prop(settings, "generator")
        col.prop(settings, "params", text="")
        col = layout.column(align=True)
        col.prop(settings, "seed")
        col.prop(settings, "target_faces")
        col.prop(settings, "texture_size")
        row = layout.row(heading="Also", align=True)
        for prop in ("want_urdf", "want_mjcf", "want_usd"):
            row.prop(settings, prop, toggle=True)
        layout.prop(settings, "articulated")
        layout.prop(settings, "require_valid")
        layout.prop(settings, "name")

        row = layout.row(align=True)
        row.operator(SEED3D_OT_generate.bl_idname, icon="PLAY")
        row.operator(SEED3D_OT_cancel.bl_idname, icon="CANCEL")
        if _state["status"]:
            if _state["running"]:
                layout.progress(factor=_state["progress"], type="BAR", text=_state["status"])
            else:
                layout.label(text=_state["status"], icon="INFO")
            if _state["job_id"]:
                layout.label(text=f"job {_state['job_id']}")
        if _state["error"]:
            layout.label(text=_state["error"], icon="ERROR")
        if _state["verdict"]:
            col = layout.column(align=True)
            col.label(text=_state["verdict"][0], icon="CHECKMARK" if _state["valid"] else "ERROR")
            for line in _state["verdict"][1:]:
                col.label(text=line)
        if _state["made"]:
            col = layout.column(align=True)
            for line in _state["made"]:
                col.label(text=line)
            if _state["program"]:
                col.operator(SEED3D_OT_use_program.bl_idname, icon="PROPERTIES")

        row = layout.row(align=True)
        row.prop(settings, "job_id", text="")
        row.operator(SEED3D_OT_import_job.bl_idname, text="Import", icon="IMPORT")


class VIEW3D_PT_seed3d_joints(bpy.types.Panel):
    """Sliders for the movable joints of the active Seed3D asset"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Seed3D"
    bl_label = "Joints"
    bl_parent_id = "VIEW3D_PT_seed3d"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        """Shown when the active object belongs to an imported Seed3D asset."""
        obj = context.active_object
        return obj is not None and "seed3d_asset" in obj

    def draw(self, context: bpy.types.Context) -> None:
        """One slider per movable joint of the asset."""
        asset = context.active_object["seed3d_asset"]
        joints = [o for o in bpy.data.objects if o.get("seed3d_asset") == asset and JOINT_PROP in o]
        if not joints:
            self.layout.label(text="No movable joints (imported without hierarchy?)")
        for obj in sorted(joints, key=lambda o: o["seed3d_joint"]):
            self.layout.prop(obj, f'["{JOINT_PROP}"]', text=obj["seed3d_joint"], slider=True)


_classes = (Seed3DPreferences, Seed3DSettings, SEED3D_OT_generate, SEED3D_OT_import_job, SEED3D_OT_cancel,
            SEED3D_OT_use_program, VIEW3D_PT_seed3d, VIEW3D_PT_seed3d_joints)


def register() -> None:
    """Register the add-on's classes and its per-scene settings."""
    for cls in _classes:
        bpy.utils.register_class(cls)
    bpy.types.Scene.seed3d = PointerProperty(type=Seed3DSettings)


def unregister() -> None:
    """Stop waiting for any job, remove the timer and the classes."""
    global _task
    if _task is not None:
        _task.stop.set()
        _task = None
    if bpy.app.timers.is_registered(drain):
        bpy.app.timers.unregister(drain)
    del bpy.types.Scene.seed3d
    for cls in reversed(_classes):
        bpy.utils.unregister_class(cls)
