"""Ten photo-like pictures of everyday objects drawn by hand with PIL.ImageDraw, not rendered by ``seed3d``.

Each picture shows one object (a mug, a cabinet, a chest of drawers, a chair, a lamp, a bottle, a fridge, a
microwave, a wardrobe, a pedal bin) front-on or in three-quarter view, shaded with a lit and a darker side and
simple gradients, in front of a busy background as a photograph has one: a patterned wallpaper or a tiled wall
above a wooden floor or table top. Each comes with its truth: the category and the movable doors, drawers and lids.

Box-like objects are drawn as projected boxes (a small orthographic camera: azimuth, elevation); round ones
(mug, lamp, bottle, bin) with ellipses and horizontal gradients. Everything is deterministic: the only random
choices (plank tones, wood grain, sensor noise) come from generators with fixed seeds.

    from drawn_objects import draw_all
    pictures = draw_all(384)   # [{"name", "image", "category", "counts", "note"}, ...]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

RGB = tuple[int, int, int]
Pt = tuple[float, float]
Stops = Sequence[tuple[float, RGB]]

SUPERSAMPLE = 2
"""Pictures are drawn at this multiple of the asked size and downsampled (antialiasing)."""
UNITS = 1000.0
"""Drawing coordinates run 0..UNITS across and down the square picture."""


def scale(c: RGB, k: float) -> RGB:
    """``c`` with every channel times ``k`` (clipped)."""
    return tuple(int(max(0, min(255, round(v * k)))) for v in c)  # type: ignore[return-value]


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` blended toward ``b`` by ``t``."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


@dataclass
class Gradient:
    """A linear gradient from p0 (t = 0) to p1 (t = 1) in drawing units, with colour stops."""

    stops: Stops
    p0: Pt
    p1: Pt


Fill = RGB | Gradient


class Canvas:
    """A square picture drawn in units 0..UNITS (supersampled), with flat or gradient fills."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.px = size * SUPERSAMPLE
        self.img = Image.new("RGB", (self.px, self.px), (128, 128, 128))
        self.draw = ImageDraw.Draw(self.img)

    def p(self, x: float, y: float) -> Pt:
        k = self.px / UNITS
        return (x * k, y * k)

    def w(self, width: float) -> int:
        return max(1, round(width * self.px / UNITS))

    def _paint(self, bbox: tuple[float, float, float, float], mask_draw: Callable[[ImageDraw.ImageDraw, Pt], None],
               fill: Fill) -> None:
        x0, y0 = max(0, math.floor(bbox[0]) - 1), max(0, math.floor(bbox[1]) - 1)
        x1, y1 = min(self.px, math.ceil(bbox[2]) + 2), min(self.px, math.ceil(bbox[3]) + 2)
        if x1 <= x0 or y1 <= y0:
            return
        mask = Image.new("L", (x1 - x0, y1 - y0), 0)
        mask_draw(ImageDraw.Draw(mask), (x0, y0))
        if isinstance(fill, Gradient):
            a, b = np.array(self.p(*fill.p0)), np.array(self.p(*fill.p1))
            yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float64)
            v = b - a
            t = ((xx - a[0]) * v[0] + (yy - a[1]) * v[1]) / max(float(v @ v), 1e-9)
            ts = [s[0] for s in fill.stops]
            arr = np.stack([np.interp(t, ts, [s[1][c] for s in fill.stops]) for c in range(3)], axis=-1)
            patch = Image.fromarray(np.clip(np.round(arr), 0, 255).astype(np.uint8), "RGB")
        else:
            patch = Image.new("RGB", (x1 - x0, y1 - y0), fill)
        self.img.paste(patch, (x0, y0), mask)

    def poly(self, pts: Sequence[Pt], fill: Fill, outline: RGB | None = None, width: float = 2.0) -> None:
        q = [self.p(*pt) for pt in pts]
        xs, ys = [a for a, _ in q], [b for _, b in q]
        self._paint((min(xs), min(ys), max(xs), max(ys)),
                    lambda d, o: d.polygon([(a - o[0], b - o[1]) for a, b in q], fill=255), fill)
        if outline is not None:
            self.draw.line(q + [q[0]], fill=outline, width=self.w(width), joint="curve")

    def rect(self, x0: float, y0: float, x1: float, y1: float, fill: Fill, outline: RGB | None = None,
             width: float = 2.0) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], fill, outline, width)

    def ellipse(self, cx: float, cy: float, rx: float, ry: float, fill: Fill, outline: RGB | None = None,
                width: float = 2.0) -> None:
        a, b = self.p(cx - rx, cy - ry), self.p(cx + rx, cy + ry)
        self._paint((a[0], a[1], b[0], b[1]),
                    lambda d, o: d.ellipse((a[0] - o[0], a[1] - o[1], b[0] - o[0], b[1] - o[1]), fill=255), fill)
        if outline is not None:
            self.draw.ellipse((a[0], a[1], b[0], b[1]), outline=outline, width=self.w(width))

    def ring(self, cx: float, cy: float, rx: float, ry: float, colour: RGB, width: float) -> None:
        a, b = self.p(cx - rx, cy - ry), self.p(cx + rx, cy + ry)
        self.draw.ellipse((a[0], a[1], b[0], b[1]), outline=colour, width=self.w(width))

    def line(self, pts: Sequence[Pt], colour: RGB, width: float = 2.0) -> None:
        self.draw.line([self.p(*pt) for pt in pts], fill=colour, width=self.w(width), joint="curve")

    def shadow(self, pts: Sequence[Pt] | None = None, ellipse: tuple[float, float, float, float] | None = None,
               strength: float = 0.5, blur: float = 12.0) -> None:
        """Darken a blurred polygon or ellipse (cx, cy, rx, ry): a soft cast shadow."""
        mask = Image.new("L", self.img.size, 0)
        d = ImageDraw.Draw(mask)
        if pts is not None:
            d.polygon([self.p(*pt) for pt in pts], fill=int(255 * strength))
        if ellipse is not None:
            cx, cy, rx, ry = ellipse
            a, b = self.p(cx - rx, cy - ry), self.p(cx + rx, cy + ry)
            d.ellipse((a[0], a[1], b[0], b[1]), fill=int(255 * strength))
        mask = mask.filter(ImageFilter.GaussianBlur(blur * self.px / UNITS))
        dark = Image.eval(self.img, lambda v: int(v * 0.25))
        self.img = Image.composite(dark, self.img, mask)
        self.draw = ImageDraw.Draw(self.img)

    def finish(self, seed: int, light: tuple[float, float] = (0.35, 0.3)) -> Image.Image:
        """Downsample; add a soft light falloff (brightest at ``light``, units / UNITS) and faint sensor noise."""
        img = self.img.resize((self.size, self.size), Image.Resampling.LANCZOS)
        arr = np.asarray(img).astype(np.float64)
        yy, xx = np.mgrid[0:self.size, 0:self.size] / self.size
        fall = 1.06 - 0.28 * np.hypot(xx - light[0], yy - light[1])
        rng = np.random.default_rng(seed)
        arr = arr * fall[..., None] + rng.normal(0.0, 2.5, arr.shape)
        return Image.fromarray(np.clip(np.round(arr), 0, 255).astype(np.uint8), "RGB")


