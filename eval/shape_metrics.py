"""Shape metrics (REFERENCES.md definitions): both shapes normalised to the unit bounding-box diagonal of the
ground truth, Chamfer-L1 (mean of the two directed mean distances), F-score at tau (harmonic mean of precision
and recall of points within tau), normal consistency (mean |cos| between nearest-neighbour normals, both ways),
and volume IoU of occupancy at shared query points."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree


def surface_metrics(pred_points: np.ndarray, pred_normals: np.ndarray, gt_points: np.ndarray,
                    gt_normals: np.ndarray, taus: tuple[float, ...] = (0.01, 0.02, 0.05)) -> dict[str, float]:
    """Chamfer-L1, F@tau and normal consistency of two point sets with normals (GT diagonal = 1)."""
    lo, hi = gt_points.min(0), gt_points.max(0)
    scale = 1.0 / max(float(np.linalg.norm(hi - lo)), 1e-12)
    p, g = pred_points * scale, gt_points * scale
    d_pg, i_pg = cKDTree(g).query(p)
    d_gp, i_gp = cKDTree(p).query(g)
    out = {"chamfer_l1": float(0.5 * (d_pg.mean() + d_gp.mean()))}
    for tau in taus:
        precision, recall = float((d_pg < tau).mean()), float((d_gp < tau).mean())
        f = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
        out[f"f@{tau:g}"] = f
    nc_pg = np.abs((pred_normals * gt_normals[i_pg]).sum(1)).mean()
    nc_gp = np.abs((gt_normals * pred_normals[i_gp]).sum(1)).mean()
    out["normal_consistency"] = float(0.5 * (nc_pg + nc_gp))
    return out


def volume_iou(pred_inside: np.ndarray, gt_inside: np.ndarray) -> float:
    """IoU of two occupancy masks over the same query points (1 when both are empty)."""
    union = np.logical_or(pred_inside, gt_inside).sum()
    return 1.0 if union == 0 else float(np.logical_and(pred_inside, gt_inside).sum() / union)
