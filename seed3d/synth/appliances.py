"""Kitchen and laundry appliances, all layouts of the shared carcass: refrigerator, microwave, oven,
dishwasher and washing machine (doors with windows, flaps, dials, push buttons, turntable, drum)."""

from __future__ import annotations

import numpy as np

from seed3d.synth.carcass import CarcassStyle, Cell, Row, build_carcass
from seed3d.synth.core import AssetBuilder, Category, choice, frange, irange
from seed3d.synth.furniture import _record
from seed3d.synth.materials import pick_finish
from seed3d.synth.primitives import cylinder, torus, union


def appliance_style(b: AssetBuilder, base: str = "plinth", base_h: float = 0.06) -> CarcassStyle:
    """Enamel or stainless finishes, chrome or plastic handles, plastic buttons, smoked or clear glass."""
    rng = b.rng
    body = pick_finish(rng, ("painted_metal", "painted_metal", "brushed_metal"),
                       ("white", "black", "silver grey", "anthracite", "cream", "stainless steel", "red"))
    hfin = pick_finish(rng, ("chrome", "brushed_metal", "plastic"), ("chrome", "stainless steel", "aluminium", "black",
                                                                      "grey", "white"))
    return CarcassStyle(body=body, front=body, handle=hfin, handle_style="bar", wall=0.03, back=0.02,
                        front_t=0.03, gap=0.003, base=base, base_h=base_h,
                        glass=pick_finish(rng, "glass", ("smoked", "clear")),
                        accent=pick_finish(rng, "plastic", ("black", "grey", "white")),
                        body_physical="appliance_shell", front_physical="appliance_shell",
                        leg_finish=pick_finish(rng, "rubber"))


def build_refrigerator(b: AssetBuilder) -> None:
    """A fridge: top or bottom freezer, side-by-side doors or a single door; long bar handles, shelves."""
    p, rng = b.p, b.rng
    W, D, H = p["width"], p["depth"], p["height"]
    st = appliance_style(b, base="plinth", base_h=float(rng.uniform(0.03, 0.06)))
    st.long_handles = True
    layout = p["layout"] if (p["layout"] != "side_by_side" or W >= 0.75) else "top_freezer"
    hinge = "left" if rng.random() < 0.5 else "right"
    sh = int(rng.integers(2, 5))
    if layout == "top_freezer":
        rows = [Row(0.3, [Cell("door", hinge=hinge, shelves=1)]), Row(0.7, [Cell("door", hinge=hinge, shelves=sh)])]
    elif layout == "bottom_freezer":
        rows = [Row(0.66, [Cell("door", hinge=hinge, shelves=sh)]), Row(0.34, [Cell("drawer")])]
    elif layout == "side_by_side":
        rows = [Row(1.0, [Cell("door", weight=0.45, hinge="left", shelves=sh + 1),
                          Cell("door", weight=0.55, hinge="right", shelves=sh)])]
    else:
        rows = [Row(1.0, [Cell("door", hinge=hinge, shelves=sh)])]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts, {"layout": layout.replace("_", " ")})


def build_microwave(b: AssetBuilder) -> None:
    """A countertop microwave: a windowed door hinged on the left, a control strip with dials and buttons,
    a spinning glass turntable in the cavity."""
    p, rng = b.p, b.rng
    W, D, H = p["width"], p["depth"], p["height"]
    st = appliance_style(b, base="feet", base_h=0.012)
    st.handle_style = ("bar", "pull", "tab")[int(rng.integers(3))]
    st.handle_scale = 0.8
    rows = [Row(1.0, [Cell("door", weight=0.72, hinge="left", window=True, turntable=True),
                      Cell("panel", weight=0.28, dials=p["dials"], buttons=p["buttons"])])]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts)