# ----------------------------------------------------------------------------------------------- backgrounds


def wall_stripes(cv: Canvas, bottom: float, a: RGB, b: RGB, width: float, pin: RGB | None = None) -> None:
    cv.rect(0, 0, UNITS, bottom, a)
    x = 0.0
    while x < UNITS:
        cv.rect(x + width / 2, 0, x + width, bottom, b)
        if pin is not None:
            cv.line([(x + width * 0.75, 0), (x + width * 0.75, bottom)], pin, 3)
        x += width


def wall_tiles(cv: Canvas, bottom: float, tile: RGB, grout: RGB, w: float, h: float, offset: bool = False,
               seed: int = 0, vary: float = 0.04) -> None:
    """Tiles or bricks (``offset``: every other row shifted half a tile), each tile's tone varied a little."""
    rng = np.random.default_rng(seed)
    cv.rect(0, 0, UNITS, bottom, grout)
    row, y = 0, bottom
    while y > 0:
        x = -(w / 2 if offset and row % 2 else 0.0)
        while x < UNITS:
            k = 1.0 + rng.uniform(-vary, vary)
            g = Gradient([(0.0, scale(tile, k * 1.05)), (1.0, scale(tile, k * 0.93))], (x, y - h), (x + w, y))
            cv.rect(x + 3, y - h + 3, x + w - 3, y - 3, g)
            x += w
        y -= h
        row += 1


def wall_diamonds(cv: Canvas, bottom: float, a: RGB, b: RGB, size: float, line: RGB) -> None:
    cv.rect(0, 0, UNITS, bottom, a)
    row = 0
    y = 0.0
    while y < bottom + size:
        x0 = (size / 2) if row % 2 else 0.0
        x = x0 - size
        while x < UNITS + size:
            cv.poly([(x, y - size / 2), (x + size / 4, y), (x, y + size / 2), (x - size / 4, y)], b)
            x += size
        y += size / 2
        row += 1
    for k in range(-20, 40):
        x = k * size / 2
        cv.line([(x, 0), (x + bottom * 0.5, bottom)], line, 2)
    cv.rect(0, bottom, UNITS, UNITS, a)


def wall_dots(cv: Canvas, bottom: float, bg: RGB, dot: RGB, spacing: float, r: float) -> None:
    cv.rect(0, 0, UNITS, bottom, bg)
    row, y = 0, spacing / 2
    while y < bottom:
        x = spacing / 2 + (spacing / 2 if row % 2 else 0.0)
        while x < UNITS + spacing:
            cv.ellipse(x, y, r, r, dot)
            x += spacing
        y += spacing * 0.87
        row += 1


def wall_flowers(cv: Canvas, bottom: float, bg: RGB, petal: RGB, centre: RGB, spacing: float) -> None:
    cv.rect(0, 0, UNITS, bottom, bg)
    row, y = 0, spacing / 2
    while y < bottom + spacing:
        x = (spacing / 2 if row % 2 else 0.0)
        while x < UNITS + spacing:
            for k in range(6):
                ang = k * math.pi / 3
                cv.ellipse(x + math.cos(ang) * spacing * 0.12, y + math.sin(ang) * spacing * 0.12,
                           spacing * 0.09, spacing * 0.09, petal)
            cv.ellipse(x, y, spacing * 0.06, spacing * 0.06, centre)
            cv.line([(x + spacing * 0.2, y + spacing * 0.22), (x + spacing * 0.36, y + spacing * 0.3)],
                    scale(petal, 0.8), 4)
            x += spacing
        y += spacing * 0.8
        row += 1


def wall_plaid(cv: Canvas, bottom: float, bg: RGB, band: RGB, thin: RGB, spacing: float) -> None:
    cv.rect(0, 0, UNITS, bottom, bg)
    k = 0.0
    while k < UNITS + spacing:
        cv.rect(k, 0, k + spacing * 0.3, bottom, mix(bg, band, 0.45))
        cv.rect(0, k, UNITS, min(bottom, k + spacing * 0.3), mix(bg, band, 0.45))
        cv.line([(k + spacing * 0.65, 0), (k + spacing * 0.65, bottom)], thin, 3)
        if k + spacing * 0.65 < bottom:
            cv.line([(0, k + spacing * 0.65), (UNITS, k + spacing * 0.65)], thin, 3)
        k += spacing


