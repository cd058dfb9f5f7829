"""Household appliances and fixtures (PartNet-Mobility classes): lids, levers, trays, blades, sashes.

Bucket (a wire bail swinging over the rim), kettle (a flip lid hinged at the back, a rocker switch), toaster
(a carriage lever sliding in a groove, a browning dial, a cancel button), safe (a side-hinged door with a
combination dial and a turning handle), toilet (seat and lid on one hinge line, a flush lever or button), globe
(a ball spinning on a tilted axis in a meridian), wall clock (three hands turning on one arbor), desk fan (blades
spinning in a guard, a head that oscillates), display (a screen tilting in a yoke), printer (scanner lid, output
tray, paper cassette, buttons), pump dispenser, camera (zoom and focus rings, shutter, mode dial), espresso
machine (tank lid, drip tray, buttons), window (sliding sashes or hinged casements) and utility cart (castor
wheels, swivelling forks).

Every moving part keeps at least 1 mm from everything else at rest and over its range, and parts that are not
convex get exact convex collision pieces (ring sectors, arc segments, boxes), so the simulated clearances are the
visual ones. Parts that gravity would move with no spring to hold them (a toaster's lever, a pump head) rest on
their lower stop; a tilting screen turns about its centre of mass.
"""

from __future__ import annotations

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.collision import (
    annulus_sectors,
    arc_pieces,
    is_rectilinear,
    rectilinear_boxes,
    reduced_hull,
    ring_pieces,
    subtract_prism,
    wheel_hull,
)
from seed3d.synth.containers import vessel_profile
from seed3d.synth.core import AssetBuilder, Category, choice, finish_param, flag, frange, irange
from seed3d.synth.fixtures import button_pocket, dial, push_button
from seed3d.synth.materials import METAL_KINDS, finish
from seed3d.synth.primitives import (
    box,
    cylinder,
    cylinder_between,
    difference,
    hull,
    intersection,
    lathe,
    prism,
    rotation_about,
    rounded_box,
    signed_volume,
    sphere,
    torus,
    union,
)
from seed3d.typed import FloatArray


def _scaled(mesh: Mesh, sx: float, sy: float, sz: float = 1.0, at: FloatArray = (0.0, 0.0, 0.0)) -> Mesh:
    """``mesh`` scaled about the origin by (sx, sy, sz), then moved by ``at`` (an ellipse from a circle)."""
    m = np.diag([sx, sy, sz, 1.0])
    m[:3, 3] = at
    return mesh.transformed(m)


def _signed_area(poly: FloatArray) -> float:
    """The signed area of an XY polygon (positive counter-clockwise)."""
    x, y = np.asarray(poly, np.float64).T
    return float(0.5 * (x @ np.roll(y, -1) - y @ np.roll(x, -1)))


def _radius_at(profile: list[tuple[float, float]], z: float) -> float:
    """The radius of a lathe outline (r, z) points, z increasing, at height ``z`` (linear between points)."""
    rs, zs = zip(*profile, strict=True)
    return float(np.interp(z, zs, rs))


# --------------------------------------------------------------------------------------------- bucket


def build_bucket(b: AssetBuilder) -> None:
    """A tapered bucket with a rolled rim and two ears; a wire bail pivots in the ears and swings over the rim
    from one side to the other."""
    p = b.p
    H, Rt = p["height"], p["top_radius"]
    Rb = Rt * b.draw("taper")
    fin = b.draw("body_finish")
    metal = fin.kind in METAL_KINDS
    wall = 0.002 if metal else 0.003
    outer = [(Rb * 0.97, 0.0), (Rb, 0.006), (Rt, H)]
    body = lathe(vessel_profile(outer, wall, 0.006), 64)
    bead = torus(Rt + 0.001, 0.004, 64, 12, at=(0, 0, H - 0.003))
    z_e = H - b.draw("ear_drop")
    r_e = _radius_at(outer[1:], z_e)
    ear_len, r_hole, r_pin = 0.016, 0.004, 0.0025
    ears, holes = [], []
    for s in (-1.0, 1.0):
        ears.append(cylinder(0.009, ear_len + 0.006, 32, (0, s, 0), (0, s * (r_e - 0.006), z_e)))
        holes.append(cylinder(r_hole, ear_len, 24, (0, s, 0), (0, s * (r_e + 0.003), z_e)))
    cavity = lathe([(0, 0.006), (Rb - wall, 0.006), (Rt - wall, H), (Rt - wall, H + 0.05), (0, H + 0.05)], 64)
    body = difference(union(body, bead, *ears), cavity, *holes)
    # collision: the wall and the bead as ring sectors, the floor, and the ears as solid bosses (the bail's
    # collision leaves out its pins, which turn inside them)
    pieces = (ring_pieces([(Rb, 0.006), (Rt, H), (Rt - wall, H), (Rb - wall, 0.006)])
              + ring_pieces([(Rt - wall, H - 0.007), (Rt + 0.005, H - 0.007), (Rt + 0.005, H + 0.001),
                              (Rt - wall, H + 0.001)], 24)  # 24: the body keeps within 64 hulls
              + [reduced_hull(cylinder(Rb, 0.006, 32)), *[reduced_hull(e) for e in ears]])
    root = b.add("body", body, "body", fin, physical="sheet_metal" if metal else None, collision=pieces)
    # the bail: a half-circle of wire over the rim, its pins turning in the ears' holes
    hfin = b.draw("handle_finish")
    r_w = 0.003
    y_leg = r_e + ear_len + 0.002 + r_w
    arc = intersection(torus(y_leg, r_w, 96, 12, direction=(1, 0, 0), at=(0, 0, z_e)),
                       box([-0.05, -y_leg - 0.01, z_e], [0.05, y_leg + 0.01, z_e + y_leg + 0.01]))
    pins = [cylinder(r_pin, y_leg - r_e - 0.0045, 24, (0, s, 0), (0, s * (r_e + 0.0045), z_e)) for s in (-1, 1)]
    bail = union(arc, *pins)
    swing = float(np.deg2rad(b.draw("bail_swing")))
    b.add("handle", bail, "handle", hfin, root, "lid", origin=[0, 0, z_e], axis=[0, 1, 0], lower=-swing, upper=swing,
          physical="steel", joint_name="handle_pivot",
          collision=arc_pieces([0, 0, z_e], y_leg, r_w, 0.0, np.pi, [1, 0, 0], [0, 1, 0]))
    extras = ["a wire bail handle that swings over the rim from side to side", "a rolled rim"]
    grip = b.draw("grip")
    mats = {"body": fin, "handle": hfin}
    if grip:
        gfin = b.draw("grip_finish")
        sleeve = intersection(torus(y_leg, 0.0075, 96, 16, direction=(1, 0, 0), at=(0, 0, z_e)),
                              box([-0.02, -0.055, z_e + 0.5 * y_leg], [0.02, 0.055, z_e + y_leg + 0.02]))
        sleeve = difference(sleeve, torus(y_leg, r_w, 96, 12, direction=(1, 0, 0), at=(0, 0, z_e)))
        b.add("grip", sleeve, "handle", gfin, "handle", origin=[0, 0, z_e + y_leg],
              collision=arc_pieces([0, 0, z_e], y_leg, 0.0075, np.pi / 2 - 0.05 / y_leg * 1.05,
                                    np.pi / 2 + 0.05 / y_leg * 1.05, [1, 0, 0], [0, 1, 0], 6))
        mats["grip"] = gfin
        extras.append("a plastic grip on the bail")
    b.attributes.update({"materials": mats, "extras": extras})


# --------------------------------------------------------------------------------------------- kettle


def build_kettle(b: AssetBuilder) -> None:
    """An electric jug kettle on its power base: a flip lid hinged at the back over the handle, a pouring lip
    at the front and a rocker switch under the handle."""
    p = b.p
    H, R = p["height"], p["radius"]
    Rt = R * b.draw("taper")
    fin = b.draw("body_finish")
    base_fin = b.draw("base_finish")
    metal = fin.kind in METAL_KINDS
    wall = 0.0015 if metal else 0.0025
    hb = 0.022
    base = lathe([(0, 0), (R + 0.012, 0), (R + 0.012, hb * 0.7), (R + 0.004, hb), (0, hb)], 64)
    root = b.add("base", base, "base", base_fin, physical="electronics")
    z0 = hb + 0.001  # the jug stands on its base (fixed, touching)
    tl = 0.01
    Hj = H - tl - 0.003 - 0.012  # the lid, its gap and its tab on top
    outer = [(R * 0.97, z0), (R, z0 + 0.006), (Rt, Hj)]
    jug = lathe(vessel_profile([(r, z - z0) for r, z in outer], wall, 0.004), 64).translated([0, 0, z0])
    cavity = lathe([(0, z0 + 0.004), (R - wall, z0 + 0.006), (Rt - wall, Hj), (Rt - wall, Hj + 0.05),
                    (0, Hj + 0.05)], 64)
    # handle at the back: two arms and a grip, below the rim so the opened lid stands clear above it
    reach = b.draw("handle_reach")
    r_top = _radius_at(outer[1:], Hj - 0.02)
    r_bot = _radius_at(outer[1:], z0 + 0.05)
    xg = -(max(r_top, r_bot) + reach)
    t = 0.012
    top_arm = box([xg - t / 2, -t, Hj - 0.03], [-r_top + 0.004, t, Hj - 0.012])
    low_arm = box([xg - t / 2, -t, z0 + 0.04], [-r_bot + 0.004, t, z0 + 0.058])
    grip = cylinder_between([xg, 0, z0 + 0.045], [xg, 0, Hj - 0.02], t, 24)
    # a pouring lip at the front, below the rim
    lip = hull(np.array([[Rt - 0.01, -0.022, Hj - 0.045], [Rt - 0.01, 0.022, Hj - 0.045],
                         [Rt - 0.004, -0.024, Hj - 0.002], [Rt - 0.004, 0.024, Hj - 0.002],
                         [Rt + 0.028, -0.008, Hj - 0.004], [Rt + 0.028, 0.008, Hj - 0.004]]))
    body = difference(union(jug, top_arm, low_arm, grip, lip), cavity)
    pieces = (ring_pieces([(R, z0 + 0.006), (Rt, Hj), (Rt - wall, Hj), (R - wall, z0 + 0.006)])
              + [reduced_hull(cylinder(R, 0.006, 32, at=(0, 0, z0))), top_arm, low_arm, reduced_hull(grip),
                 reduced_hull(lip)])
    body_name = b.add("body", body, "body", fin, root, origin=[0, 0, z0], collision=pieces)
    # lid: a disc over the rim hinged at the back (next to the handle), a tab at the front to lift it by
    g = 0.003
    lfin = b.derive("lid_finish", fin)
    zl = Hj + g
    lid = union(cylinder(Rt + 0.002, tl, 64, at=(0, 0, zl)),
                box([Rt - 0.03, -0.012, zl + tl - 0.001], [Rt - 0.005, 0.012, zl + tl + 0.012]))
    up = float(np.deg2rad(b.draw("lid_swing")))
    b.add("lid", lid, "lid", lfin, body_name, "lid", origin=[-(Rt + 0.002), 0, zl], axis=[0, -1, 0], upper=up,
          physical="sheet_metal" if lfin.kind in METAL_KINDS else None)
    # a rocker switch hanging under the lower arm: a round top turning on its pin, a paddle below
    sfin = b.draw("switch_finish")
    xs = -r_bot - 0.02
    pz = z0 + 0.04 - 0.0015 - 0.004
    rocker = union(cylinder(0.004, 0.016, 24, (0, 1, 0), (xs, -0.008, pz)),
                   box([xs - 0.004, -0.008, pz - 0.012], [xs + 0.004, 0.008, pz]))
    b.add("switch", rocker, "lever", sfin, body_name, "lever", origin=[xs, 0, pz], axis=[0, 1, 0], lower=-0.3,
          upper=0.3, joint_name="switch_rocker")
    mats = {"body": fin, "base": base_fin}
    if lfin != fin:
        mats["lid"] = lfin
    b.attributes.update({"materials": mats, "lid": {"type": "hinged at the back",
                                                    "opens_deg": round(float(np.rad2deg(up)))},
                         "extras": ["a handle at the back", "a pouring lip at the front",
                                    "a rocker switch under the handle", "a round power base"]})


