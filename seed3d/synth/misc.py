"""Everyday articulated objects: lamp (table or articulated desk lamp), laptop, faucet, door in its frame."""

from __future__ import annotations

import numpy as np

from seed3d.synth.collision import annulus_sectors, rectilinear_boxes, reduced_hull, subtract_prism
from seed3d.synth.core import AssetBuilder, Category, choice, finish_param, flag, frange
from seed3d.synth.fixtures import button_pocket
from seed3d.synth.materials import finish, physical_material
from seed3d.synth.primitives import (
    box,
    cylinder,
    cylinder_between,
    difference,
    lathe,
    rounded_box,
    signed_volume,
    sphere,
    union,
)


def _shade(r_bot: float, r_top: float, h: float, t: float, z0: float, cap: bool) -> object:
    """A conical lamp-shade shell from z0 (radius r_bot) to z0 + h (radius r_top); ``cap`` closes the top."""
    ring = lathe([(r_bot, z0), (r_top, z0 + h), (r_top - t, z0 + h), (r_bot - t, z0)], 48)
    if not cap:
        return ring
    return union(ring, cylinder(r_top - t * 0.5, t, 48, at=(0, 0, z0 + h - t)))


def build_lamp(b: AssetBuilder) -> None:
    """A table lamp (base, stem, bulb, shade, push switch) or an articulated desk lamp (two arms and a head
    on revolute joints)."""
    if b.p["kind"] == "desk":
        _desk_lamp(b)
        return
    H = b.p["height"]
    base_fin = b.draw("body_finish")
    shade_fin = b.draw("shade_finish")
    rb = b.draw("base_radius")
    hb = b.draw("base_height")
    base = lathe([(0, 0), (rb, 0), (rb, hb * 0.6), (rb * 0.7, hb), (0, hb)], 48)
    sh = H * b.draw("shade_fraction")
    r_bulb = 0.025
    hub_z = H - 0.012
    stem_top = hub_z - 0.006 - 2 * r_bulb - 0.03
    stem = cylinder(0.012, stem_top - hb + 0.001, 24, at=(0, 0, hb - 0.001))
    holder = cylinder(0.018, 0.03, 24, at=(0, 0, stem_top))
    # a push switch on the base, sitting in a pocket with clearance
    sx = rb * 0.5
    pocket = button_pocket([0, 0, 0], (0.016, 0.016), 0.012, 0.0015, round_=True).transformed(_x_to_z(sx, 0, hb))
    body = difference(union(base, stem, holder), pocket)
    coarse = cylinder(0.0095 / np.cos(np.pi / 8), 0.03, 8, at=(sx, 0, hb - 0.012))
    pieces = subtract_prism([reduced_hull(base)], coarse, (0, 0, 1)) + [reduced_hull(stem), reduced_hull(holder)]
    root = b.add("body", body, "base", base_fin, collision=pieces)
    btn = cylinder(0.008, 0.014, 24, at=(sx, 0, hb - 0.008))
    b.add("switch", btn, "button", b.draw("switch_finish"), root, "button",
          origin=[sx, 0, hb], axis=[0, 0, -1], upper=0.003)
    bz = stem_top + 0.03 + r_bulb * 0.95
    b.add("bulb", sphere(r_bulb, (0, 0, bz), 24), "bulb", finish("glass", "frosted"), root,
          origin=[0, 0, stem_top + 0.03])
    r_top = b.draw("shade_top_radius")
    r_bot = r_top * b.draw("shade_flare")
    z0 = H - sh
    shade = _shade(r_bot, r_top, sh, 0.003, z0, cap=False)
    # a spider: three thin spokes from the shade's top ring to a washer above the bulb
    spokes = [cylinder_between([0, 0, hub_z], [np.cos(a) * (r_top - 0.0015), np.sin(a) * (r_top - 0.0015), hub_z],
                               0.002, 8) for a in np.arange(3) * 2 * np.pi / 3]
    washer = cylinder(0.012, 0.004, 16, at=(0, 0, hub_z - 0.002))
    b.add("shade", union(shade, washer, *spokes), "shade", shade_fin, root, origin=[0, 0, z0],
          physical="fabric" if shade_fin.kind == "fabric" else None)
    b.attributes.update({"kind": "table", "materials": {"base": base_fin, "shade": shade_fin},
                         "extras": ["a push switch on the base", "a conical shade over the bulb"]})


