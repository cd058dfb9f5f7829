"""Photo-like pictures of everyday objects drawn by hand with PIL.ImageDraw, not rendered by ``seed3d``: two sets.

The TEST set (``draw_all``, the original ten): a mug, a cabinet, a chest of drawers, a chair, a lamp, a bottle, a
fridge, a microwave, a wardrobe and a pedal bin, front-on or in three-quarter view (azimuth 16-32°, elevation
11-16°), shaded with a lit and a darker side and simple gradients, large in the frame, in front of a busy background
as a photograph has one: a patterned wallpaper or a tiled wall above a wooden floor or table top.

The VALIDATION set (``draw_validation``, fourteen more, for choosing thresholds; kept apart from the test set):
other objects (a nightstand, a bookshelf, a washing machine, an oven, a kettle, a toaster, a toolbox, a laptop, a
desk, a bar stool, a bucket, a safe, a dishwasher, an armchair) and other drawing choices: plain painted walls,
carpet, checkerboard and slate floors, concrete and boarded garage walls, a stone worktop, a garden, light and
dark seamless studio backdrops; dim rooms with warm or cool casts; perspective cameras as well as orthographic ones,
side views (azimuth up to 52°) and high cameras (elevation up to 36°); some objects small in the frame; four
drawn as illustrations with dark ink outlines; smoothly shaded round and rounded shapes (surfaces of revolution,
rounded extrusions, specular highlights), out-of-focus backgrounds, fabric and brushed-steel textures.

Each picture comes with its truth: the category (one of ``seed3d.synth``'s) and the movable doors, drawers and
lids, counted as ``seed3d.program.image_data.asset_labels`` counts them on the engine's own asset of that category
(an oven's or dishwasher's drop-down door is a door; a washing machine's detergent drawer is a drawer; a kettle's
and a toolbox's hinged lid is a lid; a laptop's screen is not a lid).

Box-like objects are drawn as projected boxes (a small camera: azimuth, elevation, for the validation set also a
perspective distance); round ones with ellipses and gradients (test) or shaded bands of revolution (validation).
Everything is deterministic: the only random choices (plank tones, wood grain, book sizes, textures, sensor noise)
come from generators with fixed seeds.

    from drawn_objects import draw_all, draw_validation
    pictures = draw_all(384)          # [{"name", "image", "category", "counts", "note"}, ...]
    validation = draw_validation(384)  # the same format

    python eval/drawn_objects.py FOLDER [test|validation]   # save one set's pictures as FOLDER/NAME.png
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


def _draw_set(pictures: Sequence[tuple[Any, ...]], size: int) -> list[dict[str, Any]]:
    """``pictures`` ((name, draw function, category, (doors, drawers, lids), note) rows) drawn at ``size``."""
    return [{"name": name, "image": fn(size), "category": category,
             "counts": {"doors": doors, "drawers": drawers, "lids": lids}, "note": note}
            for name, fn, category, (doors, drawers, lids), note in pictures]


def draw_all(size: int = 384) -> list[dict[str, Any]]:
    """The ten pictures at ``size`` × ``size``, each {"name", "image" (PIL RGB), "category", "counts", "note"}."""
    return _draw_set(PICTURES, size)


# ======================================================================================= the validation set
# Everything from here on is used only by the validation pictures (``draw_validation``); the ten test pictures
# above do not call it.


def noise_field(w: int, h: int, seed: int, blur: float) -> np.ndarray:
    """(h, w) smooth noise with zero mean and unit spread from a fixed-seed generator (``blur`` in pixels)."""
    rng = np.random.default_rng(seed)
    raw = np.clip(rng.normal(128.0, 40.0, (h, w)), 0, 255).astype(np.uint8)
    img = Image.fromarray(raw, "L")
    if blur > 0:
        img = img.filter(ImageFilter.GaussianBlur(blur))
    a = np.asarray(img).astype(np.float64)
    return (a - a.mean()) / max(float(a.std()), 1e-6)


def paint_field(cv: Canvas, x0: float, y0: float, x1: float, y1: float,
                fn: Callable[[np.ndarray, np.ndarray], np.ndarray], mask: Sequence[Pt] | None = None) -> None:
    """Paint a rectangle (units) with ``fn(xx, yy) -> (h, w, 3)`` colours (xx, yy in units), optionally only
    inside the polygon ``mask``."""
    a, b = cv.p(x0, y0), cv.p(x1, y1)
    px0, py0 = max(0, math.floor(a[0])), max(0, math.floor(a[1]))
    px1, py1 = min(cv.px, math.ceil(b[0])), min(cv.px, math.ceil(b[1]))
    if px1 <= px0 or py1 <= py0:
        return
    yy, xx = np.mgrid[py0:py1, px0:px1].astype(np.float64) * (UNITS / cv.px)
    arr = fn(xx, yy)
    patch = Image.fromarray(np.clip(np.round(arr), 0, 255).astype(np.uint8), "RGB")
    m = None
    if mask is not None:
        m = Image.new("L", patch.size, 0)
        ImageDraw.Draw(m).polygon([(cv.p(*q)[0] - px0, cv.p(*q)[1] - py0) for q in mask], fill=255)
    cv.img.paste(patch, (px0, py0), m)


def tone(colour: RGB, k: np.ndarray) -> np.ndarray:
    """``colour`` times the array ``k`` per pixel: (h, w, 3)."""
    return k[..., None] * np.array(colour, dtype=np.float64)


def grain_over(cv: Canvas, pts: Sequence[Pt], amount: float, seed: int, blur: float = 0.7,
               streaks: bool = False) -> None:
    """Multiply what is drawn inside the polygon ``pts`` (units) by 1 + ``amount`` × noise: a grain or fabric
    texture, or with ``streaks`` vertical brush marks (noise constant down each column)."""
    q = [cv.p(*pt) for pt in pts]
    x0, y0 = max(0, math.floor(min(a for a, _ in q))), max(0, math.floor(min(b for _, b in q)))
    x1, y1 = min(cv.px, math.ceil(max(a for a, _ in q))), min(cv.px, math.ceil(max(b for _, b in q)))
    if x1 <= x0 or y1 <= y0:
        return
    base = np.asarray(cv.img.crop((x0, y0, x1, y1))).astype(np.float64)
    if streaks:
        cols = noise_field(x1 - x0, 1, seed, 0.0)
        fine = noise_field(x1 - x0, y1 - y0, seed + 1, blur)
        k = 1 + amount * (0.8 * np.broadcast_to(cols, (y1 - y0, x1 - x0)) + 0.3 * fine)
    else:
        k = 1 + amount * noise_field(x1 - x0, y1 - y0, seed, blur)
    patch = Image.fromarray(np.clip(np.round(base * k[..., None]), 0, 255).astype(np.uint8), "RGB")
    mask = Image.new("L", patch.size, 0)
    ImageDraw.Draw(mask).polygon([(a - x0, b - y0) for a, b in q], fill=255)
    cv.img.paste(patch, (x0, y0), mask)


def smoothstep(t: np.ndarray) -> np.ndarray:
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3 - 2 * t)


def soften(cv: Canvas, radius: float) -> None:
    """Blur everything drawn so far (an out-of-focus background); ``radius`` in units."""
    cv.img = cv.img.filter(ImageFilter.GaussianBlur(radius * cv.px / UNITS))
    cv.draw = ImageDraw.Draw(cv.img)


def studio_sweep(cv: Canvas, bend: float, top: RGB, floor: RGB, spot: Pt = (500.0, 560.0), glow: float = 0.14,
                 seed: int = 0) -> None:
    """A seamless paper backdrop: ``top`` high up bending smoothly into ``floor`` round ``bend`` (no visible line),
    a soft brighter pool round ``spot``, a faint paper grain."""
    def fn(xx: np.ndarray, yy: np.ndarray) -> np.ndarray:
        t = smoothstep((yy - (bend - 230)) / 460)[..., None]
        base = np.array(top, np.float64) * (1 - t) + np.array(floor, np.float64) * t
        r = np.hypot((xx - spot[0]) / 620, (yy - spot[1]) / 430)
        k = 0.9 + glow * np.exp(-r * r * 2.2) + 0.1 * (1 - np.clip(r, 0, 1.4) / 1.4)
        return base * k[..., None] * (1 + 0.008 * noise_field(xx.shape[1], xx.shape[0], seed, 1.5))[..., None]
    paint_field(cv, 0, 0, UNITS, UNITS, fn)


def wall_painted(cv: Canvas, bottom: float, colour: RGB, light: Pt = (250.0, 150.0), reach: float = 900.0,
                 seed: int = 0, dark: float = 0.35) -> None:
    """A plain painted wall, lit from ``light`` (brightest there, darker by ``dark`` at ``reach``), faint roller
    texture."""
    def fn(xx: np.ndarray, yy: np.ndarray) -> np.ndarray:
        r = np.clip(np.hypot(xx - light[0], (yy - light[1]) * 1.3) / reach, 0, 1.5)
        k = 1.05 - dark * r ** 1.4
        k = k * (1 + 0.006 * noise_field(xx.shape[1], xx.shape[0], seed, 3.0))
        return tone(colour, k)
    paint_field(cv, 0, 0, UNITS, bottom, fn)


def skirting_board(cv: Canvas, y: float, colour: RGB, h: float = 30.0) -> None:
    cv.rect(0, y - h, UNITS, y, Gradient([(0.0, scale(colour, 1.04)), (1.0, scale(colour, 0.84))], (0, y - h),
                                          (0, y)))
    cv.line([(0, y - h), (UNITS, y - h)], scale(colour, 0.66), 2)
    cv.line([(0, y), (UNITS, y)], scale(colour, 0.5), 2)


def floor_carpet(cv: Canvas, top: float, colour: RGB, seed: int, bottom: float = UNITS, fine: float = 0.09,
                 back: float = 0.8) -> None:
    """Wall-to-wall carpet: a fine pile texture over a coarse mottle, darker toward the back (``top``)."""
    def fn(xx: np.ndarray, yy: np.ndarray) -> np.ndarray:
        h, w = xx.shape
        k = back + (1 - back) * smoothstep((yy - top) / max(bottom - top, 1))
        k = k * (1 + fine * noise_field(w, h, seed, 0.7) + 0.035 * noise_field(w, h, seed + 1, 14))
        return tone(colour, k)
    paint_field(cv, 0, top, UNITS, bottom, fn)


def floor_grid(cv: Canvas, top: float, a: RGB, b: RGB, cols: int, vp: Pt, checker: bool = True,
               grout: RGB | None = None, first: float = 40.0, grow: float = 1.25, seed: int = 0) -> None:
    """Square floor tiles in perspective (lines toward the vanishing point ``vp``): a checkerboard of ``a`` and
    ``b`` or, without ``checker``, tiles of ``a`` varied a little, ``grout`` lines between them."""
    rng = np.random.default_rng(seed)
    ys = [top]
    h = first
    while ys[-1] < UNITS:
        ys.append(ys[-1] + h)
        h *= grow
    span = UNITS * 2.2
    xb = [500 - span / 2 + span * i / cols for i in range(cols + 1)]

    def x_at(i: int, y: float) -> float:
        return vp[0] + (xb[i] - vp[0]) * (y - vp[1]) / (UNITS - vp[1])

    for r in range(len(ys) - 1):
        for i in range(cols):
            ya, yb = ys[r], ys[r + 1]
            quad = [(x_at(i, ya), ya), (x_at(i + 1, ya), ya), (x_at(i + 1, yb), yb), (x_at(i, yb), yb)]
            c = (a if (i + r) % 2 else b) if checker else scale(a, 1 + rng.uniform(-0.06, 0.06))
            k = 0.82 + 0.18 * min(1.0, (ya - top) / 400)
            cv.poly(quad, Gradient([(0.0, scale(c, k * 1.03)), (1.0, scale(c, k * 0.95))], (0, ya), (0, yb)))
    if grout is not None:
        for y in ys[1:]:
            cv.line([(0, y), (UNITS, y)], grout, 2)
        for i in range(cols + 1):
            cv.line([(x_at(i, top), top), (x_at(i, UNITS), UNITS)], grout, 2)


def floor_concrete(cv: Canvas, top: float, colour: RGB, seed: int) -> None:
    """A smooth grey concrete floor: mottled, flecked, with two saw-cut joints."""
    def fn(xx: np.ndarray, yy: np.ndarray) -> np.ndarray:
        h, w = xx.shape
        k = 0.82 + 0.2 * smoothstep((yy - top) / (UNITS - top))
        k = k * (1 + 0.05 * noise_field(w, h, seed, 18) + 0.035 * noise_field(w, h, seed + 1, 3)
                 + 0.03 * noise_field(w, h, seed + 2, 0.6))
        return tone(colour, k)
    paint_field(cv, 0, top, UNITS, UNITS, fn)
    cv.line([(0, top + 170), (UNITS, top + 150)], scale(colour, 0.62), 2.5)
    cv.line([(780, top), (960, UNITS)], scale(colour, 0.62), 2.5)


def wall_boards(cv: Canvas, bottom: float, colour: RGB, width: float, seed: int) -> None:
    """Vertical painted boards (tongue and groove): each board's tone varied a little, dark grooves."""
    rng = np.random.default_rng(seed)
    x = -width * rng.uniform(0, 1)
    while x < UNITS:
        c = scale(colour, 1 + rng.uniform(-0.04, 0.04))
        cv.rect(x, 0, x + width, bottom, Gradient([(0.0, scale(c, 1.04)), (0.85, c), (1.0, scale(c, 0.86))], (x, 0),
                                                   (x + width, 0)))
        cv.line([(x, 0), (x, bottom)], scale(colour, 0.55), 2.5)
        x += width


