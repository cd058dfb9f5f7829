"""Furnishings that scenes are dressed with: floor lamp, ceiling (pendant) lamp, range hood, curtain rod with
curtains, and rug.

Each moves as the real one does: a floor lamp's foot switch presses into its weighted base and an arc lamp's shade
tilts on a friction knuckle; a pendant swings about its canopy; a range hood's buttons press in, its grease filters
hinge down and its visor slides out; curtain panels slide along their rod between the brackets; a rug lies still.
Every moving part keeps at least 1 mm from everything else at rest and over its range, and parts that are not
convex get exact convex collision pieces (ring sectors, arc segments, boxes, pleat-by-pleat hulls of a curtain), so
the simulated clearances are the visual ones. Thin parts (shades, curtains, rugs) are closed solids a few
millimetres thick whose collision pieces are never flat.

Frames follow the other categories: +Z up, the front along +X, the origin at the bottom centre of the bounding box.
Wall-mounted objects (range hood, curtain rod) have their back at the bounding box's -X face; the ceiling lamp's
canopy top is its highest point.
"""

from __future__ import annotations

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.collision import (
    annulus_sectors,
    arc_pieces,
    rectilinear_boxes,
    reduced_hull,
    ring_pieces,
    subtract_prism,
)
from seed3d.synth.core import AssetBuilder, Category, choice, finish_param, flag, frange, irange
from seed3d.synth.describe import number
from seed3d.synth.fixtures import button_pocket, push_button
from seed3d.synth.materials import METAL_KINDS, Finish, finish
from seed3d.synth.primitives import (
    box,
    cylinder,
    cylinder_between,
    difference,
    hull,
    intersection,
    lathe,
    prism,
    sphere,
    torus,
    union,
)
from seed3d.typed import FloatArray

#: 4x4 turning a solid built about +Z so that its axis lies along +Y (local +Y goes to world -Z).
_Z_TO_Y = np.array([[1.0, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1]])


def _along_y(mesh: Mesh, at: FloatArray) -> Mesh:
    """``mesh`` (built about +Z through the origin) turned to lie along +Y and moved to ``at``."""
    m = _Z_TO_Y.copy()
    m[:3, 3] = at
    return mesh.transformed(m)


def _shade_physical(fin: Finish) -> str | None:
    """A shade's physical material: spun aluminium for metal shades (a thin shell), else its finish's."""
    return "aluminium" if fin.kind in METAL_KINDS else None


def _cone_shell(r_bot: float, r_top: float, z0: float, h: float, t: float,
                segments: int = 48) -> tuple[Mesh, list[Mesh]]:
    """An open cone shell ``t`` thick from z0 (radius ``r_bot``) to z0 + h (``r_top``) and its sector pieces."""
    loop = [(r_bot, z0), (r_top, z0 + h), (r_top - t, z0 + h), (r_bot - t, z0)]
    return lathe(loop, segments), ring_pieces(loop, 24)


# --------------------------------------------------------------------------------------------- floor lamp


def _weighted_base(b: AssetBuilder, rb: float, tb: float, fin: Finish) -> tuple[str, FloatArray]:
    """The base disc with a foot switch pressing into a pocket behind the post: (root name, switch origin)."""
    base = lathe([(0, 0), (rb, 0), (rb, tb * 0.6), (rb * 0.92, tb), (0, tb)], 64)
    sx = -0.62 * rb  # behind the post (an arc reaches forward, +X)
    r_pocket, depth = 0.013 + 0.0015, 0.014
    pocket = cylinder(r_pocket, depth + 0.01, 32, at=(sx, 0, tb - depth))
    coarse = cylinder(r_pocket / np.cos(np.pi / 8), depth + 0.01, 8, at=(sx, 0, tb - depth))
    # a stone slab, or a steel shell weighted with concrete
    root = b.add("base", difference(base, pocket), "base", fin, physical=None if fin.kind == "stone" else "concrete",
                 collision=subtract_prism([reduced_hull(base)], coarse, (0, 0, 1)))
    return root, np.array([sx, 0.0, tb])


def _tube(fin: Finish) -> str | None:
    """A post's or arm's physical material: a thin-walled metal tube weighs as sheet metal, not a solid rod."""
    return "sheet_metal" if fin.kind in METAL_KINDS else None


