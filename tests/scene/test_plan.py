"""seed3d.scene.plan: the rule parser (counts, attributes, relations), noun mapping, plan schema, LLM backend."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, ClassVar

import pytest

from seed3d.program import nouns
from seed3d.scene.plan import (
    PLAN_JSON_SCHEMA,
    LayoutPlan,
    LLMPlanner,
    PlanError,
    plan_scene,
)
from tests.scene._helpers import rels


def test_headline_sentence() -> None:
    plan = plan_scene("a kitchen with a fridge against the wall, a table with two chairs and a microwave on the "
                      "counter")
    assert plan.room.type == "kitchen" and plan.room.size == (4.0, 3.5, 2.6)
    groups = {g.id: g for g in plan.objects}
    assert groups["refrigerator"].noun == "fridge" and groups["chair"].count == 2
    assert groups["kitchen_counter"].noun == "counter"  # a counter is the kitchen counter (base units, sink)
    assert groups["table"].size == (0.8, 1.2, 0.75)  # chairs at a table: dining height
    assert {"against_wall(refrigerator, wall)", "next_to(chair, table)", "facing(chair, table)",
            "on(microwave, kitchen_counter)", "against_wall(kitchen_counter, wall)"} <= rels(plan)
    assert [r.source for r in plan.relations if r.subject == "kitchen_counter"] == ["default"]
    names = [i.name for i in plan.instances()]
    assert names == ["refrigerator", "table", "chair_1", "chair_2", "microwave", "kitchen_counter"]
    assert plan.supports() == {"microwave": "kitchen_counter"}


@pytest.mark.parametrize(("text", "counts"), [
    ("three chairs and 2 tables", {"chair": 3, "table": 2}),
    ("a pair of stools, a dozen boxes and one lamp on a table", {"stool": 2, "box": 12, "lamp": 1, "table": 1}),
    ("twelve mugs on the counter", {"mug": 12, "kitchen_counter": 1}),
])
def test_counts_in_words_and_digits(text: str, counts: dict[str, int]) -> None:
    plan = plan_scene(text)
    assert {g.category: g.count for g in plan.objects} == counts


def test_attributes_and_room_size() -> None:
    plan = plan_scene("a small red chair, a large wooden table and a white marble vase in a 5 x 4 m living room")
    g = {o.category: o for o in plan.objects}
    assert g["chair"].attributes == {"colour": "red", "material": None, "size": "small"}
    assert g["table"].attributes == {"colour": None, "material": "wood", "size": "large"}
    assert g["vase"].attributes["colour"] == "white marble"
    assert plan.room.type == "living room" and plan.room.size[:2] == (5.0, 4.0)
    small = plan_scene("a small kitchen with a fridge").room.size
    assert small[0] < 4.0 and plan_scene("a kitchen with a fridge", room_size=(6, 5)).room.size == (6.0, 5.0, 2.7)
    # size words scale the typical size per axis
    assert g["chair"].size is not None and g["chair"].size[2] == pytest.approx(0.9 * 0.8)


@pytest.mark.parametrize(("text", "expected"), [
    ("three chairs in a row against the back wall", {"in_row(chair)", "against_wall(chair, north)"}),
    ("a box under the table", {"under(box, table)"}),
    ("a trash can to the left of the fridge", {"left_of(trash_can, refrigerator)"}),
    ("a stool to the right of the workbench", {"right_of(stool, table)"}),
    ("a chair in front of the desk", {"in_front_of(chair, desk)"}),
    ("a coffee table in the middle of the room", {"centred(table, room)"}),
    ("two chairs facing each other", {"facing(chair, chair)"}),
    ("a desk with a lamp on it and two chairs", {"on(lamp, desk)", "next_to(chair, desk)"}),
    ("a lamp next to the bookshelf", {"next_to(lamp, bookshelf)"}),
    ("four chairs around a table", {"next_to(chair, table)", "facing(chair, table)"}),
    ("a dresser against the east wall", {"against_wall(dresser, east)"}),
])
def test_relations(text: str, expected: set[str]) -> None:
    assert expected <= rels(plan_scene(text))


def test_defaults_add_supports_and_wall_placement() -> None:
    plan = plan_scene("an office with a laptop and a bookshelf")
    cats = {g.category for g in plan.objects}
    assert "table" in cats  # a laptop needs something to stand on
    assert any("added a table" in n for n in plan.notes)
    assert {"on(laptop, table)", "against_wall(bookshelf, wall)"} <= rels(plan)
    empty = plan_scene("a kitchen")  # no object named: the room type's defaults
    assert {"refrigerator", "oven", "cabinet"} <= {g.category for g in empty.objects}


def test_room_grows_when_the_objects_need_it() -> None:
    plan = plan_scene("an office with six desks and six chairs")
    assert plan.room.size[0] * plan.room.size[1] > 3.6 * 3.2
    assert any("enlarged" in n for n in plan.notes)
    fixed = plan_scene("a 3 x 3 m office with six desks and six chairs")
    assert fixed.room.size[:2] == (3.0, 3.0)


# --------------------------------------------------------------------------------------------- nouns


@pytest.fixture(scope="module")
def mapper() -> nouns.NounMapper:
    """A mapper whose MiniLM model is loaded with every network connection refused."""
    real = socket.socket.connect

    def refuse(self: socket.socket, *args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"network access attempted: {args}")

    nouns._ENCODER = None  # load it here, under the guard
    socket.socket.connect = refuse  # type: ignore[method-assign]
    try:
        m = nouns.NounMapper(cache=False)
        m.embeddings()
    finally:
        socket.socket.connect = real  # type: ignore[method-assign]
    return m


def test_unknown_nouns_map_or_are_rejected(mapper: nouns.NounMapper) -> None:
    assert mapper.map("fridges").method == "exact" and mapper.map("fridges").category == "refrigerator"
    head = mapper.map("office chair")
    assert (head.category, head.method) == ("chair", "head")
    for noun, category in (("wastebasket", "trash_can"), ("cooktop", "oven"), ("garbage can", "trash_can")):
        near = mapper.map(noun)
        assert (near.method, near.category) == ("embedding", category)
        assert near.similarity >= nouns.SIMILARITY_THRESHOLD
    for noun in ("elephant", "airplane", "banana"):
        miss = mapper.map(noun)
        assert miss.category is None and miss.similarity < nouns.SIMILARITY_THRESHOLD
        assert "not an object Seed3D can build" in miss.message and repr(miss.word) in miss.message


def test_plan_reports_rejected_nouns(mapper: nouns.NounMapper) -> None:
    from seed3d.scene.plan import RulePlanner

    plan = RulePlanner(mapper).plan("a bedroom with an elephant and a wardrobe")
    assert [g.category for g in plan.objects] == ["wardrobe"]
    assert plan.rejected[0]["noun"] == "elephant" and plan.rejected[0]["similarity"] < nouns.SIMILARITY_THRESHOLD
    with pytest.raises(PlanError, match=r"nothing to build.*'elephant'"):
        RulePlanner(mapper).plan("an elephant")


# --------------------------------------------------------------------------------------------- schema


def test_plan_json_round_trip_and_schema() -> None:
    plan = plan_scene("a kitchen with a white fridge against the wall, a table with two chairs and a microwave on "
                      "the counter")
    doc = json.loads(plan.to_json())
    again = LayoutPlan.from_json(plan.to_json())
    assert again.to_dict() == doc
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, PLAN_JSON_SCHEMA)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(schema_version=2), "schema_version 2 is not supported"),
    (lambda d: d["objects"][0].update(category="piano"), r"objects\[0\].category 'piano' is not a synth category"),
    (lambda d: d["objects"][0].update(count=0), r"objects\[0\].count must be an integer"),
    (lambda d: d["objects"][1].update(id=d["objects"][0]["id"]), "is used twice"),
    (lambda d: d["relations"].append({"type": "hovering", "subject": "table", "target": None, "source": "text"}),
     "is not one of"),
    (lambda d: d["relations"].append({"type": "on", "subject": "table", "target": "nothing", "source": "text"}),
     "must be an object id"),
    (lambda d: d["relations"].append({"type": "on", "subject": "table", "target": "refrigerator",
                                      "source": "text"}) or d["relations"].append(
        {"type": "on", "subject": "refrigerator", "target": "table", "source": "text"}), "cycle"),
    (lambda d: d["room"].update(size=[0.1, 3, 2.5]), "out of range"),
])
def test_schema_validation_names_the_problem(change: Any, message: str) -> None:
    doc = plan_scene("a fridge and a table").to_dict()
    change(doc)
    with pytest.raises(PlanError, match=message):
        LayoutPlan.from_dict(doc)


# --------------------------------------------------------------------------------------------- LLM backend


class _Stub(BaseHTTPRequestHandler):
    answers: ClassVar[list[tuple[int, bytes]]] = []
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).seen.append({"path": self.path, "body": json.loads(body),
                                "auth": self.headers.get("Authorization")})
        status, payload = type(self).answers.pop(0)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def stub_server() -> Any:
    server = HTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Stub.answers, _Stub.seen = [], []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _chat(content: Any) -> bytes:
    text = content if isinstance(content, str) else json.dumps(content)
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()


def test_llm_planner_against_a_local_stub(stub_server: str) -> None:
    plan_doc = {
        "schema": "seed3d.layout_plan", "schema_version": 1, "text": "", "planner": "llm",
        "room": {"type": "kitchen", "size": [4.0, 3.0, 2.6]},
        "objects": [
            {"id": "fridge", "category": "refrigerator", "count": 1, "noun": "fridge",
             "attributes": {"colour": "white", "material": None, "size": None}, "size": None, "fixed": False,
             "description": "a white fridge"},
            {"id": "counter", "category": "countertop", "count": 1, "noun": "counter",
             "attributes": {"colour": None, "material": None, "size": None}, "size": None, "fixed": False,
             "description": "a counter"},
            {"id": "micro", "category": "microwave", "count": 1, "noun": "microwave",
             "attributes": {"colour": None, "material": None, "size": None}, "size": None, "fixed": False,
             "description": "a microwave"}],
        "relations": [{"type": "on", "subject": "micro", "target": "counter", "source": "text"},
                      {"type": "against_wall", "subject": "fridge", "target": "north", "source": "text"}],
        "notes": [], "rejected": []}
    _Stub.answers = [(200, _chat(plan_doc))]
    planner = LLMPlanner(stub_server, "tiny-model", api_key="k", timeout=5)
    plan = planner.plan("a kitchen with a fridge and a microwave on the counter")
    sent = _Stub.seen[0]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == "Bearer k"
    assert sent["body"]["response_format"]["type"] == "json_schema"
    assert sent["body"]["response_format"]["json_schema"]["schema"] == PLAN_JSON_SCHEMA
    assert plan.planner == "llm:tiny-model" and plan.group("counter").category == "kitchen_counter"  # mapped noun
    assert {"on(micro, counter)", "against_wall(fridge, north)", "against_wall(counter, wall)"} <= rels(plan)


@pytest.mark.parametrize(("answer", "message"), [
    ((200, _chat("this is not json")), "not JSON"),
    ((200, _chat({"schema": "seed3d.layout_plan", "schema_version": 1, "room": {"type": "x", "size": [1]}})),
     "does not follow the schema"),
    ((200, b'{"no": "choices"}'), "did not answer like a chat-completions endpoint"),
    ((500, b'{"error": "overloaded"}'), "HTTP 500"),
])
def test_llm_planner_errors_are_clear(stub_server: str, answer: tuple[int, bytes], message: str) -> None:
    _Stub.answers = [answer]
    with pytest.raises(PlanError, match=message):
        LLMPlanner(stub_server, "m", timeout=5).plan("a kitchen")


def test_llm_planner_unreachable() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(PlanError, match="cannot reach"):
        LLMPlanner(f"http://127.0.0.1:{port}/v1", "m", timeout=2).plan("a kitchen")
