"""Furniture: carcass furniture (cabinet, wardrobe, nightstand, dresser, bookshelf), tables, chairs, stools."""

from __future__ import annotations

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.carcass import CarcassStyle, Cell, Row, build_carcass
from seed3d.synth.collision import wheel_hull
from seed3d.synth.core import AssetBuilder, Category, choice, frange, irange
from seed3d.synth.fixtures import handle, leg
from seed3d.synth.materials import Finish, pick_finish
from seed3d.synth.primitives import box, cylinder, cylinder_between, difference, rounded_box, torus, union

WOODS = ("wood", "painted_wood")


def furniture_style(b: AssetBuilder, handle_styles: tuple[str, ...] = ("bar", "knob", "pull", "arch", "tab"),
                    base: str | None = None) -> CarcassStyle:
    """Draw finishes, handle style and base for a piece of carcass furniture."""
    rng = b.rng
    body = pick_finish(rng, WOODS)
    front = body if rng.random() < 0.7 else pick_finish(rng, WOODS)
    hfin = pick_finish(rng, ("brushed_metal", "chrome", "brushed_metal", "wood"))
    style = handle_styles[int(rng.integers(len(handle_styles)))]
    base = base or ("plinth", "legs", "none")[int(rng.integers(3))]
    base_h = float(rng.uniform(0.06, 0.1)) if base == "plinth" else float(rng.uniform(0.1, 0.22))
    leg_fin = body if rng.random() < 0.6 else pick_finish(rng, ("brushed_metal", "painted_metal"))
    return CarcassStyle(body=body, front=front, handle=hfin, handle_style=style,
                        wall=float(rng.uniform(0.016, 0.022)), front_t=float(rng.uniform(0.016, 0.022)),
                        base=base, base_h=base_h if base != "none" else 0.0,
                        leg_style=("square", "round", "tapered")[int(rng.integers(3))], leg_finish=leg_fin,
                        glass=pick_finish(rng, "glass", ("clear", "frosted", "smoked")))


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


def _door_row(n: int, rng: np.random.Generator, shelves: int, window: bool = False) -> list[Cell]:
    """``n`` side-by-side doors hinged on their outer edges (the middle ones alternate)."""
    cells = []
    for i in range(n):
        left = rng.random() < 0.5 if n == 1 else i < n / 2
        hinge = "left" if left else "right"
        cells.append(Cell("door", hinge=hinge, shelves=shelves, window=window))
    return cells


# --------------------------------------------------------------------------------------------- carcass furniture


def build_cabinet(b: AssetBuilder) -> None:
    """A base or wall-standing cabinet: doors, optionally with a row of drawers above or below."""
    p, rng = b.p, b.rng
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b)
    ncol = 1 if W < 0.55 else (2 if W < 1.05 else 3)
    layout = p["layout"]
    shelves = int(rng.integers(0, 3)) if H > 0.6 else 0
    window = rng.random() < 0.2
    doors = Row(1.0, _door_row(ncol, rng, shelves, window))
    drawers = Row(0.22 if H > 0.8 else 0.3, [Cell("drawer") for _ in range(max(1, ncol))])
    rows = {"doors": [doors], "drawers_over_doors": [drawers, doors], "doors_over_drawers": [doors, drawers]}[layout]
    slab = None
    if rng.random() < 0.4:
        slab = {"finish": pick_finish(rng, ("stone", "wood")), "overhang": float(rng.uniform(0.01, 0.03)),
                "thickness": float(rng.uniform(0.02, 0.04))}
    facts = build_carcass(b, W, D, H, rows, st, top_slab=slab)
    _record(b, st, facts, {"layout": layout.replace("_", " ")})


def build_wardrobe(b: AssetBuilder) -> None:
    """A tall wardrobe: 2–4 doors (one section with a hanging rail), optional drawers at the bottom."""
    p, rng = b.p, b.rng
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b, ("bar", "knob", "pull", "arch"), base=("plinth", "legs")[int(rng.integers(2))])
    st.long_handles = rng.random() < 0.4
    ncol = int(np.clip(round(W / 0.5), 2, 4))
    cells = _door_row(ncol, rng, 0)
    for i, c in enumerate(cells):
        if i == 0:
            c.rod = True
        else:
            c.shelves = int(rng.integers(2, 5))
    rows = [Row(1.0, cells)]
    if p["drawers"]:
        rows.append(Row(0.13, [Cell("drawer") for _ in range(min(ncol, 2))]))
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts)