def floor_planks(cv: Canvas, top: float, wood: RGB, seed: int, skirting: RGB | None = (236, 232, 222),
                 bottom: float = UNITS) -> None:
    """Boards running across, getting taller toward the viewer, staggered seams, grain lines; a skirting board."""
    rng = np.random.default_rng(seed)
    y, h = top, 22.0
    while y < bottom:
        y1 = min(bottom, y + h)
        x = -rng.uniform(0, 300)
        while x < UNITS:
            length = rng.uniform(260, 420)
            k = 1.0 + rng.uniform(-0.1, 0.1)
            g = Gradient([(0.0, scale(wood, k * 1.04)), (1.0, scale(wood, k * 0.9))], (0, y), (0, y1))
            cv.rect(x, y, x + length, y1, g, outline=scale(wood, 0.55), width=1.5)
            for _ in range(2):
                gy = rng.uniform(y + 3, y1 - 3)
                pts = [(xx, gy + 2.5 * math.sin(xx / rng.uniform(25, 60))) for xx in np.linspace(x + 5, x + length - 5,
                                                                                                  16)]
                cv.line(pts, scale(wood, k * 0.8), 1.2)
            x += length
        y = y1
        h *= 1.22
    if skirting is not None:
        cv.rect(0, top - 28, UNITS, top, Gradient([(0.0, skirting), (1.0, scale(skirting, 0.86))], (0, top - 28),
                                                   (0, top)))
        cv.line([(0, top - 28), (UNITS, top - 28)], scale(skirting, 0.7), 2)


def table_top(cv: Canvas, top: float, edge: float, wood: RGB, seed: int, under: RGB = (46, 40, 36)) -> None:
    """A wooden table top from the wall line ``top`` to its front edge ``edge``, its edge band, dark below."""
    floor_planks(cv, top, wood, seed, skirting=None, bottom=edge)
    cv.line([(0, top), (UNITS, top)], scale(wood, 0.5), 2.5)
    cv.rect(0, edge, UNITS, edge + 38, Gradient([(0.0, scale(wood, 0.85)), (1.0, scale(wood, 0.6))], (0, edge),
                                                 (0, edge + 38)))
    cv.line([(0, edge), (UNITS, edge)], scale(wood, 1.25), 2)
    cv.rect(0, edge + 38, UNITS, UNITS, Gradient([(0.0, scale(under, 0.6)), (1.0, under)], (0, edge + 38),
                                                  (0, UNITS)))


# ---------------------------------------------------------------------------------------------- a small camera


class Scene:
    """Orthographic projection of boxes (meters; x right, y toward the viewer, z up) onto a canvas.

    ``az`` turns the view toward the object's right side (negative: its left side), ``el`` looks down. The bounds
    fit ``height`` (units) of the picture with the lowest point at ``bottom`` and centred on ``cx``."""

    def __init__(self, cv: Canvas, bounds: tuple[float, float, float, float, float, float], az: float, el: float,
                 height: float, bottom: float, cx: float = 500.0) -> None:
        a, e = math.radians(az), math.radians(el)
        self.cv = cv
        self.d = np.array([math.sin(a) * math.cos(e), math.cos(a) * math.cos(e), math.sin(e)])
        self.r = np.array([math.cos(a), -math.sin(a), 0.0])
        self.u = np.cross(self.r, self.d)
        side = -1.0 if az >= 0 else 1.0
        light = 0.3 * side * self.r + 0.55 * self.u + 0.75 * self.d
        self.light = light / np.linalg.norm(light)
        x0, x1, y0, y1, z0, z1 = bounds
        corners = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)])
        sx, sy = corners @ self.r, -(corners @ self.u)
        self.k = height / (sy.max() - sy.min())
        self.ox = cx - self.k * (sx.max() + sx.min()) / 2
        self.oy = bottom - self.k * sy.max()

    def P(self, x: float, y: float, z: float) -> Pt:
        p = np.array([x, y, z])
        return (self.ox + self.k * float(p @ self.r), self.oy - self.k * float(p @ self.u))

    def shade(self, n: Sequence[float]) -> float:
        return 0.42 + 0.62 * max(0.0, float(np.dot(n, self.light)))

    def face(self, pts3: Sequence[tuple[float, float, float]], n: Sequence[float], colour: RGB,
             outline: float | None = 0.7, gloss: float = 0.0) -> None:
        """A flat face (corners in order) with its normal ``n``, shaded, a little lighter at its top; drawn only
        when it faces the viewer."""
        if float(np.dot(n, self.d)) <= 1e-6:
            return
        q = [self.P(*p) for p in pts3]
        c = scale(colour, self.shade(n))
        ys = [y for _, y in q]
        xs = [x for x, _ in q]
        if gloss:
            g = Gradient([(0.0, scale(c, 1.0 + gloss)), (0.5, c), (1.0, scale(c, 1.0 - gloss * 0.6))],
                         (min(xs), min(ys)), (max(xs), max(ys)))
        else:
            g = Gradient([(0.0, scale(c, 1.07)), (1.0, scale(c, 0.9))], (0, min(ys)), (0, max(ys)))
        self.cv.poly(q, g, outline=scale(c, outline) if outline else None, width=1.5)

    def box(self, x0: float, x1: float, y0: float, y1: float, z0: float, z1: float, colour: RGB,
            skip: str = "", outline: float | None = 0.7, gloss: float = 0.0) -> None:
        """The visible faces of an axis-aligned box; ``skip`` names faces not to draw (t b f k l r)."""
        faces = {
            "t": ([(x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)], (0, 0, 1)),
            "b": ([(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0)], (0, 0, -1)),
            "f": ([(x0, y1, z1), (x1, y1, z1), (x1, y1, z0), (x0, y1, z0)], (0, 1, 0)),
            "k": ([(x0, y0, z1), (x1, y0, z1), (x1, y0, z0), (x0, y0, z0)], (0, -1, 0)),
            "l": ([(x0, y0, z1), (x0, y1, z1), (x0, y1, z0), (x0, y0, z0)], (-1, 0, 0)),
            "r": ([(x1, y0, z1), (x1, y1, z1), (x1, y1, z0), (x1, y0, z0)], (1, 0, 0)),
        }
        for name, (pts, n) in faces.items():
            if name not in skip:
                self.face(pts, n, colour, outline, gloss)

    def front_rect(self, x0: float, x1: float, z0: float, z1: float, y: float, colour: RGB,
                   outline: float | None = 0.7, gloss: float = 0.0) -> None:
        self.face([(x0, y, z1), (x1, y, z1), (x1, y, z0), (x0, y, z0)], (0, 1, 0), colour, outline, gloss)

    def line(self, a: tuple[float, float, float], b: tuple[float, float, float], colour: RGB,
             width: float = 2.0) -> None:
        self.cv.line([self.P(*a), self.P(*b)], colour, width)

    def knob(self, x: float, y: float, z: float, r: float, colour: RGB) -> None:
        cx, cy = self.P(x, y, z)
        rr = r * self.k
        self.cv.ellipse(cx + rr * 0.25, cy + rr * 0.3, rr * 1.05, rr, scale(colour, 0.35))
        self.cv.ellipse(cx, cy, rr, rr, Gradient([(0.0, scale(colour, 1.45)), (0.45, colour),
                                                  (1.0, scale(colour, 0.5))], (cx - rr, cy - rr), (cx + rr, cy + rr)))

    def footprint_shadow(self, x0: float, x1: float, y0: float, y1: float, grow: float = 0.06,
                         strength: float = 0.55, blur: float = 14.0) -> None:
        pts = [self.P(x0 - grow, y0 - grow, 0), self.P(x1 + grow, y0 - grow, 0), self.P(x1 + grow, y1 + grow, 0),
               self.P(x0 - grow, y1 + grow, 0)]
        self.cv.shadow(pts=pts, strength=strength, blur=blur)

    def grain(self, x0: float, x1: float, z0: float, z1: float, y: float, colour: RGB, rng: np.random.Generator,
              lines: int = 4) -> None:
        """Faint wavy wood-grain lines across a front rectangle."""
        c = scale(colour, self.shade((0, 1, 0)) * 0.84)
        for _ in range(lines):
            zc = rng.uniform(z0 + 0.1 * (z1 - z0), z1 - 0.1 * (z1 - z0))
            amp, per, ph = rng.uniform(0.002, 0.006), rng.uniform(0.08, 0.2), rng.uniform(0, 6.3)
            pts = [self.P(float(x), y, zc + amp * math.sin(float(x) / per + ph)) for x in np.linspace(x0, x1, 24)]
            self.cv.line(pts, c, 1.2)


