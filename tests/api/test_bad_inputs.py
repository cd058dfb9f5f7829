"""Hostile and broken inputs each get the right 4xx as application/problem+json, and nothing is queued."""

from __future__ import annotations

import base64
import io
import struct
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from api import Settings, create_app
from tests.api.conftest import png_bytes

PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


def png_bomb(width: int, height: int) -> bytes:
    """A valid greyscale PNG of ``width`` x ``height`` black pixels: a few KB that decode to width * height bytes."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    comp = zlib.compressobj(9)
    row = b"\x00" * (width + 1)
    body = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def _uri(data: bytes, media: str = "image/png") -> str:
    return f"data:{media};base64," + base64.b64encode(data).decode()


def _problem(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json"), r.headers
    doc = r.json()
    assert doc["code"] == code, doc
    assert doc["status"] == status and doc["request_id"] == r.headers["x-request-id"]


@pytest.fixture
def client(make_settings: Callable[..., Settings]) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(max_image_pixels=4096 * 4096))) as c:
        yield c
        assert c.get("/healthz").json()["queue"]["queued"] == 0, "a bad request was queued"


def _each_image_route(client: TestClient, data: bytes, filename: str = "image.png",
                      media: str = "image/png") -> list[Any]:
    return [client.post("/v1/uploads", files={"file": (filename, data, media)}),
            client.post("/v1/generations", files={"image": (filename, data, media)}),
            client.post("/v1/generations", json={"image": _uri(data)})]


def test_truncated_png(client: TestClient) -> None:
    data = png_bytes(128, 128)
    for r in _each_image_route(client, data[: len(data) // 2]):
        _problem(r, 422, "invalid_image")


def test_decompression_bombs(client: TestClient) -> None:
    small_but_huge = png_bomb(5000, 5000)  # 25 megapixels over the 16.7 limit, in about 25 KB
    assert len(small_but_huge) < 100_000
    for r in _each_image_route(client, small_but_huge):
        _problem(r, 413, "image_too_many_pixels")
    header_only = png_bomb(20000, 20000)[:200]  # PIL's own bomb guard trips on the header
    for r in _each_image_route(client, header_only):
        _problem(r, 413, "image_too_many_pixels")


def _blank_png(width: int, height: int) -> bytes:
    """A black greyscale PNG of ``width`` x ``height`` compressed in one call (fast for 16 million rows)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    body = zlib.compress(b"\x00" * ((width + 1) * height), 9)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def test_images_of_unusable_shape_are_refused_at_submit(client: TestClient) -> None:
    strip = _blank_png(1, 16_777_216)  # exactly the pixel limit, in one column
    assert len(strip) < 200_000
    for r in _each_image_route(client, strip):
        _problem(r, 413, "image_side_too_long")
        assert "1 x 16777216 pixels" in r.json()["detail"] and "limit of 8192 pixels" in r.json()["detail"]
    for r in _each_image_route(client, _blank_png(2000, 100)):  # 20:1
        _problem(r, 422, "invalid_image_dimensions")
        assert "20:1" in r.json()["detail"] and "the limit is 8:1" in r.json()["detail"]
    for r in _each_image_route(client, _blank_png(8, 64)):
        _problem(r, 422, "invalid_image_dimensions")
        assert "at least 16 pixels" in r.json()["detail"]
    for data in (_blank_png(800, 100), _blank_png(16, 16)):  # at the limits: accepted
        assert client.post("/v1/uploads", files={"file": ("a.png", data, "image/png")}).status_code == 201


def test_pdf_named_png_and_other_formats(client: TestClient) -> None:
    for r in _each_image_route(client, PDF, "report.png"):
        _problem(r, 415, "unsupported_image")
    _problem(client.post("/v1/generations", json={"image": _uri(PDF, "application/pdf")}), 415, "unsupported_image")
    buf = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buf, format="GIF")
    for r in _each_image_route(client, buf.getvalue(), "a.gif", "image/gif"):
        _problem(r, 415, "unsupported_image")


