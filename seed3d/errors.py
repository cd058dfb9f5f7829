"""Errors a user can act on: every failure Seed3D raises on purpose is a ``Seed3DError``."""

from __future__ import annotations

from typing import Any


class Seed3DError(Exception):
    """Base class of every error Seed3D raises on purpose."""


class InvalidInputError(Seed3DError, ValueError):
    """The caller gave something unusable: a bad file, an out-of-range option, an unknown name."""


class AssetFormatError(Seed3DError, ValueError):
    """An asset folder, mesh or exported file is missing, unreadable or inconsistent."""


class DependencyError(Seed3DError, ImportError):
    """An optional dependency is missing; the message says what to install."""


class ExportError(Seed3DError):
    """An exporter could not write the requested format."""


class NotBuiltError(Seed3DError, NotImplementedError):
    """A stage that is not built yet; raised instead of faking a result."""


class AssetInvalidError(Seed3DError):
    """A job that asked for a valid asset (``require_valid``) made one that failed validation.

    The asset folder is written (its report.json says why); ``summary`` is the job's summary and ``failed`` the
    names of the checks that failed.
    """

    def __init__(self, message: str, summary: dict[str, Any] | None = None, failed: list[str] | None = None) -> None:
        super().__init__(message)
        self.summary = dict(summary or {})
        self.failed = list(failed or [])