def counter_stone(cv: Canvas, top: float, edge: float, colour: RGB, seed: int, under: RGB = (58, 52, 48)) -> None:
    """A speckled stone worktop from the wall line ``top`` to its front edge ``edge``, its edge band, a dark
    cupboard front below."""
    def fn(xx: np.ndarray, yy: np.ndarray) -> np.ndarray:
        h, w = xx.shape
        k = 0.86 + 0.16 * smoothstep((yy - top) / (edge - top))
        speck = noise_field(w, h, seed, 0.5)
        k = k * (1 + 0.05 * noise_field(w, h, seed + 1, 10)) + 0.18 * np.clip(speck - 1.6, 0, None) \
            - 0.22 * np.clip(-speck - 1.7, 0, None)
        return tone(colour, k)
    paint_field(cv, 0, top, UNITS, edge, fn)
    cv.line([(0, top), (UNITS, top)], scale(colour, 0.55), 2.5)
    cv.rect(0, edge, UNITS, edge + 34, Gradient([(0.0, scale(colour, 1.08)), (1.0, scale(colour, 0.7))], (0, edge),
                                                 (0, edge + 34)))
    cv.rect(0, edge + 34, UNITS, UNITS, Gradient([(0.0, scale(under, 0.55)), (1.0, under)], (0, edge + 34),
                                                  (0, UNITS)))


def outdoor_garden(cv: Canvas, horizon: float, lawn_to: float, seed: int) -> None:
    """Sky, a hedge and trees along ``horizon``, a lawn down to ``lawn_to``, grey paving slabs below."""
    rng = np.random.default_rng(seed)
    cv.rect(0, 0, UNITS, horizon, Gradient([(0.0, (150, 190, 226)), (1.0, (214, 228, 236))], (0, 0), (0, horizon)))
    for _ in range(14):  # tree crowns behind the hedge
        x, r = rng.uniform(-50, 1050), rng.uniform(70, 150)
        cv.ellipse(x, horizon - r * 0.55, r, r * 0.8, scale((62, 98, 58), rng.uniform(0.8, 1.15)))
    cv.rect(0, horizon - 70, UNITS, horizon + 10, (48, 84, 44))
    for _ in range(90):  # leafy texture of the hedge
        x, y = rng.uniform(0, UNITS), rng.uniform(horizon - 80, horizon + 5)
        cv.ellipse(x, y, rng.uniform(12, 30), rng.uniform(8, 18), scale((60, 104, 52), rng.uniform(0.7, 1.3)))

    def lawn(xx: np.ndarray, yy: np.ndarray) -> np.ndarray:
        h, w = xx.shape
        k = 0.8 + 0.25 * smoothstep((yy - horizon) / (lawn_to - horizon))
        k = k * (1 + 0.12 * noise_field(w, h, seed + 1, 0.8) + 0.06 * noise_field(w, h, seed + 2, 12))
        return tone((96, 142, 66), k)
    paint_field(cv, 0, horizon + 8, UNITS, lawn_to, lawn)
    # paving: rows of slabs, staggered, bigger toward the viewer
    y, h = lawn_to, 70.0
    row = 0
    while y < UNITS:
        w = h * 2.4
        x = -(w / 2 if row % 2 else rng.uniform(0, w / 3))
        while x < UNITS:
            c = scale((168, 162, 152), rng.uniform(0.88, 1.08))
            cv.poly([(x + 3, y + 3), (x + w - 3, y + 3), (x + w - 3, y + h - 3), (x + 3, y + h - 3)],
                    Gradient([(0.0, scale(c, 0.95)), (1.0, scale(c, 1.05))], (0, y), (0, y + h)))
            x += w
        cv.line([(0, y), (UNITS, y)], (96, 92, 84), 4)
        y += h
        h *= 1.3
        row += 1

    grain_over(cv, [(0, lawn_to), (UNITS, lawn_to), (UNITS, UNITS), (0, UNITS)], 0.05, seed + 3)

def finish_photo(cv: Canvas, seed: int, light: tuple[float, float] = (0.4, 0.3), gain: float = 1.0,
                 cast: tuple[float, float, float] = (1.0, 1.0, 1.0), vignette: float = 0.28, noise: float = 2.5,
                 blur: float = 0.0) -> Image.Image:
    """Downsample; a light falloff of strength ``vignette`` (brightest at ``light``), an exposure ``gain``, a
    colour ``cast``, an optional slight lens ``blur`` (pixels) and sensor noise of spread ``noise``."""
    img = cv.img.resize((cv.size, cv.size), Image.Resampling.LANCZOS)
    if blur > 0:
        img = img.filter(ImageFilter.GaussianBlur(blur))
    arr = np.asarray(img).astype(np.float64)
    yy, xx = np.mgrid[0:cv.size, 0:cv.size] / cv.size
    fall = 1.0 + vignette * 0.2 - vignette * np.hypot(xx - light[0], yy - light[1])
    rng = np.random.default_rng(seed)
    arr = arr * fall[..., None] * gain * np.array(cast) + rng.normal(0.0, noise, arr.shape)
    return Image.fromarray(np.clip(np.round(arr), 0, 255).astype(np.uint8), "RGB")