def _x_to_z(x: float, y: float, z: float) -> np.ndarray:
    """4x4 taking +X to +Z (a button pocket made for a front face, turned to face up), origin at (x, y, z)."""
    m = np.eye(4)
    m[:3, :3] = [[0, 0, -1], [0, 1, 0], [1, 0, 0]]
    m[:3, 3] = [x, y, z]
    return m


def _desk_lamp(b: AssetBuilder) -> None:
    """An articulated desk lamp: weighted base and post, two arms and a head on friction hinges."""
    p = b.p
    # a given body_finish / shade_finish (the table lamp's, what "a red lamp" sets) replaces the desk lamp's own
    fin = b.draw("body_finish", when=False, otherwise=b.draw("desk_finish"))
    rb = b.draw("desk_base_radius")
    base = cylinder(rb, 0.025, 48)
    post_r, arm_r, g = 0.008, 0.008, 0.004
    p1z = 0.025 + b.draw("post_height")
    post = cylinder(post_r, p1z + 0.012 - 0.02, 24, at=(0, 0, 0.02))
    knuckle = cylinder(post_r, 2 * post_r, 24, (0, 1, 0), (0, -post_r, p1z))
    root = b.add("base", union(base, post, knuckle), "base", fin, physical="steel")  # a weighted base
    light = "aluminium" if fin.kind != "plastic" else "plastic"
    scale = p["height"] / 0.5
    L1 = 0.32 * scale
    L2 = 0.3 * scale
    r_s = arm_r * 1.15
    ya = post_r + g + r_s  # lower arm beside the knuckle
    P1 = np.array([0, ya, p1z])
    P2 = P1 + [0, 0, L1]  # upright lower arm: the balanced upper arm puts no torque on it
    lower = union(cylinder_between(P1, P2, arm_r, 16), sphere(r_s, P1, 16), sphere(r_s, P2, 16))
    b.add("lower_arm", lower, "arm", fin, root, "stiff", origin=P1, axis=[0, 1, 0], lower=-0.45, upper=0.45,
          physical=light)
    P2u = np.array([P2[0], 0.0, P2[2]])  # upper arm back at y = 0, beside the lower arm's elbow
    r_k = 0.018
    tip = P2u + [L2, 0, 0]
    upper = cylinder_between(P2u - [0.015, 0, 0], tip - [r_k + g, 0, 0], arm_r, 16)
    b.add("upper_arm", upper, "arm", fin, "lower_arm", "stiff", origin=P2u, axis=[0, 1, 0], lower=-0.5, upper=0.4,
          physical=light)
    neck = 0.055
    shade = _shade(b.draw("head_radius"), 0.03, 0.1, 0.0025, tip[2] - neck - 0.1, cap=True)
    shade = shade.translated([tip[0], tip[1], 0.0])
    head = union(sphere(r_k, tip, 16), cylinder(0.007, neck - r_k * 0.5, 12, (0, 0, -1), tip - [0, 0, r_k * 0.5]),
                 shade)
    hfin = b.draw("shade_finish", when=False, otherwise=b.draw("head_finish"))
    b.add("head", head, "shade", hfin, "upper_arm", "stiff", origin=tip, axis=[0, 1, 0], lower=-0.55, upper=0.55,
          physical="aluminium" if hfin.kind != "plastic" else "plastic")
    r_bulb = 0.022
    bulb = sphere(r_bulb, tip - [0, 0, neck + 0.0025 + r_bulb], 20)
    b.add("bulb", bulb, "bulb", finish("glass", "frosted"), "head", origin=tip - [0, 0, neck + 0.0025])
    # a steel counterweight behind the elbow balances arm, head and bulb (as a balanced-arm lamp's spring
    # would), so no joint carries a steady load that joint friction would have to hold
    dens = {k: physical_material(k).density for k in (light, "steel", "glass",
                                                       "aluminium" if hfin.kind != "plastic" else "plastic")}
    head_rho = dens["aluminium" if hfin.kind != "plastic" else "plastic"]
    arm_x = 0.5 * (L2 - r_k - g - 0.015)  # the arm spans -0.015 .. L2 - r_k - g from the elbow
    moment = (signed_volume(upper) * dens[light] * arm_x
              + (signed_volume(head) * head_rho + signed_volume(bulb) * dens["glass"]) * L2)
    r_cw, off = 0.01, 0.015
    k = dens["steel"] * np.pi * r_cw**2
    lc = float((-k * off + np.sqrt((k * off) ** 2 + 2 * k * moment)) / k)
    cw = cylinder(r_cw, lc, 24, (-1, 0, 0), P2u - [off, 0, 0])
    b.add("counterweight", cw, "other", fin, "upper_arm", origin=P2u - [off, 0, 0], physical="steel")
    b.attributes.update({"kind": "desk", "materials": {"body": fin, "head": hfin},
                         "extras": ["two arms on hinged elbows", "a tilting head", "a counterweight behind the elbow"]})