# --------------------------------------------------------------------------------------------- toaster


def build_toaster(b: AssetBuilder) -> None:
    """A pop-up toaster: bread slots on top, a carriage lever that slides up and down a groove in the front
    (at rest it is down, on its stop), a browning dial and a cancel button, on four rubber feet."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    fin = b.draw("body_finish")
    cfin = b.draw("control_finish")
    hf = 0.008
    shell = rounded_box([-D / 2, -W / 2, hf], [D / 2, W / 2, H], 0.018, 4)
    n = p["slots"]
    sw = b.draw("slot_width")
    sl = W - 0.085 if n == 2 else (W - 0.11) / 2
    rows = [-0.5 * sw - 0.012, 0.5 * sw + 0.012]
    cols = [(-sl / 2 - 0.02, sl / 2 - 0.02)] if n == 2 else [(-W / 2 + 0.035, -W / 2 + 0.035 + sl),
                                                             (W / 2 - 0.075 - sl, W / 2 - 0.075)]
    slots = [box([x - sw / 2, y0, hf + 0.035], [x + sw / 2, y1, H + 0.01]) for x in rows for y0, y1 in cols]
    # a groove in the front at the right end for the lever's stem
    yl = W / 2 - 0.04
    travel = 0.4 * (H - hf)
    z_top = H - 0.035
    z_bot = z_top - travel
    fx = D / 2
    groove = box([fx - 0.012, yl - 0.005, z_bot - 0.012], [fx + 0.01, yl + 0.005, z_top + 0.004])
    # the dial and the cancel button beside the lever's groove, towards the middle
    yd = yl - 0.055
    zd = hf + 0.45 * (H - hf)
    zb = zd - 0.045
    pocket = button_pocket([fx, yd, zb], (0.014, 0.008), 0.008, 0.0015)
    body = difference(shell, *slots, groove, pocket)
    # collision: the same cuts from the square-edged box (its corners stand at most 5 mm out of the rounded ones)
    pieces = rectilinear_boxes(difference(box([-D / 2, -W / 2, hf], [D / 2, W / 2, H]), *slots, groove, pocket))
    feet = [cylinder(0.009, hf + 0.001, 16, at=(x, y, 0)) for x in (-D / 2 + 0.025, D / 2 - 0.025)
            for y in (-W / 2 + 0.03, W / 2 - 0.03)]
    root = b.add("body", body, "body", fin, physical="appliance_shell", collision=pieces)
    b.add("feet", union(*feet), "leg", finish("rubber", "black"), root, origin=[0, 0, 0],
          collision=[reduced_hull(f) for f in feet])
    stem = box([fx - 0.0085, yl - 0.0025, z_top - 0.008], [fx + 0.005, yl + 0.0025, z_top])
    # the lever rests at the bottom of its groove (the carriage down): the spring that lifts a real one is not
    # modelled, and a lever resting on its lower stop stays where it is; it slides up the groove to the top
    stem = box([fx - 0.0085, yl - 0.0025, z_bot - 0.008], [fx + 0.005, yl + 0.0025, z_bot])
    paddle = rounded_box([fx + 0.003, yl - 0.02, z_bot - 0.014], [fx + 0.022, yl + 0.02, z_bot + 0.002], 0.004, 2)
    b.add("lever", union(stem, paddle), "lever", cfin, root, "slide", origin=[fx, yl, z_bot], axis=[0, 0, 1],
          upper=travel, joint_name="lever_slide", collision=[stem, reduced_hull(paddle)])
    b.add("dial", dial([fx + 0.0015, yd, zd], 0.016, 0.014), "knob", cfin, root, "spin", origin=[fx + 0.0015, yd, zd],
          axis=[1, 0, 0], joint_name="dial_spin")
    btn = push_button([fx, yd, zb], (0.014, 0.008), 0.004, 0.003)
    b.add("cancel_button", btn, "button", b.draw("button_finish"), root, "button", origin=[fx, yd, zb],
          axis=[-1, 0, 0], upper=0.003)
    b.attributes.update({"materials": {"body": fin, "controls": cfin}, "dials": 1, "buttons": 1,
                         "extras": [f"{'two' if n == 2 else 'four'} bread slots on top",
                                    "a carriage lever that slides up and down a groove in the front",
                                    "rubber feet"]})


# --------------------------------------------------------------------------------------------- safe


def build_safe(b: AssetBuilder) -> None:
    """A steel safe: a thick-walled box, a door hinged on one side with a combination dial and a handle that
    turns to throw the bolts."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    fin = b.draw("body_finish")
    t = b.draw("wall")
    td = b.draw("door_thickness")
    g = 0.003
    x0, xf = -D / 2, D / 2
    # the door sits inset in the front opening, flush with the walls round it
    body = difference(box([x0, -W / 2, 0], [xf, W / 2, H]), box([x0 + t, -W / 2 + t, t], [xf + 0.01, W / 2 - t, H - t]))
    shelf_z = t + 0.55 * (H - 2 * t)
    shelf = box([x0 + t, -W / 2 + t, shelf_z], [xf - td - 0.02, W / 2 - t, shelf_z + 0.006])
    root = b.add("body", union(body, shelf), "body", fin, physical="steel")
    left = p["hinge"] == "left"
    yd0, yd1 = -W / 2 + t + g, W / 2 - t - g
    # the door's back edge on the free side is rounded about the hinge line, as on a real safe door: turning, no
    # point of it goes further from the hinge than the door's width (a square edge would swing into the jamb)
    Wd = yd1 - yd0
    phi = np.linspace(0.0, np.arcsin(td / Wd), 9)
    prof = np.concatenate([[[xf, 0.0]], np.stack([xf - Wd * np.sin(phi), Wd * np.cos(phi)], 1), [[xf - td, 0.0]]])
    poly = np.stack([prof[:, 0], yd0 + prof[:, 1] if left else yd1 - prof[:, 1]], 1)
    if _signed_area(poly) < 0:
        poly = poly[::-1]
    door = prism(poly, t + g, H - t - g)
    up = float(np.deg2rad(b.draw("swing")))
    dfin = b.derive("door_finish", fin)
    door_name = b.add("door", door, "door", dfin, root, "hinge", origin=[xf, yd0 if left else yd1, t + g],
                      axis=[0, 0, -1] if left else [0, 0, 1], upper=up, physical="steel",
                      collision=[reduced_hull(door)])
    face = xf
    hfin = b.draw("handle_finish")
    # the dial at the door's middle, the handle beside it towards the free edge, a full turn of it apart
    away = 1.0 if left else -1.0
    rd = float(np.clip(0.09 * min(W, H), 0.025, 0.045))
    spoke = float(np.clip(0.13 * W, 0.045, 0.08))
    yc = (yd0 + yd1) / 2 - away * 0.03
    zd = 0.55 * H
    b.add("dial", dial([face + 0.0015, yc, zd], rd, 0.018), "knob", hfin, door_name, "spin",
          origin=[face + 0.0015, yc, zd], axis=[1, 0, 0], joint_name="dial_spin")
    yh = yc + away * (rd + spoke + 0.03)
    hub = cylinder(0.016, 0.03, 32, (1, 0, 0), (face + 0.0015, yh, zd))
    if p["handle_style"] == "spokes":
        ends = [[face + 0.022, yh + spoke * np.cos(a), zd + spoke * np.sin(a)]
                for a in np.pi / 2 + np.arange(3) * 2 * np.pi / 3]
        grip = union(hub, *[cylinder_between([face + 0.022, yh, zd], e, 0.007, 16) for e in ends],
                     *[sphere(0.011, e, 16) for e in ends])
    else:  # a bar pointing back towards the dial
        grip = union(hub, box([face + 0.018, min(yh, yh - away * spoke), zd - 0.008],
                              [face + 0.03, max(yh, yh - away * spoke), zd + 0.008]))
    b.add("handle", grip, "handle", hfin, door_name, "lever", origin=[face + 0.0015, yh, zd], axis=[1, 0, 0],
          upper=np.pi / 2, joint_name="handle_turn")
    b.attributes.update({
        "materials": {"body": fin, "handles": hfin} | ({"door": dfin} if dfin != fin else {}),
        "doors": [{"position": "front", "hinge": p["hinge"], "window": False, "opens_deg": round(np.rad2deg(up))}],
        "dials": 1, "handles": {"style": "lever", "count": 1} if p["handle_style"] == "lever" else None,
        "extras": ["a combination dial"] + (["a three-spoke handle wheel that throws the bolts"]
                                            if p["handle_style"] == "spokes" else [])
        + [f"walls {round(t * 1000)} mm thick", "a shelf inside"]})


# --------------------------------------------------------------------------------------------- toilet


