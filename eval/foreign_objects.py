"""Six articulated objects built by hand from manifold3d primitives, not by ``seed3d.synth``: a drawer, an open laptop,
a lever, a sliding window, a press handle and a faucet, each with its truth (moving part, joint type, axis, range).

Every object is two bodies: a still one and a moving one. ``merged`` concatenates them into one mesh (what a user
hands ``seed3d articulate``), with a per-face flag of the moving part kept for scoring. The true range is measured
here, independently of seed3d: the moving part is swept from rest in both directions (0.5° or 1 mm steps) until its
boolean intersection with the still body exceeds a small volume, so the truth is the free range of this geometry.

Frames follow seed3d's: meters, +Z up, front +X, resting on z = 0.

    python eval/foreign_objects.py --out eval/foreign   # writes <name>.obj, <name>.glb and truth.json
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import manifold3d as m3d
import numpy as np

SEGMENTS = 96
"""Circle segments of every cylinder and torus (keeps the meshes in the tens of thousands of faces)."""


def box(sx: float, sy: float, sz: float, cx: float = 0.0, cy: float = 0.0, cz: float = 0.0) -> m3d.Manifold:
    """Axis-aligned box of size (sx, sy, sz) centred at (cx, cy, cz)."""
    return m3d.Manifold.cube([sx, sy, sz], center=True).translate([cx, cy, cz])


def cylinder(radius: float, length: float, axis: str = "z", centre: tuple[float, float, float] = (0, 0, 0),
             segments: int = SEGMENTS) -> m3d.Manifold:
    """Cylinder along ``axis`` (x, y or z) centred at ``centre``."""
    c = m3d.Manifold.cylinder(length, radius, radius, segments, center=True)
    if axis == "x":
        c = c.rotate([0, 90, 0])
    elif axis == "y":
        c = c.rotate([90, 0, 0])
    return c.translate(list(centre))


def rotate_about(m: m3d.Manifold, axis: np.ndarray, origin: np.ndarray, angle: float) -> m3d.Manifold:
    """``m`` turned by ``angle`` (rad) about the line through ``origin`` along unit ``axis``."""
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    r = np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k
    t = np.asarray(origin, float) - r @ np.asarray(origin, float)
    return m.transform(np.concatenate([r, t[:, None]], axis=1).tolist())


@dataclass
class ForeignObject:
    """A hand-built two-body articulated object and its truth."""

    name: str
    still: m3d.Manifold
    moving: m3d.Manifold
    joint: str
    """``revolute``, ``prismatic`` or ``continuous``."""
    axis: tuple[float, float, float]
    origin: tuple[float, float, float]
    max_travel: float
    """How far the free-range sweep looks each way (rad or m); a continuous joint is not swept."""

    def moved(self, value: float) -> m3d.Manifold:
        """The moving part at joint value ``value``."""
        axis = np.asarray(self.axis, float)
        if self.joint == "prismatic":
            return self.moving.translate((axis / np.linalg.norm(axis) * value).tolist())
        return rotate_about(self.moving, axis, np.asarray(self.origin, float), value)

    def free_range(self, tolerance: float = 2e-8) -> tuple[float, float]:
        """(lower, upper) of the collision-free sweep from rest (intersection volume ≤ ``tolerance`` m³)."""
        if self.joint == "continuous":
            return (-math.pi, math.pi)
        step = math.radians(0.5) if self.joint == "revolute" else 1e-3
        rest = (self.still ^ self.moving).volume()
        ends = []
        for sign in (-1.0, 1.0):
            value = 0.0
            while abs(value) < self.max_travel:
                nxt = value + sign * step
                if (self.still ^ self.moved(nxt)).volume() > rest + tolerance:
                    break
                value = nxt
            ends.append(value)
        return ends[0], ends[1]

    def merged(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(vertices, faces, moving flag per face) of the two bodies concatenated into one mesh."""
        out_v, out_f, flag = [], [], []
        offset = 0
        for body, moving in ((self.still, False), (self.moving, True)):
            mesh = body.to_mesh()
            v = np.asarray(mesh.vert_properties, np.float64)[:, :3]
            f = np.asarray(mesh.tri_verts, np.int64)
            out_v.append(v)
            out_f.append(f + offset)
            flag.append(np.full(len(f), moving))
            offset += len(v)
        return np.concatenate(out_v), np.concatenate(out_f), np.concatenate(flag)


