"""Automatic part segmentation with the point-prompted segmenter: prompts, mask suppression, face projection.

``Segmenter.segment_points`` prompts the model at farthest-point samples of the shape, keeps the best
non-overlapping masks (non-maximum suppression on the model's own IoU score; with ``num_parts`` given, the
best that many) and gives every point to the kept mask that claims it most. ``Segmenter.segment_mesh``
subdivides long faces, evaluates the kept masks at every face centre, smooths isolated faces, folds stray
islands into their neighbours, refines the parts with the shell's geometry (``seed3d.parts.patches``: smooth
patches bounded by sharp edges, connected pieces, protrusions such as handles and legs) and returns one part id
per face: a full segmentation of the shell.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import torch

from seed3d.asset import Mesh, PhysicalMaterial
from seed3d.errors import InvalidInputError
from seed3d.nn import farthest_point_sample
from seed3d.parts.model import PartSegmenter, ShapeFeatures
from seed3d.parts.patches import FaceGraph, RefineConfig, refine_parts
from seed3d.parts.prior import MaterialPrior, SizePrior
from seed3d.progress import heartbeat
from seed3d.typed import PathType

log = logging.getLogger(__name__)

#: Half of the longest bounding-box side in the normalised frame the model was trained in.
EXTENT = 0.9
#: Faces a second ``_clean_faces`` gets through on a busy CPU (what its heartbeat expects; 84k in 6 s under a load
#: of 10 on 2 cores, eval/results/progress.json).
CLEAN_FACES_PER_S = 14_000


@dataclass
class SegmentConfig:
    """Settings of automatic segmentation."""

    prompts: int = 64
    """Prompt points (farthest-point samples of the encoded points)."""
    nms_iou: float = 0.5
    """A mask overlapping a better one by more than this IoU is dropped."""
    min_score: float = 0.3
    """Masks whose predicted IoU is below this are dropped (one mask is always kept)."""
    min_points: int = 4
    """Masks claiming fewer encoded points are dropped."""
    max_edge: float = 0.02
    """Faces are subdivided until no edge is longer than this fraction of the bounding-box diagonal."""
    smooth_iterations: int = 3
    """Rounds of giving a face whose neighbours all disagree with it their most common part."""
    min_island: float = 0.002
    """Connected pieces of a part smaller than this fraction of the total area join their neighbours."""
    seed: int = 0
    """Seed of the surface sampling."""
    refine: bool = True
    """Refine mesh segmentations with the shell's geometry (patches, connected pieces, protrusions)."""
    refine_config: RefineConfig = field(default_factory=RefineConfig)
    """Settings of that refinement."""
    size_prior_weight: float = 0.5
    """Exponent of the model folder's label-size prior (``seed3d.parts.prior``) on the prompts' label
    probabilities when relabelling refined parts (0: ignore it); no effect without one."""
    label_prompts: int = 2
    """Refined parts holding fewer prompts than this get more, at faces of their own, before they are relabelled:
    small parts the farthest-point prompts miss (buttons, knobs) are labelled by the model rather than after the
    part they were cut from (0: no extra prompts)."""
    merge_agreement: float = 0.5
    """Adjacent refined parts with the same label merge when the masks of prompts inside each cover at least this
    share of the other's area, on average over the two ways round (geometry cuts a lever handle into facets the
    model sees as one part); above 1: never."""


@dataclass
class PointSegmentation:
    """Parts of a point set: a part id per point, and per part its label and score."""

    part: np.ndarray
    labels: list[str]
    scores: list[float]