class Camera(Scene):
    """``Scene`` with more: an optional perspective (``dist``: the camera's distance from the bounds' centre in
    multiples of their diagonal), an optional ink outline round every face (``ink``: an illustration look),
    specular highlights, and surfaces of revolution, extrusions, discs and tubes."""

    def __init__(self, cv: Canvas, bounds: tuple[float, float, float, float, float, float], az: float, el: float,
                 height: float, bottom: float, cx: float = 500.0, dist: float | None = None, ink: RGB | None = None,
                 ink_width: float = 2.5) -> None:
        super().__init__(cv, bounds, az, el, height, bottom, cx)
        self.ink, self.ink_width = ink, ink_width
        self.grain = 0.0
        """When above 0, every face drawn gets a fabric-like texture of this strength."""
        self.cam: np.ndarray | None = None
        if dist is not None:
            x0, x1, y0, y1, z0, z1 = bounds
            centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2])
            self.cam = centre + self.d * dist * float(np.linalg.norm([x1 - x0, y1 - y0, z1 - z0]))
            raw = np.array([self._raw(np.array([x, y, z], np.float64)) for x in (x0, x1) for y in (y0, y1)
                            for z in (z0, z1)])
            self.k = height / (raw[:, 1].max() - raw[:, 1].min())
            self.ox = cx - self.k * (raw[:, 0].max() + raw[:, 0].min()) / 2
            self.oy = bottom - self.k * raw[:, 1].max()

    def _raw(self, p: np.ndarray) -> tuple[float, float]:
        assert self.cam is not None
        v = p - self.cam
        z = -float(v @ self.d)
        return float(v @ self.r) / z, -float(v @ self.u) / z

    def P(self, x: float, y: float, z: float) -> Pt:
        if self.cam is None:
            return super().P(x, y, z)
        sx, sy = self._raw(np.array([x, y, z], np.float64))
        return (self.ox + self.k * sx, self.oy + self.k * sy)

    def view(self, p: Sequence[float]) -> np.ndarray:
        """The unit direction from ``p`` toward the camera."""
        if self.cam is None:
            return self.d
        v = self.cam - np.asarray(p, np.float64)
        return v / np.linalg.norm(v)

    def depth(self, p: Sequence[float]) -> float:
        """Larger is farther from the camera."""
        if self.cam is None:
            return -float(np.asarray(p, np.float64) @ self.d)
        return float(np.linalg.norm(np.asarray(p, np.float64) - self.cam))

    def visible(self, n: Sequence[float], p: Sequence[float]) -> bool:
        return float(np.dot(n, self.view(p))) > 1e-6

    def lit(self, colour: RGB, n: Sequence[float], p: Sequence[float], spec: float = 0.0, power: float = 24.0) -> RGB:
        """``colour`` shaded for the normal ``n`` at ``p``, with a specular highlight of strength ``spec``."""
        n = np.asarray(n, np.float64) / np.linalg.norm(n)
        c = scale(colour, self.shade(n))
        if spec:
            h = self.light + self.view(p)
            s = max(0.0, float(n @ (h / np.linalg.norm(h)))) ** power
            c = mix(c, (255, 255, 255), min(1.0, spec * s))
        return c

    def face(self, pts3: Sequence[tuple[float, float, float]], n: Sequence[float], colour: RGB,
             outline: float | None = 0.7, gloss: float = 0.0, spec: float = 0.0, flat: bool = False,
             ink: bool = True) -> None:
        """As ``Scene.face`` (culled by the true view direction, so also in perspective), with a highlight
        ``spec``, a flat fill with ``flat``, and the ink outline when the camera has one (and ``ink``)."""
        centre = np.mean(np.asarray(pts3, np.float64), axis=0)
        if not self.visible(n, centre):
            return
        q = [self.P(*p) for p in pts3]
        c = self.lit(colour, n, centre, spec)
        ys = [y for _, y in q]
        xs = [x for x, _ in q]
        if flat:
            g: Fill = c
        elif gloss:
            g = Gradient([(0.0, scale(c, 1.0 + gloss)), (0.5, c), (1.0, scale(c, 1.0 - gloss * 0.6))],
                         (min(xs), min(ys)), (max(xs), max(ys)))
        else:
            g = Gradient([(0.0, scale(c, 1.07)), (1.0, scale(c, 0.9))], (0, min(ys)), (0, max(ys)))
        if self.ink is not None and ink:
            self.cv.poly(q, g, outline=self.ink, width=self.ink_width)
        else:
            self.cv.poly(q, g, outline=scale(c, outline) if outline else None, width=1.5)
        if self.grain > 0:
            grain_over(self.cv, q, self.grain, seed=int(abs(q[0][0] * 7 + q[0][1] * 13)) % 100000, blur=0.8)

    def cavity(self, x0: float, x1: float, z0: float, z1: float, yb: float, yf: float, colour: RGB,
               dark: float = 0.55) -> None:
        """The inside of an open box compartment (back, floor, ceiling and side walls, whichever face the camera),
        darker than ``colour``; draw the front frame round it afterwards."""
        c = scale(colour, dark)
        self.face([(x0, yb, z1), (x1, yb, z1), (x1, yb, z0), (x0, yb, z0)], (0, 1, 0), c)
        self.face([(x0, yb, z0), (x1, yb, z0), (x1, yf, z0), (x0, yf, z0)], (0, 0, 1), c)
        self.face([(x0, yb, z1), (x1, yb, z1), (x1, yf, z1), (x0, yf, z1)], (0, 0, -1), c)
        self.face([(x0, yb, z1), (x0, yf, z1), (x0, yf, z0), (x0, yb, z0)], (1, 0, 0), c)
        self.face([(x1, yb, z1), (x1, yf, z1), (x1, yf, z0), (x1, yb, z0)], (-1, 0, 0), c)

    def ring3(self, centre: Sequence[float], e1: Sequence[float], e2: Sequence[float], r: float, n: int = 64,
              t0: float = 0.0, t1: float = 2 * math.pi) -> list[Pt]:
        """The projected points of a circle (or arc from t0 to t1) of radius ``r`` in the plane of e1, e2."""
        c, a, b = (np.asarray(v, np.float64) for v in (centre, e1, e2))
        return [self.P(*(c + r * (math.cos(t) * a + math.sin(t) * b))) for t in np.linspace(t0, t1, n)]

    def disc(self, centre: Sequence[float], e1: Sequence[float], e2: Sequence[float], r: float, colour: Fill,
             n: int = 64, outline: RGB | None = None, width: float = 2.0, spec: float = 0.0,
             always: bool = False) -> None:
        """A flat round disc in the plane of e1, e2 (normal e1 × e2), shaded when ``colour`` is a plain colour,
        drawn only when its normal faces the camera (unless ``always``)."""
        nrm = np.cross(np.asarray(e1, np.float64), np.asarray(e2, np.float64))
        if not always and not self.visible(nrm, centre):
            return
        fill = self.lit(colour, nrm, centre, spec) if isinstance(colour, tuple) else colour
        self.cv.poly(self.ring3(centre, e1, e2, r, n), fill, outline=outline, width=width)

    def tube(self, pts3: Sequence[tuple[float, float, float]], r: float, colour: RGB, shine: bool = True) -> None:
        """A round bar along the 3D polyline ``pts3``: a dark edge, the body and a thin highlight."""
        q = [self.P(*p) for p in pts3]
        w = 2 * r * self.k
        self.cv.line(q, scale(colour, 0.45) if self.ink is None else self.ink, w + (3 if self.ink else 1.5))
        self.cv.line(q, colour, w)
        if shine:
            self.cv.line([(x - w * 0.18, y - w * 0.18) for x, y in q], mix(colour, (255, 255, 255), 0.45),
                         max(1.0, w * 0.22))

    def lathe(self, x: float, y: float, prof: Sequence[tuple[float, float]], colour: RGB, segs: int = 72,
              spec: float = 0.0, power: float = 24.0, inside: RGB | None = None,
              bands: Stops | None = None, ink: bool = True, then: Callable[[], None] | None = None) -> None:
        """A surface of revolution about the vertical through (x, y): ``prof`` lists (radius, z) from bottom to
        top. Front-facing bands are drawn far to near; with ``inside`` (an open vessel) the far inner wall is drawn
        first in that colour. ``bands`` (colour stops across the object, left to right) give a metal's reflections
        instead of plain shading; ``then`` is called between the inner wall and the outside (what stands inside)."""
        ts = np.linspace(0.0, 2 * math.pi, segs + 1)
        over = (ts[1] - ts[0]) * 0.3
        quads = []
        for i in range(len(prof) - 1):
            (r0, z0), (r1, z1) = prof[i], prof[i + 1]
            for j in range(segs):
                a, b = ts[j] - over, ts[j + 1] + over
                tm = (ts[j] + ts[j + 1]) / 2
                n = np.array([math.cos(tm) * (z1 - z0), math.sin(tm) * (z1 - z0), -(r1 - r0)])
                if np.linalg.norm(n) < 1e-9:
                    continue
                n /= np.linalg.norm(n)
                pts = [(x + r0 * math.cos(a), y + r0 * math.sin(a), z0),
                       (x + r0 * math.cos(b), y + r0 * math.sin(b), z0),
                       (x + r1 * math.cos(b), y + r1 * math.sin(b), z1),
                       (x + r1 * math.cos(a), y + r1 * math.sin(a), z1)]
                centre = np.mean(np.asarray(pts), axis=0)
                quads.append((self.depth(centre), pts, n, centre))
        quads.sort(key=lambda t: -t[0])
        if inside is not None:
            for _, pts, n, centre in quads:
                if not self.visible(n, centre):
                    self.cv.poly([self.P(*p) for p in pts], self.lit(inside, -n, centre))
        if then is not None:
            then()
        for _, pts, n, centre in quads:
            if self.visible(n, centre):
                if bands is not None:
                    t = (float(n @ self.r) + 1) / 2
                    base = tuple(round(float(np.interp(t, [s[0] for s in bands], [s[1][c] for s in bands])))
                                 for c in range(3))
                    c = scale(base, 0.75 + 0.35 * self.shade(n))  # type: ignore[arg-type]
                    if spec:
                        c = mix(c, self.lit(c, n, centre, spec, power), 1.0)
                else:
                    c = self.lit(colour, n, centre, spec, power)
                self.cv.poly([self.P(*p) for p in pts], c)
        if self.ink is not None and ink:
            left, right = [], []
            for r, z in prof:
                ring = self.ring3((x, y, z), (1, 0, 0), (0, 1, 0), r, 96)
                left.append(min(ring))
                right.append(max(ring))
            self.cv.line(left, self.ink, self.ink_width)
            self.cv.line(right, self.ink, self.ink_width)
            rb, zb = prof[0]
            self.cv.line(self.front_arc(x, y, zb, rb), self.ink, self.ink_width)

    def front_arc(self, x: float, y: float, z: float, r: float) -> list[Pt]:
        """The near half of a horizontal circle (the one nearer the camera)."""
        best = max(np.linspace(0, 2 * math.pi, 73), key=lambda t: -self.depth((x + r * math.cos(t),
                                                                             y + r * math.sin(t), z)))
        return self.ring3((x, y, z), (1, 0, 0), (0, 1, 0), r, 48, best - math.pi / 2, best + math.pi / 2)

    def extrude(self, prof: Sequence[tuple[float, float]], axis: str, lo: float, hi: float, colour: RGB,
                spec: float = 0.0, cap: RGB | None = None, outline: float | None = None) -> None:
        """A prism: the convex, counter-clockwise profile ``prof`` (points (y, z) for ``axis`` "x", (x, z) for
        "y") swept from ``lo`` to ``hi`` along ``axis``. Its sides are shaded strip by strip (rounded corners in
        the profile come out smoothly shaded); ``cap`` colours the end faces (default ``colour``)."""
        def pt(a: float, b: float, c: float) -> tuple[float, float, float]:
            return (c, a, b) if axis == "x" else (a, c, b)

        def nrm(na: float, nb: float) -> tuple[float, float, float]:
            return (0.0, na, nb) if axis == "x" else (na, 0.0, nb)

        m = len(prof)
        vis = []
        for i in range(m):
            (a0, b0), (a1, b1) = prof[i], prof[(i + 1) % m]
            ln = math.hypot(a1 - a0, b1 - b0)
            n = nrm((b1 - b0) / ln, -(a1 - a0) / ln)
            pts = [pt(a0, b0, lo), pt(a1, b1, lo), pt(a1, b1, hi), pt(a0, b0, hi)]
            v = self.visible(n, np.mean(np.asarray(pts), axis=0))
            vis.append(v)
            if v:
                self.face(pts, n, colour, outline=None, spec=spec, flat=True, ink=False)
        for c in (hi, lo):
            e = 1.0 if c == hi else -1.0
            normal = (e, 0.0, 0.0) if axis == "x" else (0.0, e, 0.0)
            self.face([pt(a, b, c) for a, b in prof], normal, cap or colour, outline=outline, flat=False, spec=spec)
        if self.ink is not None:
            for i in range(m):
                if vis[i]:
                    (a0, b0), (a1, b1) = prof[i], prof[(i + 1) % m]
                    for c in (lo, hi):
                        self.cv.line([self.P(*pt(a0, b0, c)), self.P(*pt(a1, b1, c))], self.ink, self.ink_width)
                if vis[i] != vis[i - 1]:
                    a, b = prof[i]
                    self.cv.line([self.P(*pt(a, b, lo)), self.P(*pt(a, b, hi))], self.ink, self.ink_width)


