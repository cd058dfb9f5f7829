"""REST API v1 routes (CONTRACT section 2)."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from typing import Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from api.artifacts import CONTENT_TYPES
from api.errors import ApiError
from api.inputs import check_image, check_text, decode_data_uri, read_multipart
from api.keys import LOCAL_OWNER, verify_key
from api.openapi import CURSOR_PATTERN, IDEMPOTENCY_KEY_PATTERN, LIST_PATTERN
from api.schemas import FileList, GenerationRequest, Health, Job, JobPage, Problem, SceneRequest, Upload
from api.service import Service, iso
from api.store import TERMINAL
from seed3d import __version__
from seed3d.asset import atomic_file

router = APIRouter()
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
_MULTIPART_LISTS = ("stages", "formats")
#: Multipart fields that hold numbers, and how a number is written there (as in JSON); anything else is refused.
_MULTIPART_INTS = ("seed", "target_faces", "texture_size", "steps", "resolution")
_INT = re.compile(r"-?(0|[1-9][0-9]{0,18})")
_NUMBER = re.compile(r"-?(0|[1-9][0-9]{0,18})(\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?")
_MULTIPART_FIELDS = ("text", "image", "upload_token", "seed", "stages", "target_faces", "texture_size", "formats",
                     "steps", "resolution", "guidance", "generator", "params", "require_valid")

_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": Problem, "description": about, "content": {"application/problem+json": {}}}
    for status, about in ((400, "Malformed body"), (401, "API key missing or wrong"), (404, "Not found"),
                          (413, "Too large"), (415, "Unsupported media type"), (422, "Invalid request"),
                          (429, "Queue full (see Retry-After)"))
}


#: What a submission may also answer: its Idempotency-Key was used before with another body (a conflict with the
#: job that key made, which no schema can foresee).
_SUBMIT_ERRORS: dict[int | str, dict[str, Any]] = {
    **_ERRORS, 409: {"model": Problem, "description": "Idempotency-Key used before with another request body",
                     "content": {"application/problem+json": {}}}}


def _svc(request: Request) -> Service:
    return request.app.state.service


def _owner(request: Request) -> str:
    """The caller: the API key's id, or the local owner when keys are off."""
    svc = _svc(request)
    if not svc.settings.keys_enabled:
        return LOCAL_OWNER
    auth = request.headers.get("authorization", "")
    scheme, _, key = auth.partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise ApiError(401, "unauthorized", "send Authorization: Bearer <API key>",
                       headers={"WWW-Authenticate": 'Bearer realm="seed3d"'})
    key_id = verify_key(svc.store, key.strip())
    if key_id is None:
        raise ApiError(401, "unauthorized", "the API key is not valid (unknown, revoked or mistyped)",
                       headers={"WWW-Authenticate": 'Bearer realm="seed3d", error="invalid_token"'})
    return key_id


async def _auth(request: Request) -> str:
    return await run_in_threadpool(_owner, request)


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def _validation_error(exc: ValidationError) -> RequestValidationError:
    return RequestValidationError(exc.errors(include_url=False, include_input=False))


def _check_idempotency_key(key: str | None) -> str | None:
    if key is None:
        return None
    if not _IDEMPOTENCY_KEY.fullmatch(key):
        raise ApiError(422, "invalid_idempotency_key", "Idempotency-Key must be 1 to 255 printable ASCII "
                                                       "characters without spaces")
    return key


def _job_response(svc: Service, row: dict[str, Any], status: int, replayed: bool = False) -> JSONResponse:
    headers = {"Location": f"/v1/generations/{row['id']}"}
    if replayed:
        headers["Idempotent-Replayed"] = "true"
    return JSONResponse(svc.job_view(row), status_code=status, headers=headers)


