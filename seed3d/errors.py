"""Errors a user can act on: every failure Seed3D raises on purpose is a ``Seed3DError``."""

from __future__ import annotations


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
