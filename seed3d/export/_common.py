"""Helpers the exporters share: shading normals, OBJ/MTL/PNG writers, number formatting and export folders.

Nothing here is public API; ``glb``, ``urdf`` and ``mjcf`` build on it.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seed3d.asset import Asset, Mesh, Part, PBRMaterial, atomic_dir
from seed3d.errors import ExportError
from seed3d.typed import FloatArray, IntArray, UInt8Array

logger = logging.getLogger(__name__)

#: Faces meeting at more than this angle (degrees) keep separate normals (a hard edge).
CREASE_ANGLE_DEG = 30.0
#: Above this many corner pairs the crease search falls back to plain smooth normals (memory guard).
_MAX_CORNER_PAIRS = 20_000_000


@dataclass
class ShadedMesh:
    """A mesh ready for a renderer: one normal (and UV) per vertex, vertices split at hard edges."""

    vertices: FloatArray
    normals: FloatArray
    faces: IntArray
    uv: FloatArray | None


def _row_ids(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``rows``, the id of its distinct value (ids ordered by value) and each id's first row."""
    order = np.lexsort(rows.T[::-1])
    sorted_rows = rows[order]
    new = np.ones(len(rows), bool)
    new[1:] = np.any(sorted_rows[1:] != sorted_rows[:-1], axis=1)
    ids = np.empty(len(rows), np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids, order[new]


def shade(mesh: Mesh, crease_deg: float = CREASE_ANGLE_DEG) -> ShadedMesh:
    """Angle-weighted vertex normals that stay sharp across edges sharper than ``crease_deg``.

    Coincident vertices (UV seams) share their normals, so a seam does not show as a shading break; a
    vertex is duplicated only where faces around it disagree by more than the crease angle.
    """
    v, f = mesh.vertices, mesh.faces
    if not len(f):
        return ShadedMesh(v.copy(), np.zeros_like(v), f.copy(), None if mesh.uv is None else mesh.uv.copy())
    tri = v[f]
    cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(cross, axis=1)
    unit = np.divide(cross, length[:, None], out=np.zeros_like(cross), where=length[:, None] > 0)

    # each corner contributes its face's unit normal weighted by the corner angle (exact on cylinders)
    e1 = np.roll(tri, -1, axis=1) - tri
    e2 = np.roll(tri, 1, axis=1) - tri
    cosine = np.einsum("fkj,fkj->fk", e1, e2) / np.maximum(
        np.linalg.norm(e1, axis=2) * np.linalg.norm(e2, axis=2), 1e-300)
    contribution = unit[:, None, :] * np.arccos(np.clip(cosine, -1.0, 1.0))[..., None]
    contribution = contribution.reshape(-1, 3)
    corner_vertex = f.ravel()
    corner_face = np.repeat(np.arange(len(f)), 3)
    pos_id, _ = _row_ids(v)
    corner_pos = pos_id[corner_vertex]
    n_pos = int(pos_id.max()) + 1
    pos_sum = np.column_stack([np.bincount(corner_pos, weights=contribution[:, k], minlength=n_pos)
                               for k in range(3)])
    normals = pos_sum[corner_pos]

    # Where every face around a position lies within half the crease angle of their mean, all pairs lie
    # within the crease angle, so the smooth sum is already the answer; pair up corners only elsewhere.
    pos_len = np.linalg.norm(pos_sum, axis=1)
    mean = np.divide(pos_sum, pos_len[:, None], out=np.zeros_like(pos_sum), where=pos_len[:, None] > 0)
    degenerate = length <= 1e-300  # zero-area faces take the normal around them and vote for nothing
    agree = np.where(degenerate[corner_face], 1.0, np.einsum("ij,ij->i", unit[corner_face], mean[corner_pos]))
    worst = np.full(n_pos, np.inf)
    np.minimum.at(worst, corner_pos, agree)
    sharp_pos = worst < np.cos(np.deg2rad(crease_deg) / 2)
    sharp = np.flatnonzero(sharp_pos[corner_pos])
    if len(sharp):
        order = sharp[np.argsort(corner_pos[sharp], kind="stable")]
        _, start, count = np.unique(corner_pos[order], return_index=True, return_counts=True)
        group_count = np.repeat(count, count)
        n_pairs = int(group_count.sum())
        if n_pairs <= _MAX_CORNER_PAIRS:
            a_sorted = np.repeat(np.arange(len(order)), group_count)
            offset = np.arange(n_pairs) - np.repeat(np.cumsum(group_count) - group_count, group_count)
            b_sorted = np.repeat(np.repeat(start, count), group_count) + offset
            a, b = order[a_sorted], order[b_sorted]
            cos_ab = np.einsum("ij,ij->i", unit[corner_face[a]], unit[corner_face[b]])
            keep = (cos_ab >= np.cos(np.deg2rad(crease_deg))) | degenerate[corner_face[a]]
            a, b = a[keep], b[keep]
            normals[order] = 0.0
            for k in range(3):
                normals[:, k] += np.bincount(a, weights=contribution[b, k], minlength=len(corner_vertex))
        else:  # a huge fan of hard edges: keep those corners flat
            logger.debug("shade: %d corner pairs, flat normals at %d corners", n_pairs, len(sharp))
            normals[sharp] = unit[corner_face[sharp]]
    norm = np.linalg.norm(normals, axis=1)
    fallback = norm <= 1e-30
    normals[fallback] = unit[corner_face[fallback]]
    normals[fallback & (np.abs(normals).sum(axis=1) == 0)] = (0.0, 0.0, 1.0)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)

    quant = np.round(normals * 1e6).astype(np.int64)
    inverse, first = _row_ids(np.column_stack([corner_vertex, quant]))
    src = corner_vertex[first]
    return ShadedMesh(
        vertices=v[src], normals=normals[first], faces=inverse.reshape(-1, 3),
        uv=None if mesh.uv is None else mesh.uv[src],
    )


