"""SDF decoding speed: our sparse-routed decoder against a global-attention vecset decoder, side by side.

Run: ``python eval/bench_decoder.py [--tokens 512 2048 4096] [--queries 65536] [--repeats 3]`` -> prints a
table and writes eval/results/decoder.json and eval/results/decoder.png.

The baseline is the Hunyuan3D-2.1 shape decoder's layout (its ``geo_decoder``, after 3DShape2VecSet): the
query's Fourier features pass one linear map to the width, then one pre-norm residual cross-attention block over
*all* M latent tokens (layer norms on the query and the tokens, per-head layer norms on queries and keys, torch
SDPA, an output projection), a pre-norm residual MLP of 4 x the width, a final layer norm and a linear map to
the SDF. Ours routes each query to the ``route_candidates`` tokens of its routing cell and decodes in dense
blocks (``ShapeVAE.decode_cells``). Ours has the shipped VAE's config (``--vae``, default weights/geometry-vae:
its query path and routing), the baseline its width and heads, at each token count; both get the tokens'
keys/values precomputed once per shape (as extraction does), so the figure is the per-query cost. Queries are
what surface extraction asks for: ``--queries`` points within 0.03 of a sphere of radius 0.7 whose surface
carries the M anchors, decoded in batches of 65,536. Weights are random (speed does not depend on them). Each
repeat times every decoder once in turn; the best of ``--repeats`` counts.

The ``global_lite`` column times the earlier, lighter baseline (``LiteVecsetDecoder``: our full query path's
layers around one global attention), which the figures before 2026-12-06 used. The ``ceiling`` column times our
per-query layers alone (Fourier features, query map, output projection and SDF head: everything but the routed
attention), in blocks of ``DECODE_BLOCK`` queries as ``decode_cells`` runs them. The ``other`` column times the
same config with the other query path (``ShapeVAEConfig.light_queries`` flipped, the light head as wide as the
full one: the full path's query MLP and query projection, or the light path's one linear map).
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
    """Baseline: each query attends to every latent token (Hunyuan3D-2.1's shape-decoder layout, see above)."""

    def __init__(self, width: int, heads: int, freqs: int = 8, expand: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.embed = FourierEmbed(freqs, scale=0.5)
        self.query_in = nn.Linear(self.embed.out_dim, width)
        self.norm_query, self.norm_tokens, self.norm_mlp = nn.LayerNorm(width), nn.LayerNorm(width), nn.LayerNorm(width)
        self.q, self.kv, self.out = nn.Linear(width, width), nn.Linear(width, 2 * width), nn.Linear(width, width)
        self.norm_q, self.norm_k = nn.LayerNorm(width // heads), nn.LayerNorm(width // heads)
        self.mlp = nn.Sequential(nn.Linear(width, expand * width), nn.GELU(), nn.Linear(expand * width, width))
        self.norm_out = nn.LayerNorm(width)
        self.head = nn.Linear(width, 1)

    def project(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Normalised keys and values (B, H, M, C / H) of the tokens (B, M, C), computed once per shape."""
        b, m, c = tokens.shape
        k, v = self.kv(self.norm_tokens(tokens)).view(b, m, 2, self.heads, c // self.heads).unbind(2)
        return self.norm_k(k).transpose(1, 2).contiguous(), v.transpose(1, 2).contiguous()

    def forward(self, kv: tuple[torch.Tensor, torch.Tensor], queries: torch.Tensor) -> torch.Tensor:
        """SDF (B, Q) at ``queries`` (B, Q, 3) from projected tokens ``kv`` (see ``project``)."""
        b, n, _ = queries.shape
        x = self.query_in(self.embed(queries))
        c = x.shape[-1]
        q = self.norm_q(self.q(self.norm_query(x)).view(b, n, self.heads, c // self.heads)).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, *kv).transpose(1, 2).reshape(b, n, c)
        x = x + self.out(y)
        x = x + self.mlp(self.norm_mlp(x))
        return self.head(self.norm_out(x))[..., 0]


class LiteVecsetDecoder(nn.Module):
    """The earlier baseline (figures before 2026-12-06): our full query path's layers (query MLP, query and
    output projections, a ``width -> width -> 1`` head) around one global attention, no norms, no wide MLP."""

    def __init__(self, width: int, heads: int, freqs: int = 8) -> None:
        super().__init__()
        self.heads = heads
        self.embed = FourierEmbed(freqs, scale=0.5)
        self.query_in = mlp([self.embed.out_dim, width, width])
        self.q, self.kv, self.out = nn.Linear(width, width), nn.Linear(width, 2 * width), nn.Linear(width, width)
        self.head = nn.Sequential(nn.LayerNorm(width), mlp([width, width, 1]))

    def project(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Keys and values (B, H, M, C / H) of the tokens (B, M, C), computed once per shape."""
        b, m, c = tokens.shape
        k, v = self.kv(tokens).view(b, m, 2, self.heads, c // self.heads).unbind(2)
        return k.transpose(1, 2).contiguous(), v.transpose(1, 2).contiguous()

    def forward(self, kv: tuple[torch.Tensor, torch.Tensor], queries: torch.Tensor) -> torch.Tensor:
        """SDF (B, Q) at ``queries`` (B, Q, 3) from projected tokens ``kv`` (see ``project``)."""
        b, n, _ = queries.shape
        x = self.query_in(self.embed(queries))
        c = x.shape[-1]
        q = self.q(x).view(b, n, self.heads, c // self.heads).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, *kv).transpose(1, 2).reshape(b, n, c)
        return self.head(x + self.out(y))[..., 0]


def _sphere(n: int, radius: float = 0.7, band: float = 0.0) -> torch.Tensor:
    """``n`` points on a sphere (within ``band`` of it when ``band`` > 0)."""
    d = F.normalize(torch.randn(n, 3), dim=-1)
    return d * (radius + band * (torch.rand(n, 1) * 2 - 1))


def _best_times(fns: dict[str, Any], repeats: int) -> dict[str, float]:
    """Best wall time of each function over ``repeats`` rounds that run every function once, in turn (after one
    warm-up call each), so that a slow spell of a shared machine hits them alike."""
    for fn in fns.values():
        fn()
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeats):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t)
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
    other = ShapeVAE(dataclasses.replace(cfg, light_queries=not cfg.light_queries, head_width=cfg.width)).eval()
    base = GlobalVecsetDecoder(cfg.width, cfg.heads).eval()
    lite = LiteVecsetDecoder(cfg.width, cfg.heads).eval()
    queries = _sphere(args.queries, band=0.03)[None]
    rows = []
    for m in args.tokens:
        anchors = _sphere(m)[None]
        latent = ShapeLatent(anchors, torch.randn(1, m, cfg.latent_dim))
        with torch.no_grad():
            kv_ours, kv_other = ours.tokens(latent), other.tokens(latent)
            token_feats = torch.randn(1, m, cfg.width)
            kv_base, kv_lite = base.project(token_feats), lite.project(token_feats)

            def run_ours(anchors: torch.Tensor = anchors, kv: torch.Tensor = kv_ours, model: ShapeVAE = ours) -> None:
                cache: dict[str, object] = {}  # fresh per run: the cells' token lists are built every time
                for s in range(0, args.queries, args.batch):
                    model.decode_cells(kv, anchors, queries[0, s: s + args.batch], cache=cache)

            def run_other(anchors: torch.Tensor = anchors, kv: torch.Tensor = kv_other) -> None:
                run_ours(anchors, kv, other)

            def run_base(kv: tuple[torch.Tensor, torch.Tensor] = kv_base, model: nn.Module = base) -> None:
                for s in range(0, args.queries, args.batch):
                    model(kv, queries[:, s: s + args.batch])

            def run_lite(kv: tuple[torch.Tensor, torch.Tensor] = kv_lite) -> None:
                run_base(kv, lite)

            def run_layers() -> None:
                for s in range(0, args.queries, DECODE_BLOCK):  # in blocks, as decode_cells runs them
                    q = queries[0, s: s + DECODE_BLOCK]
                    qx, res = ours.query_features(q)
                    ours.query_sdf(qx, q, res)

            t = _best_times({"ours": run_ours, "global": run_base, "global_lite": run_lite, "ceiling": run_layers,
                             "other": run_other}, args.repeats)
        row = {"tokens": m, "routing_grid": ours.routing_grid(m)}
        for name in ("ours", "global", "global_lite", "ceiling", "other"):
            row[f"{name}_queries_per_s"] = round(args.queries / t[name])
            if name != "global":
                row[f"{name}_speedup"] = round(t["global"] / t[name], 2)
        row["ours_speedup_vs_lite"] = round(t["global_lite"] / t["ours"], 2)
        rows.append(row)
        print(f"M={m:5d}  ours {row['ours_queries_per_s']:>9,d} q/s  global {row['global_queries_per_s']:>9,d} q/s  "
              f"speed-up {row['ours_speedup']:5.2f}x  (vs the lite baseline {row['ours_speedup_vs_lite']:5.2f}x; "
              f"per-query layers alone: {row['ceiling_speedup']:5.2f}x; "
              f"{'full' if cfg.light_queries else 'light'} query path: {row['other_speedup']:5.2f}x)", flush=True)
    doc = {"benchmark": "SDF decoder queries per second: sparse-routed (ours) vs global-attention vecset baseline "
                        "(Hunyuan3D-2.1's shape-decoder layout)",
           "command": "python eval/bench_decoder.py", "vae": args.vae, "width": cfg.width, "heads": cfg.heads,
           "light_queries": cfg.light_queries, "route_cells": cfg.route_cells, "route_candidates": cfg.route_candidates,
           "route_grid_max": cfg.route_grid_max,
           "queries": args.queries, "batch": args.batch, "repeats": args.repeats,
           "threads": torch.get_num_threads(), "machine": platform.processor() or platform.machine(),
           "torch": torch.__version__, "rows": rows}
    out = Path(args.out)
    with atomic_file(out) as tmp:
        Path(tmp).write_text(json.dumps(doc, indent=2) + "\n")
    _plot(rows, out.with_suffix(".png"), "full query path" if cfg.light_queries else "light query path")
    print(f"wrote {out}")


def _plot(rows: list[dict[str, Any]], path: Path, other: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 4.0), dpi=120)
    m = [r["tokens"] for r in rows]
    ax.plot(m, [r["ours_queries_per_s"] for r in rows], "o-", label="sparse-routed (ours)")
    ax.plot(m, [r["global_queries_per_s"] for r in rows], "s-", label="global attention (Hunyuan3D-2.1 layout)")
    ax.plot(m, [r["global_lite_queries_per_s"] for r in rows], "s:", label="global attention, earlier lite baseline")
    ax.plot(m, [r["ceiling_queries_per_s"] for r in rows], "k:", label="ours without attention (ceiling)")
    ax.plot(m, [r["other_queries_per_s"] for r in rows], "^--", label=f"ours, {other}")
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
