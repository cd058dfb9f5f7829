"""USD / USDZ export: stage metadata, UsdPhysics bodies, joints, mass, collision, materials, packaging, atomicity."""

from __future__ import annotations

import math
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

pxr = pytest.importorskip("pxr")
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade  # noqa: E402

from seed3d.asset import Asset, Inertial, Joint, Mesh, Part, PBRMaterial  # noqa: E402
from seed3d.errors import AssetFormatError, ExportError  # noqa: E402
from seed3d.export import usd as usd_mod  # noqa: E402
from seed3d.export.usd import export_usd, principal_inertia, read_usd_kinematics  # noqa: E402
from seed3d.synth.primitives import box, demo_cabinet  # noqa: E402


def _fill_physics(asset: Asset) -> Asset:
    """Collision hulls and inertials: ``seed3d.physics.prepare`` when it exists, else trimesh (test fallback)."""
    try:
        from seed3d.physics import prepare  # type: ignore[attr-defined]
    except ImportError:
        prepare = None
    if prepare is not None:
        return prepare(asset)
    import trimesh

    asset = asset.copy()
    for part in asset.parts:
        tm = trimesh.Trimesh(part.mesh.vertices, part.mesh.faces, process=True)
        if part.label == "body":  # two hulls (lower and upper half), to check one collision prim per hull
            z = tm.bounds[:, 2].mean()
            low, high = tm.vertices.copy(), tm.vertices.copy()
            low[:, 2], high[:, 2] = np.minimum(low[:, 2], z), np.maximum(high[:, 2], z)
            hulls = [trimesh.convex.convex_hull(v) for v in (low, high)]
        else:
            hulls = [tm.convex_hull]
        part.collision = [Mesh(h.vertices, h.faces) for h in hulls]
        tm.density = part.physical.density
        part.inertial = Inertial(tm.mass, tm.center_mass, tm.moment_inertia)
    return asset


@pytest.fixture(scope="module")
def cabinet() -> Asset:
    return _fill_physics(demo_cabinet())


@pytest.fixture(scope="module")
def exported(cabinet: Asset, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_usd(cabinet, tmp_path_factory.mktemp("usd") / "usd")


@pytest.fixture(scope="module")
def stage(exported: Path) -> Usd.Stage:
    return Usd.Stage.Open(str(exported))


def _world(stage: Usd.Stage, path: Sdf.Path) -> Gf.Matrix4d:
    return UsdGeom.Xformable(stage.GetPrimAtPath(path)).ComputeLocalToWorldTransform(Usd.TimeCode.Default())


def _joint_frame_world(stage: Usd.Stage, joint: UsdPhysics.Joint, side: int) -> tuple[np.ndarray, np.ndarray]:
    """World position and rotation (columns = frame axes) of a joint's frame as seen from body0 or body1."""
    rel = joint.GetBody0Rel() if side == 0 else joint.GetBody1Rel()
    body = _world(stage, rel.GetTargets()[0])
    pos = (joint.GetLocalPos0Attr() if side == 0 else joint.GetLocalPos1Attr()).Get()
    rot = (joint.GetLocalRot0Attr() if side == 0 else joint.GetLocalRot1Attr()).Get()
    frame = Gf.Rotation(Gf.Quatd(rot))
    axes = np.array([body.TransformDir(frame.TransformDir(Gf.Vec3d(*e))) for e in np.eye(3)]).T
    return np.array(body.Transform(Gf.Vec3d(pos))), axes


# --------------------------------------------------------------------------------------------- stage layout


def test_files_and_stage_metadata(exported: Path, stage: Usd.Stage, cabinet: Asset) -> None:
    assert exported == exported.parent / "demo_cabinet.usda" and exported.is_file()
    assert (exported.parent / "demo_cabinet.usdz").is_file()
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    assert UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z
    assert UsdPhysics.GetStageKilogramsPerUnit(stage) == 1.0
    root = stage.GetDefaultPrim()
    assert root and root.GetName() == "demo_cabinet" and root.IsA(UsdGeom.Xform)
    links = {p.GetName(): p for p in root.GetChildren() if p.HasAPI(UsdPhysics.RigidBodyAPI)}
    assert sorted(links) == sorted(p.name for p in cabinet.parts)
    for name, prim in links.items():  # flat siblings, link frame = pure translation to the link origin
        m = _world(stage, prim.GetPath())
        np.testing.assert_allclose(np.array(m.ExtractTranslation()), cabinet.link_origin(name), atol=1e-9)
        np.testing.assert_allclose(np.array(m.ExtractRotationMatrix()), np.eye(3), atol=1e-12)


def test_exactly_one_articulation_root_on_root_link(stage: Usd.Stage, cabinet: Asset) -> None:
    roots = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.ArticulationRootAPI)]
    assert [p.GetName() for p in roots] == [cabinet.root]
    fixed_to_world = [p for p in stage.Traverse() if p.IsA(UsdPhysics.Joint)
                      and not (UsdPhysics.Joint(p).GetBody0Rel().GetTargets()
                               and UsdPhysics.Joint(p).GetBody1Rel().GetTargets())]
    assert fixed_to_world == []  # the root is free: validators decide whether to fix the base