# --------------------------------------------------------------------------------------------- numbers, colour


def fnum(x: float) -> str:
    """A float as short, exact-enough text (12 significant digits, no ``-0``)."""
    s = f"{float(x):.12g}"
    return "0" if s in ("-0", "0") else s


def fvec(values: FloatArray | tuple[float, ...] | list[float]) -> str:
    """Space-separated ``fnum`` of each value."""
    return " ".join(fnum(x) for x in np.asarray(values, dtype=np.float64).ravel())


def xml_text(text: str) -> str:
    """``text`` without the control characters XML 1.0 cannot hold (the XML writer escapes the rest)."""
    return "".join(c for c in text if c >= " " or c in "\t\n")


def srgb_from_linear(rgba: tuple[float, ...]) -> tuple[float, float, float, float]:
    """Encode a linear RGBA factor for renderers without colour management (alpha unchanged)."""
    c = np.clip(np.asarray(rgba[:3], dtype=np.float64), 0.0, 1.0)
    s = np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.power(c, 1 / 2.4) - 0.055)
    return (float(s[0]), float(s[1]), float(s[2]), float(rgba[3]) if len(rgba) > 3 else 1.0)


def display_rgba(material: PBRMaterial) -> tuple[float, float, float, float]:
    """The sRGB-encoded base colour, rounded to 4 decimals (what URDF/MTL/MJCF viewers expect)."""
    return tuple(round(c, 4) for c in srgb_from_linear(material.base_color))  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------- files


def png_bytes(img: UInt8Array) -> bytes:
    """Encode an image as PNG (deterministic bytes for the same pixels)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(img)).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def obj_text(vertices: FloatArray, faces: IntArray, normals: FloatArray | None = None,
             uv: FloatArray | None = None, mtllib: str | None = None, material: str | None = None,
             comment: str = "") -> str:
    """Wavefront OBJ text; ``normals``/``uv`` share the vertex indexing (``f a/a/a``)."""
    out = io.StringIO()
    if comment:
        out.write(f"# {comment}\n")
    if mtllib:
        out.write(f"mtllib {mtllib}\n")
    n = len(vertices)
    if n:
        out.write(("v %.9g %.9g %.9g\n" * n) % tuple(np.asarray(vertices, np.float64).ravel()))
    if uv is not None and n:
        out.write(("vt %.9g %.9g\n" * n) % tuple(np.asarray(uv, np.float64).ravel()))
    if normals is not None and n:
        out.write(("vn %.7g %.7g %.7g\n" * n) % tuple(np.asarray(normals, np.float64).ravel()))
    if material:
        out.write(f"usemtl {material}\n")
    if len(faces):
        idx = np.asarray(faces, np.int64).ravel() + 1
        if uv is not None and normals is not None:
            corner, per = "%d/%d/%d", np.repeat(idx, 3)
        elif normals is not None:
            corner, per = "%d//%d", np.repeat(idx, 2)
        elif uv is not None:
            corner, per = "%d/%d", np.repeat(idx, 2)
        else:
            corner, per = "%d", idx
        out.write((f"f {corner} {corner} {corner}\n" * len(faces)) % tuple(per.tolist()))
    return out.getvalue()


@dataclass
class LinkFiles:
    """Relative paths (from the export folder) of one part's exported meshes and textures."""

    visual: str | None
    collision: list[str]
    base_color_png: str | None = None
    orm_png: str | None = None


def write_link_meshes(asset: Asset, folder: Path, mjcf: bool = False) -> dict[str, LinkFiles]:
    """Write every part's visual OBJ (+ MTL and textures) and collision-hull OBJs under ``folder/meshes``.

    Meshes are in each part's link frame (asset frame minus ``asset.link_origin``). Textures are copied
    beside the MTL so OBJ readers find them; for MJCF an ORM map (R = 1, G = roughness, B = metallic) is
    written too. Returns the paths relative to ``folder``.
    """
    meshes = folder / "meshes"
    meshes.mkdir(parents=True, exist_ok=True)
    files: dict[str, LinkFiles] = {}
    for part in asset.parts:
        origin = asset.link_origin(part.name)
        visual = None
        entry = LinkFiles(visual=None, collision=[])
        if len(part.mesh.faces):
            visual = f"meshes/{part.name}.obj"
            _write_visual(part, part.mesh.translated(-origin), folder, entry, mjcf)
            entry.visual = visual
        for i, hull in enumerate(part.collision):
            rel = f"meshes/{part.name}_collision_{i:03d}.obj"
            local = hull.translated(-origin)
            (folder / rel).write_text(obj_text(local.vertices, local.faces,
                                               comment=f"{asset.name}: collision hull {i} of {part.name}"))
            entry.collision.append(rel)
        files[part.name] = entry
    return files