def test_50_mb_bodies(client: TestClient) -> None:
    big = b"\x00" * (50 * 1024 * 1024)
    _problem(client.post("/v1/uploads", files={"file": ("big.png", big, "image/png")}), 413, "body_too_large")
    _problem(client.post("/v1/generations", content=b'{"text": "' + big + b'"}',
                         headers={"content-type": "application/json"}), 413, "body_too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit applies while reading
        yield b'{"text": "'
        for _ in range(50):
            yield b"a" * (1024 * 1024)
        yield b'"}'

    _problem(client.post("/v1/generations", content=chunks(), headers={"content-type": "application/json"}), 413,
             "body_too_large")
    _problem(client.post("/v1/scenes", content=chunks(), headers={"content-type": "application/json"}), 413,
             "body_too_large")


def test_oversized_image_under_the_body_limit(make_settings: Callable[..., Settings]) -> None:
    with TestClient(create_app(make_settings(max_image_bytes=10_000))) as c:
        data = png_bytes(256, 256) + b"\x00" * 20_000
        for r in _each_image_route(c, data):
            _problem(r, 413, "image_too_large")


def test_invalid_unicode(client: TestClient) -> None:
    _problem(client.post("/v1/generations", content=b'{"text": "caf\xe9 \xff"}',
                         headers={"content-type": "application/json"}), 400, "malformed_body")
    r = client.post("/v1/generations", content=b'{"text": "a \\ud800 chair"}',
                    headers={"content-type": "application/json"})
    assert r.status_code in (400, 422) and r.headers["content-type"].startswith("application/problem+json")
    _problem(client.post("/v1/generations", json={"text": "a\x00chair"}), 422, "invalid_text")
    _problem(client.post("/v1/scenes", json={"text": "a room\x07"}), 422, "invalid_text")
    _problem(client.post("/v1/generations", files={"text": (None, b"caf\xe9 \xff", "text/plain")}), 400,
             "malformed_body")
    _problem(client.post("/v1/generations", json={"text": "a \ufffd chair"}), 422, "invalid_text")
    _problem(client.post("/v1/generations", content=b"{not json", headers={"content-type": "application/json"}),
             400, "malformed_body")


def test_negative_seed_and_out_of_range_options(client: TestClient) -> None:
    _problem(client.post("/v1/generations", json={"text": "a chair", "seed": -1}), 422, "validation_failed")
    _problem(client.post("/v1/generations", files={"text": (None, "a chair"), "seed": (None, "-1")}), 422,
             "validation_failed")
    _problem(client.post("/v1/scenes", json={"text": "a room", "seed": -5}), 422, "validation_failed")
    _problem(client.post("/v1/generations", json={"text": "a chair", "seed": "zero"}), 422, "validation_failed")
    _problem(client.post("/v1/generations", json={"text": "a chair", "steps": 10_000}), 422, "validation_failed")
    _problem(client.post("/v1/generations", json={"text": "a chair", "resolution": 1024}), 422,
             "validation_failed")
    _problem(client.post("/v1/generations", json={"text": "a chair", "sneaky": 1}), 422, "validation_failed")
    _problem(client.post("/v1/generations", json={"text": "x" * 5000}), 422, "invalid_text")
    _problem(client.post("/v1/generations", json=["a list"]), 422, "validation_failed")


def test_unknown_format_and_stage(client: TestClient) -> None:
    _problem(client.post("/v1/generations", json={"text": "a chair", "formats": ["obj"]}), 422, "validation_failed")
    _problem(client.post("/v1/generations", files={"text": (None, "a chair"), "formats": (None, "glb,fbx")}), 422,
             "validation_failed")
    _problem(client.post("/v1/generations", json={"text": "a chair", "formats": []}), 422, "validation_failed")
    _problem(client.post("/v1/generations", json={"text": "a chair", "stages": ["paint"]}), 422,
             "validation_failed")


def _field(r: Any, field: str, status: int = 422) -> None:
    """A refusal whose detail names ``field`` first (as ``field: why`` or in the schema's error locations)."""
    _problem(r, status, "validation_failed")
    doc = r.json()
    assert doc["detail"].startswith(f"{field}") or any(e["loc"][:1] == [field] for e in doc.get("errors", [])), doc


def test_bad_generator_and_params(client: TestClient) -> None:
    def post(body: dict[str, Any]) -> Any:
        return client.post("/v1/generations", json=body)

    _field(post({"text": "a cabinet", "generator": "magic"}), "generator")
    _field(post({"text": "a cabinet", "generator": 1}), "generator")
    _field(post({"text": "a cabinet", "params": ["doors", 3]}), "params")
    _field(post({"text": "a cabinet", "params": {"Doors!": 3}}), "params")
    _field(post({"text": "a cabinet", "params": {"doors": {"n": 3}}}), "params")
    _field(post({"text": "a cabinet", "params": {"hinge": []}}), "params")
    _field(post({"text": "a cabinet", "params": {"finish": "x" * 500}}), "params")
    _field(post({"text": "a cabinet", "params": {f"p{i}": 1 for i in range(65)}}), "params")
    _field(post({"text": "a cabinet", "generator": "learned", "params": {"doors": 3}}), "params")
    _field(post({"image": _uri(png_bytes(16, 16)), "params": {"doors": 3}}), "params")
    _field(post({"text": "a cabinet", "image": _uri(png_bytes(16, 16)), "params": {"doors": 3}}), "params")
    _field(client.post("/v1/generations", files={"text": (None, "a cabinet"), "params": (None, "doors=3")}), "params")
    _field(client.post("/v1/generations", files={"text": (None, "a cabinet"), "generator": (None, "best")}),
           "generator")


def test_path_traversal_in_file_names(client: TestClient, make_settings: Callable[..., Settings]) -> None:
    data_dir = make_settings().data_dir
    r = client.post("/v1/uploads", files={"file": ("../../../../tmp/owned.png", png_bytes(), "image/png")})
    assert r.status_code == 201  # the name is ignored: the file is stored under the server's token
    token = r.json()["upload_token"]
    assert [p.name for p in (data_dir / "uploads").iterdir()] == [f"{token}.png"]
    job = client.post("/v1/generations", json={"text": "a box"}).json()
    client.post(job["links"]["cancel"])
    for name in ("..%2F..%2Fseed3d.db", "%2E%2E%2F%2E%2E%2Fseed3d.db", "..%5C..%5Cseed3d.db", "input.png",
                 "%2Fetc%2Fpasswd"):
        r = client.get(f"/v1/generations/{job['id']}/files/{name}")
        assert r.status_code == 404 and r.headers["content-type"].startswith("application/problem+json"), name
    r = client.get("/v1/generations/..%2F..%2Fseed3d.db")
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/problem+json")


def test_wrong_content_types(client: TestClient) -> None:
    _problem(client.post("/v1/generations", content=b"text=a chair",
                         headers={"content-type": "application/x-www-form-urlencoded"}), 415, "unsupported_media_type")
    _problem(client.post("/v1/generations", content=b"a chair", headers={"content-type": "text/plain"}), 415,
             "unsupported_media_type")
    _problem(client.post("/v1/uploads", json={"file": "x"}), 415, "unsupported_media_type")
    _problem(client.post("/v1/uploads", files={"other": ("a.png", png_bytes(), "image/png")}), 422,
             "validation_failed")
    _problem(client.post("/v1/generations", json={"image": "not a data uri"}), 422, "invalid_image")
    _problem(client.post("/v1/generations", json={"image": "data:image/png;base64,@@@"}), 422, "invalid_image")