def test_joint_types_bodies_limits_and_drives(stage: Usd.Stage, cabinet: Asset) -> None:
    root = stage.GetDefaultPrim().GetPath()
    kinds = {"revolute": UsdPhysics.RevoluteJoint, "prismatic": UsdPhysics.PrismaticJoint,
             "fixed": UsdPhysics.FixedJoint}
    for j in cabinet.joints:
        prim = stage.GetPrimAtPath(root.AppendPath(f"joints/{j.name}"))
        assert prim.IsA(kinds[j.type]), j.name
        joint = UsdPhysics.Joint(prim)
        assert joint.GetBody0Rel().GetTargets() == [root.AppendChild(j.parent)]
        assert joint.GetBody1Rel().GetTargets() == [root.AppendChild(j.child)]
        if j.type == "fixed":
            assert not prim.HasAPI(UsdPhysics.DriveAPI)
            continue
        schema = kinds[j.type](prim)
        assert schema.GetAxisAttr().Get() == "X"
        scale = 180.0 / math.pi if j.type == "revolute" else 1.0
        assert schema.GetLowerLimitAttr().Get() == pytest.approx(j.lower * scale, abs=1e-5)
        assert schema.GetUpperLimitAttr().Get() == pytest.approx(j.upper * scale, rel=1e-6)
        drive = UsdPhysics.DriveAPI(prim, "angular" if j.type == "revolute" else "linear")
        assert drive and drive.GetStiffnessAttr().Get() == 0.0
        per_unit = math.pi / 180.0 if j.type == "revolute" else 1.0  # UsdPhysics angular damping is per degree
        assert drive.GetDampingAttr().Get() == pytest.approx(j.damping * per_unit, rel=1e-6)
        assert prim.GetAttribute("physxJoint:jointFriction").Get() == pytest.approx(j.friction)
    hinge = UsdPhysics.RevoluteJoint(stage.GetPrimAtPath(root.AppendPath("joints/door_hinge")))
    assert hinge.GetUpperLimitAttr().Get() == pytest.approx(110.0, rel=1e-6)


def test_world_joint_axis_from_body0_and_local_rot0(stage: Usd.Stage, cabinet: Asset) -> None:
    root = stage.GetDefaultPrim().GetPath()
    expected = {"door_hinge": (0.0, 0.0, -1.0), "drawer_slide": (1.0, 0.0, 0.0)}
    for j in cabinet.joints:
        joint = UsdPhysics.Joint(stage.GetPrimAtPath(root.AppendPath(f"joints/{j.name}")))
        pos0, axes0 = _joint_frame_world(stage, joint, 0)
        pos1, axes1 = _joint_frame_world(stage, joint, 1)
        np.testing.assert_allclose(pos0, j.origin, atol=1e-6)  # joint frame at Joint.origin
        np.testing.assert_allclose(pos1, pos0, atol=1e-6)  # both bodies agree on the frame at rest
        np.testing.assert_allclose(axes1, axes0, atol=1e-6)
        if j.movable:
            np.testing.assert_allclose(axes0[:, 0], j.unit_axis, atol=1e-6)
        if j.name in expected:
            np.testing.assert_allclose(axes0[:, 0], expected[j.name], atol=1e-6)