def rounded_rect(a0: float, b0: float, a1: float, b1: float, r_top: float, r_bottom: float = 0.0,
                 steps: int = 6) -> list[tuple[float, float]]:
    """A counter-clockwise (in a right-handed a-b plane) rectangle with rounded corners, as a point list."""
    pts: list[tuple[float, float]] = []
    corners = [((a1 - r_bottom, b0 + r_bottom), r_bottom, -math.pi / 2), ((a1 - r_top, b1 - r_top), r_top, 0.0),
               ((a0 + r_top, b1 - r_top), r_top, math.pi / 2), ((a0 + r_bottom, b0 + r_bottom), r_bottom, math.pi)]
    for (ca, cb), r, start in corners:
        if r <= 0:
            pts.append((ca, cb))
            continue
        for t in np.linspace(start, start + math.pi / 2, steps):
            pts.append((ca + r * math.cos(t), cb + r * math.sin(t)))
    return pts


FRONT = ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0))
"""Axes of a circle in a plane facing +y (the object's front)."""
TOP = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
"""Axes of a circle in a horizontal plane facing up."""
RIGHT = ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
"""Axes of a circle in a plane facing +x (the object's right side)."""


def draw_val_nightstand(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_painted(cv, 600, (188, 198, 184), light=(170, 110), seed=201)
    floor_carpet(cv, 600, (172, 152, 128), seed=202)
    skirting_board(cv, 600, (238, 236, 228), 34)
    paint = (234, 230, 218)
    W, D, H = 0.5, 0.4, 0.6
    s = Camera(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=-36, el=22, height=540, bottom=890, cx=520)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.03, strength=0.5)
    zb, zt, t = 0.05, H - 0.022, 0.02
    x0, x1, yb, yf = -W / 2 + t, W / 2 - t, -D / 2 + 0.012, D / 2
    zf = zb + t
    zd = zb + (zt - zb) * 0.58
    s.box(-W / 2 + 0.03, W / 2 - 0.03, -D / 2 + 0.03, D / 2 - 0.03, 0, zb, scale(paint, 0.42))  # recessed plinth
    # the open shelf: its inside, two books lying on it
    s.cavity(x0, x1, zf, zd, yb, yf, paint, dark=0.52)
    s.box(x0 + 0.03, x0 + 0.27, -0.13, 0.1, zf, zf + 0.034, (46, 72, 124))
    s.box(x0 + 0.05, x0 + 0.245, -0.11, 0.08, zf + 0.034, zf + 0.058, (164, 56, 44))
    s.front_rect(x0 + 0.05, x0 + 0.245, zf + 0.034, zf + 0.058, 0.0801, (234, 226, 206), outline=None)
    # the carcass round it (everything but its front), the front as a frame round the opening
    s.box(-W / 2, W / 2, -D / 2, D / 2, zb, zt, paint, skip="f")
    for a, b, c, d in ((-W / 2, x0, zb, zt), (x1, W / 2, zb, zt), (x0, x1, zb, zf), (x0, x1, zd, zt)):
        s.front_rect(a, b, c, d, yf, paint, outline=None)
    edge = scale(paint, 0.55)
    s.line((x0, yf, zf), (x1, yf, zf), edge, 2)
    s.line((x0, yf, zd), (x1, yf, zd), edge, 2)
    s.line((x0, yf, zf), (x0, yf, zd), edge, 2)
    s.line((x1, yf, zf), (x1, yf, zd), edge, 2)
    s.line((-W / 2, yf, zb), (-W / 2, yf, zt), edge, 2)
    s.line((W / 2, yf, zb), (W / 2, yf, zt), edge, 2)
    s.box(-W / 2 - 0.012, W / 2 + 0.012, -D / 2 - 0.004, D / 2 + 0.014, zt, H, scale(paint, 1.02))  # top board
    s.box(x0 + 0.004, x1 - 0.004, yf, yf + 0.018, zd + 0.006, zt - 0.006, paint)  # the drawer front
    s.knob(0.0, yf + 0.032, (zd + zt) / 2, 0.018, (150, 104, 64))
    return finish_photo(cv, seed=201, light=(0.2, 0.15), vignette=0.35, cast=(1.04, 1.0, 0.94))


def draw_val_bookshelf(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_painted(cv, 770, (92, 76, 82), light=(700, 250), reach=800, seed=211, dark=0.55)
    floor_carpet(cv, 770, (74, 60, 52), seed=212, back=0.75)
    skirting_board(cv, 770, (150, 140, 132), 26)
    oak = (178, 134, 86)
    rng = np.random.default_rng(213)
    palette = [(142, 40, 36), (40, 64, 110), (58, 96, 70), (196, 170, 120), (92, 62, 42), (34, 34, 38),
               (176, 124, 52), (112, 42, 72), (206, 200, 188), (62, 112, 132), (150, 150, 60)]
    W, D, H = 0.86, 0.3, 1.82
    s = Camera(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=16, el=6, height=860, bottom=935, cx=470, dist=2.0)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.03, strength=0.6)
    t, zb = 0.022, 0.07
    x0, x1, yb, yf = -W / 2 + t, W / 2 - t, -D / 2 + 0.008, D / 2
    ch = (H - t - (zb + t) - 4 * t) / 5

    def standing(xa: float, xe: float, z0: float) -> float:
        x = xa
        while True:
            w = rng.uniform(0.022, 0.046)
            if x + w > xe:
                return x
            h, dep = ch * rng.uniform(0.62, 0.93), rng.uniform(0.18, 0.24)
            c = palette[int(rng.integers(len(palette)))]
            s.box(x, x + w, yb + 0.01, yb + 0.01 + dep, z0, z0 + h, c, outline=0.6)
            if rng.uniform() < 0.5:
                s.front_rect(x + 0.003, x + w - 0.003, z0 + h * 0.78, z0 + h * 0.83, yb + 0.0105 + dep,
                             mix(c, (230, 200, 120), 0.6), outline=None)
            x += w + 0.001

    def lying(xa: float, z0: float, n: int) -> None:
        z = z0
        for _ in range(n):
            th, w = rng.uniform(0.025, 0.04), rng.uniform(0.2, 0.25)
            c = palette[int(rng.integers(len(palette)))]
            s.box(xa, xa + w, yb + 0.02, yb + 0.02 + rng.uniform(0.17, 0.21), z, z + th, c, outline=0.6)
            z += th

    for k in range(5):
        z0 = zb + t + k * (ch + t)
        s.cavity(x0, x1, z0, z0 + ch, yb, yf, oak, dark=0.42)
        if k == 0:
            xe = standing(x0 + 0.01, x1 - 0.3, z0)
            lying(xe + 0.04, z0, 3)
        elif k == 1:
            standing(x0 + 0.01, x1 - 0.22, z0)
        elif k == 2:
            standing(x0 + 0.01, x1 - 0.02, z0)
        elif k == 3:
            lying(x0 + 0.01, z0, 4)
            standing(x0 + 0.3, x1 - 0.05, z0)
        else:
            standing(x0 + 0.12, x1 - 0.1, z0)
    s.box(-W / 2, W / 2, -D / 2, D / 2, 0, H, oak, skip="f")
    strips = [(-W / 2, x0, 0, H), (x1, W / 2, 0, H), (x0, x1, H - t, H), (x0, x1, zb, zb + t)]
    strips += [(x0, x1, zb + t + k * (ch + t) + ch, zb + t + (k + 1) * (ch + t)) for k in range(4)]
    for a, b, c, d in strips:
        s.front_rect(a, b, c, d, yf, oak, outline=0.75)
    s.front_rect(x0, x1, 0, zb, yf, scale(oak, 0.8))
    return finish_photo(cv, seed=211, gain=0.88, cast=(1.1, 0.98, 0.82), vignette=0.5, light=(0.62, 0.3), noise=3.5)