async def _read_generation(request: Request) -> tuple[GenerationRequest, bytes | None]:
    """The request (JSON or multipart) and the raw bytes of an image file part, if any."""
    media = _media_type(request)
    if media == "application/json":
        body = await request.body()
        try:
            return GenerationRequest.model_validate_json(body), None
        except ValidationError as exc:
            raise _validation_error(exc) from None
    if media == "multipart/form-data":
        svc = _svc(request)
        form = await read_multipart(request, ("image",), len(_MULTIPART_FIELDS) + 1, svc.settings.max_image_bytes)
        doc: dict[str, Any] = {}
        for key, value in form.fields.items():
            if key in _MULTIPART_LISTS and re.fullmatch(LIST_PATTERN, value) is None:
                raise ApiError(422, "validation_failed", f"{key}: names separated by commas, e.g. texture,parts")
            doc[key] = [v.strip() for v in value.split(",")] if key in _MULTIPART_LISTS else value
        if isinstance(doc.get("params"), str):
            doc["params"] = _multipart_params(doc["params"])
        for key in _MULTIPART_INTS:
            if key in doc and _INT.fullmatch(doc[key]):
                doc[key] = int(doc[key])
        if "guidance" in doc and _NUMBER.fullmatch(doc["guidance"]):
            doc["guidance"] = float(doc["guidance"])
        if doc.get("require_valid") in ("true", "false"):
            doc["require_valid"] = doc["require_valid"] == "true"
        try:
            return GenerationRequest.model_validate(doc), form.files.get("image")
        except ValidationError as exc:
            raise _validation_error(exc) from None
    raise ApiError(415, "unsupported_media_type", f"send application/json or multipart/form-data, not "
                                                  f"{media or 'no Content-Type'}")


def _multipart_params(text: str) -> Any:
    """The multipart ``params`` field: a JSON object (``{"doors": 3}``); the schema then checks it."""
    try:
        return json.loads(text)
    except ValueError:
        raise ApiError(422, "validation_failed", 'params: give a JSON object, e.g. {"doors": 3}') from None


def _built_stages() -> tuple[str, ...]:
    from seed3d.pipeline import BUILT_STAGES

    return BUILT_STAGES


def _generation_options(req: GenerationRequest, text: str | None, svc: Service) -> dict[str, Any]:
    built = _built_stages()
    missing = [s for s in req.stages or [] if s not in built]
    if missing:
        raise ApiError(422, "stage_not_built", f"the stage(s) {', '.join(missing)} are not built yet; built: "
                                               f"{', '.join(built)}")
    if req.steps is not None and req.steps > svc.settings.max_steps:
        raise ApiError(422, "validation_failed", f"steps: at most {svc.settings.max_steps} on this server")
    if req.resolution is not None and req.resolution > svc.settings.max_resolution:
        raise ApiError(422, "validation_failed", f"resolution: at most {svc.settings.max_resolution} on this "
                                                 "server")
    options: dict[str, Any] = {"text": text, "seed": req.seed,
                               "stages": list(req.stages) if req.stages is not None else
                               [s for s in built if s != "geometry"],
                               "formats": list(req.formats) if req.formats is not None else
                               ["glb", "urdf", "mjcf", "usd"]}
    for key in ("target_faces", "texture_size", "steps", "resolution", "guidance"):
        value = getattr(req, key)
        if value is not None:
            options[key] = value
    options["generator"] = req.generator
    if req.params:
        options["params"] = dict(req.params)
    if req.require_valid:
        options["require_valid"] = True
    return options


def _check_generator(req: GenerationRequest, text: str | None, has_image: bool) -> None:
    """Refuse (422, naming the field) params the job could not honour."""
    if req.params and req.generator == "learned":
        raise ApiError(422, "validation_failed", "params: program parameters need generator auto or program; the "
                                                 "learned path has none")
    if req.params and req.generator == "auto" and has_image:
        raise ApiError(422, "validation_failed", "params: with an image, generator auto may take the learned path "
                                                 "(when the image's program is not confident), which has no program "
                                                 "parameters; set generator program")


def _check_spec(options: dict[str, Any], has_image: bool) -> None:
    """Refuse (422) what the pipeline's ``JobSpec`` would refuse at run time, before the job is queued."""
    from api.worker import job_spec_kwargs
    from seed3d.errors import InvalidInputError, NotBuiltError
    from seed3d.pipeline import JobSpec

    try:
        JobSpec(**job_spec_kwargs(options, "input.png" if has_image else None))
    except NotBuiltError as exc:
        raise ApiError(422, "stage_not_built", str(exc)) from None
    except InvalidInputError as exc:
        raise ApiError(422, "validation_failed", str(exc)) from None


@router.post("/v1/uploads", status_code=201, response_model=Upload, tags=["uploads"],
             responses={k: v for k, v in _ERRORS.items() if k != 429},
             openapi_extra={"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
                 "type": "object", "required": ["file"],
                 "properties": {"file": {"type": "string", "format": "binary"}}}}}}})
