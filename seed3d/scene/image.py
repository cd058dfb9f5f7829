"""Pictures of a scene: a top-down plan (room outline, labelled footprints, door swings and drawer travel)
and a rendered overview (``seed3d.render``)."""

from __future__ import annotations

import logging
import math
import textwrap
import zlib
from pathlib import Path

import numpy as np

from seed3d.asset import Mesh, PBRMaterial, Scene, atomic_file
from seed3d.typed import FloatArray, UInt8Array

logger = logging.getLogger(__name__)

_PALETTE = [(78, 121, 167), (242, 142, 43), (225, 87, 89), (118, 183, 178), (89, 161, 79), (237, 201, 72),
            (176, 122, 161), (255, 157, 167), (156, 117, 95), (186, 176, 172)]


def _colour(category: str) -> tuple[int, int, int]:
    return _PALETTE[zlib.crc32(category.encode()) % len(_PALETTE)]


def _hull(points: FloatArray) -> FloatArray:
    from seed3d.scene.checks import _hull2d

    return _hull2d(points)


def plan_image(scene: Scene, title: str = "", px_per_m: float | None = None) -> UInt8Array:
    """A top-down plan (RGB uint8): walls, each object's footprint (convex hull of its parts, coloured by
    category, labelled, an arrow to its front), the swing arcs of doors on vertical hinges and the clearance
    footprints of every opening part (light), +Y up."""
    from PIL import Image, ImageDraw, ImageFont

    from seed3d.scene.solve import OPENING_LABELS
    from seed3d.synth.kinematics import posed_meshes

    W, D, _ = (float(v) for v in scene.size)
    s = px_per_m or max(40.0, min(160.0, 900.0 / W, 700.0 / D))
    margin = 40
    lines = textwrap.wrap(title, 95)[:4] if title else []
    width = int(W * s + 2 * margin)
    height = int(D * s + 2 * margin + 16 * len(lines) + 24)
    img = Image.new("RGBA", (width, height), (255, 255, 255, 255))
    layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    font = ImageFont.load_default()

    def px(p: FloatArray) -> list[tuple[float, float]]:
        p = np.atleast_2d(p)
        return [(margin + (x + W / 2) * s, margin + (D / 2 - y) * s) for x, y in p[:, :2]]

    # floor and walls
    draw.rectangle([margin, margin, margin + W * s, margin + D * s], fill=(246, 244, 240, 255))
    wall = max(3, int(0.1 * s))
    draw.rectangle([margin - wall, margin - wall, margin + W * s + wall, margin + D * s + wall],
                   outline=(90, 90, 90, 255), width=wall)
    order = sorted(scene.objects, key=lambda o: float(o.position[2]))
    labels = []
    for o in order:
        pose = o.pose()
        asset = o.asset
        col = _colour(str(asset.metadata.get("category", o.name)))
        # clearance of opening parts
        for j in asset.joints:
            if j.type not in ("revolute", "prismatic") or not j.upper > j.lower or \
                    asset.part(j.child).label not in OPENING_LABELS:
                continue
            moving = asset.subtree(j.child)
            for v in np.linspace(j.lower, j.upper, 5)[1:]:
                meshes = posed_meshes(asset, {j.name: float(v)})
                pts = np.concatenate([meshes[n].transformed(pose).vertices for n in moving])
                hull = _hull(pts[:, :2])
                if len(hull) >= 3:
                    draw.polygon(px(hull), fill=(*col, 28), outline=(*col, 90))
            axis = j.unit_axis
            if j.type == "revolute" and abs(axis[2]) > 0.9:
                rest = np.concatenate([asset.part(n).mesh.vertices for n in moving])
                rel = rest[:, :2] - j.origin[:2]
                k = int(np.argmax(np.linalg.norm(rel, axis=1)))
                radius = float(np.linalg.norm(rel[k]))
                a0 = math.atan2(rel[k, 1], rel[k, 0]) + o.yaw
                a1 = a0 + float(j.upper) * (1.0 if axis[2] > 0 else -1.0)
                hinge = (pose @ np.array([*j.origin, 1.0]))[:2]
                (cx, cy), = px(hinge)
                r = radius * s
                start, end = sorted((-math.degrees(a0), -math.degrees(a1)))
                draw.arc([cx - r, cy - r, cx + r, cy + r], start, end, fill=(*col, 220), width=2)
        verts = np.concatenate([p.mesh.transformed(pose).vertices for p in asset.parts if len(p.mesh.faces)])
        hull = _hull(verts[:, :2])
        supported = float(o.position[2]) > 0.02
        draw.polygon(px(hull), fill=(*col, 150 if not supported else 210),
                     outline=(40, 40, 40, 255) if not supported else (255, 255, 255, 255))
        centre = (verts[:, :2].min(0) + verts[:, :2].max(0)) / 2
        labels.append((centre, o.yaw, float(min(np.ptp(verts[:, 0]), np.ptp(verts[:, 1]))), o.name, supported))
    img = Image.alpha_composite(img, layer)
    draw = ImageDraw.Draw(img)
    for centre, yaw, size, _, _ in labels:  # an arrow to each object's front, then its name
        d = np.array([math.cos(yaw), math.sin(yaw)])
        tip = centre + 0.45 * size * d
        side = np.array([-d[1], d[0]])
        draw.line(px(np.stack([centre, tip])), fill=(20, 20, 20, 255), width=2)
        head = np.stack([tip + 0.06 * d, tip - 0.04 * d + 0.04 * side, tip - 0.04 * d - 0.04 * side])
        draw.polygon(px(head), fill=(20, 20, 20, 255))
    for centre, _, _, name, up in labels:  # names of carried objects above their centre, the others below
        (x, y), = px(centre)
        box = draw.textbbox((0, 0), name, font=font)
        tw, th = box[2] - box[0], box[3] - box[1]
        y += -(th + 4) if up else th + 4
        draw.rectangle([x - tw / 2 - 2, y - th / 2 - 2, x + tw / 2 + 2, y + th / 2 + 2], fill=(255, 255, 255, 210))
        draw.text((x - tw / 2, y - th / 2 - 1), name, fill=(0, 0, 0, 255), font=font)
    y0 = margin + D * s + wall + 8
    draw.text((margin, y0), f"{W:.2f} m x {D:.2f} m (+X right, +Y up); ticks every 1 m; arrows point to the front",
              fill=(80, 80, 80, 255), font=font)
    for i, line in enumerate(lines):
        draw.text((margin, y0 + 18 + 16 * i), line, fill=(0, 0, 0, 255), font=font)
    for k in range(1, int(W) + 1):  # metre ticks
        x = margin + k * s
        draw.line([(x, margin + D * s), (x, margin + D * s + 5)], fill=(120, 120, 120, 255))
    for k in range(1, int(D) + 1):
        yy = margin + D * s - k * s
        draw.line([(margin - 5, yy), (margin, yy)], fill=(120, 120, 120, 255))
    return np.asarray(img.convert("RGB"))


