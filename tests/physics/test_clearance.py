"""Clearing collision hulls around moving parts: convex subtraction, drawer cavities, blocked paths, validation."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from seed3d.asset import Asset, Joint, Mesh, Part
from seed3d.export import export_asset
from seed3d.physics import _geometry as geo
from seed3d.physics.collision import (
    CollisionConfig,
    clear_moving_parts,
    penetration_bound,
    subtract_convex,
)
from seed3d.physics.validate import validate_path
from seed3d.synth.primitives import box, difference


def _box_points(lo: list[float], hi: list[float]) -> np.ndarray:
    return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])], float)


def _volume(points: np.ndarray) -> float:
    hull = geo.convex_hull(points)
    assert hull is not None
    return geo.signed_volume(*hull)


def test_penetration_bound_measures_overlap_and_gap() -> None:
    a = _box_points([0, 0, 0], [1, 1, 1])
    assert penetration_bound(a, _box_points([0.9, 0, 0], [2, 1, 1])) == pytest.approx(0.1)
    assert penetration_bound(a, _box_points([1.2, 0, 0], [2, 1, 1])) == pytest.approx(-0.2)


def test_subtract_convex_leaves_disjoint_pieces_outside_the_grown_obstacle() -> None:
    cube = _box_points([0, 0, 0], [1, 1, 1])
    corner = _box_points([0.6, 0.6, 0.6], [1.5, 1.5, 1.5])
    margin = 0.01
    pieces = subtract_convex(cube, corner, margin)
    assert 1 < len(pieces) <= 3
    for p in pieces:
        assert penetration_bound(p, corner) <= -margin + 1e-9
    # the pieces fill the cube but for the corner grown by the margin
    assert sum(_volume(p) for p in pieces) == pytest.approx(1 - 0.41 ** 3, rel=1e-6)


def test_subtract_convex_keeps_a_hull_it_does_not_touch() -> None:
    cube = _box_points([0, 0, 0], [1, 1, 1])
    (piece,) = subtract_convex(cube, _box_points([1.5, 0, 0], [2, 1, 1]), 0.01)
    assert piece is cube


def test_the_thin_piece_shortcut_never_drops_a_piece_that_holds_the_ball() -> None:
    """``_too_thin`` skips the linear program for pieces it shows hold no ball of the radius: over random hulls and
    planes it agrees with the program wherever it speaks, and it does speak."""
    from seed3d.physics.collision import _deepest_point, _normalised_planes, _too_thin

    rng = np.random.default_rng(0)
    said = 0
    for _ in range(40):
        hull = rng.normal(size=(30, 3))
        whole = geo.convex_hull(hull)
        own = _normalised_planes(hull)
        assert whole is not None and own is not None
        normals = rng.normal(size=(8, 3))
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        planes = np.concatenate([normals, rng.uniform(-0.5, 1.0, (8, 1))], axis=1)
        for radius in (0.01, 0.2):
            for i in range(len(planes)):
                inside = list(planes[:i])
                lp = np.concatenate([own, -planes[i][None, :], *(p[None, :] for p in inside)])
                if _too_thin(whole, planes[i], inside, radius):
                    said += 1
                    assert _deepest_point(lp)[1] < radius
    assert said > 20


def _cabinet(axis: tuple[float, float, float] = (1.0, 0.0, 0.0)) -> Asset:
    """A carved cabinet body whose single coarse hull fills its drawer cavity, and the drawer in the cavity."""
    body_mesh = difference(box([0, 0, 0], [0.4, 0.5, 0.3]), box([0.02, 0.02, 0.02], [0.45, 0.48, 0.28]))
    drawer_mesh = box([0.023, 0.023, 0.023], [0.4, 0.477, 0.277])
    hull = geo.convex_hull(body_mesh.vertices)
    assert hull is not None
    body = Part("body", body_mesh, label="body", collision=[Mesh(*hull)])
    drawer = Part("drawer", drawer_mesh, label="drawer", collision=[Mesh(*geo.convex_hull(drawer_mesh.vertices))])
    joint = Joint("drawer_slide", "prismatic", "body", "drawer", axis=np.array(axis), lower=0.0, upper=0.3)
    return Asset("cabinet", [body, drawer], [joint])


def _worst(asset: Asset, moved: np.ndarray | None = None) -> float:
    drawer = asset.part("drawer").collision[0].vertices + (0 if moved is None else moved)
    return max(penetration_bound(h.vertices, drawer) for h in asset.part("body").collision)


def test_a_drawer_slot_is_cleared_along_the_drawer_path() -> None:
    asset = _cabinet()
    assert _worst(asset) > 0.2  # the coarse hull swallows the drawer
    cleared = clear_moving_parts(asset, margin=1e-3, config=CollisionConfig(max_hulls=16))
    assert _worst(cleared) <= -1e-3 + 1e-9
    assert _worst(cleared, np.array([0.3, 0.0, 0.0])) <= 0.0  # pulled out, it still meets nothing
    body = cleared.part("body").collision
    # the walls keep their collision: the back panel, the floor and a side are still covered
    for point in ([0.01, 0.25, 0.15], [0.2, 0.25, 0.01], [0.2, 0.01, 0.15]):
        assert any(geo.max_excess(np.array([point]), h.vertices, h.faces) == 0 for h in body)
    info = cleared.metadata["physics"]["clearance"]["parts"]["body"]
    assert info["hulls_before"] == 1 and info["hulls_after"] == len(body) > 1
    assert asset.part("body").collision[0].vertices.shape == (8, 3)  # the input is not changed


def test_a_drawer_that_slides_into_a_wall_is_only_cleared_at_rest() -> None:
    cleared = clear_moving_parts(_cabinet(axis=(0.0, 1.0, 0.0)), margin=1e-3, config=CollisionConfig(max_hulls=16))
    assert _worst(cleared) <= 0.0
    # its path runs through the true side wall: the collision there stays, so the sweep still finds it
    assert _worst(cleared, np.array([0.0, 0.1, 0.0])) > 0.01


def test_a_part_inside_a_moving_part_cuts_that_part_instead() -> None:
    base = box([0, 0, 0], [0.3, 0.2, 0.01])
    lid = box([0, 0, 0.011], [0.3, 0.2, 0.03])
    plate = box([0.1, 0.05, 0.015], [0.2, 0.15, 0.016])  # 1 mm thin, inside the lid's slab
    parts = [Part(n, m, collision=[Mesh(*geo.convex_hull(m.vertices))]) for n, m in
             (("base", base), ("lid", lid), ("plate", plate))]
    joints = [Joint("lid_hinge", "revolute", "base", "lid", origin=np.array([0.0, 0.1, 0.011]),
                    axis=np.array([0.0, -1.0, 0.0]), lower=0.0, upper=1.5),
              Joint("plate_mount", "fixed", "base", "plate")]
    cleared = clear_moving_parts(Asset("box", parts, joints), config=CollisionConfig(max_hulls=16))
    plate_hull = cleared.part("plate").collision[0].vertices
    assert np.allclose(plate_hull, parts[2].collision[0].vertices)
    assert max(penetration_bound(h.vertices, plate_hull) for h in cleared.part("lid").collision) <= 0.0
    assert any("lies inside parts that move against it" in w for w in cleared.metadata["physics"]["warnings"])


def test_a_cleared_cabinet_passes_the_engines_clearance_checks(tmp_path: Path) -> None:
    def checks(asset: Asset, name: str) -> dict[str, str]:
        root = tmp_path / name
        asset.save(root)
        export_asset(asset, root, ("urdf",))
        report = validate_path(root)
        return {c.name: c.status for c in report.checks if c.name in ("urdf.interpenetration", "urdf.sweep")}

    from seed3d.physics import prepare

    asset = prepare(_cabinet())
    assert set(checks(asset, "coarse").values()) == {"fail"}
    cleared = clear_moving_parts(asset, config=CollisionConfig(max_hulls=16))
    assert set(checks(cleared, "cleared").values()) == {"pass"}


def test_a_door_swing_past_an_overhanging_top_is_cleared() -> None:
    """The hull of a body with an overhanging top covers the space in front of its face; a door hinged there swings
    through that space, which the true surface leaves free, so the hulls are cut along the swing."""
    from seed3d.asset import joint_motion
    from seed3d.synth.primitives import union

    body_mesh = union(box([0, 0, 0], [0.4, 0.5, 0.3]), box([0, 0, 0.3], [0.43, 0.5, 0.32]))
    door_mesh = box([0.401, 0.01, 0.01], [0.42, 0.49, 0.29])
    body = Part("body", body_mesh, collision=[Mesh(*geo.convex_hull(body_mesh.vertices))])
    door = Part("door", door_mesh, label="door", collision=[Mesh(*geo.convex_hull(door_mesh.vertices))])
    hinge = Joint("door_hinge", "revolute", "body", "door", origin=np.array([0.42, 0.49, 0.0]),
                  axis=np.array([0.0, 0.0, 1.0]), lower=0.0, upper=1.6)
    cleared = clear_moving_parts(Asset("cupboard", [body, door], [hinge]), config=CollisionConfig(max_hulls=16))

    def worst(asset: Asset, angle: float) -> float:
        m = joint_motion("revolute", hinge.axis, hinge.origin, angle)
        posed = asset.part("door").collision[0].vertices @ m[:3, :3].T + m[:3, 3]
        return max(penetration_bound(h.vertices, posed) for h in asset.part("body").collision)

    assert worst(Asset("cupboard", [body, door], [hinge]), math.radians(10)) > 0.005
    for degrees in (0, 2.5, 10, 45, 90):
        assert worst(cleared, math.radians(degrees)) <= 0.0
    # the top and the box behind the face keep their collision
    assert any(geo.max_excess(np.array([[0.42, 0.25, 0.31]]), h.vertices, h.faces) == 0
               for h in cleared.part("body").collision)


def _capped_bottle(round_cap: bool) -> tuple[Asset, list[np.ndarray]]:
    """A bottle whose single coarse hull fills the space round its neck, and a cap over the neck (a round ring, or
    a square one) whose collision is six convex pieces, each the hull of one sixth of the ring: their flat inner
    faces cut into the neck by about 2 mm. Returns the asset with a continuous joint about the neck and the pieces."""
    from seed3d.synth.primitives import cylinder, union

    bottle = union(cylinder(0.04, 0.15, 32, (0, 0, 1), (0, 0, 0)), cylinder(0.015, 0.03, 32, (0, 0, 1), (0, 0, 0.149)))
    outer = cylinder(0.02, 0.02, 48, (0, 0, 1), (0, 0, 0.16)) if round_cap else box([-0.02, -0.02, 0.16],
                                                                                       [0.02, 0.02, 0.18])
    cap = difference(outer, cylinder(0.0155, 0.016, 48, (0, 0, 1), (0, 0, 0.159)))
    angle = np.arctan2(cap.vertices[:, 1], cap.vertices[:, 0])
    pieces = []
    for k in range(6):
        lo, hi = -math.pi + k * math.pi / 3, -math.pi + (k + 1) * math.pi / 3
        arc = np.linspace(lo, hi, 5)
        inner = np.array([(0.0155 * math.cos(a), 0.0155 * math.sin(a), z) for a in arc for z in (0.16, 0.18)])
        if round_cap:
            outside = np.array([(0.02 * math.cos(a), 0.02 * math.sin(a), z) for a in arc for z in (0.16, 0.18)])
        else:
            outside = cap.vertices[(angle >= lo) & (angle <= hi)]
        pieces.append(geo.convex_hull(np.concatenate([inner, outside]))[0])
    hull = geo.convex_hull(bottle.vertices)
    assert hull is not None
    parts = [Part("body", bottle, label="body", collision=[Mesh(*hull)]),
             Part("cap", cap, label="lid", collision=[Mesh(*geo.convex_hull(p)) for p in pieces])]
    joint = Joint("cap_spin", "continuous", "body", "cap", origin=np.zeros(3), axis=np.array([0.0, 0.0, 1.0]))
    return Asset("bottle", parts, [joint]), pieces


def _turned_overlap(asset: Asset, pieces: list[np.ndarray], degrees: float) -> float:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return max(penetration_bound(h.vertices, p @ turn.T) for h in asset.part("body").collision for p in pieces)


def test_a_round_cap_is_cleared_over_a_full_turn_and_a_square_one_only_at_rest() -> None:
    """The cap's pieces turn into each other's gaps: cutting the body round them at rest leaves it in their way
    a few degrees on. A round cap spins onto itself, so the body is cut round its whole turn; a square one would
    sweep new space, so only its rest pose is cut and turning it still meets the body."""
    from seed3d.physics.collision import CONTACT_DEPTH

    asset, pieces = _capped_bottle(round_cap=True)
    assert _turned_overlap(asset, pieces, 0.0) > 1e-3
    cleared = clear_moving_parts(asset, margin=1e-3)
    for degrees in (0.0, 7.0, 20.0, 33.0, 45.0):
        assert _turned_overlap(cleared, pieces, degrees) <= CONTACT_DEPTH
    square, square_pieces = _capped_bottle(round_cap=False)
    cut = clear_moving_parts(square, margin=1e-3)
    assert _turned_overlap(cut, square_pieces, 0.0) <= CONTACT_DEPTH
    assert _turned_overlap(cut, square_pieces, 20.0) > CONTACT_DEPTH


def test_a_spinning_part_without_collision_hulls_cuts_nothing() -> None:
    asset, _ = _capped_bottle(round_cap=True)
    asset.part("cap").collision = []
    cleared = clear_moving_parts(asset, margin=1e-3)
    assert np.allclose(cleared.part("body").collision[0].vertices, asset.part("body").collision[0].vertices)
    assert cleared.metadata["physics"]["clearance"]["parts"] == {}


def test_a_turntable_is_cleared_over_its_whole_turn_not_only_to_contact_depth() -> None:
    """The joint hulls standing for a full turn dip under the true sweep between poses (by up to half the margin);
    a wall that overlaps them by less than ``CONTACT_DEPTH`` was left as 'contact', so the turning tray met it by
    nearly 1 mm and the spin check took the turntable for a revolute joint. On a full turn every overlap is cut."""
    from seed3d.physics import collision
    from seed3d.physics.collision import CONTACT_DEPTH
    from seed3d.synth.primitives import cylinder

    radius, margin = 0.14, 1e-3
    tray = cylinder(radius, 0.006, segments=192, at=(0.0, 0.0, 0.1))
    # a hull with one corner out at the tray's rim: the turn's joint hulls dip deepest under that corner's circle
    rim = np.array([(x, y, z) for x, y in ((radius, 0.0), (-0.02, -0.02), (-0.02, 0.02)) for z in (0.1, 0.106)])
    joint = Joint("turntable_spin", "continuous", "body", "turntable", origin=np.zeros(3),
                  axis=np.array([0.0, 0.0, 1.0]))
    swept = collision._paths(joint, [rim], margin)
    # the direction in which the joint hulls dip deepest under the circle the rim's corners sweep
    angles = np.radians(np.arange(0.0, 360.0, 0.05))
    reach = np.array([max(float((p[:, :2] @ [math.cos(a), math.sin(a)]).max()) for p in swept) for a in angles])
    a = float(angles[int(reach.argmin())])
    assert radius - reach.min() > 0.3 * margin  # the joint hulls fall short of the true sweep there
    depth = 0.6 * CONTACT_DEPTH  # the wall overlaps the joint hulls by less than contact depth
    u, v = np.array([math.cos(a), math.sin(a), 0.0]), np.array([-math.sin(a), math.cos(a), 0.0])
    near = reach.min() - depth
    wall = np.array([c + s * 0.05 * v + z for c in (near * u, (near + 0.05) * u) for s in (-1, 1)
                     for z in ((0, 0, 0.09), (0, 0, 0.12))])
    hull = geo.convex_hull(wall)
    assert hull is not None
    body = Part("body", Mesh(*hull), label="body", collision=[Mesh(*hull)])
    turntable = Part("turntable", tray, label="tray", collision=[Mesh(*geo.convex_hull(rim))])
    asset = Asset("microwave", [body, turntable], [joint])

    def worst(cleared: Asset) -> float:
        """Deepest overlap of the tray's hull, turned in 0.25° steps, with the body's hulls."""
        out = -np.inf
        for t in np.radians(np.arange(0.0, 360.0, 0.25)):
            c, s = math.cos(t), math.sin(t)
            turned = rim @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]).T
            out = max(out, max(penetration_bound(turned, h.vertices) for h in cleared.part("body").collision))
        return out

    assert worst(asset) > CONTACT_DEPTH  # as built, the turning rim runs into the wall
    # an upper bound on the overlap (no edge-edge axes): the spin check, which counts 0.5 mm, sees none
    assert worst(clear_moving_parts(asset, margin=margin)) <= 0.5 * CONTACT_DEPTH