def build_oven(b: AssetBuilder) -> None:
    """A freestanding cooker: control panel with dials, a bottom-hinged windowed oven door, an optional
    storage drawer, and burners on top."""
    p, rng = b.p, b.rng
    W, D, H = p["width"], p["depth"], p["height"]
    st = appliance_style(b, base="plinth", base_h=float(rng.uniform(0.05, 0.09)))
    st.long_handles = True
    ph = 0.14
    rows = [Row(ph, [Cell("panel", dials=p["dials"], buttons=int(rng.integers(0, 3)))]),
            Row(0.55, [Cell("flap", window=True, shelves=1)])]
    if p["drawer"]:
        rows.append(Row(0.17, [Cell("drawer")]))
    facts = build_carcass(b, W, D, H, rows, st)
    body = facts["body"]
    burners = p["burners"]
    if burners:
        cols = 2 if burners == 4 else 3 if burners == 6 else 2
        nrow = int(np.ceil(burners / cols))
        xs = np.linspace(-D / 2, D / 2, nrow + 2)[1:-1]
        ys = np.linspace(-W / 2, W / 2, cols + 2)[1:-1]
        bfin = pick_finish(rng, ("painted_metal",), ("black", "anthracite"))
        k = 0
        for x in xs:
            for y in ys:
                if k >= burners:
                    break
                r = float(min(0.085, 0.4 * (W / (cols + 1)), 0.4 * (D / (nrow + 1))))
                m = union(cylinder(r, 0.012, 32, at=(x, y, H)), torus(r * 0.8, 0.006, 32, 8, at=(x, y, H + 0.016)),
                          cylinder(r * 0.8 + 0.006, 0.004, 32, at=(x, y, H + 0.011)))
                b.add(f"burner_{k}", m, "other", bfin, body, origin=[x, y, H])
                k += 1
    _record(b, st, facts, {"burners": burners})


def build_dishwasher(b: AssetBuilder) -> None:
    """An under-counter dishwasher: a control strip with buttons above a bottom-hinged door, on a kick plinth."""
    p, rng = b.p, b.rng
    W, D, H = p["width"], p["depth"], p["height"]
    st = appliance_style(b, base="plinth", base_h=float(rng.uniform(0.08, 0.11)))
    st.long_handles = True
    st.handle_style = ("bar", "pull")[int(rng.integers(2))]
    rows = [Row(0.11, [Cell("panel", dials=int(rng.integers(0, 2)), buttons=p["buttons"])]),
            Row(0.89, [Cell("flap", shelves=1)])]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts)


def build_washing_machine(b: AssetBuilder) -> None:
    """A front-loading washing machine: detergent drawer, programme dial and buttons, a porthole door over
    a drum that spins about the front axis."""
    p, rng = b.p, b.rng
    W, D, H = p["width"], p["depth"], p["height"]
    st = appliance_style(b, base="plinth", base_h=float(rng.uniform(0.03, 0.06)))
    st.handle_style = "pull"
    st.wall = 0.02
    rows = [Row(0.18, [Cell("drawer", weight=0.35), Cell("panel", weight=0.65, dials=1, buttons=p["buttons"])]),
            Row(0.82, [Cell("round_door")])]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts)


CATEGORIES: list[Category] = [
    Category("refrigerator", "fridge-freezer: top/bottom freezer, side-by-side or single door, bar handles",
             {"width": frange(0.55, 0.95), "depth": frange(0.6, 0.75), "height": frange(1.45, 1.95),
              "layout": choice("top_freezer", "bottom_freezer", "side_by_side", "single")},
             (0.65, 0.55, 1.45), (0.9, 0.96, 2.0), build_refrigerator, ("refrigerator", "fridge", "fridge-freezer")),
    Category("microwave", "countertop microwave oven with a windowed door, dials, buttons and a turntable",
             {"width": frange(0.44, 0.6), "depth": frange(0.33, 0.42), "height": frange(0.26, 0.35),
              "dials": irange(1, 2), "buttons": irange(0, 3)},
             (0.36, 0.44, 0.26), (0.5, 0.6, 0.37), build_microwave, ("microwave", "microwave oven")),
    Category("oven", "freestanding cooker: dials, bottom-hinged oven door with window, burners, storage drawer",
             {"width": frange(0.5, 0.9), "depth": frange(0.55, 0.65), "height": frange(0.85, 0.95),
              "dials": irange(3, 6), "drawer": choice(False, True), "burners": choice(0, 4, 4, 6)},
             (0.58, 0.5, 0.85), (0.76, 0.9, 0.99), build_oven, ("oven", "cooker", "kitchen range", "stove")),
    Category("dishwasher", "under-counter dishwasher with a control strip and a bottom-hinged door",
             {"width": frange(0.45, 0.6), "depth": frange(0.55, 0.62), "height": frange(0.8, 0.87),
              "buttons": irange(2, 5)},
             (0.58, 0.45, 0.8), (0.72, 0.6, 0.88), build_dishwasher, ("dishwasher",)),
    Category("washing_machine", "front-loading washing machine: porthole door, spinning drum, detergent drawer, dial",
             {"width": frange(0.58, 0.62), "depth": frange(0.5, 0.65), "height": frange(0.82, 0.87),
              "buttons": irange(1, 4)},
             (0.52, 0.58, 0.82), (0.75, 0.62, 0.88), build_washing_machine, ("washing machine", "washer",
                                                                              "front-loading washer")),
]