def _box_mesh(centre: FloatArray, half: FloatArray) -> Mesh:
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], np.float64)
    v = centre + signs * half
    f = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7],
                  [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]], np.int64)
    return Mesh(v, f)


def overview_image(scene: Scene, width: int = 800, height: int = 600, backend: str = "auto") -> UInt8Array:
    """A rendered view (RGB uint8) from above a corner: floor, the two far walls and every object at rest."""
    from seed3d.render import Camera, get_renderer, look_at
    from seed3d.render.geometry import RenderMesh
    from seed3d.scene.export import room_boxes

    W, D, H = (float(v) for v in scene.size)
    meshes: list[Mesh] = []
    mats: list[PBRMaterial] = []
    for name, centre, half in room_boxes(scene.size):
        if name in ("floor", "wall_north", "wall_west"):
            meshes.append(_box_mesh(centre, half))
            mats.append(PBRMaterial(name, (0.55, 0.5, 0.45, 1.0) if name == "floor" else (0.8, 0.8, 0.78, 1.0),
                                    roughness=0.9))
    for o in scene.objects:
        pose = o.pose()
        for p in o.asset.parts:
            if len(p.mesh.faces):
                meshes.append(p.mesh.transformed(pose))  # UVs are kept
                mats.append(p.material)
    target = RenderMesh.from_meshes(meshes, mats)
    span = max(W, D)
    eye = np.array([0.55 * W + 0.35 * span, -0.55 * D - 0.35 * span, H + 0.6 * span])
    look = np.array([-0.05 * W, 0.05 * D, 0.3])
    cam = Camera.from_fov(50.0, width, height, look_at(eye, look))
    with get_renderer(backend) as renderer:
        rgba = renderer.render_image(target, cam, supersample=2)
    rgb = rgba[..., :3] * rgba[..., 3:] + (1.0 - rgba[..., 3:]) * 1.0
    return np.round(np.clip(rgb, 0, 1) * 255).astype(np.uint8)


def save_png(path: Path, image: UInt8Array) -> Path:
    """Write an RGB(A) uint8 image as PNG atomically."""
    from PIL import Image

    with atomic_file(path) as tmp:
        Image.fromarray(image).save(tmp, format="PNG")
    return Path(path)


def picture_grid(images: list[UInt8Array], columns: int = 3, tile: int = 420, captions: list[str] | None = None,
                 ) -> UInt8Array:
    """Tile RGB images into one picture (each fitted into ``tile`` pixels square), with optional captions."""
    from PIL import Image, ImageDraw

    rows = max(1, math.ceil(len(images) / columns))
    canvas = Image.new("RGB", (columns * tile, rows * (tile + 18)), (255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    for i, arr in enumerate(images):
        im = Image.fromarray(arr)
        im.thumbnail((tile - 8, tile - 8))
        x, y = (i % columns) * tile, (i // columns) * (tile + 18)
        canvas.paste(im, (x + (tile - im.width) // 2, y + 4))
        if captions:
            draw.text((x + 6, y + tile), captions[i][:60], fill=(0, 0, 0))
    return np.asarray(canvas)


__all__ = ["overview_image", "picture_grid", "plan_image", "save_png"]
