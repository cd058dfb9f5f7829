"""Room furniture that scenes are furnished with: bed, sofa, armchair, desk, TV stand, bathroom vanity, bathtub,
kitchen counter, towel rack and coat rack.

Carcass pieces (a storage bed's drawers, a desk's pedestal, a vanity's cupboard, a TV stand, a kitchen counter's
base units) are layouts of the shared carcass builder (``seed3d.synth.carcass``); upholstered seating, bed frames,
bathtubs, towel stands and taps are built here from primitives, with exact convex collision pieces wherever a
part is concave.
"""

from __future__ import annotations

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.carcass import CARCASS_DOOR_PARAMS, Cell, Row, build_carcass
from seed3d.synth.collision import annulus_sectors, rectilinear_boxes, reduced_hull, subtract_prism
from seed3d.synth.core import AssetBuilder, Category, Param, choice, finish_param, flag, frange, irange
from seed3d.synth.describe import number
from seed3d.synth.fixtures import leg
from seed3d.synth.furniture import _record, _table_drawer, carcass_style_params, furniture_style
from seed3d.synth.materials import Finish
from seed3d.synth.primitives import box, cylinder, cylinder_between, difference, lathe, rounded_box, sphere, union
from seed3d.typed import FloatArray


def _style_params(handle_styles: tuple[str, ...] = ("bar", "knob", "pull", "tab")) -> dict[str, Param]:
    """``carcass_style_params`` without ``base`` (the categories here choose their carcass's base themselves)."""
    params = carcass_style_params(handle_styles)
    params.pop("base")
    return params


def _rz(angle: float, at: FloatArray) -> np.ndarray:
    """4x4 rotation by ``angle`` about +Z, then a move to ``at``."""
    m = np.eye(4)
    c, s = np.cos(angle), np.sin(angle)
    m[:2, :2] = [[c, -s], [s, c]]
    m[:3, 3] = at
    return m


def _apply(m: np.ndarray, point: FloatArray) -> np.ndarray:
    """``point`` moved by the 4x4 ``m``."""
    return m[:3, :3] @ np.asarray(point, np.float64) + m[:3, 3]


def _mixer(b: AssetBuilder, parent: str, at: FloatArray, yaw: float, height: float, reach: float,
           fin: Finish, lever_length: float) -> None:
    """A single-lever mixer tap standing on a deck at ``at``: a column with a spout reaching ``reach`` along the
    direction ``yaw`` (0: +X) and a lever on top that lifts to open (revolute about the horizontal axis)."""
    m = _rz(yaw, at)
    rc = 0.016
    plate = cylinder(rc * 1.7, 0.008, 32)
    column = cylinder(rc, height, 32, at=(0, 0, 0.007))
    za = 0.007 + height - 0.04
    arm = cylinder_between([0.0, 0, za], [reach, 0, za], 0.009, 20)
    elbow = sphere(0.009, (reach, 0, za), 16)
    nozzle = cylinder(0.009, 0.035, 20, (0, 0, -1), (reach, 0, za))
    pieces = [plate, column, arm, elbow, nozzle]
    b.add("tap", union(*pieces).transformed(m), "spout", fin, parent, physical="brass",
          collision=[reduced_hull(x.transformed(m)) for x in pieces])
    g, r_h = 0.003, 0.011
    pz = 0.007 + height + g + r_h
    hub = cylinder(r_h, 0.03, 20, (0, 1, 0), (0, -0.015, pz))
    lever = union(hub, box([0, -0.006, pz - 0.005], [lever_length, 0.006, pz + 0.005]))
    b.add("tap_lever", lever.transformed(m), "lever", fin, "tap", "lever", origin=_apply(m, [0, 0, pz]),
          axis=m[:3, :3] @ np.array([0.0, -1.0, 0.0]), upper=0.55, physical="brass")


def _legs(b: AssetBuilder, parent: str, points: list[tuple[float, float]], top: float, thick: float, style: str,
          fin: Finish) -> None:
    """Legs hanging from ``top`` to the floor at each (x, y)."""
    for i, (x, y) in enumerate(points):
        b.add(f"leg_{i}", leg(style, [x, y, top], top, thick), "leg", fin, parent, origin=[x, y, top])


# --------------------------------------------------------------------------------------------- bed

#: Mattress widths by bed size (m).
BED_WIDTHS: dict[str, float] = {"single": 0.9, "double": 1.35, "queen": 1.5, "king": 1.8}