def build_laptop(b: AssetBuilder) -> None:
    """A closed laptop: a base with a keyboard and touchpad, and a screen lid hinged at the back."""
    W = b.p["width"]
    D = b.derive("depth", W * b.draw("depth_ratio"))
    tb = b.draw("base_thickness")
    tl = b.draw("lid_thickness")
    g = 0.002
    fin = b.draw("body_finish")
    base = rounded_box([-D / 2, -W / 2, 0], [D / 2, W / 2, tb], 0.004, 2)
    kx0, kx1 = -D / 2 + 0.02, -D / 2 + 0.02 + 0.42 * D
    ky = 0.44 * W
    rec = box([kx0, -ky, tb - 0.0015], [kx1, ky, tb + 0.01])
    pad = box([kx1 + 0.03, -0.08 * W, tb - 0.0005], [D / 2 - 0.02, 0.08 * W, tb + 0.01])
    base = difference(base, rec, pad)
    root = b.add("base", base, "base", fin, physical="electronics")
    c = 0.001
    keys = box([kx0 + c, -ky + c, tb - 0.0015 + 0.0003], [kx1 - c, ky - c, tb - 0.0003])
    b.add("keyboard", keys, "keyboard", b.draw("keyboard_finish"), root,
          origin=[(kx0 + kx1) / 2, 0, tb - 0.0015])
    lid = rounded_box([-D / 2, -W / 2, tb + g], [D / 2, W / 2, tb + g + tl], 0.003, 2)
    rim = 0.01
    well = box([-D / 2 + rim, -W / 2 + rim, tb + g - 0.01], [D / 2 - rim, W / 2 - rim, tb + g + 0.001])
    lid = difference(lid, well)
    up = np.deg2rad(b.draw("screen_angle"))
    b.add("screen", lid, "screen", fin, root, "hinge", origin=[-D / 2, 0, tb + g], axis=[0, -1, 0], lower=0.0,
          upper=up, physical="electronics")
    panel = box([-D / 2 + rim + 0.0008, -W / 2 + rim + 0.0008, tb + g + 0.0003], [D / 2 - rim - 0.0008,
                                                                              W / 2 - rim - 0.0008, tb + g + 0.001])
    b.add("display", panel, "panel", finish("glass", "smoked"), "screen", origin=[0, 0, tb + g + 0.001])
    b.attributes.update({"materials": {"body": fin}, "state": "closed",
                         "extras": ["a screen that opens up to "
                                    f"{round(float(np.rad2deg(up)))} degrees", "a keyboard and a touchpad"]})


