"""OpenGL rasteriser through moderngl on a headless EGL context (Mesa llvmpipe on CPU; any EGL GPU driver too).

The mesh is drawn de-indexed (three vertices per face) so the vertex shader knows each corner's index and
hands the fragment shader perspective-correct barycentrics; ``gl_PrimitiveID`` is the face index. No face
culling: back faces are rasterised like front faces, as the ray-casting backends see them.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

from seed3d.errors import DependencyError
from seed3d.render.backends.base import Raster, RasterBackend, clip_range
from seed3d.render.camera import Camera
from seed3d.render.geometry import RenderMesh

log = logging.getLogger(__name__)

_VERTEX = """
#version 330
uniform mat4 clip_from_local;
in vec3 in_pos;
out vec3 v_bary;
void main() {
    int corner = gl_VertexID % 3;
    v_bary = vec3(corner == 0 ? 1.0 : 0.0, corner == 1 ? 1.0 : 0.0, corner == 2 ? 1.0 : 0.0);
    gl_Position = clip_from_local * vec4(in_pos, 1.0);
}
"""

_FRAGMENT = """
#version 330
in vec3 v_bary;
layout(location = 0) out int out_id;
layout(location = 1) out vec4 out_bary;
void main() {
    out_id = gl_PrimitiveID + 1;
    out_bary = vec4(v_bary, 0.0);
}
"""


def _create_context() -> Any:
    try:
        import moderngl
    except ImportError as exc:
        raise DependencyError("the moderngl backend needs moderngl: pip install moderngl==5.13.0") from exc
    try:
        return moderngl.create_standalone_context(backend="egl", require=330)
    except Exception as first:
        if os.environ.get("EGL_PLATFORM"):
            raise DependencyError(f"could not create a headless EGL OpenGL 3.3 context ({first}); install Mesa's "
                                  "EGL (Debian: libegl1 libegl-mesa0 libgl1-mesa-dri)") from first
        # Mesa without a display server picks the wrong platform unless told to render off-screen.
        os.environ["EGL_PLATFORM"] = "surfaceless"
        log.info("EGL context failed (%s); retrying with EGL_PLATFORM=surfaceless", first)
        try:
            return moderngl.create_standalone_context(backend="egl", require=330)
        except Exception as exc:
            raise DependencyError(f"could not create a headless EGL OpenGL 3.3 context ({exc}); install Mesa's "
                                  "EGL (Debian: libegl1 libegl-mesa0 libgl1-mesa-dri)") from exc


class ModernGLBackend(RasterBackend):
    """Headless OpenGL rasterisation (moderngl + EGL); use an instance from the thread that created it."""

    name = "moderngl"

    def __init__(self) -> None:
        super().__init__()
        self.ctx = _create_context()
        self.renderer_info = str(self.ctx.info.get("GL_RENDERER", "?"))
        self.program = self.ctx.program(vertex_shader=_VERTEX, fragment_shader=_FRAGMENT)
        self._fbo: Any = None
        self._size: tuple[int, int] = (0, 0)
        log.debug("moderngl backend on %s", self.renderer_info)

    def rasterize(self, mesh: RenderMesh, camera: Camera) -> Raster:
        """Triangle ids and barycentrics (the GL context is made current for the call)."""
        with self.ctx:
            return super().rasterize(mesh, camera)

    def _framebuffer(self, width: int, height: int) -> Any:
        if self._size != (width, height):
            self._release_fbo()
            ids = self.ctx.renderbuffer((width, height), components=1, dtype="i4")
            bary = self.ctx.renderbuffer((width, height), components=4, dtype="f4")  # RGBA32F: always renderable
            depth = self.ctx.depth_renderbuffer((width, height))
            self._fbo = self.ctx.framebuffer([ids, bary], depth)
            self._size = (width, height)
        return self._fbo

    def _release_fbo(self) -> None:
        if self._fbo is not None:
            for att in (*self._fbo.color_attachments, self._fbo.depth_attachment):
                att.release()
            self._fbo.release()
            self._fbo, self._size = None, (0, 0)

    def _upload(self, mesh: RenderMesh) -> Any:
        # Vertices relative to the bounds centre keep float32 precise for assets far from the origin.
        centre = mesh.bounds.mean(axis=0)
        corners = (mesh.vertices[mesh.faces] - centre).astype("f4")
        vbo = self.ctx.buffer(corners.tobytes())
        vao = self.ctx.vertex_array(self.program, [(vbo, "3f", "in_pos")])
        return vbo, vao, centre

    def _release(self, handle: Any) -> None:
        vbo, vao, _ = handle
        vao.release()
        vbo.release()

    def _rasterize(self, handle: Any, mesh: RenderMesh, camera: Camera) -> Raster:
        import moderngl

        _, vao, centre = handle
        w, h = camera.width, camera.height
        near, far = clip_range(mesh, camera)
        fbo = self._framebuffer(w, h)
        fbo.use()
        fbo.viewport = (0, 0, w, h)
        fbo.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)  # integer attachment cleared to bit pattern 0 = background
        self.ctx.enable(moderngl.DEPTH_TEST)
        self.ctx.disable(moderngl.CULL_FACE)
        local_to_world = np.eye(4)
        local_to_world[:3, 3] = centre  # vertices were uploaded relative to the centre
        clip = camera.clip_matrix(near, far) @ local_to_world
        self.program["clip_from_local"].write(clip.astype("f4").T.tobytes())  # GL wants column-major
        vao.render(moderngl.TRIANGLES)
        ids = np.frombuffer(fbo.read(components=1, attachment=0, dtype="i4"), np.int32).reshape(h, w)
        bary = np.frombuffer(fbo.read(components=4, attachment=1, dtype="f4"), np.float32).reshape(h, w, 4)
        return Raster(ids - 1, np.ascontiguousarray(bary[..., :3]))  # cleared to 0 on the background

    def close(self) -> None:
        """Release GL objects and the context."""
        with self.ctx:
            super().close()
            self._release_fbo()
        self.ctx.release()