def _write_visual(part: Part, mesh: Mesh, folder: Path, entry: LinkFiles, mjcf: bool) -> None:
    mat = part.material
    has_uv = mesh.uv is not None
    if not has_uv and (mat.base_color_map is not None or mat.metallic_roughness_map is not None):
        logger.warning("part %r has texture maps but no UVs; exporting its colour factors only", part.name)
    shaded = shade(mesh)
    stem = part.name
    lines = [f"# material {' '.join(mat.name.split())} of part {part.name} (glTF-style PBR; Kd is sRGB-encoded)",
             f"newmtl {stem}"]
    r, g, b, a = display_rgba(mat)
    lines += [f"Ka {fnum(r)} {fnum(g)} {fnum(b)}", f"Kd {fnum(r)} {fnum(g)} {fnum(b)}",
              "Ks 0.04 0.04 0.04", f"Ns {fnum(round(min(1000.0, 2.0 / max(mat.roughness, 0.05) ** 4 - 2.0), 3))}",
              f"d {fnum(a)}", "illum 2", f"Pr {fnum(mat.roughness)}", f"Pm {fnum(mat.metallic)}"]
    if has_uv and mat.base_color_map is not None:
        name = f"{stem}_base_color.png"
        (folder / "meshes" / name).write_bytes(png_bytes(mat.base_color_map))
        lines.append(f"map_Kd {name}")
        entry.base_color_png = f"meshes/{name}"
    if has_uv and mat.metallic_roughness_map is not None:
        mr = mat.metallic_roughness_map
        for key, channel in (("roughness", 1), ("metallic", 2)):
            name = f"{stem}_{key}.png"
            (folder / "meshes" / name).write_bytes(png_bytes(np.ascontiguousarray(mr[..., channel])))
            lines.append(f"map_P{key[0]} {name}")
        if mjcf:
            orm = mr.copy()
            orm[..., 0] = 255  # no occlusion
            name = f"{stem}_orm.png"
            (folder / "meshes" / name).write_bytes(png_bytes(orm))
            entry.orm_png = f"meshes/{name}"
    (folder / "meshes" / f"{stem}.mtl").write_text("\n".join(lines) + "\n")
    (folder / "meshes" / f"{stem}.obj").write_text(obj_text(
        shaded.vertices, shaded.faces, shaded.normals, shaded.uv if has_uv else None,
        mtllib=f"{stem}.mtl", material=stem, comment=f"visual mesh of part {part.name} (link frame, meters, +Z up)"))


# --------------------------------------------------------------------------------------------- checks, folders


def require_physics(asset: Asset, fmt: str) -> None:
    """Raise ``ExportError`` unless every part has collision hulls and an inertial with positive mass."""
    missing = [p.name for p in asset.parts if not p.collision or p.inertial is None]
    if missing:
        raise ExportError(
            f"{fmt} export of {asset.name!r}: parts {missing} have no collision hulls or inertial; run "
            "seed3d.physics.prepare(asset) first (seed3d.export.export_asset does it for you)")
    bad = [p.name for p in asset.parts if p.inertial is not None and not (
        p.inertial.mass > 0 and np.all(np.isfinite(p.inertial.inertia)) and np.all(np.isfinite(p.inertial.com)))]
    if bad:
        raise ExportError(f"{fmt} export of {asset.name!r}: parts {bad} have a non-positive mass or a "
                          "non-finite inertial; recompute it with seed3d.physics.prepare(asset, force=True)")
    for j in asset.joints:
        if j.movable:
            j.unit_axis  # noqa: B018 - raises AssetFormatError on a zero axis
        if j.type in ("revolute", "prismatic") and not j.lower <= j.upper:
            raise ExportError(f"{fmt} export of {asset.name!r}: joint {j.name!r} has lower {j.lower} > "
                              f"upper {j.upper}")


@contextlib.contextmanager
def export_folder(folder: Path, owned: set[str], what: str) -> Iterator[Path]:
    """Yield a temporary folder that atomically replaces ``folder`` when the block succeeds.

    An existing ``folder`` is replaced only when it holds nothing but a previous export (names in ``owned``),
    so a wrong path never wipes a user's files.
    """
    folder = Path(folder)
    if folder.exists():
        if not folder.is_dir():
            raise ExportError(f"{what}: {folder} exists and is not a folder")
        foreign = sorted(p.name for p in folder.iterdir() if p.name not in owned)
        if foreign:
            raise ExportError(
                f"{what}: {folder} holds files this export does not own ({', '.join(foreign[:5])}"
                f"{', …' if len(foreign) > 5 else ''}); export into an empty or new folder")
    with atomic_dir(folder, overwrite=True) as tmp:
        yield tmp