def build_faucet(b: AssetBuilder) -> None:
    """A deck-mounted faucet: a single lever on top (lifts) or two side handles (turn), and a spout that
    swivels about the column or is fixed."""
    p = b.p
    fin = b.draw("body_finish")
    H = p["height"]
    rc = b.draw("column_radius")
    plate = lathe([(0, 0), (rc * 2.2, 0), (rc * 2.0, 0.01), (0, 0.01)], 32)
    column = cylinder(rc, H * 0.72, 32, at=(0, 0, 0.009))
    top = 0.009 + H * 0.72
    two = p["handles"] == "two"
    pieces = [plate, column]
    g = 0.003
    if two:
        for s in (-1, 1):
            pieces.append(union(cylinder(0.03, 0.008, 24, at=(0, s * 0.085, 0)),
                                cylinder(0.011, 0.022, 16, at=(0, s * 0.085, 0.007))))
        pieces.append(box([-0.012, -0.085, 0], [0.012, 0.085, 0.008]))
    # a hull per piece: one hull round plate and column (a cone) would reach into the spout's collar
    root = b.add("body", union(*pieces), "body", fin, physical="brass", collision=[reduced_hull(x) for x in pieces])
    # spout: a collar around the column with an arm reaching forward and a nozzle pointing down; a swivelling
    # collar turns with a running clearance round the column, a fixed one is fitted tight on it (glued)
    swivel = p["spout"] == "swivel"
    zc = top - 0.075 if not two else max(top - 0.06, 0.075)
    ch = 0.034
    r_in = rc + g if swivel else rc
    r_out = r_in + 0.008
    collar = lathe([(r_in, zc), (r_out, zc), (r_out, zc + ch), (r_in, zc + ch)], 32)
    reach = b.draw("spout_reach")
    za = zc + ch / 2
    arm = cylinder_between([r_in + 0.004, 0, za], [reach, 0, za], 0.011, 20)
    nozzle = cylinder(0.011, 0.04, 20, (0, 0, -1), (reach, 0, za + 0.011))
    elbow = sphere(0.011, (reach, 0, za), 20)
    spout = union(collar, arm, nozzle, elbow)
    spout_pieces = [*annulus_sectors(r_in, r_out, zc, zc + ch, 32, 16), reduced_hull(arm), reduced_hull(nozzle),
                    reduced_hull(elbow)]
    if swivel:
        lim = float(np.deg2rad(b.draw("spout_swing")))
        b.add("spout", spout, "spout", fin, root, "hinge", origin=[0, 0, zc], axis=[0, 0, 1], lower=-lim, upper=lim,
              collision=spout_pieces)
    else:
        b.add("spout", spout, "spout", fin, root, origin=[0, 0, zc], collision=spout_pieces)
    a = b.attributes
    a.update({"materials": {"body": fin}, "spout": "swivelling" if swivel else "fixed"})
    if two:
        a["handles"] = {"style": "cross", "count": 2}
    if not two:
        r_h = 0.011
        pz = top + g + r_h
        hub = cylinder(r_h, 0.03, 20, (0, 1, 0), (0, -0.015, pz))
        lever = union(hub, box([0, -0.006, pz - 0.005], [b.draw("lever_length"), 0.006, pz + 0.005]))
        b.add("lever", lever, "lever", fin, root, "lever", origin=[0, 0, pz], axis=[0, -1, 0], upper=0.55)
        a["extras"] = ["a single lever on top that lifts to open"] + (["a spout that swivels"] if swivel else [])
    else:
        for k, s in enumerate((-1, 1)):
            z0 = 0.007 + 0.022 + g
            c = np.array([0, s * 0.085, z0])
            cross = union(cylinder(0.012, 0.02, 16, at=c), box(c + [-0.03, -0.006, 0.008], c + [0.03, 0.006, 0.018]),
                          box(c + [-0.006, -0.03, 0.008], c + [0.006, 0.03, 0.018]))
            b.add(f"handle_{k}", cross, "handle", fin, root, "lever", origin=c, axis=[0, 0, -s], upper=np.pi / 2)
        a["extras"] = ["hot and cold handles that turn a quarter turn"] + (["a spout that swivels"] if swivel else [])


