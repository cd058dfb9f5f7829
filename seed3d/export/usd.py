"""USD / USDZ export with UsdPreviewSurface materials and UsdPhysics rigid bodies, and a USD joint reader.

Layout of the written stage (``metersPerUnit = 1``, ``kilogramsPerUnit = 1``, ``upAxis = Z``)::

    /{asset}                        Xform, the default prim (kind = component)
        /{part}                     Xform per link: translate = link origin in the asset frame, no rotation;
                                    RigidBodyAPI + MassAPI (ArticulationRootAPI on the root part only)
            /visual                 Mesh in link coordinates, bound to its UsdPreviewSurface material
            /collision/hull_000     one Mesh per convex hull: CollisionAPI + MeshCollisionAPI(convexHull),
                                    purpose = guide, physics material bound with purpose "physics"
        /joints/{joint}             PhysicsRevoluteJoint | PhysicsPrismaticJoint | PhysicsFixedJoint
        /Looks/{material}           UsdShade materials (UsdPreviewSurface)
        /PhysicsMaterials/{name}    UsdShade materials with UsdPhysics.MaterialAPI

Links are **flat siblings** under the default prim (not nested along the kinematic tree): USD rigid bodies
move in world space anyway, and flat bodies keep every link's rest transform a plain translation, the same
link frames the URDF and MJCF exporters use. Joints name ``body0`` = parent link and ``body1`` = child link;
the joint frame sits at ``Joint.origin`` and is rotated (``localRot0 = localRot1``) so that its X axis is
``Joint.unit_axis``, since UsdPhysics joints only offer the axis tokens X/Y/Z.

Units follow UsdPhysics: revolute limits in degrees, prismatic limits in meters (stage units); an angular
drive's damping is per degree, so the exported ``damping = Joint.damping × π/180`` (a linear drive's is
``Joint.damping``). Joint friction goes to PhysX's ``physxJoint:jointFriction`` attribute.

Prim names are the part, joint and material names made valid USD identifiers (``-`` becomes ``_``, a leading
digit gets a ``_``); when a name had to change, the original is kept in the prim's ``customData`` under
``seed3d:name`` and :func:`read_usd_kinematics` reports it.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import shutil
import struct
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import Asset, Joint, Mesh, Part, PBRMaterial, PhysicalMaterial, atomic_file
from seed3d.errors import AssetFormatError, DependencyError, ExportError
from seed3d.typed import FloatArray, PathType, UInt8Array

logger = logging.getLogger(__name__)

__all__ = ["export_usd", "read_usd_kinematics"]

#: Smooth normals across edges whose faces meet at less than this angle; sharper edges stay creased.
CREASE_ANGLE_DEG = 30.0
#: Above this many (corner, neighbour corner) pairs the crease-aware normals fall back to flat normals.
_MAX_NORMAL_PAIRS = 20_000_000
_NAME_KEY = "seed3d:name"
_AXIS_VECTORS = {"X": np.array([1.0, 0.0, 0.0]), "Y": np.array([0.0, 1.0, 0.0]), "Z": np.array([0.0, 0.0, 1.0])}


def _require_pxr() -> None:
    """Fail with an actionable message when usd-core is missing (pxr is imported lazily: it is heavy)."""
    try:
        import pxr  # noqa: F401
    except ImportError as exc:  # pragma: no cover - usd-core is a pinned dependency
        raise DependencyError("USD export needs usd-core: pip install usd-core==26.11") from exc


# --------------------------------------------------------------------------------------------- math helpers


def _quat_x_to(axis: FloatArray) -> tuple[float, float, float, float]:
    """The shortest rotation (w, x, y, z) that takes +X onto the unit vector ``axis``."""
    a = np.asarray(axis, np.float64)
    q = np.array([1.0 + a[0], 0.0, -a[2], a[1]])  # (1 + x·a, x × a), normalised below
    n = float(np.linalg.norm(q))
    if n < 1e-9:  # axis is -X: half a turn about Z
        return (0.0, 0.0, 0.0, 1.0)
    q /= n
    return (float(q[0]), float(q[1]), float(q[2]), float(q[3]))


def _quat_to_matrix(q: FloatArray) -> FloatArray:
    """3x3 rotation matrix (column vectors) of a quaternion (w, x, y, z); normalises it first."""
    w, x, y, z = np.asarray(q, np.float64) / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _matrix_to_quat(m: FloatArray) -> tuple[float, float, float, float]:
    """Quaternion (w, x, y, z), w >= 0, of a proper 3x3 rotation matrix (Shepperd's method)."""
    m = np.asarray(m, np.float64)
    tr = float(np.trace(m))
    diag = np.diag(m)
    if tr >= diag.max():
        w = math.sqrt(max(1.0 + tr, 0.0)) / 2
        q = np.array([w, (m[2, 1] - m[1, 2]) / (4 * w), (m[0, 2] - m[2, 0]) / (4 * w), (m[1, 0] - m[0, 1]) / (4 * w)])
    else:
        i = int(np.argmax(diag))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = math.sqrt(max(1.0 + m[i, i] - m[j, j] - m[k, k], 0.0)) * 2
        q = np.zeros(4)
        q[0] = (m[k, j] - m[j, k]) / s
        q[1 + i] = s / 4
        q[1 + j] = (m[j, i] + m[i, j]) / s
        q[1 + k] = (m[k, i] + m[i, k]) / s
    if q[0] < 0:
        q = -q
    q /= np.linalg.norm(q)
    return (float(q[0]), float(q[1]), float(q[2]), float(q[3]))


def principal_inertia(inertia: FloatArray) -> tuple[FloatArray, tuple[float, float, float, float]]:
    """Diagonal inertia and the quaternion (w, x, y, z) of its principal axes: ``I = R diag(d) Rᵀ``.

    Deterministic: eigenvalues ascending, each axis signed so its largest component is positive, and the
    frame made right-handed by flipping the last axis when needed.
    """
    tensor = np.asarray(inertia, np.float64).reshape(3, 3)
    values, vectors = np.linalg.eigh((tensor + tensor.T) / 2)
    pick = np.argmax(np.abs(vectors), axis=0)
    vectors = vectors * np.sign(vectors[pick, np.arange(3)])
    if np.linalg.det(vectors) < 0:
        vectors[:, 2] *= -1
    return values, _matrix_to_quat(vectors)


def _corner_normals(mesh: Mesh, crease_deg: float = CREASE_ANGLE_DEG) -> FloatArray:
    """Face-varying (one per face corner) normals: area-weighted, smooth except across creases.

    Vertices that share a position (UV seams) are welded first, so seams do not show as shading edges.
    """
    faces = mesh.faces
    tri = mesh.vertices[faces]
    cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])  # length = 2 × area
    length = np.linalg.norm(cross, axis=1, keepdims=True)
    unit = np.divide(cross, length, out=np.zeros_like(cross), where=length > 0)
    flat = np.repeat(unit, 3, axis=0)
    _, welded = np.unique(mesh.vertices, axis=0, return_inverse=True)
    corner_vertex = welded.reshape(-1)[faces.reshape(-1)]
    order = np.argsort(corner_vertex, kind="stable")
    _, starts, counts = np.unique(corner_vertex[order], return_index=True, return_counts=True)
    group_size = np.repeat(counts, counts)  # per sorted corner: corners sharing its vertex
    total = int(group_size.sum())
    if total > _MAX_NORMAL_PAIRS:
        logger.debug("mesh with %d corner pairs: flat normals", total)
        return flat
    group_start = np.repeat(starts, counts)
    a = np.repeat(np.arange(len(order)), group_size)  # sorted index of each pair's corner
    offsets = np.arange(total) - np.repeat(np.cumsum(group_size) - group_size, group_size)
    b = group_start[a] + offsets  # sorted index of each pair's neighbour corner
    fa, fb = order[a] // 3, order[b] // 3
    keep = np.einsum("ij,ij->i", unit[fa], unit[fb]) >= math.cos(math.radians(crease_deg)) - 1e-9
    target, source = order[a[keep]], cross[fb[keep]]
    summed = np.stack([np.bincount(target, weights=source[:, k], minlength=len(order)) for k in range(3)], axis=1)
    norm = np.linalg.norm(summed, axis=1, keepdims=True)
    return np.where(norm > 1e-20, summed / np.maximum(norm, 1e-300), flat)