@dataclass
class MeshSegmentation:
    """Parts of a mesh: the (subdivided) mesh, a part id per face, and per part its label and score."""

    mesh: Mesh
    face_part: np.ndarray
    labels: list[str]
    scores: list[float]
    prompts: np.ndarray | None = None
    """Positions (K, 3) of every prompt on the mesh, for relabelling parts after refinement."""
    prompt_labels: np.ndarray | None = None
    """The model's label probabilities (K, L) at each prompt (columns: the model's label names)."""
    label_names: list[str] | None = None
    """The label names of ``prompt_labels``'s columns."""

    @property
    def num_parts(self) -> int:
        """Number of parts."""
        return len(self.labels)

    def part_mesh(self, k: int) -> Mesh:
        """The faces of part ``k`` as a mesh of their own (an open patch of the shell)."""
        faces = self.mesh.faces[self.face_part == k]
        used, inverse = np.unique(faces, return_inverse=True)
        return Mesh(self.mesh.vertices[used], inverse.reshape(-1, 3))


def normalisation(points: np.ndarray) -> tuple[np.ndarray, float]:
    """(offset, scale) mapping meters to the model's frame: ``(x - offset) * scale``."""
    lo, hi = points.min(0), points.max(0)
    half = float((hi - lo).max()) / 2
    if not np.isfinite(half) or half <= 0:
        raise InvalidInputError("the shape has no extent (all points coincide)")
    return (lo + hi) / 2, EXTENT / half