def build_bed(b: AssetBuilder) -> None:
    """A bed: a frame on legs, or a storage base whose drawers slide out from under the foot end; a headboard,
    a mattress and pillows."""
    p = b.p
    size = p["size"]
    Wm, Lm = BED_WIDTHS[size], p["length"]
    storage = p["storage"]
    if not storage and b.is_given("drawers") and b.given["drawers"] and not b.is_given("storage"):
        storage = b.values["storage"] = True  # drawers asked for: a storage base, recorded so the program rebuilds it
    rim = b.draw("rail_thickness")
    W, Lf = Wm + 2 * rim, Lm + 2 * rim
    st = furniture_style(b, base="plinth" if storage else "legs")
    deck = b.draw("deck_height")
    rail_up = b.draw("rail_rise")
    facts: dict = {"doors": [], "drawers": []}
    if storage:
        dd = b.draw("drawer_depth")
        n = b.derive("drawers", 1 if W < 1.1 else 2)
        facts = build_carcass(b, W, dd, deck, [Row(1.0, [Cell("drawer") for _ in range(n)])], st)
        root = "body"
        xf = dd / 2
        rest = difference(box([xf - Lf, -W / 2, 0.0], [-dd / 2, W / 2, deck]),
                          box([xf - Lf + rim, -W / 2 + rim, -0.01], [-dd / 2 - rim, W / 2 - rim, deck - 0.02]))
        b.add("base", rest, "base", st.body, root, origin=[-dd / 2, 0, deck / 2])
        ring = difference(box([xf - Lf, -W / 2, deck], [xf, W / 2, deck + rail_up]),
                          box([xf - Lf + rim, -W / 2 + rim, deck - 0.01], [xf - rim, W / 2 - rim, deck + 0.1]))
        b.add("frame", ring, "frame", st.body, root, origin=[0, 0, deck])
        b.attributes["kind"] = size
    else:
        xf = Lf / 2
        z0 = st.base_h
        frame = difference(box([xf - Lf, -W / 2, z0], [xf, W / 2, deck + rail_up]),
                           box([xf - Lf + rim, -W / 2 + rim, deck], [xf - rim, W / 2 - rim, deck + 0.1]),
                           box([xf - Lf + rim, -W / 2 + rim, z0 - 0.01], [xf - rim, W / 2 - rim, deck - 0.02]))
        root = b.add("frame", frame, "frame", st.body)
        lt = 0.05
        xs, ys = (xf - Lf + lt / 2 + 0.01, xf - lt / 2 - 0.01), [-W / 2 + lt / 2 + 0.01, W / 2 - lt / 2 - 0.01]
        if W > 1.2:
            ys.insert(1, 0.0)  # a middle pair carries a wide bed's slats
        _legs(b, root, [(x, y) for x in xs for y in ys], z0, lt, st.leg_style, st.leg_finish or st.body)
        facts["legs"] = {"count": len(xs) * len(ys), "style": st.leg_style, "height": z0,
                         "finish": (st.leg_finish or st.body).to_dict()}
        b.attributes["kind"] = size
    # headboard behind the head end
    xh = xf - Lf
    hb_style = p["headboard"]
    ht = b.draw("headboard_thickness")
    hh = p["headboard_height"]
    hb_fin = b.draw("headboard_finish", when=hb_style == "upholstered", otherwise=st.body)
    if hb_style == "panel":
        head = box([xh - ht, -W / 2, 0.0], [xh, W / 2, hh])
    elif hb_style == "upholstered":
        head = union(rounded_box([xh - ht, -W / 2, deck - 0.1], [xh, W / 2, hh], 0.025, 3),
                     *[box([xh - ht + 0.01, s * (W / 2 - 0.04) - 0.025, 0.0],
                           [xh - 0.01, s * (W / 2 - 0.04) + 0.025, deck - 0.09]) for s in (-1, 1)])
    else:  # slatted: two posts, two rails and upright slats
        pw = 0.06
        posts = [box([xh - ht, s * W / 2 - (pw if s > 0 else 0), 0.0], [xh, s * W / 2 + (pw if s < 0 else 0), hh])
                 for s in (-1, 1)]
        z_lo = deck + rail_up + 0.05
        rails = [box([xh - ht + 0.005, -W / 2, z], [xh - 0.005, W / 2, z + 0.06]) for z in (z_lo, hh - 0.08)]
        n_sl = max(3, int(W / 0.15))
        ys_sl = np.linspace(-W / 2 + pw, W / 2 - pw, n_sl + 2)[1:-1]
        slats = [box([xh - ht + 0.012, y - 0.02, z_lo], [xh - 0.012, y + 0.02, hh - 0.05]) for y in ys_sl]
        head = union(*posts, *rails, *slats)
    b.add("headboard", head, "back", hb_fin, root, origin=[xh, 0, hh / 2],
          physical="upholstery" if hb_fin.kind == "fabric" else None)
    # mattress in the frame, pillows at the head
    mh = b.draw("mattress_height")
    c = 0.005
    mattress = rounded_box([xh + rim + c, -W / 2 + rim + c, deck], [xf - rim - c, W / 2 - rim - c, deck + mh], 0.04, 3)
    bedding = b.draw("bedding_finish")
    b.add("mattress", mattress, "cushion", bedding, root, origin=[0, 0, deck], physical="foam",
          collision=[reduced_hull(mattress)])
    n_p = b.derive("pillows", 1 if size == "single" else 2)
    pw_ = (Wm - 0.1) / n_p - 0.04
    for i in range(n_p):
        yc = -Wm / 2 + 0.05 + (i + 0.5) * (Wm - 0.1) / n_p
        pil = rounded_box([xh + rim + 0.04, yc - pw_ / 2, deck + mh], [xh + rim + 0.44, yc + pw_ / 2, deck + mh + 0.12],
                          0.045, 3)
        b.add(f"pillow_{i}", pil, "cushion", bedding, "mattress", origin=[xh + rim + 0.24, yc, deck + mh],
              physical="upholstery", collision=[reduced_hull(pil)])
    _record(b, st, facts, {"headboard": hb_style})
    b.attributes["materials"] = {"frame": st.body, "bedding": bedding, **(
        {"headboard": hb_fin} if hb_fin != st.body else {}), **({"drawer fronts": st.front} if storage else {})}
    b.attributes["extras"] = [f"{'an' if hb_style == 'upholstered' else 'a'} {hb_style} headboard",
                              f"{'a pillow' if n_p == 1 else f'{number(n_p)} pillows'} on the mattress"]
    if storage:
        b.attributes["extras"].append("storage drawers that slide out from under the foot end")


# --------------------------------------------------------------------------------------------- sofa, armchair