def build_toilet(b: AssetBuilder) -> None:
    """A close-coupled toilet: a ceramic bowl on its pedestal, a cistern behind it with a flush lever or push
    button, and a seat and lid on one hinge line that lift up and back against the cistern."""
    p = b.p
    a_r, b_r = p["bowl_length"] / 2, p["bowl_width"] / 2
    Hr = p["rim_height"]
    fin = b.draw("body_finish")
    xb = 0.0
    # bowl: a revolved outline squashed to an oval, hollowed from the rim down to the trap
    outer = lathe([(0, 0), (0.56, 0), (0.6, 0.2), (0.78, 0.5), (0.95, 0.82), (1.0, 1.0), (0, 1.0)], 64)
    bowl = _scaled(outer, a_r, b_r, Hr, (xb, 0, 0))
    inner = lathe([(0, 0.35), (0.3, 0.35), (0.75, 0.75), (0.9, 0.97), (0.9, 1.2), (0, 1.2)], 64)
    cavity = _scaled(inner, a_r, b_r, Hr, (xb + 0.02, 0, 0))
    ts, tl, g = 0.022, 0.02, 0.003
    x_h = xb - a_r - 0.03  # the hinge line, behind the bowl's rim
    swing = float(np.deg2rad(b.draw("lid_swing")))
    zs = Hr + g
    T = ts + g + tl
    tank_h = b.draw("tank_height")
    z_t0 = Hr - 0.06
    # the cistern's front stands clear of the raised seat and lid: at the height of the cistern lid's top, the
    # back of the raised stack (its face T from the hinge line) is at x_back
    z_top = z_t0 + tank_h + 0.025 - zs
    reach = (z_top - T * np.cos(swing)) / np.sin(swing)
    x_back = x_h + reach * np.cos(swing) - T * np.sin(swing)
    flush = p["flush"]
    # the cistern lid overhangs the cistern by 5 mm; a flush lever stands 13 mm out of its front
    x_tf = min(x_h, x_back) - 0.005 - 0.006 - (0.014 if flush == "lever" else 0.0)
    tank_d = b.draw("tank_depth")
    tank_w = b.draw("tank_width")
    # a deck behind the rim carries the hinge posts; the cistern stands on a lower shelf behind the hinge line,
    # where the raised seat and lid lean; both go down to the floor as the back of the pedestal
    deck_front = rounded_box([x_h - 0.002, -0.1, 0], [xb - a_r * 0.5, 0.1, Hr], 0.01, 2)
    deck_back = rounded_box([x_tf - tank_d + 0.02, -0.1, 0], [x_h - 0.001, 0.1, z_t0 + 0.001], 0.01, 2)
    deck = union(deck_front, deck_back)
    posts = [cylinder(0.009, 0.018, 24, (0, 1, 0), (x_h, s * 0.062 - (0.018 if s < 0 else 0), zs))
             for s in (-1, 1)]
    body = difference(union(bowl, deck, *posts), cavity)
    # collision: the pedestal below the bowl's floor, the bowl's wall as oval sectors in two bands, the decks
    # and the hinge posts
    out_rz = [(0.56, 0.0), (0.6, 0.2), (0.78, 0.5), (0.95, 0.82), (1.0, 1.0)]
    in_rz = [(0.3, 0.35), (0.75, 0.75), (0.9, 0.97), (0.9, 1.2)]
    pieces = [reduced_hull(_scaled(lathe([(0, 0), (0.56, 0), (0.6, 0.2), (0.66, 0.35), (0, 0.35)], 32), a_r, b_r, Hr,
                                   (xb, 0, 0)))]
    sectors = 18  # three bands of 18 and five more pieces: within the GPU simulators' 64 hulls a part
    for z0_, z1_ in ((0.35, 0.6), (0.6, 0.82), (0.82, 1.0)):
        for k in range(sectors):
            pts = []
            for t in 2 * np.pi * np.array([k, k + 1]) / sectors:
                for z in (z0_, z1_):
                    ro = _radius_at([(r, zz) for r, zz in out_rz], z)
                    ri = _radius_at([(r, zz) for r, zz in in_rz], z)
                    pts.append([xb + a_r * ro * np.cos(t), b_r * ro * np.sin(t), Hr * z])
                    pts.append([xb + 0.02 + a_r * ri * np.cos(t), b_r * ri * np.sin(t), Hr * z])
            pieces.append(hull(np.array(pts)))
    pieces += [reduced_hull(m) for m in (deck_front, deck_back, *posts)]
    root = b.add("bowl", body, "body", fin, physical="ceramic", collision=pieces)
    tank_in = box([x_tf - tank_d + 0.012, -tank_w / 2 + 0.012, z_t0 + 0.03],
                  [x_tf - 0.012, tank_w / 2 - 0.012, z_t0 + tank_h + 0.01])
    tank = difference(rounded_box([x_tf - tank_d, -tank_w / 2, z_t0], [x_tf, tank_w / 2, z_t0 + tank_h], 0.012, 3),
                      tank_in)
    tank_pieces = rectilinear_boxes(difference(box([x_tf - tank_d, -tank_w / 2, z_t0],
                                                   [x_tf, tank_w / 2, z_t0 + tank_h]), tank_in))
    tank_top = z_t0 + tank_h
    cover = rounded_box([x_tf - tank_d - 0.005, -tank_w / 2 - 0.005, tank_top],
                        [x_tf + 0.005, tank_w / 2 + 0.005, tank_top + 0.025], 0.008, 2)
    xbtn = x_tf - tank_d / 2
    cover_pieces = [reduced_hull(cover)]
    if flush == "button":
        cover = difference(cover, cylinder(0.024, 0.03, 32, at=(xbtn, 0, tank_top + 0.006)))
        coarse = cylinder(0.024 / np.cos(np.pi / 8), 0.03, 8, at=(xbtn, 0, tank_top + 0.006))
        cover_pieces = subtract_prism(cover_pieces, coarse, (0, 0, 1))
    b.add("cistern", tank, "body", fin, root, origin=[x_tf - tank_d / 2, 0, z_t0], physical="ceramic",
          collision=tank_pieces)
    b.add("cistern_lid", cover, "top", fin, "cistern", origin=[x_tf - tank_d / 2, 0, tank_top], physical="ceramic",
          collision=cover_pieces)
    sfin = b.draw("seat_finish")
    # seat: an oval ring with a tab back to the hinge; lid: an oval plate over it, hinged on the same line
    ring_o = _scaled(cylinder(1.0, ts, 64), a_r + 0.01, b_r + 0.01, 1.0, (xb, 0, zs))
    ring_i = _scaled(cylinder(1.0, ts + 0.02, 64), a_r * 0.62, b_r * 0.6, 1.0, (xb + 0.025, 0, zs - 0.01))
    seat = union(difference(ring_o, ring_i), box([x_h, -0.05, zs], [xb - a_r * 0.8, 0.05, zs + ts]))
    seat_name = b.add("seat", seat, "seat", sfin, root, "lid", origin=[x_h, 0, zs], axis=[0, -1, 0], upper=swing,
                      physical="plastic", joint_name="seat_hinge")
    zl = zs + ts + g
    lid = union(_scaled(cylinder(1.0, tl, 64), a_r + 0.012, b_r + 0.012, 1.0, (xb, 0, zl)),
                box([x_h, -0.05, zl], [xb - a_r * 0.8, 0.05, zl + tl]))
    b.add("lid", lid, "lid", sfin, seat_name, "lid", origin=[x_h, 0, zl], axis=[0, -1, 0], upper=swing,
          physical="plastic", joint_name="lid_hinge")
    if flush == "button":
        btn = cylinder(0.0215, 0.015, 32, at=(xbtn, 0, tank_top + 0.013))
        b.add("flush_button", btn, "button", b.draw("flush_finish"), "cistern_lid", "button",
              origin=[xbtn, 0, tank_top + 0.025], axis=[0, 0, -1], upper=0.006)
        extra = "a push button on the cistern lid"
    else:
        hy = -tank_w / 2 + 0.05
        hz = tank_top - 0.045
        hub = cylinder(0.012, 0.012, 24, (1, 0, 0), (x_tf + 0.0015, hy, hz))
        arm = box([x_tf + 0.006, hy, hz - 0.006], [x_tf + 0.013, hy + 0.065, hz + 0.006])
        b.add("flush_lever", union(hub, arm), "lever", b.draw("flush_finish"), "cistern", "lever",
              origin=[x_tf + 0.0015, hy, hz], axis=[1, 0, 0], upper=0.6)
        extra = "a flush lever on the cistern"
    b.attributes.update({"materials": {"body": fin, "seat": sfin},
                         "extras": ["a seat and a lid that lift up and back", extra, "an oval bowl"]})


# --------------------------------------------------------------------------------------------- globe


def build_globe(b: AssetBuilder) -> None:
    """A desk globe: a ball spinning on an axis tilted like the Earth's, its axle pins turning in the bosses of a
    half meridian that runs under the ball to a post on a round foot."""
    p = b.p
    R = p["radius"]
    tau = float(np.deg2rad(b.draw("tilt")))
    mfin = b.draw("stand_finish")
    bfin = b.draw("base_finish")
    rb = b.draw("base_radius")
    hb = 0.022
    post = b.draw("post_height")
    r_t, gap = 0.0055, 0.01
    Rm = R + gap + r_t
    Hc = hb + post + Rm
    # built about +Z through the centre, then tilted about X so that the north pole leans towards +Y
    arc = intersection(torus(Rm, r_t, 96, 12, direction=(1, 0, 0)), box([-0.02, 0, -Rm - 0.02], [0.02, Rm + 0.02,
                                                                                                 Rm + 0.02]))
    top = R + 0.004
    boss_len = Rm + r_t + 0.004 - top
    bosses = [cylinder(0.008, boss_len, 32, (0, 0, s), (0, 0, s * top)) for s in (-1, 1)]
    holes = [cylinder(0.0035, boss_len - 0.0025 + 0.001, 24, (0, 0, s), (0, 0, s * (top - 0.001))) for s in (-1, 1)]
    meridian = difference(union(arc, *bosses), *holes)
    pins = [cylinder(0.002, Rm + r_t - R + 0.005, 16, (0, 0, s), (0, 0, s * (R - 0.005))) for s in (-1, 1)]
    ball = union(sphere(R, (0, 0, 0), 64), *pins)
    tilt = rotation_about([1, 0, 0], -tau, [0, 0, 0])
    tilt[:3, 3] = [0, 0, Hc]
    foot = lathe([(0, 0), (rb, 0), (rb, hb * 0.5), (rb * 0.75, hb), (0, hb)], 64)
    stem = cylinder(0.009, post + r_t, 32, at=(0, 0, hb - 0.001))
    root = b.add("base", foot, "base", bfin)
    # collision: the meridian as short straight tubes, the bosses solid (the ball's collision is the ball alone;
    # its pins turn inside the bosses)
    stand_pieces = [c.transformed(tilt) for c in [*arc_pieces([0, 0, 0], Rm, r_t, -np.pi / 2, np.pi / 2, [1, 0, 0],
                                                               [0, 1, 0], 24), *[reduced_hull(x) for x in bosses]]]
    b.add("stand", union(meridian.transformed(tilt), stem), "frame", mfin, root, origin=[0, 0, hb],
          collision=[*stand_pieces, reduced_hull(stem)])
    axis = tilt[:3, :3] @ np.array([0.0, 0.0, 1.0])
    b.add("globe", ball.transformed(tilt), "other", b.draw("globe_finish"), "stand", "spin", origin=[0, 0, Hc],
          axis=axis, physical="foam", joint_name="globe_spin",
          collision=[reduced_hull(sphere(R, (0, 0, 0), 64).transformed(tilt))])
    b.attributes.update({"materials": {"base": bfin, "stand": mfin},
                         "extras": [f"a {round(2 * R * 100)} cm ball that spins on an axis tilted "
                                    f"{float(np.rad2deg(tau)):.1f} degrees", "a half meridian on a post"]})


# --------------------------------------------------------------------------------------------- clock


def build_clock(b: AssetBuilder) -> None:
    """A round wall clock: a case with a recessed dial and hour marks, and hour, minute and second hands turning
    on one arbor in front of the dial."""
    p = b.p
    R, d = p["radius"], p["depth"]
    fin = b.draw("body_finish")
    rim = b.draw("rim_width")
    Rf = R - rim
    f = d - 0.012  # the dial's face, 12 mm behind the case's front
    # built about +Z (front) and turned to face +X; 12 o'clock is local -X, 3 o'clock local +Y
    case = difference(lathe([(0, 0), (R * 0.96, 0), (R, 0.006), (R, d), (0, d)], 96),
                      cylinder(Rf, 0.02, 96, at=(0, 0, f - 0.002)))
    arbor = cylinder(0.0015, 0.0095, 16, at=(0, 0, f - 0.001))
    to_front = np.eye(4)
    to_front[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]
    # collision: a back plate and a rim of sectors whose polygon has a flat at the bottom (local +X is down), so
    # that the clock stands on its edge instead of rolling; the arbor
    phase = np.pi / 48
    plate = lathe([(0, 0), (R, 0), (R, f - 0.002), (0, f - 0.002)], 48, phase)
    case_pieces = [reduced_hull(plate), *annulus_sectors(Rf, R, f - 0.002, d, 48, 24, phase), reduced_hull(arbor)]
    root = b.add("case", union(case, arbor).transformed(to_front), "body", fin,
                 collision=[c.transformed(to_front) for c in case_pieces])
    marks = []
    for k in range(12):
        a = 2 * np.pi * k / 12
        long = 0.14 if k % 3 == 0 else 0.08
        m = box([-Rf * 0.92, -0.003 if k % 3 else -0.005, f - 0.0005], [-Rf * (0.92 - long), 0.003 if k % 3 else
                                                                        0.005, f + 0.001])
        marks.append(m.transformed(rotation_about([0, 0, 1], -a, [0, 0, 0])))
    mkfin = b.draw("hand_finish")
    b.add("marks", union(*marks).transformed(to_front), "other", mkfin, root, origin=[f, 0, 0],
          collision=[reduced_hull(m).transformed(to_front) for m in marks])
    face_fin = b.draw("dial_finish")
    face = cylinder(Rf, 0.002, 96, at=(0, 0, f - 0.002))
    b.add("dial", face.transformed(to_front), "panel", face_fin, root, origin=[f - 0.002, 0, 0])
    hole = cylinder(0.003, 0.02, 16, at=(0, 0, f - 0.005))
    hours, minutes = b.draw("time_hours"), b.draw("time_minutes")
    hands = (("hour_hand", 0.52, 0.0045, 0.0015, 0.0015, (hours + minutes / 60) / 12),
             ("minute_hand", 0.8, 0.003, 0.0045, 0.0015, minutes / 60),
             ("second_hand", 0.86, 0.001, 0.0075, 0.001, 0.5))
    for name, frac, w, z0, t, turn in hands:
        tail = 0.18 * Rf if name == "second_hand" else 0.08 * Rf
        blade = box([-frac * Rf, -w, f + z0], [tail, w, f + z0 + t])
        hub = cylinder(0.006 if name != "second_hand" else 0.0045, t, 24, at=(0, 0, f + z0))
        turned = rotation_about([0, 0, 1], -2 * np.pi * turn, [0, 0, 0])
        hand = difference(union(blade, hub), hole).transformed(turned)
        # collision: the blade and the tail beyond the arbor's hole (the hub ring is left out)
        pieces = [box([-frac * Rf, -w, f + z0], [-0.0045, w, f + z0 + t]),
                  box([0.0045, -w, f + z0], [tail, w, f + z0 + t])]
        # the movement's friction holds a hand where it is set (an unbalanced hand would swing down)
        b.add(name, hand.transformed(to_front), "other", mkfin if name != "second_hand" else b.draw("second_finish"),
              root, "swivel", origin=[f + z0, 0, 0], axis=[-1, 0, 0], joint_name=f"{name}_spin",
              collision=[c.transformed(turned).transformed(to_front) for c in pieces])
    b.attributes.update({"materials": {"case": fin, "dial": face_fin, "hands": mkfin},
                         "extras": ["hour, minute and second hands", "twelve hour marks"]})