def build_door(b: AssetBuilder) -> None:
    """An interior door in its frame: a leaf hinged on one side opening outward, lever or knob handles on
    both faces that turn to unlatch."""
    p = b.p
    W, Hd = p["width"], p["height"]
    fw = b.draw("frame_width")
    fd = b.draw("frame_depth")
    tl = b.draw("leaf_thickness")
    g, gb = 0.003, 0.008
    frame_fin = b.draw("frame_finish")
    leaf_fin = b.draw("body_finish", when=not b.draw("door_matches_frame"), otherwise=frame_fin)
    hfin = b.draw("handle_finish")
    frame = difference(box([-fd / 2, -W / 2 - fw, 0], [fd / 2, W / 2 + fw, Hd + fw]),
                       box([-fd / 2 - 0.01, -W / 2, -0.01], [fd / 2 + 0.01, W / 2, Hd]))
    root = b.add("frame", frame, "frame", frame_fin)
    xf = fd / 2
    y0, y1 = -W / 2 + g, W / 2 - g
    hinge = p["hinge"]
    leaf = box([xf - tl, y0, gb], [xf, y1, Hd - g])
    hz = 1.0
    hy = y1 - 0.065 if hinge == "left" else y0 + 0.065
    rose = [cylinder(0.026, 0.008, 32, (s, 0, 0), (xf if s > 0 else xf - tl, hy, hz)) for s in (1, -1)]
    if p["panels"]:
        grooves = []
        for zlo, zhi in ((0.12, 0.9), (1.1, Hd - 0.12)):
            for s in (1, -1):
                xs = xf - 0.004 if s > 0 else xf - tl - 0.01
                grooves.append(box([xs, y0 + 0.1, zlo], [xs + 0.014, y1 - 0.1, zhi]))
        leaf = difference(leaf, *grooves)
    pieces = rectilinear_boxes(leaf) + [reduced_hull(r) for r in rose]
    leaf = union(leaf, *rose)
    left = hinge == "left"
    up = float(np.deg2rad(b.draw("swing")))
    b.add("door", leaf, "door", leaf_fin, root, "hinge", origin=[xf, y0 if left else y1, gb],
          axis=[0, 0, -1] if left else [0, 0, 1], upper=up, collision=pieces)
    style = p["handle_style"]
    toward = -1.0 if left else 1.0  # levers point towards the hinge
    for side, s in (("front", 1), ("back", -1)):
        face = xf + 0.008 + g if s > 0 else xf - tl - 0.008 - g
        c = np.array([face, hy, hz])
        if style == "lever":
            spindle = cylinder(0.009, 0.05, 20, (s, 0, 0), c)
            tipc = c + [s * 0.045, 0, 0]
            bar = box(tipc + [-0.008, min(0, toward * 0.12), -0.008], tipc + [0.008, max(0, toward * 0.12), 0.008])
            m = union(spindle, bar)
        else:
            m = lathe([(0, 0), (0.01, 0), (0.01, 0.03), (0.027, 0.045), (0.027, 0.06), (0, 0.07)], 32)
            m = m.transformed(_x_axis(c, s))
        b.add(f"handle_{side}", m, "handle", hfin, "door", "lever", origin=c, axis=[1, 0, 0] if left else [-1, 0, 0],
              upper=np.pi / 4 if style == "lever" else np.pi / 3, joint_name=f"handle_{side}_turn")
    b.attributes.update({
        "materials": {"frame": frame_fin, "door": leaf_fin, "handles": hfin},
        "doors": [{"position": "front", "hinge": hinge, "window": False, "opens_deg": round(float(np.rad2deg(up)))}],
        "handles": {"style": "lever" if style == "lever" else "knob", "count": 2},
        "extras": (["raised panels"] if p["panels"] else []) + ["a frame around the opening"]})


def _x_axis(c: np.ndarray, s: float) -> np.ndarray:
    """4x4 taking a lathe's +Z onto ±X (``s``), origin at ``c``."""
    m = np.eye(4)
    m[:3, :3] = [[0, 0, s], [0, 1, 0], [-s, 0, 0]]
    m[:3, 3] = c
    return m


WOODS = ("wood", "painted_wood")

