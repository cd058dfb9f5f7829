"""Backend selection and cross-backend agreement of triangle ids, barycentrics and masks."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import numpy as np
import pytest

from seed3d.errors import DependencyError, InvalidInputError
from seed3d.render import BACKENDS, Camera, RasterBackend, RenderMesh, fixed_views, get_renderer, random_views
from seed3d.render import backends as backends_module
from tests.render.conftest import make_renderer

EDGE_EPS = 1e-3  # a pixel centre this close (in barycentric terms) to a triangle edge is ambiguous


def test_auto_picks_a_working_backend() -> None:
    with get_renderer("auto") as r:
        assert r.backend_name in BACKENDS
        if importlib.util.find_spec("nvdiffrast") is None:
            assert r.backend_name != "nvdiffrast"


def test_unknown_backend_is_an_input_error() -> None:
    with pytest.raises(InvalidInputError, match="unknown render backend"):
        get_renderer("vulkan")


@pytest.mark.skipif(importlib.util.find_spec("nvdiffrast") is not None, reason="nvdiffrast is installed here")
def test_missing_nvdiffrast_raises_dependency_error() -> None:
    with pytest.raises(DependencyError, match="nvdiffrast"):
        get_renderer("nvdiffrast")


def test_auto_lists_every_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(name: str) -> Callable[[], RasterBackend]:
        def make() -> RasterBackend:
            raise DependencyError(f"{name} is broken on purpose")
        return make

    monkeypatch.setattr(backends_module, "BACKENDS", {n: broken(n) for n in ("nvdiffrast", "moderngl", "open3d")})
    with pytest.raises(DependencyError) as info:
        get_renderer("auto")
    for name in ("nvdiffrast", "moderngl", "open3d"):
        assert f"{name}: {name} is broken on purpose" in str(info.value)


def _agreement(target: RenderMesh, cams: list[Camera]) -> dict[str, float]:
    a, b = make_renderer("moderngl"), make_renderer("open3d")
    total = differ = foreground = 0
    unexplained = 0
    bary_err = 0.0
    for cam in cams:
        ra, rb = a.rasterize(target, cam), b.rasterize(target, cam)
        d = ra.tri_id != rb.tri_id
        total += d.size
        differ += int(d.sum())
        foreground += int((ra.mask | rb.mask).sum())
        # every disagreement must sit on the edge of a triangle one backend saw there (a shared edge, a
        # silhouette or the border of an occluding part): the pixel centre is ambiguous, not misplaced
        on_edge = (ra.mask & (ra.bary.min(axis=-1) < EDGE_EPS)) | (rb.mask & (rb.bary.min(axis=-1) < EDGE_EPS))
        unexplained += int((d & ~on_edge).sum())
        same = ~d & ra.mask
        if same.any():
            bary_err = max(bary_err, float(np.abs(ra.bary[same] - rb.bary[same]).max()))
    a.close()
    b.close()
    return {"all": 1 - differ / total, "foreground": 1 - differ / foreground, "unexplained": unexplained,
            "bary_err": bary_err}


@pytest.mark.parametrize("target_name", ["cabinet", "sphere"])
def test_moderngl_and_open3d_agree(target_name: str, request: pytest.FixtureRequest) -> None:
    target = request.getfixturevalue(target_name)
    cams = fixed_views(target, 96) + random_views(target, 6, seed=11, width=96)
    stats = _agreement(target, cams)
    assert stats["all"] >= 0.995
    assert stats["foreground"] >= 0.995
    assert stats["unexplained"] == 0, stats
    assert stats["bary_err"] < 1e-3, stats
