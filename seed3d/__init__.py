"""Seed3D: simulation-ready 3D assets from one image or one sentence."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("seed3d")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