def build_nightstand(b: AssetBuilder) -> None:
    """A bedside table: stacked drawers, or a drawer above an open shelf or a small door."""
    p, rng = b.p, b.rng
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b, ("knob", "bar", "pull", "tab"), base=("legs", "plinth", "none")[int(rng.integers(3))])
    st.base_h = float(rng.uniform(0.08, 0.18)) if st.base == "legs" else st.base_h
    layout = p["layout"]
    if layout == "drawers":
        rows = [Row(1.0, [Cell("drawer")]) for _ in range(int(rng.integers(2, 4)))]
    elif layout == "drawer_over_shelf":
        rows = [Row(0.4, [Cell("drawer")]), Row(0.6, [Cell("open")])]
    else:
        rows = [Row(0.35, [Cell("drawer")]), Row(0.65, _door_row(1, rng, 0))]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts, {"layout": layout.replace("_", " ")})


def build_dresser(b: AssetBuilder) -> None:
    """A chest of drawers: 3–6 rows, the top row optionally split into two or three small drawers."""
    p, rng = b.p, b.rng
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b, ("knob", "bar", "pull", "arch", "tab"))
    n_rows = int(np.clip(round(H / 0.2), 3, 6))
    ncol = 1 if W < 0.9 else 2
    rows = []
    for r in range(n_rows):
        cols = ncol + (1 if r == 0 and rng.random() < 0.5 and W > 0.7 else 0)
        rows.append(Row(0.8 if r == 0 else 1.0 + 0.08 * r, [Cell("drawer") for _ in range(cols)]))
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts, {"drawer_rows": n_rows})


def build_bookshelf(b: AssetBuilder) -> None:
    """An open bookshelf (one to three bays of shelves), optionally with doors across the bottom."""
    p, rng = b.p, b.rng
    W, D, H = p["width"], p["depth"], p["height"]
    st = furniture_style(b, ("knob", "bar", "tab"), base=("plinth", "none")[int(rng.integers(2))])
    ncol = 1 if W < 0.6 else (2 if W < 1.0 else 3)
    shelves = int(np.clip(round(H / 0.35) - 1, 1, 5))
    rows = []
    if p["doors"] and H > 1.0:
        rows.append(Row(H - 0.45, [Cell("open", shelves=shelves - 1) for _ in range(ncol)]))
        rows.append(Row(0.45, _door_row(ncol, rng, 0)))
    else:
        rows.append(Row(1.0, [Cell("open", shelves=shelves) for _ in range(ncol)]))
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts, {"bays": ncol})


# --------------------------------------------------------------------------------------------- tables, seating


