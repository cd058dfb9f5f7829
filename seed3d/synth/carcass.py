"""The shared carcass builder: a box body whose front is a grid of cells (doors, drawers, flaps, open
compartments, control panels, round porthole doors). Cabinets, wardrobes, nightstands, dressers, bookshelves,
refrigerators, ovens, dishwashers, microwaves and washing machines are all layouts of it.

Geometry (asset frame, before the final re-centring): the carcass spans x ∈ [-D/2, D/2] (front face at
+D/2), y ∈ [-W/2, W/2], z ∈ [z0, H]. Each cell gets a real cavity cut with ``difference``; fronts overlay the
carcass a ``gap`` in front of it. Doors hinge on their front outer edge so that their whole swing stays in
front of the carcass; a door hinged on an inner edge stops at 90° so it never reaches its neighbour's handle.
Drawers are open trays with clearance on every side of their cavity and slide out along +X.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.collision import rectilinear_boxes, reduced_hull, subtract_prism
from seed3d.synth.core import AssetBuilder, Param, frange
from seed3d.synth.fixtures import button_pocket, dial, handle, handle_reach, leg, push_button
from seed3d.synth.materials import Finish, finish
from seed3d.synth.primitives import box, cylinder, difference, lathe, union

CELL_KINDS: tuple[str, ...] = ("door", "drawer", "flap", "open", "panel", "round_door", "solid")

#: Parameters ``build_carcass`` reads for side-hinged doors (every category with such doors declares them).
CARCASS_DOOR_PARAMS: dict[str, Param] = {
    "door_swing": frange(1.75, 2.0, "opening limit of each door hinged at the carcass's outer edge, rad (a door "
                         "hinged on an inner edge stops at 90 degrees)", draw="inline", per_item=True,
                         limits=(1.0, 3.0)),
}


@dataclass
class Cell:
    """One compartment of a carcass row.

    ``kind``: door (vertical hinge on ``hinge`` = left|right), flap (hinged at the bottom, opens down),
    drawer, open (no front), panel (a flush fascia carrying ``dials`` and ``buttons``), round_door (porthole
    door over a cylindrical cavity holding a spinning drum), solid (plain carcass front). ``shelves``: fixed
    shelves inside door/open cells.
    """

    kind: str
    weight: float = 1.0
    hinge: str = "left"
    shelves: int = 0
    window: bool = False
    handle: bool = True
    dials: int = 0
    buttons: int = 0
    turntable: bool = False
    rod: bool = False


@dataclass
class Row:
    """A horizontal band of cells (rows are listed top to bottom)."""

    weight: float
    cells: list[Cell]


@dataclass
class CarcassStyle:
    """Finishes, thicknesses and fittings of a carcass."""

    body: Finish
    front: Finish
    handle: Finish
    handle_style: str = "bar"
    wall: float = 0.018
    back: float = 0.008
    front_t: float = 0.018
    gap: float = 0.003
    base: str = "plinth"
    base_h: float = 0.08
    leg_style: str = "square"
    leg_finish: Finish | None = None
    glass: Finish | None = None
    accent: Finish | None = None
    body_physical: str | None = None
    front_physical: str | None = None
    handle_scale: float = 1.0
    long_handles: bool = False
    top_well: float = 0.0
    extras: list[str] = field(default_factory=list)


def _position_words(row: int, n_rows: int, col: int, n_cols: int) -> str:
    vert = ""
    if n_rows > 1:
        if row == 0:
            vert = "top"
        elif row == n_rows - 1:
            vert = "bottom"
        else:
            vert = "middle" if n_rows == 3 else ("upper" if row < n_rows / 2 else "lower")
    horiz = ""
    if n_cols > 1:
        horiz = "left" if col == 0 else "right" if col == n_cols - 1 else "centre"
    return " ".join(w for w in (vert, horiz) if w) or "front"


def _bounds(weights: list[float], lo: float, hi: float) -> np.ndarray:
    w = np.asarray(weights, np.float64)
    return lo + (hi - lo) * np.concatenate([[0.0], np.cumsum(w) / w.sum()])


def build_carcass(b: AssetBuilder, width: float, depth: float, height: float, rows: list[Row],
                  st: CarcassStyle, top_slab: dict[str, Any] | None = None) -> dict[str, Any]:
    """Add a carcass body with its fronts, fittings and base to ``b``; returns layout facts for descriptions."""
    W, D, H = width, depth, height
    t, g, tf = st.wall, st.gap, st.front_t
    z0 = st.base_h if st.base in ("plinth", "legs", "feet") else 0.0
    xf = D / 2  # carcass front plane
    xd0, xd1 = xf + g, xf + g + tf  # front panels (overlay) span
    outer = box([-D / 2, -W / 2, z0], [D / 2, W / 2, H])
    cutters: list[Mesh] = []
    adds: list[Mesh] = []  # unioned before the cavities are cut (panel fascias)
    inner: list[Mesh] = []  # unioned after (rails inside cavities)
    round_cutters: list[Mesh] = []  # cylindrical cavities (cut after the box decomposition)
    zb = _bounds([r.weight for r in rows][::-1], z0, H)[::-1]  # row boundaries, top first
    facts: dict[str, Any] = {"doors": [], "drawers": [], "open_compartments": 0, "shelves": 0, "dials": 0,
                             "buttons": 0}
    n_rows = len(rows)
    counters = {"door": 0, "drawer": 0, "dial": 0, "button": 0}
    pending: list[tuple] = []  # parts to add after the body (they need its name as parent)
    for ri, row in enumerate(rows):
        za, zt = zb[ri + 1], zb[ri]
        yb = _bounds([c.weight for c in row.cells], -W / 2, W / 2)
        n_cols = len(row.cells)
        for ci, cell in enumerate(row.cells):
            ya, yt = yb[ci], yb[ci + 1]
            # cavity (inside walls/dividers) and front rectangle (overlay, gap/2 from neighbours)
            cy0 = ya + (t if ci == 0 else t / 2)
            cy1 = yt - (t if ci == n_cols - 1 else t / 2)
            cz0 = za + (t if ri == n_rows - 1 else t / 2)
            cz1 = zt - (t if ri == 0 else t / 2)
            fy0, fy1, fz0, fz1 = ya + g / 2, yt - g / 2, za + g / 2, zt - g / 2
            where = _position_words(ri, n_rows, ci, n_cols)
            xback = -D / 2 + st.back
            if cell.kind in ("door", "flap", "open"):
                cutters.extend(_shelved_cavity(xback, xf + 0.01, cy0, cy1, cz0, cz1, cell.shelves, t))
                facts["shelves"] += cell.shelves
                if cell.rod:
                    rz = cz1 - 0.07
                    inner.append(cylinder(0.012, (cy1 - cy0) + 2 * t * 0.5, 20, (0, 1, 0),
                                         (0.0, cy0 - t * 0.5, rz)))
                    facts.setdefault("extras", []).append("a hanging rail inside")
                if cell.kind == "open":
                    facts["open_compartments"] += 1
                    continue
                pending.append(("door", cell, where, (fy0, fy1, fz0, fz1), (cy0, cy1, cz0, cz1), ri, ci, n_cols))
            elif cell.kind == "drawer":
                cutters.append(box([xback, cy0, cz0], [xf + 0.01, cy1, cz1]))
                pending.append(("drawer", cell, where, (fy0, fy1, fz0, fz1), (cy0, cy1, cz0, cz1), ri, ci, n_cols))
            elif cell.kind == "round_door":
                pending.append(("round", cell, where, (fy0, fy1, fz0, fz1), (cy0, cy1, cz0, cz1), ri, ci, n_cols))
                yc, zc = (cy0 + cy1) / 2, (cz0 + cz1) / 2
                rc = 0.5 * min(cy1 - cy0, cz1 - cz0) - 0.04
                round_cutters.append(cylinder(rc, D, 64, (1, 0, 0), (xback + 0.02, yc, zc)))
                # a coarser 16-gon around that 64-gon for the collision pieces (the hole only grows)
                round_cutters.append(cylinder(rc / np.cos(np.pi / 16), D, 16, (1, 0, 0), (xback + 0.02, yc, zc)))
            elif cell.kind == "solid":
                continue
            elif cell.kind == "panel":
                adds.append(box([xf - 0.001, fy0, fz0], [xd1, fy1, fz1]))
                pending.append(("panel", cell, where, (fy0, fy1, fz0, fz1), (cy0, cy1, cz0, cz1), ri, ci, n_cols))
            else:
                raise ValueError(f"unknown cell kind {cell.kind!r}; known: {CELL_KINDS}")

    # control pockets on panels must be cut from the body too
    controls: list[tuple] = []
    for kind, cell, _where, fr, _cav, *_ in pending:
        if kind != "panel":
            continue
        n = cell.dials + cell.buttons
        if not n:
            continue
        fy0, fy1, fz0, fz1 = fr
        vertical = (fz1 - fz0) > (fy1 - fy0)  # a tall, narrow panel lists its controls top to bottom
        if vertical:
            zs = np.linspace(fz1, fz0, n + 2)[1:-1]
            ys = np.full(n, (fy0 + fy1) / 2)
            pitch, across = (fz1 - fz0) / (n + 1), fy1 - fy0
        else:
            ys = np.linspace(fy0, fy1, n + 2)[1:-1]
            zs = np.full(n, (fz0 + fz1) / 2)
            pitch, across = (fy1 - fy0) / (n + 1), fz1 - fz0
        for k, (y, zc) in enumerate(zip(ys, zs, strict=True)):
            if k < cell.dials:
                r = float(min(0.45 * pitch, 0.36 * across, 0.03))
                controls.append(("dial", y, zc, r))
            else:
                bw = float(min(0.6 * (across if vertical else pitch), 0.035))
                bh = float(min(0.4 * (pitch if vertical else across), 0.018))
                cutters.append(button_pocket([xd1, y, zc], (bw, bh), 0.012, 0.0015))
                controls.append(("button", y, zc, (bw, bh)))

    if st.top_well > 0:  # an open compartment from the top (a toolbox tray); the caller adds its lid
        cutters.append(box([-D / 2 + t, -W / 2 + t, H - st.top_well], [D / 2 - t, W / 2 - t, H + 0.01]))
    body_mesh = difference(union(outer, *adds) if adds else outer, *cutters)
    if st.base == "plinth":
        body_mesh = union(body_mesh, box([-D / 2 + 0.01, -W / 2 + 0.01, 0.0], [xf - 0.05, W / 2 - 0.01, z0 + 0.002]))
    # exact collision pieces: boxes of the rectilinear carcass, then round cavities and rails
    pieces = rectilinear_boxes(body_mesh)
    for fine, coarse in zip(round_cutters[::2], round_cutters[1::2], strict=True):
        body_mesh = difference(body_mesh, fine)
        pieces = subtract_prism(pieces, coarse, (1, 0, 0))
    if inner:
        body_mesh = union(body_mesh, *inner)
        pieces += [reduced_hull(m) for m in inner]
    body = b.add("body", body_mesh, "body", st.body, physical=st.body_physical, collision=pieces)
    if st.base in ("legs", "feet"):
        n_legs = 0
        inset = 0.04 if st.base == "legs" else 0.03
        thick = 0.045 if st.base == "legs" else 0.03
        for sx in (-1, 1):
            for sy in (-1, 1):
                top = [sx * (D / 2 - inset), sy * (W / 2 - inset), z0]
                style = st.leg_style if st.base == "legs" else "round"
                m = leg(style, top, z0, thick)
                b.add(f"leg_{n_legs}", m, "leg", st.leg_finish or st.body, body, origin=top)
                n_legs += 1
        facts["legs"] = {"count": n_legs, "style": st.leg_style if st.base == "legs" else "feet",
                         "height": z0, "finish": (st.leg_finish or st.body).to_dict()}
    if top_slab:
        ov = top_slab.get("overhang", 0.02)
        tt = top_slab.get("thickness", 0.03)
        fin = top_slab["finish"]
        slab = box([-D / 2 - 0.005, -W / 2 - ov, H], [xd1 + ov, W / 2 + ov, H + tt])
        b.add("top", slab, "top", fin, body, origin=[0.0, 0.0, H])
        facts["top"] = {"finish": fin.to_dict(), "thickness": tt}

    for kind, cell, where, fr, cav, _ri, ci, n_cols in pending:
        fy0, fy1, fz0, fz1 = fr
        cy0, cy1, cz0, cz1 = cav
        if kind == "door":
            _add_door(b, body, st, cell, where, fr, cav, ci, n_cols, xd0, xd1, W, facts, counters)
            if cell.turntable:
                xc = (-D / 2 + st.back + xf) / 2
                yc = (cy0 + cy1) / 2
                r = 0.5 * min(xf - (-D / 2 + st.back), cy1 - cy0) - 0.02
                plate = cylinder(r, 0.006, 48, at=(xc, yc, cz0 + 0.002))
                b.add("turntable", plate, "tray", st.glass or st.accent or st.handle, body, "spin",
                      origin=[xc, yc, cz0 + 0.002], axis=[0, 0, 1])
                facts.setdefault("extras", []).append("a rotating glass turntable inside")
        elif kind == "drawer":
            _add_drawer(b, body, st, cell, where, fr, cav, -D / 2 + st.back, xf, xd0, xd1, facts, counters)
        elif kind == "round":
            _add_round_door(b, body, st, cell, where, fr, cav, -D / 2 + st.back, xf, xd0, xd1, facts, counters)
    for kind, y, zc, size in controls:
        if kind == "dial":
            k = counters["dial"]
            counters["dial"] += 1
            at = [xd1 + 0.0015, y, zc]
            b.add(f"dial_{k}", dial(at, size, 0.022), "knob", st.handle, body, "spin", origin=at, axis=[1, 0, 0])
            facts["dials"] += 1
        else:
            k = counters["button"]
            counters["button"] += 1
            btn = push_button([xd1, y, zc], size, 0.005, 0.0075)
            b.add(f"button_{k}", btn, "button", st.accent or st.handle, body, "button", origin=[xd1, y, zc],
                  axis=[-1, 0, 0], lower=0.0, upper=0.003)
            facts["buttons"] += 1
    if st.extras:
        facts.setdefault("extras", []).extend(st.extras)
    facts["body"] = body
    return facts


def _shelved_cavity(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float, shelves: int,
                    t: float) -> list[Mesh]:
    """Cavity boxes of a compartment split by ``shelves`` fixed shelves of thickness ``t``."""
    n = shelves + 1
    free = (z1 - z0 - shelves * t) / n
    out = []
    for k in range(n):
        a = z0 + k * (free + t)
        out.append(box([x0, y0, a], [x1, y1, a + free]))
    return out


def _handle_len(st: CarcassStyle, span: float) -> float:
    if st.long_handles:
        return float(min(0.75 * span, 0.9))
    return float(min(0.5 * span, 0.096 + 0.032 * int(span > 0.5) + 0.064 * int(span > 0.9)))


def _add_door(b: AssetBuilder, body: str, st: CarcassStyle, cell: Cell, where: str, fr: tuple, cav: tuple,
              ci: int, n_cols: int, xd0: float, xd1: float, W: float, facts: dict, counters: dict) -> None:
    fy0, fy1, fz0, fz1 = fr
    k = counters["door"]
    counters["door"] += 1
    name = f"door_{k}"
    slab = box([xd0, fy0, fz0], [xd1, fy1, fz1])
    glass_mesh = None
    if cell.window:
        my = 0.22 * (fy1 - fy0) if cell.kind == "door" else 0.15 * (fy1 - fy0)
        mz = 0.15 * (fz1 - fz0) if cell.kind == "door" else 0.25 * (fz1 - fz0)
        hole = box([xd0 - 0.01, fy0 + my, fz0 + mz], [xd1 + 0.01, fy1 - my, fz1 - mz])
        slab = difference(slab, hole)
        c = 0.0007
        glass_mesh = box([xd0 + 0.3 * (xd1 - xd0), fy0 + my + c, fz0 + mz + c],
                         [xd1 - 0.3 * (xd1 - xd0), fy1 - my - c, fz1 - mz - c])
    reach = handle_reach(st.handle_style, st.handle_scale)
    if cell.kind == "flap":
        origin = [xd1, (fy0 + fy1) / 2, fz0]
        axis = [0.0, 1.0, 0.0]
        upper = np.pi / 2
        hinge = "bottom"
        b.add(name, slab, "door", st.front, body, "hinge", origin=origin, axis=axis, lower=0.0, upper=upper,
              physical=st.front_physical)
        if cell.handle:
            hz = fz1 - min(0.05, 0.15 * (fz1 - fz0))
            L = _handle_len(st, fy1 - fy0) if not st.long_handles else 0.7 * (fy1 - fy0)
            at = [xd1, (fy0 + fy1) / 2, hz]
            b.add(f"{name}_handle", handle(st.handle_style, at, L, along=(0, 1, 0), scale=st.handle_scale),
                  "handle", st.handle, name, origin=at)
    else:
        hinge = cell.hinge
        left = hinge == "left"
        hy = fy0 if left else fy1
        origin = [xd1, hy, fz0]
        axis = [0.0, 0.0, -1.0] if left else [0.0, 0.0, 1.0]
        at_edge = (left and ci == 0) or (not left and ci == n_cols - 1)
        upper = b.draw("door_swing", item=k) if at_edge else np.pi / 2
        b.add(name, slab, "door", st.front, body, "hinge", origin=origin, axis=axis, lower=0.0, upper=upper,
              physical=st.front_physical)
        if cell.handle:
            span = fz1 - fz0
            L = _handle_len(st, span)
            margin = max(0.045, 1.5 * reach) if st.handle_style != "knob" else 0.04
            hy_h = fy1 - margin if left else fy0 + margin
            zlo, zhi = fz0 + L / 2 + 0.05, fz1 - L / 2 - 0.05
            hz = float(np.clip(1.0, zlo, zhi)) if zlo < zhi and not st.long_handles else (fz0 + fz1) / 2
            at = [xd1, hy_h, hz]
            b.add(f"{name}_handle", handle(st.handle_style, at, L, along=(0, 0, 1), scale=st.handle_scale),
                  "handle", st.handle, name, origin=at)
    if glass_mesh is not None and st.glass is not None:
        b.add(f"{name}_glass", glass_mesh, "panel", st.glass, name)
    facts["doors"].append({"position": where, "hinge": hinge, "window": bool(cell.window),
                           "opens_deg": round(float(np.rad2deg(upper)))})


def _add_drawer(b: AssetBuilder, body: str, st: CarcassStyle, cell: Cell, where: str, fr: tuple, cav: tuple,
                xback: float, xf: float, xd0: float, xd1: float, facts: dict, counters: dict) -> None:
    fy0, fy1, fz0, fz1 = fr
    cy0, cy1, cz0, cz1 = cav
    k = counters["drawer"]
    counters["drawer"] += 1
    name = f"drawer_{k}"
    c = 0.004  # clearance to the cavity
    tw = min(0.012, 0.25 * (cz1 - cz0))
    lo = np.array([xback + 0.01, cy0 + c, cz0 + c])
    hi = np.array([xd0 + 0.001, cy1 - c, cz1 - c - 0.006])
    tray = difference(box(lo, hi), box(lo + [tw, tw, tw], [xf - tw * 0.5, hi[1] - tw, hi[2] + 0.01]))
    front = box([xd0, fy0, fz0], [xd1, fy1, fz1])
    drawer = union(tray, front)
    depth = float(xf - lo[0])
    upper = 0.75 * depth
    origin = [xd1, (fy0 + fy1) / 2, (fz0 + fz1) / 2]
    b.add(name, drawer, "drawer", st.front, body, "slide", origin=origin, axis=[1, 0, 0], lower=0.0, upper=upper,
          physical=st.front_physical)
    if cell.handle:
        span = fy1 - fy0
        L = _handle_len(st, span)
        at = [xd1, (fy0 + fy1) / 2, (fz0 + fz1) / 2 + (0.25 * (fz1 - fz0) if st.long_handles else 0.0)]
        if st.handle_style == "knob" and span > 0.55:
            for side, dy in (("l", -span / 4), ("r", span / 4)):
                p = [at[0], at[1] + dy, at[2]]
                b.add(f"{name}_handle_{side}", handle("knob", p, L, scale=st.handle_scale), "handle", st.handle,
                      name, origin=p)
        else:
            b.add(f"{name}_handle", handle(st.handle_style, at, L, along=(0, 1, 0), scale=st.handle_scale),
                  "handle", st.handle, name, origin=at)
    facts["drawers"].append({"position": where, "travel_m": round(upper, 3)})


def _add_round_door(b: AssetBuilder, body: str, st: CarcassStyle, cell: Cell, where: str, fr: tuple,
                    cav: tuple, xback: float, xf: float, xd0: float, xd1: float, facts: dict,
                    counters: dict) -> None:
    fy0, fy1, fz0, fz1 = fr
    cy0, cy1, cz0, cz1 = cav
    yc, zc = (cy0 + cy1) / 2, (cz0 + cz1) / 2
    rc = 0.5 * min(cy1 - cy0, cz1 - cz0) - 0.04
    rd = min(rc + 0.035, 0.5 * min(fy1 - fy0, fz1 - fz0) - 0.004)
    rw = rc - 0.03
    k = counters["door"]
    counters["door"] += 1
    name = f"door_{k}"
    td = xd1 - xd0 + 0.012
    ring = lathe([(rw, 0), (rd, 0), (rd, td * 0.7), (rd - 0.01, td), (rw, td)], 64)
    ring = ring.transformed(_x_axis_at(xd0, yc, zc))
    hy = yc - rd
    origin = [xd0 + td, hy, zc]
    b.add(name, ring, "door", st.front, body, "hinge", origin=origin, axis=[0, 0, -1], lower=0.0, upper=np.pi / 2,
          physical=st.front_physical)
    if st.glass is not None:
        g = lathe([(0, 0), (rw - 0.001, 0), (rw - 0.001, td * 0.6), (0, td * 0.9)], 64).transformed(
            _x_axis_at(xd0 + td * 0.05, yc, zc))
        b.add(f"{name}_glass", g, "panel", st.glass, name)
    at = [xd0 + td, yc + rd - 0.03, zc]
    b.add(f"{name}_handle", handle("tab", at, 0.08, along=(0, 0, 1), scale=1.3), "handle", st.handle, name,
          origin=at)
    # drum: a cup open towards the door, spinning about +X inside the cylindrical cavity
    rdr = rc - 0.012
    x0d, x1d = xback + 0.035, xf - 0.01
    L = x1d - x0d
    wall = 0.006
    drum = lathe([(0, 0), (rdr, 0), (rdr, L), (rdr - wall, L), (rdr - wall, wall), (0, wall)], 64)
    drum = drum.transformed(_x_axis_at(x0d, yc, zc))
    b.add("drum", drum, "other", finish("brushed_metal", "stainless steel"), body, "drum",
          origin=[x0d, yc, zc], axis=[1, 0, 0], physical="steel", collision=[reduced_hull(drum)])
    facts["doors"].append({"position": where, "hinge": "left", "window": True, "round": True, "opens_deg": 90})
    facts.setdefault("extras", []).append("a rotating drum behind the porthole door")


def _x_axis_at(x: float, y: float, z: float) -> np.ndarray:
    """4x4 taking the lathe's +Z axis onto +X, with its origin at (x, y, z)."""
    m = np.eye(4)
    m[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]
    m[:3, 3] = [x, y, z]
    return m
