"""Request and response bodies of REST API v1 (pydantic); they are also the OpenAPI schema clients see."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator, model_validator

#: Stages a client may ask for (geometry always runs first).
OPTIONAL_STAGES: tuple[str, ...] = ("texture", "parts", "articulation")
#: Output formats a client may ask for.
FORMATS: tuple[str, ...] = ("glb", "urdf", "mjcf", "usd")
#: Longest prompt the schema allows (the server may set a lower limit).
MAX_TEXT = 10_000
#: Which path makes the object (``seed3d.pipeline.GENERATORS``): the program inferred from the text and built by
#: the procedural engine, the learned geometry flow, or auto (the program when the text names a known object).
GENERATORS: tuple[str, ...] = ("auto", "program", "learned")
#: Most program parameters one request may set, and the longest text value.
MAX_PARAMS = 64
MAX_PARAM_TEXT = 200
#: What a program parameter's name looks like (``seed3d synth CATEGORY --params`` lists each category's).
PARAM_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")

Stage = Literal["texture", "parts", "articulation"]
Format = Literal["glb", "urdf", "mjcf", "usd"]
Status = Literal["queued", "running", "succeeded", "failed", "canceled"]
Generator = Literal["auto", "program", "learned"]
ParamScalar = StrictBool | int | float | Annotated[str, Field(max_length=MAX_PARAM_TEXT)]
#: A parameter's value: a number, a flag, a choice or finish as text (``wood:oak``), or one value per item
#: (``["left", "right"]``; ``null`` keeps that item's own value). Text is converted by the category.
ParamValue = ParamScalar | Annotated[list[ParamScalar | None], Field(min_length=1, max_length=MAX_PARAMS)]


def _json_numbers(doc: Any, fields: tuple[str, ...]) -> Any:
    """Refuse true, false and strings where a number goes (pydantic's lax mode would read true as 1 and "5" as 5,
    which the schema calls invalid); the schema's bounds are checked after."""
    if isinstance(doc, dict):
        for name in fields:
            value = doc.get(name)
            values = value if name == "room_size" and isinstance(value, list) else [value]
            if any(isinstance(v, bool | str) for v in values):
                raise ValueError(f"{name}: must be a number, not {type(value).__name__}")
    return doc


def _unique(values: list[str] | None) -> list[str] | None:
    return None if values is None else list(dict.fromkeys(values))