def build_floor_lamp(b: AssetBuilder) -> None:
    """A standing lamp: weighted base and foot switch; a post under a shade, or an arc whose hung shade tilts."""
    p = b.p
    H = p["height"]
    arc = p["kind"] == "arc"
    base_fin = b.draw("base_finish")
    fin = b.draw("body_finish")
    shade_fin = b.draw("shade_finish")
    rb = b.draw("arc_base_radius") if arc else b.draw("base_radius")
    tb = b.draw("arc_base_thickness") if arc else b.draw("base_thickness")
    rp = b.draw("post_radius")
    root, pocket = _weighted_base(b, rb, tb, base_fin)
    a = b.attributes
    if not arc:
        sh = b.draw("shade_height")
        r_top = b.draw("shade_top_radius")
        r_bot = r_top * b.draw("shade_flare")
        z0 = H - sh
        z_hold = z0 + 0.3 * sh  # the bulb holder's top, inside the shade
        post = cylinder(rp, z_hold - 0.04 - tb + 0.002, 32, at=(0, 0, tb - 0.001))
        holder = cylinder(0.02, 0.04, 32, at=(0, 0, z_hold - 0.04))
        b.add("post", union(post, holder), "other", fin, root, origin=[0, 0, tb], physical=_tube(fin),
              collision=[reduced_hull(post), reduced_hull(holder)])
        t = 0.003 if shade_fin.kind == "glass" else 0.002
        shell, shell_pieces = _cone_shell(r_bot, r_top, z0, sh, t)
        # a spider: three spokes from a ring round the holder out to the shade's wall
        zs = z_hold - 0.004
        r_wall = r_bot + (r_top - r_bot) * (zs - z0) / sh - t / 2
        ring = lathe([(0.0205, zs - 0.004), (0.03, zs - 0.004), (0.03, zs + 0.004), (0.0205, zs + 0.004)], 32)
        spokes = [cylinder_between([np.cos(ang) * 0.028, np.sin(ang) * 0.028, zs],
                                   [np.cos(ang) * r_wall, np.sin(ang) * r_wall, zs], 0.0025, 12)
                  for ang in np.arange(3) * 2 * np.pi / 3 + np.pi / 6]
        shade = union(shell, ring, *spokes)
        b.add("shade", shade, "shade", shade_fin, "post", origin=[0, 0, z0], physical=_shade_physical(shade_fin),
              collision=shell_pieces + [reduced_hull(s) for s in spokes]
              + annulus_sectors(0.0205, 0.03, zs - 0.004, zs + 0.004, 32, 8))
        r_bulb = 0.03
        b.add("bulb", sphere(r_bulb, (0, 0, z_hold + r_bulb * 0.95), 24), "bulb", finish("glass", "frosted"), "post",
              origin=[0, 0, z_hold])
        a["extras"] = ["a weighted round base", "a conical shade over the bulb", "a foot switch on the base"]
    else:
        reach = b.draw("reach")
        Ra = reach / 2
        z1 = H - Ra - rp  # where the post turns into the arc
        post = cylinder(rp, z1 - tb + 0.002, 32, at=(0, 0, tb - 0.001))
        b.add("post", post, "other", fin, root, origin=[0, 0, tb], physical=_tube(fin), collision=[reduced_hull(post)])
        bow = intersection(torus(Ra, rp, 128, 16, direction=(0, 1, 0), at=(Ra, 0, z1)),
                           box([-rp - 0.01, -rp - 0.01, z1], [reach + rp + 0.01, rp + 0.01, H + 0.01]))
        socket = cylinder(rp * 1.35, 0.03, 32, at=(reach, 0, z1 - 0.025))
        b.add("arm", union(bow, socket), "arm", fin, "post", origin=[Ra, 0, z1], physical=_tube(fin),
              collision=arc_pieces([Ra, 0, z1], Ra, rp, 0.0, np.pi, [0, 1, 0], [-1, 0, 0], 24)
              + [reduced_hull(socket)])
        # the head: a knuckle under the socket, a neck, a cap and the lamp holder, carrying a cone shade; it tilts
        # about the knuckle's centre
        rk, g = 0.012, 0.002
        P = np.array([reach, 0.0, z1 - 0.025 - g - rk])
        Rd = b.draw("head_radius")
        hd = 0.75 * Rd
        neck = 0.06
        zt = P[2] - neck
        t = 0.003 if shade_fin.kind == "glass" else 0.002
        r_t = 0.05
        shell, shell_pieces = _cone_shell(Rd, r_t, zt - hd, hd, t)
        shell_pieces = [s.translated([reach, 0, 0]) for s in shell_pieces]
        cap = cylinder(r_t - t / 2, 0.004, 32, at=(reach, 0, zt - 0.004))
        knuckle = sphere(rk, P, 24)
        stem = cylinder(0.006, neck, 16, at=(reach, 0, zt - 0.001))
        holder = cylinder(0.022, 0.045, 32, at=(reach, 0, zt - 0.045))
        fittings = (cap, knuckle, stem, holder)
        tilt = float(np.deg2rad(b.draw("head_tilt")))
        b.add("head", union(*fittings), "shade", fin, "arm", "stiff", origin=P, axis=[0, 1, 0], lower=-tilt,
              upper=tilt, physical="steel", joint_name="head_tilt", collision=[reduced_hull(x) for x in fittings])
        b.add("shade", shell.translated([reach, 0, 0]), "shade", shade_fin, "head", origin=[reach, 0, zt],
              physical=_shade_physical(shade_fin), collision=shell_pieces)
        r_bulb = 0.03
        b.add("bulb", sphere(r_bulb, (reach, 0, zt - 0.045 - r_bulb * 0.95), 24), "bulb", finish("glass", "frosted"),
              "head", origin=[reach, 0, zt - 0.045])
        a["kind"] = "arc"
        a["extras"] = [f"an arched arm reaching {round(reach * 100)} cm", "a shade that tilts at the arm's tip",
                       "a heavy round base", "a foot switch on the base"]
    btn = cylinder(0.013, 0.016, 32, at=(pocket[0], pocket[1], tb - 0.009))
    b.add("switch", btn, "button", b.draw("switch_finish"), root, "button", origin=pocket, axis=[0, 0, -1],
          upper=0.004, joint_name="switch_press")
    a["materials"] = {"post": fin, "shade": shade_fin, "base": base_fin}
    a["nouns"] = ["arc lamp", "arc floor lamp", "floor lamp"] if arc else ["floor lamp", "standing lamp"]


