"""Containers: lidded box, trash can, jar, bottle, mug, bowl, vase (revolved hollow vessels), toolbox,
suitcase (telescoping handle, wheels)."""

from __future__ import annotations

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.carcass import CarcassStyle, Cell, Row, build_carcass
from seed3d.synth.collision import annulus_sectors, reduced_hull, subtract_prism, wheel_hull
from seed3d.synth.core import AssetBuilder, Category, choice, finish_param, flag, frange, irange
from seed3d.synth.fixtures import handle
from seed3d.synth.materials import METAL_KINDS
from seed3d.synth.primitives import (
    box,
    cylinder,
    difference,
    lathe,
    rounded_box,
    torus,
    union,
)
from seed3d.typed import FloatArray


def vessel_profile(outer: FloatArray, wall: float, bottom: float) -> np.ndarray:
    """A closed lathe profile for a hollow, open-topped vessel.

    ``outer`` lists (r, z) from the outer bottom edge up to the rim, z strictly increasing after the first
    point; the inside follows it ``wall`` further in, with a floor ``bottom`` thick.
    """
    out = np.asarray(outer, np.float64)
    inner = out[1:].copy()
    inner[:, 0] -= wall
    inner[:, 1] = np.maximum(inner[:, 1], bottom)
    if np.any(inner[:, 0] <= 0):
        raise ValueError("vessel wall is thicker than its radius")
    inner = inner[::-1]
    return np.concatenate([[[0.0, 0.0]], out, inner, [[0.0, bottom]]])


def _outer_solid(outer: FloatArray) -> Mesh:
    """The vessel filled in (for trimming handles to its surface)."""
    out = np.asarray(outer, np.float64)
    return lathe(np.concatenate([[[0.0, 0.0]], out, [[0.0, out[-1, 1]]]]), 48)


# --------------------------------------------------------------------------------------------- boxes