async def create_upload(request: Request) -> JSONResponse:
    """Upload an image (multipart field ``file``); use the returned token in ``POST /v1/generations``."""
    owner = await _auth(request)
    svc = _svc(request)
    if _media_type(request) != "multipart/form-data":
        raise ApiError(415, "unsupported_media_type", "send the image as multipart/form-data, field 'file'")
    form = await read_multipart(request, ("file",), 4, svc.settings.max_image_bytes)
    if "file" not in form.files:
        raise ApiError(422, "validation_failed", "the image must be a file in the multipart field 'file'")
    data = form.files["file"]
    checked = await run_in_threadpool(check_image, data, svc.settings)
    token = secrets.token_urlsafe(24)
    rel = f"uploads/{token}.png"  # the client's file name is never used
    path = svc.settings.data_dir / rel

    def store() -> dict[str, Any]:
        with atomic_file(path) as tmp:
            tmp.write_bytes(checked.png)
        return svc.store.add_upload(token, owner, rel, len(checked.png), checked.sha256,
                                    svc.settings.upload_ttl_s)

    row = await run_in_threadpool(store)
    return JSONResponse({"upload_token": token, "expires_at": iso(row["expires_at"]), "size": row["size"],
                         "width": checked.width, "height": checked.height}, status_code=201)


_GEN_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": {"$ref": "#/components/schemas/GenerationRequest"}},
    "multipart/form-data": {"schema": {"type": "object", "properties": {
        "image": {"type": "string", "format": "binary"}, "text": {"type": "string"},
        "upload_token": {"type": "string"}, "seed": {"type": "integer", "minimum": 0},
        "stages": {"type": "string", "description": "comma-separated"},
        "formats": {"type": "string", "description": "comma-separated"},
        "target_faces": {"type": "integer"}, "texture_size": {"type": "integer"}, "steps": {"type": "integer"},
        "resolution": {"type": "integer"}, "guidance": {"type": "number"},
        "generator": {"type": "string", "enum": ["auto", "program", "learned"]},
        "params": {"type": "string", "description": 'program parameters as a JSON object, e.g. {"doors": 3}'},
        "require_valid": {"type": "boolean"}}}}}}}


@router.post("/v1/generations", status_code=202, response_model=Job, tags=["generations"], responses=_SUBMIT_ERRORS,
             openapi_extra=_GEN_BODY)
async def create_generation(request: Request,
                            idempotency_key: str | None = Header(None, alias="Idempotency-Key")) -> JSONResponse:
    """Queue a generation from a text, an image (data URI, multipart file or upload token) or both."""
    owner = await _auth(request)
    svc = _svc(request)
    key = _check_idempotency_key(idempotency_key)
    req, file_bytes = await _read_generation(request)
    text = check_text(req.text, svc.settings)
    sources = [s for s in (req.image, req.upload_token, file_bytes) if s is not None]
    if len(sources) > 1:
        raise ApiError(422, "validation_failed", "give one image: image (data URI or file) or upload_token")
    if text is None and not sources:
        raise ApiError(422, "validation_failed", "give a text, an image or an upload_token")
    _check_generator(req, text, bool(sources))
    options = _generation_options(req, text, svc)
    _check_spec(options, bool(sources))
    png: bytes | None = None
    if req.upload_token is not None:
        up = await run_in_threadpool(svc.store.get_upload, req.upload_token, owner)
        if up is None:
            raise ApiError(404, "upload_not_found", "no upload with this token (tokens are per API key)")
        if up["expires_at"] < time.time():
            raise ApiError(410, "upload_expired", "the upload has expired; upload the image again")
        path = svc.settings.data_dir / up["path"]
        png = await run_in_threadpool(path.read_bytes)
    elif req.image is not None or file_bytes is not None:
        data = file_bytes if file_bytes is not None else decode_data_uri(req.image or "", svc.settings)
        png = (await run_in_threadpool(check_image, data, svc.settings)).png
    if png is not None:
        import hashlib

        options["image"] = {"sha256": hashlib.sha256(png).hexdigest()}
    row, created = await run_in_threadpool(lambda: svc.submit(owner=owner, kind="generation", options=options,
                                                              image_png=png, idempotency_key=key))
    return _job_response(svc, row, 202, replayed=not created)