class GenerationRequest(BaseModel):
    """A generation job: a text, an image (data: URI or upload token) or both, and options."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(None, max_length=MAX_TEXT, description="What to make, in words.")
    image: str | None = Field(None, description="The image as a data URI: data:image/png;base64,...")
    upload_token: str | None = Field(None, max_length=64, description="Token of an image sent to /v1/uploads.")
    seed: int = Field(0, ge=0, le=2**31 - 1, description="Seed: same inputs and seed give the same asset.")
    stages: list[Stage] | None = Field(None, max_length=3,
                                       description="Stages after geometry (default: every built stage).")
    target_faces: int | None = Field(None, ge=100, le=1_000_000, description="Faces after decimation.")
    texture_size: int | None = Field(None, ge=64, le=2048, description="Texture side in pixels for the asset.")
    formats: list[Format] | None = Field(None, min_length=1, max_length=4,
                                         description="Exports to write (default: all).")
    steps: int | None = Field(None, ge=1, le=1000, description="Flow sampling steps (default 25).")
    resolution: int | None = Field(None, ge=32, le=2048, description="Surface extraction resolution (default 128).")
    guidance: float | None = Field(None, ge=0.0, le=30.0, description="Classifier-free guidance (default 3).")
    generator: Generator = Field("auto", description=(
        "Which path makes the object: program (infer the object's program from the text and build it: exact "
        "parts and joints), learned (the geometry flow, then parts, texture and articulation), or auto (the "
        "program when the text names a known object, else learned). The job's result says which ran and why."))
    params: dict[str, ParamValue] | None = Field(None, max_length=MAX_PARAMS, description=(
        "Program parameters that replace the inferred ones, e.g. {\"doors\": 3} (generator auto or program; "
        "the result's generator.program.params lists every parameter of the built program)."))
    require_valid: StrictBool = Field(False, description=(
        "Fail the job (status failed, error code asset_invalid naming the failed checks) when its asset fails "
        "validation, instead of succeeding with result.valid false. The asset's files are kept either way."))

    @model_validator(mode="before")
    @classmethod
    def _numbers(cls, doc: Any) -> Any:
        return _json_numbers(doc, ("seed", "target_faces", "texture_size", "steps", "resolution", "guidance"))

    @field_validator("stages", "formats")
    @classmethod
    def _dedupe(cls, v: list[str] | None) -> list[str] | None:
        return _unique(v)

    @field_validator("params")
    @classmethod
    def _param_names(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        bad = [k for k in v or {} if not PARAM_NAME.fullmatch(k)]
        if bad:
            raise ValueError(f"parameter names are lower_case words, got {', '.join(map(repr, bad[:5]))}")
        return v


class SceneRequest(BaseModel):
    """A scene job: a room described in words."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(..., min_length=1, max_length=MAX_TEXT, description="The room in words.")
    seed: int = Field(0, ge=0, le=2**31 - 1, description="Seed of the layout and the objects.")
    room_size: list[float] | None = Field(None, min_length=2, max_length=3,
                                          description="Room width, depth[, height] in meters.")

    @model_validator(mode="before")
    @classmethod
    def _numbers(cls, doc: Any) -> Any:
        return _json_numbers(doc, ("seed", "room_size"))

    @field_validator("room_size")
    @classmethod
    def _room(cls, v: list[float] | None) -> list[float] | None:
        if v is not None and not all(0.5 <= x <= 50.0 for x in v):
            raise ValueError("each room dimension must be between 0.5 and 50 meters")
        return v


class Upload(BaseModel):
    """An uploaded image: use its token in a generation request before it expires."""

    upload_token: str
    expires_at: str
    size: int
    width: int
    height: int


class FileInfo(BaseModel):
    """A file a finished job produced."""

    name: str
    content_type: str
    size: int
    url: str


class JobError(BaseModel):
    """Why a job failed or was canceled, as a problem document (RFC 9457 fields without status)."""

    type: str | None = None
    title: str | None = None
    code: str
    detail: str
    failed_checks: list[str] | None = Field(None, description="The checks the asset failed (code asset_invalid).")


class JobLinks(BaseModel):
    """Where to follow a job."""

    self: str
    events: str
    cancel: str
    files: str


class Job(BaseModel):
    """A generation or scene job."""

    id: str
    kind: Literal["generation", "scene"]
    status: Status
    stage: str | None
    message: str | None = None
    progress: float = Field(..., ge=0, le=100)
    queue_position: int | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    attempts: int
    timings: dict[str, Any]
    error: JobError | None
    options: dict[str, Any]
    result: dict[str, Any] | None = Field(None, description=(
        "What a finished job made. A generation: name, valid (passed every check), sound (physically sound), "
        "functional (its joints do what their kinds do; null when no functional check ran), failed_checks (names), "
        "failures (name and message of each), faces, parts, joints, movable_joints and generator "
        "(path: program or learned, asked, why, and for a program its category, every parameter, the ones the "
        "text or the request gave, confidence, fit and the phrases it could not place). A scene: objects, unmet, "
        "collision_free and omissions (each object the text named that was left out or built as a stand-in: noun, "
        "status 'left out' or 'substituted', stand_in, objects, reason). Null until the job succeeded, or failed "
        "after making an asset (require_valid)."))
    files: list[FileInfo]
    expired: bool = False
    links: JobLinks


class JobPage(BaseModel):
    """One page of jobs, newest first."""

    items: list[Job]
    next_cursor: str | None


class FileList(BaseModel):
    """The files of a job."""

    items: list[FileInfo]


class Health(BaseModel):
    """Service health."""

    status: Literal["ok", "degraded"]
    version: str
    executor: str
    workers: int
    workers_alive: int
    queue: dict[str, int]
    api_keys: bool


class Problem(BaseModel):
    """An error (application/problem+json)."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    request_id: str