# --------------------------------------------------------------------------------------------- fan


def build_fan(b: AssetBuilder) -> None:
    """A desk fan: a round foot and post, a motor head that oscillates from side to side about the post, and
    pitched blades spinning inside a wire guard in front of the motor."""
    p = b.p
    Rb = p["blade_radius"]
    fin = b.draw("body_finish")
    gfin = b.draw("guard_finish")
    bfin = b.draw("blade_finish")
    rf = b.draw("base_radius")
    hb = 0.03
    Rg = Rb + 0.012  # the guard's band, inside radius Rg - 0.0015
    r_m = 0.05
    neck = 0.03
    z_p = max(hb + b.draw("post_height"), Rg + 0.03 - neck - r_m + hb)  # the guard clears the foot
    z_h = z_p + 0.0015 + neck + r_m - 0.01
    foot = lathe([(0, 0), (rf, 0), (rf, hb * 0.4), (rf * 0.8, hb), (0, hb)], 64)
    post = cylinder(0.012, z_p - hb + 0.001, 32, at=(0, 0, hb - 0.001))
    root = b.add("base", union(foot, post), "base", fin, collision=[reduced_hull(foot), reduced_hull(post)])
    x_hf = 0.035
    # motor housing: a rounded can along X with a neck down to the post; a hole in front for the blades' shaft
    can = lathe([(0, -0.06), (r_m * 0.7, -0.06), (r_m, -0.035), (r_m, 0.0), (r_m * 0.9, x_hf), (0, x_hf)], 48)
    to_x = np.eye(4)
    to_x[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]
    to_x[:3, 3] = [0, 0, z_h]
    can = can.transformed(to_x)
    neck_m = cylinder(0.012, z_h - z_p - 0.0015, 32, at=(0, 0, z_p + 0.0015))
    shaft_hole = cylinder(0.007, 0.03, 24, (1, 0, 0), (x_hf - 0.02, 0, z_h))
    head = difference(union(can, neck_m), shaft_hole)
    osc = float(np.deg2rad(b.draw("oscillation")))
    head_name = b.add("head", head, "other", fin, root, "hinge", origin=[0, 0, z_p], axis=[0, 0, 1],
                      collision=[reduced_hull(can), reduced_hull(neck_m)],
                      lower=-osc, upper=osc,
                      joint_name="head_oscillate")
    # guard: a band, back spokes round the motor's nose, front rings and spokes with a badge in the middle
    xb, xf = x_hf + 0.004, x_hf + 0.047
    band_rz = [(Rg - 0.0015, x_hf + 0.0005), (Rg + 0.0015, x_hf + 0.0005), (Rg + 0.0015, xf + 0.0025),
               (Rg - 0.0015, xf + 0.0025)]
    nose_rz = [(0.008, x_hf - 0.0005), (0.03, x_hf - 0.0005), (0.03, xb + 0.0035), (0.008, xb + 0.0035)]
    band = lathe(band_rz, 96).transformed(to_x)
    nose = lathe(nose_rz, 32).transformed(to_x)
    wires = [band, nose]
    pieces = [c.transformed(to_x) for c in (*annulus_sectors(Rg - 0.0015, Rg + 0.0015, x_hf + 0.0005, xf + 0.0025, 96,
                                                             16),
                                            *annulus_sectors(0.008, 0.03, x_hf - 0.0005, xb + 0.0035, 32, 8))]
    spokes = 8
    for k in range(spokes):
        a = 2 * np.pi * (k + 0.5) / spokes
        d = np.array([0.0, np.cos(a), np.sin(a)])
        for xs, r0 in ((xb, 0.027), (xf, 0.027)):
            wire = cylinder_between(np.array([xs, 0, z_h]) + r0 * d, np.array([xs, 0, z_h]) + (Rg + 0.0005) * d,
                                    0.002, 8)
            wires.append(wire)
            pieces.append(reduced_hull(wire))
    for frac in (0.45, 0.75):
        wires.append(torus(frac * Rg, 0.0025, 64, 8, direction=(1, 0, 0), at=(xf, 0, z_h)))
        pieces += arc_pieces([xf, 0, z_h], frac * Rg, 0.0025, 0.0, 2 * np.pi, [1, 0, 0], [0, 1, 0], 8)
    badge = cylinder(0.03, 0.006, 48, (1, 0, 0), (xf - 0.003, 0, z_h))
    wires.append(badge)
    pieces.append(reduced_hull(badge))
    b.add("guard", union(*wires), "frame", gfin, head_name, origin=[x_hf, 0, z_h], collision=pieces)
    # blades: a hub on a shaft and pitched oval blades, between the back spokes and the front grille
    n = p["blades"]
    pitch = float(np.deg2rad(25.0))
    xc = x_hf + 0.0235
    wb = 0.35 * Rb if n <= 4 else 0.28 * Rb
    blade0 = _scaled(sphere(1.0, (0, 0, 0), 24), 0.003, wb / 2, 0.45 * Rb)
    blade0 = blade0.transformed(rotation_about([0, 0, 1], pitch, [0, 0, 0])).translated([xc, 0, 0.55 * Rb])
    blades = [blade0.transformed(rotation_about([1, 0, 0], 2 * np.pi * k / n, [0, 0, 0])) for k in range(n)]
    hub = union(cylinder(0.025, 0.023, 48, (1, 0, 0), (x_hf + 0.012, 0, 0)),
                cylinder(0.004, 0.028, 16, (1, 0, 0), (x_hf - 0.016, 0, 0)))
    rotor = union(hub, *blades).translated([0, 0, z_h])
    rotor_pieces = [reduced_hull(cylinder(0.025, 0.023, 48, (1, 0, 0), (x_hf + 0.012, 0, z_h))),
                    *[reduced_hull(m.translated([0, 0, z_h])) for m in blades]]
    b.add("blades", rotor, "other", bfin, head_name, "spin", origin=[x_hf, 0, z_h], axis=[1, 0, 0],
          joint_name="blades_spin", collision=rotor_pieces)
    b.attributes.update({"materials": {"body": fin, "guard": gfin, "blades": bfin},
                         "extras": [f"{number_word(n)} blades spinning inside a wire guard",
                                    "a head that oscillates from side to side"]})


def number_word(n: int) -> str:
    """``3`` → ``three`` (for the few counts these builders describe)."""
    return ("no", "one", "two", "three", "four", "five", "six")[n] if 0 <= n <= 6 else str(n)


# --------------------------------------------------------------------------------------------- small helpers


def _top_button(x: float, y: float, z_top: float, size: tuple[float, float], travel: float = 0.003,
                clearance: float = 0.0015) -> tuple[Mesh, Mesh]:
    """(pocket to cut, button) for a square push button in an upward face at height ``z_top``: the button stands
    ``2 * travel`` proud and reaches ``travel`` into a pocket that leaves 2 mm below it at full travel."""
    hx, hy = size[0] / 2, size[1] / 2
    depth = 2 * travel + 0.002
    pocket = box([x - hx - clearance, y - hy - clearance, z_top - depth], [x + hx + clearance, y + hy + clearance,
                                                                           z_top + 0.01])
    button = box([x - hx, y - hy, z_top - travel], [x + hx, y + hy, z_top + 2 * travel])
    return pocket, button


# --------------------------------------------------------------------------------------------- display


def build_display(b: AssetBuilder) -> None:
    """A desktop monitor on a yoke stand: a foot, an upright and a U-shaped yoke whose arms hold the screen by
    pins in its sides; the screen tilts about its centre of mass, so it stays where it is set."""
    p = b.p
    W = p["width"]
    Hs = W * b.draw("aspect")
    tp = b.draw("panel_thickness")
    fin = b.draw("body_finish")
    zb = b.draw("panel_lift")
    bez = b.draw("bezel")
    x0 = 0.0  # the panel's back face
    panel = box([x0, -W / 2, zb], [x0 + tp, W / 2, zb + Hs])
    well = box([x0 + tp - 0.002, -W / 2 + bez, zb + bez * 1.6], [x0 + tp + 0.01, W / 2 - bez, zb + Hs - bez])
    panel = difference(panel, well)
    hd = b.draw("housing_depth")
    housing = box([x0 - hd, -0.3 * W, zb + 0.2 * Hs], [x0 + 0.001, 0.3 * W, zb + 0.8 * Hs])
    glass = box([x0 + tp - 0.0015, -W / 2 + bez + 0.0008, zb + bez * 1.6 + 0.0008],
                [x0 + tp - 0.0003, W / 2 - bez - 0.0008, zb + Hs - bez - 0.0008])
    # the tilt axis through the screen's centre of mass (housing and panel of one density, the glass heavier)
    from seed3d.synth.materials import physical_material as _pm

    rho_e, rho_g = _pm("electronics").density, _pm("glass").density
    parts = [(panel, rho_e), (housing, rho_e), (glass, rho_g)]
    masses = [signed_volume(m) * rho for m, rho in parts]
    com = sum(mm * _centroid(m) for (m, _), mm in zip(parts, masses, strict=True)) / sum(masses)
    xc, zc = float(com[0]), float(com[2])
    r_pin, g = 0.006, 0.0015
    arm_t = 0.016
    ya = W / 2 + g + 0.004  # the yoke's arms stand beside the screen's sides
    pins = [cylinder(r_pin, 0.004 + g + arm_t * 0.6, 24, (0, s_, 0), (xc, s_ * (W / 2 - 0.001), zc)) for s_ in (-1, 1)]
    screen = union(panel, housing, *pins)
    # how low the screen reaches as it tilts: its far corners swing about the axis
    lo, hi = b.draw("tilt_forward"), b.draw("tilt_back")
    reach = float(max(np.hypot(xc - (x0 - hd), zc - zb), np.hypot(x0 + tp - xc, zc - zb)))
    z_bar = zc - reach - 0.012  # the yoke's crossbar, below everything the screen sweeps
    fd = b.draw("foot_depth")
    x_n = xc - 0.04
    foot = rounded_box([x_n - 0.5 * fd, -0.13, 0], [x_n + 0.5 * fd, 0.13, 0.014], 0.006, 2)
    upright = box([x_n - 0.02, -0.03, 0.01], [x_n + 0.02, 0.03, z_bar + 0.001])
    bar = box([x_n - 0.02, -ya - arm_t, z_bar - 0.02], [x_n + 0.02, ya + arm_t, z_bar])
    arms, holes = [], []
    for s_ in (-1, 1):
        y0, y1 = sorted((s_ * ya, s_ * (ya + arm_t)))
        arms.append(union(box([x_n - 0.02, y0, z_bar - 0.02], [x_n + 0.02, y1, zc - 0.005]),
                          hull(np.array([[x_n - 0.02, y, zc - 0.03] for y in (y0, y1)]
                                        + [[x_n + 0.02, y, zc - 0.03] for y in (y0, y1)]
                                        + [[xc + dx, y, zc + dz] for y in (y0, y1) for dx, dz in
                                           ((-0.02, -0.02), (0.02, -0.02), (-0.02, 0.02), (0.02, 0.02))]))))
        holes.append(cylinder(r_pin + g, arm_t, 24, (0, s_, 0), (xc, s_ * (ya - 0.001), zc)))
    stand = difference(union(foot, upright, bar, *arms), *holes)
    sfin = b.derive("stand_finish", fin)
    root = b.add("stand", stand, "base", sfin, collision=[reduced_hull(foot), upright, bar, *[
        c for arm in arms for c in ([reduced_hull(arm)])]])
    name = b.add("screen", screen, "panel", fin, root, "stiff", origin=[xc, 0, zc], axis=[0, -1, 0],
                 lower=-float(np.deg2rad(lo)), upper=float(np.deg2rad(hi)), physical="electronics",
                 joint_name="screen_tilt", collision=rectilinear_boxes(panel) + [housing])
    b.add("display", glass, "panel", finish("glass", "smoked"), name, origin=[x0 + tp, 0, zc])
    b.attributes.update({"materials": {"body": fin} | ({"stand": sfin} if sfin != fin else {}),
                         "extras": [f"a {round(float(np.hypot(W - 2 * bez, Hs - 2.6 * bez)) / 0.0254)}-inch screen "
                                    f"that tilts {round(lo)} degrees forward and {round(hi)} back",
                                    "a yoke stand holding the screen by its sides"]})


