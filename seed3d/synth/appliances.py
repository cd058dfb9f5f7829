"""Kitchen and laundry appliances, all layouts of the shared carcass: refrigerator, microwave, oven,
dishwasher and washing machine (doors with windows, flaps, dials, push buttons, turntable, drum)."""

from __future__ import annotations

import numpy as np

from seed3d.synth.carcass import CARCASS_DOOR_PARAMS, CarcassStyle, Cell, Row, build_carcass
from seed3d.synth.core import AssetBuilder, Category, Param, choice, either, finish_param, frange, irange
from seed3d.synth.furniture import _record
from seed3d.synth.primitives import cylinder, torus, union

HANDLE_STYLES: tuple[str, ...] = ("bar", "pull", "tab", "arch", "knob")


def appliance_style_params(plinth: tuple[float, float] | None = None) -> dict[str, Param]:
    """The parameters ``appliance_style`` reads (``plinth``: the drawn plinth height range, m, if any)."""
    out: dict[str, Param] = {}
    if plinth is not None:
        out["plinth_height"] = frange(*plinth, doc="plinth height, m", draw="inline")
    out.update({
        "body_finish": finish_param(("painted_metal", "painted_metal", "brushed_metal"),
                                    ("white", "black", "silver grey", "anthracite", "cream", "stainless steel",
                                     "red"), doc="shell finish (the fronts too unless front_finish is given)"),
        "handle_finish": finish_param(("chrome", "brushed_metal", "plastic"),
                                      ("chrome", "stainless steel", "aluminium", "black", "grey", "white"),
                                      doc="handles and dials"),
        "glass_finish": finish_param("glass", ("smoked", "clear"), doc="door windows and turntable"),
        "button_finish": finish_param("plastic", ("black", "grey", "white"), doc="push buttons"),
        "leg_finish": finish_param("rubber", doc="feet (a microwave's; plinth appliances have none)"),
        "front_finish": finish_param(("painted_metal", "brushed_metal"), doc="doors, flaps and drawer fronts "
                                     "(default: body_finish)", draw="derived"),
    })
    return out


def appliance_style(b: AssetBuilder, base: str = "plinth", base_h: float = 0.06) -> CarcassStyle:
    """Enamel or stainless finishes, chrome or plastic handles, plastic buttons, smoked or clear glass."""
    body = b.draw("body_finish")
    hfin = b.draw("handle_finish")
    glass = b.draw("glass_finish")
    accent = b.draw("button_finish")
    feet = b.draw("leg_finish")
    return CarcassStyle(body=body, front=b.derive("front_finish", body), handle=hfin, handle_style="bar", wall=0.03,
                        back=0.02, front_t=0.03, gap=0.003, base=base, base_h=base_h, glass=glass, accent=accent,
                        body_physical="appliance_shell", front_physical="appliance_shell", leg_finish=feet)


#: Refrigerator layouts by their (doors, drawers); "french_door" (two doors over a freezer drawer) is built only
#: when the given counts ask for it.
FRIDGE_FRONTS: dict[str, tuple[int, int]] = {"top_freezer": (2, 0), "bottom_freezer": (1, 1),
                                             "side_by_side": (2, 0), "single": (1, 0), "french_door": (2, 1)}