def drawer() -> ForeignObject:
    """A one-drawer cabinet: carcass open at the front, a drawer (tray, front panel, bar pull) sliding out along +X."""
    w, d, h, t = 0.40, 0.40, 0.22, 0.015
    carcass = box(d, w, h, 0, 0, h / 2) - box(d, w - 2 * t, h - 2 * t, t, 0, h / 2)
    cw, ch = w - 2 * t - 0.004, h - 2 * t - 0.004  # drawer clears the cavity by 2 mm a side
    z0 = t + 0.002
    # the tray runs from the carcass's back wall to the front panel (1 mm into it, so the two are one body)
    back, fore = -d / 2 + t, d / 2 + 0.001
    tl, tc = fore - back, (fore + back) / 2
    tray = box(tl, cw, ch, tc, 0, z0 + ch / 2) - box(tl - 2 * t, cw - 2 * t, ch, tc, 0, z0 + ch / 2 + t)
    front = box(t, w - 0.004, h - 0.004, d / 2 + t / 2, 0, h / 2)
    pull = box(0.02, 0.16, 0.015, d / 2 + t + 0.01, 0, h / 2) + box(0.012, 0.012, 0.015, d / 2 + t + 0.004, -0.07,
                                                                          h / 2) \
        + box(0.012, 0.012, 0.015, d / 2 + t + 0.004, 0.07, h / 2)
    # a back stop: a rail hanging from the carcass's top into the open tray, 250 mm in front of the tray's back
    # wall, which meets it when the drawer is 250 mm out (60 % of its depth: three-quarter-extension runners)
    wall = back + t  # the inner face of the tray's back wall
    stop = 0.25
    moving = tray + front + pull
    top = h - t
    still = carcass + box(0.01, 0.02, top - (z0 + ch - 0.012), wall + stop + 0.005, 0, (top + z0 + ch - 0.012) / 2)
    return ForeignObject("drawer", still, moving, "prismatic", (1, 0, 0), (0, 0, 0), 0.4)


def laptop() -> ForeignObject:
    """An open laptop: base slab with a hinge barrel at the back, lid opened 110° about the barrel's axis (Y)."""
    bx, by, bz = 0.32, 0.22, 0.016
    base = box(bx, by, bz, 0, 0, bz / 2) - box(0.26, 0.10, 0.004, 0.03, 0, bz - 0.0015)  # keyboard well
    r = 0.006
    pivot = np.array([-bx / 2, 0.0, bz + r + 0.001])
    lid_flat = box(bx - 0.004, by, 0.007, 0.0, 0, 0)  # lid lying flat, centre at origin
    lid_closed = lid_flat.translate([0.002, 0, pivot[2] + 0.0005 - r + 0.0035 + 0.0005])
    barrel = cylinder(r, 0.2, "y", tuple(pivot))
    closed = lid_closed + box(0.012, 0.2, 0.006, -bx / 2 + 0.006, 0, pivot[2] + 0.0035) + barrel
    lid = rotate_about(closed, np.array([0, 1.0, 0]), pivot, -math.radians(110))
    return ForeignObject("laptop", base, lid, "revolute", (0, 1, 0), tuple(pivot), math.pi)


def lever() -> ForeignObject:
    """A lever in a slotted housing: a stick on a pin along Y, tilting in the slot until it meets the slot's ends."""
    hx, hy, hz, t = 0.12, 0.06, 0.05, 0.005
    housing = box(hx, hy, hz, 0, 0, hz / 2) - box(hx - 2 * t, hy - 2 * t, hz - 2 * t, 0, 0, hz / 2) \
        - box(0.08, 0.014, 0.02, 0, 0, hz)
    pivot = np.array([0.0, 0.0, 0.022])
    pin = cylinder(0.004, hy - 2 * t - 0.002, "y", tuple(pivot))
    stick = box(0.01, 0.008, 0.17, 0, 0, pivot[2] + 0.085 - 0.01)
    knob = m3d.Manifold.sphere(0.014, SEGMENTS).translate([0, 0, pivot[2] + 0.16 + 0.005])
    return ForeignObject("lever", housing, pin + stick + knob, "revolute", (0, 1, 0), tuple(pivot), math.pi / 2)