def draw_val_washing_machine(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_painted(cv, 640, (192, 214, 226), light=(300, 200), seed=221, dark=0.25)
    floor_grid(cv, 640, (236, 234, 228), (46, 48, 54), cols=16, vp=(500, -700), first=30, grow=1.2)
    cv.line([(0, 640), (UNITS, 640)], (90, 100, 110), 3)
    ink = (34, 34, 40)
    white = (238, 238, 236)
    W, D, H = 0.6, 0.58, 0.85
    s = Camera(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=28, el=17, height=610, bottom=905, cx=490, ink=ink,
               ink_width=2.4)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.03, strength=0.5)
    for fx in (-W / 2 + 0.03, W / 2 - 0.07):
        s.box(fx, fx + 0.04, D / 2 - 0.07, D / 2 - 0.03, 0, 0.025, (60, 60, 62))
    s.box(-W / 2, W / 2, -D / 2, D / 2, 0.025, H, white)
    y = D / 2
    zs = H - 0.16
    s.line((-W / 2, y, zs), (W / 2, y, zs), ink, 2.4)
    # detergent drawer (top left) with a finger recess
    s.box(-W / 2 + 0.02, -W / 2 + 0.21, y, y + 0.012, zs + 0.02, H - 0.025, scale(white, 0.98))
    s.front_rect(-W / 2 + 0.05, -W / 2 + 0.18, zs + 0.035, zs + 0.06, y + 0.0125, (130, 136, 142))
    # display, three buttons, the programme dial
    s.front_rect(-0.06, 0.08, H - 0.1, H - 0.05, y + 0.001, (30, 44, 52))
    s.line((-0.04, y + 0.002, H - 0.075), (0.02, y + 0.002, H - 0.075), (110, 230, 160), 4)
    for bx in (-0.05, 0.0, 0.05):
        s.front_rect(bx - 0.014, bx + 0.014, zs + 0.025, zs + 0.042, y + 0.002, (200, 202, 206))
    s.disc((0.19, y + 0.006, zs + 0.075), *FRONT, 0.046, (150, 152, 156), outline=ink, width=2)
    s.disc((0.19, y + 0.03, zs + 0.075), *FRONT, 0.044, (214, 216, 220), outline=ink, width=2)
    s.line((0.19, y + 0.031, zs + 0.075), (0.19, y + 0.031, zs + 0.112), ink, 4)
    # the round door: a chrome ring round a dark glass bowl, a handle at its right
    zc = 0.37
    s.disc((0.0, y + 0.004, zc), *FRONT, 0.235, (200, 202, 204), outline=ink, width=2)
    ring = s.ring3((0.0, y + 0.04, zc), *FRONT, 0.22, 96)
    xs, ys = [a for a, _ in ring], [b for _, b in ring]
    cv.poly(ring, Gradient(metal_stops((196, 200, 206)), (min(xs), min(ys)), (max(xs), max(ys))), outline=ink,
            width=2.4)
    glass = s.ring3((0.0, y + 0.045, zc), *FRONT, 0.165, 96)
    xs, ys = [a for a, _ in glass], [b for _, b in glass]
    cv.poly(glass, Gradient([(0.0, (96, 118, 136)), (0.45, (40, 52, 64)), (1.0, (20, 26, 32))], (min(xs), min(ys)),
                            (max(xs), max(ys))), outline=ink, width=2.4)
    cv.line(s.ring3((0.0, y + 0.03, zc), *FRONT, 0.115, 64), (70, 84, 96), 3)
    cv.line(s.ring3((0.0, y + 0.046, zc), *FRONT, 0.135, 30, 1.9, 2.9), (214, 226, 236), 5)
    s.box(0.205, 0.235, y + 0.02, y + 0.06, zc - 0.05, zc + 0.05, (190, 192, 196), gloss=0.3)
    return finish_photo(cv, seed=221, light=(0.35, 0.3), vignette=0.25)


def draw_val_oven(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_painted(cv, 560, (230, 222, 200), light=(150, 100), reach=1000, seed=231, dark=0.3)
    floor_grid(cv, 560, (92, 96, 100), (92, 96, 100), cols=7, vp=(520, -400), checker=False,
               grout=(56, 58, 62), first=60, grow=1.3, seed=232)
    steel = (198, 200, 202)
    W, D, H = 0.6, 0.6, 0.9
    s = Camera(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=-24, el=30, height=640, bottom=910, cx=500, dist=2.4)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.03, strength=0.55)
    s.box(-W / 2 + 0.01, W / 2 - 0.01, -D / 2, D / 2 - 0.03, 0, 0.08, (40, 40, 42))  # kick plinth
    s.box(-W / 2, W / 2, -D / 2, D / 2, 0.08, H, steel, gloss=0.12)
    # hob: four gas burners under cast-iron grates
    for bx in (-0.14, 0.14):
        for by in (-0.14, 0.14):
            c = (bx, by, H + 0.001)
            s.disc(c, *TOP, 0.095, (52, 52, 56))
            s.disc((bx, by, H + 0.012), *TOP, 0.06, (92, 92, 96))
            s.disc((bx, by, H + 0.02), *TOP, 0.038, (26, 26, 28))
            for ang in (0.25, 1.82, 3.39, 4.96):
                a = (bx + 0.045 * math.cos(ang), by + 0.045 * math.sin(ang), H + 0.025)
                b = (bx + 0.1 * math.cos(ang), by + 0.1 * math.sin(ang), H + 0.025)
                cv.line([s.P(*a), s.P(*b)], (20, 20, 22), 7)
    y = D / 2
    # control strip: four knobs and a clock
    s.front_rect(-W / 2 + 0.01, W / 2 - 0.01, H - 0.13, H - 0.01, y + 0.001, (44, 44, 48), gloss=0.2)
    s.front_rect(-0.045, 0.045, H - 0.09, H - 0.05, y + 0.002, (16, 20, 18), outline=None)
    cv.line([s.P(-0.03, y + 0.003, H - 0.07), s.P(0.03, y + 0.003, H - 0.07)], (240, 150, 60), 4)
    for kx in (-0.22, -0.13, 0.13, 0.22):
        s.disc((kx, y + 0.004, H - 0.07), *FRONT, 0.03, (60, 60, 64))
        s.disc((kx, y + 0.03, H - 0.07), *FRONT, 0.028, (214, 216, 218), outline=(90, 90, 94), width=1.5)
        cv.line([s.P(kx, y + 0.031, H - 0.07), s.P(kx, y + 0.031, H - 0.048)], (40, 40, 44), 4)
    # the drop-down door: black glass, a window on the oven's inside, a bar handle across its top
    s.box(-W / 2 + 0.01, W / 2 - 0.01, y, y + 0.028, 0.1, H - 0.145, steel)
    s.front_rect(-W / 2 + 0.035, W / 2 - 0.035, 0.125, H - 0.2, y + 0.029, (30, 30, 34), gloss=0.35)
    s.front_rect(-0.19, 0.19, 0.2, H - 0.3, y + 0.03, (74, 56, 40), outline=None, gloss=0.2)
    cv.poly([s.P(-0.19, y + 0.031, H - 0.3), s.P(-0.09, y + 0.031, H - 0.3), s.P(-0.19, y + 0.031, 0.36)],
            (110, 96, 84))
    for hx in (-0.22, 0.22):
        s.box(hx - 0.012, hx + 0.012, y + 0.028, y + 0.07, H - 0.185, H - 0.165, steel, outline=0.6)
    s.tube([(-0.25, y + 0.07, H - 0.175), (0.25, y + 0.07, H - 0.175)], 0.013, (214, 216, 220))
    return finish_photo(cv, seed=231, light=(0.2, 0.15), vignette=0.35, cast=(1.02, 1.0, 0.96))


def draw_val_kettle(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_painted(cv, 540, (226, 216, 196), light=(260, 120), seed=241, dark=0.3)
    # a window up on the left and a shelf on the right, out of focus
    cv.rect(30, 40, 330, 430, (150, 140, 120))
    cv.rect(45, 55, 315, 415, Gradient([(0.0, (250, 252, 255)), (1.0, (214, 228, 240))], (0, 55), (0, 415)))
    cv.rect(172, 55, 182, 415, (236, 232, 224))
    cv.rect(45, 230, 315, 240, (236, 232, 224))
    cv.rect(640, 250, 1000, 268, (150, 112, 76))
    soften(cv, 9.0)
    counter_stone(cv, 540, 905, (108, 104, 100), seed=242)
    red = (182, 34, 40)
    black = (30, 30, 32)
    s = Camera(cv, (-0.16, 0.15, -0.11, 0.11, 0, 0.26), az=-15, el=16, height=440, bottom=840, cx=470)
    cv.shadow(ellipse=(*s.P(0.03, 0.0, 0.0), 170, 36), strength=0.55, blur=12)
    # power base
    s.lathe(0, 0, [(0.098, 0.0), (0.104, 0.004), (0.104, 0.015), (0.097, 0.022)], black, spec=0.3)
    s.disc((0, 0, 0.022), *TOP, 0.097, black)
    # handle on the right (drawn first: the jug hides where it joins)
    path = [(0.07, 0.0, 0.212), (0.118, 0.0, 0.212), (0.138, 0.0, 0.192), (0.142, 0.0, 0.1), (0.128, 0.0, 0.068),
            (0.084, 0.0, 0.06)]
    s.tube(path, 0.015, (40, 40, 44))
    # jug
    prof = [(0.084, 0.024), (0.09, 0.032)] + [(0.09 - 0.016 * (t ** 1.6), 0.032 + 0.198 * t)
                                               for t in np.linspace(0.05, 1.0, 14)]
    s.lathe(0, 0, prof, red, spec=0.7, power=30)
    cv.line(s.front_arc(0, 0, 0.06, 0.0895), scale(red, 0.75), 2)
    # water window: a vertical slot on the front right
    win = []
    for t in np.linspace(0.55, 0.95, 8):
        r = 0.0905 - 0.016 * ((0.08 / 0.198) ** 1.6)
        win.append((r * math.cos(t), r * math.sin(t), 0.08))
    for t in np.linspace(0.95, 0.55, 8):
        r = 0.0905 - 0.016 * ((0.17 / 0.198) ** 1.6)
        win.append((r * math.cos(t), r * math.sin(t), 0.19))
    cv.poly([s.P(*p) for p in win], Gradient([(0.0, (150, 190, 214)), (1.0, (90, 130, 160))], s.P(0, 0, 0.19),
                                              s.P(0, 0, 0.08)), outline=(60, 40, 40), width=2)
    for z in (0.11, 0.14, 0.17):
        r = 0.0905 - 0.016 * (((z - 0.032) / 0.198) ** 1.6)
        cv.line([s.P(r * math.cos(0.7), r * math.sin(0.7), z), s.P(r * math.cos(0.8), r * math.sin(0.8), z)],
                (240, 240, 240), 2)
    # spout lip at the left, below the rim
    lip = [(-0.072, -0.024, 0.228), (-0.118, -0.006, 0.232), (-0.118, 0.006, 0.232), (-0.072, 0.024, 0.228)]
    s.face([(p[0], p[1], p[2]) for p in lip], (0.2, 0.0, 1.0), red, outline=0.6)
    s.face([(-0.072, 0.024, 0.228), (-0.118, 0.006, 0.232), (-0.078, 0.026, 0.185)], (-0.3, 1.0, 0.2), red,
           outline=0.6)
    # lid: a shallow dome with a black push button toward the handle
    s.lathe(0, 0, [(0.0745, 0.23), (0.072, 0.238), (0.05, 0.245), (0.0, 0.247)], scale(red, 0.95), spec=0.5)
    cv.line(s.front_arc(0, 0, 0.231, 0.0745), scale(red, 0.5), 3)
    s.lathe(0.045, 0, [(0.016, 0.242), (0.016, 0.252), (0.0, 0.254)], black, spec=0.4)
    return finish_photo(cv, seed=241, light=(0.3, 0.2), vignette=0.3, cast=(1.03, 1.0, 0.95))


def draw_val_toaster(size: int) -> Image.Image:
    cv = Canvas(size)
    studio_sweep(cv, 560, (208, 210, 212), (232, 232, 230), spot=(520, 640), seed=251)
    red = (188, 44, 40)
    W, D, H = 0.28, 0.16, 0.19
    s = Camera(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=46, el=26, height=420, bottom=780, cx=480)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.035, strength=0.35, blur=30)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.004, strength=0.6, blur=6)
    for fx in (-W / 2 + 0.03, W / 2 - 0.03):
        for fy in (-D / 2 + 0.025, D / 2 - 0.025):
            s.lathe(fx, fy, [(0.009, 0.0), (0.009, 0.008)], (30, 30, 30))
    s.extrude(rounded_rect(-D / 2, 0.008, D / 2, H, 0.042, 0.014), "x", -W / 2, W / 2, red, spec=0.55)
    # the chrome band along the bottom of the front
    s.front_rect(-W / 2 + 0.012, W / 2 - 0.012, 0.024, 0.036, D / 2 + 0.0005, (212, 214, 218), outline=None,
                 gloss=0.5)
    # two bread slots on top, their far walls showing
    for sy in (-0.032, 0.032):
        a0, a1, w = -0.1, 0.1, 0.0095
        s.face([(a0, sy - w, H + 0.0005), (a1, sy - w, H + 0.0005), (a1, sy + w, H + 0.0005),
                (a0, sy + w, H + 0.0005)], (0, 0, 1), (20, 18, 18), outline=None, flat=True)
        cv.poly([s.P(a0, sy - w, H), s.P(a1, sy - w, H), s.P(a1, sy - w, H - 0.02), s.P(a0, sy - w, H - 0.02)],
                scale(red, 0.45))
        cv.poly([s.P(a0, sy - w, H - 0.02), s.P(a1, sy - w, H - 0.02), s.P(a1, sy + w, H - 0.02),
                 s.P(a0, sy + w, H - 0.02)], (20, 18, 18))
        cv.line([s.P(a0, sy + w, H + 0.001), s.P(a1, sy + w, H + 0.001)], mix(red, (255, 255, 255), 0.4), 2)
    # on the right end: the lever in its groove, the browning dial and a button
    xe = W / 2 + 0.001
    s.face([(xe, -0.046, 0.16), (xe, -0.034, 0.16), (xe, -0.034, 0.05), (xe, -0.046, 0.05)], (1, 0, 0),
           (24, 22, 22), outline=None, flat=True)
    s.box(xe, xe + 0.024, -0.06, -0.02, 0.128, 0.146, (34, 34, 36), gloss=0.3)
    s.disc((xe + 0.002, 0.035, 0.085), *RIGHT, 0.024, (40, 40, 42))
    s.disc((xe + 0.016, 0.035, 0.085), *RIGHT, 0.021, (206, 208, 212), spec=0.5)
    cv.line([s.P(xe + 0.017, 0.035, 0.085), s.P(xe + 0.017, 0.035, 0.104)], (40, 40, 44), 3)
    s.box(xe, xe + 0.008, 0.022, 0.048, 0.04, 0.052, (210, 212, 216), outline=0.6)
    return finish_photo(cv, seed=251, light=(0.5, 0.45), vignette=0.15, noise=1.6)