@router.post("/v1/scenes", status_code=202, response_model=Job, tags=["scenes"], responses=_SUBMIT_ERRORS,
             openapi_extra={"requestBody": {"required": True, "content": {
                 "application/json": {"schema": {"$ref": "#/components/schemas/SceneRequest"}}}}})
async def create_scene(request: Request,
                       idempotency_key: str | None = Header(None, alias="Idempotency-Key")) -> JSONResponse:
    """Queue a scene job: a room described in words -> URDF, MJCF and USD scene files."""
    owner = await _auth(request)
    svc = _svc(request)
    key = _check_idempotency_key(idempotency_key)
    if _media_type(request) != "application/json":
        raise ApiError(415, "unsupported_media_type", f"send application/json, not "
                                                      f"{_media_type(request) or 'no Content-Type'}")
    try:
        body = SceneRequest.model_validate_json(await request.body())
    except ValidationError as exc:
        raise _validation_error(exc) from None
    text = check_text(body.text, svc.settings)
    options = {"text": text, "seed": body.seed, "room_size": body.room_size}
    row, created = await run_in_threadpool(lambda: svc.submit(owner=owner, kind="scene", options=options,
                                                              image_png=None, idempotency_key=key))
    return _job_response(svc, row, 202, replayed=not created)


def _cursor(seq: int) -> str:
    return str(seq)


def _parse_cursor(cursor: str, max_seq: int) -> int:
    """The position a cursor names; 400 problem+json for anything but a cursor this server could have given out
    (``_cursor`` of a sequence number between 1 and ``max_seq``: ``CURSOR_PATTERN``)."""
    if re.fullmatch(CURSOR_PATTERN, cursor) is None or int(cursor) > max_seq:
        raise ApiError(400, "invalid_cursor", "cursor: not a cursor this server gave out; pass back a page's "
                                              "next_cursor unchanged, or leave cursor out for the first page")
    return int(cursor)


@router.get("/v1/generations", response_model=JobPage, tags=["generations"],
            responses={k: v for k, v in _ERRORS.items() if k in (400, 401, 422)})
async def list_generations(request: Request, limit: int = Query(20, ge=1, le=100),
                           cursor: str | None = Query(None, max_length=64)) -> JSONResponse:
    """Your jobs, newest first; pass ``next_cursor`` back as ``cursor`` for the next page."""
    owner = await _auth(request)
    svc = _svc(request)
    before = _parse_cursor(cursor, svc.store.max_seq) if cursor is not None else None

    def page() -> dict[str, Any]:
        rows = svc.store.list(owner, limit + 1, before)
        more = len(rows) > limit
        rows = rows[:limit]
        return {"items": [svc.job_view(r) for r in rows],
                "next_cursor": _cursor(rows[-1]["seq"]) if more and rows else None}

    return JSONResponse(await run_in_threadpool(page))


async def _job(request: Request, job_id: str) -> tuple[Service, str, dict[str, Any]]:
    owner = await _auth(request)
    svc = _svc(request)
    row = await run_in_threadpool(svc.store.get, job_id, owner)
    if row is None:
        raise ApiError(404, "job_not_found", f"no job {job_id!r} (jobs are per API key)")
    return svc, owner, row


@router.get("/v1/generations/{job_id}", response_model=Job, tags=["generations"],
            responses={k: v for k, v in _ERRORS.items() if k in (401, 404)})
async def get_generation(request: Request, job_id: str) -> JSONResponse:
    """A job's status, stage, progress, queue position, timings, error and files."""
    svc, _, row = await _job(request, job_id)
    return JSONResponse(await run_in_threadpool(svc.job_view, row))


@router.post("/v1/generations/{job_id}/cancel", status_code=202, response_model=Job, tags=["generations"],
             responses={**{k: v for k, v in _ERRORS.items() if k in (401, 404)},
                        409: {"model": Problem, "description": "Already succeeded or failed"}})
async def cancel_generation(request: Request, job_id: str) -> JSONResponse:
    """Cancel a job: a queued one at once, a running one at its next stage boundary."""
    svc, owner, row = await _job(request, job_id)
    if row["status"] in ("succeeded", "failed"):
        raise ApiError(409, "job_finished", f"job {job_id} already {row['status']}; nothing to cancel")
    row = await run_in_threadpool(svc.store.request_cancel, job_id, owner)
    assert row is not None
    return JSONResponse(await run_in_threadpool(svc.job_view, row), status_code=202)