# --------------------------------------------------------------------------------------------- names


def _identifier(name: str) -> str:
    """``name`` as a valid USD prim name: characters other than letters, digits and ``_`` become ``_``."""
    valid = re.sub(r"[^A-Za-z0-9_]", "_", name) or "_"
    return f"_{valid}" if valid[0].isdigit() else valid


class _Names:
    """Hands out unique, valid USD prim names within one parent."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def take(self, wanted: str) -> str:
        """A valid name for ``wanted``, suffixed ``_1``, ``_2``… when already taken."""
        base = _identifier(wanted)
        name, i = base, 1
        while name in self._taken:
            name, i = f"{base}_{i}", i + 1
        self._taken.add(name)
        return name


def _keep_name(prim: Any, original: str) -> None:
    if prim.GetName() != original:
        prim.SetCustomDataByKey(_NAME_KEY, original)


# --------------------------------------------------------------------------------------------- stage building


def _check_ready(asset: Asset) -> None:
    """Raise ``ExportError`` unless every part has collision hulls and a usable inertial."""
    asset.check_tree()
    missing = [p.name for p in asset.parts if not p.collision or p.inertial is None]
    if missing:
        raise ExportError(
            f"asset {asset.name!r}: parts {missing} have no collision hulls or inertial; run "
            "seed3d.physics.prepare(asset) first (seed3d.export.export_asset does this for you)")
    for p in asset.parts:
        i = p.inertial
        if i is None or not (i.mass > 0 and np.all(np.isfinite(i.com)) and np.all(np.isfinite(i.inertia))):
            raise ExportError(f"part {p.name!r}: inertial must have a positive mass and finite values")


def _write_png(path: Path, image: UInt8Array) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.ascontiguousarray(image)).save(path, format="PNG", optimize=False)


def _define_mesh(stage: Any, path: Any, mesh: Mesh, offset: FloatArray, normals: bool) -> Any:
    """A UsdGeom.Mesh of ``mesh`` moved by ``-offset`` (triangles, no subdivision)."""
    from pxr import UsdGeom, Vt

    geom = UsdGeom.Mesh.Define(stage, path)
    points = np.ascontiguousarray(mesh.vertices - offset, dtype=np.float32)
    geom.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(points))
    geom.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(len(mesh.faces), 3, np.int32)))
    geom.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(np.ascontiguousarray(mesh.faces.reshape(-1), np.int32)))
    geom.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    geom.CreateExtentAttr(UsdGeom.Mesh.ComputeExtent(geom.GetPointsAttr().Get()))
    if normals and len(mesh.faces):
        geom.CreateNormalsAttr(Vt.Vec3fArray.FromNumpy(_corner_normals(mesh).astype(np.float32)))
        geom.SetNormalsInterpolation(UsdGeom.Tokens.faceVarying)
    return geom


class _Builder:
    """Authors one asset onto an in-memory stage; textures go to ``folder/textures``."""

    def __init__(self, asset: Asset, folder: Path) -> None:
        from pxr import Sdf, Usd, UsdGeom, UsdPhysics

        self.asset, self.folder = asset, folder
        self.stage = Usd.Stage.CreateInMemory()
        self.stage.GetRootLayer().documentation = f"Seed3D asset {asset.name} (sim-ready, UsdPhysics)"
        UsdGeom.SetStageMetersPerUnit(self.stage, 1.0)
        UsdGeom.SetStageUpAxis(self.stage, UsdGeom.Tokens.z)
        UsdPhysics.SetStageKilogramsPerUnit(self.stage, 1.0)
        root = UsdGeom.Xform.Define(self.stage, Sdf.Path.absoluteRootPath.AppendChild(_identifier(asset.name)))
        _keep_name(root.GetPrim(), asset.name)
        Usd.ModelAPI(root.GetPrim()).SetKind("component")
        self.stage.SetDefaultPrim(root.GetPrim())
        self.root_path = root.GetPath()
        children = _Names()
        self.link_paths = {p.name: self.root_path.AppendChild(children.take(p.name)) for p in asset.parts}
        self.joints_path = self.root_path.AppendChild(children.take("joints"))
        self.looks_path = self.root_path.AppendChild(children.take("Looks"))
        self.physmat_path = self.root_path.AppendChild(children.take("PhysicsMaterials"))
        self._look_names = _Names()
        self._phys_names = _Names()
        self._looks: list[tuple[PBRMaterial, bool, Any]] = []
        self._phys: list[tuple[PhysicalMaterial, Any]] = []
        self.textures: list[str] = []

    # ---- materials
    def look(self, mat: PBRMaterial, has_uv: bool, part: str) -> Any:
        """The UsdShade material for ``mat`` (equal materials on meshes alike in having UVs share one prim)."""
        from pxr import Gf, Sdf, UsdGeom, UsdShade

        for known, known_uv, prim in self._looks:
            if known_uv == has_uv and known == mat:
                return prim
        if not self._looks:
            UsdGeom.Scope.Define(self.stage, self.looks_path)
        name = self._look_names.take(mat.name)
        material = UsdShade.Material.Define(self.stage, self.looks_path.AppendChild(name))
        _keep_name(material.GetPrim(), mat.name)
        surface = UsdShade.Shader.Define(self.stage, material.GetPath().AppendChild("PreviewSurface"))
        surface.CreateIdAttr("UsdPreviewSurface")
        surface.CreateInput("useSpecularWorkflow", Sdf.ValueTypeNames.Int).Set(0)
        material.CreateSurfaceOutput().ConnectToSource(surface.ConnectableAPI(), "surface")
        r, g, b, alpha = mat.base_color
        textured = has_uv and (mat.base_color_map is not None or mat.metallic_roughness_map is not None)
        if not has_uv and (mat.base_color_map is not None or mat.metallic_roughness_map is not None):
            logger.warning("part %r: material %r has texture maps but the mesh has no UVs; "
                           "exporting its constant factors only", part, mat.name)
        reader = None
        if textured:
            reader = UsdShade.Shader.Define(self.stage, material.GetPath().AppendChild("stReader"))
            reader.CreateIdAttr("UsdPrimvarReader_float2")
            reader.CreateInput("varname", Sdf.ValueTypeNames.String).Set("st")
            reader.CreateOutput("result", Sdf.ValueTypeNames.Float2)
        if textured and mat.base_color_map is not None:
            tex = self._texture(material, "baseColorTex", f"{name}_base_color.png", mat.base_color_map, "sRGB",
                                (r, g, b, alpha), reader)
            surface.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).ConnectToSource(
                tex.ConnectableAPI(), "rgb")
            if mat.base_color_map.shape[2] == 4:
                surface.CreateInput("opacity", Sdf.ValueTypeNames.Float).ConnectToSource(tex.ConnectableAPI(), "a")
            elif alpha < 1.0:
                surface.CreateInput("opacity", Sdf.ValueTypeNames.Float).Set(alpha)
        else:
            surface.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(r, g, b))
            if alpha < 1.0:
                surface.CreateInput("opacity", Sdf.ValueTypeNames.Float).Set(alpha)
        if textured and mat.metallic_roughness_map is not None:
            # glTF packing: G = roughness, B = metallic; the factors scale the channels as glTF does.
            tex = self._texture(material, "metallicRoughnessTex", f"{name}_metallic_roughness.png",
                                mat.metallic_roughness_map, "raw", (1.0, mat.roughness, mat.metallic, 1.0), reader)
            surface.CreateInput("roughness", Sdf.ValueTypeNames.Float).ConnectToSource(tex.ConnectableAPI(), "g")
            surface.CreateInput("metallic", Sdf.ValueTypeNames.Float).ConnectToSource(tex.ConnectableAPI(), "b")
        else:
            surface.CreateInput("roughness", Sdf.ValueTypeNames.Float).Set(mat.roughness)
            surface.CreateInput("metallic", Sdf.ValueTypeNames.Float).Set(mat.metallic)
        self._looks.append((mat, has_uv, material))
        return material

    def _texture(self, material: Any, shader_name: str, filename: str, image: UInt8Array, color_space: str,
                 scale: tuple[float, float, float, float], reader: Any) -> Any:
        from pxr import Gf, Sdf, UsdShade

        rel = f"textures/{filename}"
        _write_png(self.folder / rel, image)
        self.textures.append(rel)
        tex = UsdShade.Shader.Define(self.stage, material.GetPath().AppendChild(shader_name))
        tex.CreateIdAttr("UsdUVTexture")
        tex.CreateInput("file", Sdf.ValueTypeNames.Asset).Set(Sdf.AssetPath(f"./{rel}"))
        tex.CreateInput("sourceColorSpace", Sdf.ValueTypeNames.Token).Set(color_space)
        tex.CreateInput("st", Sdf.ValueTypeNames.Float2).ConnectToSource(reader.ConnectableAPI(), "result")
        tex.CreateInput("wrapS", Sdf.ValueTypeNames.Token).Set("repeat")
        tex.CreateInput("wrapT", Sdf.ValueTypeNames.Token).Set("repeat")
        tex.CreateInput("scale", Sdf.ValueTypeNames.Float4).Set(Gf.Vec4f(*scale))
        tex.CreateOutput("rgb", Sdf.ValueTypeNames.Float3)
        for channel in ("r", "g", "b", "a"):
            tex.CreateOutput(channel, Sdf.ValueTypeNames.Float)
        return tex

    def physics_material(self, phys: PhysicalMaterial) -> Any:
        """The physics material for ``phys`` (equal materials share one prim)."""
        from pxr import UsdGeom, UsdPhysics, UsdShade

        for known, prim in self._phys:
            if known == phys:
                return prim
        if not self._phys:
            UsdGeom.Scope.Define(self.stage, self.physmat_path)
        material = UsdShade.Material.Define(self.stage, self.physmat_path.AppendChild(self._phys_names.take(phys.name)))
        _keep_name(material.GetPrim(), phys.name)
        api = UsdPhysics.MaterialAPI.Apply(material.GetPrim())
        api.CreateStaticFrictionAttr(phys.friction)
        api.CreateDynamicFrictionAttr(phys.friction)
        api.CreateRestitutionAttr(phys.restitution)
        api.CreateDensityAttr(phys.density)
        self._phys.append((phys, material))
        return material

    # ---- links
    def link(self, part: Part) -> None:
        """The link Xform of ``part`` with its visual mesh, collision hulls and mass."""
        from pxr import Gf, Sdf, UsdGeom, UsdPhysics, UsdShade, Vt

        origin = self.asset.link_origin(part.name)
        xform = UsdGeom.Xform.Define(self.stage, self.link_paths[part.name])
        _keep_name(xform.GetPrim(), part.name)
        xform.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*origin.tolist()))
        prim = xform.GetPrim()
        UsdPhysics.RigidBodyAPI.Apply(prim)
        if part.name == self.asset.root:
            UsdPhysics.ArticulationRootAPI.Apply(prim)
        if len(part.mesh.faces):
            visual = _define_mesh(self.stage, xform.GetPath().AppendChild("visual"), part.mesh, origin, normals=True)
            if part.mesh.uv is not None:
                st = UsdGeom.PrimvarsAPI(visual).CreatePrimvar("st", Sdf.ValueTypeNames.TexCoord2fArray,
                                                               UsdGeom.Tokens.vertex)
                st.Set(Vt.Vec2fArray.FromNumpy(np.ascontiguousarray(part.mesh.uv, np.float32)))
            material = self.look(part.material, part.mesh.uv is not None, part.name)
            UsdShade.MaterialBindingAPI.Apply(visual.GetPrim()).Bind(material)
        else:
            logger.warning("part %r has an empty mesh: no visual exported", part.name)
        physmat = self.physics_material(part.physical)
        scope = UsdGeom.Scope.Define(self.stage, xform.GetPath().AppendChild("collision"))
        for i, hull in enumerate(part.collision):
            geom = _define_mesh(self.stage, scope.GetPath().AppendChild(f"hull_{i:03d}"), hull, origin, normals=False)
            geom.CreatePurposeAttr(UsdGeom.Tokens.guide)
            UsdPhysics.CollisionAPI.Apply(geom.GetPrim())
            UsdPhysics.MeshCollisionAPI.Apply(geom.GetPrim()).CreateApproximationAttr(UsdPhysics.Tokens.convexHull)
            UsdShade.MaterialBindingAPI.Apply(geom.GetPrim()).Bind(
                physmat, UsdShade.Tokens.weakerThanDescendants, "physics")
        inertial = part.inertial
        assert inertial is not None
        diagonal, axes = principal_inertia(inertial.inertia)
        mass = UsdPhysics.MassAPI.Apply(prim)
        mass.CreateMassAttr(inertial.mass)
        mass.CreateCenterOfMassAttr(Gf.Vec3f(*(inertial.com - origin).tolist()))
        mass.CreateDiagonalInertiaAttr(Gf.Vec3f(*diagonal.tolist()))
        mass.CreatePrincipalAxesAttr(Gf.Quatf(axes[0], axes[1], axes[2], axes[3]))

    # ---- joints
    def joint(self, joint: Joint, names: _Names) -> None:
        """A UsdPhysics joint whose frame's X axis is the joint axis, at the joint origin."""
        from pxr import Gf, Sdf, UsdPhysics

        path = self.joints_path.AppendChild(names.take(joint.name))
        kind = {"revolute": UsdPhysics.RevoluteJoint, "continuous": UsdPhysics.RevoluteJoint,
                "prismatic": UsdPhysics.PrismaticJoint, "fixed": UsdPhysics.FixedJoint}[joint.type]
        usd_joint = kind.Define(self.stage, path)
        prim = usd_joint.GetPrim()
        _keep_name(prim, joint.name)
        usd_joint.CreateBody0Rel().SetTargets([self.link_paths[joint.parent]])
        usd_joint.CreateBody1Rel().SetTargets([self.link_paths[joint.child]])
        if joint.type == "fixed":
            norm = float(np.linalg.norm(joint.axis))
            quat = _quat_x_to(joint.axis / norm) if np.isfinite(norm) and norm > 1e-12 else (1.0, 0.0, 0.0, 0.0)
        else:
            quat = _quat_x_to(joint.unit_axis)
        rot = Gf.Quatf(quat[0], quat[1], quat[2], quat[3])
        pos0 = joint.origin - self.asset.link_origin(joint.parent)
        pos1 = joint.origin - self.asset.link_origin(joint.child)
        usd_joint.CreateLocalPos0Attr(Gf.Vec3f(*pos0.tolist()))
        usd_joint.CreateLocalRot0Attr(rot)
        usd_joint.CreateLocalPos1Attr(Gf.Vec3f(*pos1.tolist()))
        usd_joint.CreateLocalRot1Attr(rot)
        if joint.type == "fixed":
            return
        usd_joint.CreateAxisAttr(UsdPhysics.Tokens.x)
        if joint.type == "revolute":
            usd_joint.CreateLowerLimitAttr(math.degrees(joint.lower))
            usd_joint.CreateUpperLimitAttr(math.degrees(joint.upper))
        elif joint.type == "prismatic":
            usd_joint.CreateLowerLimitAttr(joint.lower)
            usd_joint.CreateUpperLimitAttr(joint.upper)
        angular = joint.type != "prismatic"
        drive = UsdPhysics.DriveAPI.Apply(prim, "angular" if angular else "linear")
        drive.CreateTypeAttr("force")
        drive.CreateStiffnessAttr(0.0)
        drive.CreateDampingAttr(joint.damping * math.pi / 180.0 if angular else joint.damping)
        prim.CreateAttribute("physxJoint:jointFriction", Sdf.ValueTypeNames.Float, custom=True).Set(joint.friction)

    def build(self) -> Any:
        """Author links (tree order), then joints (asset order); returns the stage."""
        from pxr import UsdGeom

        order = self.asset.tree_order()
        for name in order:  # prims list in definition order: links, joints, then the material scopes
            UsdGeom.Xform.Define(self.stage, self.link_paths[name])
        if self.asset.joints:
            UsdGeom.Scope.Define(self.stage, self.joints_path)
        for name in order:
            self.link(self.asset.part(name))
        names = _Names()
        for joint in self.asset.joints:
            self.joint(joint, names)
        return self.stage


