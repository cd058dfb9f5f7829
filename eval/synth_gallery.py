"""A picture of every synth category: each asset at rest and with its movable joints at their upper limits.

Run: ``python eval/synth_gallery.py [--seeds 0] [--size PX] [--categories a,b] [--out PNG]``
→ eval/results/synth_gallery.png (``--seeds 0,1,2``: each category at three seeds, as eval/bench_synth.py draws it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from seed3d.asset import Asset, Joint, Part, atomic_file
from seed3d.render import Lighting, get_renderer, orbit_camera
from seed3d.synth import generate, list_categories
from seed3d.synth.kinematics import posed_meshes

RESULTS = Path(__file__).parent / "results"
CAPTION = 18


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


def gallery(categories: Sequence[str], seeds: Sequence[int], path: Path, tile: int = 192, cols: int | None = None,
            progress: Callable[[str, int], None] | None = None) -> Path:
    """Render ``categories`` at ``seeds`` into one sheet at ``path``: per category and seed the asset at rest and
    opened (``opened``), ``cols`` categories a row (default: 6 for one seed, 3 for more); returns ``path``."""
    renderer = get_renderer()
    light = Lighting.random(seed=7)
    cols = cols or (6 if len(seeds) == 1 else 3)
    per = 2 * len(seeds)  # tiles per category
    rows = (len(categories) + cols - 1) // cols
    sheet = Image.new("RGB", (cols * per * tile, rows * (tile + CAPTION)), "white")
    draw = ImageDraw.Draw(sheet)
    for k, cat in enumerate(categories):
        r, c = divmod(k, cols)
        for s, seed in enumerate(seeds):
            if progress is not None:
                progress(cat, seed)
            asset = generate(cat, seed)
            for i, target in enumerate((asset, opened(asset))):
                cam = orbit_camera(target, 35.0, 25.0, tile)
                rgba = renderer.render_image(target, cam, light)
                rgb = rgba[..., :3] * rgba[..., 3:] + (1 - rgba[..., 3:])
                img = Image.fromarray((np.clip(rgb, 0, 1) * 255).astype(np.uint8))
                sheet.paste(img, ((per * c + 2 * s + i) * tile, r * (tile + CAPTION) + CAPTION))
        which = f"seed {seeds[0]}" if len(seeds) == 1 else "seeds " + ", ".join(map(str, seeds))
        draw.text((per * c * tile + 4, r * (tile + CAPTION) + 3), f"{cat} ({which}): rest | opened", fill="black")
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as tmp:
        sheet.save(tmp, format="PNG")
    return path


def main() -> None:
    """Render the gallery."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=None, help="one seed (same as --seeds N)")
    parser.add_argument("--seeds", default="0", help="comma-separated seeds, e.g. 0,1,2")
    parser.add_argument("--size", type=int, default=192, help="tile size in pixels")
    parser.add_argument("--categories", default=None, help="comma-separated categories (default: all)")
    parser.add_argument("--out", type=Path, default=RESULTS / "synth_gallery.png")
    args = parser.parse_args()
    seeds = [args.seed] if args.seed is not None else [int(s) for s in args.seeds.split(",")]
    cats = args.categories.split(",") if args.categories else list_categories()
    print(gallery(cats, seeds, args.out, args.size))


if __name__ == "__main__":
    main()