def test_mass_centre_of_mass_and_inertia(stage: Usd.Stage, cabinet: Asset) -> None:
    root = stage.GetDefaultPrim().GetPath()
    for part in cabinet.parts:
        prim = stage.GetPrimAtPath(root.AppendChild(part.name))
        mass = UsdPhysics.MassAPI(prim)
        assert prim.HasAPI(UsdPhysics.MassAPI)
        assert mass.GetMassAttr().Get() == pytest.approx(part.inertial.mass, rel=1e-6)
        com_world = _world(stage, prim.GetPath()).Transform(Gf.Vec3d(mass.GetCenterOfMassAttr().Get()))
        np.testing.assert_allclose(np.array(com_world), part.inertial.com, atol=1e-6)
        q = mass.GetPrincipalAxesAttr().Get()
        rot = np.array(Gf.Matrix3d(Gf.Rotation(Gf.Quatd(q)).GetQuat()).GetTranspose())  # column vectors
        tensor = rot @ np.diag(np.array(mass.GetDiagonalInertiaAttr().Get(), float)) @ rot.T
        np.testing.assert_allclose(tensor, part.inertial.inertia, atol=1e-6 * np.abs(part.inertial.inertia).max())


def test_principal_inertia_reconstructs_any_tensor() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        a = rng.normal(size=(3, 3))
        tensor = a @ a.T + 0.1 * np.eye(3)
        diagonal, q = principal_inertia(tensor)
        rot = usd_mod._quat_to_matrix(np.array(q))
        np.testing.assert_allclose(rot @ np.diag(diagonal) @ rot.T, tensor, atol=1e-10)
        assert q[0] >= 0 and np.all(np.diff(diagonal) >= 0)
        assert principal_inertia(tensor)[1] == q  # deterministic


def test_each_hull_is_a_convex_collision_mesh_with_physics_material(stage: Usd.Stage, cabinet: Asset) -> None:
    root = stage.GetDefaultPrim().GetPath()
    for part in cabinet.parts:
        link = root.AppendChild(part.name)
        hulls = stage.GetPrimAtPath(link.AppendChild("collision")).GetChildren()
        assert len(hulls) == len(part.collision) >= 1
        for prim, hull in zip(hulls, part.collision, strict=True):
            assert prim.IsA(UsdGeom.Mesh) and prim.HasAPI(UsdPhysics.CollisionAPI)
            assert UsdPhysics.MeshCollisionAPI(prim).GetApproximationAttr().Get() == "convexHull"
            assert UsdGeom.Imageable(prim).GetPurposeAttr().Get() == UsdGeom.Tokens.guide
            points = np.array(UsdGeom.Mesh(prim).GetPointsAttr().Get(), float)
            np.testing.assert_allclose(points, hull.vertices - cabinet.link_origin(part.name), atol=1e-6)
            bound, _ = UsdShade.MaterialBindingAPI(prim).ComputeBoundMaterial("physics")
            api = UsdPhysics.MaterialAPI(bound.GetPrim())
            assert bound and bound.GetPrim().HasAPI(UsdPhysics.MaterialAPI)
            assert api.GetDynamicFrictionAttr().Get() == pytest.approx(part.physical.friction)
            assert api.GetStaticFrictionAttr().Get() == pytest.approx(part.physical.friction)
            assert api.GetRestitutionAttr().Get() == pytest.approx(part.physical.restitution)
            assert api.GetDensityAttr().Get() == pytest.approx(part.physical.density)
        visual = stage.GetPrimAtPath(link.AppendChild("visual"))
        assert visual.IsA(UsdGeom.Mesh) and not visual.HasAPI(UsdPhysics.CollisionAPI)
        mesh = UsdGeom.Mesh(visual)
        assert list(mesh.GetFaceVertexCountsAttr().Get()) == [3] * len(part.mesh.faces)
        np.testing.assert_array_equal(np.array(mesh.GetFaceVertexIndicesAttr().Get()), part.mesh.faces.ravel())
        assert mesh.GetNormalsInterpolation() == UsdGeom.Tokens.faceVarying
        assert len(mesh.GetNormalsAttr().Get()) == 3 * len(part.mesh.faces)


