"""A finished run's output folder -> the files clients download, under fixed names.

``model.glb``, ``urdf.zip``, ``mjcf.zip``, ``model.usdz``, ``preview.png``, ``report.json`` and ``asset.json``
(parts and joints, so a client can drive joints). Names come from this table only, never from a client; the
published folder is written atomically (temp folder renamed into place).
"""

from __future__ import annotations

import json
import logging
import zipfile
from pathlib import Path
from typing import Any

from seed3d.asset import atomic_dir
from seed3d.errors import ExportError

log = logging.getLogger(__name__)

#: Downloadable file name -> content type, in the order they are listed.
CONTENT_TYPES: dict[str, str] = {
    "model.glb": "model/gltf-binary",
    "urdf.zip": "application/zip",
    "mjcf.zip": "application/zip",
    "model.usdz": "model/vnd.usdz+zip",
    "preview.png": "image/png",
    "report.json": "application/json",
    "asset.json": "application/json",
}
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def zip_folder(folder: Path, dest: Path, arc_root: str) -> None:
    """Zip the regular files under ``folder`` (symlinks and hidden temp files skipped) as ``arc_root/...``,
    with fixed timestamps so the same folder gives the same bytes."""
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder)
            if path.is_symlink() or not path.is_file() or any(p.startswith(".") for p in rel.parts):
                continue
            info = zipfile.ZipInfo(f"{arc_root}/{rel.as_posix()}", date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())


def package_usdz(usd_file: Path, dest: Path) -> None:
    """Package a USD layer and everything it references into a USDZ file."""
    from pxr import UsdUtils

    if not UsdUtils.CreateNewUsdzPackage(str(usd_file), str(dest)):
        raise ExportError(f"could not package {usd_file} as USDZ (UsdUtils.CreateNewUsdzPackage failed)")


def _gltf(v: list[float]) -> list[float]:
    """Asset axes (+Z up, front +X) -> glTF axes (+Y up, front +Z): glTF (X, Y, Z) = asset (y, z, x)."""
    return [float(v[1]), float(v[2]), float(v[0])]


def client_asset_doc(asset_json: Path) -> dict[str, Any]:
    """Parts and joints of an asset folder's ``asset.json`` in the form the web page and Blender add-on use."""
    doc = json.loads(asset_json.read_text())
    parts = []
    for p in doc.get("parts", []):
        inertial = p.get("inertial") or {}
        mat = p.get("material") or {}
        parts.append({"name": p["name"], "label": p.get("label"), "mass": inertial.get("mass"),
                      "material": {"base_color": mat.get("base_color"), "metallic": mat.get("metallic"),
                                   "roughness": mat.get("roughness")}})
    joints = []
    for j in doc.get("joints", []):
        limits = {"lower": j.get("lower"), "upper": j.get("upper"), "effort": j.get("effort"),
                  "velocity": j.get("velocity")}
        joints.append({"name": j["name"], "type": j["type"], "parent": j["parent"], "child": j["child"],
                       "origin": j["origin"], "axis": j["axis"], "lower": j.get("lower"), "upper": j.get("upper"),
                       "limits": limits, "origin_gltf": _gltf(j["origin"]), "axis_gltf": _gltf(j["axis"])})
    return {"name": doc.get("name"), "frame": "meters, +Z up, front +X (origin/axis); *_gltf: glTF axes, +Y up, "
            "front +Z. GLB nodes are named after parts; limits in radians (revolute) or meters (prismatic)",
            "parts": parts, "joints": joints}


def _entry(folder: Path, name: str) -> dict[str, Any]:
    return {"name": name, "content_type": CONTENT_TYPES[name], "size": (folder / name).stat().st_size}


def _copy(src: Path, dst: Path) -> None:
    dst.write_bytes(src.read_bytes())


def _copy_redacted(src: Path, dst: Path, redact: tuple[str, ...]) -> None:
    """Copy a text file, replacing server paths (``redact``) by a dot so clients never see the data folder."""
    text = src.read_text()
    for prefix in sorted(redact, key=len, reverse=True):
        text = text.replace(prefix, ".")
    dst.write_text(text)


def publish_generation(run_dir: Path, summary: dict[str, Any], dest: Path, redact: tuple[str, ...] = ()
                       ) -> list[dict[str, Any]]:
    """Publish ``run_job``'s output folder (its summary's ``files`` roles) into ``dest``; returns the file list.
    Occurrences of the paths in ``redact`` (and of ``run_dir``) in report.json are replaced by a dot."""
    roles: dict[str, str] = dict(summary.get("files") or {})

    def path_of(role: str) -> Path | None:
        rel = roles.get(role)
        if not rel:
            return None
        path = (run_dir / rel).resolve()
        if not path.is_relative_to(run_dir.resolve()) or not path.exists():
            log.warning("%s: role %s points at %s, which is missing or outside the run folder", run_dir, role, rel)
            return None
        return path

    with atomic_dir(dest, overwrite=True) as tmp:
        if (glb := path_of("glb")) is not None:
            _copy(glb, tmp / "model.glb")
        for fmt in ("urdf", "mjcf"):
            if (main := path_of(fmt)) is not None:
                zip_folder(main.parent if main.is_file() else main, tmp / f"{fmt}.zip", fmt)
        usdz = path_of("usdz")
        usd = path_of("usd")
        if usdz is None and usd is not None and usd.is_file():
            sibling = usd.with_suffix(".usdz")
            usdz = sibling if sibling.is_file() else None
            if usdz is None:
                package_usdz(usd, tmp / "model.usdz")
        if usdz is not None:
            _copy(usdz, tmp / "model.usdz")
        if (preview := path_of("preview")) is not None:
            _copy(preview, tmp / "preview.png")
        if (report := path_of("report")) is not None:
            _copy_redacted(report, tmp / "report.json", (*redact, str(run_dir), str(run_dir.resolve())))
        asset = path_of("asset")
        if asset is not None and asset.is_dir():
            asset = asset / "asset.json"
        if asset is not None and asset.is_file():
            (tmp / "asset.json").write_text(json.dumps(client_asset_doc(asset), indent=2) + "\n")
        names = [n for n in CONTENT_TYPES if (tmp / n).is_file()]
    return [_entry(dest, n) for n in names]


def publish_scene(paths: dict[str, Any], dest: Path, redact: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Publish a ``generate_scene`` output folder (its ``paths``) into ``dest``; returns the file list (server
    paths in ``redact`` are replaced by a dot in report.json)."""
    def rel(key: str) -> Path | None:
        p = paths.get(key)
        return Path(p) if p is not None and Path(p).exists() else None

    with atomic_dir(dest, overwrite=True) as tmp:
        for fmt in ("urdf", "mjcf"):
            if (main := rel(fmt)) is not None:
                zip_folder(main.parent, tmp / f"{fmt}.zip", fmt)
        if (usd := rel("usd")) is not None:
            package_usdz(usd, tmp / "model.usdz")
        preview = rel("overview") or rel("plan_image")
        if preview is not None:
            _copy(preview, tmp / "preview.png")
        if (report := rel("report")) is not None:
            _copy_redacted(report, tmp / "report.json", redact)
        names = [n for n in CONTENT_TYPES if (tmp / n).is_file()]
    return [_entry(dest, n) for n in names]