def draw_val_toolbox(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_boards(cv, 560, (176, 194, 186), 66, seed=261)
    floor_concrete(cv, 560, (152, 150, 146), seed=262)
    cv.rect(0, 548, UNITS, 562, (120, 124, 120))
    red = (196, 40, 34)
    W, D, Hb, Hl = 0.46, 0.22, 0.16, 0.055
    s = Camera(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, Hb + Hl + 0.06), az=-32, el=30, height=480, bottom=860, cx=520)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.02, strength=0.6, blur=10)
    s.extrude(rounded_rect(-D / 2, 0.0, D / 2, Hb, 0.004, 0.01), "x", -W / 2, W / 2, red, spec=0.3)
    for z in (0.045, 0.09):  # pressed ribs along the front
        s.line((-W / 2 + 0.03, D / 2 + 0.001, z), (W / 2 - 0.03, D / 2 + 0.001, z), scale(red, 0.62), 3)
        s.line((-W / 2 + 0.03, D / 2 + 0.001, z + 0.006), (W / 2 - 0.03, D / 2 + 0.001, z + 0.006),
               mix(red, (255, 255, 255), 0.35), 2)
    s.extrude(rounded_rect(-D / 2 - 0.004, Hb + 0.004, D / 2 + 0.004, Hb + Hl, 0.026, 0.0), "x", -W / 2 - 0.004,
              W / 2 + 0.004, scale(red, 1.04), spec=0.35)
    s.line((-W / 2 - 0.004, D / 2 + 0.005, Hb + 0.003), (W / 2 + 0.004, D / 2 + 0.005, Hb + 0.003), (40, 10, 10), 3)
    s.line((-W / 2 - 0.005, -D / 2, Hb + 0.003), (-W / 2 - 0.005, D / 2 + 0.004, Hb + 0.003), (40, 10, 10), 3)
    chrome = (206, 208, 212)
    for lx in (-0.14, 0.14):  # latches over the seam
        s.box(lx - 0.022, lx + 0.022, D / 2, D / 2 + 0.012, Hb - 0.045, Hb + 0.02, chrome, gloss=0.4, outline=0.55)
        s.box(lx - 0.008, lx + 0.008, D / 2 + 0.012, D / 2 + 0.018, Hb - 0.03, Hb - 0.008, (120, 122, 126),
              outline=None)
    # carry handle on the lid: two brackets and a black arched grip
    for hx in (-0.1, 0.1):
        s.box(hx - 0.012, hx + 0.012, -0.018, 0.018, Hb + Hl - 0.002, Hb + Hl + 0.012, chrome, outline=0.55)
    arch = [(-0.1, 0.0, Hb + Hl + 0.01), (-0.095, 0.0, Hb + Hl + 0.04), (-0.075, 0.0, Hb + Hl + 0.055),
            (0.075, 0.0, Hb + Hl + 0.055), (0.095, 0.0, Hb + Hl + 0.04), (0.1, 0.0, Hb + Hl + 0.01)]
    s.tube(arch, 0.011, (36, 36, 38))
    return finish_photo(cv, seed=261, light=(0.3, 0.2), vignette=0.3, cast=(0.98, 1.0, 1.03))


def draw_val_laptop(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_painted(cv, 360, (210, 220, 232), light=(500, 80), seed=271, dark=0.2)
    desk = (226, 220, 210)
    cv.rect(0, 360, UNITS, 905, Gradient([(0.0, scale(desk, 0.84)), (1.0, scale(desk, 1.03))], (0, 360), (0, 905)))
    grain_over(cv, [(0, 360), (UNITS, 360), (UNITS, 905), (0, 905)], 0.015, seed=272, blur=1.5)
    cv.line([(0, 360), (UNITS, 360)], (150, 150, 150), 2)
    cv.rect(0, 905, UNITS, 935, Gradient([(0.0, (210, 204, 194)), (1.0, (160, 154, 146))], (0, 905), (0, 935)))
    cv.rect(0, 935, UNITS, UNITS, (58, 56, 60))
    ink = (40, 40, 46)
    silver = (200, 202, 208)
    W, D, tb, tl = 0.33, 0.23, 0.016, 0.008
    tilt = math.radians(22)
    up = np.array([0.0, -math.sin(tilt), math.cos(tilt)])
    nl = np.array([0.0, math.cos(tilt), math.sin(tilt)])
    s = Camera(cv, (-W / 2, W / 2, -D / 2 - D * math.sin(tilt) - tl, D / 2, 0, tb + D * math.cos(tilt)), az=-20,
               el=36, height=430, bottom=790, cx=500, ink=ink, ink_width=2.0)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.012, strength=0.5, blur=8)
    # the screen lid, hinged at the back edge and tilted back
    h0 = np.array([0.0, -D / 2, tb])

    def lid(u: float, v: float, w: float = 0.0) -> tuple[float, float, float]:
        p = h0 + np.array([u, 0.0, 0.0]) + v * up - w * nl
        return (float(p[0]), float(p[1]), float(p[2]))

    s.face([lid(-W / 2, D), lid(-W / 2, D, tl), lid(-W / 2, 0, tl), lid(-W / 2, 0)], (-1, 0, 0), silver)
    s.face([lid(-W / 2, D), lid(W / 2, D), lid(W / 2, D, tl), lid(-W / 2, D, tl)], tuple(up), silver)
    s.face([lid(-W / 2, D), lid(W / 2, D), lid(W / 2, 0), lid(-W / 2, 0)], tuple(nl), (26, 26, 30), gloss=0.2)
    scr = [s.P(*lid(-W / 2 + 0.012, D - 0.012, -0.0005)), s.P(*lid(W / 2 - 0.012, D - 0.012, -0.0005)),
           s.P(*lid(W / 2 - 0.012, 0.024, -0.0005)), s.P(*lid(-W / 2 + 0.012, 0.024, -0.0005))]
    cv.poly(scr, Gradient([(0.0, (60, 110, 190)), (0.55, (110, 170, 220)), (1.0, (230, 170, 120))], scr[0], scr[2]))
    wave = [s.P(*lid(-W / 2 + 0.012 + (W - 0.024) * f, 0.06 + 0.05 * math.sin(f * 5.0) * 0.5 + 0.05 * f, -0.0006))
            for f in np.linspace(0, 1, 30)]
    cv.poly(wave + [scr[2], scr[3]], (40, 80, 150))
    cv.line(scr + [scr[0]], (12, 12, 14), 2)
    # the base: keyboard well with keys, touchpad
    s.box(-W / 2, W / 2, -D / 2, D / 2, 0.0, tb, silver)
    zk = tb + 0.0003
    s.face([(-0.145, -D / 2 + 0.018, zk), (0.145, -D / 2 + 0.018, zk), (0.145, -0.01, zk), (-0.145, -0.01, zk)],
           (0, 0, 1), scale(silver, 0.86), outline=None, ink=False)
    kx = np.linspace(-0.142, 0.142, 15)
    ky = np.linspace(-D / 2 + 0.021, -0.013, 6)
    for i in range(14):
        for j in range(5):
            a, b = kx[i] + 0.0025, kx[i + 1] - 0.0025
            if j == 4 and 3 <= i <= 10:  # the space bar
                if i != 3:
                    continue
                b = kx[11] - 0.0025
            c, d = ky[j] + 0.0025, ky[j + 1] - 0.0025
            s.face([(a, c, zk + 0.0004), (b, c, zk + 0.0004), (b, d, zk + 0.0004), (a, d, zk + 0.0004)], (0, 0, 1),
                   (34, 34, 38), outline=None, flat=True, ink=False)
    s.face([(-0.055, 0.012, zk), (0.055, 0.012, zk), (0.055, 0.09, zk), (-0.055, 0.09, zk)], (0, 0, 1),
           scale(silver, 0.93), outline=0.7, ink=False)
    return finish_photo(cv, seed=271, light=(0.5, 0.2), vignette=0.22, noise=2.0)