def test_usd_physics_parser_reports_bodies_and_joints(stage: Usd.Stage, cabinet: Asset) -> None:
    load = getattr(UsdPhysics, "UsdPhysicsLoadStageFromPrimRange", None) or UsdPhysics.LoadUsdPhysicsFromRange
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        result = load(stage, ["/"])
    kinds = UsdPhysics.ObjectType

    def paths(kind: object) -> list[str]:
        return sorted(str(p) for p in result.get(kind, ([], []))[0])

    root = f"/{cabinet.name}"
    assert paths(kinds.RigidBody) == sorted(f"{root}/{p.name}" for p in cabinet.parts)
    assert paths(kinds.RevoluteJoint) == [f"{root}/joints/door_hinge"]
    assert paths(kinds.PrismaticJoint) == [f"{root}/joints/drawer_slide"]
    assert paths(kinds.FixedJoint) == sorted(f"{root}/joints/{n}" for n in ("door_handle_mount", "drawer_knob_mount"))
    assert len(paths(kinds.MeshShape)) == sum(len(p.collision) for p in cabinet.parts)
    (articulation,) = result[kinds.Articulation][1]
    assert [str(p) for p in articulation.rootPrims] == [f"{root}/{cabinet.root}"]
    assert len(articulation.articulatedBodies) == len(cabinet.parts)
    assert len(articulation.articulatedJoints) == len(cabinet.joints)
    hinge = result[kinds.RevoluteJoint][1][0]
    assert hinge.limit.enabled and hinge.limit.upper == pytest.approx(110.0, rel=1e-6)


def test_usd_validation_reports_no_errors(exported: Path) -> None:
    validation = pytest.importorskip("pxr.UsdValidation")
    registry = validation.ValidationRegistry()
    context = validation.ValidationContext(registry.GetOrLoadAllValidators())
    for path in (exported, exported.with_suffix(".usdz")):
        issues = context.Validate(Usd.Stage.Open(str(path)))
        errors = [f"{e.GetName()}: {e.GetMessage()}" for e in issues
                  if e.GetType() == validation.ValidationErrorType.Error]
        warns = [f"{e.GetName()}: {e.GetMessage()}" for e in issues
                 if e.GetType() == validation.ValidationErrorType.Warn]
        assert errors == [], errors
        assert warns == [], warns  # none today; a new warning should be looked at, not ignored


# --------------------------------------------------------------------------------------------- materials


def _input_source(shader: UsdShade.Shader, name: str) -> tuple[UsdShade.Shader, str]:
    sources, _ = shader.GetInput(name).GetConnectedSources()
    assert len(sources) == 1, name
    return UsdShade.Shader(sources[0].source.GetPrim()), str(sources[0].sourceName)