# --------------------------------------------------------------------------------------------- ceiling lamp


def build_ceiling_lamp(b: AssetBuilder) -> None:
    """A pendant lamp: a ceiling canopy, and a cord or down-rod with holder, bulb and shade swinging under it."""
    p = b.p
    fin = b.draw("canopy_finish")
    shade_fin = b.draw("shade_finish")
    rod = p["suspension"] == "rod"
    cord_fin = b.draw("cord_finish", when=not rod, otherwise=fin)
    rc = b.draw("canopy_radius")
    hc = b.draw("canopy_height")
    # built downward from the ceiling at z = 0 (the build re-centres it on the bottom of its bounds)
    canopy = lathe([(0, 0), (rc, 0), (rc, -0.006), (rc * 0.8, -hc), (0, -hc)], 64)
    r_cord = 0.007 if rod else 0.003
    rb = max(0.006, r_cord + 0.002)
    relief = cylinder(rb + 0.002, 0.016, 32, at=(0, 0, -hc - 0.015))
    root = b.add("canopy", union(canopy, relief), "base", fin,
                 collision=[reduced_hull(canopy), reduced_hull(relief)])
    g = 0.002
    P = np.array([0.0, 0.0, -hc - 0.015 - g - rb])
    L = p["cord_length"]
    z_h = P[2] - L  # the holder's top
    ball = sphere(rb, P, 24)
    cord = cylinder(r_cord, L + 0.001, 24, at=(0, 0, z_h - 0.001))
    holder = cylinder(0.018, 0.045, 32, at=(0, 0, z_h - 0.045))
    swing = float(np.deg2rad(b.draw("swing")))
    b.add("cord", union(ball, cord, holder), "arm", cord_fin, root, "hinge", origin=P, axis=[0, 1, 0],
          lower=-swing, upper=swing, joint_name="pendant_swing",
          physical="steel" if rod else "rubber",
          collision=[reduced_hull(ball), reduced_hull(cord), reduced_hull(holder)])
    shape = p["shade"]
    R = p["shade_radius"]
    t = 0.0025 if shade_fin.kind == "glass" else 0.002
    zs = z_h - 0.02  # the shade's top, round the holder
    if shape == "cone":
        hs = b.draw("shade_height")
        shell, pieces = _cone_shell(R, 0.045, zs - hs, hs, t, 64)
        cap = cylinder(0.045 - t / 2, t, 32, at=(0, 0, zs - t))
        shade = union(shell, cap)
        pieces = pieces + [reduced_hull(cap)]
        bottom = zs - hs
    elif shape == "drum":
        hs = b.draw("shade_height")
        loop = [(R - t, zs - hs), (R, zs - hs), (R, zs), (R - t, zs)]
        shell = lathe(loop, 64)
        zsp = z_h - 0.03
        spokes = [cylinder_between([np.cos(ang) * 0.017, np.sin(ang) * 0.017, zsp],
                                   [np.cos(ang) * (R - t / 2), np.sin(ang) * (R - t / 2), zsp], 0.0025, 12)
                  for ang in np.arange(3) * 2 * np.pi / 3]
        shade = union(shell, *spokes)
        pieces = annulus_sectors(R - t, R, zs - hs, zs, 64, 32) + [reduced_hull(s) for s in spokes]
        bottom = zs - hs
    else:  # a glass globe with an opening at the top that the holder reaches into
        zc = z_h - 0.045 + 0.02 - np.sqrt(R**2 - 0.016**2)
        globe = difference(sphere(R, (0, 0, zc), 48), sphere(R - t, (0, 0, zc), 48),
                           cylinder(0.016, R, 24, at=(0, 0, zc)))
        shade = globe
        pieces = [reduced_hull(globe)]  # the bulb inside is the same rigid body
        bottom = zc - R
    b.add("shade", shade, "shade", shade_fin, "cord", origin=[0, 0, zs], physical=_shade_physical(shade_fin),
          collision=pieces)
    r_bulb = 0.03
    b.add("bulb", sphere(r_bulb, (0, 0, z_h - 0.045 - r_bulb * 0.95), 24), "bulb", finish("glass", "frosted"),
          "cord", origin=[0, 0, z_h - 0.045])
    b.attributes.update({
        "shape": {"cone": "cone", "drum": "drum", "globe": "globe"}[shape],
        "materials": {"shade": shade_fin, "canopy": fin, **({"cord": cord_fin} if not rod else {})},
        "hang_m": round(float(-bottom), 3),
        "extras": [f"a {'metal down-rod' if rod else 'cord'} {round(L * 100)} cm long from a ceiling canopy",
                   "a pendant that swings about the canopy"]})


