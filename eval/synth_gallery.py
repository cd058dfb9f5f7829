"""A picture of every synth category: each asset at rest and with its movable joints at their upper limits.

Run: ``python eval/synth_gallery.py [--seed N] [--size PX]`` → eval/results/synth_gallery.png.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from seed3d.asset import Asset, Joint, Part, atomic_file
from seed3d.render import Lighting, get_renderer, orbit_camera
from seed3d.synth import generate, list_categories
from seed3d.synth.kinematics import posed_meshes

RESULTS = Path(__file__).parent / "results"


def opened(asset: Asset, fraction: float = 0.8) -> Asset:
    """The asset with every movable joint at ``fraction`` of its range (continuous: a quarter turn), as a
    joint-free asset whose posed parts hang off the root by fixed joints (for rendering only)."""
    values = {j.name: (np.pi / 2 if j.type == "continuous" else j.lower + fraction * (j.upper - j.lower))
              for j in asset.joints if j.movable}
    meshes = posed_meshes(asset, values)
    parts = [Part(p.name, meshes[p.name], p.label, p.material, p.physical) for p in asset.parts]
    root = asset.root
    joints = [Joint(f"fix_{p.name}", "fixed", root, p.name) for p in parts if p.name != root]
    return Asset(asset.name, parts, joints, asset.metadata)


def main() -> None:
    """Render the gallery."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=192, help="tile size in pixels")
    args = parser.parse_args()
    renderer = get_renderer()
    light = Lighting.random(seed=7)
    cats = list_categories()
    cols = 6
    rows = (len(cats) + cols - 1) // cols
    tile = args.size
    sheet = Image.new("RGB", (cols * 2 * tile, rows * (tile + 18)), "white")
    draw = ImageDraw.Draw(sheet)
    for k, cat in enumerate(cats):
        asset = generate(cat, args.seed)
        r, c = divmod(k, cols)
        for i, target in enumerate((asset, opened(asset))):
            cam = orbit_camera(target, 35.0, 25.0, tile)
            rgba = renderer.render_image(target, cam, light)
            rgb = rgba[..., :3] * rgba[..., 3:] + (1 - rgba[..., 3:])
            img = Image.fromarray((np.clip(rgb, 0, 1) * 255).astype(np.uint8))
            sheet.paste(img, ((2 * c + i) * tile, r * (tile + 18) + 18))
        draw.text((2 * c * tile + 4, r * (tile + 18) + 3), f"{cat} (seed {args.seed}): rest | opened", fill="black")
    RESULTS.mkdir(exist_ok=True)
    with atomic_file(RESULTS / "synth_gallery.png") as tmp:
        sheet.save(tmp, format="PNG")
    print(RESULTS / "synth_gallery.png")


if __name__ == "__main__":
    main()
