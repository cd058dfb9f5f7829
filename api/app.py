"""The FastAPI application: ``create_app(settings)``.

Middleware gives every request an id (``X-Request-ID``, echoed when the client sent a sane one), refuses bodies
over ``max_body_bytes`` with 413 (from Content-Length before reading, or while reading a chunked body) and
records request metrics. The lifespan starts the executor's workers and the retention sweeper and stops them
(jobs in flight go back to the queue). The web page in ``api/static/`` is served at ``/``.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import ApiError, install_handlers, problem_response
from api.executors import make_executor
from api.openapi import build_openapi
from api.service import Service
from api.settings import Settings
from api.store import JobStore
from seed3d import __version__

log = logging.getLogger(__name__)
STATIC_DIR = Path(__file__).resolve().parent / "static"
_CLIENT_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


class _BodyTooLarge(ApiError):
    def __init__(self, limit: int) -> None:
        super().__init__(413, "body_too_large", f"the request body is larger than {limit} bytes")


class ServiceMiddleware:
    """Request ids, the body size limit and request metrics (pure ASGI, so streaming stays streaming)."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app, self.service = app, service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request

        headers = Headers(scope=scope)
        given = headers.get("x-request-id", "")
        rid = given if _CLIENT_ID.match(given) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = rid
        limit = self.service.settings.max_body_bytes
        start = time.perf_counter()
        state: dict[str, Any] = {"status": 500, "started": False, "too_large": False, "swallow": False}

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                if state["too_large"] and message["status"] != 413:
                    state["swallow"] = True  # a handler turned our 413 into something else: send ours instead
                    return
                state["status"], state["started"] = message["status"], True
                MutableHeaders(scope=message)["X-Request-ID"] = rid
            elif state["swallow"]:
                return
            await send(message)

        received = 0

        async def receive_wrapper() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    state["too_large"] = True
                    raise _BodyTooLarge(limit)
            return message

        async def send_problem(exc: ApiError) -> None:
            response = problem_response(Request(scope), exc.status, exc.code, exc.detail)
            state["status"] = exc.status
            await response(scope, receive, send)

        try:
            declared = headers.get("content-length")
            if declared is not None and (not declared.isdigit() or int(declared) > limit):
                state["too_large"] = True
                await send_problem(_BodyTooLarge(limit))
                return
            try:
                await self.app(scope, receive_wrapper, send_wrapper)
            except _BodyTooLarge as exc:
                if state["started"] and not state["swallow"]:
                    raise
                await send_problem(exc)
                return
            if state["swallow"]:
                await send_problem(_BodyTooLarge(limit))
        finally:
            route = scope.get("route")
            path = getattr(route, "path", None) or "unmatched"
            self.service.metrics.observe(scope.get("method", "?"), path, int(state["status"]),
                                         time.perf_counter() - start)


def _import_request_modules() -> None:
    """Import what requests use lazily (image decoding, the pipeline's job checks) before the first request, so
    that request does not wait seconds for torch and friends to load."""
    import seed3d.condition.image
    import seed3d.pipeline  # noqa: F401


class _StaticMount(Mount):
    """The web page at ``/`` for every path no API route has. A path an API route has, asked with a method none of
    its routes takes, is a 405 whose ``Allow`` lists every method the path's routes take (Starlette would let the
    mount answer it, or name only the first route's methods)."""

    def __init__(self, path: str, app: ASGIApp, api_routes: Callable[[], list[BaseRoute]]) -> None:
        super().__init__(path, app=app, name="static")
        self._api_routes = api_routes

    def _allowed(self, scope: Scope) -> set[str]:
        """The methods of the API routes whose path is this request's (none: the path is the page's)."""
        methods: set[str] = set()
        for route in self._api_routes():
            if isinstance(route, Route) and route.methods and route.matches(scope)[0] != Match.NONE:
                methods |= route.methods
        return methods

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            allowed = self._allowed(scope)
            if allowed:
                raise StarletteHTTPException(405, headers={"Allow": ", ".join(sorted(allowed))})
        await super().handle(scope, receive, send)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The service app on ``settings`` (default: ``Settings()``); its lifespan starts ``settings.workers``
    workers on ``settings.executor`` (none when 0) and the retention sweeper."""
    settings = settings or Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    settings.jobs_dir.mkdir(exist_ok=True)
    settings.uploads_dir.mkdir(exist_ok=True)
    store = JobStore(settings.db_url)
    service = Service(settings, store)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(_import_request_modules)
        executor = make_executor(settings, store) if settings.workers > 0 else None
        service.start(executor)
        try:
            yield
        finally:
            service.stop()

    app = FastAPI(title="Seed3D", version=__version__, lifespan=lifespan,
                  description="Simulation-ready 3D assets from one image or one sentence: jobs, progress, files.")
    app.state.service = service
    install_handlers(app)
    from api.routes import router

    app.include_router(router)
    app.openapi = lambda: build_openapi(app, settings)  # type: ignore[method-assign]
    app.add_middleware(ServiceMiddleware, service=service)
    if STATIC_DIR.is_dir():
        app.router.routes.append(_StaticMount("/", StaticFiles(directory=STATIC_DIR, html=True),
                                              lambda: [*router.routes, *app.router.routes]))
    return app