# --------------------------------------------------------------------------------------------- range hood


def build_range_hood(b: AssetBuilder) -> None:
    """A chimney extractor hood: canopy, chimney, push buttons, grease filters that swing down, optional visor."""
    p = b.p
    W, D = p["width"], p["depth"]
    hb = p["canopy_height"]
    style = p["style"]
    fin = b.draw("body_finish")
    hs = b.draw("slope_height") if style == "pyramid" else 0.0
    wc, dc = b.draw("chimney_width"), b.draw("chimney_depth")
    H = hb + hs + p["chimney_height"]
    g = 0.003
    visor = p["visor"]
    cuts: list[Mesh] = []
    # the visor: a plate in a slot under the front of the band, with a lip in front of the band's face
    s_side, tv = 0.02, 0.014
    dv = b.draw("visor_depth") if visor else 0.0
    if visor:
        cuts.append(box([D - dv - g, -W / 2 + s_side, -0.01], [D + 0.01, W / 2 - s_side, tv + g]))
    hl = tv + g + 0.012  # the lip's top
    # grease filters: panels in recesses under the band, each hinged at its back edge
    nf = b.derive("filters", 1 if W < 0.75 else 2)
    tf = 0.008
    xr0 = 0.03
    xr1 = (D - dv - g - 0.03) if visor else D - 0.035
    y_lo, y_hi, rib = -W / 2 + 0.035, W / 2 - 0.035, 0.025
    fw = (y_hi - y_lo - rib * (nf - 1)) / nf
    spans = [(y_lo + k * (fw + rib), y_lo + k * (fw + rib) + fw) for k in range(nf)]
    for y0, y1 in spans:
        cuts.append(box([xr0, y0 - g, -0.01], [xr1, y1 + g, tf + g]))
    # buttons in the band's front face, to the right
    n = p["buttons"]
    size = (0.016, 0.01)
    zc = (hl + hb) / 2 if visor else hb / 2
    ys = [W / 2 - 0.07 - k * 0.03 for k in range(n)]
    inset, travel = 0.006, 0.003
    for y in ys:
        cuts.append(button_pocket([D, y, zc], size, inset + travel + 0.0015, 0.0015))
    band = difference(box([0, -W / 2, 0], [D, W / 2, hb]), *cuts)
    pieces = rectilinear_boxes(band)
    solids = [band]
    if style == "pyramid":
        slope = hull(np.array([[x, y, z] for x, y, z in (
            (0, -W / 2, hb - 0.001), (D, -W / 2, hb - 0.001), (D, W / 2, hb - 0.001), (0, W / 2, hb - 0.001),
            (0, -wc / 2, hb + hs), (dc, -wc / 2, hb + hs), (dc, wc / 2, hb + hs), (0, wc / 2, hb + hs))]))
        solids.append(slope)
        pieces.append(slope)
    chimney = box([0, -wc / 2, hb + hs - 0.001], [dc, wc / 2, H])
    solids.append(chimney)
    pieces.append(chimney)
    root = b.add("body", union(*solids), "body", fin, physical="appliance_shell", collision=pieces)
    bfin = b.draw("button_finish")
    for k, y in enumerate(ys):
        b.add(f"button_{k}", push_button([D, y, zc], size, 0.004, inset), "button", bfin, root, "button",
              origin=[D, y, zc], axis=[-1, 0, 0], upper=travel)
    ffin = b.draw("filter_finish")
    drop = float(np.deg2rad(b.draw("filter_drop")))
    for k, (y0, y1) in enumerate(spans):
        x0, x1 = xr0 + g, xr1 - g
        yc = (y0 + y1) / 2
        panel = union(box([x0, y0, 0], [x1, y1, tf]), box([x1 - 0.03, yc - 0.025, -0.006], [x1 - 0.01, yc + 0.025,
                                                                                              0.001]))
        # an aluminium mesh cassette is mostly air (about 0.5 kg); its latch is the hinge's friction
        b.add(f"filter_{k}", panel, "panel", ffin, root, "stiff", origin=[x0, yc, 0], axis=[0, 1, 0], upper=drop,
              physical="appliance_shell", joint_name=f"filter_{k}_hinge")
    extras = [f"{'a grease filter' if nf == 1 else f'{number(nf)} grease filters'} underneath that hinge"
              f"{'s' if nf == 1 else ''} down", "a chimney up the wall"]
    mats = {"body": fin, "buttons": bfin, "filters": ffin}
    if visor:
        vfin = b.draw("visor_finish")
        lip = box([D + 0.002, -W / 2 + s_side + g, 0], [D + 0.014, W / 2 - s_side - g, hl])
        plate = box([D - dv, -W / 2 + s_side + g, 0], [D + 0.004, W / 2 - s_side - g, tv])
        b.add("visor", union(plate, lip), "panel", vfin, root, "slide", origin=[D, 0, 0], axis=[1, 0, 0],
              upper=0.75 * dv, joint_name="visor_slide", physical="glass" if vfin.kind == "glass" else None)
        extras.insert(0, "a visor that slides out under the front")
        mats["visor"] = vfin
    b.attributes.update({"kind": style, "materials": mats, "buttons": n, "extras": extras})