def sliding_window() -> ForeignObject:
    """A window frame with a fixed pane in its left half and a sash in the right half sliding left along Y."""
    fw, fd, fh, t = 0.80, 0.06, 0.60, 0.04
    frame = box(fd, fw, fh, 0, 0, fh / 2) - box(fd + 0.01, fw - 2 * t, fh - 2 * t, 0, 0, fh / 2)
    ow = (fw - 2 * t) / 2
    fixed = box(0.01, ow, fh - 2 * t, -0.012, -ow / 2, fh / 2)
    sash_w = ow - 0.002
    sash = box(0.012, sash_w, fh - 2 * t - 0.002, 0.012, ow - 0.001 - sash_w / 2, fh / 2) \
        - box(0.02, sash_w - 0.05, fh - 2 * t - 0.05, 0.012, ow - 0.001 - sash_w / 2, fh / 2) \
        + box(0.004, sash_w - 0.05, fh - 2 * t - 0.05, 0.012, ow - 0.001 - sash_w / 2, fh / 2)  # glass
    return ForeignObject("sliding_window", frame + fixed, sash, "prismatic", (0, 1, 0), (0, 0, 0), 0.8)


def press_handle() -> ForeignObject:
    """A press (stapler-like): a base bar with a hinge post at the back and a handle bar opened 25° that presses
    down onto an anvil and is stopped up by the post's back wall."""
    base = box(0.22, 0.05, 0.02, 0, 0, 0.01) + box(0.03, 0.05, 0.05, -0.095, 0, 0.045) \
        + box(0.0135, 0.05, 0.05, -0.11825, 0, 0.075) + box(0.02, 0.05, 0.01, -0.115, 0, 0.055)
    # the back stop: a wall behind the handle's back end (clear of it by 0.8 mm at rest), held by a bridge set into
    # the post (one body with it)
    anvil = box(0.03, 0.03, 0.006, 0.07, 0, 0.023)
    pivot = np.array([-0.095, 0.0, 0.082])
    handle_closed = box(0.209, 0.036, 0.014, -0.0045, 0, pivot[2]) + cylinder(0.008, 0.07, "y", tuple(pivot))
    handle = rotate_about(handle_closed, np.array([0, 1.0, 0]), pivot, -math.radians(25))
    return ForeignObject("press_handle", base + anvil, handle, "revolute", (0, 1, 0), tuple(pivot), math.pi)


def faucet() -> ForeignObject:
    """A faucet: round base, column, curved spout (a torus quarter) and a cross handle on the column's side that turns
    about its own axis (X) without end."""
    base = cylinder(0.035, 0.01, "z", (0, 0, 0.005))
    column = cylinder(0.016, 0.16, "z", (0, 0, 0.09))
    bend = m3d.Manifold.revolve(m3d.CrossSection.circle(0.012, SEGMENTS).translate([0.06, 0]), SEGMENTS // 2, 180)
    spout = bend.rotate([90, 0, 0]).translate([0.06, 0, 0.17])  # an arc from the column's top over to x = 0.12
    nozzle = cylinder(0.012, 0.03, "z", (0.12, 0, 0.157))
    still = base + column + spout + nozzle
    hub = cylinder(0.011, 0.024, "y", (0, -0.029, 0.08))
    cross = box(0.008, 0.008, 0.07, 0, -0.045, 0.08) + box(0.07, 0.008, 0.008, 0, -0.045, 0.08)
    moving = hub + cross
    return ForeignObject("faucet", still, moving, "continuous", (0, 1, 0), (0, -0.03, 0.08), 2 * math.pi)


OBJECTS: dict[str, Callable[[], ForeignObject]] = {
    "drawer": drawer, "laptop": laptop, "lever": lever, "sliding_window": sliding_window,
    "press_handle": press_handle, "faucet": faucet,
}


def write(out: Path, names: list[str] | None = None) -> dict[str, dict[str, object]]:
    """Write each object as OBJ (+Z up) and GLB (+Y up, glTF's convention) plus ``truth.json``; returns the truth."""
    import trimesh

    out.mkdir(parents=True, exist_ok=True)
    truth: dict[str, dict[str, object]] = {}
    for name in names or list(OBJECTS):
        obj = OBJECTS[name]()
        v, f, flag = obj.merged()
        mesh = trimesh.Trimesh(v, f, process=False)
        mesh.export(out / f"{name}.obj")
        yup = mesh.copy()
        yup.apply_transform(np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1.0]]))
        yup.export(out / f"{name}.glb")
        np.save(out / f"{name}_moving.npy", flag)
        lower, upper = obj.free_range()
        truth[name] = {"joint": obj.joint, "axis": list(obj.axis), "origin": [float(x) for x in obj.origin],
                       "lower": lower, "upper": upper, "faces": len(f), "moving_faces": int(flag.sum())}
        print(name, truth[name])
    (out / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    return truth


def main() -> None:
    """Command line: write the objects and their truth."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="eval/foreign")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    write(Path(args.out), args.names or None)


if __name__ == "__main__":
    main()