def _upholstered(b: AssetBuilder, seats: int) -> None:
    """Upholstered seating: a base on short legs, a back, two arms, ``seats`` seat cushions and optional back
    cushions (all fixed: nothing on a sofa moves)."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    sh = p["seat_height"]
    fab = b.draw("body_finish")
    cfin = b.draw("cushion_finish", when=not b.draw("cushions_match_body"), otherwise=fab)
    lfin = b.draw("leg_finish")
    lh = b.draw("leg_height")
    ch = b.draw("cushion_thickness")
    aw = b.draw("arm_width")
    ah = b.draw("arm_height")
    bt = b.draw("back_thickness")
    arms = p["arms"]
    z1 = sh - ch  # top of the base, under the cushions
    base = box([-D / 2, -W / 2 + aw, lh], [D / 2, W / 2 - aw, z1])
    root = b.add("base", base, "base", fab, physical="upholstery")
    back = rounded_box([-D / 2, -W / 2 + aw, z1], [-D / 2 + bt, W / 2 - aw, H], 0.03, 3)
    b.add("back", back, "back", fab, root, origin=[-D / 2, 0, z1], physical="upholstery",
          collision=[reduced_hull(back)])
    for side, s in (("left", 1), ("right", -1)):
        lo = [-D / 2, W / 2 - aw if s > 0 else -W / 2, lh]
        hi = [D / 2, W / 2 if s > 0 else -W / 2 + aw, ah]
        arm = rounded_box(lo, hi, 0.06 if arms == "rolled" else 0.012, 3)
        b.add(f"arm_{side}", arm, "arm", fab, root, origin=[0, s * (W / 2 - aw / 2), lh], physical="upholstery",
              collision=[reduced_hull(arm)])
    lt = 0.045
    xs = (-D / 2 + 0.04, D / 2 - 0.04)
    ys = [-W / 2 + 0.04, W / 2 - 0.04] + ([0.0] if W > 1.8 else [])
    style = b.draw("leg_style")
    _legs(b, root, [(x, y) for x in xs for y in ys], lh, lt, style, lfin)
    g = 0.004
    y0, y1 = -W / 2 + aw + g, W / 2 - aw - g
    span = (y1 - y0) / seats
    xb = -D / 2 + bt + g
    back_cushions = p["back_cushions"]
    bc = b.draw("back_cushion_thickness", when=back_cushions, otherwise=0.0)
    for i in range(seats):
        a, c = y0 + i * span + (g / 2 if i else 0), y0 + (i + 1) * span - (g / 2 if i < seats - 1 else 0)
        cush = rounded_box([xb + bc + (g if bc else 0), a, z1], [D / 2 - 0.005, c, sh], 0.03, 3)
        b.add(f"seat_cushion_{i}", cush, "cushion", cfin, root, origin=[0, (a + c) / 2, z1], physical="upholstery",
              collision=[reduced_hull(cush)])
        if back_cushions:
            bcu = rounded_box([xb, a, z1], [xb + bc, c, H - 0.04], 0.04, 3)
            b.add(f"back_cushion_{i}", bcu, "cushion", cfin, root, origin=[xb, (a + c) / 2, z1],
                  physical="upholstery", collision=[reduced_hull(bcu)])
    b.attributes.update({
        "materials": {"upholstery": fab, "cushions": cfin, "legs": lfin},
        "legs": {"count": len(xs) * len(ys), "style": style}, "seat_height": round(sh, 3),
        "extras": [f"{'a seat cushion' if seats == 1 else f'{number(seats)} seat cushions'}", f"{arms} arms"]
        + (["loose back cushions"] if back_cushions else [])})


def build_sofa(b: AssetBuilder) -> None:
    """A sofa: two to four seat cushions between two arms."""
    W = b.p["width"]
    _upholstered(b, b.derive("seats", 2 if W < 1.8 else 3))


def build_armchair(b: AssetBuilder) -> None:
    """An upholstered armchair: one seat cushion between two arms."""
    _upholstered(b, 1)


def _upholstered_params(width: tuple[float, float], depth: tuple[float, float],
                        height: tuple[float, float]) -> dict[str, Param]:
    """The parameters ``_upholstered`` reads, with the category's own ranges of width, depth and height."""
    return {
        "width": frange(*width, "m, arms included"), "depth": frange(*depth, "m"),
        "height": frange(*height, "m, to the top of the back"),
        "seat_height": frange(0.4, 0.48, "top of the seat cushions, m"),
        "arms": choice("track", "rolled", doc="arm shape: square track arms or rounded rolled arms"),
        "back_cushions": choice(False, True, doc="loose back cushions in front of the back"),
        "body_finish": finish_param("fabric", doc="upholstery of the base, back and arms"),
        "cushions_match_body": flag(0.7, "cushions in the upholstery's fabric"),
        "cushion_finish": finish_param("fabric", doc="cushions (when not the upholstery's)"),
        "leg_finish": finish_param(("wood", "brushed_metal", "painted_metal"), doc="legs"),
        "leg_height": frange(0.05, 0.14, "m", draw="inline"),
        "leg_style": choice("square", "round", "tapered", doc="leg profile", draw="inline"),
        "cushion_thickness": frange(0.1, 0.16, "seat cushion thickness, m", draw="inline"),
        "arm_width": frange(0.1, 0.2, "m", draw="inline"),
        "arm_height": frange(0.56, 0.68, "top of the arms above the floor, m", draw="inline"),
        "back_thickness": frange(0.15, 0.22, "m", draw="inline"),
        "back_cushion_thickness": frange(0.1, 0.15, "m (back_cushions)", draw="inline"),
    }


# --------------------------------------------------------------------------------------------- desk


def build_desk(b: AssetBuilder) -> None:
    """A writing desk: a top on a drawer pedestal and an end panel or legs, or a top on four legs with an
    optional drawer under it."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    tt = b.draw("top_thickness")
    uz = H - tt
    if p["kind"] == "legs":
        top_fin = b.draw("top_finish")
        top = box([-D / 2, -W / 2, uz], [D / 2, W / 2, H])
        root = b.add("top", top, "top", top_fin)
        lfin = b.draw("leg_finish")
        lt, style, inset = b.draw("leg_thickness"), b.draw("leg_style"), b.draw("leg_inset")
        pts = [(sx * (D / 2 - inset - lt / 2), sy * (W / 2 - inset - lt / 2)) for sx in (1, -1) for sy in (-1, 1)]
        _legs(b, root, pts, uz, lt, style, lfin)
        b.attributes.update({"kind": "writing", "materials": {"top": top_fin, "legs": lfin},
                             "legs": {"count": 4, "style": style, "finish": lfin}})
        if b.derive("drawers", int(p["has_drawer"])):
            _table_drawer(b, root, D, W, uz, inset, lt, lfin, top_fin)
        return
    st = furniture_style(b, base="plinth")
    top_fin = st.body
    wp = b.draw("pedestal_width")
    dp = D - 0.04
    n = b.draw("drawers_in_pedestal", when=p["pedestal"] == "drawers", otherwise=1)
    rows = [Row(1.0, [Cell("drawer")]) for _ in range(n)]
    if p["pedestal"] == "drawer_over_door":
        rows = [Row(0.3, [Cell("drawer")]), Row(0.7, [Cell("door", hinge=b.draw("hinge", item=0))])]
    facts = build_carcass(b, wp, dp, uz, rows, st)
    y1 = wp / 2 + 0.015
    y0 = y1 - W
    top = box([-dp / 2 - 0.01, y0, uz], [dp / 2 + 0.04, y1, H])
    b.add("top", top, "top", top_fin, "body", origin=[0, 0, uz])
    end = p["end"]
    if end == "panel":
        pt = 0.025
        panel = box([-dp / 2, y0 + 0.015, 0.0], [dp / 2, y0 + 0.015 + pt, uz])
        b.add("end_panel", panel, "panel", st.body, "top", origin=[0, y0 + 0.015, uz])
    else:
        lt = 0.045
        _legs(b, "top", [(x, y0 + 0.03 + lt / 2) for x in (-dp / 2 + 0.03, dp / 2 - 0.03)], uz, lt, "square",
              st.leg_finish or st.body)
    _record(b, st, facts, {"kind": "writing", "pedestal": p["pedestal"].replace("_", " ")})
    b.attributes["materials"] = {"top": top_fin, "body": st.body, "handles": st.handle}
    b.attributes.setdefault("extras", []).append(f"a drawer pedestal and {'an end panel' if end == 'panel' else 'legs'}"
                                                 " carrying the top")


# --------------------------------------------------------------------------------------------- TV stand


def build_tv_stand(b: AssetBuilder) -> None:
    """A low, wide media console: doors either side of an open bay, a row of drawers under an open shelf, or
    drop-down flaps."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b, base=p["base"])
    ncol = b.derive("columns", 2 if W < 1.4 else 3)
    layout = p["layout"]
    if layout == "doors_open_doors":
        doors = [Cell("door", hinge="left"), Cell("open", weight=0.8 if ncol == 2 else 1.0),
                 Cell("door", hinge="right")]
        rows = [Row(1.0, doors)]
    elif layout == "open_over_drawers":
        rows = [Row(0.45, [Cell("open") for _ in range(ncol)]), Row(0.55, [Cell("drawer") for _ in range(ncol)])]
    else:
        rows = [Row(1.0, [Cell("flap") for _ in range(ncol)])]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts, {"layout": layout.replace("_", " ")})


