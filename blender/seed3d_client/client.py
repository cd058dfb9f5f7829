"""HTTP client of the Seed3D REST API v1, standard library only (urllib): usable inside Blender and tested without it.

Nothing here touches ``bpy``; the add-on runs :func:`run_generation` in a worker thread and hands what it reports
to Blender's main thread.
"""

from __future__ import annotations

import json
import logging
import mimetypes
import os
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: Job statuses after which nothing changes.
TERMINAL = frozenset({"succeeded", "failed", "canceled"})
#: Stages a request may ask for besides geometry (which always runs).
STAGES = ("texture", "parts", "articulation")
#: Export formats the service writes.
FORMATS = ("glb", "urdf", "mjcf", "usd")
#: Which path makes the object: auto (the program when the text names a known object), program (the object's
#: program inferred from the text, built with exact parts and joints) or learned (the geometry model).
GENERATORS = ("auto", "program", "learned")
#: Files the add-on needs to import a result.
IMPORT_FILES = ("model.glb", "asset.json")

Job = dict[str, Any]
JobCallback = Callable[[Job], None]


class ClientError(Exception):
    """The service refused a request (problem+json), answered something unexpected, or could not be reached."""

    def __init__(self, message: str, status: int = 0, code: str | None = None, request_id: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.request_id = request_id


class StoppedWaiting(ClientError):
    """The caller stopped waiting for a job (the job itself goes on unless it was cancelled)."""


@dataclass
class GenerationRequest:
    """What to generate: a text and/or a local image file, and the options of ``POST /v1/generations``."""

    text: str | None = None
    image: str | None = None
    seed: int = 0
    stages: Sequence[str] = ()
    target_faces: int | None = 50_000
    texture_size: int | None = 1024
    formats: Sequence[str] = FORMATS
    steps: int | None = None
    resolution: int | None = None
    generator: str = "auto"
    params: dict[str, Any] | None = None
    require_valid: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def check(self) -> None:
        """Raise ``ValueError`` with a message a user can act on when the request cannot be valid."""
        if not (self.text and self.text.strip()) and not self.image:
            raise ValueError("write a prompt or choose an image")
        if self.image and not Path(self.image).is_file():
            raise ValueError(f"image file not found: {self.image}")
        if int(self.seed) < 0:
            raise ValueError("seed must be 0 or more")
        unknown = [s for s in self.stages if s not in STAGES]
        if unknown:
            raise ValueError(f"unknown stages {unknown}; choose from {', '.join(STAGES)}")
        if not self.formats:
            raise ValueError("choose at least one format")
        unknown = [f for f in self.formats if f not in FORMATS]
        if unknown:
            raise ValueError(f"unknown formats {unknown}; choose from {', '.join(FORMATS)}")
        if self.generator not in GENERATORS:
            raise ValueError(f"unknown generator {self.generator!r}; choose from {', '.join(GENERATORS)}")
        if self.params and self.generator == "learned":
            raise ValueError("program parameters need generator auto or program; the learned path has none")
        if self.params and not (self.text and self.text.strip()):
            raise ValueError("program parameters need a prompt naming the object")

    def body(self, upload_token: str | None = None) -> dict[str, Any]:
        """The JSON body of ``POST /v1/generations`` (the image travels as ``upload_token``)."""
        body: dict[str, Any] = {"seed": int(self.seed), "stages": list(self.stages), "formats": list(self.formats)}
        if self.text and self.text.strip():
            body["text"] = self.text.strip()
        if upload_token:
            body["upload_token"] = upload_token
        for key in ("target_faces", "texture_size", "steps", "resolution"):
            value = getattr(self, key)
            if value is not None:
                body[key] = int(value)
        body["generator"] = self.generator
        if self.params:
            body["params"] = dict(self.params)
        if self.require_valid:
            body["require_valid"] = True
        body.update(self.extra)
        return body


def parse_params(text: str) -> dict[str, Any]:
    """Program parameters from ``NAME=VALUE`` items separated by ``;`` or new lines (``doors=3; hinge=left,right``).

    Values stay text (the service converts them); a comma makes a per-item list, an empty item keeps that item's
    own value (None). Raises ``ValueError`` on an item without a name.
    """
    params: dict[str, Any] = {}
    for item in text.replace("\n", ";").split(";"):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"program parameters are NAME=VALUE, got {item!r}")
        value = value.strip()
        params[name.strip()] = [v.strip() or None for v in value.split(",")] if "," in value else value
    return params