CATEGORIES: list[Category] = [
    Category("lamp", "table lamp (base, stem, bulb, shade, push switch) or articulated desk lamp",
             {"kind": choice("table", "desk", doc="table lamp or articulated desk lamp"),
              "height": frange(0.35, 0.7, "m"),
              "body_finish": finish_param(("ceramic", "brushed_metal", "wood", "stone", "glass"),
                                          doc="table lamp's base; given, also a desk lamp's base and arms"),
              "shade_finish": finish_param(("fabric", "fabric", "plastic", "painted_metal"),
                                           doc="table lamp's shade; given, also a desk lamp's head"),
              "base_radius": frange(0.06, 0.11, "table lamp base radius, m", draw="inline"),
              "base_height": frange(0.03, 0.06, "table lamp base height, m", draw="inline"),
              "shade_fraction": frange(0.32, 0.42, "table lamp shade height, fraction of the lamp's height",
                                       draw="inline"),
              "switch_finish": finish_param("plastic", ("black", "white", "grey"), doc="push switch (table lamp)"),
              "shade_top_radius": frange(0.07, 0.12, "table lamp shade's top radius, m", draw="inline"),
              "shade_flare": frange(1.2, 1.7, "table lamp shade's bottom radius over its top radius", draw="inline"),
              "desk_finish": finish_param(("painted_metal", "brushed_metal", "plastic"),
                                          doc="desk lamp's base, arms and counterweight (a given body_finish "
                                              "replaces it)"),
              "desk_base_radius": frange(0.075, 0.1, "desk lamp base radius, m", draw="inline"),
              "post_height": frange(0.04, 0.07, "desk lamp post height above the base, m", draw="inline"),
              "head_radius": frange(0.065, 0.085, "desk lamp head's mouth radius, m", draw="inline"),
              "head_finish": finish_param(("painted_metal", "plastic"),
                                          doc="desk lamp's head (a given shade_finish replaces it)")},
             (0.1, 0.12, 0.25), (0.95, 0.5, 0.85), build_lamp, ("lamp", "table lamp", "light")),
    Category("laptop", "closed laptop: base with keyboard and touchpad, screen lid hinged at the back",
             {"width": frange(0.28, 0.4, "m"),
              "depth_ratio": frange(0.64, 0.72, "depth as a fraction of the width", draw="inline"),
              "depth": frange(0.17, 0.3, "m (default: width x depth_ratio)", draw="derived"),
              "base_thickness": frange(0.011, 0.018, "m", draw="inline"),
              "lid_thickness": frange(0.005, 0.008, "screen lid thickness, m", draw="inline"),
              "body_finish": finish_param(("brushed_metal", "plastic", "painted_metal"),
                                          ("aluminium", "black", "grey", "silver grey", "white", "anthracite"),
                                          doc="case and screen lid"),
              "keyboard_finish": finish_param("plastic", ("black", "grey", "white"), doc="keys"),
              "screen_angle": frange(120, 140, "how far the screen opens, degrees", draw="inline")},
             (0.17, 0.28, 0.015), (0.3, 0.41, 0.03), build_laptop, ("laptop", "notebook computer", "laptop computer")),
    Category("faucet", "deck-mounted faucet: single lift lever or two cross handles, fixed or swivel spout",
             {"height": frange(0.15, 0.3, "m"),
              "handles": choice("one", "two", doc="a single lift lever on top or two cross handles (hot, cold)"),
              "spout": choice("fixed", "swivel", doc="spout fixed or swivelling about the column"),
              "body_finish": finish_param(("chrome", "brushed_metal", "painted_metal"),
                                          ("chrome", "polished nickel", "stainless steel", "brass", "black",
                                           "polished brass", "gold"), doc="the whole faucet"),
              "column_radius": frange(0.02, 0.028, "m", draw="inline"),
              "spout_reach": frange(0.12, 0.2, "spout reach from the column's axis, m", draw="inline"),
              "spout_swing": frange(50, 70, "how far a swivel spout turns each way, degrees", draw="inline"),
              "lever_length": frange(0.08, 0.12, "single lever's length, m", draw="inline")},
             (0.16, 0.085, 0.12), (0.3, 0.28, 0.35), build_faucet, ("faucet", "tap", "mixer tap")),
    Category("door", "interior door in its frame: side-hinged leaf opening outward, lever or knob handles",
             {"width": frange(0.7, 0.95, "opening width, m"), "height": frange(1.95, 2.1, "opening height, m"),
              "hinge": choice("left", "right", doc="side the leaf is hinged on"),
              "handle_style": choice("lever", "knob", doc="handle shape (one on each face)"),
              "panels": choice(False, True, doc="raised panels on the leaf"),
              "frame_width": frange(0.05, 0.09, "frame width round the opening, m", draw="inline"),
              "frame_depth": frange(0.1, 0.15, "frame depth, m", draw="inline"),
              "leaf_thickness": frange(0.035, 0.045, "door leaf thickness, m", draw="inline"),
              "frame_finish": finish_param(WOODS, doc="frame"),
              "door_matches_frame": flag(0.6, "the leaf in the frame's finish"),
              "body_finish": finish_param(WOODS, doc="door leaf (when not the frame's)"),
              "handle_finish": finish_param(("brushed_metal", "chrome"), doc="handles"),
              "swing": frange(95, 115, "how far the door opens, degrees", draw="inline")},
             (0.1, 0.78, 2.0), (0.3, 1.15, 2.2), build_door, ("door", "interior door", "door and frame")),
]
