"""SDF decoding speed: our sparse-routed decoder against a global-attention vecset decoder, side by side.

Run: ``python eval/bench_decoder.py [--tokens 512 2048 4096] [--queries 65536] [--repeats 3]`` → prints a
table and writes eval/results/decoder.json and eval/results/decoder.png.

The baseline is the 3DShape2VecSet / Hunyuan3D-2.1 decoder shape: every query (Fourier features -> width)
cross-attends to *all* M latent tokens (torch SDPA), then an MLP gives the SDF. Ours routes each query to the
``route_candidates`` tokens of its routing cell and decodes in dense blocks (``ShapeVAE.decode_cells``). Ours
has the shipped VAE's config (``--vae``, default weights/geometry-vae: its query path and routing), the baseline
its width and heads, at each token count; both get the token keys/values precomputed once per shape (as
extraction does), so the figure is the per-query cost. Queries are what surface extraction asks for:
``--queries`` points within 0.03 of a sphere of radius 0.7 whose surface carries the M anchors, decoded in
batches of 65,536. Weights are random (speed does not depend on them).

The ``ceiling`` column times our per-query layers alone (Fourier features, query projection, SDF head and, on
the full query path, the query MLP and output projection: everything but the routed attention), in blocks of
``DECODE_BLOCK`` queries as ``decode_cells`` runs them. The ``light`` column times the same config with the light
query path (``ShapeVAEConfig.light_queries``: one linear map in, no output projection, a narrow head), which no
shipped model has yet: what that path would buy once trained.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import time
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from seed3d.asset import atomic_file
from seed3d.geometry.vae import DECODE_BLOCK, ShapeLatent, ShapeVAE
from seed3d.nn import FourierEmbed, mlp

RESULTS = Path(__file__).parent / "results"


class GlobalVecsetDecoder(nn.Module):
    """Baseline: each query attends to every latent token (one cross-attention layer and an MLP head)."""

    def __init__(self, width: int, heads: int, freqs: int = 8) -> None:
        super().__init__()
        self.heads = heads
        self.embed = FourierEmbed(freqs, scale=0.5)
        self.query_in = mlp([self.embed.out_dim, width, width])
        self.q = nn.Linear(width, width)
        self.kv = nn.Linear(width, 2 * width)
        self.out = nn.Linear(width, width)
        self.head = nn.Sequential(nn.LayerNorm(width), mlp([width, width, 1]))

    def project(self, tokens: torch.Tensor) -> torch.Tensor:
        """Keys and values (B, M, 2C) of the tokens, computed once per shape."""
        return self.kv(tokens)

    def forward(self, kv: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
        """SDF (B, Q) at ``queries`` (B, Q, 3) from projected tokens ``kv`` (B, M, 2C)."""
        b, q, _ = queries.shape
        c = kv.shape[-1] // 2
        h = self.heads
        x = self.query_in(self.embed(queries))
        k, v = kv.view(b, -1, 2, h, c // h).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(self.q(x).view(b, q, h, c // h).transpose(1, 2), k, v)
        x = x + self.out(y.transpose(1, 2).reshape(b, q, c))
        return self.head(x)[..., 0]


def _sphere(n: int, radius: float = 0.7, band: float = 0.0) -> torch.Tensor:
    """``n`` points on a sphere (within ``band`` of it when ``band`` > 0)."""
    d = F.normalize(torch.randn(n, 3), dim=-1)
    return d * (radius + band * (torch.rand(n, 1) * 2 - 1))


def _time(fn: Any, repeats: int) -> float:
    fn()  # warm-up
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, nargs="+", default=[512, 2048, 4096])
    parser.add_argument("--queries", type=int, default=65536)
    parser.add_argument("--batch", type=int, default=65536, help="queries per decoder call")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--vae", default="weights/geometry-vae", help="VAE folder whose config is timed")
    parser.add_argument("--out", default=str(RESULTS / "decoder.json"))
    args = parser.parse_args()
    torch.manual_seed(0)
    cfg = ShapeVAE.config_from_pretrained(args.vae)
    ours = ShapeVAE(cfg).eval()
    light = ShapeVAE(dataclasses.replace(cfg, light_queries=True)).eval()
    base = GlobalVecsetDecoder(cfg.width, cfg.heads).eval()
    queries = _sphere(args.queries, band=0.03)[None]
    rows = []
    for m in args.tokens:
        anchors = _sphere(m)[None]
        latent = ShapeLatent(anchors, torch.randn(1, m, cfg.latent_dim))
        with torch.no_grad():
            kv_ours, kv_light = ours.tokens(latent), light.tokens(latent)
            kv_base = base.project(torch.randn(1, m, cfg.width))

            def run_ours(anchors: torch.Tensor = anchors, kv: torch.Tensor = kv_ours, model: ShapeVAE = ours) -> None:
                cache: dict[str, object] = {}  # fresh per run: the cells' token lists are built every time
                for s in range(0, args.queries, args.batch):
                    model.decode_cells(kv, anchors, queries[0, s: s + args.batch], cache=cache)

            def run_light(anchors: torch.Tensor = anchors, kv: torch.Tensor = kv_light) -> None:
                run_ours(anchors, kv, light)

            def run_base(kv: torch.Tensor = kv_base) -> None:
                for s in range(0, args.queries, args.batch):
                    base(kv, queries[:, s: s + args.batch])

            def run_layers() -> None:
                for s in range(0, args.queries, DECODE_BLOCK):  # in blocks, as decode_cells runs them
                    q = queries[0, s: s + DECODE_BLOCK]
                    qx, res = ours.query_features(q)
                    ours.query_sdf(qx, q, res)

            t_ours, t_base = _time(run_ours, args.repeats), _time(run_base, args.repeats)
            t_layers, t_light = _time(run_layers, args.repeats), _time(run_light, args.repeats)
        row = {"tokens": m, "routing_grid": ours.routing_grid(m), "ours_queries_per_s": round(args.queries / t_ours),
               "global_queries_per_s": round(args.queries / t_base), "speedup": round(t_base / t_ours, 2),
               "ceiling_queries_per_s": round(args.queries / t_layers), "ceiling_speedup": round(t_base / t_layers, 2),
               "light_queries_per_s": round(args.queries / t_light), "light_speedup": round(t_base / t_light, 2)}
        rows.append(row)
        print(f"M={m:5d}  ours {row['ours_queries_per_s']:>9,d} q/s  global {row['global_queries_per_s']:>9,d} q/s  "
              f"speed-up {row['speedup']:5.2f}x  (per-query layers alone: {row['ceiling_speedup']:5.2f}x; "
              f"light query path: {row['light_speedup']:5.2f}x)", flush=True)
    doc = {"benchmark": "SDF decoder queries per second: sparse-routed (ours) vs global-attention vecset baseline",
           "command": "python eval/bench_decoder.py", "vae": args.vae, "width": cfg.width, "heads": cfg.heads,
           "light_queries": cfg.light_queries, "route_cells": cfg.route_cells, "route_candidates": cfg.route_candidates,
           "route_grid_max": cfg.route_grid_max,
           "queries": args.queries, "batch": args.batch,
           "threads": torch.get_num_threads(), "machine": platform.processor() or platform.machine(),
           "torch": torch.__version__, "rows": rows}
    out = Path(args.out)
    with atomic_file(out) as tmp:
        Path(tmp).write_text(json.dumps(doc, indent=2) + "\n")
    _plot(rows, out.with_suffix(".png"))
    print(f"wrote {out}")


def _plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 4.0), dpi=120)
    m = [r["tokens"] for r in rows]
    ax.plot(m, [r["ours_queries_per_s"] for r in rows], "o-", label="sparse-routed (ours)")
    ax.plot(m, [r["global_queries_per_s"] for r in rows], "s-", label="global attention (vecset)")
    ax.plot(m, [r["ceiling_queries_per_s"] for r in rows], "k:", label="ours without attention (ceiling)")
    ax.plot(m, [r["light_queries_per_s"] for r in rows], "^--", label="ours, light query path (untrained)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("latent tokens")
    ax.set_ylabel("SDF queries / s (CPU)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    with atomic_file(path) as tmp:
        fig.savefig(tmp, format="png")
    plt.close(fig)


if __name__ == "__main__":
    main()
