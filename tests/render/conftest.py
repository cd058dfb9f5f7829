"""Shared fixtures of the renderer tests: one renderer per CPU backend (module-scoped), small test targets."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from seed3d.asset import Mesh
from seed3d.errors import DependencyError
from seed3d.render import Renderer, RenderMesh, create_backend
from seed3d.synth.primitives import demo_cabinet

CPU_BACKENDS = ("moderngl", "open3d")


def make_renderer(name: str) -> Renderer:
    """A Renderer on ``name``, or skip the test where that backend cannot run."""
    try:
        return Renderer(create_backend(name))
    except DependencyError as exc:
        pytest.skip(f"{name} backend unavailable: {exc}")


@pytest.fixture(scope="module", params=CPU_BACKENDS)
def renderer(request: pytest.FixtureRequest) -> Renderer:
    """A renderer on each CPU backend in turn."""
    r = make_renderer(request.param)
    yield r
    r.close()


@pytest.fixture(scope="module")
def cabinet() -> RenderMesh:
    """The demo cabinet as one RenderMesh (5 parts; the door is textured)."""
    return RenderMesh.from_asset(demo_cabinet())


@pytest.fixture(scope="module")
def sphere() -> RenderMesh:
    """An icosphere of radius 0.5 centred at (0, 0, 0.5) (1280 faces)."""
    ico = trimesh.creation.icosphere(subdivisions=3, radius=0.5)
    return RenderMesh.from_mesh(Mesh(np.asarray(ico.vertices) + [0, 0, 0.5], np.asarray(ico.faces)))