# --------------------------------------------------------------------------------------------- curtain rod


def _pleats(y0: float, w: float, m: int, xc: float, depth: float, t: float, z0: float, z1: float,
            per: int = 6) -> tuple[Mesh, list[Mesh]]:
    """A pleated curtain slab ``t`` thick (``m`` sine half-waves) and its hulls, one per whole wave (never flat)."""
    k = m * per
    y = y0 + w * np.arange(k + 1) / k
    x = xc + depth / 2 * np.sin(np.pi * (y - y0) / (w / m))
    front = np.stack([x + t / 2, y], 1)
    back = np.stack([x - t / 2, y], 1)[::-1]
    poly = np.concatenate([front, back])
    area = 0.5 * float(poly[:, 0] @ np.roll(poly[:, 1], -1) - poly[:, 1] @ np.roll(poly[:, 0], -1))
    slab = prism(poly if area > 0 else poly[::-1], z0, z1)
    step = max(2, int(np.ceil(m / 16)))
    pieces = []
    starts = list(range(0, m, step))
    if len(starts) > 1 and m - starts[-1] < 2:
        starts.pop()  # the last piece takes the odd half-wave: every piece spans a whole wave's depth
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else m
        sel = slice(s * per, e * per + 1)
        pts = np.concatenate([np.stack([x[sel] + dx, y[sel]], 1) for dx in (t / 2, -t / 2)])
        pieces.append(reduced_hull(np.concatenate([np.c_[pts, np.full(len(pts), z)] for z in (z0, z1)])))
    return slab, pieces