@router.get("/v1/generations/{job_id}/events", tags=["generations"],
            responses={200: {"content": {"text/event-stream": {}}, "description": "Server-sent events"},
                       **{k: v for k, v in _ERRORS.items() if k in (401, 404)}})
async def job_events(request: Request, job_id: str) -> StreamingResponse:
    """Server-sent events: ``event: job`` with the job object whenever it changes; ends after a final status."""
    svc, owner, _ = await _job(request, job_id)

    async def stream() -> Any:
        last: tuple[Any, ...] | None = None
        quiet_since = time.monotonic()
        while True:
            row = await run_in_threadpool(svc.store.get, job_id, owner)
            if row is None:
                return
            view = await run_in_threadpool(svc.job_view, row)
            state = (row["version"], view["queue_position"])
            if state != last:
                last = state
                quiet_since = time.monotonic()
                yield f"event: job\nid: {row['version']}\ndata: {json.dumps(view)}\n\n"
            elif time.monotonic() - quiet_since > 15:
                quiet_since = time.monotonic()
                yield ": keep-alive\n\n"
            if row["status"] in TERMINAL:
                return
            await asyncio.sleep(0.5)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.get("/v1/generations/{job_id}/files", response_model=FileList, tags=["generations"],
            responses={k: v for k, v in _ERRORS.items() if k in (401, 404)})
async def list_files(request: Request, job_id: str) -> JSONResponse:
    """The files of a job (empty until it succeeded)."""
    svc, _, row = await _job(request, job_id)
    return JSONResponse({"items": svc.job_view(row, position=0)["files"]})


@router.get("/v1/generations/{job_id}/files/{name}", tags=["generations"],
            responses={200: {"content": {t: {} for t in sorted(set(CONTENT_TYPES.values()))},
                             "description": "The file"},
                       **{k: v for k, v in _ERRORS.items() if k in (401, 404)},
                       410: {"model": Problem, "description": "Deleted after the retention time"}})
async def get_file(request: Request, job_id: str, name: str) -> Response:
    """Download one file of a finished job (model.glb, urdf.zip, mjcf.zip, model.usdz, preview.png, ...)."""
    svc, _, row = await _job(request, job_id)
    if row["expired"]:
        raise ApiError(410, "files_expired", f"job {job_id}'s files were deleted after the retention time")
    listed = {f["name"]: f for f in row["files"] or []}
    if name not in listed or name not in CONTENT_TYPES or not row["files_dir"]:
        raise ApiError(404, "file_not_found", f"job {job_id} has no file {name!r}; its files: "
                                              f"{', '.join(listed) or 'none yet'}")
    folder = (svc.settings.jobs_dir / row["id"] / row["files_dir"]).resolve()
    path = (folder / name).resolve()
    if not path.is_relative_to(svc.settings.jobs_dir.resolve()) or not path.is_file():
        raise ApiError(404, "file_not_found", f"job {job_id}'s file {name!r} is missing on the server")
    return FileResponse(path, media_type=CONTENT_TYPES[name], filename=name)


@router.get("/healthz", response_model=Health, tags=["service"])
async def healthz(request: Request) -> JSONResponse:
    """Liveness and a summary: workers alive, jobs queued and running."""
    svc = _svc(request)
    counts = await run_in_threadpool(svc.store.status_counts)
    alive, _ = svc.workers_alive()
    status = "ok" if alive >= svc.settings.workers or svc.executor is None else "degraded"
    return JSONResponse({"status": status, "version": __version__, "executor": svc.settings.executor,
                         "workers": svc.settings.workers if svc.executor is not None else 0,
                         "workers_alive": alive, "queue": {"queued": counts["queued"], "running": counts["running"]},
                         "api_keys": svc.settings.keys_enabled})


@router.get("/metrics", response_class=PlainTextResponse, tags=["service"],
            responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}})
async def metrics(request: Request) -> PlainTextResponse:
    """Prometheus metrics: request counts and latency, jobs by status, workers."""
    svc = _svc(request)
    counts = await run_in_threadpool(svc.store.status_counts)
    alive, restarts = svc.workers_alive()
    text = svc.metrics.render(counts, svc.settings.queue_limit, svc.settings.workers if svc.executor else 0, alive,
                              restarts)
    return PlainTextResponse(text, media_type="text/plain; version=0.0.4; charset=utf-8")