# ----------------------------------------------------------------------------------------------- round objects


def cylinder(cv: Canvas, cx: float, top: float, bottom: float, rx: float, ry: float, stops: Stops,
             top_fill: Fill | None = None) -> None:
    """An upright cylinder seen a little from above: side with a horizontal gradient, bottom rim curved."""
    arc = [(cx + rx * math.cos(t), bottom + ry * math.sin(t)) for t in np.linspace(0, math.pi, 40)]
    pts = [(cx - rx, top), (cx + rx, top), *arc]
    cv.poly(pts, Gradient(stops, (cx - rx, 0), (cx + rx, 0)))
    if top_fill is not None:
        cv.ellipse(cx, top, rx, ry, top_fill)


def metal_stops(base: RGB) -> list[tuple[float, RGB]]:
    return [(0.0, scale(base, 0.55)), (0.12, scale(base, 1.2)), (0.24, scale(base, 1.32)), (0.4, scale(base, 0.95)),
            (0.62, scale(base, 1.1)), (0.85, scale(base, 0.62)), (1.0, scale(base, 0.45))]


def glossy_stops(base: RGB) -> list[tuple[float, RGB]]:
    return [(0.0, scale(base, 0.7)), (0.18, scale(base, 1.15)), (0.26, mix(base, (255, 255, 255), 0.55)),
            (0.33, scale(base, 1.1)), (0.7, scale(base, 0.75)), (1.0, scale(base, 0.45))]


# -------------------------------------------------------------------------------------------------- pictures