def test_texture_channels_follow_gltf_packing(stage: Usd.Stage, exported: Path, cabinet: Asset) -> None:
    from PIL import Image

    door = cabinet.part("door")
    visual = stage.GetPrimAtPath(f"/{cabinet.name}/door/visual")
    material, _ = UsdShade.MaterialBindingAPI(visual).ComputeBoundMaterial()
    surface = material.ComputeSurfaceSource()[0]
    assert surface.GetIdAttr().Get() == "UsdPreviewSurface"
    base_tex, channel = _input_source(surface, "diffuseColor")
    assert channel == "rgb" and base_tex.GetIdAttr().Get() == "UsdUVTexture"
    assert base_tex.GetInput("sourceColorSpace").Get() == "sRGB"
    rough_tex, rough_channel = _input_source(surface, "roughness")
    metal_tex, metal_channel = _input_source(surface, "metallic")
    assert (rough_channel, metal_channel) == ("g", "b")  # glTF: G = roughness, B = metallic
    assert rough_tex.GetPath() == metal_tex.GetPath() and rough_tex.GetInput("sourceColorSpace").Get() == "raw"
    scale = rough_tex.GetInput("scale").Get()
    assert (scale[1], scale[2]) == pytest.approx((door.material.roughness, door.material.metallic))
    reader, _ = _input_source(base_tex, "st")
    assert reader.GetIdAttr().Get() == "UsdPrimvarReader_float2" and reader.GetInput("varname").Get() == "st"
    for tex, image in ((base_tex, door.material.base_color_map), (rough_tex, door.material.metallic_roughness_map)):
        rel = tex.GetInput("file").Get().path
        assert rel.startswith("./textures/") and rel.endswith(".png")
        with Image.open(exported.parent / rel) as im:
            np.testing.assert_array_equal(np.asarray(im), image)
    st = UsdGeom.PrimvarsAPI(visual).GetPrimvar("st")
    assert st.GetInterpolation() == UsdGeom.Tokens.vertex
    np.testing.assert_allclose(np.array(st.Get(), float), door.mesh.uv, atol=1e-7)

    body = stage.GetPrimAtPath(f"/{cabinet.name}/body/visual")
    plain = UsdShade.MaterialBindingAPI(body).ComputeBoundMaterial()[0].ComputeSurfaceSource()[0]
    mat = cabinet.part("body").material
    np.testing.assert_allclose(plain.GetInput("diffuseColor").Get(), mat.base_color[:3], atol=1e-6)
    assert plain.GetInput("metallic").Get() == pytest.approx(mat.metallic)
    assert plain.GetInput("roughness").Get() == pytest.approx(mat.roughness)


def test_usdz_opens_and_contains_textures(exported: Path, cabinet: Asset) -> None:
    usdz = exported.with_suffix(".usdz")
    with zipfile.ZipFile(usdz) as zf:
        names = zf.namelist()
        assert names[0] == "demo_cabinet.usda" and zf.testzip() is None
        for info in zf.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
    textures = sorted(n for n in names if n.startswith("textures/"))
    assert textures == sorted(f"textures/{p.name}" for p in (exported.parent / "textures").iterdir())
    assert len(textures) == 2
    packaged = Usd.Stage.Open(str(usdz))
    assert packaged.GetDefaultPrim().GetName() == cabinet.name
    look = cabinet.part("door").material.name
    shader = UsdShade.Shader(packaged.GetPrimAtPath(f"/{cabinet.name}/Looks/{look}/baseColorTex"))
    resolved = shader.GetInput("file").Get().resolvedPath
    assert resolved.endswith(f"demo_cabinet.usdz[textures/{look}_base_color.png]")
    assert [k["name"] for k in read_usd_kinematics(usdz)] == [j.name for j in cabinet.joints]


def test_output_is_deterministic(cabinet: Asset, exported: Path, tmp_path: Path) -> None:
    again = export_usd(cabinet, tmp_path / "again")
    files = sorted(p.relative_to(exported.parent) for p in exported.parent.rglob("*") if p.is_file())
    assert len(files) == 4  # usda, usdz and the door's two textures
    assert files == sorted(p.relative_to(again.parent) for p in again.parent.rglob("*") if p.is_file())
    for rel in files:
        assert (again.parent / rel).read_bytes() == (exported.parent / rel).read_bytes(), rel


# --------------------------------------------------------------------------------------------- atomicity, errors


