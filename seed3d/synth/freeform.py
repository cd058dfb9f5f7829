"""Freeform: random CSG assemblies of primitives (unions, holes, slots), so models see shapes beyond
furniture, with an optional attachment on a random joint (a spinning rotor, a sliding block or a hinged
flap) kept clear of the body over its whole range."""

from __future__ import annotations

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.core import AssetBuilder, Category, choice, frange, irange
from seed3d.synth.materials import KINDS, pick_finish
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


def random_primitive(rng: np.random.Generator, scale: float, kind: str | None = None) -> tuple[str, Mesh]:
    """A random closed primitive about the origin, roughly ``scale`` across, randomly turned."""
    kind = kind or PRIMITIVES[int(rng.integers(len(PRIMITIVES)))]
    s = scale * rng.uniform(0.5, 1.0, 3)
    if kind == "box":
        m = box(-s / 2, s / 2)
    elif kind == "rounded_box":
        m = rounded_box(-s / 2, s / 2, float(min(s) * rng.uniform(0.1, 0.3)), 3)
    elif kind == "cylinder":
        m = cylinder(s[0] / 2, s[2], 32, at=(0, 0, -s[2] / 2))
    elif kind == "cone":
        m = cylinder(s[0] / 2, s[2], 32, at=(0, 0, -s[2] / 2), radius_top=float(s[0] / 2 * rng.uniform(0, 0.5)))
    elif kind == "sphere":
        m = sphere(float(s[0] / 2), segments=24)
    elif kind == "torus":
        major = float(s[0] / 2)
        m = torus(major, major * float(rng.uniform(0.15, 0.4)), 32, 12)
    else:  # a lathe of a random smooth profile
        k = 6
        zs = np.linspace(0, s[2], k)
        rs = s[0] / 2 * (0.4 + 0.6 * rng.random(k))
        m = lathe(np.concatenate([[[0, 0]], np.stack([rs, zs], 1), [[0, s[2]]]]), 32).translated([0, 0, -s[2] / 2])
    if rng.random() < 0.6:
        axis = rng.normal(size=3)
        m = m.transformed(rotation(axis, float(rng.uniform(0, np.pi))))
    return kind, m


def build_freeform(b: AssetBuilder) -> None:
    """Union a few random primitives around a base one, cut holes and slots, and maybe attach a moving part."""
    p, rng = b.p, b.rng
    scale = p["scale"]
    base_kind, body = random_primitive(rng, scale)
    used = [base_kind]
    for _ in range(p["unions"]):
        lo, hi = body.bounds
        kind, m = random_primitive(rng, scale * float(rng.uniform(0.35, 0.8)))
        anchor = body.vertices[int(rng.integers(len(body.vertices)))]
        centre = (lo + hi) / 2
        body = union(body, m.translated(centre + (anchor - centre) * rng.uniform(0.6, 0.95)))
        used.append(kind)
    holes = 0
    for _ in range(p["holes"]):
        lo, hi = body.bounds
        ext = hi - lo
        axis = int(rng.integers(3))
        r = float(np.min(ext) * rng.uniform(0.08, 0.22))
        c = lo + ext * rng.uniform(0.3, 0.7, 3)
        d = np.zeros(3)
        d[axis] = 1.0
        start = c.copy()
        start[axis] = lo[axis] - 0.01
        if rng.random() < 0.5:
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
    fin = pick_finish(rng, tuple(k for k in KINDS if k != "glass"))
    root = b.add("body", body, "body", fin)
    a = b.attributes
    a.update({"primitives": used, "holes": holes, "materials": {"body": fin}, "extras": ["a flat plinth underneath"]})
    attach = p["attachment"]
    lo, hi = body.bounds
    top = float(hi[2])
    g = 0.004
    afin = pick_finish(rng, ("plastic", "brushed_metal", "painted_metal", "wood"))
    if attach == "rotor":
        r = float(min(hi[0] - lo[0], hi[1] - lo[1]) * rng.uniform(0.2, 0.45))
        h = float(scale * rng.uniform(0.1, 0.3))
        k = 5
        prof = np.stack([r * (0.5 + 0.5 * rng.random(k)), np.linspace(0, h, k)], 1)
        rotor = lathe(np.concatenate([[[0, 0]], prof, [[0, h]]]), 32).translated([0, 0, top + g])
        b.add("rotor", rotor, "knob", afin, root, "swivel", origin=[0, 0, top + g], axis=[0, 0, 1])
        a["extras"].append("a rotor on top that spins about the vertical axis")
    elif attach == "slider":
        sx = float((hi[0] - lo[0]) * rng.uniform(0.2, 0.4))
        sy = float((hi[1] - lo[1]) * rng.uniform(0.3, 0.6))
        block = box([-sx / 2, -sy / 2, top + g], [sx / 2, sy / 2, top + g + scale * 0.1])
        travel = float((hi[0] - lo[0]) * 0.25)
        b.add("slider", block, "other", afin, root, "slide", origin=[0, 0, top + g], axis=[1, 0, 0], lower=-travel,
              upper=travel)
        a["extras"].append("a block on top that slides front to back")
    elif attach == "flap":
        fx0, fx1 = float(lo[0]), float(hi[0])
        fy = float((hi[1] - lo[1]) * 0.4)
        flap = box([fx0, -fy, top + g], [fx1, fy, top + g + 0.01])
        b.add("flap", flap, "lid", afin, root, "lid", origin=[fx0, 0, top + g], axis=[0, -1, 0],
              upper=float(np.pi / 2))
        a["extras"].append("a flap on top hinged at the back")
    if attach != "none":
        a["materials"]["attachment"] = afin


CATEGORIES: list[Category] = [
    Category("freeform", "random CSG assembly of primitives (unions, holes, slots) with an optional moving part",
             {"scale": frange(0.08, 0.6), "unions": irange(1, 4), "holes": irange(0, 2),
              "attachment": choice("none", "rotor", "slider", "flap")},
             (0.02, 0.02, 0.02), (2.0, 2.0, 2.0), build_freeform, ("freeform shape", "abstract object", "shape")),
]