def build_curtain_rod(b: AssetBuilder) -> None:
    """A curtain rod on wall brackets with finials, and pleated curtains on rings that slide between brackets."""
    p = b.p
    L = p["length"]
    drop = p["drop"]
    fin = b.draw("rod_finish")
    cfin = b.draw("curtain_finish")
    rr = b.draw("rod_radius")
    reach = b.draw("reach")
    r_in, r_out, hw = rr + 0.005, rr + 0.009, 0.003  # curtain rings: loose on the rod, 6 mm wide
    zr = drop + r_out - 0.001  # the rod's axis: the curtains' tops just reach into their rings
    # the rod, its finials and brackets: one rigid part fixed to the wall (x = 0)
    rod = cylinder(rr, L, 32, (0, 1, 0), (reach, -L / 2, zr))
    style = b.draw("finial")
    finials = []
    for s in (-1, 1):
        if style == "ball":
            rf = 2.2 * rr
            finials.append(sphere(rf, (reach, s * (L / 2 + rf * 0.85), zr), 32))
        else:
            finials.append(cylinder(rr * 1.6, 0.035, 32, (0, s, 0), (reach, s * (L / 2 - 0.001), zr),
                                    radius_top=rr * 1.1))
    nb = b.derive("brackets", 2 if L <= 2.0 else 3)
    e = 0.07
    ybs = [-(L / 2 - e), L / 2 - e] + ([0.0] if nb == 3 else [])
    r_a, bw = 0.007, 0.011  # bracket arm radius; half-width of its collar round the rod
    brackets = []
    for yb in ybs:
        brackets += [box([0, yb - 0.02, zr - 0.035], [0.008, yb + 0.02, zr + 0.035]),
                     cylinder(r_a, reach - 0.006, 24, (1, 0, 0), (0.006, yb, zr)),
                     cylinder(rr + 0.004, 2 * bw, 32, (0, 1, 0), (reach, yb - bw, zr))]
    pieces = [rod, *finials, *brackets]
    root = b.add("rod", union(*pieces), "frame", fin, collision=[reduced_hull(x) for x in pieces])
    # the panels: each slides in its own span, from rest at the outer end towards the middle
    n = p["panels"]
    c = 0.004
    y_left, y_right = ybs[0] + bw + c, ybs[1] - bw - c
    mid = (bw + c) if nb == 3 else c
    # one panel slides along the whole rod (its left half with a middle bracket); two meet in the middle
    spans = [(y_left, -mid if nb == 3 else y_right, 1.0)] if n == 1 else [(y_left, -mid, 1.0), (mid, y_right, -1.0)]
    share = b.draw("panel_share")
    pw = b.draw("pleat_width")
    depth = b.draw("pleat_depth")
    t = b.draw("fabric_thickness")
    for ya, yb, way in spans:
        seg = yb - ya
        w = share * seg - 2 * hw
        travel = seg - (w + 2 * hw)
        y0 = ya + hw if way > 0 else yb - hw - w
        m = max(2, round(w / pw))
        slab, fabric_pieces = _pleats(y0, w, m, reach, depth, t, 0.0, drop)
        n_r = min(8, m + 1)
        idx = sorted({round(float(v)) for v in np.linspace(0, m, n_r)})
        ring_profile = [(r_in, -hw), (r_out, -hw), (r_out, hw), (r_in, hw)]
        rings, ring_pieces = [], []
        for k in idx:
            at = (reach, y0 + w * k / m, zr)
            rings.append(_along_y(lathe(ring_profile, 48), at))
            ring_pieces += [_along_y(s, at) for s in annulus_sectors(r_in, r_out, -hw, hw, 48, 6)]
        name = "curtain" if n == 1 else f"curtain_{'left' if way > 0 else 'right'}"
        b.add(name, union(slab, *rings), "panel", cfin, root, "slide", origin=[reach, y0 + w / 2, zr],
              axis=[0, way, 0], upper=travel, joint_name=f"{name}_slide", collision=fabric_pieces + ring_pieces)
    b.attributes.update({
        "materials": {"curtains": cfin, "rod": fin},
        # the curtains' fabric leads the description: what is called the fabric is the curtain, not its rod
        "nouns": ["curtain", "curtain on a rod"] if n == 1 else ["pair of curtains", "pair of curtains on a rod"],
        "extras": [f"{'a pleated curtain panel' if n == 1 else 'two pleated curtain panels'} on rings that slide "
                   f"along the rod", f"{number(nb)} wall brackets", f"{'ball' if style == 'ball' else 'end cap'} "
                   "finials"]})


# --------------------------------------------------------------------------------------------- rug


def build_rug(b: AssetBuilder) -> None:
    """A rug: a rectangular, round or runner textile field with an optional border band; nothing moves."""
    p = b.p
    shape = p["shape"]
    t = p["thickness"]
    fin = b.draw("field_finish")
    if shape == "round":
        R = b.draw("diameter") / 2
        W = L = 2 * R
    elif shape == "runner":
        W, L = b.draw("runner_width"), b.draw("runner_length")
    else:
        W = b.draw("width")
        L = min(3.0, max(0.9, W * b.draw("aspect")))
    border = b.draw("border")
    bfin = b.draw("border_finish") if border else fin
    bw = b.draw("border_width") if border else 0.0
    a = b.attributes
    if shape == "round":
        seg = 96
        field = cylinder(R - bw, t, seg)
        root = b.add("rug", field, "base", fin, physical="fabric", collision=[reduced_hull(field)])
        if border:
            ring = lathe([(R - bw, 0), (R, 0), (R, t), (R - bw, t)], seg)
            b.add("border", ring, "base", bfin, root, origin=[0, 0, 0], physical="fabric",
                  collision=annulus_sectors(R - bw, R, 0, t, seg, 32))
    else:
        field = box([-L / 2 + bw, -W / 2 + bw, 0], [L / 2 - bw, W / 2 - bw, t])
        root = b.add("rug", field, "base", fin, physical="fabric")
        if border:
            frame = difference(box([-L / 2, -W / 2, 0], [L / 2, W / 2, t]), box([-L / 2 + bw, -W / 2 + bw, -0.01],
                                                                                [L / 2 - bw, W / 2 - bw, t + 0.01]))
            b.add("border", frame, "base", bfin, root, origin=[0, 0, 0], physical="fabric")
    a["shape"] = shape
    a["nouns"] = ["runner", "rug runner", "hallway runner"] if shape == "runner" else ["rug", "carpet", "area rug"]
    a["materials"] = {"field": fin, **({"border": bfin} if border else {})}
    a["extras"] = ([f"a {round(bw * 100)} cm border band"] if border else []) + [f"a {round(t * 1000)} mm thick pile"]