# --------------------------------------------------------------------------------------------- export


def export_usd(asset: Asset, folder: PathType, usdz: bool = True) -> Path:
    """Write ``folder/{name}.usda`` (+ ``folder/textures/*.png`` and ``folder/{name}.usdz``); returns the .usda.

    Every part needs collision hulls and an inertial (``seed3d.physics.prepare`` fills them). All files are
    built in a hidden staging folder first and renamed into place only when everything succeeded, so a
    failure leaves the folder as it was (a folder this call created is removed again).
    """
    _require_pxr()
    from pxr import UsdUtils

    _check_ready(asset)
    folder = Path(folder)
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{asset.name}.usd.", suffix=".tmp", dir=folder))
    usda_name, usdz_name = f"{asset.name}.usda", f"{asset.name}.usdz"
    try:
        builder = _Builder(asset, staging)
        stage = builder.build()
        if not stage.GetRootLayer().Export(str(staging / usda_name)):
            raise ExportError(f"could not write {staging / usda_name}")
        outputs = [*builder.textures, usda_name]
        if usdz:
            if not UsdUtils.CreateNewUsdzPackage(str(staging / usda_name), str(staging / usdz_name)):
                raise ExportError(f"could not package {folder / usdz_name} (UsdUtils.CreateNewUsdzPackage failed)")
            _fix_zip_times(staging / usdz_name)
            outputs.append(usdz_name)
        with contextlib.ExitStack() as stack:  # renames happen on exit, last entered first: the usdz last
            for rel in reversed(outputs):
                tmp = stack.enter_context(atomic_file(folder / rel))
                os.replace(staging / rel, tmp)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if created:
            with contextlib.suppress(OSError):
                _remove_empty_tree(folder)
        raise
    shutil.rmtree(staging, ignore_errors=True)
    logger.info("wrote %s (%d parts, %d joints, %d textures%s)", folder / usda_name, len(asset.parts),
                len(asset.joints), len(builder.textures), ", usdz" if usdz else "")
    return folder / usda_name


