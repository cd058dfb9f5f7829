"""Small assets that fail validation on purpose, cheaply (closed boxes: no convex decomposition), and a stand-in
pipeline that makes one, for tests of how jobs, the CLI, batches and the service report a failed asset."""

from __future__ import annotations

from typing import Any

import numpy as np
import trimesh

from seed3d.asset import Asset, Joint, Mesh, Part


def _box(size: tuple[float, float, float], centre: tuple[float, float, float]) -> Mesh:
    mesh = trimesh.creation.box(size)
    mesh.apply_translation(centre)
    return Mesh(mesh.vertices, mesh.faces)


def drawer_that_cannot_open(name: str = "cabinet") -> Asset:
    """A body and a drawer in front of it on a 1 mm slide: physically sound, not functional (a drawer slides at
    least 40 % of its 300 mm depth), so exactly ``functional.travel`` fails."""
    body = Part("body", _box((0.4, 0.5, 0.5), (0.0, 0.0, 0.25)))
    drawer = Part("drawer", _box((0.3, 0.4, 0.1), (0.351, 0.0, 0.35)), label="drawer")
    slide = Joint("drawer_slide", "prismatic", "body", "drawer", origin=np.array([0.2, 0.0, 0.35]),
                  axis=np.array([1.0, 0.0, 0.0]), lower=0.0, upper=0.001)
    return Asset(name, [body, drawer], [slide])


class FixedPipe:
    """Stands in for ``Seed3DPipeline``: every call makes ``drawer_that_cannot_open`` under the job's name."""

    def __call__(self, *, name: str | None = None, **_: Any) -> Asset:
        return drawer_that_cannot_open(name or "cabinet")
