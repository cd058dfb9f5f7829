"""Furniture: carcass furniture (cabinet, wardrobe, nightstand, dresser, bookshelf), tables, chairs, stools."""

from __future__ import annotations

import logging

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.carcass import CARCASS_DOOR_PARAMS, CarcassStyle, Cell, Row, build_carcass
from seed3d.synth.collision import wheel_hull
from seed3d.synth.core import AssetBuilder, Category, Param, choice, either, finish_param, flag, frange, irange
from seed3d.synth.fixtures import handle, leg
from seed3d.synth.materials import METAL_KINDS, Finish
from seed3d.synth.primitives import box, cylinder, cylinder_between, difference, rounded_box, torus, union

WOODS = ("wood", "painted_wood")

logger = logging.getLogger(__name__)


def carcass_style_params(handle_styles: tuple[str, ...] = ("bar", "knob", "pull", "arch", "tab"),
                         bases: tuple[str, ...] = ("plinth", "legs", "none")) -> dict[str, Param]:
    """The parameters ``furniture_style`` reads: finishes, handle style, base and thicknesses."""
    return {
        "base": choice(*bases, doc="what the carcass stands on", draw="inline"),
        "body_finish": finish_param(WOODS, doc="carcass finish"),
        "front_matches_body": flag(0.7, doc="doors and drawer fronts in the body's finish"),
        "front_finish": finish_param(WOODS, doc="door and drawer fronts (when not the body's)"),
        "handle_finish": finish_param(("brushed_metal", "chrome", "brushed_metal", "wood"), doc="handles"),
        "handle_style": choice(*handle_styles, doc="handle shape", draw="inline"),
        "plinth_height": frange(0.06, 0.1, doc="plinth height, m (base=plinth)", draw="inline"),
        "leg_height": frange(0.1, 0.22, doc="leg height, m (base=legs)", draw="inline"),
        "legs_match_body": flag(0.6, doc="legs in the body's finish"),
        "leg_finish": finish_param(("brushed_metal", "painted_metal"), doc="legs (when not the body's)"),
        "wall": frange(0.016, 0.022, doc="carcass wall thickness, m", draw="inline"),
        "front_thickness": frange(0.016, 0.022, doc="door and drawer front thickness, m", draw="inline"),
        "leg_style": choice("square", "round", "tapered", doc="leg profile", draw="inline"),
        "glass_finish": finish_param("glass", ("clear", "frosted", "smoked"), doc="glass of windowed doors"),
    }


def furniture_style(b: AssetBuilder, base: str | None = None) -> CarcassStyle:
    """Read finishes, handle style and base for a piece of carcass furniture (``carcass_style_params``).

    ``base``: already read by the caller (whose category draws it before the finishes).
    """
    body = b.draw("body_finish")
    front = b.draw("front_finish", when=not b.draw("front_matches_body"), otherwise=body)
    hfin = b.draw("handle_finish")
    style = b.draw("handle_style")
    base = base or b.draw("base")
    plinth_h = b.draw("plinth_height", when=base == "plinth")
    legs_h = b.draw("leg_height", when=base != "plinth")
    base_h = plinth_h if base == "plinth" else legs_h
    leg_fin = b.draw("leg_finish", when=not b.draw("legs_match_body"), otherwise=body)
    return CarcassStyle(body=body, front=front, handle=hfin, handle_style=style,
                        wall=b.draw("wall"), front_t=b.draw("front_thickness"),
                        base=base, base_h=base_h if base != "none" else 0.0,
                        leg_style=b.draw("leg_style"), leg_finish=leg_fin, glass=b.draw("glass_finish"))


def _record(b: AssetBuilder, st: CarcassStyle, facts: dict, extra: dict | None = None) -> None:
    """Store the structured attributes common to carcass furniture."""
    a = b.attributes
    a["materials"] = {"body": st.body, "fronts": st.front, "handles": st.handle}
    a["doors"] = facts["doors"]
    a["drawers"] = facts["drawers"]
    handles = b.count("handle")
    if handles:
        a["handles"] = {"style": st.handle_style, "count": handles}
    for key in ("shelves", "open_compartments", "dials", "buttons"):
        if facts.get(key):
            a[key] = facts[key]
    if "legs" in facts:
        a["legs"] = facts["legs"]
    elif st.base == "plinth":
        a["base"] = "plinth"
    if "top" in facts:
        a["top"] = facts["top"]
    if facts.get("extras"):
        a["extras"] = facts["extras"]
    if extra:
        a.update(extra)


def _door_row(b: AssetBuilder, n: int, shelves: int, window: bool = False) -> list[Cell]:
    """``n`` side-by-side doors hinged on their outer edges (``hinge``: drawn for a single door; the middle
    ones of a row alternate)."""
    cells = []
    for i in range(n):
        hinge = b.draw("hinge", item=i, when=n == 1, otherwise="left" if i < n / 2 else "right")
        cells.append(Cell("door", hinge=hinge, shelves=shelves, window=window))
    return cells


# --------------------------------------------------------------------------------------------- carcass furniture