def draw_val_desk(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_painted(cv, 560, (208, 208, 202), light=(700, 200), seed=281, dark=0.25)
    floor_carpet(cv, 560, (98, 110, 126), seed=282, fine=0.07)
    skirting_board(cv, 560, (228, 228, 222), 26)
    ink = (44, 40, 36)
    oak, white = (206, 168, 118), (238, 236, 230)
    W, D, H = 1.2, 0.6, 0.75
    s = Camera(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=-30, el=20, height=560, bottom=885, cx=505, dist=2.2,
               ink=ink, ink_width=2.2)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.02, strength=0.4, blur=16)
    tt = 0.03
    px0, px1, py0, py1 = W / 2 - 0.42, W / 2 - 0.015, -D / 2 + 0.02, D / 2 - 0.02
    # the drawer pedestal on the right: three drawers, bar handles
    s.box(px0 + 0.02, px1 - 0.02, py0 + 0.02, py1 - 0.03, 0, 0.05, scale(white, 0.45))
    s.box(px0, px1, py0, py1, 0.05, H - tt, white)
    edges = [0.055, 0.34, 0.55, H - tt - 0.005]
    for k in range(3):
        z0, z1 = edges[k] + 0.004, edges[k + 1] - 0.004
        s.box(px0 + 0.004, px1 - 0.004, py1, py1 + 0.018, z0, z1, white)
        zh = z1 - 0.05
        xm = (px0 + px1) / 2
        for hx in (xm - 0.06, xm + 0.06):
            s.box(hx - 0.006, hx + 0.006, py1 + 0.018, py1 + 0.04, zh - 0.006, zh + 0.006, (50, 50, 54))
        s.tube([(xm - 0.07, py1 + 0.04, zh), (xm + 0.07, py1 + 0.04, zh)], 0.007, (50, 50, 54))
    # the end panel on the left
    s.box(-W / 2 + 0.015, -W / 2 + 0.04, py0, py1, 0.0, H - tt, white)
    s.box(-W / 2, W / 2, -D / 2, D / 2, H - tt, H, oak)
    return finish_photo(cv, seed=281, light=(0.65, 0.25), vignette=0.3)


def draw_val_stool(size: int) -> Image.Image:
    cv = Canvas(size)
    studio_sweep(cv, 600, (44, 46, 50), (66, 66, 70), spot=(500, 760), glow=0.5, seed=291)
    wood = (214, 174, 120)
    Hs, rt, rb = 0.68, 0.115, 0.21
    s = Camera(cv, (-0.21, 0.21, -0.21, 0.21, 0, Hs), az=20, el=24, height=500, bottom=865, cx=500)
    cv.shadow(ellipse=(*s.P(0.02, -0.02, 0.0), 210, 62), strength=0.55, blur=22)
    angles = [math.radians(a) for a in (45, 135, 225, 315)]

    def leg_at(a: float, z: float) -> tuple[float, float, float]:
        r = rb + (rt - rb) * z / (Hs - 0.04)
        return (r * math.cos(a), r * math.sin(a), z)

    items = []
    for a in angles:
        items.append((s.depth(leg_at(a, 0.3)), "leg", a))
    for i, a in enumerate(angles):
        b = angles[(i + 1) % 4]
        mid = np.mean([leg_at(a, 0.24), leg_at(b, 0.24)], axis=0)
        items.append((s.depth(mid), "rung", (a, b)))
    for dep, kind, what in sorted(items, key=lambda t: -t[0]):
        near = dep < s.depth((0.0, 0.0, 0.3))
        c = wood if near else scale(wood, 0.8)
        if kind == "leg":
            for z in (0.0,):
                cv.ellipse(*s.P(*leg_at(what, z)), 7, 3, (20, 20, 22))
            s.tube([leg_at(what, 0.0), leg_at(what, Hs - 0.04)], 0.017, c)
        else:
            a, b = what
            s.tube([leg_at(a, 0.24), leg_at(b, 0.24)], 0.011, c)
    # the round seat
    s.lathe(0, 0, [(0.17, Hs - 0.045), (0.19, Hs - 0.036), (0.19, Hs - 0.01), (0.182, Hs), (0.0, Hs + 0.004)], wood,
            spec=0.25)
    return finish_photo(cv, seed=291, gain=0.98, vignette=0.45, light=(0.5, 0.55), noise=3.0)


def draw_val_bucket(size: int) -> Image.Image:
    cv = Canvas(size)
    outdoor_garden(cv, 250, 520, seed=301)
    soften(cv, 2.5)
    steel = (176, 180, 182)
    Rt, Rb, H = 0.15, 0.115, 0.27
    ze = H - 0.03
    tilt = math.radians(35)
    s = Camera(cv, (-0.17, 0.17, -0.17, 0.17, 0, ze + 0.17 * math.cos(tilt)), az=10, el=34, height=380, bottom=845,
               cx=520)
    # sun from the upper left: the shadow falls to the right
    sh = [s.P(Rb * math.cos(t), Rb * math.sin(t), 0) for t in np.linspace(-math.pi / 2, math.pi / 2, 20)]
    sh += [(x + 150, y - 40) for x, y in [s.P(Rt * math.cos(t), Rt * math.sin(t), 0)
                                          for t in np.linspace(math.pi / 2, -math.pi / 2, 20)]]
    cv.shadow(pts=sh, strength=0.55, blur=8)
    cv.shadow(ellipse=(*s.P(0, 0, 0), Rb * s.k * 1.05, Rb * s.k * 0.6), strength=0.5, blur=5)
    prof: list[tuple[float, float]] = [(Rb * 0.96, 0.0), (Rb, 0.006)]
    for z in np.linspace(0.012, H - 0.012, 44):
        r = Rb + (Rt - Rb) * z / H
        for zr in (0.06, 0.19):
            r += 0.004 * math.exp(-((z - zr) / 0.006) ** 2)
        prof.append((r, float(z)))
    prof += [(Rt + 0.002, H - 0.006), (Rt + 0.007, H - 0.002), (Rt + 0.006, H + 0.004), (Rt, H + 0.006)]

    def bail() -> None:
        re = Rt + 0.016
        pts = []
        for t in np.linspace(0, math.pi, 40):
            h = re * math.sin(t)
            pts.append((re * math.cos(t), -h * math.sin(tilt), ze + h * math.cos(tilt)))
        s.tube(pts, 0.0035, (120, 122, 126))
        grip = [p for p, t in zip(pts, np.linspace(0, math.pi, 40), strict=True) if abs(t - math.pi / 2) < 0.42]
        s.tube(grip, 0.012, (48, 48, 52))

    s.disc((0, 0, 0.008), *TOP, Rb - 0.004, (120, 124, 126))
    s.lathe(0, 0, prof, steel, segs=80, inside=(150, 154, 156), bands=metal_stops(steel), then=bail, spec=0.3)
    for side in (-1.0, 1.0):
        x = side * (Rt - 0.004)
        s.box(x - 0.012 if side < 0 else x, x if side < 0 else x + 0.012, -0.014, 0.014, ze - 0.014, ze + 0.014,
              scale(steel, 0.95), outline=0.6)
    return finish_photo(cv, seed=301, light=(0.25, 0.1), vignette=0.2, cast=(1.0, 1.0, 1.04), gain=1.03)


def draw_val_safe(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_painted(cv, 610, (132, 122, 112), light=(500, 300), reach=560, seed=311, dark=0.6)
    floor_carpet(cv, 610, (70, 64, 60), seed=312)
    skirting_board(cv, 610, (126, 120, 112), 26)
    ink = (22, 22, 24)
    green = (92, 108, 98)
    chrome = (208, 210, 214)
    W, D, H = 0.44, 0.42, 0.58
    s = Camera(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=52, el=15, height=560, bottom=880, cx=470, ink=ink,
               ink_width=1.6)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.03, strength=0.6)
    for fx in (-W / 2 + 0.02, W / 2 - 0.06):
        for fy in (-D / 2 + 0.02, D / 2 - 0.06):
            s.box(fx, fx + 0.04, fy, fy + 0.04, 0, 0.02, (30, 30, 30))
    s.box(-W / 2, W / 2, -D / 2, D / 2, 0.02, H, green, gloss=0.1)
    y = D / 2
    t = 0.035
    s.box(-W / 2 + t, W / 2 - t, y - 0.01, y + 0.006, 0.02 + t, H - t, scale(green, 1.06), gloss=0.15)
    for z0 in (0.11, H - 0.17):  # barrel hinges on the left edge
        s.lathe(-W / 2 + t - 0.004, y + 0.012, [(0.012, z0), (0.012, z0 + 0.07)], chrome, segs=32, spec=0.4, ink=False)
        s.disc((-W / 2 + t - 0.004, y + 0.012, z0 + 0.07), *TOP, 0.012, chrome)
    s.front_rect(-0.07, 0.05, H - 0.1, H - 0.075, y + 0.007, (190, 160, 90), gloss=0.4)  # name plate
    # combination dial
    xd, zd = -0.05, 0.33
    s.disc((xd, y + 0.008, zd), *FRONT, 0.062, chrome, outline=ink, width=1.6)
    s.disc((xd, y + 0.018, zd), *FRONT, 0.05, (40, 40, 42))
    s.disc((xd, y + 0.03, zd), *FRONT, 0.05, (28, 28, 30), outline=ink, width=1.6)
    for k in range(24):
        a = 2 * math.pi * k / 24
        r0 = 0.04 if k % 2 else 0.034
        cv.line([s.P(xd + r0 * math.cos(a), y + 0.031, zd + r0 * math.sin(a)),
                 s.P(xd + 0.048 * math.cos(a), y + 0.031, zd + 0.048 * math.sin(a))], (220, 220, 220), 1.5)
    s.disc((xd, y + 0.034, zd), *FRONT, 0.02, chrome, outline=ink, width=1.4)
    # three-spoke handle
    xh = 0.1
    s.disc((xh, y + 0.02, zd), *FRONT, 0.02, chrome, outline=ink, width=1.4)
    for a in (math.pi / 2, math.pi / 2 + 2 * math.pi / 3, math.pi / 2 + 4 * math.pi / 3):
        end = (xh + 0.065 * math.cos(a), y + 0.045, zd + 0.065 * math.sin(a))
        s.tube([(xh, y + 0.03, zd), end], 0.007, chrome)
        s.disc(end, *FRONT, 0.013, chrome, outline=ink, width=1.4, spec=0.5)
    return finish_photo(cv, seed=311, gain=0.92, cast=(0.96, 1.0, 1.06), vignette=0.5, light=(0.5, 0.38), noise=4.0)