def build_refrigerator(b: AssetBuilder) -> None:
    """A fridge: top or bottom freezer, side-by-side doors or a single door; long bar handles, shelves."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = appliance_style(b, base="plinth", base_h=b.draw("plinth_height"))
    st.long_handles = True
    st.handle_style = b.derive("handle_style", "bar")
    layout = p["layout"]
    if layout == "side_by_side" and W < 0.75 and not b.is_given("layout"):
        layout = "top_freezer"
    fronts = (b.derive("doors", FRIDGE_FRONTS[layout][0]), b.derive("drawers", FRIDGE_FRONTS[layout][1]))
    if fronts != FRIDGE_FRONTS[layout]:
        by_fronts = {(1, 0): "single", (1, 1): "bottom_freezer", (2, 1): "french_door",
                     (2, 0): "side_by_side" if layout == "side_by_side" else "top_freezer"}
        layout = by_fronts[fronts]
    hinge = b.draw("hinge")
    sh = b.draw("shelves")
    if layout == "top_freezer":
        rows = [Row(0.3, [Cell("door", hinge=hinge, shelves=1)]), Row(0.7, [Cell("door", hinge=hinge, shelves=sh)])]
    elif layout == "bottom_freezer":
        rows = [Row(0.66, [Cell("door", hinge=hinge, shelves=sh)]), Row(0.34, [Cell("drawer")])]
    elif layout == "side_by_side":
        rows = [Row(1.0, [Cell("door", weight=0.45, hinge="left", shelves=sh + 1),
                          Cell("door", weight=0.55, hinge="right", shelves=sh)])]
    elif layout == "french_door":
        rows = [Row(0.66, [Cell("door", hinge="left", shelves=sh), Cell("door", hinge="right", shelves=sh)]),
                Row(0.34, [Cell("drawer")])]
    else:
        rows = [Row(1.0, [Cell("door", hinge=hinge, shelves=sh)])]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts, {"layout": layout.replace("_", " ")})


def build_microwave(b: AssetBuilder) -> None:
    """A countertop microwave: a windowed door hinged on the left, a control strip with dials and buttons,
    a spinning glass turntable in the cavity."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = appliance_style(b, base="feet", base_h=0.012)
    st.handle_style = b.draw("handle_style")
    st.handle_scale = 0.8
    rows = [Row(1.0, [Cell("door", weight=0.72, hinge="left", window=True, turntable=True),
                      Cell("panel", weight=0.28, dials=p["dials"], buttons=p["buttons"])])]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts)