def draw_mug(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_stripes(cv, 560, (226, 214, 186), (203, 191, 160), 70, pin=(170, 150, 120))
    table_top(cv, 560, 905, (160, 110, 70), seed=11)
    blue = (42, 88, 176)
    cx, top, bottom, rx, ry = 455.0, 380.0, 790.0, 165.0, 42.0
    cv.shadow(ellipse=(cx + 60, bottom + 8, rx + 110, ry + 12), strength=0.55, blur=12)
    # loop handle on the right, behind the body's edge
    cv.ring(cx + rx + 8, 585, 95, 125, scale(blue, 0.55), 48)
    cv.ring(cx + rx + 8, 585, 95, 125, scale(blue, 0.8), 24)
    cylinder(cv, cx, top, bottom, rx, ry, glossy_stops(blue))
    cv.ellipse(cx, top, rx, ry, Gradient([(0.0, scale(blue, 1.3)), (1.0, scale(blue, 0.9))], (cx - rx, 0),
                                         (cx + rx, 0)))
    cv.ellipse(cx, top + 3, rx - 14, ry - 9, Gradient([(0.0, scale(blue, 0.35)), (1.0, scale(blue, 0.7))],
                                                     (cx - rx, top - ry), (cx + rx, top + ry)))
    cv.poly([(cx - rx + 10, top + 150), (cx - rx + 35, top + 150), (cx - rx + 35, bottom - 40),
             (cx - rx + 10, bottom - 60)], mix(blue, (255, 255, 255), 0.4))
    return cv.finish(seed=1)


def draw_cabinet(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_tiles(cv, 700, (232, 230, 222), (170, 168, 160), 95, 95, seed=21)
    floor_planks(cv, 700, (150, 112, 78), seed=22)
    red = (182, 34, 36)
    W, D, H = 0.82, 0.55, 0.88
    s = Scene(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=30, el=16, height=560, bottom=900, cx=480)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2)
    s.box(-W / 2 + 0.03, W / 2 - 0.03, -D / 2 + 0.02, D / 2 - 0.05, 0, 0.09, (40, 20, 20))  # recessed plinth
    s.box(-W / 2, W / 2, -D / 2, D / 2, 0.09, H - 0.03, red)
    s.box(-W / 2 - 0.01, W / 2 + 0.01, -D / 2, D / 2 + 0.02, H - 0.03, H, scale(red, 1.05))  # top board
    y = D / 2
    for x0, x1 in ((-W / 2 + 0.01, -0.006), (0.006, W / 2 - 0.01)):
        s.box(x0, x1, y, y + 0.018, 0.11, H - 0.05, red)
        s.front_rect(x0 + 0.06, x1 - 0.06, 0.19, H - 0.13, y + 0.018, scale(red, 0.9))
        s.line((x0 + 0.06, y + 0.018, H - 0.13), (x1 - 0.06, y + 0.018, H - 0.13), scale(red, 0.55), 3)
        s.line((x0 + 0.06, y + 0.018, 0.19), (x1 - 0.06, y + 0.018, 0.19), scale(red, 1.3), 3)
    s.knob(-0.045, y + 0.04, H - 0.2, 0.018, (200, 196, 185))
    s.knob(0.045, y + 0.04, H - 0.2, 0.018, (200, 196, 185))
    return cv.finish(seed=2)


def draw_dresser(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_diamonds(cv, 690, (206, 214, 222), (180, 192, 206), 110, (160, 172, 190))
    floor_planks(cv, 690, (112, 96, 84), seed=31)
    oak = (196, 146, 84)
    rng = np.random.default_rng(33)
    W, D, H = 0.8, 0.46, 1.02
    s = Scene(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=-28, el=15, height=620, bottom=910, cx=500)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2)
    for lx in (-W / 2 + 0.03, W / 2 - 0.07):
        for ly in (-D / 2 + 0.03, D / 2 - 0.07):
            s.box(lx, lx + 0.04, ly, ly + 0.04, 0, 0.09, scale(oak, 0.6))
    s.box(-W / 2, W / 2, -D / 2, D / 2, 0.08, H - 0.03, oak)
    s.box(-W / 2 - 0.02, W / 2 + 0.02, -D / 2, D / 2 + 0.025, H - 0.03, H, scale(oak, 1.05))
    y = D / 2
    z_lo, z_hi, gap = 0.1, H - 0.05, 0.014
    step = (z_hi - z_lo) / 4
    for i in range(4):
        z0, z1 = z_lo + i * step + gap / 2, z_lo + (i + 1) * step - gap / 2
        s.box(-W / 2 + 0.02, W / 2 - 0.02, y, y + 0.016, z0, z1, oak)
        s.grain(-W / 2 + 0.03, W / 2 - 0.03, z0, z1, y + 0.016, oak, rng)
        zm = (z0 + z1) / 2
        brass = (70, 58, 44)
        for px in (-0.085, 0.085):
            s.box(px - 0.008, px + 0.008, y + 0.016, y + 0.04, zm - 0.008, zm + 0.008, brass, outline=None)
        s.box(-0.1, 0.1, y + 0.04, y + 0.055, zm - 0.009, zm + 0.009, brass, outline=0.5, gloss=0.4)
    return cv.finish(seed=3)


def draw_chair(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_dots(cv, 640, (236, 226, 210), (196, 120, 96), 60, 9)
    floor_planks(cv, 640, (126, 132, 138), seed=41)
    wood = (150, 96, 56)
    Wd, Dp, seat, back = 0.46, 0.44, 0.45, 0.96
    s = Scene(cv, (-Wd / 2, Wd / 2, -Dp / 2, Dp / 2, 0, back), az=32, el=14, height=640, bottom=905, cx=490)
    s.footprint_shadow(-Wd / 2, Wd / 2, -Dp / 2, Dp / 2, grow=0.02, strength=0.45)
    leg = 0.04
    xl, xr, yb, yf = -Wd / 2 + 0.01, Wd / 2 - 0.01 - leg, -Dp / 2 + 0.01, Dp / 2 - 0.01 - leg
    # back legs rise into the back posts; drawn first (the seat hides their middle)
    s.box(xl, xl + leg, yb, yb + leg, 0, back, wood)
    s.box(-Wd / 2 + 0.05, Wd / 2 - 0.05, yb + 0.005, yb + 0.03, back - 0.12, back - 0.02, wood)  # top rail
    s.box(-Wd / 2 + 0.05, Wd / 2 - 0.05, yb + 0.005, yb + 0.03, seat + 0.06, seat + 0.1, wood)  # lower rail
    for k in range(4):
        x = -Wd / 2 + 0.05 + (k + 0.5) * (Wd - 0.1) / 4
        s.box(x - 0.02, x + 0.02, yb + 0.01, yb + 0.025, seat + 0.1, back - 0.12, wood)
    s.box(xr, xr + leg, yb, yb + leg, 0, back, wood)
    s.box(xl + 0.01, xr + 0.03, yb + 0.01, yb + 0.03, 0.14, 0.17, scale(wood, 0.9))  # stretchers
    s.box(xl + 0.01, xl + 0.03, yb + 0.01, yf + 0.03, 0.14, 0.17, scale(wood, 0.9))
    s.box(xl, xl + leg, yf, yf + leg, 0, seat - 0.04, wood, skip="t")
    s.box(xr + 0.01, xr + 0.03, yb + 0.01, yf + 0.03, 0.14, 0.17, scale(wood, 0.9))
    s.box(-Wd / 2, Wd / 2, -Dp / 2, Dp / 2, seat - 0.04, seat, scale(wood, 1.08), gloss=0.15)
    s.box(xr, xr + leg, yf, yf + leg, 0, seat - 0.04, wood, skip="t")
    return cv.finish(seed=4)


def draw_lamp(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_flowers(cv, 650, (214, 222, 204), (176, 190, 160), (214, 180, 120), 100)
    table_top(cv, 650, 930, (120, 78, 48), seed=51)
    cx = 500.0
    brass = (178, 146, 86)
    cv.shadow(ellipse=(cx + 50, 855, 190, 34), strength=0.5, blur=10)
    # round base
    cylinder(cv, cx, 820, 855, 120, 26, metal_stops(brass), top_fill=Gradient(
        [(0.0, scale(brass, 1.25)), (1.0, scale(brass, 0.85))], (cx - 120, 0), (cx + 120, 0)))
    cv.ellipse(cx, 818, 30, 8, scale(brass, 0.7))
    # thin stem
    cv.rect(cx - 8, 470, cx + 8, 818, Gradient(metal_stops(brass), (cx - 8, 0), (cx + 8, 0)))
    # light under the shade
    cv.ellipse(cx, 540, 150, 30, (255, 238, 190))
    # cone-shaped fabric shade: narrow top, wide bottom, rims seen from a little above
    fabric = (232, 220, 196)
    top, bot, rt, rb = 280.0, 540.0, 95.0, 205.0
    front_top = [(cx + rt * math.cos(t), top + 16 * math.sin(t)) for t in np.linspace(math.pi, 0, 30)]
    front_bot = [(cx + rb * math.cos(t), bot + 30 * math.sin(t)) for t in np.linspace(0, math.pi, 40)]
    cv.ellipse(cx, top, rt, 16, scale(fabric, 0.55))
    cv.poly(front_top + front_bot, Gradient([(0.0, scale(fabric, 1.06)), (0.35, fabric), (0.8, scale(fabric, 0.78)),
                                             (1.0, scale(fabric, 0.68))], (cx - rb, 0), (cx + rb, 0)))
    for t in np.linspace(0.1, 0.9, 9):
        xt, xb = cx - rt + 2 * rt * t, cx - rb + 2 * rb * t
        cv.line([(xt, top + 10), (xb, bot + 22)], scale(fabric, 0.93), 1.5)
    cv.line(front_bot, scale(fabric, 0.75), 4)
    return cv.finish(seed=5)


def draw_bottle(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_tiles(cv, 620, (160, 82, 62), (206, 196, 182), 120, 48, offset=True, seed=61, vary=0.12)
    table_top(cv, 620, 930, (176, 132, 88), seed=62)
    cx = 500.0
    green = (36, 92, 44)
    bottom, shoulder, neck_lo, neck_hi, top = 880.0, 470.0, 350.0, 225.0, 180.0
    rb, rn = 66.0, 20.0
    cv.shadow(ellipse=(cx + 45, bottom + 4, rb + 70, 20), strength=0.5, blur=10)
    outline: list[Pt] = [(cx - rn, neck_hi)]
    outline += [(cx - rn - (rb - rn) * (1 - math.cos(t)) / 2, neck_lo + (shoulder - neck_lo) * t / math.pi)
                for t in np.linspace(0, math.pi, 20)]
    outline += [(cx + rb * math.cos(t), bottom + 12 * math.sin(t)) for t in np.linspace(math.pi, 0, 30)]
    outline += [(2 * cx - x, y) for x, y in reversed(outline[:21])]
    stops = [(0.0, scale(green, 0.45)), (0.15, scale(green, 1.1)), (0.22, (150, 200, 150)), (0.3, scale(green, 1.2)),
             (0.55, scale(green, 0.9)), (0.8, scale(green, 0.6)), (1.0, scale(green, 0.35))]
    cv.poly(outline, Gradient(stops, (cx - rb, 0), (cx + rb, 0)))
    # label
    lt, lb = 600.0, 780.0
    label = [(cx + (rb - 1) * math.cos(t), lt + 10 * math.sin(t)) for t in np.linspace(math.pi, 0, 30)]
    label += [(cx + (rb - 1) * math.cos(t), lb + 10 * math.sin(t)) for t in np.linspace(0, math.pi, 30)]
    paper = (236, 226, 200)
    cv.poly(label, Gradient([(0.0, scale(paper, 0.7)), (0.3, paper), (0.8, scale(paper, 0.75)),
                             (1.0, scale(paper, 0.55))], (cx - rb, 0), (cx + rb, 0)))
    cv.rect(cx - 38, 640, cx + 38, 660, (120, 30, 40))
    for k, y in enumerate((690, 712, 734)):
        cv.line([(cx - 40 + k * 6, y), (cx + 40 - k * 6, y)], (90, 80, 70), 3)
    # cap (foil capsule) over the neck top
    cap = (120, 28, 36)
    cv.rect(cx - rn - 2, top, cx + rn + 2, neck_hi + 25, Gradient(metal_stops(cap), (cx - rn, 0), (cx + rn, 0)))
    cv.ellipse(cx, top, rn + 2, 5, scale(cap, 1.2))
    cv.line([(cx - rn - 2, neck_hi + 25), (cx + rn + 2, neck_hi + 25)], scale(cap, 0.6), 3)
    cv.line([(cx - rb + 18, shoulder + 20), (cx - rb + 18, lt - 15)], (190, 225, 190), 5)
    return cv.finish(seed=6)


def draw_fridge(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_tiles(cv, 660, (208, 226, 222), (238, 240, 236), 110, 55, offset=True, seed=71, vary=0.03)
    floor_planks(cv, 660, (170, 140, 104), seed=72)
    white = (236, 237, 238)
    W, D, H = 0.7, 0.66, 1.8
    s = Scene(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=22, el=12, height=700, bottom=905, cx=480)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, strength=0.6)
    s.box(-W / 2, W / 2, -D / 2, D / 2 - 0.05, 0, H, white)
    s.box(-W / 2 + 0.01, W / 2 - 0.01, D / 2 - 0.05, D / 2 - 0.03, 0.0, 0.07, (40, 42, 46))  # base grille
    y = D / 2 - 0.05
    split = 1.2
    for z0, z1 in ((0.08, split - 0.008), (split + 0.008, H - 0.01)):
        s.box(-W / 2, W / 2, y, y + 0.05, z0, z1, white, gloss=0.06)
    s.line((-W / 2, y + 0.05, split), (W / 2, y + 0.05, split), (90, 92, 96), 4)
    steel = (190, 194, 198)
    for z0, z1 in ((split + 0.1, split + 0.42), (split - 0.5, split - 0.1)):
        x = -W / 2 + 0.06
        for zz in (z0, z1 - 0.02):
            s.box(x, x + 0.025, y + 0.05, y + 0.09, zz, zz + 0.02, steel, outline=None)
        s.box(x, x + 0.025, y + 0.09, y + 0.11, z0, z1, steel, outline=0.6, gloss=0.3)
    return cv.finish(seed=7)


def draw_microwave(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_tiles(cv, 600, (126, 164, 190), (226, 228, 226), 62, 62, seed=81, vary=0.07)
    table_top(cv, 600, 920, (196, 164, 120), seed=82, under=(70, 60, 52))
    grey = (180, 183, 188)
    W, D, H = 0.5, 0.38, 0.3
    s = Scene(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=16, el=16, height=390, bottom=835, cx=490)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.025, strength=0.6)
    s.box(-W / 2, W / 2, -D / 2, D / 2, 0.01, H, grey, gloss=0.12)
    y = D / 2
    split = -W / 2 + (W * 2 / 3)
    # door with a dark window, a slim handle at its right edge
    s.box(-W / 2 + 0.008, split - 0.004, y, y + 0.012, 0.02, H - 0.01, scale(grey, 0.95), gloss=0.15)
    s.front_rect(-W / 2 + 0.04, split - 0.06, 0.055, H - 0.05, y + 0.013, (34, 36, 40), outline=0.5)
    pa, pb = s.P(-W / 2 + 0.05, y + 0.013, H - 0.06), s.P(-W / 2 + 0.13, y + 0.013, 0.07)
    cv.line([pa, pb], (70, 74, 80), 10)
    s.box(split - 0.04, split - 0.025, y + 0.012, y + 0.035, 0.06, H - 0.06, (70, 72, 76), outline=None, gloss=0.3)
    # control panel: a display and two dials
    s.front_rect(split + 0.004, W / 2 - 0.008, 0.02, H - 0.01, y + 0.002, scale(grey, 0.82))
    s.front_rect(split + 0.03, W / 2 - 0.03, H - 0.07, H - 0.035, y + 0.004, (20, 40, 30), outline=None)
    cv.line([s.P(split + 0.045, y + 0.004, H - 0.052), s.P(split + 0.09, y + 0.004, H - 0.052)], (90, 220, 140), 4)
    xc = (split + W / 2) / 2
    for zc in (0.17, 0.08):
        s.knob(xc, y + 0.02, zc, 0.032, (150, 152, 156))
        a, b = s.P(xc, y + 0.03, zc), s.P(xc + 0.012, y + 0.03, zc + 0.025)
        cv.line([a, b], (40, 40, 44), 4)
    for fx in (-W / 2 + 0.04, W / 2 - 0.06):
        s.box(fx, fx + 0.03, y - 0.04, y - 0.01, 0.0, 0.012, (40, 40, 40), outline=None)
    return cv.finish(seed=8)


def draw_wardrobe(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_stripes(cv, 680, (226, 196, 176), (212, 178, 156), 90, pin=(150, 110, 90))
    floor_planks(cv, 680, (188, 170, 140), seed=91)
    brown = (118, 70, 40)
    rng = np.random.default_rng(93)
    W, D, H = 1.0, 0.56, 1.95
    s = Scene(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=-24, el=11, height=700, bottom=910, cx=510)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2)
    s.box(-W / 2 + 0.02, W / 2 - 0.02, -D / 2 + 0.02, D / 2 - 0.04, 0, 0.07, scale(brown, 0.6))
    s.box(-W / 2, W / 2, -D / 2, D / 2, 0.07, H - 0.05, brown)
    s.box(-W / 2 - 0.025, W / 2 + 0.025, -D / 2, D / 2 + 0.03, H - 0.05, H, scale(brown, 1.1))  # cornice
    y = D / 2
    split_z = 0.46
    metal = (196, 186, 160)
    for x0, x1 in ((-W / 2 + 0.015, -0.005), (0.005, W / 2 - 0.015)):
        s.box(x0, x1, y, y + 0.02, split_z + 0.01, H - 0.07, brown)
        s.front_rect(x0 + 0.07, x1 - 0.07, split_z + 0.1, H - 0.16, y + 0.02, scale(brown, 0.93))
        s.grain(x0 + 0.02, x1 - 0.02, split_z + 0.05, H - 0.1, y + 0.02, brown, rng, lines=9)
        s.box(x0, x1, y, y + 0.02, 0.09, split_z - 0.01, brown)  # drawer front
        s.grain(x0 + 0.02, x1 - 0.02, 0.1, split_z - 0.02, y + 0.02, brown, rng, lines=3)
        xm = (x0 + x1) / 2
        s.box(xm - 0.09, xm + 0.09, y + 0.03, y + 0.045, 0.27 - 0.01, 0.27 + 0.01, metal, gloss=0.3, outline=0.5)
        for px in (xm - 0.08, xm + 0.08):
            s.box(px - 0.007, px + 0.007, y + 0.02, y + 0.03, 0.263, 0.277, metal, outline=None)
    for hx in (-0.05, 0.035):
        s.box(hx, hx + 0.015, y + 0.035, y + 0.05, 1.0, 1.35, metal, gloss=0.3, outline=0.5)
        for pz in (1.01, 1.32):
            s.box(hx, hx + 0.015, y + 0.02, y + 0.035, pz, pz + 0.015, metal, outline=None)
    return cv.finish(seed=9)


def draw_trash_can(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_plaid(cv, 640, (222, 216, 200), (140, 150, 170), (170, 90, 80), 120)
    floor_planks(cv, 640, (146, 104, 70), seed=101)
    steel = (178, 182, 186)
    cx, top, bottom, rx, ry = 490.0, 400.0, 850.0, 155.0, 34.0
    cv.shadow(ellipse=(cx + 60, bottom + 6, rx + 110, ry + 14), strength=0.6, blur=12)
    cylinder(cv, cx, top + 15, bottom, rx, ry, metal_stops(steel))
    for k in np.linspace(-0.85, 0.85, 12):
        cv.line([(cx + k * rx, top + 40), (cx + k * rx, bottom + ry * math.sqrt(1 - k * k) - 6)],
                scale(steel, 1.04 if k < 0 else 0.9), 1)
    cylinder(cv, cx, bottom - 30, bottom, rx, ry, [(0.0, (30, 30, 32)), (0.3, (75, 75, 80)), (1.0, (22, 22, 24))])
    # pedal: a black lever sticking out of the base at the front
    cv.poly([(cx - 48, bottom + ry - 14), (cx + 48, bottom + ry - 14), (cx + 62, bottom + ry + 18),
             (cx - 62, bottom + ry + 18)], Gradient([(0.0, (82, 82, 86)), (1.0, (46, 46, 50))], (0, bottom + ry - 14),
                                                    (0, bottom + ry + 18)))
    cv.rect(cx - 62, bottom + ry + 18, cx + 62, bottom + ry + 30, (18, 18, 20))
    # lid: a band and a shallow dome, a little wider than the body
    cylinder(cv, cx, top - 10, top + 18, rx + 5, ry + 1, metal_stops(scale(steel, 1.05)))
    cv.line([(cx + (rx + 5) * math.cos(t), top + 18 + (ry + 1) * math.sin(t)) for t in np.linspace(0, math.pi, 40)],
            scale(steel, 0.4), 3)
    dome = [(cx + (rx + 5) * math.cos(t), top - 10 + (ry + 1) * math.sin(t)) for t in np.linspace(0, math.pi, 40)]
    dome += [(cx + (rx + 5) * math.cos(t), top - 10 - 40 * math.sin(t) ** 0.7) for t in np.linspace(math.pi, 0, 40)]
    cv.poly(dome, Gradient([(0.0, scale(steel, 0.8)), (0.3, scale(steel, 1.3)), (0.7, scale(steel, 0.9)),
                            (1.0, scale(steel, 0.55))], (cx - rx, top - 60), (cx + rx, top + 20)))
    return cv.finish(seed=10)


PICTURES: list[tuple[str, Callable[[int], Image.Image], str, tuple[int, int, int], str]] = [
    ("mug", draw_mug, "mug", (0, 0, 0), "a blue ceramic mug with a loop handle on a wooden table, striped wallpaper"),
    ("cabinet", draw_cabinet, "cabinet", (2, 0, 0),
     "a red two-door kitchen base cabinet with two small knobs, three-quarter view, tiled wall and wooden floor"),
    ("dresser", draw_dresser, "dresser", (0, 4, 0),
     "an oak chest of four stacked drawers with bar handles, three-quarter view, diamond wallpaper, grey floor"),
    ("chair", draw_chair, "chair", (0, 0, 0),
     "a wooden dining chair with four legs and a four-slat back, three-quarter view, dotted wallpaper"),
    ("lamp", draw_lamp, "lamp", (0, 0, 0),
     "a table lamp (round brass base, thin stem, cone fabric shade) on a wooden table, floral wallpaper"),
    ("bottle", draw_bottle, "bottle", (0, 0, 0),
     "a tall green glass wine bottle with a label and a red capsule cap on a table, brick wall"),
    ("refrigerator", draw_fridge, "refrigerator", (2, 0, 0),
     "a white fridge-freezer (freezer door on top, fridge door below, vertical bar handles), subway-tiled wall"),
    ("microwave", draw_microwave, "microwave", (1, 0, 0),
     "a grey microwave (door with a dark window on the left, display and two dials on the right) on a counter"),
    ("wardrobe", draw_wardrobe, "wardrobe", (2, 2, 0),
     "a brown wardrobe with two tall doors over two side-by-side drawers, three-quarter view, striped wallpaper"),
    ("trash_can", draw_trash_can, "trash_can", (0, 0, 1),
     "a steel pedal bin with a domed lid and a black pedal at the front, plaid wallpaper, wooden floor"),
]


def draw_all(size: int = 384) -> list[dict[str, Any]]:
    """The ten pictures at ``size`` × ``size``, each {"name", "image" (PIL RGB), "category", "counts", "note"}."""
    out = []
    for name, fn, category, (doors, drawers, lids), note in PICTURES:
        out.append({"name": name, "image": fn(size), "category": category,
                    "counts": {"doors": doors, "drawers": drawers, "lids": lids}, "note": note})
    return out


if __name__ == "__main__":
    import sys
    from pathlib import Path

    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "drawn_objects")
    folder.mkdir(parents=True, exist_ok=True)
    for pic in draw_all():
        pic["image"].save(folder / f"{pic['name']}.png")
        print(pic["name"], "->", folder / f"{pic['name']}.png")
