"""Exporters: GLB (web, viewers), URDF package and MJCF (robot simulators), USD / USDZ (UsdPhysics).

``export_asset`` writes the formats asked for at the paths of ``seed3d.asset.EXPORT_LAYOUT`` under one
root, after making the asset simulation-ready (``seed3d.physics.prepare``) when a part lacks collision
hulls or an inertial. Every format is written atomically; the USD exporter (pxr) is imported only when
"usd" is asked for.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from seed3d.asset import Asset
from seed3d.errors import DependencyError, ExportError, InvalidInputError, Seed3DError
from seed3d.export.glb import export_glb
from seed3d.export.mjcf import export_mjcf
from seed3d.export.urdf import export_urdf
from seed3d.typed import PathType, ProgressCallback

if TYPE_CHECKING:
    from seed3d.physics import PhysicsConfig

logger = logging.getLogger(__name__)

#: Formats ``export_asset`` knows, in the order it writes them.
FORMATS: tuple[str, ...] = ("glb", "urdf", "mjcf", "usd")
#: Formats that need collision hulls and inertials.
PHYSICS_FORMATS: tuple[str, ...] = ("urdf", "mjcf", "usd")


def _check_formats(formats: str | Iterable[str]) -> list[str]:
    """Validate and de-duplicate ``formats`` (a name or names), keeping ``FORMATS`` order."""
    asked = [formats] if isinstance(formats, str) else list(formats)
    unknown = [f for f in asked if f not in FORMATS]
    if unknown:
        raise InvalidInputError(f"unknown export format(s) {unknown}; choose from {', '.join(FORMATS)}")
    if not asked:
        raise InvalidInputError(f"no export format given; choose from {', '.join(FORMATS)}")
    return [f for f in FORMATS if f in asked]


def needs_physics(asset: Asset) -> bool:
    """True when some part has no collision hulls or no inertial."""
    return any(not p.collision or p.inertial is None for p in asset.parts)


def export_asset(asset: Asset, root: PathType, formats: str | Iterable[str] = FORMATS,
                 physics: PhysicsConfig | None = None,
                 progress: ProgressCallback | None = None) -> dict[str, Path]:
    """Write ``formats`` of ``asset`` under ``root`` at ``asset.export_path(root, fmt)``; returns format → path.

    URDF, MJCF and USD need collision hulls and inertials: when a part lacks them the asset is first passed
    through ``seed3d.physics.prepare(asset, physics)`` (the caller's asset is not modified). Each format is
    written atomically; if one fails, the ones before it stay written and an ``ExportError`` names the failing
    format. The result has a "usdz" entry too when the USD exporter wrote one. ``progress`` is called with
    ``(fraction, message)`` as the work advances.
    """
    report = progress or (lambda fraction, message: None)
    wanted = _check_formats(formats)
    asset.check_tree()
    if not asset.joints_known and len(asset.parts) > 1:
        raise ExportError(f"asset {asset.name!r}: its joints are unknown (segmented parts); articulate it first "
                          "(`seed3d articulate`)")
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise InvalidInputError(f"export root {root} exists and is not a folder")
    if any(f in PHYSICS_FORMATS for f in wanted) and needs_physics(asset):
        try:
            from seed3d.physics import prepare
        except ImportError as exc:
            raise ExportError(f"exporting {wanted} needs seed3d.physics.prepare, which failed to import: {exc}") \
                from exc
        logger.info("%s: computing collision hulls and inertials before export", asset.name)
        asset = prepare(asset, physics, progress=lambda f, m: report(0.6 * f, m))
    out: dict[str, Path] = {}
    start = 0.6 if any(f in PHYSICS_FORMATS for f in wanted) else 0.0
    for i, fmt in enumerate(wanted):
        report(start + (1 - start) * i / len(wanted), f"writing {fmt}")
        try:
            if fmt == "glb":
                out[fmt] = export_glb(asset, asset.export_path(root, "glb"))
            elif fmt == "urdf":
                out[fmt] = export_urdf(asset, asset.export_path(root, "urdf").parent)
            elif fmt == "mjcf":
                out[fmt] = export_mjcf(asset, asset.export_path(root, "mjcf").parent)
            else:
                from seed3d.export.usd import export_usd

                out[fmt] = export_usd(asset, asset.export_path(root, "usd").parent)
                usdz = asset.export_path(root, "usdz")
                if usdz.is_file():
                    out["usdz"] = usdz
        except DependencyError:
            raise
        except Seed3DError as exc:
            done = f" (already written: {', '.join(str(p) for p in out.values())})" if out else ""
            if isinstance(exc, ExportError):
                raise ExportError(f"{exc}{done}") from exc
            raise ExportError(f"{fmt} export of {asset.name!r} failed: {exc}{done}") from exc
    report(1.0, "done")
    return out


__all__ = ["FORMATS", "PHYSICS_FORMATS", "export_asset", "export_glb", "export_mjcf", "export_urdf",
           "needs_physics"]