def build_oven(b: AssetBuilder) -> None:
    """A freestanding cooker: control panel with dials, a bottom-hinged windowed oven door, an optional
    storage drawer, and burners on top."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = appliance_style(b, base="plinth", base_h=b.draw("plinth_height"))
    st.long_handles = True
    st.handle_style = b.derive("handle_style", "bar")
    ph = 0.14
    rows = [Row(ph, [Cell("panel", dials=p["dials"], buttons=b.draw("buttons"))]),
            Row(0.55, [Cell("flap", window=True, shelves=1)])]
    ndrawers = b.derive("drawers", 1 if p["has_drawer"] else 0)
    if ndrawers:
        rows.append(Row(0.17, [Cell("drawer") for _ in range(ndrawers)]))
    facts = build_carcass(b, W, D, H, rows, st)
    body = facts["body"]
    burners = p["burners"]
    bfin = b.draw("burner_finish", when=bool(burners))
    if burners:
        cols = 2 if burners == 4 else 3 if burners == 6 else 2
        nrow = int(np.ceil(burners / cols))
        xs = np.linspace(-D / 2, D / 2, nrow + 2)[1:-1]
        ys = np.linspace(-W / 2, W / 2, cols + 2)[1:-1]
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
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = appliance_style(b, base="plinth", base_h=b.draw("plinth_height"))
    st.long_handles = True
    st.handle_style = b.draw("handle_style")
    rows = [Row(0.11, [Cell("panel", dials=b.draw("dials"), buttons=p["buttons"])]),
            Row(0.89, [Cell("flap", shelves=1)])]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts)


def build_washing_machine(b: AssetBuilder) -> None:
    """A front-loading washing machine: detergent drawer, programme dial and buttons, a porthole door over
    a drum that spins about the front axis."""
    p = b.p
    W, D, H = p["width"], p["depth"], p["height"]
    st = appliance_style(b, base="plinth", base_h=b.draw("plinth_height"))
    st.handle_style = b.derive("handle_style", "pull")
    st.wall = 0.02
    rows = [Row(0.18, [Cell("drawer", weight=0.35),
                       Cell("panel", weight=0.65, dials=b.derive("dials", 1), buttons=p["buttons"])]),
            Row(0.82, [Cell("round_door")])]
    facts = build_carcass(b, W, D, H, rows, st)
    _record(b, st, facts)


CATEGORIES: list[Category] = [
    Category("refrigerator", "fridge-freezer: top/bottom freezer, side-by-side or single door, bar handles",
             {"width": frange(0.55, 0.95, "m"), "depth": frange(0.6, 0.75, "m"), "height": frange(1.45, 1.95, "m"),
              "layout": choice("top_freezer", "bottom_freezer", "side_by_side", "single",
                               doc="fronts (a drawn side_by_side under 0.75 m wide becomes top_freezer)"),
              **appliance_style_params(plinth=(0.03, 0.06)),
              "handle_style": choice(*HANDLE_STYLES, doc="handle shape (default: bar)", draw="derived"),
              "doors": irange(1, 2, "hinged doors (default: the layout's); a given count that differs picks a "
                              "layout that has it (2 doors with a drawer: french doors)", draw="derived"),
              "drawers": irange(0, 1, "freezer drawers (default: the layout's; see doors)", draw="derived"),
              "hinge": either("left", "right", doc="hinge side of the doors (side-by-side and french doors "
                              "hinge outward)"),
              "shelves": irange(2, 4, "shelves in the fridge compartment (a side-by-side freezer gets one more)",
                                draw="inline", limits=(0, 6)),
              **CARCASS_DOOR_PARAMS},
             (0.65, 0.55, 1.45), (0.9, 0.96, 2.0), build_refrigerator, ("refrigerator", "fridge", "fridge-freezer")),
    Category("microwave", "countertop microwave oven with a windowed door, dials, buttons and a turntable",
             {"width": frange(0.44, 0.6, "m"), "depth": frange(0.33, 0.42, "m"), "height": frange(0.26, 0.35, "m"),
              "dials": irange(1, 2, "dials on the control strip", limits=(0, 3)),
              "buttons": irange(0, 3, "push buttons on the control strip", limits=(0, 5)),
              **appliance_style_params(),
              "handle_style": choice("bar", "pull", "tab", doc="door handle shape", draw="inline"),
              **CARCASS_DOOR_PARAMS},
             (0.36, 0.44, 0.26), (0.5, 0.6, 0.37), build_microwave, ("microwave", "microwave oven")),
    Category("oven", "freestanding cooker: dials, bottom-hinged oven door with window, burners, storage drawer",
             {"width": frange(0.5, 0.9, "m"), "depth": frange(0.55, 0.65, "m"), "height": frange(0.85, 0.95, "m"),
              "dials": irange(3, 6, "dials on the control panel", limits=(0, 8)),
              "has_drawer": choice(False, True, doc="a storage drawer under the oven door"),
              "burners": choice(0, 4, 4, 6, doc="burners on top"),
              **appliance_style_params(plinth=(0.05, 0.09)),
              "handle_style": choice(*HANDLE_STYLES, doc="handle shape (default: bar)", draw="derived"),
              "buttons": irange(0, 2, "push buttons on the control panel", draw="inline", limits=(0, 4)),
              "drawers": irange(0, 2, "storage drawers side by side under the oven door (default: 1 if has_drawer "
                                "else 0)", draw="derived"),
              "burner_finish": finish_param("painted_metal", ("black", "anthracite"), doc="burners")},
             (0.58, 0.5, 0.85), (0.76, 0.9, 0.99), build_oven, ("oven", "cooker", "kitchen range", "stove")),
    Category("dishwasher", "under-counter dishwasher with a control strip and a bottom-hinged door",
             {"width": frange(0.45, 0.6, "m"), "depth": frange(0.55, 0.62, "m"), "height": frange(0.8, 0.87, "m"),
              "buttons": irange(2, 5, "push buttons on the control strip", limits=(0, 8)),
              **appliance_style_params(plinth=(0.08, 0.11)),
              "handle_style": choice("bar", "pull", doc="door handle shape", draw="inline"),
              "dials": irange(0, 1, "dials on the control strip", draw="inline", limits=(0, 3))},
             (0.58, 0.45, 0.8), (0.72, 0.6, 0.88), build_dishwasher, ("dishwasher",)),
    Category("washing_machine", "front-loading washing machine: porthole door, spinning drum, detergent drawer, dial",
             {"width": frange(0.58, 0.62, "m"), "depth": frange(0.5, 0.65, "m"), "height": frange(0.82, 0.87, "m"),
              "buttons": irange(1, 4, "push buttons on the control panel", limits=(0, 6)),
              **appliance_style_params(plinth=(0.03, 0.06)),
              "handle_style": choice(*HANDLE_STYLES, doc="detergent drawer handle shape (default: pull)",
                                     draw="derived"),
              "dials": irange(1, 1, "programme dials on the control panel", draw="derived", limits=(0, 3))},
             (0.52, 0.58, 0.82), (0.75, 0.62, 0.88), build_washing_machine, ("washing machine", "washer",
                                                                              "front-loading washer")),
]