# --------------------------------------------------------------------------------------------- registry

_METAL_OR_WOOD = ("brushed_metal", "painted_metal", "chrome", "wood")

CATEGORIES: tuple[Category, ...] = (
    Category("floor_lamp", "standing floor lamp: weighted base with a foot switch, a straight post under a shade or "
             "an arc whose shade tilts at its tip",
             {"kind": choice("straight", "arc", doc="a straight post under a shade, or an arched arm with a "
                             "hanging shade that tilts"),
              "height": frange(1.4, 1.9, "m: the top of the shade (straight) or of the arc (arc)"),
              "base_finish": finish_param(("stone", "painted_metal", "brushed_metal"), doc="weighted base"),
              "body_finish": finish_param(_METAL_OR_WOOD, doc="post and arm"),
              "shade_finish": finish_param(("fabric", "fabric", "glass", "painted_metal"), doc="shade"),
              "arc_base_radius": frange(0.22, 0.26, "base radius, m (kind=arc)", draw="inline"),
              "base_radius": frange(0.14, 0.19, "base radius, m (kind=straight)", draw="inline"),
              "arc_base_thickness": frange(0.05, 0.065, "base thickness, m (kind=arc)", draw="inline"),
              "base_thickness": frange(0.025, 0.045, "base thickness, m (kind=straight)", draw="inline"),
              "post_radius": frange(0.009, 0.014, "post (and arc tube) radius, m", draw="inline"),
              "shade_height": frange(0.25, 0.4, "m (kind=straight)", draw="inline"),
              "shade_top_radius": frange(0.12, 0.2, "m (kind=straight)", draw="inline"),
              "shade_flare": frange(1.0, 1.4, "the shade's bottom radius over its top radius (kind=straight)",
                                    draw="inline"),
              "reach": frange(0.8, 1.2, "horizontal reach of the arc from the post to its tip, m (kind=arc)",
                              draw="inline"),
              "head_radius": frange(0.14, 0.2, "the hanging shade's mouth radius, m (kind=arc)", draw="inline"),
              "head_tilt": frange(25, 35, "how far the hanging shade tilts each way, degrees (kind=arc)",
                                  draw="inline"),
              "switch_finish": finish_param("plastic", ("black", "white", "grey"), doc="foot switch")},
             (0.28, 0.28, 1.4), (1.7, 0.58, 1.9), build_floor_lamp, ("floor lamp", "standing lamp", "arc lamp")),
    Category("ceiling_lamp", "pendant ceiling lamp: a canopy fixed to the ceiling and a cord or down-rod carrying "
             "a cone, drum or globe shade that swings about the canopy",
             {"shade": choice("cone", "drum", "globe", doc="shade shape"),
              "suspension": choice("cord", "cord", "rod", doc="a flexible cord or a metal down-rod"),
              "cord_length": frange(0.25, 1.0, "m, from the ball under the canopy to the bulb holder"),
              "shade_radius": frange(0.12, 0.22, "the shade's largest radius, m"),
              "canopy_finish": finish_param(("brushed_metal", "painted_metal", "chrome"),
                                            doc="canopy (and a down-rod)"),
              "shade_finish": finish_param(("painted_metal", "glass", "fabric"), doc="shade"),
              "cord_finish": finish_param(("fabric", "rubber", "plastic"), ("black", "white", "grey", "charcoal",
                                                                             "dark grey"),
                                          doc="cord (suspension=cord)"),
              "canopy_radius": frange(0.05, 0.075, "m", draw="inline"),
              "canopy_height": frange(0.022, 0.035, "m", draw="inline"),
              "swing": frange(18, 22, "how far the pendant swings each way about the canopy, degrees",
                              draw="inline"),
              "shade_height": frange(0.12, 0.28, "m (shade=cone or drum)", draw="inline")},
             (0.24, 0.24, 0.43), (0.45, 0.45, 1.53), build_ceiling_lamp,
             ("ceiling lamp", "pendant lamp", "ceiling light", "pendant light", "hanging lamp"), mount="ceiling"),
    Category("range_hood", "wall-mounted kitchen extractor hood: box or pyramid canopy, chimney, push buttons, "
             "grease filters hinged to swing down, optional slide-out visor",
             {"style": choice("box", "pyramid", doc="canopy shape: a flat box, or a sloped pyramid over a front "
                              "band"),
              "width": frange(0.6, 0.9, "m"), "depth": frange(0.45, 0.52, "m"),
              "canopy_height": frange(0.07, 0.12, "the front band's height, m"),
              "chimney_height": frange(0.35, 0.7, "m above the canopy"),
              "visor": flag(0.4, "a visor under the front that slides out", draw="upfront"),
              "buttons": irange(2, 4, "push buttons in the front band", limits=(1, 5)),
              "body_finish": finish_param(("brushed_metal", "painted_metal"),
                                          ("stainless steel", "black steel", "white", "black", "anthracite",
                                           "silver grey"), doc="canopy and chimney"),
              "slope_height": frange(0.15, 0.25, "height of the sloped part, m (style=pyramid)", draw="inline"),
              "chimney_width": frange(0.24, 0.32, "m", draw="inline"),
              "chimney_depth": frange(0.22, 0.28, "m", draw="inline"),
              "visor_depth": frange(0.12, 0.18, "m (visor)", draw="inline"),
              "filters": irange(1, 2, "grease filters side by side underneath (default 1 under 0.75 m wide, else 2)",
                                draw="derived", limits=(1, 3)),
              "button_finish": finish_param(("plastic", "chrome"), ("black", "white", "grey", "chrome"),
                                            doc="buttons"),
              "filter_finish": finish_param("brushed_metal", ("aluminium", "stainless steel"), doc="grease filters"),
              "filter_drop": frange(70, 90, "how far the filters swing down, degrees", draw="inline"),
              # a glass visor is clear, smoked or frosted (the metals keep their own palettes: no name matches)
              "visor_finish": finish_param(("brushed_metal", "painted_metal", "glass"), ("clear", "smoked", "frosted"),
                                           doc="visor (visor)")},
             (0.45, 0.6, 0.42), (0.54, 0.9, 1.08), build_range_hood,
             ("range hood", "cooker hood", "extractor hood", "kitchen hood"), mount="wall"),
    Category("curtain_rod", "curtain rod on wall brackets with finials, and one or two pleated curtain panels on "
             "rings that slide along it",
             {"length": frange(1.0, 3.0, "rod length between the finials, m"),
              "panels": irange(1, 2, "curtain panels on the rod"),
              "drop": frange(1.2, 2.4, "curtain length below the rings, m"),
              "rod_finish": finish_param(_METAL_OR_WOOD, doc="rod, brackets and finials"),
              "curtain_finish": finish_param("fabric", doc="curtains"),
              "rod_radius": frange(0.01, 0.016, "m", draw="inline"),
              "reach": frange(0.08, 0.12, "the rod's axis from the wall, m", draw="inline"),
              "finial": choice("ball", "cap", doc="finial style at the rod's ends", draw="inline"),
              "brackets": irange(2, 3, "wall brackets (default 2, 3 on rods over 2 m; a middle bracket keeps each "
                                 "panel to its half)", draw="derived"),
              "panel_share": frange(0.45, 0.6, "each panel's width as a share of the span it slides along",
                                    draw="inline"),
              "pleat_width": frange(0.06, 0.1, "width of one pleat (half a wave), m", draw="inline"),
              "pleat_depth": frange(0.02, 0.04, "front-to-back depth of the pleats, m", draw="inline"),
              "fabric_thickness": frange(0.003, 0.005, "m", draw="inline")},
             (0.095, 1.03, 1.23), (0.16, 3.14, 2.46), build_curtain_rod,
             ("curtain rod", "curtain", "curtains", "curtain pole"), mount="wall"),
    Category("rug", "rug on the floor: rectangular, round or a runner, a textile field with an optional border "
             "band",
             {"shape": choice("rectangular", "round", "runner", doc="outline"),
              "thickness": frange(0.005, 0.02, "m"),
              "field_finish": finish_param("fabric", doc="the rug's field"),
              "width": frange(0.6, 2.0, "short side, m (shape=rectangular)", draw="inline"),
              "aspect": frange(1.4, 1.6, "long side over short side (the long side 0.9 to 3 m) "
                               "(shape=rectangular)", draw="inline"),
              "diameter": frange(0.9, 2.0, "m (shape=round)", draw="inline"),
              "runner_width": frange(0.6, 0.9, "m (shape=runner)", draw="inline"),
              "runner_length": frange(1.8, 3.0, "m (shape=runner)", draw="inline"),
              "border": flag(0.6, "a border band in another colour round the field"),
              "border_finish": finish_param("fabric", doc="border band (border)"),
              "border_width": frange(0.04, 0.12, "m (border)", draw="inline")},
             (0.9, 0.6, 0.005), (3.0, 2.0, 0.02), build_rug,
             ("rug", "carpet", "area rug", "hallway runner", "rug runner", "carpet runner")),
)