def build_cabinet(b: AssetBuilder) -> None:
    """A base or wall-standing cabinet: doors, optionally with a row of drawers above or below."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b)
    ncol = b.derive("doors", 1 if W < 0.55 else (2 if W < 1.05 else 3))
    layout = p["layout"]
    ndrawers = b.derive("drawers", 0 if layout == "doors" else max(1, ncol))
    if ndrawers and layout == "doors":
        layout = "drawers_over_doors"
    elif not ndrawers:
        layout = "doors"
    shelves = b.draw("shelves", when=H > 0.6 or b.is_given("shelves"), otherwise=0)
    window = b.draw("glass_doors")
    doors = Row(1.0, _door_row(b, ncol, shelves, window))
    drawers = Row(0.22 if H > 0.8 else 0.3, [Cell("drawer") for _ in range(max(1, ndrawers))])
    rows = {"doors": [doors], "drawers_over_doors": [drawers, doors], "doors_over_drawers": [doors, drawers]}[layout]
    slab = None
    if b.draw("top_slab"):
        slab = {"finish": b.draw("top_finish"), "overhang": b.draw("top_overhang"),
                "thickness": b.draw("top_thickness")}
    facts = build_carcass(b, W, D, H, rows, st, top_slab=slab)
    _record(b, st, facts, {"layout": layout.replace("_", " ")})


def build_wardrobe(b: AssetBuilder) -> None:
    """A tall wardrobe: 2–4 doors (one section with a hanging rail), optional drawers at the bottom."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b, base=b.draw("base"))
    st.long_handles = b.draw("long_handles")
    ncol = b.derive("doors", int(np.clip(round(W / 0.5), 2, 4)))
    cells = _door_row(b, ncol, 0)
    for i, c in enumerate(cells):
        if i == 0:
            c.rod = True
        else:
            c.shelves = b.draw("shelves", item=i - 1)
    rows = [Row(1.0, cells)]
    ndrawers = b.derive("drawers", min(ncol, 2) if p["has_drawers"] else 0)
    if ndrawers:
        rows.append(Row(0.13, [Cell("drawer") for _ in range(ndrawers)]))
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts)


def build_nightstand(b: AssetBuilder) -> None:
    """A bedside table: stacked drawers, or a drawer above an open shelf or a small door."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b, base=b.draw("base"))
    if st.base == "legs":
        # the nightstand draws its legs' height a second time, shorter (furniture_style's first draw is not used)
        st.base_h = b.draw("leg_height")
    layout = p["layout"]
    n = b.draw("drawers", when=layout == "drawers", otherwise=1)
    if layout == "drawers":
        rows = [Row(1.0, [Cell("drawer")]) for _ in range(n)]
    elif layout == "drawer_over_shelf":
        rows = [Row(0.4 / n, [Cell("drawer")]) for _ in range(n)] + [Row(0.6, [Cell("open")])]
    else:
        rows = [Row(0.35 / n, [Cell("drawer")]) for _ in range(n)] + [Row(0.65, _door_row(b, 1, 0))]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts, {"layout": layout.replace("_", " ")})


def build_dresser(b: AssetBuilder) -> None:
    """A chest of drawers: 3–6 rows, the top row optionally split into two or three small drawers."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b)
    default_rows = int(np.clip(round(H / 0.2), 3, 6))
    ncol = 1 if W < 0.9 else 2
    split = b.draw("split_top_row") and (W > 0.7 or b.is_given("split_top_row"))
    if b.is_given("drawers"):  # a given total: spread over the rows, the extra ones in the top rows
        total = b.derive("drawers", 0)
        n_rows = min(b.derive("rows", min(default_rows, total)), total)
        counts = [total // n_rows + (1 if r < total % n_rows else 0) for r in range(n_rows)]
    else:
        n_rows = b.derive("rows", default_rows)
        counts = [ncol + (1 if r == 0 and split else 0) for r in range(n_rows)]
        b.derive("drawers", sum(counts))
    rows = []
    for r, cols in enumerate(counts):
        rows.append(Row(0.8 if r == 0 else 1.0 + 0.08 * r, [Cell("drawer") for _ in range(cols)]))
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts, {"drawer_rows": n_rows})