def draw_val_dishwasher(size: int) -> Image.Image:
    cv = Canvas(size)
    studio_sweep(cv, 640, (226, 222, 216), (238, 234, 228), spot=(500, 500), glow=0.1, seed=321)
    steel = (190, 192, 194)
    W, D, H = 0.6, 0.6, 0.85
    s = Camera(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=-7, el=9, height=700, bottom=900, cx=500)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.04, strength=0.4, blur=26)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.004, strength=0.6, blur=6)
    s.box(-W / 2 + 0.01, W / 2 - 0.01, -D / 2, D / 2 - 0.04, 0, 0.09, (44, 44, 46))
    s.box(-W / 2, W / 2, -D / 2, D / 2, 0.09, H, (230, 230, 228))
    y = D / 2
    s.box(-W / 2 + 0.004, W / 2 - 0.004, y, y + 0.02, 0.095, H - 0.112, steel, gloss=0.1)
    door = [s.P(-W / 2 + 0.004, y + 0.02, H - 0.112), s.P(W / 2 - 0.004, y + 0.02, H - 0.112),
            s.P(W / 2 - 0.004, y + 0.02, 0.095), s.P(-W / 2 + 0.004, y + 0.02, 0.095)]
    grain_over(cv, door, 0.035, seed=322, streaks=True)
    # control strip: power button, a small display, five programme buttons
    s.box(-W / 2 + 0.004, W / 2 - 0.004, y, y + 0.02, H - 0.106, H - 0.004, scale(steel, 0.9), gloss=0.2)
    s.front_rect(-W / 2 + 0.02, W / 2 - 0.02, H - 0.09, H - 0.02, y + 0.021, (40, 42, 46), gloss=0.25)
    s.disc((-W / 2 + 0.06, y + 0.022, H - 0.055), *FRONT, 0.016, (190, 194, 198), outline=(20, 20, 20), width=1.5)
    s.front_rect(-0.12, -0.02, H - 0.072, H - 0.038, y + 0.022, (10, 14, 12), outline=None)
    cv.line([s.P(-0.1, y + 0.023, H - 0.055), s.P(-0.05, y + 0.023, H - 0.055)], (120, 220, 255), 4)
    for k in range(5):
        bx = 0.02 + k * 0.048
        s.front_rect(bx, bx + 0.03, H - 0.068, H - 0.042, y + 0.022, (150, 154, 160), outline=0.5)
    # the long bar handle near the top of the door
    for hx in (-0.2, 0.2):
        s.box(hx - 0.012, hx + 0.012, y + 0.02, y + 0.058, H - 0.175, H - 0.15, steel, outline=0.6)
    s.tube([(-0.23, y + 0.058, H - 0.162), (0.23, y + 0.058, H - 0.162)], 0.012, (214, 216, 220))
    return finish_photo(cv, seed=321, light=(0.5, 0.4), vignette=0.12, noise=1.8)


def draw_val_armchair(size: int) -> Image.Image:
    cv = Canvas(size)
    wall_painted(cv, 600, (58, 86, 74), light=(170, 150), reach=900, seed=331, dark=0.5)
    floor_carpet(cv, 600, (72, 52, 40), seed=332, fine=0.04)
    rug = [(140, 660), (880, 660), (1060, UNITS), (-60, UNITS)]
    cv.poly(rug, (150, 46, 42))
    cv.poly([(175, 675), (845, 675), (1010, UNITS), (-10, UNITS)], (206, 188, 150))
    cv.poly([(215, 695), (805, 695), (950, UNITS), (50, UNITS)], Gradient([(0.0, (184, 160, 124)),
                                                                            (1.0, (214, 196, 160))], (0, 695),
                                                                           (0, UNITS)))
    grain_over(cv, rug, 0.07, seed=333, blur=0.6)
    skirting_board(cv, 600, (204, 198, 184), 30)
    fabric = (200, 150, 62)
    walnut = (84, 56, 36)
    W, D, H = 0.86, 0.82, 0.9
    sh, ch, aw, ah, bt, lh = 0.44, 0.13, 0.15, 0.62, 0.18, 0.1
    s = Camera(cv, (-W / 2, W / 2, -D / 2, D / 2, 0, H), az=32, el=17, height=620, bottom=900, cx=470)
    s.footprint_shadow(-W / 2, W / 2, -D / 2, D / 2, grow=0.04, strength=0.55)
    legs = [(x, y) for x in (-W / 2 + 0.03, W / 2 - 0.07) for y in (-D / 2 + 0.03, D / 2 - 0.07)]
    for lx, ly in sorted(legs, key=lambda p: -s.depth((p[0], p[1], 0.05))):
        s.box(lx, lx + 0.04, ly, ly + 0.04, 0, lh, walnut)
    s.grain = 0.06
    s.extrude(rounded_rect(-W / 2, lh, -W / 2 + aw, ah, 0.05), "y", -D / 2, D / 2, fabric)  # far arm
    s.extrude(rounded_rect(-D / 2, lh, -D / 2 + bt, H, 0.06), "x", -W / 2 + aw, W / 2 - aw, fabric)  # back
    s.box(-W / 2 + aw, W / 2 - aw, -D / 2 + bt, D / 2, lh, sh - ch, scale(fabric, 0.95), outline=0.8)
    s.extrude(rounded_rect(-D / 2 + bt + 0.004, sh - ch, D / 2 + 0.012, sh, 0.045, 0.02), "x", -W / 2 + aw + 0.004,
              W / 2 - aw - 0.004, scale(fabric, 1.04), outline=0.8)
    s.extrude(rounded_rect(W / 2 - aw, lh, W / 2, ah, 0.05), "y", -D / 2, D / 2, fabric)  # near arm
    s.grain = 0.0
    return finish_photo(cv, seed=331, gain=0.9, cast=(1.08, 1.0, 0.86), vignette=0.5, light=(0.25, 0.25), noise=3.5)


VALIDATION: list[tuple[str, Callable[[int], Image.Image], str, tuple[int, int, int], str]] = [
    ("nightstand", draw_val_nightstand, "nightstand", (0, 1, 0),
     "an off-white bedside table, one drawer with a wooden knob over an open shelf holding two books, from the "
     "left and above; sage painted wall, beige carpet"),
    ("bookshelf", draw_val_bookshelf, "bookshelf", (0, 0, 0),
     "a tall oak bookshelf, four shelves (five compartments) of books, no doors, perspective from the right; dark "
     "plum room lit warm"),
    ("washing_machine", draw_val_washing_machine, "washing_machine", (1, 1, 0),
     "a white front-loading washing machine (round chrome-ringed door, detergent drawer top left, dial), "
     "illustration with ink outlines; checkerboard floor"),
    ("oven", draw_val_oven, "oven", (1, 0, 0),
     "a steel freestanding cooker seen from high up (four gas burners, knobs, drop-down oven door with a window "
     "and a bar handle), perspective; slate floor tiles"),
    ("kettle", draw_val_kettle, "kettle", (0, 0, 1),
     "a red electric jug kettle on its black power base (domed flip lid, handle right, spout left, water window) "
     "on a grey stone worktop, wall and window out of focus"),
    ("toaster", draw_val_toaster, "toaster", (0, 0, 0),
     "a red two-slot toaster from the right and above (lever, browning dial), product shot on a grey paper "
     "backdrop"),
    ("toolbox", draw_val_toolbox, "toolbox", (0, 0, 1),
     "a red steel toolbox with a hinged lid, two latches and a black carry handle, from the left and above; "
     "garage: boarded wall, concrete floor"),
    ("laptop", draw_val_laptop, "laptop", (0, 0, 0),
     "an open silver laptop seen from high up, small in the frame, on a pale desk; illustration with ink outlines"),
    ("desk", draw_val_desk, "desk", (0, 3, 0),
     "a writing desk: oak top on a white three-drawer pedestal (right) and an end panel (left), perspective from "
     "the left, ink outlines; grey-blue carpet"),
    ("stool", draw_val_stool, "stool", (0, 0, 0),
     "a wooden bar stool (round seat, four splayed legs, rungs) from above, low-key on a dark backdrop with a "
     "pool of light"),
    ("bucket", draw_val_bucket, "bucket", (0, 0, 0),
     "a galvanised bucket with a wire bail and grip, from high up, small in the frame, on garden paving; lawn, "
     "hedge and sky behind"),
    ("safe", draw_val_safe, "safe", (1, 0, 0),
     "a green-grey steel safe seen mostly from its right side (combination dial, three-spoke handle, hinges), "
     "thin ink outlines, dim room"),
    ("dishwasher", draw_val_dishwasher, "dishwasher", (1, 0, 0),
     "a freestanding dishwasher almost head-on (brushed steel door, control strip, bar handle), product shot on "
     "a warm grey paper backdrop"),
    ("armchair", draw_val_armchair, "armchair", (0, 0, 0),
     "a mustard upholstered armchair (square arms, seat cushion, walnut legs) on a rug, from the right; dark "
     "green room lit warm"),
]


def draw_validation(size: int = 384) -> list[dict[str, Any]]:
    """The fourteen validation pictures at ``size`` × ``size``, in the format of ``draw_all``."""
    return _draw_set(VALIDATION, size)


if __name__ == "__main__":
    import sys
    from pathlib import Path

    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "drawn_objects")
    which = sys.argv[2] if len(sys.argv) > 2 else "test"
    folder.mkdir(parents=True, exist_ok=True)
    for pic in (draw_validation() if which == "validation" else draw_all()):
        pic["image"].save(folder / f"{pic['name']}.png")
        print(pic["name"], "->", folder / f"{pic['name']}.png")