def _centroid(mesh: Mesh) -> np.ndarray:
    """The centre of volume of a closed mesh."""
    t = mesh.vertices[mesh.faces]
    v = np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])) / 6.0
    return (v[:, None] * t.sum(axis=1) / 4.0).sum(axis=0) / v.sum()


# --------------------------------------------------------------------------------------------- printer


def build_printer(b: AssetBuilder) -> None:
    """An inkjet all-in-one printer: a scanner lid hinged at the back over a glass platen, an output tray that
    pulls out of the front, a paper cassette drawer below it and push buttons on a front control strip."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    fin = b.draw("body_finish")
    g = 0.002
    tl = 0.018
    Hb = H - tl - g
    xf = D / 2
    strip = 0.06  # the control strip in front of the lid
    # cassette at the bottom, output slot above it
    hc = 0.25 * Hb
    wc = W - 0.08
    dc = D - 0.06
    cass_pocket = box([xf - dc, -wc / 2, 0.012], [xf + 0.01, wc / 2, 0.012 + hc])
    zo = 0.012 + hc + 0.02
    ho = 0.02
    out_pocket = box([xf - 0.6 * dc, -wc / 2, zo], [xf + 0.01, wc / 2, zo + ho])
    platen = box([-D / 2 + 0.03, -W / 2 + 0.03, Hb - 0.004], [xf - strip - 0.01, W / 2 - 0.03, Hb + 0.01])
    bts = []
    n = p["buttons"]
    xbtn = xf - strip / 2
    ys = np.linspace(W / 2 - 0.05 - 0.025 * (n - 1), W / 2 - 0.05, n)
    for y in ys:
        bts.append(_top_button(xbtn, float(y), Hb, (0.012, 0.012)))
    screen_well = box([xbtn - 0.014, -W / 2 + 0.06, Hb - 0.002], [xbtn + 0.014, -W / 2 + 0.13, Hb + 0.01])
    cuts = [cass_pocket, out_pocket, platen, screen_well, *[pk for pk, _ in bts]]
    body = difference(rounded_box([-D / 2, -W / 2, 0], [xf, W / 2, Hb], 0.01, 2), *cuts)
    # collision: the same cuts from the square-edged box
    pieces = rectilinear_boxes(difference(box([-D / 2, -W / 2, 0], [xf, W / 2, Hb]), *cuts))
    root = b.add("body", body, "body", fin, physical="appliance_shell", collision=pieces)
    b.add("platen", box([-D / 2 + 0.03 + 0.0005, -W / 2 + 0.0305, Hb - 0.004], [xf - strip - 0.0105,
                                                                               W / 2 - 0.0305, Hb - 0.001]),
          "panel", finish("glass", "smoked"), root, origin=[0, 0, Hb])
    b.add("status_screen", box([xbtn - 0.0135, -W / 2 + 0.0605, Hb - 0.002], [xbtn + 0.0135, -W / 2 + 0.1295,
                                                                             Hb - 0.0005]),
          "panel", finish("glass", "smoked"), root, origin=[xbtn, -W / 2 + 0.095, Hb])
    lfin = b.derive("lid_finish", fin)
    lid = box([-D / 2, -W / 2, Hb + g], [xf - strip, W / 2, Hb + g + tl])
    up = float(np.deg2rad(b.draw("lid_swing")))
    b.add("lid", lid, "lid", lfin, root, "lid", origin=[-D / 2, 0, Hb + g], axis=[0, -1, 0], upper=up,
          physical="appliance_shell")
    tfin = b.draw("tray_finish")
    c = 0.002
    cassette = difference(box([xf - dc + c + 0.004, -wc / 2 + c, 0.012 + c], [xf - 0.001, wc / 2 - c, 0.012 + hc - c]),
                          box([xf - dc + 0.01, -wc / 2 + 0.008, 0.012 + 0.006], [xf - 0.008, wc / 2 - 0.008,
                                                                                 0.012 + hc]))
    b.add("cassette", cassette, "drawer", tfin, root, "slide", origin=[xf, 0, 0.012 + hc / 2], axis=[1, 0, 0],
          upper=0.6 * dc, physical="plastic")
    tray = box([xf - 0.6 * dc + c + 0.004, -wc / 2 + c, zo + c], [xf - 0.001, wc / 2 - c, zo + c + 0.006])
    b.add("output_tray", tray, "tray", tfin, root, "slide", origin=[xf, 0, zo], axis=[1, 0, 0],
          upper=0.5 * 0.6 * dc, physical="plastic")
    bfin = b.draw("button_finish")
    for k, (_, btn) in enumerate(bts):
        b.add(f"button_{k}", btn, "button", bfin, root, "button", origin=[xbtn, float(ys[k]), Hb], axis=[0, 0, -1],
              upper=0.003)
    b.attributes.update({"materials": {"body": fin} | ({"lid": lfin} if lfin != fin else {}) | {"trays": tfin},
                         "lid": {"type": "hinged at the back", "opens_deg": round(float(np.rad2deg(up)))},
                         "drawers": [{"position": "bottom"}], "buttons": n,
                         "extras": ["a scanner lid over a glass platen", "an output tray that pulls out",
                                    "a small status screen"]})


# --------------------------------------------------------------------------------------------- dispenser


def build_dispenser(b: AssetBuilder) -> None:
    """A pump dispenser bottle (soap, lotion): a bottle with a screw collar, and a pump head with a spout whose
    stem slides through the collar's bore (at rest the head is locked down)."""
    p = b.p
    H, R = p["height"], p["radius"]
    fin = b.draw("body_finish")
    wall = 0.003 if fin.kind in ("glass", "ceramic") else 0.0018
    rn = float(np.clip(0.42 * R, 0.012, 0.016))
    hb = 0.7 * H
    sh = hb * b.draw("shoulder")
    outer = [(R * 0.96, 0.0), (R, 0.006), (R, sh), (rn + 0.002, hb - 0.012), (rn, hb - 0.008), (rn, hb)]
    bottle = lathe(vessel_profile(outer, wall, 0.005), 64)
    root = b.add("bottle", bottle, "body", fin)
    cfin = b.draw("pump_finish")
    rc = rn + 0.004
    zc0, zc1 = hb - 0.016, hb + 0.006
    r_s = 0.004
    # the collar screws over the neck (its skirt round the neck, its top on the rim) with a bore for the stem
    collar = lathe([(rn + 0.0001, zc0), (rc, zc0), (rc, zc1), (r_s + 0.0015, zc1), (r_s + 0.0015, hb + 0.0001),
                    (rn + 0.0001, hb + 0.0001)], 48)
    pieces = [*annulus_sectors(rn + 0.0001, rc, zc0, hb + 0.0001, 48, 8),
              *annulus_sectors(r_s + 0.0015, rc, hb + 0.0001, zc1, 48, 8)]
    b.add("collar", collar, "top", cfin, root, origin=[0, 0, zc1], collision=pieces)
    # the head rests locked down, 2 mm above the collar (a spring lifts a real one; a head resting on its lower
    # stop stays where it is) and rises by the pump's stroke
    travel = b.draw("pump_travel")
    zh = zc1 + 0.002
    stem = cylinder(r_s, zh - (zc0 - 0.03) + 0.001, 24, at=(0, 0, zc0 - 0.03))
    hh = 0.022
    head = union(lathe([(0, zh), (0.014, zh), (0.015, zh + hh * 0.6), (0.011, zh + hh), (0, zh + hh)], 32),
                 box([0, -0.0055, zh + hh * 0.55], [b.draw("spout_reach"), 0.0055, zh + hh * 0.55 + 0.009]))
    b.add("pump", union(stem, head), "button", cfin, root, "button", origin=[0, 0, zh], axis=[0, 0, 1],
          upper=travel, joint_name="pump_press", collision=[reduced_hull(head)])  # the stem runs inside the neck
    b.attributes.update({"materials": {"bottle": fin, "pump": cfin},
                         "extras": [f"a pump head with a {round(travel * 1000)} mm stroke, locked down",
                                    "a screw collar"]})


# --------------------------------------------------------------------------------------------- camera


def build_camera(b: AssetBuilder) -> None:
    """A mirrorless camera: a body with a hand grip and a viewfinder hump, a lens with a zoom ring and a focus
    ring turning round its barrel, a shutter button and a mode dial on top."""
    p = b.p
    W, Hc, Dc = p["width"], p["height"], p["depth"]
    fin = b.draw("body_finish")
    grip_fin = finish("rubber", "black")
    xf = Dc / 2
    body = rounded_box([-Dc / 2, -W / 2, 0], [xf, W / 2, Hc], 0.008, 3)
    grip = rounded_box([xf - 0.01, W / 2 - 0.032, 0.0], [xf + 0.016, W / 2 - 0.004, Hc - 0.012], 0.008, 3)
    hump = rounded_box([-Dc / 2 + 0.004, -0.022, Hc - 0.01], [xf - 0.012, 0.022, Hc + 0.016], 0.006, 2)
    yb, yd = W / 2 - 0.02, -(W / 2 - 0.022)  # shutter on the grip side, mode dial on the other
    pocket, _ = _top_button(xf - 0.018, yb, Hc + 0.0, (0.01, 0.01))
    shell = difference(union(body, hump), pocket)
    pieces = subtract_prism([reduced_hull(body)], pocket, (0, 0, 1)) + [reduced_hull(hump)]
    root = b.add("body", shell, "body", fin, physical="electronics", collision=pieces)
    b.add("grip", grip, "handle", grip_fin, root, origin=[xf, W / 2 - 0.018, Hc / 2])
    # lens: a mount and barrel along +X with two rings turning round it between fixed collars
    Rl = b.draw("lens_radius")
    L = b.draw("lens_length")
    yl, zl = min(-0.006, W / 2 - 0.032 - Rl - 0.005), Hc * 0.48  # the lens clears the grip
    r_in = Rl - 0.006
    to_x = np.eye(4)
    to_x[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]
    to_x[:3, 3] = [xf, yl, zl]
    a0, a1 = 0.006 + 0.003, 0.006 + 0.003 + 0.45 * L
    f0, f1 = a1 + 0.003, L - 0.008
    barrel = union(cylinder(Rl + 0.002, 0.006, 64, at=(0, 0, -0.001)),
                   cylinder(r_in, L, 64, at=(0, 0, 0.004)),
                   lathe([(r_in - 0.001, L - 0.005), (Rl, L - 0.005), (Rl, L + 0.004), (r_in - 0.001, L + 0.004)],
                         64))
    glass = cylinder(r_in - 0.002, 0.002, 48, at=(0, 0, L + 0.0025))
    lfin = b.draw("lens_finish")
    lens_pieces = [reduced_hull(cylinder(Rl + 0.002, 0.006, 64, at=(0, 0, -0.001))),
                   reduced_hull(cylinder(r_in, L, 64, at=(0, 0, 0.004))),
                   *annulus_sectors(r_in - 0.001, Rl, L - 0.005, L + 0.004, 64, 16)]
    lens = b.add("lens", barrel.transformed(to_x), "other", lfin, root, origin=[xf, yl, zl], physical="camera_lens",
                 collision=[c.transformed(to_x) for c in lens_pieces])
    b.add("lens_glass", glass.transformed(to_x), "panel", finish("glass", "smoked"), lens,
          origin=[xf + L + 0.0045, yl, zl])
    rfin = finish("rubber", "black")
    for name, z0, z1, lim in (("zoom_ring", a0, a1, True), ("focus_ring", f0, f1, False)):
        r_out = Rl - 0.0005 if name == "zoom_ring" else Rl - 0.002
        ring = lathe([(r_in + 0.0015, z0), (r_out, z0), (r_out, z1), (r_in + 0.0015, z1)], 64)
        pieces = [c.transformed(to_x) for c in annulus_sectors(r_in + 0.0015, r_out, z0, z1, 64, 16)]
        kw = {"lower": 0.0, "upper": float(np.deg2rad(b.draw("zoom_turn")))} if lim else {}
        b.add(name, ring.transformed(to_x), "other", rfin, lens, "stiff" if lim else "spin",
              origin=[xf + z0, yl, zl], axis=[1, 0, 0], collision=pieces, joint_name=f"{name}_turn", **kw)
    bfin = b.draw("button_finish")
    _, btn = _top_button(xf - 0.018, yb, Hc, (0.01, 0.01))
    b.add("shutter_button", btn, "button", bfin, root, "button", origin=[xf - 0.018, yb, Hc], axis=[0, 0, -1],
          upper=0.003)
    xd = -0.004
    b.add("mode_dial", dial([xd, yd, Hc + 0.0015], 0.011, 0.008, normal=(0, 0, 1)), "knob", bfin, root, "spin",
          origin=[xd, yd, Hc + 0.0015], axis=[0, 0, 1], joint_name="mode_dial_spin")
    b.attributes.update({"materials": {"body": fin, "lens": lfin}, "dials": 1, "buttons": 1,
                         "extras": ["a lens with a zoom ring and a focus ring", "a hand grip",
                                    "a viewfinder hump"]})