def build_bookshelf(b: AssetBuilder) -> None:
    """An open bookshelf (one to three bays of shelves), optionally with doors across the bottom."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b, base=b.draw("base"))
    ncol = b.derive("bays", 1 if W < 0.6 else (2 if W < 1.0 else 3))
    shelves = b.derive("shelves", int(np.clip(round(H / 0.35) - 1, 1, 5)))
    ndoors = b.derive("doors", ncol if p["has_doors"] and (H > 1.0 or b.is_given("has_doors")) else 0)
    rows = []
    if ndoors:
        rows.append(Row(H - 0.45, [Cell("open", shelves=max(0, shelves - 1)) for _ in range(ncol)]))
        rows.append(Row(0.45, _door_row(b, ndoors, 0)))
    else:
        rows.append(Row(1.0, [Cell("open", shelves=shelves) for _ in range(ncol)]))
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts, {"bays": ncol})


# --------------------------------------------------------------------------------------------- tables, seating


def build_table(b: AssetBuilder) -> None:
    """A dining, coffee or side table: rectangular or round top on legs or a pedestal; maybe a drawer."""
    p = b.p
    kind = p["kind"]
    H = {"dining": p["height"], "coffee": p["height"] * 0.58, "side": p["height"] * 0.8}[kind]
    W = {"dining": p["width"], "coffee": p["width"] * 0.7, "side": p["width"] * 0.4}[kind]
    D = min(p["depth"] if kind != "side" else W, W)
    # a drawer asked for needs a rectangular top on four legs (the drawn shape gives way, as a cabinet's layout does)
    asked = bool(b.is_given("drawers") and b.given["drawers"])
    round_top = p["shape"] == "round" and not asked
    if asked and not b.is_given("shape"):
        b.values["shape"] = "rectangular"  # what was built, so the recorded program rebuilds it
    if round_top:
        D = W
    tt = b.draw("top_thickness")
    round_fin = b.draw("round_top_finish", when=round_top)
    top_fin = b.draw("top_finish", when=not round_top, otherwise=round_fin)
    leg_fin = b.draw("leg_finish")
    if round_top:
        top = cylinder(W / 2, tt, 64, at=(0, 0, H - tt))
    else:
        top = rounded_box([-D / 2, -W / 2, H - tt], [D / 2, W / 2, H], min(0.01, tt / 3), 3)
    root = b.add("top", top, "top", top_fin, physical="glass" if top_fin.kind == "glass" else None)
    a = b.attributes
    a.update({"kind": kind, "shape": "round" if round_top else "rectangular",
              "materials": {"top": top_fin, "legs": leg_fin}})
    uz = H - tt
    pedestal = b.draw("pedestal", when=round_top, otherwise=False)
    n = b.derive("legs", 1 if pedestal else 4)
    if n == 1:
        col = cylinder(0.045, uz - 0.03, 32, at=(0, 0, 0.03))
        base = cylinder(min(W * 0.3, 0.3), 0.03, 48)
        b.add("pedestal", union(col, base), "base", leg_fin, root, origin=[0, 0, uz])
        a["legs"] = {"count": 1, "style": "pedestal"}
        return
    lt = b.draw("leg_thickness")
    style = b.draw("leg_style")
    inset = b.draw("leg_inset")
    if round_top:  # evenly around the rim, at least three
        n = max(n, 3)
        r = W / 2 - inset - lt
        pts = [(r * np.cos(t), r * np.sin(t)) for t in np.pi / 4 + np.arange(n) * (2 * np.pi / n)]
    else:  # pairs across the depth, spread along the width
        ys = np.linspace(-1.0, 1.0, max(2, (n + 1) // 2)) * (W / 2 - inset - lt / 2)
        pts = [(sx * (D / 2 - inset - lt / 2), y) for sx in (-1, 1) for y in ys]
    for i, (x, y) in enumerate(pts):
        b.add(f"leg_{i}", leg(style, [x, y, uz], uz, lt), "leg", leg_fin, root, origin=[x, y, uz])
    a["legs"] = {"count": len(pts), "style": style, "finish": leg_fin}
    # room for the drawer between four legs; a drawer asked for fits a shallower top (a 45 cm side table's)
    fits = not round_top and len(pts) == 4 and (D > 0.45 or (b.is_given("drawers") and D > 0.3))
    if b.derive("drawers", int(fits and kind != "coffee" and p["has_drawer"])) and fits:
        _table_drawer(b, root, D, W, uz, inset, lt, leg_fin, top_fin)
    elif b.is_given("drawers") and b.given["drawers"]:
        logger.warning("table seed %d: no room for the drawer asked for (%s top, %d legs, %.2f m deep)", b.seed,
                       "a round" if round_top else "a rectangular", len(pts), D)


def _table_drawer(b: AssetBuilder, root: str, D: float, W: float, uz: float, inset: float, lt: float,
                  frame_fin: Finish, front_fin: Finish) -> None:
    """An apron between the legs with a drawer sliding out of its front."""
    ah = b.draw("apron_height")
    x0, x1 = -D / 2 + inset + lt, D / 2 - inset - lt
    y0, y1 = -W / 2 + inset + lt, W / 2 - inset - lt
    apron = box([x0, y0, uz - ah], [x1, y1, uz])
    dw = min(0.5 * (y1 - y0), 0.6)
    cav_lo = np.array([x0 + 0.15 * (x1 - x0), -dw / 2, uz - ah + 0.012])
    cav_hi = np.array([x1 + 0.01, dw / 2, uz - 0.012])
    inner = box([x0 + 0.02, y0 + 0.02, uz - ah - 0.01], [x1 - 0.02, y1 - 0.02, uz - 0.01])
    frame = difference(apron, inner, box(cav_lo, cav_hi))
    # keep a floor under the drawer cavity so it rests on something: a runner box
    runner = box([cav_lo[0], -dw / 2 - 0.01, uz - ah], [x1, dw / 2 + 0.01, cav_lo[2]])
    frame = union(frame, runner, box([cav_lo[0] - 0.02, -dw / 2 - 0.01, uz - ah], [cav_lo[0], dw / 2 + 0.01, uz]))
    body = b.add("apron", frame, "frame", frame_fin, root, origin=[0, 0, uz])
    g, tf = 0.003, 0.018
    c = 0.004
    lo = np.array([cav_lo[0] + 0.01, -dw / 2 + c, cav_lo[2] + c])
    hi = np.array([x1 + g + 0.001, dw / 2 - c, cav_hi[2] - c])
    tray = difference(box(lo, hi), box(lo + 0.01, [x1 - 0.005, hi[1] - 0.01, hi[2] + 0.01]))
    front = box([x1 + g, -dw / 2 - 0.01, uz - ah + 0.004], [x1 + g + tf, dw / 2 + 0.01, uz - 0.004])
    travel = 0.7 * (x1 - lo[0])
    origin = [x1 + g + tf, 0.0, uz - ah / 2]
    b.add("drawer_0", union(tray, front), "drawer", front_fin if front_fin.kind != "glass" else frame_fin, body,
          "slide", origin=origin, axis=[1, 0, 0], upper=travel)
    at = [x1 + g + tf, 0.0, uz - ah / 2]
    b.add("drawer_0_handle", handle("knob", at, 0.0), "handle", b.draw("handle_finish"),
          "drawer_0", origin=at)
    b.attributes["drawers"] = [{"position": "front, under the top", "travel_m": round(travel, 3)}]


def build_chair(b: AssetBuilder) -> None:
    """A dining chair on three or four legs (maybe with arms and a cushion), or a swivel office chair on castors."""
    p = b.p
    if p["kind"] != "office" and b.is_given("wheels") and not b.is_given("kind"):
        p["kind"] = b.values["kind"] = "office"  # castors asked for: an office chair, recorded to rebuild it
    if p["kind"] == "office":
        _office_chair(b)
        return
    sw, sd = p["seat_width"], p["seat_depth"]
    sh = p["seat_height"]
    st = b.draw("seat_thickness")
    frame_fin = b.draw("body_finish")
    seat = rounded_box([-sd / 2, -sw / 2, sh - st], [sd / 2, sw / 2, sh], 0.008, 3)
    root = b.add("seat", seat, "seat", frame_fin)
    lt = b.draw("leg_thickness")
    style = b.draw("leg_style")
    lx, ly = sd / 2 - lt / 2 - 0.01, sw / 2 - lt / 2 - 0.01
    if b.derive("legs", 4) == 3:  # two at the back, one in the middle of the front
        legs = [(lx, 0.0), (-lx, -ly), (-lx, ly)]
    else:
        legs = [(sx * lx, sy * ly) for sx in (1, -1) for sy in (-1, 1)]
    for i, (x, y) in enumerate(legs):
        b.add(f"leg_{i}", leg(style, [x, y, sh - st], sh - st, lt), "leg", frame_fin, root, origin=[x, y, sh - st])
    bh = p["back_height"]
    bt = b.draw("back_thickness")
    # given slats (and no back) ask for a slatted back
    back_style = "slats" if b.is_given("slats") and not b.is_given("back") else p["back"]
    x0 = -sd / 2
    if back_style == "solid":
        back = box([x0, -sw / 2, sh], [x0 + bt, sw / 2, sh + bh])
    elif back_style == "slats":
        n = b.draw("slats", when=p["back"] == "slats")
        posts = [box([x0, s * (sw / 2) - (0.035 if s > 0 else 0), sh], [x0 + bt, s * (sw / 2) + (0.035 if s < 0 else 0),
                      sh + bh]) for s in (-1, 1)]
        rail = box([x0, -sw / 2, sh + bh - 0.06], [x0 + bt, sw / 2, sh + bh])
        ys = np.linspace(-sw / 2 + 0.035, sw / 2 - 0.035, n + 2)[1:-1]
        slats = [box([x0 + 0.004, y - 0.012, sh], [x0 + bt - 0.004, y + 0.012, sh + bh - 0.05]) for y in ys]
        back = union(*posts, rail, *slats)
    else:  # frame: an open rectangle
        back = difference(box([x0, -sw / 2, sh], [x0 + bt, sw / 2, sh + bh]),
                          box([x0 - 0.01, -sw / 2 + 0.05, sh + 0.08], [x0 + bt + 0.01, sw / 2 - 0.05, sh + bh - 0.06]))
    b.add("back", back, "back", frame_fin, root, origin=[x0, 0, sh])
    a = b.attributes
    a.update({"kind": "dining", "back": back_style, "materials": {"frame": frame_fin},
              "legs": {"count": len(legs), "style": style}, "seat_height": sh})
    if p["cushion"] or (b.is_given("cushion_finish") and not b.is_given("cushion")):
        cfin = b.draw("cushion_finish", when=p["cushion"])
        cy = sw / 2 - (0.05 if p["arms"] else 0.015)
        cush = rounded_box([x0 + bt + 0.005, -cy, sh], [sd / 2 - 0.01, cy, sh + 0.04], 0.012, 3)
        b.add("cushion", cush, "cushion", cfin, root, origin=[0, 0, sh], physical="upholstery")
        a["materials"]["cushion"] = cfin
    if p["arms"]:
        for side, s in (("left", -1), ("right", 1)):
            y = s * (sw / 2 - 0.02)
            post = box([sd / 2 - 0.06, y - 0.02, sh], [sd / 2 - 0.03, y + 0.02, sh + 0.22])
            rest = box([x0 + bt, y - 0.025, sh + 0.22], [sd / 2 - 0.02, y + 0.025, sh + 0.245])
            b.add(f"arm_{side}", union(post, rest), "arm", frame_fin, root, origin=[0, y, sh])
        a["arms"] = True


def _office_chair(b: AssetBuilder) -> None:
    """Five-star base on castors, a gas column and a seat with back and arms that swivels about Z."""
    p = b.p
    sw, sd = p["seat_width"], p["seat_depth"]
    sh = p["seat_height"]
    base_fin = b.draw("base_finish")
    seat_fin = b.draw("seat_finish")
    seat_fin = b.draw("body_finish", when=False, otherwise=seat_fin)  # a given body finish is the seat's
    # a padded seat and back weigh as upholstery; a given body finish ("a black office chair") colours their
    # cover, not solid wood or metal (a 12 kg seat and 9 kg back tip the chair back on its castors)
    padded = seat_fin.kind == "fabric" or b.is_given("body_finish")
    wheel_fin = b.draw("wheel_finish")
    R = b.draw("base_radius")
    # the star base: one castor at the end of each of its legs
    n = b.derive("wheels", b.derive("legs", b.given.get("wheels", 5)))
    # twin-wheel castors, 65 mm across (hard-floor castors): two 15 mm tyres on a hub, 38 mm over all. A single
    # thin 50 mm disc (40 g, 1.2e-5 kg·m² about its axle) under a 12 kg chair was too light for PyBullet's solver
    # to hold with the joint's friction: the castors rocked to and fro on their polygonal hulls and the chair
    # crept at rest (seed 9's armrest at 12 mm/s). These have about five times that inertia about the axle.
    wr, tyre, hub_w = 0.0325, 0.015, 0.008
    ww = 2 * tyre + hub_w
    hub_z = 2 * wr + 0.03
    arms = []
    for k in range(n):
        ang = 2 * np.pi * k / n
        d = np.array([np.cos(ang), np.sin(ang), 0.0])
        arms.append(cylinder_between([0, 0, hub_z], d * R + [0, 0, hub_z], 0.018, 12))
        fork = box([-0.012, -0.02, 2 * wr + 0.004], [0.012, 0.02, hub_z + 0.01]).transformed(_rz(ang, d * R))
        arms.append(fork)
    column_top = sh - 0.08
    column = cylinder(0.028, column_top - hub_z + 0.02, 24, at=(0, 0, hub_z - 0.02))
    base = union(*arms, column, cylinder(0.05, 0.05, 24, at=(0, 0, hub_z - 0.025)))
    # an office chair weighs 12-20 kg: its star base and arms are hollow tubes and mouldings, its seat and back
    # moulded shells (solid, the chair weighed 60 kg on 40 g castors, and PyBullet let it creep at rest)
    hollow = "sheet_metal" if base_fin.kind in METAL_KINDS else None
    shell = "upholstery" if padded else "moulded_shell"
    root = b.add("base", base, "base", base_fin, physical=hollow)
    for k in range(n):
        ang = 2 * np.pi * k / n
        d = np.array([np.cos(ang), np.sin(ang), 0.0])
        t = np.array([-np.sin(ang), np.cos(ang), 0.0])
        centre = d * R + [0, 0, wr]
        # the wheel sits beside its fork, spinning about the tangent direction
        c = centre + d * 0.032
        wheel = union(cylinder(wr, tyre, 24, t, c - t * ww / 2), cylinder(wr, tyre, 24, t, c + t * (ww / 2 - tyre)),
                      cylinder(0.4 * wr, ww - 0.002, 16, t, c - t * (ww / 2 - 0.001)))
        b.add(f"wheel_{k}", wheel, "wheel", wheel_fin, root, "wheel", origin=c, axis=t,
              collision=[wheel_hull(c, t, wr, ww)])
    g = 0.004
    z0 = column_top + g
    seat = rounded_box([-sd / 2, -sw / 2, z0], [sd / 2, sw / 2, z0 + 0.08], 0.025, 3)
    swivel = b.add("seat", seat, "seat", seat_fin, root, "swivel", origin=[0, 0, z0], axis=[0, 0, 1],
                   physical=shell)
    bh = p["back_height"]
    back = rounded_box([-sd / 2 - 0.01, -sw / 2 + 0.02, z0 + 0.1], [-sd / 2 + 0.05, sw / 2 - 0.02, z0 + 0.1 + bh],
                       0.02, 3)
    spine = box([-sd / 2, -0.03, z0 + 0.08], [-sd / 2 + 0.03, 0.03, z0 + 0.12])
    b.add("back", union(back, spine), "back", seat_fin, swivel, origin=[-sd / 2, 0, z0 + 0.1], physical=shell)
    for side, s in (("left", -1), ("right", 1)):
        y = s * (sw / 2 - 0.02)
        arm = union(box([-0.03, y - 0.015, z0 + 0.08], [0.0, y + 0.015, z0 + 0.27]),
                    box([-sd / 2 + 0.08, y - 0.03, z0 + 0.27], [sd / 2 - 0.06, y + 0.03, z0 + 0.3]))
        b.add(f"arm_{side}", arm, "arm", base_fin, swivel, origin=[0, y, z0 + 0.08], physical=hollow)
    b.attributes.update({"kind": "office", "materials": {"base": base_fin, "seat": seat_fin},
                         "wheels": n, "arms": True, "swivel": True, "seat_height": z0 + 0.08})


def _rz(angle: float, at: np.ndarray) -> np.ndarray:
    m = np.eye(4)
    c, s = np.cos(angle), np.sin(angle)
    m[:2, :2] = [[c, -s], [s, c]]
    m[:3, 3] = at
    return m


def build_stool(b: AssetBuilder) -> None:
    """A stool: round or square seat on three or four legs with a footrest ring, or a swivel bar stool."""
    p = b.p
    sh = p["height"]
    r = p["seat_radius"]
    seat_fin = b.draw("seat_finish")
    frame_fin = b.draw("leg_finish")
    st = b.draw("seat_thickness")
    square = p["seat"] == "square"
    seat: Mesh = (rounded_box([-r, -r, sh - st], [r, r, sh], 0.01, 3) if square
                  else cylinder(r, st, 48, at=(0, 0, sh - st)))
    a = b.attributes
    a.update({"seat": p["seat"], "materials": {"seat": seat_fin, "frame": frame_fin}})
    # given legs (and no swivel) ask for a stool on legs
    if p["swivel"] and (b.is_given("swivel") or not b.is_given("legs")):
        g = 0.004
        col_top = sh - st - g
        frame = union(cylinder(min(0.2, r * 1.1), 0.025, 48), cylinder(0.03, col_top - 0.02, 24, at=(0, 0, 0.02)),
                      torus(min(0.16, r * 0.9), 0.01, 48, 12, at=(0, 0, 0.3 * sh)) if sh > 0.55 else
                      cylinder(0.03, 0.01, 8, at=(0, 0, 0.02)),
                      *([cylinder_between([0, 0, 0.3 * sh], [np.cos(t) * min(0.16, r * 0.9), np.sin(t) * min(
                          0.16, r * 0.9), 0.3 * sh], 0.008, 8) for t in np.arange(3) * 2 * np.pi / 3] if sh > 0.55
                        else []))
        root = b.add("base", frame, "base", frame_fin)
        b.add("seat", seat, "seat", seat_fin, root, "swivel", origin=[0, 0, sh - st], axis=[0, 0, 1],
              physical="upholstery" if seat_fin.kind == "fabric" else None)
        a.update({"swivel": True, "legs": {"count": 1, "style": "pedestal"}})
        return
    root = b.add("seat", seat, "seat", seat_fin, physical="upholstery" if seat_fin.kind == "fabric" else None)
    n = p["legs"]
    lr = b.draw("leg_radius")
    rad = r * 0.72
    pts = [(rad * np.cos(t), rad * np.sin(t)) for t in np.pi / n + 2 * np.pi * np.arange(n) / n]
    legs = [cylinder(lr, sh - st, 16, at=(x, y, 0)) for x, y in pts]
    pieces = list(legs)
    if sh > 0.5:
        zr = 0.3 * sh
        pieces += [cylinder_between([x * 0.98, y * 0.98, zr], [x2 * 0.98, y2 * 0.98, zr], lr * 0.7, 12)
                   for (x, y), (x2, y2) in zip(pts, pts[1:] + pts[:1], strict=True)]
        a["footrest"] = True
    b.add("frame", union(*pieces), "leg", frame_fin, root, origin=[0, 0, sh - st])
    a["legs"] = {"count": n, "style": "round"}


CATEGORIES: list[Category] = [
    Category("cabinet", "storage cabinet with hinged doors and optional drawers",
             {"width": frange(0.4, 1.4, "m"), "depth": frange(0.3, 0.6, "m"), "height": frange(0.5, 1.2, "m"),
              "layout": choice("doors", "drawers_over_doors", "doors_over_drawers", doc="fronts, top row first"),
              **carcass_style_params(),
              "doors": irange(1, 4, "doors side by side (default: 1 under 0.55 m wide, 2 under 1.05 m, else 3)",
                              draw="derived"),
              "drawers": irange(0, 4, "drawers in one row (default: one per door column unless layout=doors); "
                                "given drawers turn layout=doors into drawers_over_doors", draw="derived"),
              "shelves": irange(0, 2, "fixed shelves behind each door (drawn when taller than 0.6 m)",
                                draw="inline", limits=(0, 5)),
              "glass_doors": flag(0.2, "glazed door panels"),
              "hinge": either("left", "right", doc="hinge side of each door (drawn for a single door; a row's "
                              "outer doors hinge outward)", per_item=True),
              "top_slab": flag(0.4, "a stone or wood top slab"),
              "top_finish": finish_param(("stone", "wood"), doc="top slab"),
              "top_overhang": frange(0.01, 0.03, "top slab overhang, m", draw="inline"),
              "top_thickness": frange(0.02, 0.04, "top slab thickness, m", draw="inline"),
              **CARCASS_DOOR_PARAMS},
             (0.3, 0.38, 0.5), (0.75, 1.5, 1.3), build_cabinet, ("cabinet", "cupboard", "storage cabinet",
                                                                 "sideboard")),
    Category("wardrobe", "tall wardrobe with 2-4 doors, a hanging rail, shelves and optional drawers",
             {"width": frange(0.8, 2.0, "m"), "depth": frange(0.5, 0.65, "m"), "height": frange(1.7, 2.3, "m"),
              "has_drawers": choice(False, True, doc="a row of drawers at the bottom"),
              **carcass_style_params(("bar", "knob", "pull", "arch"), ("plinth", "legs")),
              "long_handles": flag(0.4, "long bar handles"),
              "doors": irange(2, 4, "doors side by side (default: one per 0.5 m of width)", draw="derived",
                              limits=(1, 6)),
              "hinge": either("left", "right", doc="hinge side of each door (drawn for a single door; a row's "
                              "outer doors hinge outward)", per_item=True),
              "shelves": irange(2, 4, "fixed shelves behind each door but the first (which holds the hanging "
                                "rail), one value or a list left to right", draw="inline", per_item=True,
                                limits=(0, 8)),
              "drawers": irange(0, 2, "drawers in the bottom row (default: one per door, at most two, when "
                                "has_drawers)", draw="derived", limits=(0, 4)),
              **CARCASS_DOOR_PARAMS},
             (0.5, 0.78, 1.7), (0.8, 2.05, 2.35), build_wardrobe, ("wardrobe", "closet", "armoire")),
    Category("nightstand", "bedside table with drawers, an open shelf or a small door",
             {"width": frange(0.35, 0.6, "m"), "depth": frange(0.3, 0.45, "m"), "height": frange(0.45, 0.7, "m"),
              "layout": choice("drawers", "drawer_over_shelf", "drawer_over_door", doc="fronts, top row first"),
              **carcass_style_params(("knob", "bar", "pull", "tab"), ("legs", "plinth", "none")),
              "leg_height": frange(0.08, 0.18, doc="leg height, m (base=legs)", draw="inline"),
              "drawers": irange(2, 3, "stacked drawers (layout=drawers; the other layouts have one above the shelf "
                                "or door)", draw="inline", limits=(1, 5)),
              "hinge": either("left", "right", doc="hinge side of each door (drawn for a single door; a row's "
                              "outer doors hinge outward)", per_item=True),
              **CARCASS_DOOR_PARAMS},
             (0.3, 0.34, 0.44), (0.55, 0.64, 0.75), build_nightstand, ("nightstand", "bedside table",
                                                                       "night table")),
    Category("dresser", "chest of drawers with 3-6 rows of drawers",
             {"width": frange(0.6, 1.6, "m"), "depth": frange(0.4, 0.55, "m"), "height": frange(0.7, 1.3, "m"),
              **carcass_style_params(("knob", "bar", "pull", "arch", "tab")),
              "split_top_row": flag(0.5, "one more, smaller drawer in the top row (when wider than 0.7 m)"),
              "rows": irange(3, 6, "rows of drawers (default: one per 0.2 m of height)", draw="derived",
                             limits=(1, 8)),
              "drawers": irange(3, 13, "drawers in all (default: one per row, two under 0.9 m wide, plus the "
                                "split top row's); a given total is spread over the rows, extras at the top",
                                draw="derived", limits=(1, 24))},
             (0.4, 0.58, 0.68), (0.68, 1.65, 1.35), build_dresser, ("dresser", "chest of drawers", "bureau")),
    Category("bookshelf", "open bookshelf with one to three bays of shelves, optional bottom doors",
             {"width": frange(0.4, 1.3, "m"), "depth": frange(0.25, 0.4, "m"), "height": frange(0.8, 2.1, "m"),
              "has_doors": choice(False, True, doc="doors across the bottom (when taller than 1 m)"),
              **carcass_style_params(("knob", "bar", "tab"), ("plinth", "none")),
              "bays": irange(1, 3, "bays side by side (default: 1 under 0.6 m wide, 2 under 1 m, else 3)",
                             draw="derived", limits=(1, 5)),
              "shelves": irange(1, 5, "fixed shelves in each bay (default: one per 0.35 m of height; one fewer "
                                "above bottom doors)", draw="derived", limits=(0, 10)),
              "doors": irange(0, 3, "doors across the bottom (default: one per bay when has_doors)",
                              draw="derived", limits=(0, 6)),
              "hinge": either("left", "right", doc="hinge side of each door (drawn for a single door; a row's "
                              "outer doors hinge outward)", per_item=True),
              **CARCASS_DOOR_PARAMS},
             (0.24, 0.38, 0.78), (0.5, 1.35, 2.15), build_bookshelf, ("bookshelf", "bookcase", "shelving unit")),
    Category("table", "dining, coffee or side table, rectangular or round, on legs or a pedestal",
             {"kind": choice("dining", "coffee", "side", doc="table kind (coffee: 0.58 x height, side: 0.8 x height)"),
              "shape": choice("rectangular", "rectangular", "round", doc="top shape"),
              "width": frange(0.8, 2.0, "m (a dining table's; coffee 0.7x, side 0.4x)"),
              "depth": frange(0.6, 1.0, "m (at most the width; a side table is square)"),
              "height": frange(0.7, 0.78, "m (a dining table's; coffee 0.58x, side 0.8x)"),
              "has_drawer": choice(False, True, doc="a drawer under the top (rectangular dining and side tables "
                                   "deeper than 0.45 m)"),
              "top_thickness": frange(0.02, 0.045, "m", draw="inline"),
              "top_finish": finish_param(("wood", "painted_wood", "stone", "glass"), doc="the top (the table's "
                                         "main finish)"),
              "round_top_finish": finish_param(("wood", "stone"), doc="the top of a round table (a given top_finish "
                                               "wins)"),
              "leg_finish": finish_param(("wood", "brushed_metal", "painted_metal"), doc="legs or pedestal, "
                                         "apron"),
              "pedestal": flag(0.5, "a round table on a central pedestal"),
              "legs": irange(1, 4, "legs (default: 4, 1 = a pedestal); a round top spaces 3-8 around its rim, a "
                             "rectangular one stands on pairs along its width (odd counts round up)",
                             draw="derived", limits=(1, 8)),
              "leg_thickness": frange(0.035, 0.065, "m", draw="inline"),
              "leg_style": choice("square", "round", "tapered", doc="leg profile", draw="inline"),
              "leg_inset": frange(0.03, 0.08, "legs' inset from the edge of the top, m", draw="inline"),
              "drawers": irange(0, 1, "drawers under the top (default: 1 when has_drawer applies; only on a "
                                "rectangular top deeper than 0.45 m on four legs; a given drawer makes the top "
                                "rectangular and fits one deeper than 0.3 m)", draw="derived"),
              "apron_height": frange(0.08, 0.12, "m (with a drawer)", draw="inline"),
              "handle_finish": finish_param(("brushed_metal", "chrome"), doc="drawer knob")},
             (0.3, 0.3, 0.38), (2.0, 2.0, 0.8), build_table, ("table",)),
    Category("chair", "dining chair (solid, slatted or frame back, optional arms and cushion) or office chair",
             {"kind": choice("dining", "dining", "office", doc="dining chair on legs or office chair on castors"),
              "seat_width": frange(0.4, 0.5, "m"),
              "seat_depth": frange(0.4, 0.5, "m"), "seat_height": frange(0.42, 0.48, "m"),
              "back_height": frange(0.35, 0.5, "m"),
              "back": choice("solid", "slats", "frame", doc="dining chair back"),
              "arms": choice(False, True, doc="armrests (dining; an office chair always has them)"),
              "cushion": choice(False, True, doc="seat cushion (dining)"),
              "seat_thickness": frange(0.025, 0.045, "m (dining)", draw="inline"),
              "body_finish": finish_param(("wood", "painted_wood", "painted_metal", "plastic"),
                                          doc="a dining chair's seat, legs, back and arms (an office chair's seat "
                                          "and back when given)"),
              "leg_thickness": frange(0.03, 0.045, "m (dining)", draw="inline"),
              "leg_style": choice("square", "round", "tapered", doc="leg profile (dining)", draw="inline"),
              "legs": irange(4, 5, "legs: a dining chair's 3-4 (default 4), an office chair's star base 3-8 "
                             "(default 5, one castor each)", draw="derived", limits=(3, 8)),
              "back_thickness": frange(0.02, 0.035, "m (dining)", draw="inline"),
              "slats": irange(3, 5, "back slats (back=slats)", draw="inline", limits=(1, 8)),
              "cushion_finish": finish_param("fabric", doc="seat cushion"),
              "base_finish": finish_param(("plastic", "chrome", "brushed_metal"),
                                          ("black", "grey", "chrome", "aluminium"), doc="office chair base, arms"),
              "seat_finish": finish_param(("fabric", "plastic"), doc="office chair seat and back"),
              "wheel_finish": finish_param("rubber", doc="office chair castors"),
              "base_radius": frange(0.28, 0.34, "office chair star base radius, m", draw="inline"),
              "wheels": irange(5, 5, "office chair castors, one per leg of its star base (default: legs)",
                               draw="derived", limits=(3, 8))},
             (0.38, 0.38, 0.75), (0.78, 0.78, 1.1), build_chair, ("chair",)),
    Category("stool", "round or square stool on legs with a footrest, or a swivel bar stool",
             {"height": frange(0.4, 0.8, "m"), "seat_radius": frange(0.15, 0.22, "m (half the side of a square "
                                                                      "seat)"),
              "seat": choice("round", "square", doc="seat shape"),
              "legs": irange(3, 4, "legs (not on a swivel stool: given legs without swivel ask for legs)",
                             limits=(3, 8)),
              "swivel": choice(False, True, doc="a swivel seat on a pedestal"),
              "seat_finish": finish_param(("wood", "plastic", "painted_wood", "fabric"), doc="the seat (the "
                                          "stool's main finish)"),
              "leg_finish": finish_param(("wood", "brushed_metal", "painted_metal", "chrome"), doc="legs and "
                                         "footrest, or the pedestal"),
              "seat_thickness": frange(0.025, 0.04, "m", draw="inline"),
              "leg_radius": frange(0.012, 0.02, "m", draw="inline")},
             (0.2, 0.2, 0.38), (0.45, 0.45, 0.82), build_stool, ("stool",)),
]