# --------------------------------------------------------------------------------------------- vanity


def build_vanity(b: AssetBuilder) -> None:
    """A bathroom vanity: a cupboard (doors, maybe a drawer row) under a counter top with a vessel basin and a
    single-lever mixer tap."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b, base=p["base"])
    top_fin = b.draw("top_finish")
    tt = b.draw("top_thickness")
    hc = H - tt
    layout = p["layout"]
    if layout == "drawers" and b.is_given("doors") and b.given["doors"] and not b.is_given("layout"):
        layout = b.values["layout"] = "drawer_over_doors"  # doors asked for: the drawn layout gives way
    ncol = b.derive("doors", 1 if W < 0.75 else 2) if layout != "drawers" else 0
    if ncol == 1:
        row = [Cell("door", hinge=b.draw("hinge", item=0))]
    else:
        row = [Cell("door", hinge="left" if i < ncol / 2 else "right") for i in range(ncol)]
    rows = [Row(1.0, row)]
    if layout == "drawer_over_doors":
        rows.insert(0, Row(0.28, [Cell("drawer")]))
    elif layout == "drawers":
        rows = [Row(1.0, [Cell("drawer")]) for _ in range(2)]
    facts = build_carcass(b, W, D, hc, rows, st, top_slab={"finish": top_fin, "overhang": 0.015, "thickness": tt})
    # basin and tap on the top: the tap near the back, the basin in front of it
    fin = b.draw("tap_finish")
    basin_fin = b.draw("basin_finish")
    xt0 = -D / 2 - 0.005
    xtap = xt0 + 0.05
    R = min(b.draw("basin_radius"), (D - 0.13) / 2, W / 2 - 0.04)
    hb = b.draw("basin_height")
    xb = xtap + 0.028 + 0.02 + R
    t = 0.012
    if p["basin"] == "round":
        bowl = lathe([(0, 0), (R, 0), (R, hb), (R - t, hb), (R - t, t), (0, t)], 48).translated([xb, 0, H])
        pieces = [reduced_hull(cylinder(R, t, 48, at=(xb, 0, H)))] + [
            s.translated([xb, 0, H]) for s in annulus_sectors(R - t, R, t, hb, 48, 16)]
    else:
        bowl = difference(box([xb - R, -R * 1.2, H], [xb + R, R * 1.2, H + hb]),
                          box([xb - R + t, -R * 1.2 + t, H + t], [xb + R - t, R * 1.2 - t, H + hb + 0.01]))
        pieces = rectilinear_boxes(bowl)
    b.add("basin", bowl, "other", basin_fin, "top", origin=[xb, 0, H], physical="ceramic", collision=pieces)
    fh = b.derive("tap_height", round(hb + 0.13, 3))
    _mixer(b, "top", [xtap, 0.0, H], 0.0, fh, xb - xtap, fin, b.draw("lever_length"))
    _record(b, st, facts, {"layout": layout.replace("_", " ")})
    b.attributes["materials"] = {"body": st.body, "fronts": st.front, "top": top_fin, "basin": basin_fin,
                                 "tap": fin, "handles": st.handle}
    b.attributes.setdefault("extras", []).extend(
        [f"a {p['basin']} vessel basin on the top", "a single-lever mixer tap whose lever lifts to open"])


# --------------------------------------------------------------------------------------------- bathtub


def build_bathtub(b: AssetBuilder) -> None:
    """A built-in bathtub: a rectangular shell with a front apron, a sloped back rest at the head end, a deck
    mixer at the foot end (lever lifts) and a push-to-open pop-up drain."""
    p = b.p
    L, D, H = p["length"], p["depth"], p["height"]
    fin = b.draw("body_finish")
    rim = b.draw("rim_width")
    deck = 0.17  # tap deck at the foot end (+Y)
    ft = b.draw("floor_thickness")
    outer = box([-D / 2, -L / 2, 0.0], [D / 2, L / 2, H])
    inner = box([-D / 2 + rim, -L / 2 + rim, ft], [D / 2 - rim, L / 2 - deck, H + 0.01])
    shell = difference(outer, inner)
    # the back rest: a wedge sloping up from the floor to the head-end rim
    y0 = -L / 2 + rim
    run = (H - ft) * np.tan(np.deg2rad(b.draw("backrest_angle")))
    x0, x1 = -D / 2 + rim, D / 2 - rim
    wedge_pts = np.array([[x, y, z] for x in (x0, x1) for y, z in ((y0, ft), (y0, H), (y0 + run, ft))])
    wedge = reduced_hull(wedge_pts)
    # a pop-up drain in the floor near the foot end: a pocket (round hole, 1.5 mm clearance) and its plug
    r = 0.022
    dy = L / 2 - deck - 0.1
    pocket = cylinder(r + 0.0015, 0.05, 48, at=(0, dy, ft - 0.04))
    body = difference(union(shell, wedge), pocket)
    coarse = cylinder((r + 0.0015) / np.cos(np.pi / 48), 0.05, 24, at=(0, dy, ft - 0.04))
    pieces = subtract_prism(rectilinear_boxes(shell), coarse, (0, 0, 1)) + [wedge]
    root = b.add("body", body, "body", fin, physical="appliance_shell", collision=pieces)
    tap_fin = b.draw("tap_finish")
    stem = cylinder(r, 0.02, 48, at=(0, dy, ft - 0.0145))
    cap = cylinder(r + 0.006, 0.004, 48, at=(0, dy, ft + 0.0045))
    b.add("drain_plug", union(stem, cap), "button", tap_fin, root, "button", origin=[0, dy, ft + 0.0085],
          axis=[0, 0, -1], upper=0.003, physical="brass", collision=[reduced_hull(stem), reduced_hull(cap)])
    _mixer(b, root, [0.0, L / 2 - deck / 2, H], -np.pi / 2, b.draw("tap_height"), deck / 2 + 0.07, tap_fin,
           b.draw("lever_length"))
    b.attributes.update({"kind": "built-in", "materials": {"body": fin, "tap": tap_fin},
                         "extras": ["a sloped back rest", "a deck-mounted mixer tap whose lever lifts to open",
                                    "a push-to-open pop-up drain"]})


# --------------------------------------------------------------------------------------------- kitchen counter

#: Sections of a kitchen counter run, left to right.
COUNTER_LAYOUTS: dict[str, tuple[str, ...]] = {
    "drawers_sink_cupboard": ("drawers", "sink", "cupboard"),
    "sink_cupboard": ("sink", "cupboard"),
    "drawers_sink": ("drawers", "sink"),
}


def build_kitchen_counter(b: AssetBuilder) -> None:
    """A run of kitchen base cabinets under one worktop: a sink section (a false front over one or two doors, a
    drop-in sink and a lever mixer tap) beside a drawer section and/or a cupboard section, on feet behind a kick
    board."""
    p = b.p
    D, H = p["depth"], p["height"]
    sections = COUNTER_LAYOUTS[p["layout"]]
    ws, wo = p["sink_section_width"], p["section_width"]
    widths = [ws if s == "sink" else wo for s in sections]
    W = float(sum(widths))
    st = furniture_style(b, base="legs")  # adjustable feet behind a recessed kick board, as kitchen units stand
    st.leg_style = "round"
    ts = b.draw("top_thickness")
    hc = H - ts
    well = b.draw("sink_depth") + 0.01  # the sink hangs into an open band under the worktop
    band = well + st.wall + 0.01
    top_row: list[Cell] = []
    low_row: list[Cell] = []
    for s, w in zip(sections, widths, strict=True):
        if s == "sink":
            top_row.append(Cell("solid", weight=w))
            if w < 0.8:  # one door under a narrow sink
                low_row.append(Cell("door", weight=w, hinge="left" if s == sections[0] else "right"))
            else:
                low_row += [Cell("door", weight=w / 2, hinge="left"), Cell("door", weight=w / 2, hinge="right")]
        elif s == "drawers":
            top_row.append(Cell("drawer", weight=w))
            low_row.append(Cell("drawer", weight=w))
        else:
            top_row.append(Cell("drawer", weight=w))
            low_row.append(Cell("door", weight=w, hinge="right" if s == sections[-1] else "left"))
    st.top_well = well
    facts = build_carcass(b, W, D, hc, [Row(band, top_row), Row(hc - st.base_h - band, low_row)], st)
    # the worktop, with the sink's opening; the sink (a drop-in steel bowl with a rim) in the sink section
    x0, x1 = -D / 2 - 0.005, D / 2 + st.gap + st.front_t + 0.02
    ysc = -W / 2 + sum(widths[:sections.index("sink")]) + ws / 2
    xtap = -D / 2 + 0.06
    sx0, sx1 = xtap + 0.045, D / 2 - st.wall - 0.02
    sw = min(ws - 0.1, b.draw("sink_width"))
    sy0, sy1 = ysc - sw / 2, ysc + sw / 2
    zb = hc + ts - well + 0.01  # the bowl's floor, above the well's
    top_fin = b.draw("top_finish")
    top = difference(box([x0, -W / 2, hc], [x1, W / 2, hc + ts]),
                     box([sx0, sy0, hc - 0.01], [sx1, sy1, hc + ts + 0.01]))
    b.add("top", top, "top", top_fin, "body", origin=[0.0, 0.0, hc])
    t = 0.008
    rim = 0.02
    bowl = union(difference(box([sx0, sy0, zb], [sx1, sy1, hc + ts]),
                            box([sx0 + t, sy0 + t, zb + t], [sx1 - t, sy1 - t, hc + ts + 0.01])),
                 difference(box([sx0 - rim, sy0 - rim, hc + ts], [sx1 + rim, sy1 + rim, hc + ts + 0.006]),
                            box([sx0 + t, sy0 + t, hc + ts - 0.01], [sx1 - t, sy1 - t, hc + ts + 0.01])))
    sink_fin = b.draw("sink_finish")
    b.add("sink", bowl, "other", sink_fin, "top", origin=[(sx0 + sx1) / 2, ysc, hc + ts],
          physical="sheet_metal" if sink_fin.kind == "brushed_metal" else None)
    # the sink section's false front, in line with the drawer fronts beside it
    g, xd0 = st.gap, D / 2 + st.gap
    false = box([xd0, ysc - ws / 2 + g / 2, hc - band + g / 2], [xd0 + st.front_t, ysc + ws / 2 - g / 2, hc - g / 2])
    b.add("false_front", false, "panel", st.front, "body", physical=st.front_physical)
    kick = box([D / 2 - 0.09, -W / 2 + 0.005, 0.0], [D / 2 - 0.072, W / 2 - 0.005, st.base_h])  # behind the feet
    b.add("kick_board", kick, "panel", st.front, "body", physical=st.front_physical)
    tap_fin = b.draw("tap_finish")
    fh = b.draw("tap_height")
    _mixer(b, "top", [xtap, ysc, hc + ts], 0.0, fh, (sx0 + sx1) / 2 - xtap, tap_fin, b.draw("lever_length"))
    _record(b, st, facts, {"layout": p["layout"].replace("_", " ")})
    b.attributes["materials"] = {"body": st.body, "fronts": st.front, "worktop": top_fin, "sink": sink_fin,
                                 "tap": tap_fin, "handles": st.handle}
    b.attributes["extras"] = ["a drop-in sink in the worktop over the sink section's doors",
                              "a mixer tap whose lever lifts to open", "a recessed kick board"]
    b.attributes.pop("legs", None)  # the feet stand behind the kick board


# --------------------------------------------------------------------------------------------- towel rack, coat rack


def build_towel_rack(b: AssetBuilder) -> None:
    """A free-standing towel stand: a weighted base and pole with two to four arms that swivel about the pole,
    or a towel valet: two uprights on feet joined by fixed rails."""
    p = b.p
    H = p["height"]
    fin = b.draw("body_finish")
    if p["kind"] == "swivel":
        rb = b.draw("base_radius")
        rp = 0.014
        base = lathe([(0, 0), (rb, 0), (rb, 0.012), (rb * 0.8, 0.022), (0, 0.022)], 48)
        pole = cylinder(rp, H - 0.021, 32, at=(0, 0, 0.021))
        cap = sphere(rp * 1.4, (0, 0, H), 24)
        root = b.add("base", union(base, pole, cap), "base", fin, physical="steel",
                     collision=[reduced_hull(base), reduced_hull(pole), reduced_hull(cap)])
        n = b.derive("arms", 3)
        length = b.draw("arm_length")
        g = 0.003
        ch = 0.03
        r_in, r_out = rp + g, rp + g + 0.008
        step = 0.07
        for k in range(n):
            zc = H - 0.06 - k * step - ch
            yaw = np.deg2rad((k - (n - 1) / 2) * 35.0)
            collar = lathe([(r_in, zc), (r_out, zc), (r_out, zc + ch), (r_in, zc + ch)], 32)
            za = zc + ch / 2
            arm = cylinder_between([r_in + 0.004, 0, za], [length, 0, za], 0.008, 16)
            tip = sphere(0.011, (length, 0, za), 16)
            m = _rz(float(yaw), [0, 0, 0])
            mesh = union(collar, arm, tip).transformed(m)
            pieces = [s.transformed(m) for s in annulus_sectors(r_in, r_out, zc, zc + ch, 32, 16)]
            pieces += [reduced_hull(arm.transformed(m)), reduced_hull(tip.transformed(m))]
            b.add(f"arm_{k}", mesh, "arm", fin, root, "hinge", origin=[0, 0, zc], axis=[0, 0, 1], lower=-1.3,
                  upper=1.3, collision=pieces, physical="steel")
        b.attributes.update({"kind": "swivel", "materials": {"frame": fin},
                             "extras": [f"{number(n)} arms that swivel about the pole", "a weighted round base"]})
        return
    W = b.draw("valet_width")
    D = b.draw("valet_depth")
    n = b.derive("rails", 3)
    r = 0.011
    parts: list[Mesh] = []
    for s in (-1, 1):
        y = s * (W / 2 - r)
        parts.append(cylinder_between([-D / 2, y, 0.012], [D / 2, y, 0.012], 0.012, 16))
        parts.append(cylinder(r, H - 0.012, 20, at=(0, y, 0.012)))
    zs = np.linspace(H - 0.02, 0.35 * H, n)
    for k, z in enumerate(zs):
        x = (k % 2 - 0.5) * 0.06 if n > 1 else 0.0
        parts.append(cylinder_between([x, -W / 2 + r, z], [x, W / 2 - r, z], 0.009, 16))
        parts.append(cylinder_between([0, -W / 2 + r, z], [x, -W / 2 + r, z], 0.009, 12) if x else
                     sphere(0.009, (0, -W / 2 + r, z), 12))
        parts.append(cylinder_between([0, W / 2 - r, z], [x, W / 2 - r, z], 0.009, 12) if x else
                     sphere(0.009, (0, W / 2 - r, z), 12))
    b.add("frame", union(*parts), "frame", fin, physical="steel", collision=[reduced_hull(x) for x in parts])
    b.attributes.update({"kind": "standing", "materials": {"frame": fin},
                         "extras": [f"{number(n)} fixed rails between two uprights on feet"]})


def build_coat_rack(b: AssetBuilder) -> None:
    """A coat stand: a pole on a weighted disc or three splayed feet, with hooks all round near the top."""
    p = b.p
    H = p["height"]
    fin = b.draw("body_finish")
    hook_fin = b.draw("hook_finish")
    rp = b.draw("pole_radius")
    pole = cylinder(rp, H - 0.02, 32, at=(0, 0, 0.02))
    top = sphere(rp * 1.5, (0, 0, H - rp * 1.5), 24)
    if p["base"] == "disc":
        rb = b.draw("base_radius")
        foot = [lathe([(0, 0), (rb, 0), (rb, 0.015), (rb * 0.85, 0.03), (0, 0.03)], 48)]
    else:
        rb = b.draw("base_radius")
        foot = [cylinder_between([0, 0, 0.12], [rb * np.cos(a), rb * np.sin(a), 0.012], 0.014, 12)
                for a in np.arange(3) * 2 * np.pi / 3]
        foot += [cylinder(0.02, 0.012, 16, at=(rb * np.cos(a) - 0.0, rb * np.sin(a), 0.0))
                 for a in np.arange(3) * 2 * np.pi / 3]
    pieces = [pole, top, *foot]
    root = b.add("stand", union(*pieces), "base", fin, collision=[reduced_hull(x) for x in pieces])
    n = b.derive("hooks", 6)
    reach = b.draw("hook_reach")
    zh = H - 0.14
    for k in range(n):
        a = 2 * np.pi * k / n + (np.pi / n if k % 2 else 0)
        z = zh - (0.08 if k % 2 else 0.0)
        d = np.array([np.cos(a), np.sin(a), 0.0])
        p0 = d * rp * 0.5 + [0, 0, z]
        p1 = d * reach + [0, 0, z + 0.05]
        p2 = p1 + [0, 0, 0.03]
        hook = union(cylinder_between(p0, p1, 0.007, 12), sphere(0.007, p1, 12), cylinder_between(p1, p2, 0.007, 12),
                     sphere(0.011, p2, 12))
        b.add(f"hook_{k}", hook, "handle", hook_fin, root, origin=p0, collision=[
            reduced_hull(cylinder_between(p0, p1, 0.007, 12)), reduced_hull(union(
                sphere(0.007, p1, 12), cylinder_between(p1, p2, 0.007, 12), sphere(0.011, p2, 12)))])
    b.attributes.update({"materials": {"stand": fin, "hooks": hook_fin},
                         "extras": [f"{number(n)} hooks round the top", "a weighted disc base" if p["base"] == "disc"
                                    else "three splayed feet"]})


# --------------------------------------------------------------------------------------------- registry

CATEGORIES: tuple[Category, ...] = (
    Category("bed", "bed: a frame on legs or a storage base with drawers under the foot end, a headboard, a "
             "mattress and pillows",
             {"size": choice("single", "double", "queen", "king", doc="mattress width: 0.9, 1.35, 1.5 or 1.8 m"),
              "length": frange(1.9, 2.1, "mattress length, m"),
              "storage": choice(False, True, doc="a storage base with drawers that slide out under the foot end"),
              "headboard": choice("panel", "upholstered", "slatted", doc="headboard style"),
              "headboard_height": frange(0.85, 1.3, "top of the headboard above the floor, m"),
              **_style_params(),
              "leg_height": frange(0.1, 0.2, doc="leg height, m (no storage)", draw="inline"),
              "rail_thickness": frange(0.03, 0.06, "side and end rails round the mattress, m", draw="inline"),
              "deck_height": frange(0.28, 0.38, "top of the deck the mattress lies on, m", draw="inline"),
              "rail_rise": frange(0.03, 0.08, "rails above the deck, m", draw="inline"),
              "drawer_depth": frange(0.5, 0.6, "depth of the drawer unit under the foot end, m (storage)",
                                     draw="inline"),
              "drawers": irange(1, 2, "drawers side by side under the foot end (storage; default 1 under 1.1 m "
                                "wide, else 2)", draw="derived", limits=(1, 4)),
              "headboard_thickness": frange(0.04, 0.09, "m", draw="inline"),
              "headboard_finish": finish_param("fabric", doc="an upholstered headboard"),
              "mattress_height": frange(0.18, 0.26, "m", draw="inline"),
              "bedding_finish": finish_param("fabric", doc="mattress cover and pillows"),
              "pillows": irange(1, 2, "pillows at the head (default 1 on a single bed, else 2)", draw="derived",
                                limits=(1, 4))},
             (1.95, 0.95, 0.8), (2.35, 1.95, 1.32), build_bed,
             ("bed", "bed frame", "storage bed")),
    Category("sofa", "upholstered sofa: base on short legs, back, two arms, two to four seat cushions",
             {**_upholstered_params((1.5, 2.4), (0.8, 1.0), (0.75, 0.95)),
              "seats": irange(2, 3, "seat cushions side by side (default 2 under 1.8 m wide, else 3)",
                              draw="derived", limits=(2, 4))},
             (0.8, 1.5, 0.75), (1.0, 2.4, 0.95), build_sofa, ("sofa", "couch", "settee")),
    Category("armchair", "upholstered armchair: base on short legs, back, two arms, one seat cushion",
             _upholstered_params((0.75, 1.0), (0.75, 0.95), (0.78, 1.0)),
             (0.75, 0.75, 0.78), (0.95, 1.0, 1.0), build_armchair, ("armchair", "easy chair", "lounge chair")),
    Category("desk", "writing desk: a top on a drawer pedestal and an end panel or legs, or on four legs with an "
             "optional drawer",
             {"kind": choice("pedestal", "legs", doc="a drawer pedestal under one end, or four legs"),
              "width": frange(1.0, 1.6, "m"), "depth": frange(0.55, 0.75, "m"), "height": frange(0.72, 0.77, "m"),
              "pedestal": choice("drawers", "drawer_over_door", doc="the pedestal's fronts (kind=pedestal)"),
              "end": choice("panel", "legs", doc="what carries the top's other end (kind=pedestal)"),
              "has_drawer": choice(False, True, doc="a drawer under the top (kind=legs)"),
              "top_thickness": frange(0.022, 0.035, "m", draw="inline"),
              "top_finish": finish_param(("wood", "painted_wood", "stone"), doc="the top (kind=legs; a pedestal "
                                         "desk's top is in the body's finish)"),
              **_style_params(),
              "pedestal_width": frange(0.38, 0.45, "m (kind=pedestal)", draw="inline"),
              "drawers_in_pedestal": irange(2, 4, "stacked drawers (pedestal=drawers)", draw="inline",
                                            limits=(1, 5)),
              "hinge": choice("left", "right", doc="the pedestal door's hinge side", draw="inline", per_item=True),
              "leg_finish": finish_param(("wood", "brushed_metal", "painted_metal"), doc="legs (kind=legs)"),
              "leg_thickness": frange(0.035, 0.055, "m (kind=legs)", draw="inline"),
              "leg_inset": frange(0.02, 0.05, "legs' inset from the edge of the top, m (kind=legs)", draw="inline"),
              "drawers": irange(0, 1, "drawers under the top (kind=legs; default: has_drawer)", draw="derived"),
              "apron_height": frange(0.08, 0.11, "m (kind=legs, with a drawer)", draw="inline"),
              **CARCASS_DOOR_PARAMS},
             (0.55, 1.0, 0.72), (0.82, 1.62, 0.77), build_desk, ("desk", "writing desk", "computer desk")),
    Category("tv_stand", "low media console: doors either side of an open bay, drawers under an open shelf, or "
             "drop-down flaps",
             {"width": frange(1.0, 2.0, "m"), "depth": frange(0.35, 0.5, "m"), "height": frange(0.4, 0.6, "m"),
              "layout": choice("doors_open_doors", "open_over_drawers", "flaps", doc="fronts"),
              "base": choice("legs", "plinth", "none", doc="what the carcass stands on"),
              **_style_params(("bar", "knob", "pull", "tab")),
              "leg_height": frange(0.08, 0.16, doc="leg height, m (base=legs)", draw="inline"),
              "columns": irange(2, 3, "drawers or flaps side by side (default 2 under 1.4 m wide, else 3)",
                                draw="derived", limits=(1, 5)),
              **CARCASS_DOOR_PARAMS},
             (0.35, 1.0, 0.4), (0.6, 2.0, 0.6), build_tv_stand, ("tv stand", "media console", "tv unit")),
    Category("vanity", "bathroom vanity: a cupboard under a counter top with a vessel basin and a lever mixer tap",
             {"width": frange(0.6, 1.2, "m"), "depth": frange(0.46, 0.56, "m"),
              "height": frange(0.8, 0.88, "top of the counter, m"),
              "layout": choice("doors", "drawer_over_doors", "drawers", doc="fronts, top row first"),
              "basin": choice("round", "rectangular", doc="vessel basin shape"),
              "base": choice("plinth", "legs", doc="what the cupboard stands on"),
              **_style_params(),
              "leg_height": frange(0.1, 0.18, doc="leg height, m (base=legs)", draw="inline"),
              "doors": irange(1, 2, "doors side by side (default 1 under 0.75 m wide, else 2; none with "
                             "layout=drawers)", draw="derived"),
              "hinge": choice("left", "right", doc="a single door's hinge side", draw="inline", per_item=True),
              "top_finish": finish_param(("stone", "wood"), doc="counter top"),
              "top_thickness": frange(0.02, 0.04, "m", draw="inline"),
              "tap_finish": finish_param(("chrome", "brushed_metal"), ("chrome", "polished nickel",
                                                                       "stainless steel", "brass", "black steel"),
                                         doc="mixer tap"),
              "basin_finish": finish_param("ceramic", ("white", "cream", "matte black", "speckled grey"),
                                           doc="basin"),
              "basin_radius": frange(0.16, 0.21, "basin half-size, m (capped by the top's depth)", draw="inline"),
              "basin_height": frange(0.11, 0.15, "m", draw="inline"),
              "tap_height": frange(0.24, 0.28, "mixer column height, m (default: basin height + 0.13)",
                                   draw="derived"),
              "lever_length": frange(0.07, 0.1, "tap lever length, m", draw="inline"),
              **CARCASS_DOOR_PARAMS},
             (0.46, 0.6, 1.05), (0.68, 1.25, 1.2), build_vanity,
             ("vanity", "bathroom vanity", "sink cabinet", "vanity unit", "washbasin cabinet")),
    Category("bathtub", "built-in bathtub: shell with apron, sloped back rest, deck mixer with a lifting lever and a "
             "push-to-open pop-up drain",
             {"length": frange(1.5, 1.8, "m"), "depth": frange(0.7, 0.8, "m"), "height": frange(0.5, 0.6, "rim, m"),
              "body_finish": finish_param(("ceramic", "plastic"), ("white", "cream", "beige", "matte black"),
                                          doc="enamel or acrylic shell"),
              "rim_width": frange(0.05, 0.08, "m", draw="inline"),
              "floor_thickness": frange(0.05, 0.07, "m", draw="inline"),
              "backrest_angle": frange(20, 35, "slope of the back rest from the vertical, degrees", draw="inline"),
              "tap_finish": finish_param(("chrome", "brushed_metal"), ("chrome", "polished nickel",
                                                                       "stainless steel", "brass"),
                                         doc="mixer tap and drain plug"),
              "tap_height": frange(0.12, 0.16, "mixer column height, m", draw="inline"),
              "lever_length": frange(0.07, 0.1, "tap lever length, m", draw="inline")},
             (0.7, 1.5, 0.65), (0.8, 1.8, 0.8), build_bathtub, ("bathtub", "bath", "tub")),
    Category("kitchen_counter", "run of kitchen base cabinets under one worktop: a sink section with a false front "
             "over one or two doors, a drop-in sink and a lever mixer tap, beside drawers and/or a cupboard",
             {"layout": choice(*COUNTER_LAYOUTS, doc="sections left to right: drawers (a drawer over a deep drawer), "
                               "sink, cupboard (a drawer over a door)"),
              "sink_section_width": frange(0.6, 0.9, "m (one door under it below 0.8 m, else two)"),
              "section_width": frange(0.45, 0.6, "width of each drawer or cupboard section, m"),
              "depth": frange(0.58, 0.62, "carcass depth, m (the worktop overhangs the fronts)"),
              "height": frange(0.88, 0.92, "worktop height, m"),
              **_style_params(),
              "leg_height": frange(0.1, 0.15, doc="height of the feet behind the kick board, m", draw="inline"),
              "top_thickness": frange(0.028, 0.04, "worktop thickness, m", draw="inline"),
              "top_finish": finish_param(("stone", "wood"), doc="worktop"),
              "sink_depth": frange(0.15, 0.19, "sink bowl depth below the worktop, m", draw="inline"),
              "sink_width": frange(0.45, 0.6, "sink bowl width, m (at most the section's width less 0.1 m)",
                                   draw="inline"),
              "sink_finish": finish_param(("brushed_metal", "ceramic"), ("stainless steel", "white", "matte black"),
                                          doc="sink"),
              "tap_finish": finish_param(("chrome", "brushed_metal"), ("chrome", "stainless steel", "brass",
                                                                       "black steel"), doc="mixer tap"),
              "tap_height": frange(0.22, 0.3, "mixer column height, m", draw="inline"),
              "lever_length": frange(0.08, 0.11, "tap lever length, m", draw="inline"),
              **CARCASS_DOOR_PARAMS},
             (0.6, 1.1, 1.1), (0.72, 2.15, 1.27), build_kitchen_counter,
             ("kitchen counter", "kitchen sink unit", "sink unit", "kitchen base units", "counter",
              "countertop", "worktop")),
    Category("towel_rack", "free-standing towel rack: a pole with swivelling arms, or a valet with fixed rails",
             {"kind": choice("swivel", "valet", doc="a pole with arms that swivel, or two uprights with rails"),
              "height": frange(0.8, 1.0, "m"),
              "body_finish": finish_param(("chrome", "brushed_metal", "painted_metal"), doc="the whole rack"),
              "base_radius": frange(0.17, 0.22, "weighted base radius, m (swivel)", draw="inline"),
              "arms": irange(3, 3, "swivelling arms (swivel)", draw="derived", limits=(1, 4)),
              "arm_length": frange(0.3, 0.42, "m (swivel)", draw="inline"),
              "valet_width": frange(0.45, 0.7, "m (valet)", draw="inline"),
              "valet_depth": frange(0.3, 0.4, "feet length, m (valet)", draw="inline"),
              "rails": irange(3, 3, "rails between the uprights (valet)", draw="derived", limits=(1, 5))},
             (0.24, 0.34, 0.8), (0.85, 0.85, 1.02), build_towel_rack,
             ("towel rack", "towel stand", "towel rail")),
    Category("coat_rack", "standing coat rack: a pole on a disc or three feet with hooks all round the top",
             {"height": frange(1.65, 1.9, "m"),
              "base": choice("disc", "feet", doc="a weighted disc or three splayed feet"),
              "body_finish": finish_param(("wood", "painted_metal", "brushed_metal"), doc="pole and base"),
              "hook_finish": finish_param(("brushed_metal", "chrome", "painted_metal"), doc="hooks"),
              "pole_radius": frange(0.016, 0.024, "m", draw="inline"),
              "base_radius": frange(0.2, 0.26, "m", draw="inline"),
              "hooks": irange(6, 6, "hooks round the top", draw="derived", limits=(3, 8)),
              "hook_reach": frange(0.1, 0.15, "m", draw="inline")},
             (0.34, 0.34, 1.65), (0.54, 0.54, 1.92), build_coat_rack, ("coat rack", "coat stand", "hat stand")),
)