_DOS_EPOCH = struct.pack("<HH", 0, (0 << 9) | (1 << 5) | 1)  # 00:00:00, 1980-01-01


def _fix_zip_times(path: Path) -> None:
    """Stamp every entry of a zip (USDZ) with 1980-01-01 in place, so packages are byte-for-byte reproducible.

    Only the fixed-size time/date fields change, so USDZ's 64-byte data alignment is kept.
    """
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        offsets = [info.header_offset for info in zf.infolist()]
        pos = zf.start_dir  # type: ignore[attr-defined]
    for off in offsets:
        if data[off:off + 4] != b"PK\x03\x04":
            raise ExportError(f"{path}: unexpected zip layout (local header at {off})")
        data[off + 10:off + 14] = _DOS_EPOCH
    for _ in offsets:
        if data[pos:pos + 4] != b"PK\x01\x02":
            raise ExportError(f"{path}: unexpected zip layout (central directory at {pos})")
        data[pos + 12:pos + 16] = _DOS_EPOCH
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, pos + 28)
        pos += 46 + name_len + extra_len + comment_len
    path.write_bytes(bytes(data))


def _remove_empty_tree(folder: Path) -> None:
    for sub in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if sub.is_dir():
            sub.rmdir()
    folder.rmdir()


# --------------------------------------------------------------------------------------------- reading


