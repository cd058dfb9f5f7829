"""Render time per view on every available backend, and a picture of every buffer of the demo cabinet.

Run: ``python eval/bench_render.py`` → prints a table, writes eval/results/render.json and
eval/results/render_buffers.png. The timed mesh is a bumpy, textured torus of 100,000 triangles seen by the
6 cameras of the fixed texture rig at 512²; "raster" is the backend alone (triangle ids + barycentrics back
in host memory), "all buffers" adds every buffer of ``seed3d.render.BUFFERS`` including PBR shading. The
triangle-id agreement between backends is measured on the same views (all pixels and foreground pixels).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from seed3d.asset import Mesh, PBRMaterial, atomic_file
from seed3d.render import (
    BACKENDS,
    BUFFERS,
    Lighting,
    RenderBuffers,
    RenderMesh,
    available_backends,
    fixed_views,
    get_renderer,
    linear_to_srgb,
    orbit_camera,
    random_views,
)
from seed3d.synth.primitives import demo_cabinet

RESULTS = Path(__file__).parent / "results"


def bumpy_torus(n_u: int = 250, n_v: int = 200, seed: int = 0) -> RenderMesh:
    """A textured torus with bumps: 2 * n_u * n_v triangles, seam vertices duplicated so UVs are continuous."""
    rng = np.random.default_rng(seed)
    u, v = np.meshgrid(np.linspace(0, 1, n_u + 1), np.linspace(0, 1, n_v + 1), indexing="ij")
    a, b = u * 2 * np.pi, v * 2 * np.pi
    phase = rng.uniform(0, 2 * np.pi, 2)
    r = 0.12 + 0.012 * np.sin(7 * a + phase[0]) * np.sin(5 * b + phase[1])
    verts = np.stack([(0.3 + r * np.cos(b)) * np.cos(a), (0.3 + r * np.cos(b)) * np.sin(a), 0.15 + r * np.sin(b)],
                     axis=-1).reshape(-1, 3)
    idx = np.arange((n_u + 1) * (n_v + 1)).reshape(n_u + 1, n_v + 1)
    q00, q10, q11, q01 = idx[:-1, :-1], idx[1:, :-1], idx[1:, 1:], idx[:-1, 1:]
    faces = np.concatenate([np.stack([q00, q10, q11], -1).reshape(-1, 3), np.stack([q00, q11, q01], -1).reshape(-1, 3)])
    uv = np.stack([u, v], -1).reshape(-1, 2)
    checker = ((np.add.outer(np.arange(256) // 32, np.arange(256) // 32) % 2) * 170 + 60).astype(np.uint8)
    base = np.stack([checker, 255 - checker // 2, np.full_like(checker, 128)], -1)
    mr = np.stack([np.zeros_like(checker), checker, 255 - checker], -1)
    mat = PBRMaterial("bench", (1.0, 1.0, 1.0, 1.0), 1.0, 1.0, base_color_map=base, metallic_roughness_map=mr)
    return RenderMesh.from_mesh(Mesh(verts, faces, uv), mat, "torus")


def _time(fn, repeats: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Median and minimum wall time of ``fn`` in milliseconds (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return float(np.median(times)), float(np.min(times))


def bench(resolution: int, repeats: int, backends: list[str]) -> dict:
    """Per-backend timings on the bench torus, plus triangle-id agreement between backends."""
    mesh = bumpy_torus()
    cams = fixed_views(mesh, resolution)
    rows: dict[str, dict] = {}
    ids: dict[str, list[np.ndarray]] = {}
    for name in backends:
        renderer = get_renderer(name)
        t0 = time.perf_counter()
        renderer.rasterize(mesh, cams[0])
        first_ms = (time.perf_counter() - t0) * 1000
        raster = [_time(lambda c=c, r=renderer: r.rasterize(mesh, c), repeats) for c in cams]
        full = [_time(lambda c=c, r=renderer: r.render(mesh, c), repeats) for c in cams]
        ids[name] = [renderer.rasterize(mesh, c).tri_id for c in cams]
        rows[name] = {
            "raster_ms": round(float(np.mean([m for m, _ in raster])), 2),
            "raster_ms_min": round(float(np.min([m for _, m in raster])), 2),
            "all_buffers_ms": round(float(np.mean([m for m, _ in full])), 2),
            "all_buffers_ms_min": round(float(np.min([m for _, m in full])), 2),
            "first_call_ms": round(first_ms, 1),
            "foreground_fraction": round(float(np.mean([(i >= 0).mean() for i in ids[name]])), 3),
        }
        if name == "moderngl":
            rows[name]["gl_renderer"] = getattr(renderer.backend, "renderer_info", "?")
        renderer.close()
    agreement = {}
    names = list(ids)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            same = [(x == y) for x, y in zip(ids[a], ids[b], strict=True)]
            fg = [(x >= 0) | (y >= 0) for x, y in zip(ids[a], ids[b], strict=True)]
            agreement[f"{a}-{b}"] = {
                "all_pixels": round(float(np.mean([s.mean() for s in same])), 5),
                "foreground_pixels": round(float(np.sum([s[f].sum() for s, f in zip(same, fg, strict=True)])
                                                 / np.sum([f.sum() for f in fg])), 5),
            }
    return {"mesh": {"name": "bumpy_torus", "faces": len(mesh.faces), "vertices": len(mesh.vertices)},
            "resolution": resolution, "views": len(cams), "repeats": repeats, "backends": rows,
            "tri_id_agreement": agreement}


# ----------------------------------------------------------------------------------------------- picture

def _palette(ids: np.ndarray) -> np.ndarray:
    """Distinct colours for integer ids (black for -1)."""
    h = (ids.astype(np.int64) * 2654435761) % (2**32)
    rgb = np.stack([(h >> s) & 255 for s in (0, 8, 16)], -1).astype(np.float32) / 255 * 0.7 + 0.3
    rgb[ids < 0] = 0
    return rgb


def _panels(buf: RenderBuffers) -> list[tuple[str, np.ndarray]]:
    """(label, RGB float image in [0, 1]) for every buffer of one view."""
    m = buf.mask[..., None]
    depth = buf.depth.copy()
    if buf.mask.any():
        lo, hi = depth[buf.mask].min(), depth[buf.mask].max()
        depth = np.where(buf.mask, 1.0 - 0.85 * (depth - lo) / max(hi - lo, 1e-9), 0.0)
    pos = buf.position
    plo, phi = pos[buf.mask].min(axis=0), pos[buf.mask].max(axis=0)
    gray = lambda x: np.repeat(x[..., None], 3, -1)  # noqa: E731
    return [
        ("rgb (shaded)", buf.rgb),
        ("mask", gray(buf.mask.astype(np.float32))),
        ("depth", gray(depth)),
        ("position (world)", np.where(m, (pos - plo) / np.maximum(phi - plo, 1e-9), 0)),
        ("canonical", buf.canonical),
        ("normal (world)", np.where(m, buf.normal * 0.5 + 0.5, 0)),
        ("normal (camera)", np.where(m, buf.normal_camera * [0.5, -0.5, -0.5] + 0.5, 0)),
        ("triangle id", _palette(buf.tri_id)),
        ("part id", _palette(buf.part_id)),
        ("albedo (sRGB)", linear_to_srgb(buf.albedo)),
        ("metallic", gray(buf.metallic)),
        ("roughness", gray(buf.roughness)),
        ("uv", np.concatenate([buf.uv, np.zeros_like(buf.uv[..., :1])], -1) * m),
        ("barycentrics", buf.bary),
    ]


def buffers_picture(path: Path, size: int = 256, backend: str = "auto") -> Path:
    """A grid of every buffer of demo_cabinet from two views (rig view at 45° and a random lit view)."""
    asset = demo_cabinet()
    mesh = RenderMesh.from_asset(asset)
    renderer = get_renderer(backend)
    views = [(orbit_camera(mesh, 45.0, 30.0, size), Lighting()),
             (random_views(mesh, 1, seed=4, width=size)[0], Lighting.random(seed=4))]
    cols, label_h, pad = 7, 16, 4
    blocks = []
    for cam, light in views:
        blocks.append(_panels(renderer.render(mesh, cam, light, BUFFERS)))
    rows = sum((len(b) + cols - 1) // cols for b in blocks)
    canvas = Image.new("RGB", (cols * (size + pad) + pad, rows * (size + label_h + pad) + pad), (40, 40, 40))
    draw = ImageDraw.Draw(canvas)
    r = 0
    for panels in blocks:
        for k, (label, img) in enumerate(panels):
            x = pad + (k % cols) * (size + pad)
            y = pad + (r + k // cols) * (size + label_h + pad)
            canvas.paste(Image.fromarray((np.clip(img, 0, 1) * 255).astype(np.uint8)), (x, y + label_h))
            draw.text((x + 2, y + 2), f"{label} [{renderer.backend_name}]" if k == 0 else label,
                      fill=(235, 235, 235))
        r += (len(panels) + cols - 1) // cols
    renderer.close()
    with atomic_file(path) as tmp:
        canvas.save(tmp, format="PNG")
    return path


def main() -> None:
    """Time the backends, write render.json and render_buffers.png, print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resolution", type=int, default=512, help="image width and height in pixels")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per view (median kept)")
    parser.add_argument("--backends", default="available", help=f"comma list of {', '.join(BACKENDS)} or 'available'")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    args = parser.parse_args()
    backends = available_backends() if args.backends == "available" else args.backends.split(",")
    skipped = [b for b in BACKENDS if b not in backends]
    result = bench(args.resolution, args.repeats, backends)
    result["unavailable_backends"] = skipped
    result["machine"] = {"cpu_count": os.cpu_count(), "platform": platform.platform(),
                         "processor": platform.processor() or platform.machine()}
    picture = buffers_picture(args.out / "render_buffers.png")
    result["picture"] = picture.name
    with atomic_file(args.out / "render.json") as tmp:
        tmp.write_text(json.dumps(result, indent=2) + "\n")

    mesh = result["mesh"]
    print(f"{mesh['faces']} triangles, {args.resolution}x{args.resolution}, {result['views']} views, "
          f"median of {args.repeats} calls per view, ms per view")
    print(f"{'backend':<12}{'raster':>10}{'all buffers':>14}{'first call':>12}")
    for name, row in result["backends"].items():
        print(f"{name:<12}{row['raster_ms']:>10.1f}{row['all_buffers_ms']:>14.1f}{row['first_call_ms']:>12.1f}")
    for pair, agree in result["tri_id_agreement"].items():
        print(f"triangle ids {pair}: {100 * agree['all_pixels']:.3f} % of all pixels, "
              f"{100 * agree['foreground_pixels']:.3f} % of foreground pixels")
    if skipped:
        print(f"not available here: {', '.join(skipped)}")
    print(f"wrote {args.out / 'render.json'} and {picture}")


if __name__ == "__main__":
    main()
