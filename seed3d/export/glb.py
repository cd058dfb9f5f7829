"""Binary glTF 2.0 (GLB) export: PBR metallic-roughness materials and a node tree that follows the joints.

Frames: glTF is +Y up with the front of an asset facing +Z; Seed3D is +Z up with the front facing +X. The
exporter maps asset axes to glTF axes with the proper rotation ``GLTF_FROM_ASSET``: glTF (X, Y, Z) =
asset (y, z, x). This is the only place that conversion happens.

Nodes: one node per part, named after the part, nested as the kinematic tree. A node's ``translation`` is its
link origin relative to its parent's (so at rest every node rotation is identity) and its mesh vertices are
in its link frame. Each non-root node's ``extras.joint`` holds the joint (name, type, axis in glTF axes,
lower/upper in radians or meters, effort, velocity, damping, friction): a viewer moves a part by setting the
node's rotation to a rotation of ``q`` about ``axis`` (revolute/continuous) or its translation to
``translation + q * axis`` (prismatic).

Materials: ``baseColorFactor`` (linear), ``metallicFactor``, ``roughnessFactor``; texture maps embedded as
PNG (metallic-roughness packed G = roughness, B = metallic, as in the asset). The same asset always gives
the same bytes.
"""

from __future__ import annotations

import json
import logging
import struct
from pathlib import Path
from typing import Any

import numpy as np

from seed3d import __version__
from seed3d.asset import Asset, Part, PBRMaterial, atomic_file
from seed3d.errors import ExportError, Seed3DError
from seed3d.export._common import png_bytes, shade
from seed3d.typed import FloatArray, PathType

logger = logging.getLogger(__name__)

#: Rotation taking asset-frame vectors (+Z up, front +X) to glTF vectors (+Y up, front +Z).
GLTF_FROM_ASSET: FloatArray = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])

_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963
_FLOAT, _UNSIGNED_INT = 5126, 5125
_LINEAR, _LINEAR_MIPMAP_LINEAR, _REPEAT = 9729, 9987, 10497


def to_gltf(vectors: FloatArray) -> FloatArray:
    """Rotate (…, 3) asset-frame vectors or points into glTF axes."""
    return np.asarray(vectors, dtype=np.float64) @ GLTF_FROM_ASSET.T


class _Builder:
    """Accumulates the glTF JSON document and its binary buffer."""

    def __init__(self) -> None:
        self.doc: dict[str, Any] = {
            "asset": {"version": "2.0", "generator": f"seed3d {__version__}"},
            "scene": 0, "scenes": [], "nodes": [], "meshes": [], "materials": [], "textures": [],
            "images": [], "samplers": [], "accessors": [], "bufferViews": [], "buffers": [],
        }
        self.blob = bytearray()
        self._materials: list[tuple[PBRMaterial, bool, int]] = []

    def view(self, data: bytes, target: int | None = None) -> int:
        """Append ``data`` (4-byte aligned) as a bufferView; return its index."""
        self.blob.extend(b"\x00" * (-len(self.blob) % 4))
        view: dict[str, Any] = {"buffer": 0, "byteOffset": len(self.blob), "byteLength": len(data)}
        if target is not None:
            view["target"] = target
        self.blob.extend(data)
        self.doc["bufferViews"].append(view)
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, array: np.ndarray, kind: str, target: int | None, bounds: bool = False) -> int:
        """Store ``array`` (float32 VECn or uint32 SCALAR) and return its accessor index."""
        scalar = kind == "SCALAR"
        data = np.ascontiguousarray(array, dtype="<u4" if scalar else "<f4")
        data = data.ravel() if scalar else data
        acc: dict[str, Any] = {"bufferView": self.view(data.tobytes(), target), "byteOffset": 0,
                               "componentType": _UNSIGNED_INT if scalar else _FLOAT, "count": len(data),
                               "type": kind}
        if bounds:
            acc["min"] = [float(x) for x in data.min(axis=0)]
            acc["max"] = [float(x) for x in data.max(axis=0)]
        self.doc["accessors"].append(acc)
        return len(self.doc["accessors"]) - 1

    def image(self, img: np.ndarray, name: str) -> int:
        """Embed a PNG texture and return its texture index."""
        if not self.doc["samplers"]:
            self.doc["samplers"].append({"magFilter": _LINEAR, "minFilter": _LINEAR_MIPMAP_LINEAR,
                                         "wrapS": _REPEAT, "wrapT": _REPEAT})
        self.doc["images"].append({"name": name, "mimeType": "image/png", "bufferView": self.view(png_bytes(img))})
        self.doc["textures"].append({"sampler": 0, "source": len(self.doc["images"]) - 1})
        return len(self.doc["textures"]) - 1

    def material(self, mat: PBRMaterial, textured: bool, double_sided: bool) -> int:
        """Index of a glTF material for ``mat`` (identical materials are written once)."""
        for known, known_tex, index in self._materials:
            if known == mat and known_tex == textured and self.doc["materials"][index]["doubleSided"] == double_sided:
                return index
        pbr: dict[str, Any] = {"baseColorFactor": [float(c) for c in mat.base_color],
                               "metallicFactor": float(mat.metallic), "roughnessFactor": float(mat.roughness)}
        index = len(self.doc["materials"])
        opaque = mat.base_color[3] >= 1.0
        if textured and mat.base_color_map is not None:
            pbr["baseColorTexture"] = {"index": self.image(mat.base_color_map, f"{mat.name}_base_color"),
                                       "texCoord": 0}
            if mat.base_color_map.shape[2] == 4 and int(mat.base_color_map[..., 3].min()) < 255:
                opaque = False
        if textured and mat.metallic_roughness_map is not None:
            pbr["metallicRoughnessTexture"] = {
                "index": self.image(mat.metallic_roughness_map, f"{mat.name}_metallic_roughness"), "texCoord": 0}
        self.doc["materials"].append({"name": mat.name, "pbrMetallicRoughness": pbr,
                                      "alphaMode": "OPAQUE" if opaque else "BLEND", "doubleSided": double_sided})
        self._materials.append((mat, textured, index))
        return index

    def glb(self) -> bytes:
        """The finished GLB container."""
        self.blob.extend(b"\x00" * (-len(self.blob) % 4))
        doc = {k: v for k, v in self.doc.items() if v != []}
        if self.blob:
            doc["buffers"] = [{"byteLength": len(self.blob)}]
        text = json.dumps(doc, separators=(",", ":"), allow_nan=False, ensure_ascii=False).encode("utf-8")
        text += b" " * (-len(text) % 4)
        chunks = struct.pack("<I4s", len(text), b"JSON") + text
        if self.blob:
            chunks += struct.pack("<I4s", len(self.blob), b"BIN\x00") + bytes(self.blob)
        return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def _joint_extras(asset: Asset, part: Part) -> dict[str, Any]:
    extras: dict[str, Any] = {"label": part.label, "physical_material": part.physical.name}
    if part.inertial is not None:
        extras["mass"] = float(part.inertial.mass)
    joint = asset.joint_to(part.name)
    if joint is not None:
        info: dict[str, Any] = {"name": joint.name, "type": joint.type, "parent": joint.parent}
        if joint.movable:
            info["axis"] = [float(x) for x in to_gltf(joint.unit_axis)]
            if joint.type in ("revolute", "prismatic"):
                info["lower"], info["upper"] = float(joint.lower), float(joint.upper)
            info.update(effort=float(joint.effort), velocity=float(joint.velocity),
                        damping=float(joint.damping), friction=float(joint.friction))
        extras["joint"] = info
    return extras