def _display_name(prim: Any) -> str:
    name = prim.GetCustomDataByKey(_NAME_KEY)
    return str(name) if isinstance(name, str) and name else str(prim.GetName())


def _finite_limit(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def read_usd_kinematics(path: PathType) -> list[dict[str, Any]]:
    """Joints of any USD file (.usd/.usda/.usdc/.usdz) as dicts, in stage traversal order.

    Each dict has ``name``, ``type`` ("revolute" | "prismatic" | "fixed" | "continuous": a revolute joint
    with neither limit), ``parent`` / ``child`` (body0 / body1 prim names; None for the world), ``axis`` (the
    world-frame unit axis at rest as a list, Z-up; None for fixed joints), ``lower`` / ``upper`` (radians or
    meters, None when unlimited), ``origin`` (world position of the joint frame on body0, meters), ``frame_gap``
    (meters) and ``frame_angle`` (radians) between the joint frames seen from body0 and body1 at rest (both 0
    for a consistent file), ``enabled`` and ``path``. Lengths are scaled by the stage's metersPerUnit and a
    Y-up stage is turned Z-up. Unreadable files, unsupported joint types and missing or bad attributes raise
    ``AssetFormatError`` naming the prim.
    """
    _require_pxr()
    from pxr import Tf, Usd, UsdGeom, UsdPhysics

    path = Path(path)
    if not path.is_file():
        raise AssetFormatError(f"{path}: USD file is missing")
    try:
        stage = Usd.Stage.Open(str(path))
    except Tf.ErrorException as exc:
        raise AssetFormatError(f"{path}: not a readable USD file ({exc})") from exc
    if stage is None:
        raise AssetFormatError(f"{path}: not a readable USD file")
    meters = float(UsdGeom.GetStageMetersPerUnit(stage))
    to_z_up = np.eye(3)
    if UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.y:
        to_z_up = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
    out = []
    for prim in stage.Traverse(Usd.TraverseInstanceProxies()):
        if not prim.IsA(UsdPhysics.Joint):
            continue
        where = f"{path}: joint prim {prim.GetPath()}"
        if prim.IsA(UsdPhysics.RevoluteJoint):
            kind, schema = "revolute", UsdPhysics.RevoluteJoint(prim)
        elif prim.IsA(UsdPhysics.PrismaticJoint):
            kind, schema = "prismatic", UsdPhysics.PrismaticJoint(prim)
        elif prim.IsA(UsdPhysics.FixedJoint):
            kind, schema = "fixed", UsdPhysics.FixedJoint(prim)
        else:
            raise AssetFormatError(f"{where} is a {prim.GetTypeName() or 'generic joint'}; only revolute, "
                                   "prismatic and fixed joints are supported")

        def get(attr: Any, what: str, where: str = where) -> Any:
            value = attr.Get() if attr else None
            if value is None:
                raise AssetFormatError(f"{where}: attribute {what} is missing or has no value")
            return value

        frames = []
        bodies: list[str | None] = []
        for i, rel in enumerate((schema.GetBody0Rel(), schema.GetBody1Rel())):
            targets = rel.GetTargets() if rel else []
            if len(targets) > 1:
                raise AssetFormatError(f"{where}: physics:body{i} has {len(targets)} targets, expected one")
            world = np.eye(4)
            if targets:
                body = stage.GetPrimAtPath(targets[0])
                if not body or not body.IsValid():
                    raise AssetFormatError(f"{where}: physics:body{i} targets {targets[0]}, which does not exist")
                xformable = UsdGeom.Xformable(body)
                if xformable:
                    world = np.array(xformable.ComputeLocalToWorldTransform(Usd.TimeCode.Default()), np.float64).T
                bodies.append(_display_name(body))
            else:
                bodies.append(None)
            pos = np.array(get(prim.GetAttribute(f"physics:localPos{i}"), f"physics:localPos{i}"), np.float64)
            quat = get(prim.GetAttribute(f"physics:localRot{i}"), f"physics:localRot{i}")
            q = np.array([quat.GetReal(), *quat.GetImaginary()], np.float64)
            if not (np.all(np.isfinite(pos)) and np.all(np.isfinite(q)) and np.linalg.norm(q) > 1e-9):
                raise AssetFormatError(f"{where}: physics:localPos{i}/localRot{i} are not finite or the rotation is 0")
            lin = world[:3, :3]
            scale = np.linalg.norm(lin, axis=0)
            if np.any(scale < 1e-12):
                raise AssetFormatError(f"{where}: body{i} has a degenerate (zero-scale) transform")
            frames.append((world[:3, :3] @ pos + world[:3, 3], (lin / scale) @ _quat_to_matrix(q)))
        if bodies[1] is None and bodies[0] is None:
            raise AssetFormatError(f"{where}: neither physics:body0 nor physics:body1 is set")
        axis = lower = upper = None
        if kind != "fixed":
            token = str(get(schema.GetAxisAttr(), "physics:axis"))
            if token not in _AXIS_VECTORS:
                raise AssetFormatError(f"{where}: physics:axis is {token!r}, expected X, Y or Z")
            direction = to_z_up @ frames[0][1] @ _AXIS_VECTORS[token]
            axis = (direction / np.linalg.norm(direction)).tolist()
            lower = _finite_limit(get(schema.GetLowerLimitAttr(), "physics:lowerLimit"))
            upper = _finite_limit(get(schema.GetUpperLimitAttr(), "physics:upperLimit"))
            if kind == "revolute":
                lower = None if lower is None else math.radians(lower)
                upper = None if upper is None else math.radians(upper)
                if lower is None and upper is None:
                    kind = "continuous"
            else:
                lower = None if lower is None else lower * meters
                upper = None if upper is None else upper * meters
        relative = frames[0][1].T @ frames[1][1]
        angle = math.acos(float(np.clip((np.trace(relative) - 1) / 2, -1.0, 1.0)))
        enabled = schema.GetJointEnabledAttr().Get()
        out.append({
            "name": _display_name(prim), "type": kind, "parent": bodies[0], "child": bodies[1], "axis": axis,
            "lower": lower, "upper": upper, "origin": (to_z_up @ frames[0][0] * meters).tolist(),
            "frame_gap": float(np.linalg.norm(frames[0][0] - frames[1][0]) * meters), "frame_angle": angle,
            "enabled": True if enabled is None else bool(enabled), "path": str(prim.GetPath()),
        })
    return out