def build_box(b: AssetBuilder) -> None:
    """A storage box or chest: an open box with a lid hinged on its back edge, or sliding off the front in runners
    along the side walls (a lip over each edge of the lid, a stop at the back)."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    D = min(D, W * 1.1)
    fin = b.draw("body_finish")
    lfin = b.derive("lid_finish", fin)
    t = float(np.clip(0.03 * min(W, D, H), 0.004, 0.02))
    tl = t * 1.2
    g = 0.002
    sliding = p["lid"] != "hinged"
    sheet = "sheet_metal" if fin.kind in METAL_KINDS else None
    if sliding:
        # side walls thick enough to carry the lid inside a 3 mm upright; each upright ends in a lip lapping
        # over the lid with a running clearance, and a stop rises at the back: the lid can only slide out forwards
        u, tw, lap, tlip = 0.003, max(t, 0.008), max(t, 0.006), max(0.003, t / 2)
        Hb = H - tl - 2 * g - tlip
        ztop = Hb + g + tl + g  # underside of the lips
        shell = [box([-D / 2, -W / 2, 0], [D / 2, W / 2, t])]  # floor
        shell += [box([x0, -W / 2 + tw, t - 0.001], [x1, W / 2 - tw, Hb]) for x0, x1 in ((-D / 2, -D / 2 + t),
                                                                                     (D / 2 - t, D / 2))]
        for s in (-1.0, 1.0):
            shell += [box([-D / 2, min(s * W / 2, s * (W / 2 - tw)), t - 0.001],
                          [D / 2, max(s * W / 2, s * (W / 2 - tw)), Hb]),  # side wall
                      box([-D / 2, min(s * W / 2, s * (W / 2 - u)), Hb - 0.001],
                          [D / 2, max(s * W / 2, s * (W / 2 - u)), H]),  # upright
                      box([-D / 2, min(s * W / 2, s * (W / 2 - u - g - lap)), ztop],
                          [D / 2, max(s * W / 2, s * (W / 2 - u - g - lap)), H])]  # lip
        shell.append(box([-D / 2, -W / 2, Hb - 0.001], [-D / 2 + u, W / 2, H]))  # back stop
        root = b.add("body", union(*shell), "body", fin, physical=sheet, collision=shell)
        lid_mesh = box([-D / 2 + u + g, -W / 2 + u + g, Hb + g], [D / 2, W / 2 - u - g, Hb + g + tl])
    else:
        Hb = H - tl - g
        body = difference(box([-D / 2, -W / 2, 0], [D / 2, W / 2, Hb]),
                          box([-D / 2 + t, -W / 2 + t, t], [D / 2 - t, W / 2 - t, Hb + 0.01]))
        root = b.add("body", body, "body", fin, physical=sheet)
        lid_mesh = box([-D / 2, -W / 2, Hb + g], [D / 2, W / 2, Hb + g + tl])
    hfin = b.draw("handle_finish")
    a = b.attributes
    a["materials"] = {"body": fin, "handles": hfin}
    if lfin != fin:
        a["materials"]["lid"] = lfin
    lid_sheet = "sheet_metal" if lfin.kind in METAL_KINDS else None
    if not sliding:
        up = b.draw("lid_swing")
        b.add("lid", lid_mesh, "lid", lfin, root, "lid", origin=[-D / 2, 0, Hb + g], axis=[0, -1, 0], upper=up,
              physical=lid_sheet)
        a["lid"] = {"type": "hinged at the back", "opens_deg": round(float(np.rad2deg(up)))}
    else:
        travel = 0.85 * D
        b.add("lid", lid_mesh, "lid", lfin, root, "slide", origin=[0, 0, Hb + g], axis=[1, 0, 0], upper=travel,
              physical=lid_sheet)
        a["lid"] = {"type": "sliding", "travel_m": round(travel, 3)}
    style = b.draw("handle_style")
    at = [D / 2 - max(0.03, 0.12 * D), 0.0, Hb + g + tl]
    L = float(min(0.12, 0.4 * W))
    b.add("lid_handle", handle(style, at, L, normal=(0, 0, 1), along=(0, 1, 0), scale=min(1.0, 4 * H)), "handle",
          hfin, "lid", origin=at)
    count = 1
    if b.derive("handles", 3 if p["side_handles"] and H > 0.12 else 1) == 3:
        for side, s in (("left", -1), ("right", 1)):
            at = [0.0, s * W / 2, Hb * 0.7]
            b.add(f"handle_{side}", handle("bar", at, min(0.12, 0.5 * D), normal=(0, s, 0), along=(1, 0, 0)),
                  "handle", hfin, root, origin=at)
            count += 1
    a["handles"] = {"style": style, "count": count}


def build_trash_can(b: AssetBuilder) -> None:
    """A kitchen bin, round or square: open, with a flip lid hinged at the back, or a pedal-operated lid."""
    p = b.p
    H, R = p["height"], p["radius"]
    fin = b.draw("body_finish")
    t = 0.004 if fin.kind != "plastic" else 0.006
    tl = 0.012
    g = 0.003
    has_lid = p["lid"] != "none"
    Hb = H - (tl + g if has_lid else 0.0)
    a = b.attributes
    a.update({"shape": p["shape"], "materials": {"body": fin}})
    if p["shape"] == "round":
        outer = [(R * 0.9, 0.0), (R, Hb * 0.15), (R, Hb)]
        body = lathe(vessel_profile(outer, t, t * 1.5), 48)
        lid = cylinder(R, tl, 48, at=(0, 0, Hb + g))
        back = -R
    else:
        body = difference(rounded_box([-R, -R, 0], [R, R, Hb], 0.02, 3),
                          rounded_box([-R + t, -R + t, t * 1.5], [R - t, R - t, Hb + 0.05], 0.016, 3))
        lid = rounded_box([-R, -R, Hb + g], [R, R, Hb + g + tl], 0.006, 2)
        back = -R
    sheet = "sheet_metal" if fin.kind in METAL_KINDS else None
    root = b.add("body", body, "body", fin, physical=sheet)
    if not has_lid:
        a["lid"] = {"type": "none"}
        return
    lfin = b.draw("lid_finish", when=not b.draw("lid_matches_body"), otherwise=fin)
    up = b.draw("lid_swing")
    lid_name = b.add("lid", lid, "lid", lfin, root, "lid", origin=[back, 0, Hb + g], axis=[0, -1, 0], upper=up,
                     physical="sheet_metal" if lfin.kind in METAL_KINDS else None)
    a["lid"] = {"type": "hinged at the back", "opens_deg": round(float(np.rad2deg(up)))}
    if lfin != fin:
        a["materials"]["lid"] = lfin
    if p["lid"] == "flip":
        at = [R * 0.75, 0.0, Hb + g + tl]
        b.add("lid_handle", handle("tab", at, 0.06, normal=(0, 0, 1), along=(0, 1, 0)), "handle", lfin, lid_name,
              origin=at)
    else:
        # A see-saw lever, as the pedal of a real bin whose lid rod weighs down its inner end: pivoted a little
        # beyond the plate's middle, so its centre of mass lies on the bin's side of the pivot and gravity holds
        # it up against its stop (q = 0) instead of letting it sag (joint friction does not hold a lever in
        # MuJoCo: it creeps). Pressing the outer end tips it down by up to 0.3 rad.
        pw, pl, pt = min(0.12, 1.2 * R), 0.09, 0.01
        gp = 0.005
        pivot = 0.56 * pl
        zp = pt / 2 + (pl - pivot) * np.sin(0.3) + 0.006
        x0 = R + gp
        pedal = box([x0, -pw / 2, zp - pt / 2], [x0 + pl, pw / 2, zp + pt / 2])
        b.add("pedal", pedal, "lever", b.draw("pedal_finish"), root, "lever", origin=[x0 + pivot, 0, zp],
              axis=[0, 1, 0], upper=0.3)
        a["extras"] = ["a foot pedal at the front that lifts the lid"]


# --------------------------------------------------------------------------------------------- vessels


def build_jar(b: AssetBuilder) -> None:
    """A glass or ceramic jar with a screw lid that turns about the jar's axis."""
    p = b.p
    H, R = p["height"], p["radius"]
    fin = b.draw("body_finish")
    wall = 0.004
    rn = R * b.draw("neck")
    lid_h = float(np.clip(0.18 * H, 0.012, 0.03))
    hb = H - lid_h + 0.006
    shoulder = hb - lid_h * 0.9
    outer = [(R * 0.95, 0.0), (R, 0.01), (R, shoulder * 0.85), (rn + 0.002, shoulder), (rn, shoulder + 0.003),
             (rn, hb)]
    body = lathe(vessel_profile(outer, wall, 0.006), 48)
    root = b.add("body", body, "body", fin)
    lfin = b.draw("lid_finish")
    g = 0.0025
    tc = 0.003
    rc = rn + g + tc
    zt = hb + g + tc
    zb = max(zt - lid_h, shoulder + 0.004)
    cap = lathe([(0, zt), (rc, zt), (rc, zb), (rc - tc, zb), (rc - tc, zt - tc), (0, zt - tc)], 48)
    pieces = [reduced_hull(cylinder(rc, tc, 48, at=(0, 0, zt - tc))),
              *annulus_sectors(rc - tc, rc, zb, zt - tc, 48, 24)]
    b.add("lid", cap, "lid", lfin, root, "spin", origin=[0, 0, zb], axis=[0, 0, 1], collision=pieces)
    b.attributes.update({"materials": {"body": fin, "lid": lfin}, "lid": {"type": "screw-on"},
                         "extras": ["a screw lid that turns about the vertical axis"]})