def test_failure_mid_export_leaves_nothing(cabinet: Asset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(path: Path) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(usd_mod, "_fix_zip_times", boom)  # fails after the usda and textures were staged
    with pytest.raises(RuntimeError, match="disk full"):
        export_usd(cabinet, tmp_path / "new")
    assert not (tmp_path / "new").exists()

    monkeypatch.undo()
    folder = export_usd(cabinet, tmp_path / "old").parent
    before = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    changed = cabinet.copy()
    changed.part("body").material.roughness = 0.1
    monkeypatch.setattr(usd_mod, "_fix_zip_times", boom)
    with pytest.raises(RuntimeError):
        export_usd(changed, folder)
    after = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before  # old export untouched, no temporary files left
    assert sorted(p.name for p in folder.iterdir()) == ["demo_cabinet.usda", "demo_cabinet.usdz", "textures"]


def test_usdz_packaging_failure_is_an_export_error(cabinet: Asset, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from pxr import UsdUtils

    monkeypatch.setattr(UsdUtils, "CreateNewUsdzPackage", lambda *a: False)
    with pytest.raises(ExportError, match="usdz"):
        export_usd(cabinet, tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_no_usdz_when_not_asked(cabinet: Asset, tmp_path: Path) -> None:
    path = export_usd(cabinet, tmp_path / "plain", usdz=False)
    assert sorted(p.name for p in path.parent.iterdir()) == ["demo_cabinet.usda", "textures"]


def test_parts_without_physics_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"seed3d\.physics\.prepare"):
        export_usd(demo_cabinet(), tmp_path / "u")
    assert not (tmp_path / "u").exists()


# --------------------------------------------------------------------------------------------- joint variants


def _two_box_asset(joint_type: str, axis: tuple[float, float, float], part_name: str = "lid") -> Asset:
    base, lid = box([-0.2, -0.2, 0.0], [0.2, 0.2, 0.3]), box([-0.2, -0.2, 0.3], [0.2, 0.2, 0.32])
    asset = Asset("thing-1", [Part("base", base), Part(part_name, lid, "lid")], [
        Joint("hinge-1", joint_type, "base", part_name, origin=[-0.2, 0.0, 0.3], axis=axis,
              lower=-0.5, upper=1.25)])
    return _fill_physics(asset)


@pytest.mark.parametrize("axis", [(0, 1, 0), (-1, 0, 0), (1, 2, -2), (0, 0, 1), (-0.3, -0.1, 0.95)])
@pytest.mark.parametrize("joint_type", ["revolute", "continuous", "prismatic"])
def test_any_axis_round_trips(joint_type: str, axis: tuple[float, float, float], tmp_path: Path) -> None:
    asset = _two_box_asset(joint_type, axis)
    (info,) = read_usd_kinematics(export_usd(asset, tmp_path, usdz=False))
    joint = asset.joints[0]
    assert info["type"] == joint_type and (info["parent"], info["child"]) == ("base", "lid")
    np.testing.assert_allclose(info["axis"], joint.unit_axis, atol=1e-6)
    np.testing.assert_allclose(info["origin"], joint.origin, atol=1e-6)
    assert info["frame_gap"] < 1e-6 and info["frame_angle"] < 1e-3
    if joint_type == "continuous":
        assert info["lower"] is None and info["upper"] is None
    else:
        assert (info["lower"], info["upper"]) == (pytest.approx(-0.5, rel=1e-6), pytest.approx(1.25, rel=1e-6))


def test_names_made_valid_and_kept(tmp_path: Path) -> None:
    asset = _two_box_asset("revolute", (0, 1, 0), part_name="2nd-lid")
    path = export_usd(asset, tmp_path, usdz=False)
    stage = Usd.Stage.Open(str(path))
    assert stage.GetDefaultPrim().GetName() == "thing_1"
    assert stage.GetPrimAtPath("/thing_1/_2nd_lid").GetCustomDataByKey("seed3d:name") == "2nd-lid"
    (info,) = read_usd_kinematics(path)
    assert (info["name"], info["child"]) == ("hinge-1", "2nd-lid")


def test_read_kinematics_matches_the_asset(exported: Path, cabinet: Asset) -> None:
    infos = read_usd_kinematics(exported)
    assert [i["name"] for i in infos] == [j.name for j in cabinet.joints]
    for info, joint in zip(infos, cabinet.joints, strict=True):
        assert (info["type"], info["parent"], info["child"]) == (joint.type, joint.parent, joint.child)
        if joint.type == "fixed":
            assert info["axis"] is None and info["lower"] is None and info["upper"] is None
        else:
            np.testing.assert_allclose(info["axis"], joint.unit_axis, atol=1e-6)
            assert info["lower"] == pytest.approx(joint.lower, abs=1e-6)
            assert info["upper"] == pytest.approx(joint.upper, rel=1e-6)


# --------------------------------------------------------------------------------------------- foreign files

_FOREIGN = """#usda 1.0
(
    defaultPrim = "robot"
    metersPerUnit = 0.01
    upAxis = "Y"
)

def Xform "robot"
{
    def Xform "base" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
        double3 xformOp:translate = (10, 0, 0)
        float xformOp:rotateY = 90
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateY"]

        def Xform "arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
        {
            double3 xformOp:translate = (0, 50, 0)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
    }

    def PhysicsRevoluteJoint "elbow"
    {
        rel physics:body0 = </robot/base>
        rel physics:body1 = </robot/base/arm>
        uniform token physics:axis = "Z"
        point3f physics:localPos0 = (0, 50, 0)
        point3f physics:localPos1 = (0, 0, 0)
        float physics:lowerLimit = -90
        float physics:upperLimit = 45
    }

    def PhysicsPrismaticJoint "slide"
    {
        rel physics:body1 = </robot/base>
        uniform token physics:axis = "Y"
        float physics:upperLimit = 20
    }
    PLACEHOLDER
}
"""


def _foreign(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "foreign.usda"
    path.write_text(_FOREIGN.replace("PLACEHOLDER", extra))
    return path


def test_read_kinematics_of_a_foreign_y_up_centimetre_file(tmp_path: Path) -> None:
    elbow, slide = read_usd_kinematics(_foreign(tmp_path))
    assert (elbow["name"], elbow["type"], elbow["parent"], elbow["child"]) == ("elbow", "revolute", "base", "arm")
    # base is rotated 90° about Y (stage up): its Z axis points along stage +X, which stays +X in Z-up.
    np.testing.assert_allclose(elbow["axis"], [1.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(elbow["origin"], [0.1, 0.0, 0.5], atol=1e-6)  # stage (10, 50, 0) cm → Z-up m
    assert elbow["frame_gap"] < 1e-6
    assert (elbow["lower"], elbow["upper"]) == (pytest.approx(-math.pi / 2), pytest.approx(math.pi / 4))
    assert (slide["type"], slide["parent"], slide["child"]) == ("prismatic", None, "base")
    np.testing.assert_allclose(slide["axis"], [0.0, 0.0, 1.0], atol=1e-9)  # stage +Y is up
    assert slide["lower"] is None and slide["upper"] == pytest.approx(0.2)


@pytest.mark.parametrize(("extra", "message"), [
    ('def PhysicsSphericalJoint "ball" {\n rel physics:body0 = </robot/base>\n }', "PhysicsSphericalJoint"),
    ('def PhysicsFixedJoint "bad" {\n rel physics:body0 = </robot/nowhere>\n }', "/robot/nowhere, which does not"),
    ('def PhysicsFixedJoint "loose" {\n }', "neither physics:body0"),
    ('def PhysicsFixedJoint "zero" {\n rel physics:body0 = </robot/base>\n quatf physics:localRot0 = (0, 0, 0, 0)\n }',
     "localRot0"),
    ('def PhysicsRevoluteJoint "odd" {\n rel physics:body0 = </robot/base>\n uniform token physics:axis = "W"\n }',
     "physics:axis"),
])
def test_read_kinematics_names_the_bad_prim(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(AssetFormatError, match=message) as info:
        read_usd_kinematics(_foreign(tmp_path, extra))
    assert "joint prim /robot/" in str(info.value)


def test_read_kinematics_rejects_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(AssetFormatError, match="missing"):
        read_usd_kinematics(tmp_path / "none.usda")
    junk = tmp_path / "junk.usda"
    junk.write_text("this is not usd")
    with pytest.raises(AssetFormatError, match="not a readable USD file"):
        read_usd_kinematics(junk)


# --------------------------------------------------------------------------------------------- normals


def test_corner_normals_keep_box_edges_sharp_and_spheres_smooth() -> None:
    import trimesh

    cube = box([0, 0, 0], [1, 1, 1], uv=True)
    normals = usd_mod._corner_normals(cube)
    tri = cube.vertices[cube.faces]
    face_n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    face_n /= np.linalg.norm(face_n, axis=1, keepdims=True)
    np.testing.assert_allclose(normals, np.repeat(face_n, 3, axis=0), atol=1e-12)

    sphere = trimesh.creation.icosphere(subdivisions=3)
    mesh = Mesh(sphere.vertices, sphere.faces)
    normals = usd_mod._corner_normals(mesh)
    radial = mesh.vertices[mesh.faces.ravel()]
    radial /= np.linalg.norm(radial, axis=1, keepdims=True)
    assert np.min(np.einsum("ij,ij->i", normals, radial)) > 0.999


def test_alpha_map_drives_opacity_and_maps_without_uvs_fall_back(tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    asset = _two_box_asset("revolute", (0, 1, 0))
    rgba = np.zeros((4, 4, 4), np.uint8)
    rgba[..., 3] = 128
    lid = asset.part("lid")
    lid.mesh = box([-0.2, -0.2, 0.3], [0.2, 0.2, 0.32], uv=True)
    lid.material = PBRMaterial("glass", (1.0, 1.0, 1.0, 1.0), base_color_map=rgba)
    base = asset.part("base")
    base.material = PBRMaterial("painted", (0.2, 0.4, 0.6, 0.5), metallic=0.3, roughness=0.9,
                                metallic_roughness_map=np.zeros((4, 4, 3), np.uint8))
    with caplog.at_level("WARNING", logger="seed3d.export.usd"):
        path = export_usd(asset, tmp_path, usdz=False)
    assert "no UVs" in caplog.text
    stage = Usd.Stage.Open(str(path))
    glass = UsdShade.Shader(stage.GetPrimAtPath("/thing_1/Looks/glass/PreviewSurface"))
    tex, channel = _input_source(glass, "opacity")
    assert channel == "a" and tex.GetIdAttr().Get() == "UsdUVTexture"
    painted = UsdShade.Shader(stage.GetPrimAtPath("/thing_1/Looks/painted/PreviewSurface"))
    assert painted.GetInput("opacity").Get() == pytest.approx(0.5)
    assert painted.GetInput("metallic").Get() == pytest.approx(0.3)
    assert not painted.GetInput("roughness").HasConnectedSource()
    assert sorted(p.name for p in (tmp_path / "textures").iterdir()) == ["glass_base_color.png"]


def test_large_mesh_exports_quickly(tmp_path: Path) -> None:
    import time

    import trimesh

    sphere = trimesh.creation.icosphere(subdivisions=6)  # 81,920 faces
    mesh = Mesh(sphere.vertices * 0.2 + [0, 0, 0.2], sphere.faces)
    hull = Mesh(sphere.convex_hull.vertices * 0.2 + [0, 0, 0.2], sphere.convex_hull.faces)
    asset = Asset("ball", [Part("ball", mesh, collision=[hull],
                                inertial=Inertial(1.0, [0, 0, 0.2], np.eye(3) * 0.016))])
    start = time.perf_counter()
    path = export_usd(asset, tmp_path, usdz=False)
    assert time.perf_counter() - start < 20.0
    stage = Usd.Stage.Open(str(path))
    visual = UsdGeom.Mesh(stage.GetPrimAtPath("/ball/ball/visual"))
    normals = np.array(visual.GetNormalsAttr().Get())
    assert normals.shape == (3 * len(mesh.faces), 3)
    radial = sphere.vertices[sphere.faces.ravel()]
    assert np.min(np.einsum("ij,ij->i", normals, radial)) > 0.999  # smooth: one normal per position
