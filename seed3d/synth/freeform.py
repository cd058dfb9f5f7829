"""Freeform: random CSG assemblies of primitives (unions, holes, slots), so models see shapes beyond
furniture, with an optional attachment on a random joint (a spinning rotor, a sliding block or a hinged
flap) kept clear of the body over its whole range."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.core import AssetBuilder, Category, Param, choice, either, finish_param, flag, frange, irange
from seed3d.synth.materials import KINDS, METAL_KINDS
from seed3d.synth.primitives import (
    box,
    cylinder,
    difference,
    lathe,
    rotation,
    rounded_box,
    signed_volume,
    sphere,
    torus,
    union,
)

PRIMITIVES: tuple[str, ...] = ("box", "rounded_box", "cylinder", "cone", "sphere", "torus", "lathe")
LATHE_POINTS = 6  # profile points of a lathe primitive
ROTOR_POINTS = 5  # profile points of a rotor

#: how many vertices the body has while an ``anchor`` is drawn (the draw picks one of them)
_VERTEX_COUNT: ContextVar[int] = ContextVar("_VERTEX_COUNT", default=1)


class _Normal(Param):
    """A float drawn from a standard normal (``rng.normal()``); a caller may give any value within ``limits``."""

    def sample(self, rng: np.random.Generator) -> Any:
        """Draw a value."""
        return float(rng.normal())


class _VertexFraction(Param):
    """A vertex of the body, as its fraction through the vertex list (drawn as ``rng.integers(count) / count``)."""

    def sample(self, rng: np.random.Generator) -> Any:
        """Draw a value."""
        n = _VERTEX_COUNT.get()
        return int(rng.integers(n)) / n


def random_primitive(b: AssetBuilder, scale: float, item: int) -> tuple[str, Mesh]:
    """Primitive ``item`` of the assembly: a closed primitive about the origin, roughly ``scale`` across, maybe
    turned (its ``primitive*``, ``cone_top``, ``torus_tube``, ``lathe_profile`` and ``turn*`` parameters)."""
    kind = b.draw("primitive", item=item)
    s = scale * np.array([b.draw("primitive_depth", item=item), b.draw("primitive_width", item=item),
                          b.draw("primitive_height", item=item)])
    if kind == "box":
        m = box(-s / 2, s / 2)
    elif kind == "rounded_box":
        m = rounded_box(-s / 2, s / 2, float(min(s) * b.draw("primitive_rounding", item=item)), 3)
    elif kind == "cylinder":
        m = cylinder(s[0] / 2, s[2], 32, at=(0, 0, -s[2] / 2))
    elif kind == "cone":
        top = float(s[0] / 2 * b.draw("cone_top", item=item))
        m = cylinder(s[0] / 2, s[2], 32, at=(0, 0, -s[2] / 2), radius_top=top)
    elif kind == "sphere":
        m = sphere(float(s[0] / 2), segments=24)
    elif kind == "torus":
        major = float(s[0] / 2)
        m = torus(major, major * b.draw("torus_tube", item=item), 32, 12)
    else:  # a lathe of a random smooth profile
        k = LATHE_POINTS
        zs = np.linspace(0, s[2], k)
        rs = s[0] / 2 * np.array([b.draw("lathe_profile", item=item * k + j) for j in range(k)])
        m = lathe(np.concatenate([[[0, 0]], np.stack([rs, zs], 1), [[0, s[2]]]]), 32).translated([0, 0, -s[2] / 2])
    if b.draw("turned", item=item):
        axis = np.array([b.draw(f"turn_axis_{c}", item=item) for c in "xyz"])
        m = m.transformed(rotation(axis, b.draw("turn_angle", item=item)))
    return kind, m


def _anchor(b: AssetBuilder, body: Mesh, item: int) -> np.ndarray:
    """The body vertex that primitive ``item`` reaches towards (the ``anchor`` parameter)."""
    n = len(body.vertices)
    token = _VERTEX_COUNT.set(n)
    try:
        frac = b.draw("anchor", item=item)
    finally:
        _VERTEX_COUNT.reset(token)
    return body.vertices[min(round(frac * n), n - 1)]


def build_freeform(b: AssetBuilder) -> None:
    """Union a few random primitives around a base one, cut holes and slots, and maybe attach a moving part."""
    p = b.p
    scale = p["scale"]
    base_kind, body = random_primitive(b, scale, 0)
    used = [base_kind]
    for i in range(1, p["unions"] + 1):
        lo, hi = body.bounds
        kind, m = random_primitive(b, scale * b.draw("primitive_scale", item=i), i)
        anchor = _anchor(b, body, i)
        centre = (lo + hi) / 2
        body = union(body, m.translated(centre + (anchor - centre) * b.draw("reach", item=i)))
        used.append(kind)
    holes = 0
    for i in range(p["holes"]):
        lo, hi = body.bounds
        ext = hi - lo
        axis = "xyz".index(b.draw("hole_axis", item=i))
        r = float(np.min(ext) * b.draw("hole_size", item=i))
        c = lo + ext * np.array([b.draw(f"hole_{c}", item=i) for c in "xyz"])
        d = np.zeros(3)
        d[axis] = 1.0
        start = c.copy()
        start[axis] = lo[axis] - 0.01
        if b.draw("hole_shape", item=i) == "round":
            cutter = cylinder(r, float(ext[axis]) + 0.02, 24, d, start)
        else:
            half = np.full(3, r)
            half[axis] = ext[axis] / 2 + 0.01
            cutter = box(c - half, c + half)
        cut = difference(body, cutter)
        if signed_volume(cut) > 0.3 * signed_volume(body):
            body = cut
            holes += 1
    lo, hi = body.bounds
    body = body.translated([-(lo[0] + hi[0]) / 2, -(lo[1] + hi[1]) / 2, -lo[2]])
    # a plinth under the whole footprint, so that any random shape stands stably where it is put
    lo, hi = body.bounds
    pt = float(max(0.005, 0.04 * (hi[2] - lo[2])))
    body = union(body.translated([0, 0, pt * 0.5]), box([lo[0], lo[1], 0.0], [hi[0], hi[1], pt]))
    fin = b.draw("body_finish")
    root = b.add("body", body, "body", fin)
    a = b.attributes
    a.update({"primitives": used, "holes": holes, "materials": {"body": fin}, "extras": ["a flat plinth underneath"]})
    attach = p["attachment"]
    lo, hi = body.bounds
    top = float(hi[2])
    g = 0.004
    # drawn last of all, so skipping it with no attachment leaves every other draw as it was
    afin = b.draw("attachment_finish", when=attach != "none")
    if attach == "rotor":
        r = float(min(hi[0] - lo[0], hi[1] - lo[1]) * b.draw("rotor_radius"))
        h = float(scale * b.draw("rotor_height"))
        k = ROTOR_POINTS
        prof = np.stack([r * np.array([b.draw("rotor_profile", item=j) for j in range(k)]), np.linspace(0, h, k)], 1)
        rotor = lathe(np.concatenate([[[0, 0]], prof, [[0, h]]]), 32).translated([0, 0, top + g])
        b.add("rotor", rotor, "knob", afin, root, "swivel", origin=[0, 0, top + g], axis=[0, 0, 1])
        a["extras"].append("a rotor on top that spins about the vertical axis")
    elif attach == "slider":
        sx = float((hi[0] - lo[0]) * b.draw("slider_depth"))
        sy = float((hi[1] - lo[1]) * b.draw("slider_width"))
        block = box([-sx / 2, -sy / 2, top + g], [sx / 2, sy / 2, top + g + scale * 0.1])
        travel = float((hi[0] - lo[0]) * 0.25)
        b.add("slider", block, "other", afin, root, "slide", origin=[0, 0, top + g], axis=[1, 0, 0], lower=-travel,
              upper=travel)
        a["extras"].append("a block on top that slides front to back")
    elif attach == "flap":
        fx0, fx1 = float(lo[0]), float(hi[0])
        fy = float((hi[1] - lo[1]) * 0.4)
        ft = max(0.01, 0.1 * scale)  # a slab as heavy as a lid of its size: 1 cm on a small shape, 6 cm on 60 cm
        flap = box([fx0, -fy, top + g], [fx1, fy, top + g + ft])
        b.add("flap", flap, "lid", afin, root, "lid", origin=[fx0, 0, top + g], axis=[0, -1, 0],
              upper=float(np.pi / 2), physical="sheet_metal" if afin.kind in METAL_KINDS else None)  # pressed, hollow
        a["extras"].append("a flap on top hinged at the back")
    if attach != "none":
        a["materials"]["attachment"] = afin


CATEGORIES: list[Category] = [
    Category("freeform", "random CSG assembly of primitives (unions, holes, slots) with an optional moving part",
             {"scale": frange(0.08, 0.6, "size of the base primitive, m"),
              "unions": irange(1, 4, "primitives added round the base one"),
              "holes": irange(0, 2, "holes and slots tried (one that would cut away too much is skipped)"),
              "attachment": choice("none", "rotor", "slider", "flap", doc="moving part on top"),
              # per primitive: item 0 is the base primitive, items 1.. the added ones
              "primitive": choice(*PRIMITIVES, doc="kind of each primitive", draw="inline", per_item=True),
              "primitive_scale": frange(0.35, 0.8, "size of each added primitive, fraction of scale (the base "
                                        "primitive, item 0, is at full scale)", draw="inline", per_item=True),
              "primitive_depth": frange(0.5, 1.0, "each primitive's x size (diameter of a round one), fraction of "
                                        "its size", draw="inline", per_item=True),
              "primitive_width": frange(0.5, 1.0, "each primitive's y size, fraction of its size", draw="inline",
                                        per_item=True),
              "primitive_height": frange(0.5, 1.0, "each primitive's z size, fraction of its size", draw="inline",
                                         per_item=True),
              "primitive_rounding": frange(0.1, 0.3, "edge radius of a rounded box, fraction of its smallest side",
                                           draw="inline", per_item=True),
              "cone_top": frange(0.0, 0.5, "a cone's top radius, fraction of its base radius", draw="inline",
                                 per_item=True),
              "torus_tube": frange(0.15, 0.4, "a torus's tube radius, fraction of its ring radius", draw="inline",
                                   per_item=True),
              "lathe_profile": frange(0.4, 1.0, f"radius of a lathe's profile points, bottom to top, fraction of its "
                                      f"radius ({LATHE_POINTS} items per primitive: primitive i's are items "
                                      f"{LATHE_POINTS}i..{LATHE_POINTS}i+{LATHE_POINTS - 1})", draw="inline",
                                      per_item=True),
              "turned": flag(0.6, "each primitive turned about a random axis", per_item=True),
              "turn_axis_x": _Normal(-10.0, 10.0, doc="x of each turned primitive's axis (drawn from a standard "
                                     "normal; only the axis direction matters)", draw="inline", per_item=True,
                                     limits=(-10.0, 10.0)),
              "turn_axis_y": _Normal(-10.0, 10.0, doc="y of each turned primitive's axis", draw="inline",
                                     per_item=True, limits=(-10.0, 10.0)),
              "turn_axis_z": _Normal(-10.0, 10.0, doc="z of each turned primitive's axis", draw="inline",
                                     per_item=True, limits=(-10.0, 10.0)),
              "turn_angle": frange(0.0, float(np.pi), "each turned primitive's turn, rad", draw="inline",
                                   per_item=True),
              "anchor": _VertexFraction(0.0, 1.0, doc="body vertex each added primitive reaches towards, as its "
                                        "fraction through the body's vertex list", draw="inline", per_item=True),
              "reach": frange(0.6, 0.95, "how far each added primitive sits from the body's centre towards its "
                              "anchor, fraction", draw="inline", per_item=True),
              # per hole
              "hole_axis": choice("x", "y", "z", doc="axis each hole runs along", draw="inline", per_item=True),
              "hole_size": frange(0.08, 0.22, "each hole's radius (half-width of a square one), fraction of the "
                                  "body's smallest extent", draw="inline", per_item=True),
              "hole_x": frange(0.3, 0.7, "each hole's centre across the body along x, fraction", draw="inline",
                               per_item=True),
              "hole_y": frange(0.3, 0.7, "the same along y", draw="inline", per_item=True),
              "hole_z": frange(0.3, 0.7, "the same along z", draw="inline", per_item=True),
              "hole_shape": either("round", "square", doc="round hole or square slot", per_item=True),
              "body_finish": finish_param(tuple(k for k in KINDS if k != "glass"), doc="body"),
              "attachment_finish": finish_param(("plastic", "brushed_metal", "painted_metal", "wood"),
                                                doc="moving part"),
              "rotor_radius": frange(0.2, 0.45, "rotor radius, fraction of the body's smaller footprint side",
                                     draw="inline"),
              "rotor_height": frange(0.1, 0.3, "rotor height, fraction of scale", draw="inline"),
              "rotor_profile": frange(0.5, 1.0, f"radius of the rotor's {ROTOR_POINTS} profile points, bottom to top, "
                                      "fraction of its radius", draw="inline", per_item=True),
              "slider_depth": frange(0.2, 0.4, "slider x size, fraction of the body's", draw="inline"),
              "slider_width": frange(0.3, 0.6, "slider y size, fraction of the body's", draw="inline")},
             (0.02, 0.02, 0.02), (2.0, 2.0, 2.0), build_freeform, ("freeform shape", "abstract object", "shape")),
]
