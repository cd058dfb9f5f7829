"""Small shared fittings: handles, knobs, dials, push buttons, legs and feet (closed meshes, asset frame)."""

from __future__ import annotations

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.primitives import box, cylinder, lathe, union
from seed3d.typed import FloatArray

HANDLE_STYLES: tuple[str, ...] = ("bar", "knob", "pull", "tab", "arch")
LEG_STYLES: tuple[str, ...] = ("square", "round", "tapered")


def frame(normal: FloatArray, along: FloatArray) -> FloatArray:
    """3x3 rotation whose columns are (along, normal × along, normal): local +Z → ``normal``, +X → ``along``."""
    n = np.asarray(normal, np.float64)
    n = n / np.linalg.norm(n)
    a = np.asarray(along, np.float64)
    a = a - n * (a @ n)
    a = a / np.linalg.norm(a)
    return np.stack([a, np.cross(n, a), n], axis=1)


def _placed(mesh: Mesh, at: FloatArray, normal: FloatArray, along: FloatArray) -> Mesh:
    m = np.eye(4)
    m[:3, :3] = frame(normal, along)
    m[:3, 3] = at
    return mesh.transformed(m)


def handle(style: str, at: FloatArray, length: float, normal: FloatArray = (1, 0, 0),
           along: FloatArray = (0, 0, 1), scale: float = 1.0) -> Mesh:
    """A handle mounted on a surface at ``at`` (its foot lies on the surface), sticking out along ``normal``.

    ``length`` is measured along ``along`` (ignored by knobs); ``scale`` scales thickness and standoff.
    """
    s = scale
    if style == "knob":
        r_s, r_h, h = 0.007 * s, 0.016 * s, 0.03 * s
        local = lathe([(0, 0), (r_s * 1.6, 0), (r_s, 0.004 * s), (r_s, h * 0.45), (r_h, h * 0.72), (r_h * 0.9, h),
                       (0, h)], 24)
    elif style in ("bar", "arch"):
        r_b, stand = 0.0065 * s, 0.032 * s
        half = length / 2
        post_x = half - 2.2 * r_b
        parts = [cylinder(r_b * 0.85, stand + r_b * 0.5, 16, (0, 0, 1), (x, 0, 0)) for x in (-post_x, post_x)]
        if style == "bar":
            parts.append(cylinder(r_b, length, 20, (1, 0, 0), (-half, 0, stand)))
        else:  # a flat-topped arch: a rectangular rail with rounded posts
            parts.append(box([-half, -r_b, stand - r_b], [half, r_b, stand + r_b]))
        local = union(*parts)
    elif style == "pull":
        w, stand, t = 0.012 * s, 0.028 * s, 0.008 * s
        half = length / 2
        local = union(box([-half, -w / 2, 0], [-half + t * 1.5, w / 2, stand]),
                      box([half - t * 1.5, -w / 2, 0], [half, w / 2, stand]),
                      box([-half, -w / 2, stand - t], [half, w / 2, stand]))
    elif style == "tab":
        local = box([-length / 2, -0.005 * s, 0], [length / 2, 0.005 * s, 0.022 * s])
    else:
        raise ValueError(f"unknown handle style {style!r}; known: {HANDLE_STYLES}")
    return _placed(local, at, normal, along)


def handle_reach(style: str, scale: float = 1.0) -> float:
    """How far a handle of ``style`` sticks out of its surface."""
    return {"knob": 0.03, "bar": 0.0385, "arch": 0.0385, "pull": 0.028, "tab": 0.022}[style] * scale


def dial(at: FloatArray, radius: float, depth: float, normal: FloatArray = (1, 0, 0)) -> Mesh:
    """A control dial (rotates about its symmetry axis ``normal`` through ``at``); its back face is at ``at``."""
    body = lathe([(0, 0), (radius, 0), (radius, depth * 0.75), (radius * 0.82, depth), (0, depth)], 32)
    grip = box([-radius * 0.75, -radius * 0.14, depth * 0.5], [radius * 0.75, radius * 0.14, depth * 1.35])
    return _placed(union(body, grip), at, normal, (0, 0, 1) if abs(normal[2]) < 0.9 else (1, 0, 0))


def push_button(center: FloatArray, size: tuple[float, float], protrude: float, inset: float,
                round_: bool = False) -> Mesh:
    """A +X-facing push button: its front is ``protrude`` in front of the plane x = center[0], its back ``inset``
    behind it; ``size`` is (width along Y, height along Z)."""
    c = np.asarray(center, np.float64)
    x0, x1 = c[0] - inset, c[0] + protrude
    if round_:
        return cylinder(min(size) / 2, x1 - x0, 24, (1, 0, 0), (x0, c[1], c[2]))
    return box([x0, c[1] - size[0] / 2, c[2] - size[1] / 2], [x1, c[1] + size[0] / 2, c[2] + size[1] / 2])


def button_pocket(center: FloatArray, size: tuple[float, float], depth: float, clearance: float,
                  round_: bool = False) -> Mesh:
    """The recess a ``push_button`` sits in (cut it from the body); ``depth`` behind the plane x = center[0]."""
    c = np.asarray(center, np.float64)
    x0, x1 = c[0] - depth, c[0] + 0.01
    if round_:
        return cylinder(min(size) / 2 + clearance, x1 - x0, 24, (1, 0, 0), (x0, c[1], c[2]))
    hw, hh = size[0] / 2 + clearance, size[1] / 2 + clearance
    return box([x0, c[1] - hw, c[2] - hh], [x1, c[1] + hw, c[2] + hh])


def leg(style: str, top: FloatArray, height: float, thickness: float) -> Mesh:
    """A leg hanging down from the point ``top`` (centre of its top face) to ``top.z - height``."""
    t = np.asarray(top, np.float64)
    bottom = t - [0, 0, height]
    if style == "square":
        h = thickness / 2
        return box(bottom - [h, h, 0], t + [h, h, 0])
    if style == "round":
        return cylinder(thickness / 2, height, 20, (0, 0, 1), bottom)
    if style == "tapered":
        return cylinder(thickness * 0.3, height, 20, (0, 0, 1), bottom, radius_top=thickness / 2)
    raise ValueError(f"unknown leg style {style!r}; known: {LEG_STYLES}")