def build_table(b: AssetBuilder) -> None:
    """A dining, coffee or side table: rectangular or round top on legs or a pedestal; maybe a drawer."""
    p, rng = b.p, b.rng
    kind = p["kind"]
    H = {"dining": p["height"], "coffee": p["height"] * 0.58, "side": p["height"] * 0.8}[kind]
    W = {"dining": p["width"], "coffee": p["width"] * 0.7, "side": p["width"] * 0.4}[kind]
    D = min(p["depth"] if kind != "side" else W, W)
    round_top = p["shape"] == "round"
    if round_top:
        D = W
    tt = float(rng.uniform(0.02, 0.045))
    top_fin = pick_finish(rng, ("wood", "painted_wood", "stone", "glass") if not round_top else ("wood", "stone"))
    leg_fin = pick_finish(rng, ("wood", "brushed_metal", "painted_metal"))
    if round_top:
        top = cylinder(W / 2, tt, 64, at=(0, 0, H - tt))
    else:
        top = rounded_box([-D / 2, -W / 2, H - tt], [D / 2, W / 2, H], min(0.01, tt / 3), 3)
    root = b.add("top", top, "top", top_fin, physical="glass" if top_fin.kind == "glass" else None)
    a = b.attributes
    a.update({"kind": kind, "shape": "round" if round_top else "rectangular",
              "materials": {"top": top_fin, "legs": leg_fin}})
    uz = H - tt
    if round_top and rng.random() < 0.5:
        col = cylinder(0.045, uz - 0.03, 32, at=(0, 0, 0.03))
        base = cylinder(min(W * 0.3, 0.3), 0.03, 48)
        b.add("pedestal", union(col, base), "base", leg_fin, root, origin=[0, 0, uz])
        a["legs"] = {"count": 1, "style": "pedestal"}
        return
    lt = float(rng.uniform(0.035, 0.065))
    style = ("square", "round", "tapered")[int(rng.integers(3))]
    inset = float(rng.uniform(0.03, 0.08))
    if round_top:
        r = W / 2 - inset - lt
        pts = [(r * np.cos(t), r * np.sin(t)) for t in np.pi / 4 + np.arange(4) * np.pi / 2]
    else:
        pts = [(sx * (D / 2 - inset - lt / 2), sy * (W / 2 - inset - lt / 2)) for sx in (-1, 1) for sy in (-1, 1)]
    for i, (x, y) in enumerate(pts):
        b.add(f"leg_{i}", leg(style, [x, y, uz], uz, lt), "leg", leg_fin, root, origin=[x, y, uz])
    a["legs"] = {"count": 4, "style": style, "finish": leg_fin}
    if not round_top and kind != "coffee" and p["drawer"] and D > 0.45:
        _table_drawer(b, root, D, W, uz, inset, lt, leg_fin, top_fin)


def _table_drawer(b: AssetBuilder, root: str, D: float, W: float, uz: float, inset: float, lt: float,
                  frame_fin: Finish, front_fin: Finish) -> None:
    """An apron between the legs with a drawer sliding out of its front."""
    rng = b.rng
    ah = float(rng.uniform(0.08, 0.12))
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
    b.add("drawer_0_handle", handle("knob", at, 0.0), "handle", pick_finish(rng, ("brushed_metal", "chrome")),
          "drawer_0", origin=at)
    b.attributes["drawers"] = [{"position": "front, under the top", "travel_m": round(travel, 3)}]