class Segmenter:
    """A trained ``PartSegmenter`` with automatic segmentation of point sets and meshes."""

    def __init__(self, model: PartSegmenter, config: SegmentConfig | None = None, device: str = "cpu",
                 size_prior: SizePrior | None = None, material_prior: MaterialPrior | None = None) -> None:
        self.model = model.to(device).eval()
        self.config = config or SegmentConfig()
        self.device = device
        self.size_prior = size_prior
        self.material_prior = material_prior

    @classmethod
    def from_pretrained(cls, path: PathType, config: SegmentConfig | None = None, device: str = "cpu"
                        ) -> Segmenter:
        """Load the model folder at ``path`` (``weights/part-segmenter``) with its label-size and label-material
        priors when it has them."""
        return cls(PartSegmenter.from_pretrained(path, device), config, device, SizePrior.load(path),
                   MaterialPrior.load(path))

    def physical(self, label: str, mesh: Mesh | None = None, context: Iterable[str] = ()) -> PhysicalMaterial:
        """The material a part with ``label`` most likely is (the material prior's commonest for the label, or its
        likeliest beside the labels of the asset's other parts, ``context``; the default plastic without a prior
        or for a label it never saw); given the part's closed ``mesh``, its density scaled down when the part
        holds more volume than its label's wall times its area (``MaterialPrior.material``)."""
        found = None if self.material_prior is None else self.material_prior.material(label, mesh, context)
        return found if found is not None else PhysicalMaterial()

    def _tensor(self, a: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(np.asarray(a, np.float32), device=self.device)[None]

    @torch.no_grad()
    def _encode(self, points: np.ndarray, normals: np.ndarray,
                edges: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> ShapeFeatures:
        """The model's encoding of a seeded draw of ``points`` (and ``edges``), normalised frame."""
        model = self.model
        n_edge = model.config.edge_points if edges is not None else 0
        n = model.config.num_points - n_edge
        rng = np.random.default_rng(self.config.seed)
        sel = rng.choice(len(points), n, replace=len(points) < n)
        xyz, nrm, flag = points[sel], normals[sel], np.zeros(n, bool)
        if n_edge and edges is not None:
            esel = rng.choice(len(edges[0]), n_edge, replace=len(edges[0]) < n_edge)
            xyz = np.concatenate([xyz, edges[0][esel]])
            nrm = np.concatenate([nrm, edges[1][esel]])
            flag = np.concatenate([flag, edges[2][esel]])
        return model.encode(self._tensor(xyz), self._tensor(nrm), torch.as_tensor(flag, device=self.device)[None])

    def _mesh_inputs(self, shell: Mesh) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]
                                                 | None, np.ndarray, float]:
        """Seeded surface (and sharp-edge) samples of ``shell`` in the normalised frame, with that frame."""
        points, normals, _ = shell.sample_surface(self.model.config.num_points * 4, self.config.seed)
        offset, scale = normalisation(shell.vertices)
        edges = None
        if self.model.config.edge_points:
            e_pts, e_nrm, e_on = shell.sample_sharp_edges(self.model.config.edge_points * 4, self.config.seed)
            edges = ((e_pts - offset) * scale, e_nrm, e_on)
        return (points - offset) * scale, normals, edges, offset, scale

    @torch.no_grad()
    def _prompted(self, points: np.ndarray, normals: np.ndarray, num_parts: int | None,
                  edges: tuple[np.ndarray, np.ndarray, np.ndarray] | None
                  ) -> tuple[ShapeFeatures, torch.Tensor, torch.Tensor, list[str], list[float],
                             tuple[np.ndarray, np.ndarray]]:
        """Encode, prompt and suppress: features, kept queries and prompt positions, labels, scores, and every
        prompt's position and label probabilities."""
        cfg, model = self.config, self.model
        feat = self._encode(points, normals, edges)
        k = min(cfg.prompts, feat.points.shape[1])
        prompt_idx = farthest_point_sample(feat.points, k)
        q, pxyz = model.prompt_queries(feat, prompt_idx)
        logits = model.mask_logits(q, pxyz, feat.points, feat.point_feat)[0]      # K, n
        scores = model.iou_head(q).squeeze(-1)[0]
        label_prob = model.label_head(q)[0].softmax(-1)
        hard = logits > 0
        order = torch.argsort(scores, descending=True).tolist()
        kept: list[int] = []
        for i in order:
            size = int(hard[i].sum())
            if size < cfg.min_points or (kept and float(scores[i]) < cfg.min_score):
                continue
            if kept:
                inter = (hard[kept] & hard[i]).sum(-1).float()
                union = (hard[kept] | hard[i]).sum(-1).float().clamp(min=1)
                if float((inter / union).max()) > cfg.nms_iou:
                    continue
            kept.append(i)
            if num_parts is not None and len(kept) == num_parts:
                break
        if not kept:
            kept = [order[0]]
        # drop masks that claim (almost) nothing once every point goes to its strongest mask
        for _ in range(2):
            owner = logits[kept].argmax(0)
            counts = torch.bincount(owner, minlength=len(kept))
            keep = [kk for kk, c in zip(kept, counts.tolist(), strict=True) if c >= cfg.min_points]
            if len(keep) == len(kept) or not keep:
                break
            kept = keep
        owner = logits[kept].argmax(0)
        prompt_owner = owner[prompt_idx[0]]
        labels: list[str] = []
        for j, i in enumerate(kept):
            voters = (prompt_owner == j).nonzero().flatten()
            prob = label_prob[voters].mean(0) if len(voters) else label_prob[i]
            labels.append(model.config.labels[int(prob.argmax())])
        kept_t = torch.as_tensor(kept, device=self.device)
        every = (pxyz[0].cpu().numpy().astype(np.float64), label_prob.cpu().numpy().astype(np.float64))
        return feat, q[:, kept_t], pxyz[:, kept_t], labels, [round(float(scores[i]), 4) for i in kept], every

    @torch.no_grad()
    def _assign(self, feat: ShapeFeatures, q: torch.Tensor, pxyz: torch.Tensor, points: np.ndarray,
                normals: np.ndarray, chunk: int = 16384,
                progress: Callable[[float], None] | None = None) -> np.ndarray:
        """The part each point falls in, ``chunk`` points at a time (``progress(fraction)`` after each chunk)."""
        out = []
        for s in range(0, len(points), chunk):
            xyz, nrm = self._tensor(points[s:s + chunk]), self._tensor(normals[s:s + chunk])
            pf = self.model.features_at(feat, xyz, nrm)
            out.append(self.model.mask_logits(q, pxyz, xyz, pf)[0].argmax(0).cpu().numpy())
            if progress is not None:
                progress(min(s + chunk, len(points)) / len(points))
        return np.concatenate(out) if out else np.zeros(0, np.int64)

    def segment_points(self, points: np.ndarray, normals: np.ndarray, num_parts: int | None = None,
                       edges: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> PointSegmentation:
        """Parts of surface ``points`` with unit ``normals`` (N, 3), any frame; ``num_parts`` fixes the count.

        ``edges`` = (points, normals, on-edge flags) sampled on sharp edges, for models trained with them."""
        points, normals = np.asarray(points, np.float64), np.asarray(normals, np.float64)
        if points.ndim != 2 or points.shape[1] != 3 or normals.shape != points.shape or len(points) < 8:
            raise InvalidInputError(f"need (N >= 8, 3) points and normals, got {points.shape} and {normals.shape}")
        if num_parts is not None and num_parts < 1:
            raise InvalidInputError(f"num_parts must be at least 1, got {num_parts}")
        offset, scale = normalisation(points)
        pn = (points - offset) * scale
        if edges is not None:
            edges = ((np.asarray(edges[0], np.float64) - offset) * scale, np.asarray(edges[1], np.float64),
                     np.asarray(edges[2], bool))
        feat, q, pxyz, labels, scores, _ = self._prompted(pn, normals, num_parts, edges)
        part = self._assign(feat, q, pxyz, pn, normals)
        return _compact(part, labels, scores)

    def segment_mesh(self, mesh: Mesh, num_parts: int | None = None,
                     progress: Callable[[float, str], None] | None = None) -> MeshSegmentation:
        """Parts of a mesh (one shell or several pieces): a part id per face of the subdivided mesh
        (``progress(fraction, message)`` after each step)."""
        import trimesh

        report = progress or (lambda f, m: None)
        cfg = self.config
        if not len(mesh.faces):
            raise InvalidInputError("the mesh has no faces")
        if num_parts is not None and num_parts < 1:
            raise InvalidInputError(f"num_parts must be at least 1, got {num_parts}")
        diag = float(np.linalg.norm(np.ptp(mesh.vertices, axis=0)))
        verts, faces = trimesh.remesh.subdivide_to_size(mesh.vertices, mesh.faces, cfg.max_edge * diag,
                                                        max_iter=12)
        tm = trimesh.Trimesh(verts, faces, process=True)
        shell = Mesh(np.asarray(tm.vertices), np.asarray(tm.faces))
        # each step's share of the progress is its share of the time (eval/results/progress.json: sampling and
        # prompting 2 s, assigning 7 s, cleaning 6 s, refining 24 s on 2 busy cores)
        report(0.02, "sampling the surface")
        points, normals, edges, offset, scale = self._mesh_inputs(shell)
        report(0.04, "prompting the segmenter")
        feat, q, pxyz, labels, scores, (p_xyz, p_prob) = self._prompted(points, normals, num_parts, edges)
        report(0.08, "assigning faces to parts")
        centres = (np.asarray(tm.triangles_center) - offset) * scale
        face_part = self._assign(feat, q, pxyz, centres, np.asarray(tm.face_normals),
                                 progress=lambda f: report(0.08 + 0.17 * f, "assigning faces to parts"))
        report(0.25, "cleaning part boundaries")
        with heartbeat(report, 0.25, 0.4, f"cleaning part boundaries of {len(tm.faces) / 1000:.0f}k faces",
                       expected_s=max(1.0, len(tm.faces) / CLEAN_FACES_PER_S)):  # one opaque graph pass
            face_part = _clean_faces(tm, face_part, cfg)
        seg = _compact(face_part, labels, scores)
        out = MeshSegmentation(shell, seg.part, seg.labels, seg.scores, p_xyz / scale + offset, p_prob,
                               list(self.model.config.labels))
        if cfg.refine:
            report(0.4, "refining parts by geometry")
            out = self.refine(out, num_parts, progress=lambda f, m: report(0.4 + 0.6 * f, m))
        report(1.0, f"{out.num_parts} parts")
        return out

    def refine(self, seg: MeshSegmentation, num_parts: int | None = None,
               progress: Callable[[float, str], None] | None = None) -> MeshSegmentation:
        """``seg`` refined with its mesh's geometry (``seed3d.parts.patches.refine_parts``); ``num_parts`` caps the
        count. A refined part holding fewer than ``label_prompts`` prompts is topped up to that many, at faces of
        its own; every part holding prompts then takes the label their mean probabilities favour (as
        ``segment_mesh`` labels masks), weighed by the label-size prior of its share of the area when there is
        one. A part without (no prompts kept, or ``label_prompts`` 0) keeps its source part's label, or, split off
        by geometry alone, ``protrusion_label``. Adjacent parts with the same label then merge where the model
        sees them as one (``merge_agreement``). ``progress(fraction, message)`` after each step."""
        report = progress or (lambda f, m: None)
        graph = FaceGraph.from_mesh(seg.mesh.vertices, seg.mesh.faces)
        report(0.02, "splitting parts by geometry")  # shares of the time: splitting is quick, merging is most
        ref = refine_parts(graph, seg.face_part, self.config.refine_config, num_parts,
                           progress=lambda f: report(0.02 + 0.06 * f, "splitting parts by geometry"))
        labels = [protrusion_label(seg.labels[o], bool(b)) if made else seg.labels[o]
                  for o, made, b in zip(ref.origin.tolist(), ref.protrusion, ref.below, strict=True)]
        scores = [seg.scores[o] for o in ref.origin.tolist()]
        prompts, prompt_labels = seg.prompts, seg.prompt_labels
        face_part = ref.face_part
        ours = seg.label_names == list(self.model.config.labels)
        probe = _Probe(self, seg.mesh, graph) if ours else None
        if prompts is not None and prompt_labels is not None and seg.label_names is not None:
            from scipy.spatial import cKDTree

            n = len(labels)
            _, face = cKDTree(graph.centres).query(prompts)
            owner = face_part[face]
            if probe is not None:
                report(0.08, "prompting the refined parts")
                extra = self._part_prompts(probe, face_part, np.bincount(owner, minlength=n))
                if extra is not None:
                    prompts = np.concatenate([prompts, extra[1]])
                    prompt_labels = np.concatenate([prompt_labels, extra[2]])
                    owner = np.concatenate([owner, extra[0]])
            sums = np.zeros((n, prompt_labels.shape[1]))
            np.add.at(sums, owner, prompt_labels)
            hits = np.bincount(owner, minlength=n)
            voted = hits > 0
            score = np.log(sums / np.maximum(hits, 1)[:, None] + 1e-6)
            prior, weight = self.size_prior, float(self.config.size_prior_weight)
            if prior is not None and weight > 0:
                share = np.bincount(face_part, weights=graph.area, minlength=n) / graph.area.sum()
                column = [prior.labels.index(name) if name in prior.labels else -1 for name in seg.label_names]
                for k in np.flatnonzero(voted):
                    row = prior.score(float(share[k]))
                    score[k] += weight * np.array([row[c] if c >= 0 else 0.0 for c in column])
            labels = [seg.label_names[int(score[k].argmax())] if voted[k] else labels[k] for k in range(n)]
        if probe is not None:
            report(0.1, "merging parts the model sees as one")
            face_part = self._merge_agreeing(probe, face_part, labels,
                                             progress=lambda f: report(0.1 + 0.9 * f,
                                                                       "merging parts the model sees as one"))
        report(1.0, "refined")
        out = _compact(face_part, labels, scores)
        return MeshSegmentation(seg.mesh, out.part, out.labels, out.scores, prompts, prompt_labels, seg.label_names)

    @torch.no_grad()
    def _part_prompts(self, probe: _Probe, face_part: np.ndarray, hits: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Prompts topping up the parts of ``face_part`` with fewer than ``label_prompts`` ``hits``: (part, position,
        label probabilities) per prompt, or None when no part needs any."""
        want = int(self.config.label_prompts)
        need = np.flatnonzero(hits < want) if want > 0 else np.zeros(0, np.int64)
        if not len(need):
            return None
        picked = [probe.inner_faces(face_part, k, want - int(hits[k])) for k in need.tolist()]
        faces = np.concatenate(picked)
        prob = self.model.label_head(probe.queries(faces))[0].softmax(-1).cpu().numpy().astype(np.float64)
        owners = np.concatenate([np.full(len(f), k, np.int64) for k, f in zip(need.tolist(), picked, strict=True)])
        return owners, probe.graph.centres[faces], prob

    @torch.no_grad()
    def _merge_agreeing(self, probe: _Probe, face_part: np.ndarray, labels: list[str],
                        progress: Callable[[float], None] | None = None) -> np.ndarray:
        """``face_part`` with adjacent parts of the same label merged where the model's masks, prompted at faces
        inside each, cover the other's area by at least ``merge_agreement`` on average over the two ways round (a
        big part whose masks spill over small neighbours, as a cooktop's over its burners, is not enough).
        ``progress(fraction)`` after the shell's encoding and each pair."""
        report = progress or (lambda _f: None)
        need = float(self.config.merge_agreement)
        graph = probe.graph
        a, b = face_part[graph.pairs[:, 0]], face_part[graph.pairs[:, 1]]
        across = a != b
        pairs = sorted({(int(min(x, y)), int(max(x, y))) for x, y in zip(a[across], b[across], strict=True)
                        if labels[x] == labels[y]})
        if need > 1 or not pairs:
            return face_part
        probe._encoding()  # the one costly step before the pairs (made once per shell)
        report(0.4)
        queries: dict[int, tuple[torch.Tensor, np.ndarray]] = {}

        def cover(src: int, dst: int) -> float:
            """Share of part ``dst``'s area inside the masks of prompts in part ``src`` (mean over prompts)."""
            if src not in queries:
                faces = probe.inner_faces(face_part, src, 3)
                queries[src] = (probe.queries(faces), faces)
            q, faces = queries[src]
            dst_faces = np.flatnonzero(face_part == dst)
            inside = probe.mask_share(q, faces, dst_faces)
            area = graph.area[dst_faces]
            return float((inside * area).sum() / max(float(area.sum()), 1e-30))

        root = list(range(len(labels)))

        def find(k: int) -> int:
            while root[k] != k:
                root[k] = root[root[k]]
                k = root[k]
            return k

        for i, (x, y) in enumerate(pairs):
            if find(x) != find(y) and (cover(x, y) + cover(y, x)) / 2 >= need:
                root[find(y)] = find(x)
            report(0.4 + 0.6 * (i + 1) / len(pairs))
        merged = np.array([find(k) for k in range(len(labels))], np.int64)
        if np.any(merged != np.arange(len(labels))):
            log.debug("merged %d same-label parts the model sees as one", int(np.sum(merged != np.arange(len(labels)))))
        return merged[face_part]


class _Probe:
    """The model's view of a mesh segmentation's shell: an encoding (made on first use) and prompts at faces."""

    def __init__(self, segmenter: Segmenter, shell: Mesh, graph: FaceGraph) -> None:
        self.segmenter, self.shell, self.graph = segmenter, shell, graph
        v, f = graph.vertices, graph.faces
        normals = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
        self.normals = normals / np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-30)
        self._encoded: tuple[ShapeFeatures, np.ndarray, float] | None = None

    def _encoding(self) -> tuple[ShapeFeatures, np.ndarray, float]:
        if self._encoded is None:
            s = self.segmenter
            points, normals, edges, offset, scale = s._mesh_inputs(self.shell)
            self._encoded = (s._encode(points, normals, edges), offset, scale)
        return self._encoded

    def _at(self, faces: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        _, offset, scale = self._encoding()
        s = self.segmenter
        return s._tensor((self.graph.centres[faces] - offset) * scale), s._tensor(self.normals[faces])

    def inner_faces(self, face_part: np.ndarray, k: int, count: int) -> np.ndarray:
        """Up to ``count`` faces of part ``k`` spread over it, among those whose neighbours are all its own when
        it has any."""
        pairs = self.graph.pairs
        edge = np.zeros(len(face_part), bool)
        edge[pairs[face_part[pairs[:, 0]] != face_part[pairs[:, 1]]].ravel()] = True
        faces = np.flatnonzero(face_part == k)
        inner = faces[~edge[faces]]
        pool = inner if len(inner) else faces
        return pool[_spread(self.graph.centres[pool], self.graph.area[pool], count)]

    def queries(self, faces: np.ndarray) -> torch.Tensor:
        """Prompt queries (1, K, W) at the centres of ``faces``."""
        feat = self._encoding()[0]
        xyz, nrm = self._at(faces)
        return self.segmenter.model.queries_at(feat, xyz, nrm)

    def mask_share(self, q: torch.Tensor, prompt_faces: np.ndarray, faces: np.ndarray, chunk: int = 16384
                   ) -> np.ndarray:
        """Per face of ``faces``, the share of the prompts (queries ``q`` at ``prompt_faces``) whose mask holds it."""
        model, feat = self.segmenter.model, self._encoding()[0]
        pxyz, _ = self._at(prompt_faces)
        out = []
        for s in range(0, len(faces), chunk):
            xyz, nrm = self._at(faces[s:s + chunk])
            logits = model.mask_logits(q, pxyz, xyz, model.features_at(feat, xyz, nrm))[0]
            out.append((logits > 0).float().mean(0).cpu().numpy())
        return np.concatenate(out) if out else np.zeros(0)


def _spread(centres: np.ndarray, area: np.ndarray, count: int) -> np.ndarray:
    """Indices of up to ``count`` of ``centres`` far from each other, the first nearest the area-weighted centre."""
    count = min(count, len(centres))
    middle = (centres * area[:, None]).sum(0) / max(float(area.sum()), 1e-30)
    chosen = [int(np.argmin(np.linalg.norm(centres - middle, axis=1)))]
    dist = np.linalg.norm(centres - centres[chosen[0]], axis=1)
    while len(chosen) < count:
        nxt = int(np.argmax(dist))
        if dist[nxt] <= 0:
            break
        chosen.append(nxt)
        dist = np.minimum(dist, np.linalg.norm(centres - centres[nxt], axis=1))
    return np.asarray(chosen, np.int64)


def protrusion_label(parent: str, below: bool) -> str:
    """Label of a protrusion split off a part labelled ``parent``: a handle on a door, drawer or lid, a leg when
    it hangs below its anchor, else the parent's label."""
    if parent in ("door", "drawer", "lid"):
        return "handle"
    if below:
        return "leg"
    return parent


def match_parts(pred: np.ndarray, truth: np.ndarray, weights: np.ndarray | None = None
                ) -> tuple[float, dict[int, int], np.ndarray]:
    """Match predicted to true parts one to one by IoU (Hungarian); returns the mean IoU over the true parts
    (an unmatched true part counts 0), the matching {pred: truth} and the IoU of each true part.

    ``pred`` and ``truth`` hold a part id per element (point or face); ``weights`` (e.g. face areas) weigh them.
    """
    from scipy.optimize import linear_sum_assignment

    pred, truth = np.asarray(pred, np.int64), np.asarray(truth, np.int64)
    if pred.shape != truth.shape or pred.ndim != 1 or not len(pred):
        raise InvalidInputError(f"pred and truth must be equal-length 1-D id arrays, got {pred.shape}, {truth.shape}")
    w = np.ones(len(pred)) if weights is None else np.asarray(weights, np.float64)
    n_p, n_t = int(pred.max()) + 1, int(truth.max()) + 1
    inter = np.zeros((n_p, n_t))
    np.add.at(inter, (pred, truth), w)
    size_p, size_t = inter.sum(1), inter.sum(0)
    union = size_p[:, None] + size_t[None, :] - inter
    iou = np.where(union > 0, inter / np.maximum(union, 1e-30), 0.0)
    rows, cols = linear_sum_assignment(-iou)
    per_truth = np.zeros(n_t)
    matching: dict[int, int] = {}
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        if iou[r, c] > 0:
            matching[r] = c
            per_truth[c] = iou[r, c]
    present = size_t > 0
    return float(per_truth[present].mean()), matching, per_truth


def _compact(part: np.ndarray, labels: list[str], scores: list[float]) -> PointSegmentation:
    """Renumber parts 0..P-1 in order of first use of the body, then by size (empty parts dropped)."""
    used, counts = np.unique(part, return_counts=True)
    order = sorted(zip(used.tolist(), counts.tolist(), strict=True),
                   key=lambda uc: (labels[uc[0]] != "body", -uc[1]))
    remap = np.full(len(labels), -1, np.int64)
    for new, (old, _) in enumerate(order):
        remap[old] = new
    return PointSegmentation(remap[part], [labels[o] for o, _ in order], [scores[o] for o, _ in order])


def _clean_faces(tm: object, face_part: np.ndarray, cfg: SegmentConfig) -> np.ndarray:
    """Smooth isolated faces and fold islands smaller than ``cfg.min_island`` of the area into neighbours."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    adj = np.asarray(tm.face_adjacency)  # type: ignore[attr-defined]
    area = np.asarray(tm.area_faces)  # type: ignore[attr-defined]
    part = face_part.copy()
    if not len(adj):
        return part
    n_parts = int(part.max()) + 1
    for _ in range(cfg.smooth_iterations):
        votes = np.zeros((len(part), n_parts))
        np.add.at(votes, (adj[:, 0], part[adj[:, 1]]), 1)
        np.add.at(votes, (adj[:, 1], part[adj[:, 0]]), 1)
        lonely = (votes[np.arange(len(part)), part] == 0) & (votes.sum(1) > 0)
        if not lonely.any():
            break
        part[lonely] = votes[lonely].argmax(1)
    total = float(area.sum())
    n = len(part)
    for _ in range(3):
        same = adj[part[adj[:, 0]] == part[adj[:, 1]]]
        graph = coo_matrix((np.ones(len(same)), (same[:, 0], same[:, 1])), shape=(n, n))
        count, label = connected_components(graph, directed=False)
        comp_area = np.bincount(label, weights=area, minlength=count)
        comp_part = np.zeros(count, np.int64)
        comp_part[label[::-1]] = part[::-1]  # any face's part: a piece lies in one part
        # the biggest piece of each part stays; smaller pieces under the threshold join their neighbours, smallest
        # first (pieces numbered by their first face, as a search from face 0 upward finds them)
        biggest = np.zeros(n_parts)
        np.maximum.at(biggest, comp_part, comp_area)
        small = np.flatnonzero((comp_area < cfg.min_island * total) & (comp_area < biggest[comp_part]))
        if not len(small):
            break
        members = np.argsort(label, kind="stable")
        starts = np.searchsorted(label[members], np.arange(count + 1))
        changed = False
        for c in small[np.argsort(comp_area[small], kind="stable")]:
            idx = members[starts[c]:starts[c + 1]]
            inside = np.zeros(n, bool)
            inside[idx] = True
            border = adj[inside[adj[:, 0]] ^ inside[adj[:, 1]]]
            outside = np.where(inside[border[:, 0]], border[:, 1], border[:, 0])
            if not len(outside):
                continue
            part[idx] = np.bincount(part[outside]).argmax()
            changed = True
        if not changed:
            break
    return part