# --------------------------------------------------------------------------------------------- coffee machine


def build_coffee_machine(b: AssetBuilder) -> None:
    """An espresso machine: a water-tank lid hinged at the back of the top, a drip tray with its grille that
    slides out of the front under the spout, and push buttons over the spout."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    fin = b.draw("body_finish")
    g = 0.002
    tl = 0.012
    Hb = H - tl - g
    xf = D / 2
    # an alcove in the front where the cup stands: the drip tray fills its floor
    ha = 0.55 * Hb
    wa = 0.7 * W
    da = 0.55 * D
    z_tray = 0.012
    ht = 0.035
    alcove = box([xf - da, -wa / 2, z_tray + ht + 0.004], [xf + 0.01, wa / 2, z_tray + ht + 0.004 + ha])
    tray_pocket = box([xf - da, -wa / 2, z_tray], [xf + 0.01, wa / 2, z_tray + ht + 0.005])
    n = p["buttons"]
    zbtn = z_tray + ht + 0.004 + ha + 0.5 * (Hb - (z_tray + ht + 0.004 + ha))
    ys = np.linspace(-0.03 * (n - 1), 0.03 * (n - 1), n)
    pockets = [button_pocket([xf, float(y), zbtn], (0.018, 0.012), 0.008, 0.0015) for y in ys]
    spout_parts = [box([xf - da + 0.005, -0.03, z_tray + ht + 0.004 + ha - 0.03],
                       [xf - da + 0.06, 0.03, z_tray + ht + 0.004 + ha + 0.001]),
                   *[cylinder(0.006, 0.015, 16, at=(xf - da + 0.035, s * 0.012, z_tray + ht + 0.004 + ha - 0.044))
                     for s in (-1, 1)]]
    spout = union(*spout_parts)
    # the water tank's lid covers the back of the top; in front of it the top rises to the lid's height
    x_l = -D / 2 + b.draw("tank_share") * D
    shell = union(rounded_box([-D / 2, -W / 2, 0], [xf, W / 2, Hb], 0.012, 3),
                  rounded_box([x_l + 0.003, -W / 2, Hb - 0.02], [xf, W / 2, H], 0.012, 3))
    body = difference(shell, alcove, tray_pocket, *pockets)
    square = union(box([-D / 2, -W / 2, 0], [xf, W / 2, Hb]), box([x_l + 0.003, -W / 2, Hb - 0.02], [xf, W / 2, H]))
    pieces = rectilinear_boxes(difference(square, alcove, tray_pocket, *pockets)) + [
        reduced_hull(m) for m in spout_parts]
    root = b.add("body", union(body, spout), "body", fin, physical="appliance_shell", collision=pieces)
    tfin = b.draw("tray_finish")
    c = 0.002
    tray = difference(box([xf - da + c + 0.003, -wa / 2 + c, z_tray + c], [xf - 0.0005, wa / 2 - c, z_tray + ht]),
                      box([xf - da + 0.01, -wa / 2 + 0.008, z_tray + 0.006], [xf - 0.008, wa / 2 - 0.008,
                                                                              z_tray + ht + 0.01]))
    tray_name = b.add("drip_tray", tray, "tray", tfin, root, "slide", origin=[xf, 0, z_tray], axis=[1, 0, 0],
                      upper=0.7 * da, physical="plastic")
    slats = [box([x, -wa / 2 + 0.009, z_tray + ht - 0.004], [x + 0.006, wa / 2 - 0.009, z_tray + ht - 0.001])
             for x in np.arange(xf - da + 0.012, xf - 0.014, 0.012)]
    b.add("grille", union(*slats), "other", b.draw("grille_finish"), tray_name, origin=[xf - da / 2, 0, z_tray + ht])
    lfin = b.derive("lid_finish", fin)
    lid = union(box([-D / 2, -W / 2, Hb + g], [x_l, W / 2, Hb + g + tl]),
                box([x_l - 0.03, -0.03, Hb + g + tl - 0.001], [x_l - 0.008, 0.03, Hb + g + tl + 0.008]))
    up = float(np.deg2rad(b.draw("lid_swing")))
    b.add("lid", lid, "lid", lfin, root, "lid", origin=[-D / 2, 0, Hb + g], axis=[0, -1, 0], upper=up,
          physical="plastic")
    bfin = b.draw("button_finish")
    for k, y in enumerate(ys):
        btn = push_button([xf, float(y), zbtn], (0.018, 0.012), 0.004, 0.003)
        b.add(f"button_{k}", btn, "button", bfin, root, "button", origin=[xf, float(y), zbtn], axis=[-1, 0, 0],
              upper=0.003)
    b.attributes.update({"materials": {"body": fin, "tray": tfin} | ({"lid": lfin} if lfin != fin else {}),
                         "lid": {"type": "over the water tank, hinged at the back",
                                 "opens_deg": round(float(np.rad2deg(up)))},
                         "buttons": n, "extras": ["a drip tray that slides out under the spout",
                                                  "a cup alcove with a twin spout"]})


# --------------------------------------------------------------------------------------------- window


def _sash(y0: float, y1: float, z0: float, z1: float, x0: float, x1: float, stile: float) -> tuple[Mesh, Mesh]:
    """(sash frame, glass pane) filling y0..y1 by z0..z1 between x0 and x1; the pane sits in the frame's middle."""
    frame = difference(box([x0, y0, z0], [x1, y1, z1]), box([x0 - 0.01, y0 + stile, z0 + stile],
                                                            [x1 + 0.01, y1 - stile, z1 - stile]))
    xm = (x0 + x1) / 2
    pane = box([xm - 0.003, y0 + stile, z0 + stile], [xm + 0.003, y1 - stile, z1 - stile])
    return frame, pane


def build_window(b: AssetBuilder) -> None:
    """A window in its frame: two sashes sliding past each other in two tracks (one or both moving), or one or
    two casement sashes hinged at the sides that swing open with a lever handle each."""
    p = b.p
    W, H = p["width"], p["height"]
    fd = b.draw("frame_depth")
    fw = b.draw("frame_width")
    g = 0.003
    fin = b.draw("frame_finish")
    sfin = b.derive("sash_finish", fin)
    glass = finish("glass", "clear")
    frame = difference(box([-fd / 2, -W / 2, 0], [fd / 2, W / 2, H]),
                       box([-fd / 2 - 0.01, -W / 2 + fw, fw], [fd / 2 + 0.01, W / 2 - fw, H - fw]))
    sill = box([fd / 2 - 0.001, -W / 2 - 0.02, 0], [fd / 2 + b.draw("sill_depth"), W / 2 + 0.02, 0.025])
    root = b.add("frame", union(frame, sill), "frame", fin, collision=rectilinear_boxes(frame) + [sill])
    ylo, yhi = -W / 2 + fw + g, W / 2 - fw - g
    z0, z1 = fw + g, H - fw - g
    stile = b.draw("stile_width")
    a = b.attributes
    a["materials"] = {"frame": fin} | ({"sashes": sfin} if sfin != fin else {})
    if p["kind"] == "sliding":
        st = float(min(0.04, (fd - 0.02 - 0.004) / 2))
        ov = 0.04
        ym = 0.0
        moving = p["sliding_sashes"]
        # the left sash in the front track slides right; the right sash in the back track slides left (if it moves)
        tracks = (("left_sash", ylo, ym + ov / 2, fd / 2 - 0.01 - st, fd / 2 - 0.01, 1.0, True),
                  ("right_sash", ym - ov / 2, yhi, -fd / 2 + 0.01, -fd / 2 + 0.01 + st, -1.0, moving == 2))
        for name, y0, y1, x0, x1, way, moves in tracks:
            sash, pane = _sash(y0, y1, z0, z1, x0, x1, stile)
            travel = (y1 - y0) - ov - 0.02
            if moves:
                b.add(name, sash, "door", sfin, root, "slide", origin=[(x0 + x1) / 2, (y0 + y1) / 2, z0],
                      axis=[0, way, 0], upper=travel, joint_name=f"{name}_slide")
            else:
                b.add(name, sash, "frame", sfin, root, origin=[(x0 + x1) / 2, (y0 + y1) / 2, z0])
            b.add(f"{name}_glass", pane, "panel", glass, name, origin=[(x0 + x1) / 2, (y0 + y1) / 2, z0])
        a["extras"] = [f"{'two sashes' if moving == 2 else 'one sash'} sliding sideways in two tracks", "a sill"]
        return
    n = p["casements"]
    st = b.draw("casement_thickness")
    x0, x1 = fd / 2 - st, fd / 2
    spans = [(ylo, yhi, "left")] if n == 1 else [(ylo, -g / 2, "left"), (g / 2, yhi, "right")]
    if n == 1 and p["hinge"] == "right":
        spans = [(ylo, yhi, "right")]
    up = float(np.deg2rad(b.draw("swing")))
    hfin = b.draw("handle_finish")
    for k, (y0, y1, side) in enumerate(spans):
        sash, pane = _sash(y0, y1, z0, z1, x0, x1, stile)
        left = side == "left"
        name = b.add(f"sash_{k}", sash, "door", sfin, root, "hinge", origin=[x1, y0 if left else y1, z0],
                     axis=[0, 0, -1] if left else [0, 0, 1], upper=up, joint_name=f"sash_{k}_hinge")
        b.add(f"sash_{k}_glass", pane, "panel", glass, name, origin=[(x0 + x1) / 2, (y0 + y1) / 2, z0])
        # a lever handle on the free stile, pointing down; it turns a quarter turn over its own sash to unlatch
        yh = (y1 - stile / 2) if left else (y0 + stile / 2)
        zh = (z0 + z1) / 2
        hub = cylinder(0.012, 0.02, 24, (1, 0, 0), (x1 + 0.0015, yh, zh))
        bar = box([x1 + 0.012, yh - 0.007, zh - 0.1], [x1 + 0.021, yh + 0.007, zh])
        b.add(f"sash_{k}_handle", union(hub, bar), "handle", hfin, name, "lever", origin=[x1 + 0.0015, yh, zh],
              axis=[-1, 0, 0] if left else [1, 0, 0], upper=np.pi / 2, joint_name=f"sash_{k}_handle_turn")
    a["materials"]["handles"] = hfin
    a["handles"] = {"style": "lever", "count": len(spans)}
    a["extras"] = [f"{'a casement sash' if n == 1 else 'two casement sashes'} opening "
                   f"{round(float(np.rad2deg(up)))} degrees", "a sill"]