def build_bottle(b: AssetBuilder) -> None:
    """A bottle (wine, water or milk style) with a narrow neck and a screw cap that turns about its axis."""
    p = b.p
    H, R = p["height"], p["radius"]
    fin = b.draw("body_finish")
    wall = 0.0025 if fin.kind == "glass" else 0.0015
    rn = float(np.clip(R * b.draw("neck"), 0.01, 0.02))
    cap_h = b.draw("cap_height")
    hb = H - cap_h + 0.012
    style = p["style"]
    s0 = hb * {"wine": 0.62, "water": 0.72, "milk": 0.55}[style]
    s1 = hb * {"wine": 0.78, "water": 0.82, "milk": 0.7}[style]
    outer = [(R * 0.96, 0.0), (R, 0.006), (R, s0), (R * 0.7, (s0 + s1) / 2), (rn + 0.0015, s1), (rn, s1 + 0.005),
             (rn, hb - 0.006), (rn + 0.0015, hb - 0.004), (rn, hb)]
    body = lathe(vessel_profile(outer, wall, 0.004), 48)
    root = b.add("body", body, "body", fin)
    cfin = b.draw("lid_finish")
    g, tc = 0.002, 0.0015
    rc = rn + 0.0015 + g + tc
    zt = hb + g + tc
    zb = hb - cap_h + 0.012 + 0.002
    cap = lathe([(0, zt), (rc, zt), (rc, zb), (rc - tc, zb), (rc - tc, zt - tc), (0, zt - tc)], 32)
    pieces = [reduced_hull(cylinder(rc, tc, 32, at=(0, 0, zt - tc))),
              *annulus_sectors(rc - tc, rc, zb, zt - tc, 32, 16)]
    b.add("cap", cap, "lid", cfin, root, "spin", origin=[0, 0, zb], axis=[0, 0, 1], collision=pieces)
    b.attributes.update({"style": style, "materials": {"body": fin, "cap": cfin}, "lid": {"type": "screw cap"},
                         "extras": [f"a {style}-bottle shape with a screw cap"]})