def build_chair(b: AssetBuilder) -> None:
    """A dining chair on four legs (maybe with arms and a cushion), or a swivel office chair on castors."""
    p, rng = b.p, b.rng
    if p["kind"] == "office":
        _office_chair(b)
        return
    sw, sd = p["seat_width"], p["seat_depth"]
    sh = p["seat_height"]
    st = float(rng.uniform(0.025, 0.045))
    frame_fin = pick_finish(rng, ("wood", "painted_wood", "painted_metal", "plastic"))
    seat = rounded_box([-sd / 2, -sw / 2, sh - st], [sd / 2, sw / 2, sh], 0.008, 3)
    root = b.add("seat", seat, "seat", frame_fin)
    lt = float(rng.uniform(0.03, 0.045))
    style = ("square", "round", "tapered")[int(rng.integers(3))]
    legs = [(sx * (sd / 2 - lt / 2 - 0.01), sy * (sw / 2 - lt / 2 - 0.01)) for sx in (1, -1) for sy in (-1, 1)]
    for i, (x, y) in enumerate(legs):
        b.add(f"leg_{i}", leg(style, [x, y, sh - st], sh - st, lt), "leg", frame_fin, root, origin=[x, y, sh - st])
    bh = p["back_height"]
    bt = float(rng.uniform(0.02, 0.035))
    back_style = p["back"]
    x0 = -sd / 2
    if back_style == "solid":
        back = box([x0, -sw / 2, sh], [x0 + bt, sw / 2, sh + bh])
    elif back_style == "slats":
        n = int(rng.integers(3, 6))
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
              "legs": {"count": 4, "style": style}, "seat_height": sh})
    if p["cushion"]:
        cfin = pick_finish(rng, "fabric")
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
    p, rng = b.p, b.rng
    sw, sd = p["seat_width"], p["seat_depth"]
    sh = p["seat_height"]
    base_fin = pick_finish(rng, ("plastic", "chrome", "brushed_metal"), ("black", "grey", "chrome", "aluminium"))
    seat_fin = pick_finish(rng, ("fabric", "plastic"))
    wheel_fin = pick_finish(rng, ("rubber",))
    R = float(rng.uniform(0.28, 0.34))
    wr = 0.025
    hub_z = 2 * wr + 0.03
    arms = []
    for k in range(5):
        ang = 2 * np.pi * k / 5
        d = np.array([np.cos(ang), np.sin(ang), 0.0])
        arms.append(cylinder_between([0, 0, hub_z], d * R + [0, 0, hub_z], 0.018, 12))
        fork = box([-0.012, -0.02, 2 * wr + 0.004], [0.012, 0.02, hub_z + 0.01]).transformed(_rz(ang, d * R))
        arms.append(fork)
    column_top = sh - 0.08
    column = cylinder(0.028, column_top - hub_z + 0.02, 24, at=(0, 0, hub_z - 0.02))
    base = union(*arms, column, cylinder(0.05, 0.05, 24, at=(0, 0, hub_z - 0.025)))
    root = b.add("base", base, "base", base_fin)
    for k in range(5):
        ang = 2 * np.pi * k / 5
        d = np.array([np.cos(ang), np.sin(ang), 0.0])
        t = np.array([-np.sin(ang), np.cos(ang), 0.0])
        centre = d * R + [0, 0, wr]
        # the wheel sits beside its fork, spinning about the tangent direction
        c = centre + t * 0.0
        wheel = cylinder(wr, 0.016, 24, t, c - t * 0.008).translated(d * 0.032)
        b.add(f"wheel_{k}", wheel, "wheel", wheel_fin, root, "wheel", origin=c + d * 0.032, axis=t,
              collision=[wheel_hull(c + d * 0.032, t, wr, 0.016)])
    g = 0.004
    z0 = column_top + g
    seat = rounded_box([-sd / 2, -sw / 2, z0], [sd / 2, sw / 2, z0 + 0.08], 0.025, 3)
    swivel = b.add("seat", seat, "seat", seat_fin, root, "swivel", origin=[0, 0, z0], axis=[0, 0, 1],
                   physical="upholstery" if seat_fin.kind == "fabric" else None)
    bh = p["back_height"]
    back = rounded_box([-sd / 2 - 0.01, -sw / 2 + 0.02, z0 + 0.1], [-sd / 2 + 0.05, sw / 2 - 0.02, z0 + 0.1 + bh],
                       0.02, 3)
    spine = box([-sd / 2, -0.03, z0 + 0.08], [-sd / 2 + 0.03, 0.03, z0 + 0.12])
    b.add("back", union(back, spine), "back", seat_fin, swivel, origin=[-sd / 2, 0, z0 + 0.1],
          physical="upholstery" if seat_fin.kind == "fabric" else None)
    for side, s in (("left", -1), ("right", 1)):
        y = s * (sw / 2 - 0.02)
        arm = union(box([-0.03, y - 0.015, z0 + 0.08], [0.0, y + 0.015, z0 + 0.27]),
                    box([-sd / 2 + 0.08, y - 0.03, z0 + 0.27], [sd / 2 - 0.06, y + 0.03, z0 + 0.3]))
        b.add(f"arm_{side}", arm, "arm", base_fin, swivel, origin=[0, y, z0 + 0.08])
    b.attributes.update({"kind": "office", "materials": {"base": base_fin, "seat": seat_fin},
                         "wheels": 5, "arms": True, "swivel": True, "seat_height": z0 + 0.08})


def _rz(angle: float, at: np.ndarray) -> np.ndarray:
    m = np.eye(4)
    c, s = np.cos(angle), np.sin(angle)
    m[:2, :2] = [[c, -s], [s, c]]
    m[:3, 3] = at
    return m