def build_glb(asset: Asset) -> bytes:
    """The GLB bytes of ``asset`` (see the module docstring for frames, nodes and materials)."""
    asset.check_tree()
    b = _Builder()
    node_of: dict[str, int] = {}
    for name in asset.tree_order():
        part = asset.part(name)
        origin = asset.link_origin(name)
        node: dict[str, Any] = {"name": name}
        joint = asset.joint_to(name)
        if joint is not None:
            rel = to_gltf(origin - asset.link_origin(joint.parent))
            node["translation"] = [float(x) + 0.0 for x in rel]
        if len(part.mesh.faces):
            node["mesh"] = _mesh(b, part, origin)
        node["extras"] = _joint_extras(asset, part)
        node_of[name] = len(b.doc["nodes"])
        b.doc["nodes"].append(node)
        if joint is not None:
            b.doc["nodes"][node_of[joint.parent]].setdefault("children", []).append(node_of[name])
    lo, hi = asset.bounds()
    b.doc["scenes"].append({"name": asset.name, "nodes": [node_of[asset.root]], "extras": {"seed3d": {
        "asset": asset.name, "frame": "glTF axes (X, Y, Z) = Seed3D asset axes (y, z, x): +Y up, front +Z",
        "units": "meters; joint limits in radians (revolute) or meters (prismatic)",
        "bounds_asset_frame": [[float(x) for x in lo], [float(x) for x in hi]],
    }}})
    return b.glb()


def _mesh(b: _Builder, part: Part, origin: FloatArray) -> int:
    mat = part.material
    textured = part.mesh.uv is not None
    if not textured and (mat.base_color_map is not None or mat.metallic_roughness_map is not None):
        logger.warning("part %r has texture maps but no UVs; the GLB uses its colour factors only", part.name)
    shaded = shade(part.mesh.translated(-origin))
    attributes = {
        "POSITION": b.accessor(to_gltf(shaded.vertices), "VEC3", _ARRAY_BUFFER, bounds=True),
        "NORMAL": b.accessor(to_gltf(shaded.normals), "VEC3", _ARRAY_BUFFER),
    }
    if shaded.uv is not None:
        gl_uv = np.column_stack([shaded.uv[:, 0], 1.0 - shaded.uv[:, 1]])  # glTF's v runs down the image
        attributes["TEXCOORD_0"] = b.accessor(gl_uv, "VEC2", _ARRAY_BUFFER)
    primitive = {"attributes": attributes, "indices": b.accessor(shaded.faces, "SCALAR", _ELEMENT_ARRAY_BUFFER),
                 "material": b.material(mat, textured, double_sided=not part.watertight), "mode": 4}
    b.doc["meshes"].append({"name": part.name, "primitives": [primitive]})
    return len(b.doc["meshes"]) - 1


def export_glb(asset: Asset, path: PathType) -> Path:
    """Write ``asset`` as one GLB file at ``path`` (atomically); returns the path."""
    path = Path(path)
    if path.suffix.lower() != ".glb":
        raise ExportError(f"GLB export: {path} should end in .glb")
    try:
        data = build_glb(asset)
    except Seed3DError:
        raise
    except (ValueError, TypeError, OverflowError) as exc:
        raise ExportError(f"GLB export of {asset.name!r} failed: {exc}") from exc
    with atomic_file(path) as tmp:
        tmp.write_bytes(data)
    logger.info("wrote %s (%d bytes)", path, len(data))
    return path
