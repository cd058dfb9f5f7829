"""The OpenAPI document: FastAPI's, plus every rule the server enforces that JSON Schema can state.

A request the document calls valid is accepted (or refused for what no schema can know: a full queue, an unknown
upload token, an image whose pixels do not decode); a request it calls invalid is refused with a problem
document. The rules: a generation needs a text, an image or an upload token (one image at most); texts hold at
least one character that is not white space and no control characters, within this server's length limit;
``steps`` and ``resolution`` within this server's limits; program parameters only with a generator that has
them; multipart lists are comma-separated names; a cursor is a page's ``next_cursor``; an Idempotency-Key is
printable ASCII. The ``image`` of a JSON request is a base64 ``data:`` URI (format ``image-data-uri``) and a
multipart or upload file an image (format ``binary``): PNG, JPEG or WebP whose sides and pixel count are within
the limits the descriptions give.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from api.schemas import FORMATS, OPTIONAL_STAGES, PARAM_NAME, GenerationRequest, SceneRequest
from api.settings import Settings

#: A text the server takes (``api.inputs.check_text``): no control characters (Unicode category Cc but tab, LF and
#: CR; nor U+FFFD) and at least one character that is neither a control character nor white space
#: (``str.isspace``, spelt out: ``\s`` differs between regex engines).
_ALLOWED = r"[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffd]"
_VISIBLE = r"[^\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufffd]"
TEXT_PATTERN = f"^{_ALLOWED}*{_VISIBLE}{_ALLOWED}*$"
#: A multipart list (``stages``, ``formats``): names separated by commas, spaces around them allowed.
LIST_PATTERN = r"^ *[a-z]+( *, *[a-z]+)* *$"


def list_pattern(names: tuple[str, ...], most: int) -> str:
    """``LIST_PATTERN`` for lists of at most ``most`` of ``names``."""
    item = f"({'|'.join(names)})"
    return f"^ *{item}( *, *{item}){{0,{most - 1}}} *$"


#: A pagination cursor: the position ``next_cursor`` gave (a job's sequence number, 1 to 10**18 - 1).
CURSOR_PATTERN = r"^[1-9][0-9]{0,17}$"
#: An Idempotency-Key: 1 to 255 printable ASCII characters, no spaces.
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]{1,255}$"
#: A JSON request's image: a base64 data URI of a PNG, JPEG or WebP image.
DATA_URI_PATTERN = r"^data:image/(png|jpeg|webp);base64,([A-Za-z0-9+/]{4})+([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"


def text_matches(text: str) -> bool:
    """Whether ``text`` matches ``TEXT_PATTERN`` (the server's own check, ``api.inputs.check_text``, agrees)."""
    return re.fullmatch(TEXT_PATTERN, text) is not None


def _string(prop: dict[str, Any]) -> dict[str, Any]:
    """The string branch of a pydantic ``str | None`` property."""
    for branch in prop.get("anyOf", [prop]):
        if branch.get("type") == "string":
            return branch
    raise KeyError("no string branch")


def _present(field: str, form: bool = False) -> dict[str, Any]:
    """``field`` is given: in JSON, as a string (null counts as absent); in a form, at all (a form has no null,
    and its files are bytes, not strings)."""
    return {"required": [field]} if form else {"required": [field], "properties": {field: {"type": "string"}}}


def _generation_rules(form: bool) -> list[dict[str, Any]]:
    """The cross-field rules of a generation request (JSON, or with ``form`` multipart)."""
    sources = ("text", "image", "upload_token")
    images = [_present(f, form) for f in ("image", "upload_token")]
    params = {"type": "object", "minProperties": 1}
    both = {"required": ["image", "upload_token"]}
    if not form:
        both["properties"] = {f: {"type": "string"} for f in ("image", "upload_token")}
    return [
        {"anyOf": [_present(f, form) for f in sources]},  # something to make the object from
        {"not": both},  # one image at most
        {"not": {"required": ["params", "generator"],  # the learned path has no program parameters
                 "properties": {"params": params, "generator": {"const": "learned"}}}},
        {"not": {"required": ["params"], "properties": {"params": params, "generator": {"const": "auto"}},
                 "anyOf": images}},  # with an image, auto may take the learned path: say program
    ]


def _stated(schema: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """``schema`` with the server's rules and this server's limits written into it."""
    comps = schema["components"]["schemas"]
    built = _built_optional_stages()
    gen = comps["GenerationRequest"]
    props = gen["properties"]
    _string(props["text"]).update(minLength=1, maxLength=settings.max_text_chars, pattern=TEXT_PATTERN)
    _string(props["image"]).update(pattern=DATA_URI_PATTERN, format="image-data-uri", description=(
        f"The image as a base64 data URI (data:image/png;base64,...): PNG, JPEG or WebP, at most "
        f"{settings.max_image_bytes} bytes and {settings.max_image_pixels} pixels, each side {settings.min_image_side}"
        f" to {settings.max_image_side} pixels, the longer at most {settings.max_image_aspect:g} times the shorter."))
    for name, limit in (("steps", settings.max_steps), ("resolution", settings.max_resolution)):
        for branch in props[name].get("anyOf", [props[name]]):
            if branch.get("type") == "integer":
                branch["maximum"] = min(branch.get("maximum", limit), limit)
    for branch in props["stages"].get("anyOf", [props["stages"]]):
        if branch.get("type") == "array":
            branch["items"] = {"type": "string", "enum": list(built)}
    for branch in props["params"]["anyOf"]:
        if branch.get("type") == "object":
            branch["propertyNames"] = {"pattern": PARAM_NAME.pattern}
    gen["allOf"] = _generation_rules(form=False)
    scene = comps["SceneRequest"]
    scene["properties"]["text"].update(maxLength=settings.max_text_chars, pattern=TEXT_PATTERN)
    for branch in scene["properties"]["room_size"].get("anyOf", []):
        if branch.get("type") == "array":
            branch["items"] = {"type": "number", "minimum": 0.5, "maximum": 50.0}

    paths = schema["paths"]
    form = paths["/v1/generations"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    fprops = form["properties"]
    for name, prop in props.items():  # numbers and choices as in JSON; lists as comma-separated names
        if name in ("image", "stages", "formats"):
            continue
        branch = next((b for b in prop.get("anyOf", [prop]) if b.get("type") != "null"), prop)
        fprops[name] = {k: v for k, v in {**branch, "description": prop.get("description")}.items() if v is not None
                        and k not in ("title", "default")}
    fprops["image"] = {"type": "string", "format": "binary", "description": props["image"]["anyOf"][0]["description"]
                       .replace("as a base64 data URI (data:image/png;base64,...)", "file")}
    for name, names in (("stages", built), ("formats", FORMATS)):
        most = next(b for b in props[name]["anyOf"] if b.get("type") == "array")["maxItems"]
        fprops[name] = {"type": "string", "pattern": list_pattern(names, most),
                        "description": f"at most {most} of {', '.join(names)}, separated by commas"}
    form["additionalProperties"] = False
    form["allOf"] = _generation_rules(form=True)
    upload = paths["/v1/uploads"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    upload["properties"]["file"].update(minLength=1, description=fprops["image"]["description"])
    upload["additionalProperties"] = False

    for operations in paths.values():
        for op in operations.values():
            for param in op.get("parameters", []):
                if param["name"] == "cursor":
                    param["schema"] = {"type": "string", "pattern": CURSOR_PATTERN,
                                       "description": "a page's next_cursor, unchanged"}
                elif param["name"] == "Idempotency-Key":
                    param["schema"] = {"type": "string", "pattern": IDEMPOTENCY_KEY_PATTERN,
                                       "description": "1 to 255 printable ASCII characters, no spaces"}
    return schema


def _built_optional_stages() -> tuple[str, ...]:
    from seed3d.pipeline import BUILT_STAGES

    return tuple(s for s in OPTIONAL_STAGES if s in BUILT_STAGES)


def build_openapi(app: FastAPI, settings: Settings) -> dict[str, Any]:
    """The app's OpenAPI document (built once, then cached on the app)."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    comps = schema.setdefault("components", {}).setdefault("schemas", {})
    for model in (GenerationRequest, SceneRequest):
        doc = model.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, sub in doc.pop("$defs", {}).items():
            comps.setdefault(name, sub)
        comps[model.__name__] = copy.deepcopy(doc)
    schema["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
    schema["security"] = [{"bearer": []}, {}]
    app.openapi_schema = _stated(schema, settings)
    return app.openapi_schema


__all__ = ["CURSOR_PATTERN", "DATA_URI_PATTERN", "IDEMPOTENCY_KEY_PATTERN", "LIST_PATTERN", "TEXT_PATTERN",
           "build_openapi", "list_pattern", "text_matches"]
