"""Errors as ``application/problem+json`` (RFC 9457) with a stable ``code`` and the request id.

Every refusal the service makes on purpose raises ``ApiError(status, code, detail)``; the handlers installed
by ``install_handlers`` turn it, FastAPI's validation errors, Starlette's HTTP errors and unexpected exceptions
into problem documents. ``CODES`` lists every code with its title: clients switch on ``code``, never on text.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

log = logging.getLogger(__name__)

PROBLEM_TYPE = "application/problem+json"
#: Stable error codes and their titles.
CODES: dict[str, str] = {
    "malformed_body": "The request body is not valid JSON or form data",
    "validation_failed": "The request does not match the schema",
    "invalid_text": "The text cannot be used",
    "invalid_image": "The image is truncated or corrupt",
    "invalid_idempotency_key": "The Idempotency-Key header is not usable",
    "idempotency_key_reused": "The Idempotency-Key was used with another request body",
    "stage_not_built": "A requested stage is not built yet",
    "unauthorized": "A valid API key is required",
    "not_found": "No such resource",
    "job_not_found": "No such job",
    "file_not_found": "No such file for this job",
    "upload_not_found": "No such upload",
    "method_not_allowed": "Method not allowed",
    "job_finished": "The job has already finished",
    "files_expired": "The job's files were deleted after the retention time",
    "upload_expired": "The upload has expired",
    "body_too_large": "The request body is too large",
    "image_too_large": "The image file is too large",
    "image_too_many_pixels": "The image has too many pixels",
    "unsupported_media_type": "Unsupported content type",
    "unsupported_image": "The file is not an image format the service reads",
    "image_side_too_long": "An image side is longer than the limit",
    "invalid_image_dimensions": "The image is too small or too elongated",
    "invalid_cursor": "The pagination cursor is not one this server gave out",
    "queue_full": "The job queue is full",
    "internal_error": "Internal server error",
}
#: Codes of a failed or canceled job's ``error`` (a problem document inside the job) and their titles.
JOB_CODES: dict[str, str] = {
    "asset_invalid": "The asset failed validation and the job asked for a valid one (require_valid)",
    "generation_failed": "The generation failed",
    "invalid_input": "The job's input could not be used",
    "not_built": "A stage the job needs is not built yet",
    "worker_lost": "The job's worker stopped responding on every attempt",
    "canceled": "The job was canceled",
    "internal_error": "Internal error while running the job",
}


def problem_type(code: str) -> str:
    """The ``type`` URI of a problem ``code``."""
    return f"https://seed3d.dev/problems/{code}"


class ApiError(Exception):
    """A refusal with an HTTP status, a stable code and a detail a user can act on."""

    def __init__(self, status: int, code: str, detail: str, headers: dict[str, str] | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        super().__init__(detail)
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}")
        self.status, self.code, self.detail = status, code, detail
        self.headers = headers or {}
        self.extra = extra or {}


def request_id_of(request: Request) -> str:
    """The id the request-id middleware gave this request."""
    return str(request.scope.get("state", {}).get("request_id") or "")


def problem_response(request: Request, status: int, code: str, detail: str, headers: dict[str, str] | None = None,
                     extra: dict[str, Any] | None = None) -> Response:
    """A problem+json response (also carrying X-Request-ID, for errors raised outside the middleware)."""
    rid = request_id_of(request)
    doc = {"type": problem_type(code), "title": CODES.get(code, code), "status": status,
           "detail": detail, "code": code, "request_id": rid, **(extra or {})}
    out_headers = {"X-Request-ID": rid, **(headers or {})}
    return Response(json.dumps(doc, default=str), status_code=status, media_type=PROBLEM_TYPE, headers=out_headers)


def _clean_errors(errors: Any) -> list[dict[str, Any]]:
    """Pydantic error dicts without the raw input (which may be large or not JSON-able)."""
    out = []
    for e in errors:
        out.append({"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", "")),
                    "type": str(e.get("type", ""))})
    return out


_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large", 415: "unsupported_media_type",
               401: "unauthorized", 400: "malformed_body"}


def install_handlers(app: FastAPI) -> None:
    """Make every error the app returns a problem document."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Response:
        return problem_response(request, exc.status, exc.code, exc.detail, exc.headers, exc.extra)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        errors = _clean_errors(exc.errors())
        if any(e["type"] in ("json_invalid", "json_type") for e in errors):
            return problem_response(request, 400, "malformed_body", "the body is not valid JSON",
                                    extra={"errors": errors})
        detail = "; ".join(f"{'.'.join(e['loc'])}: {e['msg']}" for e in errors[:5])
        return problem_response(request, 422, "validation_failed", detail, extra={"errors": errors})

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        code = _HTTP_CODES.get(exc.status_code, "not_found" if exc.status_code == 404 else "malformed_body")
        if exc.status_code >= 500:
            code = "internal_error"
        return problem_response(request, exc.status_code, code, str(exc.detail), dict(exc.headers or {}))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("request %s failed", request_id_of(request))
        return problem_response(request, 500, "internal_error",
                                f"unexpected error ({type(exc).__name__}); request id {request_id_of(request)}")