def build_mug(b: AssetBuilder) -> None:
    """A ceramic or enamel mug with a loop handle on its side."""
    p = b.p
    H, R = p["height"], p["radius"]
    fin = b.draw("body_finish")
    wall = 0.004 if fin.kind != "painted_metal" else 0.0015
    taper = b.draw("taper")
    outer = [(R * taper * 0.95, 0.0), (R * taper, 0.006), (R, H)]
    body = lathe(vessel_profile(outer, wall, 0.007), 48)
    root = b.add("body", body, "body", fin)
    a_r = float(np.clip(0.3 * H, 0.022, 0.04))
    tube = b.draw("handle_thickness")
    ring = torus(a_r, tube, 32, 12, direction=(1, 0, 0), at=(0, R * 0.95 + a_r * 0.35, H * 0.52))
    loop = difference(ring, _outer_solid(outer))
    hfin = b.derive("handle_finish", fin)
    b.add("handle", loop, "handle", hfin, root, origin=[0, R, H * 0.52])
    b.attributes.update({"materials": {"body": fin} if hfin == fin else {"body": fin, "handle": hfin},
                         "extras": ["a loop handle on its side"]})


def build_bowl(b: AssetBuilder) -> None:
    """A bowl with a foot ring and a flared wall, at least 0.35 times as deep as its radius."""
    p = b.p
    R = p["radius"]
    H = max(p["height"], 0.35 * R)
    fin = b.draw("body_finish")
    wall = 0.005 if fin.kind != "plastic" else 0.003
    foot = R * b.draw("foot")
    n = 8
    t = np.linspace(0, 1, n)
    curve = b.draw("curve")
    rs = foot + (R - foot) * (1 - (1 - t) ** curve)
    zs = 0.008 + (H - 0.008) * t
    outer = [(foot * 0.97, 0.0), (foot, 0.004)] + [(r, z) for r, z in zip(rs[1:], zs[1:], strict=True)]
    body = lathe(vessel_profile(outer, wall, 0.008), 48)
    b.add("body", body, "body", fin)
    b.attributes.update({"materials": {"body": fin}})