# --------------------------------------------------------------------------------------------- cart


def build_cart(b: AssetBuilder) -> None:
    """A utility cart: shelves with raised lips on four corner posts, a push handle at the back, and four castor
    wheels, the front two (or all four) swivelling."""
    p = b.p
    L, Wc, Hh = p["length"], p["width"], p["height"]
    fin = b.draw("body_finish")
    wr = b.draw("wheel_radius")
    ww = 0.032
    z_m = 2 * wr + 0.0015 + 0.006 + 0.0015  # the castors' mounting plates
    post = 0.025
    n = p["shelves"]
    z_lo = z_m + 0.006 + 0.04
    z_top = Hh - 0.12
    levels = np.linspace(z_lo, z_top, n)
    parts = []
    inset = post / 2 + 0.001  # posts stand 1 mm inside the shelves' edges (no coincident faces to fuse)
    for x in (-L / 2 + inset, L / 2 - inset):
        for y in (-Wc / 2 + inset, Wc / 2 - inset):
            parts.append(box([x - post / 2, y - post / 2, z_m], [x + post / 2, y + post / 2, z_top + 0.03]))
    for x in (-L / 2 + 0.03, L / 2 - 0.03):  # the castors' mounting plates under the posts
        for y in (-Wc / 2 + 0.03, Wc / 2 - 0.03):
            parts.append(box([x - 0.0295, y - 0.0295, z_m], [x + 0.0295, y + 0.0295, z_m + 0.006]))
    for z in levels:
        parts.append(difference(box([-L / 2, -Wc / 2, z], [L / 2, Wc / 2, z + 0.04]),
                                box([-L / 2 + 0.012, -Wc / 2 + 0.012, z + 0.012], [L / 2 - 0.012, Wc / 2 - 0.012,
                                                                                   z + 0.05])))
    # the push handle: two uprights at the back and a bar across
    xh = -L / 2 + inset
    for y in (-Wc / 2 + inset, Wc / 2 - inset):
        parts.append(cylinder(0.012, Hh - 0.02 - (z_top + 0.02), 24, at=(xh, y, z_top + 0.02)))
    parts.append(cylinder(0.016, Wc, 32, (0, 1, 0), (xh, -Wc / 2, Hh - 0.016)))
    body = union(*parts)
    pieces = [c for m in parts for c in (rectilinear_boxes(m) if is_rectilinear(m) else [reduced_hull(m)])]
    root = b.add("body", body, "body", fin, physical="sheet_metal" if fin.kind in METAL_KINDS else "plastic",
                 collision=pieces)
    cfin = b.draw("castor_finish")
    rub = b.draw("wheel_finish")
    swivels = p["swivel_castors"]
    k = 0
    for x in (L / 2 - 0.03, -L / 2 + 0.03):
        for y in (-Wc / 2 + 0.03, Wc / 2 - 0.03):
            swivel = swivels == 4 or (x > 0)
            trail = -0.02 if swivel else 0.0  # a swivelling wheel trails behind its pivot
            xa = x + trail
            top = cylinder(0.026, 0.005, 32, at=(x, y, z_m - 0.0015 - 0.005))
            sides = ((y - ww / 2 - 0.0045, y - ww / 2 - 0.0015), (y + ww / 2 + 0.0015, y + ww / 2 + 0.0045))
            legs = [box([xa - 0.014, y0, wr - 0.012], [xa + 0.014, y1, z_m - 0.0015 - 0.004]) for y0, y1 in sides]
            fork = union(top, *legs)
            fork_pieces = [reduced_hull(top), *legs]
            if swivel:
                fork_name = b.add(f"castor_{k}", fork, "other", cfin, root, "swivel", origin=[x, y, z_m - 0.0015],
                                  axis=[0, 0, 1], joint_name=f"castor_{k}_swivel", collision=fork_pieces)
            else:
                fork_name = b.add(f"castor_{k}", fork, "other", cfin, root, origin=[x, y, z_m - 0.0015],
                                  collision=fork_pieces)
            wheel = cylinder(wr, ww, 32, (0, 1, 0), (xa, y - ww / 2, wr))
            b.add(f"wheel_{k}", wheel, "wheel", rub, fork_name, "wheel", origin=[xa, y, wr], axis=[0, 1, 0],
                  collision=[wheel_hull([xa, y, wr], [0, 1, 0], wr, ww)])
            k += 1
    b.attributes.update({"materials": {"body": fin, "wheels": rub}, "shelves": n, "wheels": 4,
                         "extras": [f"{'four' if swivels == 4 else 'two'} swivelling castors", "a push handle",
                                    "raised lips round the shelves"]})


# --------------------------------------------------------------------------------------------- registry

CERAMIC_WHITE = ("white", "cream")