def format_params(params: dict[str, Any]) -> str:
    """``parse_params``'s text for ``params`` (``doors=3; hinge=left,right``)."""
    def text(value: Any) -> str:
        if isinstance(value, list):
            return ",".join("" if v is None else text(v) for v in value)
        return str(value).lower() if isinstance(value, bool) else str(value)

    return "; ".join(f"{name}={text(value)}" for name, value in params.items())


def describe_generator(job: Job) -> list[str]:
    """Lines saying which path made a finished job's object and why; for a program, its category and confidence,
    the parameters the prompt or request set, and what the prompt said that it could not place."""
    made = (job.get("result") or {}).get("generator")
    if not made:
        return []
    lines = [f"made by: {made.get('path')}", str(made.get("why") or "")]
    program = made.get("program")
    if program:
        given = {k: v for k, v in (program.get("params") or {}).items() if k in set(program.get("given") or ())}
        lines.append(f"program: {program.get('category')} (confidence {float(program.get('confidence') or 0):.2f})")
        if given:
            lines.append(f"set: {format_params(given)}")
        lines += [f"not placed: {u}" for u in program.get("unplaced") or ()]
    return [line for line in lines if line]


def describe_validity(job: Job) -> list[str]:
    """Lines saying whether a finished job's asset passed validation: valid, physically sound, functional, and
    each failed check with its message (none for a job that made no asset)."""
    result = job.get("result") or {}
    if "valid" not in result or result.get("valid") is None:
        return []

    def word(value: Any) -> str:
        return "not checked" if value is None else ("yes" if value else "NO")

    lines = [f"{'valid' if result['valid'] else 'NOT valid'} · physically sound: {word(result.get('sound'))} · "
             f"functional: {word(result.get('functional'))}"]
    failures = result.get("failures") or [{"name": n, "message": ""} for n in result.get("failed_checks") or ()]
    for failure in failures:
        message = str(failure.get("message") or "")
        lines.append(f"failed {failure.get('name')}: {message}" if message else f"failed {failure.get('name')}")
    return lines


def parse_sse(lines: Iterator[bytes]) -> Iterator[tuple[str, str]]:
    """Yield ``(event, data)`` from the lines of a ``text/event-stream`` (comments and retry fields skipped)."""
    event, data = "message", []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "message", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data:
        yield event, "\n".join(data)