def build_vase(b: AssetBuilder) -> None:
    """A vase: belly, neck and flared lip from a random smooth profile."""
    p = b.p
    H, R = p["height"], p["radius"]
    fin = b.draw("body_finish")
    wall = 0.004
    k = 10
    t = np.linspace(0, 1, k)
    belly = b.draw("belly")
    neck = b.draw("neck")
    lip = b.draw("lip")
    shape = 1.0 - (1 - neck) * np.clip((t - belly) / (0.85 - belly), 0, 1) ** 1.5
    shape = np.where(t > 0.85, neck + (lip - neck) * (t - 0.85) / 0.15, shape)
    shape *= 0.75 + 0.25 * np.sin(np.pi * np.clip(t / (belly * 1.4), 0, 1))
    rs = np.maximum(R * shape, 0.012)
    zs = 0.006 + (H - 0.006) * t
    outer = [(rs[0] * 0.95, 0.0)] + [(r, z) for r, z in zip(rs, zs, strict=True)]
    body = lathe(vessel_profile(outer, wall, 0.008), 48)
    b.add("body", body, "body", fin)
    b.attributes.update({"materials": {"body": fin}})


# --------------------------------------------------------------------------------------------- toolbox, suitcase


def build_toolbox(b: AssetBuilder) -> None:
    """A toolbox: an open tray compartment under a back-hinged lid with a carry handle, optional drawers."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    fin = b.draw("body_finish")
    hfin = b.draw("handle_finish")
    n_dr = p["drawers"]
    tl = 0.02
    g = 0.003
    Hb = H - tl - g
    well = Hb * (0.55 if n_dr else 0.9)
    sheet = "sheet_metal" if fin.kind in METAL_KINDS else None
    st = CarcassStyle(body=fin, front=fin, handle=hfin, handle_style="tab", wall=0.006, back=0.004, front_t=0.008,
                      gap=0.002, base="none", base_h=0.0, top_well=well, body_physical=sheet, front_physical=sheet)
    rows = [Row(well + 0.01, [Cell("solid")])] + [Row((Hb - well - 0.01) / n_dr, [Cell("drawer")])
                                                  for _ in range(n_dr)]
    facts = build_carcass(b, W, D, Hb, rows, st)
    root = facts["body"]
    lid = rounded_box([-D / 2, -W / 2, Hb + g], [D / 2, W / 2, Hb + g + tl], 0.005, 2)
    up = b.draw("lid_swing")
    lfin = b.derive("lid_finish", fin)
    b.add("lid", lid, "lid", lfin, root, "lid", origin=[-D / 2, 0, Hb + g], axis=[0, -1, 0], upper=up,
          physical="sheet_metal" if lfin.kind in METAL_KINDS else None)
    at = [0.0, 0.0, Hb + g + tl]
    b.add("lid_handle", handle("arch", at, min(0.6 * W, 0.22), normal=(0, 0, 1), along=(0, 1, 0), scale=1.3),
          "handle", hfin, "lid", origin=at)
    for side, s in (("left", -1), ("right", 1)):
        at = [D / 2, s * W * 0.3, Hb - 0.02]
        latch = box([D / 2, s * W * 0.3 - 0.015, Hb - 0.035], [D / 2 + 0.008, s * W * 0.3 + 0.015, Hb - 0.005])
        b.add(f"latch_{side}", latch, "other", hfin, root, origin=at)
    a = b.attributes
    a.update({"materials": {"body": fin, "handles": hfin} | ({"lid": lfin} if lfin != fin else {}),
              "drawers": facts["drawers"],
              "lid": {"type": "hinged at the back", "opens_deg": round(float(np.rad2deg(up)))},
              "extras": ["a carry handle on the lid", "two latches on the front"]})


def build_suitcase(b: AssetBuilder) -> None:
    """An upright suitcase: hard or soft shell, a telescoping handle that slides up out of the back, a carry
    handle on top, two or four wheels that spin on their axles."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    fin = b.draw("body_finish")
    trim = b.draw("handle_finish")
    rub = b.draw("wheel_finish")
    wr = b.draw("wheel_radius")
    ww = 0.018
    g = 0.003
    zb = 2 * wr + g + 0.012
    shell = rounded_box([-D / 2, -W / 2, zb], [D / 2, W / 2, H], 0.03 if fin.kind == "plastic" else 0.02, 3)
    # telescoping handle channels at the back
    hw = float(min(0.16, 0.4 * W))
    xr = -D / 2 + 0.035
    ch_depth = 0.55 * (H - zb)
    rod_r, ch_r = 0.008, 0.0115
    cutters = [cylinder(ch_r, ch_depth + 0.05, 24, at=(xr, s * hw / 2, H - ch_depth)) for s in (-1, 1)]
    n_wheels = p["wheels"]
    spots = [(-D / 2 + 0.045, s * (W / 2 - 0.045)) for s in (-1, 1)]
    if n_wheels == 4:
        spots += [(D / 2 - 0.045, s * (W / 2 - 0.045)) for s in (-1, 1)]
    forks = []
    for x, y in spots:
        for s in (-1, 1):
            y0 = y + s * (ww / 2 + g)
            y1 = y0 + s * 0.006
            forks.append(box([x - wr * 0.8, min(y0, y1), wr - 0.004], [x + wr * 0.8, max(y0, y1), zb + 0.005]))
        forks.append(box([x - wr * 0.8, y - ww / 2 - g - 0.006, 2 * wr + g], [x + wr * 0.8, y + ww / 2 + g + 0.006,
                                                                            zb + 0.005]))
    feet = []
    if n_wheels == 2:
        feet = [box([D / 2 - 0.06, s * (W / 2 - 0.05) - 0.015, 0.0], [D / 2 - 0.03, s * (W / 2 - 0.05) + 0.015,
                                                                       zb + 0.005]) for s in (-1, 1)]
    body = union(difference(shell, *cutters), *forks, *feet)
    pieces = [reduced_hull(shell)]
    for s in (-1, 1):  # an octagon around each round channel: the collision hole is never smaller
        pieces = subtract_prism(pieces, cylinder(ch_r / np.cos(np.pi / 8), ch_depth + 0.05, 8,
                                                 at=(xr, s * hw / 2, H - ch_depth)), (0, 0, 1))
    root = b.add("body", body, "body", fin, physical="luggage_shell", collision=pieces + forks + feet)
    for k, (x, y) in enumerate(spots):
        wheel = cylinder(wr, ww, 32, (0, 1, 0), (x, y - ww / 2, wr))
        b.add(f"wheel_{k}", wheel, "wheel", rub, root, "wheel", origin=[x, y, wr], axis=[0, 1, 0],
              collision=[wheel_hull([x, y, wr], [0, 1, 0], wr, ww)])
    # the telescoping handle: two rods in the channels joined by a grip above the top
    rod_len = ch_depth - 0.012
    gz = H + 0.008
    rods = [cylinder(rod_r, rod_len + (gz - H) + 0.01, 20, at=(xr, s * hw / 2, H - rod_len)) for s in (-1, 1)]
    grip = box([xr - 0.014, -hw / 2 - 0.014, gz], [xr + 0.014, hw / 2 + 0.014, gz + 0.028])
    travel = 0.8 * rod_len
    b.add("telescoping_handle", union(*rods, grip), "handle", trim, root, "slide", origin=[xr, 0, gz],
          axis=[0, 0, 1], upper=travel)
    at = [D / 2 - 0.07 if D > 0.2 else 0.0, 0.0, H]
    at[0] = max(at[0], xr + 0.06)
    b.add("carry_handle", handle("arch", at, min(0.16, 0.5 * W), normal=(0, 0, 1), along=(0, 1, 0)), "handle", trim,
          root, origin=at)
    b.attributes.update({
        "shell": "hard" if fin.kind == "plastic" else "soft", "materials": {"body": fin, "trim": trim},
        "wheels": n_wheels, "extras": ["a telescoping handle that pulls up from the back", "a carry handle on top"]})