def build_stool(b: AssetBuilder) -> None:
    """A stool: round or square seat on three or four legs with a footrest ring, or a swivel bar stool."""
    p, rng = b.p, b.rng
    sh = p["height"]
    r = p["seat_radius"]
    seat_fin = pick_finish(rng, ("wood", "plastic", "painted_wood", "fabric"))
    frame_fin = pick_finish(rng, ("wood", "brushed_metal", "painted_metal", "chrome"))
    st = float(rng.uniform(0.025, 0.04))
    square = p["seat"] == "square"
    seat: Mesh = (rounded_box([-r, -r, sh - st], [r, r, sh], 0.01, 3) if square
                  else cylinder(r, st, 48, at=(0, 0, sh - st)))
    a = b.attributes
    a.update({"seat": p["seat"], "materials": {"seat": seat_fin, "frame": frame_fin}})
    if p["swivel"]:
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
    lr = float(rng.uniform(0.012, 0.02))
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
             {"width": frange(0.4, 1.4), "depth": frange(0.3, 0.6), "height": frange(0.5, 1.2),
              "layout": choice("doors", "drawers_over_doors", "doors_over_drawers")},
             (0.3, 0.38, 0.5), (0.75, 1.5, 1.3), build_cabinet, ("cabinet", "cupboard", "storage cabinet",
                                                                 "sideboard")),
    Category("wardrobe", "tall wardrobe with 2-4 doors, a hanging rail, shelves and optional drawers",
             {"width": frange(0.8, 2.0), "depth": frange(0.5, 0.65), "height": frange(1.7, 2.3),
              "drawers": choice(False, True)},
             (0.5, 0.78, 1.7), (0.8, 2.05, 2.35), build_wardrobe, ("wardrobe", "closet", "armoire")),
    Category("nightstand", "bedside table with drawers, an open shelf or a small door",
             {"width": frange(0.35, 0.6), "depth": frange(0.3, 0.45), "height": frange(0.45, 0.7),
              "layout": choice("drawers", "drawer_over_shelf", "drawer_over_door")},
             (0.3, 0.34, 0.44), (0.55, 0.64, 0.75), build_nightstand, ("nightstand", "bedside table",
                                                                       "night table")),
    Category("dresser", "chest of drawers with 3-6 rows of drawers",
             {"width": frange(0.6, 1.6), "depth": frange(0.4, 0.55), "height": frange(0.7, 1.3)},
             (0.4, 0.58, 0.68), (0.68, 1.65, 1.35), build_dresser, ("dresser", "chest of drawers", "bureau")),
    Category("bookshelf", "open bookshelf with one to three bays of shelves, optional bottom doors",
             {"width": frange(0.4, 1.3), "depth": frange(0.25, 0.4), "height": frange(0.8, 2.1),
              "doors": choice(False, True)},
             (0.24, 0.38, 0.78), (0.5, 1.35, 2.15), build_bookshelf, ("bookshelf", "bookcase", "shelving unit")),
    Category("table", "dining, coffee or side table, rectangular or round, on legs or a pedestal",
             {"kind": choice("dining", "coffee", "side"), "shape": choice("rectangular", "rectangular", "round"),
              "width": frange(0.8, 2.0), "depth": frange(0.6, 1.0), "height": frange(0.7, 0.78),
              "drawer": choice(False, True)},
             (0.3, 0.3, 0.38), (2.0, 2.0, 0.8), build_table, ("table",)),
    Category("chair", "dining chair (solid, slatted or frame back, optional arms and cushion) or office chair",
             {"kind": choice("dining", "dining", "office"), "seat_width": frange(0.4, 0.5),
              "seat_depth": frange(0.4, 0.5), "seat_height": frange(0.42, 0.48), "back_height": frange(0.35, 0.5),
              "back": choice("solid", "slats", "frame"), "arms": choice(False, True), "cushion": choice(False, True)},
             (0.38, 0.38, 0.75), (0.78, 0.78, 1.1), build_chair, ("chair",)),
    Category("stool", "round or square stool on legs with a footrest, or a swivel bar stool",
             {"height": frange(0.4, 0.8), "seat_radius": frange(0.15, 0.22), "seat": choice("round", "square"),
              "legs": irange(3, 4), "swivel": choice(False, True)},
             (0.2, 0.2, 0.38), (0.45, 0.45, 0.82), build_stool, ("stool",)),
]