CATEGORIES: tuple[Category, ...] = (
    Category("bucket", "tapered pail with a rolled rim and a wire bail handle swinging in two ears",
             {"height": frange(0.2, 0.34, "m"), "top_radius": frange(0.12, 0.16, "rim radius, m"),
              "taper": frange(0.75, 0.9, "bottom radius over rim radius", draw="inline"),
              "body_finish": finish_param(("brushed_metal", "painted_metal", "plastic"),
                                          ("stainless steel", "aluminium", "black", "red", "blue", "green", "yellow",
                                           "orange", "grey", "white"), doc="pail"),
              "ear_drop": frange(0.025, 0.04, "ears' pivot below the rim, m", draw="inline"),
              "handle_finish": finish_param(("brushed_metal", "painted_metal"),
                                            ("stainless steel", "aluminium", "black", "silver grey"), doc="wire bail"),
              "bail_swing": frange(80, 90, "how far the bail swings to each side from upright, degrees",
                                   draw="inline"),
              "grip": flag(0.5, "a plastic grip sleeve on the bail"),
              "grip_finish": finish_param("plastic", ("black", "grey", "red", "blue"), doc="grip sleeve")},
             (0.24, 0.27, 0.2), (0.36, 0.42, 0.54), build_bucket, ("bucket", "pail")),
    Category("kettle", "electric jug kettle on a power base: flip lid hinged at the back, handle, rocker switch",
             {"height": frange(0.2, 0.27, "m, base to the lid's tab"), "radius": frange(0.07, 0.095, "jug radius, m"),
              "taper": frange(0.8, 0.95, "rim radius over bottom radius", draw="inline"),
              "body_finish": finish_param(("brushed_metal", "painted_metal", "plastic"),
                                          ("stainless steel", "black", "white", "red", "cream", "silver grey"),
                                          doc="jug and handle"),
              "base_finish": finish_param("plastic", ("black", "white", "grey"), doc="power base"),
              "handle_reach": frange(0.035, 0.05, "handle grip's distance out from the jug, m", draw="inline"),
              "lid_finish": finish_param(("brushed_metal", "painted_metal", "plastic"), doc="lid (default: the jug's)",
                                         draw="derived"),
              "lid_swing": frange(80, 100, "how far the lid opens, degrees", draw="inline"),
              "switch_finish": finish_param("plastic", ("black", "white", "grey", "blue"), doc="rocker switch")},
             (0.2, 0.16, 0.2), (0.33, 0.22, 0.27), build_kettle, ("kettle", "electric kettle")),
    Category("toaster", "pop-up toaster: two or four slots, carriage lever in a groove, browning dial, cancel button",
             {"width": frange(0.26, 0.32, "m, along the slots"), "depth": frange(0.15, 0.2, "m"),
              "height": frange(0.17, 0.22, "m"),
              "slots": choice(2, 2, 4, doc="bread slots (four: two pairs end to end)"),
              "body_finish": finish_param(("brushed_metal", "painted_metal", "plastic"),
                                          ("stainless steel", "black", "white", "red", "cream", "blue", "silver grey"),
                                          doc="shell"),
              "control_finish": finish_param(("plastic", "chrome"), ("black", "grey", "chrome", "white"),
                                             doc="lever and dial"),
              "slot_width": frange(0.03, 0.038, "slot width, m", draw="inline"),
              "button_finish": finish_param("plastic", ("black", "grey", "white", "red"), doc="cancel button")},
             (0.165, 0.26, 0.17), (0.23, 0.33, 0.23), build_toaster, ("toaster", "pop-up toaster")),
    Category("safe", "steel safe: thick-walled box, side-hinged door with a combination dial and a turning handle",
             {"width": frange(0.35, 0.6, "m"), "depth": frange(0.32, 0.5, "m"), "height": frange(0.3, 0.75, "m"),
              "hinge": choice("left", "right", doc="side the door is hinged on"),
              "handle_style": choice("lever", "spokes", doc="a bar lever or a three-spoke wheel"),
              "body_finish": finish_param("painted_metal", ("black", "anthracite", "silver grey", "green", "cream"),
                                          doc="box and door"),
              "wall": frange(0.02, 0.035, "wall thickness, m", draw="inline"),
              "door_thickness": frange(0.04, 0.07, "m", draw="inline"),
              "swing": frange(100, 120, "how far the door opens, degrees", draw="inline"),
              "door_finish": finish_param("painted_metal", doc="door (default: the box's)", draw="derived"),
              "handle_finish": finish_param(("chrome", "brushed_metal"), ("chrome", "stainless steel", "brass"),
                                            doc="dial and handle")},
             (0.34, 0.35, 0.3), (0.56, 0.6, 0.76), build_safe, ("safe", "strongbox", "safe box")),
    Category("toilet", "close-coupled toilet: oval bowl, cistern with lever or button, seat and lid hinged at the back",
             {"bowl_length": frange(0.44, 0.5, "bowl's outer length front to back, m"),
              "bowl_width": frange(0.34, 0.38, "bowl's outer width, m"),
              "rim_height": frange(0.38, 0.42, "height of the bowl's rim, m"),
              "flush": choice("lever", "button", doc="flush lever on the cistern's front or push button on top"),
              "body_finish": finish_param("ceramic", CERAMIC_WHITE, doc="bowl and cistern"),
              "lid_swing": frange(92, 100, "how far seat and lid lift, degrees (the cistern stands clear of them)",
                                  draw="inline"),
              "tank_height": frange(0.3, 0.36, "cistern height, m", draw="inline"),
              "tank_depth": frange(0.15, 0.19, "cistern depth, m", draw="inline"),
              "tank_width": frange(0.36, 0.42, "cistern width, m", draw="inline"),
              "seat_finish": finish_param("plastic", ("white", "white", "black", "beige"), doc="seat and lid"),
              "flush_finish": finish_param(("chrome", "plastic"), ("chrome", "white"), doc="flush lever or button")},
             (0.6, 0.36, 0.65), (0.85, 0.45, 0.86), build_toilet, ("toilet", "WC", "lavatory")),
    Category("globe", "desk globe: a ball spinning on a tilted axis in a half meridian on a post and round foot",
             {"radius": frange(0.1, 0.16, "ball radius, m"),
              "tilt": frange(23.4, 23.4, "axis tilt from vertical, degrees (the Earth's)", draw="inline",
                             limits=(0, 30)),
              "stand_finish": finish_param(("brushed_metal", "chrome", "painted_metal"),
                                           ("brass", "gold", "chrome", "black", "stainless steel"),
                                           doc="meridian and post"),
              "base_finish": finish_param(("wood", "brushed_metal", "painted_metal", "stone"), doc="round foot"),
              "base_radius": frange(0.07, 0.1, "foot radius, m", draw="inline"),
              "post_height": frange(0.03, 0.12, "post between foot and meridian, m", draw="inline"),
              "globe_finish": finish_param("plastic", ("blue", "teal", "beige", "black"), doc="ball")},
             (0.18, 0.2, 0.27), (0.37, 0.42, 0.52), build_globe, ("globe", "world globe", "desk globe")),
    Category("clock", "round wall clock: case, recessed dial with hour marks, three hands on one arbor",
             {"radius": frange(0.12, 0.2, "case radius, m"), "depth": frange(0.035, 0.05, "case depth, m"),
              "body_finish": finish_param(("plastic", "wood", "brushed_metal", "painted_metal"),
                                          ("black", "white", "walnut", "oak", "aluminium", "copper", "red", "grey"),
                                          doc="case and dial"),
              "rim_width": frange(0.008, 0.02, "bezel width round the dial, m", draw="inline"),
              "hand_finish": finish_param(("plastic", "painted_metal"), ("black", "anthracite"),
                                          doc="hour and minute hands and the hour marks"),
              "dial_finish": finish_param(("plastic", "painted_metal"), ("white", "cream", "black"), doc="dial"),
              "time_hours": irange(0, 11, "hour the hands show at rest", draw="inline"),
              "time_minutes": irange(0, 59, "minute the hands show at rest", draw="inline"),
              "second_finish": finish_param(("plastic", "painted_metal"), ("red", "black", "orange"),
                                            doc="second hand")},
             (0.035, 0.24, 0.24), (0.05, 0.4, 0.4), build_clock, ("clock", "wall clock"), mount="wall"),
    Category("fan", "desk fan: round foot and post, oscillating motor head, pitched blades spinning in a wire guard",
             {"blade_radius": frange(0.1, 0.15, "blade tip radius, m"),
              "blades": choice(3, 4, 5, doc="number of blades"),
              "body_finish": finish_param(("plastic", "painted_metal"), ("white", "black", "grey", "cream", "blue"),
                                          doc="foot, post and motor head"),
              "guard_finish": finish_param(("chrome", "painted_metal", "plastic"), ("chrome", "white", "black",
                                                                                   "grey"), doc="wire guard"),
              "blade_finish": finish_param("plastic", ("white", "grey", "blue", "black"), doc="blades"),
              "base_radius": frange(0.1, 0.13, "foot radius, m", draw="inline"),
              "post_height": frange(0.12, 0.3, "post height above the foot, m (raised where the guard would reach "
                                    "the foot)", draw="inline"),
              "oscillation": frange(35, 50, "how far the head turns each way, degrees", draw="inline")},
             (0.18, 0.2, 0.3), (0.3, 0.34, 0.6), build_fan, ("fan", "desk fan", "electric fan")),
    Category("display", "desktop monitor: foot, upright and yoke holding the screen by pins in its sides; it tilts",
             {"width": frange(0.48, 0.72, "screen width, m (21 to 32 inch)"),
              "aspect": frange(0.56, 0.62, "screen height over width", draw="inline"),
              "panel_thickness": frange(0.012, 0.022, "m", draw="inline"),
              "body_finish": finish_param(("plastic", "brushed_metal"), ("black", "white", "grey", "aluminium",
                                                                         "silver grey"), doc="screen housing"),
              "panel_lift": frange(0.07, 0.13, "height of the screen's bottom edge above the desk, m", draw="inline"),
              "bezel": frange(0.008, 0.02, "bezel width round the picture, m", draw="inline"),
              "foot_depth": frange(0.16, 0.22, "m", draw="inline"),
              "housing_depth": frange(0.03, 0.06, "depth of the electronics housing on the screen's back, m",
                                      draw="inline"),
              "stand_finish": finish_param(("plastic", "brushed_metal"), doc="foot and upright (default: the "
                                           "housing's)", draw="derived"),
              "tilt_forward": frange(4, 6, "how far the screen tilts forward, degrees", draw="inline"),
              "tilt_back": frange(18, 24, "how far the screen tilts back, degrees", draw="inline")},
             (0.15, 0.5, 0.35), (0.4, 0.78, 0.65), build_display, ("display", "monitor", "computer monitor",
                                                                    "computer screen")),
    Category("printer", "inkjet all-in-one: scanner lid hinged at the back, output tray, paper cassette, buttons",
             {"width": frange(0.38, 0.46, "m"), "depth": frange(0.3, 0.38, "m"), "height": frange(0.14, 0.22, "m"),
              "buttons": irange(2, 4, "push buttons on the control strip", limits=(1, 5)),
              "body_finish": finish_param(("plastic",), ("black", "white", "grey"), doc="shell"),
              "lid_finish": finish_param("plastic", doc="scanner lid (default: the shell's)", draw="derived"),
              "lid_swing": frange(70, 85, "how far the scanner lid opens, degrees", draw="inline"),
              "tray_finish": finish_param("plastic", ("black", "grey", "white"), doc="cassette and output tray"),
              "button_finish": finish_param("plastic", ("black", "grey", "white", "blue"), doc="buttons")},
             (0.3, 0.38, 0.14), (0.39, 0.47, 0.23), build_printer, ("printer", "inkjet printer",
                                                                    "all-in-one printer")),
    Category("dispenser", "pump dispenser bottle: bottle, screw collar, pump head whose stem slides in the collar",
             {"height": frange(0.15, 0.23, "m: the bottle is 0.7 of it, the collar and locked-down head top it"),
              "radius": frange(0.03, 0.045, "bottle radius, m"),
              "shoulder": frange(0.7, 0.85, "shoulder height over the bottle's height", draw="inline"),
              "body_finish": finish_param(("plastic", "glass", "ceramic"), ("white", "clear", "amber", "green",
                                                                            "black", "blush pink", "grey"),
                                          doc="bottle"),
              "pump_finish": finish_param(("plastic", "chrome", "brushed_metal"), ("white", "black", "chrome",
                                                                                  "stainless steel", "brass"),
                                          doc="collar and pump head"),
              "pump_travel": frange(0.008, 0.012, "pump stroke, m", draw="inline"),
              "spout_reach": frange(0.03, 0.045, "spout's reach from the axis, m", draw="inline")},
             (0.06, 0.06, 0.13), (0.1, 0.092, 0.23), build_dispenser, ("dispenser", "soap dispenser", "pump bottle",
                                                                        "lotion pump")),
    Category("camera", "mirrorless camera: grip, viewfinder hump, lens with zoom and focus rings, shutter, mode dial",
             {"width": frange(0.115, 0.14, "body width, m"), "height": frange(0.07, 0.09, "body height, m"),
              "depth": frange(0.035, 0.05, "body depth, m"),
              "body_finish": finish_param(("plastic", "brushed_metal"), ("black", "silver grey", "aluminium"),
                                          doc="body"),
              "lens_radius": frange(0.026, 0.034, "lens barrel radius, m", draw="inline"),
              "lens_length": frange(0.04, 0.08, "lens length from the mount, m", draw="inline"),
              "lens_finish": finish_param(("plastic", "brushed_metal"), ("black", "black steel", "aluminium"),
                                          doc="lens barrel"),
              "zoom_turn": frange(70, 100, "zoom ring's turn from wide to tele, degrees", draw="inline"),
              "button_finish": finish_param(("plastic", "chrome"), ("black", "chrome", "grey"),
                                            doc="shutter button and mode dial")},
             (0.09, 0.115, 0.075), (0.15, 0.145, 0.11), build_camera, ("camera", "digital camera",
                                                                       "mirrorless camera")),
    Category("coffee_machine", "espresso machine: water-tank lid hinged at the back, slide-out drip tray, buttons",
             {"width": frange(0.18, 0.3, "m"), "depth": frange(0.3, 0.42, "m"), "height": frange(0.28, 0.38, "m"),
              "buttons": irange(1, 3, "push buttons over the spout", limits=(1, 4)),
              "body_finish": finish_param(("plastic", "brushed_metal", "painted_metal"),
                                          ("black", "stainless steel", "red", "white", "silver grey", "cream"),
                                          doc="shell"),
              "tray_finish": finish_param("plastic", ("black", "grey"), doc="drip tray"),
              "grille_finish": finish_param(("chrome", "brushed_metal"), ("chrome", "stainless steel"),
                                            doc="drip tray grille"),
              "lid_finish": finish_param(("plastic", "brushed_metal", "painted_metal"), doc="water-tank lid "
                                         "(default: the shell's)", draw="derived"),
              "lid_swing": frange(75, 100, "how far the lid opens, degrees", draw="inline"),
              "button_finish": finish_param("plastic", ("black", "white", "grey"), doc="buttons"),
              "tank_share": frange(0.35, 0.5, "the water tank's lid, share of the depth from the back",
                                   draw="inline")},
             (0.3, 0.18, 0.28), (0.43, 0.31, 0.4), build_coffee_machine, ("coffee machine", "espresso machine",
                                                                           "coffee maker")),
    Category("window", "window in its frame: two sashes sliding in two tracks, or one or two hinged casements",
             {"width": frange(0.6, 1.4, "frame width, m"), "height": frange(0.6, 1.4, "frame height, m"),
              "kind": choice("sliding", "casement", doc="sliding sashes or side-hinged casements"),
              "sliding_sashes": choice(1, 2, doc="sliding windows: how many sashes slide (the other is fixed)"),
              "casements": choice(1, 2, doc="casement windows: one sash or a pair opening from the middle"),
              "hinge": choice("left", "right", doc="a single casement's hinge side"),
              "frame_depth": frange(0.09, 0.12, "m", draw="inline"),
              "frame_width": frange(0.045, 0.07, "frame width round the opening, m", draw="inline"),
              "frame_finish": finish_param(("painted_wood", "wood", "plastic", "painted_metal"),
                                           ("white", "cream", "oak", "pine", "anthracite", "black", "grey"),
                                           doc="frame (and sashes unless sash_finish is given)"),
              "sash_finish": finish_param(("painted_wood", "wood", "plastic", "painted_metal"),
                                          doc="sashes (default: the frame's)", draw="derived"),
              "sill_depth": frange(0.03, 0.06, "sill's reach in front of the frame, m", draw="inline"),
              "stile_width": frange(0.04, 0.06, "sash frame width round the glass, m", draw="inline"),
              "casement_thickness": frange(0.04, 0.055, "casement sash thickness, m", draw="inline"),
              "swing": frange(85, 100, "how far a casement opens, degrees", draw="inline"),
              "handle_finish": finish_param(("chrome", "brushed_metal", "plastic"), ("chrome", "stainless steel",
                                                                                    "white", "black", "brass"),
                                            doc="casement handles")},
             (0.12, 0.6, 0.6), (0.2, 1.45, 1.4), build_window, ("window", "casement window", "sliding window"),
             mount="wall"),
    Category("cart", "utility cart: lipped shelves on four posts, push handle, four castors (two or four swivel)",
             {"length": frange(0.6, 0.9, "m"), "width": frange(0.4, 0.55, "m"), "height": frange(0.8, 1.0,
                                                                                               "to the handle, m"),
              "shelves": irange(2, 3, "shelves", limits=(2, 4)),
              "swivel_castors": choice(2, 4, doc="the front two or all four castors swivel"),
              "body_finish": finish_param(("painted_metal", "plastic", "brushed_metal"),
                                          ("black", "grey", "blue", "red", "stainless steel", "white"),
                                          doc="frame and shelves"),
              "wheel_radius": frange(0.04, 0.06, "m", draw="inline"),
              "castor_finish": finish_param("chrome", doc="castor forks"),
              "wheel_finish": finish_param("rubber", doc="wheels")},
             (0.6, 0.4, 0.8), (0.98, 0.56, 1.0), build_cart, ("cart", "utility cart", "trolley", "service cart")),
)