class Client:
    """A Seed3D service at ``base_url`` (e.g. ``http://127.0.0.1:8000``), with an optional API key."""

    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 30.0) -> None:
        base_url = base_url.strip()
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"server URL must start with http:// or https://, got {base_url!r}")
        self.base_url = base_url.rstrip("/") + "/"
        self.api_key = (api_key or "").strip() or None
        self.timeout = timeout

    # ---- plumbing
    def url(self, path: str) -> str:
        """Absolute URL of a service path or of a link from a job object."""
        return urllib.parse.urljoin(self.base_url, path)

    def _open(self, method: str, path: str, data: bytes | None = None, headers: dict[str, str] | None = None,
              timeout: float | None = None) -> Any:
        req = urllib.request.Request(self.url(path), data=data, method=method, headers=dict(headers or {}))
        if self.api_key:
            req.add_header("Authorization", f"Bearer {self.api_key}")
        req.add_header("User-Agent", "seed3d-blender")
        try:
            return urllib.request.urlopen(req, timeout=self.timeout if timeout is None else timeout)
        except urllib.error.HTTPError as err:
            raise _problem(err) from None
        except urllib.error.URLError as err:
            raise ClientError(f"cannot reach the Seed3D service at {self.base_url} ({err.reason})") from None
        except TimeoutError:
            raise ClientError(f"the Seed3D service at {self.base_url} did not answer in time") from None

    def _json(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        data = None
        headers = dict(headers or {})
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        headers["Accept"] = "application/json"
        with self._open(method, path, data, headers) as resp:
            raw = resp.read()
        try:
            return json.loads(raw)
        except ValueError:
            raise ClientError(f"{method} {path}: the service answered something that is not JSON") from None

    # ---- endpoints
    def health(self) -> dict[str, Any]:
        """``GET /healthz``."""
        return self._json("GET", "/healthz")

    def upload(self, image: str | os.PathLike[str]) -> str:
        """Upload an image file (``POST /v1/uploads``); returns its upload token."""
        path = Path(image)
        ctype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        boundary = uuid.uuid4().hex
        head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"image{path.suffix}\"\r\n"
                f"Content-Type: {ctype}\r\n\r\n").encode()
        data = head + path.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", "Accept": "application/json"}
        with self._open("POST", "/v1/uploads", data, headers) as resp:
            answer = json.loads(resp.read())
        return str(answer["upload_token"])

    def create_generation(self, request: GenerationRequest, idempotency_key: str | None = None) -> Job:
        """Submit a generation (uploading its image first); returns the queued job."""
        request.check()
        token = self.upload(request.image) if request.image else None
        headers = {"Idempotency-Key": idempotency_key or uuid.uuid4().hex}
        return self._json("POST", "/v1/generations", request.body(token), headers)

    def job(self, job_id: str) -> Job:
        """``GET /v1/generations/{id}``."""
        return self._json("GET", f"/v1/generations/{urllib.parse.quote(job_id, safe='')}")

    def cancel(self, job_id: str) -> Job:
        """``POST /v1/generations/{id}/cancel``; the job stops at its next stage boundary."""
        return self._json("POST", f"/v1/generations/{urllib.parse.quote(job_id, safe='')}/cancel")

    def list_jobs(self, limit: int = 20, cursor: str | None = None) -> dict[str, Any]:
        """One page of ``GET /v1/generations``: ``{"items": [...], "next_cursor": ...}``."""
        query = {"limit": str(limit)} | ({"cursor": cursor} if cursor else {})
        return self._json("GET", f"/v1/generations?{urllib.parse.urlencode(query)}")

    def events(self, job: Job, read_timeout: float = 40.0) -> Iterator[Job]:
        """Job objects from ``GET /v1/generations/{id}/events`` until the stream ends.

        Raises ``TimeoutError`` when nothing arrives for ``read_timeout`` seconds (reconnect or poll then).
        """
        path = job.get("links", {}).get("events") or f"/v1/generations/{job['id']}/events"
        resp = self._open("GET", path, headers={"Accept": "text/event-stream"}, timeout=read_timeout)
        with resp:
            ctype = resp.headers.get("Content-Type", "")
            if not ctype.startswith("text/event-stream"):
                raise ClientError(f"{path}: expected text/event-stream, got {ctype or 'no content type'}")
            try:
                for event, data in parse_sse(iter(resp.readline, b"")):
                    if event == "job":
                        yield json.loads(data)
            except TimeoutError:
                raise TimeoutError(f"no event from {path} in {read_timeout:g} s") from None

    def wait(self, job: Job, on_update: JobCallback | None = None, stop: threading.Event | None = None,
             poll_interval: float = 1.0, read_timeout: float = 40.0) -> Job:
        """Follow ``job`` until it ends (server-sent events; polling when the stream is unavailable).

        Calls ``on_update`` with every job state seen and returns the final one. Setting ``stop`` makes it raise
        ``StoppedWaiting`` (within ``read_timeout`` while streaming, ``poll_interval`` while polling).
        """
        notify = on_update or (lambda _job: None)
        last = job
        streaming = True
        while last.get("status") not in TERMINAL:
            if stop is not None and stop.is_set():
                raise StoppedWaiting(f"stopped waiting for job {job['id']}")
            if streaming:
                try:
                    for last in self.events(job, read_timeout=read_timeout):
                        notify(last)
                        if last.get("status") in TERMINAL or (stop is not None and stop.is_set()):
                            break
                    else:
                        last = self.job(job["id"])  # the stream closed early: ask once, then reconnect
                        notify(last)
                except TimeoutError:
                    continue
                except ClientError as err:
                    if err.status in (401, 403, 404):
                        raise
                    log.info("job events unavailable (%s); polling every %g s", err, poll_interval)
                    streaming = False
                continue
            if stop is not None:
                if stop.wait(poll_interval):
                    continue
            else:
                threading.Event().wait(poll_interval)
            last = self.job(job["id"])
            notify(last)
        return last

    def download(self, job: Job, name: str, folder: str | os.PathLike[str]) -> Path:
        """Download file ``name`` of a finished job into ``folder`` (atomically); returns its path."""
        entry = next((f for f in job.get("files", []) if f.get("name") == name), None)
        if entry is None:
            have = ", ".join(f.get("name", "?") for f in job.get("files", [])) or "none"
            raise ClientError(f"job {job['id']} has no file {name!r} (files: {have})")
        if Path(name).name != name or name in ("", ".", ".."):
            raise ClientError(f"refusing file name {name!r} from the service")
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / name
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
        try:
            with os.fdopen(fd, "wb") as out, self._open("GET", entry["url"]) as resp:
                while chunk := resp.read(1 << 20):
                    out.write(chunk)
            os.replace(tmp, final)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return final


