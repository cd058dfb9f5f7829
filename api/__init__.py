"""Seed3D's REST service: FastAPI routes, the SQL job store, workers and executors (local processes, Ray).

``create_app(Settings(...))`` builds the app; ``seed3d serve`` (or ``python -m api``) runs it with uvicorn
and its workers. The API is described in CONTRACT section 2 and by the app's OpenAPI schema (``/docs``).
Names are imported lazily, so ``python -m api.worker`` does not load the web app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from api.app import create_app
    from api.settings import Settings

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from api.app import create_app

        return create_app
    if name == "Settings":
        from api.settings import Settings

        return Settings
    raise AttributeError(f"module 'api' has no attribute {name!r}")