_LID_SWING = "opening limit of the hinged lid, rad"

CATEGORIES: list[Category] = [
    Category("box", "storage box or chest with a back-hinged or sliding lid, optional side handles",
             {"width": frange(0.15, 0.9, "m"), "depth": frange(0.12, 0.6, "m (at most 1.1 times the width)"),
              "height": frange(0.08, 0.6, "m"),
              "lid": choice("hinged", "hinged", "sliding", doc="lid hinged at the back, or sliding out forwards"),
              "side_handles": choice(False, True, doc="a bar handle on each side (boxes taller than 0.12 m)"),
              "body_finish": finish_param(("wood", "painted_wood", "plastic", "painted_metal"), doc="box"),
              "lid_finish": finish_param(("wood", "painted_wood", "plastic", "painted_metal"),
                                         doc="lid (default: the body's)", draw="derived"),
              "handle_finish": finish_param(("brushed_metal", "chrome", "plastic", "wood"), doc="handles"),
              "lid_swing": frange(1.6, 1.95, _LID_SWING + " (lid=hinged)", draw="inline"),
              "handle_style": choice("knob", "tab", "bar", doc="handle on the lid", draw="inline"),
              "handles": choice(1, 3, doc="the lid's handle, plus one on each side when 3 (default: 3 with "
                                "side_handles on a box taller than 0.12 m)", draw="derived")},
             (0.1, 0.15, 0.08), (0.7, 1.0, 0.65), build_box, ("box", "storage box", "chest", "lidded box")),
    Category("trash_can", "kitchen bin, round or square, open, flip-lid or pedal-operated",
             {"height": frange(0.3, 0.75, "m"), "radius": frange(0.1, 0.2, "m (half the width when square)"),
              "shape": choice("round", "square", doc="plan shape"),
              "lid": choice("none", "flip", "pedal", doc="no lid, a lid flipped up by a tab, or a pedal-operated "
                            "lid"),
              "body_finish": finish_param(("brushed_metal", "painted_metal", "plastic"), doc="bin"),
              "lid_matches_body": flag(0.6, "lid in the body's finish"),
              "lid_finish": finish_param(("plastic", "brushed_metal"), doc="lid (when not the body's)"),
              "lid_swing": frange(1.4, 1.9, _LID_SWING, draw="inline"),
              "pedal_finish": finish_param(("plastic", "brushed_metal"), ("black", "grey", "stainless steel"),
                                           doc="foot pedal (lid=pedal)")},
             (0.2, 0.2, 0.3), (0.5, 0.42, 0.78), build_trash_can, ("trash can", "bin", "waste bin", "rubbish bin")),
    Category("jar", "jar with a screw lid that turns about its axis",
             {"height": frange(0.08, 0.3, "m"), "radius": frange(0.035, 0.1, "m"),
              "body_finish": finish_param(("glass", "ceramic", "plastic"), doc="jar"),
              "neck": frange(0.75, 0.95, "neck radius under the lid, fraction of the radius", draw="inline"),
              "lid_finish": finish_param(("painted_metal", "plastic", "wood", "brushed_metal"), doc="screw lid")},
             (0.07, 0.07, 0.075), (0.22, 0.22, 0.32), build_jar, ("jar", "storage jar")),
    Category("bottle", "wine, water or milk bottle with a screw cap",
             {"height": frange(0.18, 0.38, "m"), "radius": frange(0.03, 0.055, "m"),
              "style": choice("wine", "water", "milk", doc="profile: where the shoulder narrows to the neck"),
              "body_finish": finish_param(("glass", "plastic"), doc="bottle"),
              "neck": frange(0.3, 0.45, "neck radius, fraction of the radius (kept within 0.01-0.02 m)",
                             draw="inline"),
              "cap_height": frange(0.018, 0.03, "screw cap height, m", draw="inline"),
              "lid_finish": finish_param(("plastic", "painted_metal"), doc="screw cap")},
             (0.06, 0.06, 0.16), (0.12, 0.12, 0.4), build_bottle, ("bottle",)),
    Category("mug", "mug or cup with a loop handle",
             {"height": frange(0.07, 0.12, "m"), "radius": frange(0.035, 0.05, "rim radius, m"),
              "body_finish": finish_param(("ceramic", "ceramic", "painted_metal", "glass"), doc="mug"),
              "taper": frange(0.85, 1.0, "bottom radius, fraction of the rim radius", draw="inline"),
              "handle_thickness": frange(0.005, 0.008, "tube radius of the loop handle, m", draw="inline"),
              "handle_finish": finish_param(("ceramic", "painted_metal", "glass"), doc="loop handle (default: the "
                                            "body's)", draw="derived")},
             (0.07, 0.09, 0.07), (0.12, 0.17, 0.13), build_mug, ("mug", "cup", "coffee mug")),
    Category("bowl", "bowl with a foot ring and a flared wall",
             {"height": frange(0.04, 0.15, "m (at least 0.35 times the radius)"),
              "radius": frange(0.06, 0.2, "rim radius, m"),
              "body_finish": finish_param(("ceramic", "ceramic", "wood", "glass", "plastic"), doc="bowl"),
              "foot": frange(0.35, 0.5, "foot ring radius, fraction of the rim radius", draw="inline"),
              "curve": frange(1.5, 3.0, "wall curvature (1: straight flare, higher: rounder)", draw="inline",
                              limits=(1.0, 4.0))},
             (0.11, 0.11, 0.04), (0.41, 0.41, 0.16), build_bowl, ("bowl",)),
    Category("vase", "vase with a random revolved profile (belly, neck, lip)",
             {"height": frange(0.15, 0.6, "m"), "radius": frange(0.05, 0.15, "belly radius, m"),
              "body_finish": finish_param(("ceramic", "glass", "stone", "ceramic"), doc="vase"),
              "belly": frange(0.25, 0.6, "where the belly starts narrowing to the neck, fraction of the height",
                              draw="inline"),
              "neck": frange(0.3, 0.6, "neck radius, fraction of the belly radius", draw="inline"),
              "lip": frange(0.4, 0.85, "lip radius, fraction of the belly radius", draw="inline",
                            limits=(0.3, 1.0))},
             (0.04, 0.04, 0.15), (0.32, 0.32, 0.62), build_vase, ("vase",)),
    Category("toolbox", "toolbox with a back-hinged lid, carry handle, latches and 0-2 drawers",
             {"width": frange(0.3, 0.6, "m"), "depth": frange(0.16, 0.3, "m"), "height": frange(0.15, 0.4, "m"),
              "drawers": irange(0, 2, "drawers under the tray, one per row"),
              "body_finish": finish_param(("painted_metal", "plastic"), ("red", "blue", "black", "yellow", "green",
                                                                         "orange", "grey"), doc="box"),
              "handle_finish": finish_param(("plastic", "chrome", "brushed_metal"),
                                            ("black", "grey", "chrome", "stainless steel"),
                                            doc="carry handle, drawer pulls and latches"),
              "lid_swing": frange(1.6, 1.95, _LID_SWING, draw="inline"),
              "lid_finish": finish_param(("painted_metal", "plastic"), doc="lid (default: the body's)",
                                         draw="derived")},
             (0.15, 0.3, 0.15), (0.34, 0.62, 0.45), build_toolbox, ("toolbox", "tool box", "tool chest")),
    Category("suitcase", "upright suitcase with telescoping handle, carry handle and 2 or 4 spinning wheels",
             {"width": frange(0.35, 0.5, "m"), "depth": frange(0.2, 0.32, "m"),
              "height": frange(0.55, 0.8, "m (a caller may give 0.45..0.9)", limits=(0.45, 0.9)),
              "wheels": choice(2, 4, doc="two wheels at the back (and feet at the front), or four"),
              "body_finish": finish_param(("plastic", "fabric"), doc="shell (plastic: hard shell, fabric: soft)"),
              "handle_finish": finish_param(("plastic", "brushed_metal"), ("black", "grey", "aluminium"),
                                            doc="telescoping and carry handles"),
              "wheel_finish": finish_param("rubber", doc="wheels"),
              "wheel_radius": frange(0.022, 0.03, "m", draw="inline")},
             (0.2, 0.35, 0.56), (0.34, 0.52, 0.85), build_suitcase, ("suitcase", "trolley case", "luggage case")),
]