def _problem(err: urllib.error.HTTPError) -> ClientError:
    """A ``ClientError`` from an HTTP error answer (application/problem+json when the service sent one)."""
    request_id = err.headers.get("X-Request-ID") if err.headers else None
    title, detail, code = err.reason or f"HTTP {err.code}", "", None
    try:
        body = json.loads(err.read())
        title = body.get("title") or title
        detail = body.get("detail") or ""
        detail = detail if isinstance(detail, str) else json.dumps(detail)
        code = body.get("code")
    except (ValueError, AttributeError, OSError):
        pass
    message = f"{title}: {detail}" if detail else str(title)
    if err.code == 429 and err.headers and err.headers.get("Retry-After"):
        message += f" (retry after {err.headers['Retry-After']} s)"
    return ClientError(f"HTTP {err.code} {message}", status=err.code, code=code, request_id=request_id)


@dataclass
class GenerationResult:
    """What :func:`run_generation` ends with: the final job and the downloaded files by name."""

    job: Job
    files: dict[str, Path]

    @property
    def succeeded(self) -> bool:
        """True when the job succeeded (its files are then downloaded)."""
        return self.job.get("status") == "succeeded"


def run_generation(client: Client, request: GenerationRequest, folder: str | os.PathLike[str],
                   on_update: JobCallback | None = None, stop: threading.Event | None = None,
                   names: Sequence[str] = IMPORT_FILES, poll_interval: float = 1.0) -> GenerationResult:
    """Submit ``request``, follow the job to its end and download ``names`` (those it has) into ``folder``.

    Meant for a worker thread: blocking, reports through ``on_update``; a failed or cancelled job is returned,
    not raised (its ``error`` says why); refused requests and network failures raise ``ClientError``.
    """
    job = client.create_generation(request)
    if on_update:
        on_update(job)
    final = client.wait(job, on_update, stop=stop, poll_interval=poll_interval)
    files: dict[str, Path] = {}
    if final.get("status") == "succeeded":
        have = {f.get("name") for f in final.get("files", [])}
        for name in names:
            if name in have:
                files[name] = client.download(final, name, folder)
    return GenerationResult(final, files)
