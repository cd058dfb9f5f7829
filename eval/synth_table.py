"""The synth engine's category table, generated from the code: per category its parts and joint kinds beside
PartNet-Mobility's class.

Run: ``python eval/synth_table.py`` → rewrites the table between the markers in docs/synth.md
(``--check``: exit 1 when the file is out of date; ``--print``: write the table to stdout).

Seed 0 of every category is built; its parts are listed by label (with counts) and its movable joints by
functional kind (``seed3d.physics.functional.joint_kind``: a revolute door is a ``door``, a vertical prismatic
lid a ``lifting_lid``) and type. The kinds a category may have over all seeds are the functional checks' table
(``CATEGORY_KINDS``: required ones in bold). PartNet-Mobility's 46 classes are mapped in ``PARTNET_CLASS``;
the second table lists each class with the categories that build it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "synth.md"
START, END = "<!-- synth-table:start -->", "<!-- synth-table:end -->"

#: PartNet-Mobility's 46 object classes (its paper and dataset define them).
PARTNET_CLASSES: tuple[str, ...] = (
    "Bottle", "Box", "Bucket", "Camera", "Cart", "Chair", "Clock", "CoffeeMachine", "Dishwasher", "Dispenser",
    "Display", "Door", "Eyeglasses", "Fan", "Faucet", "FoldingChair", "Globe", "Kettle", "Keyboard", "KitchenPot",
    "Knife", "Lamp", "Laptop", "Lighter", "Microwave", "Mouse", "Oven", "Pen", "Phone", "Pliers", "Printer",
    "Refrigerator", "Remote", "Safe", "Scissors", "Stapler", "StorageFurniture", "Suitcase", "Switch", "Table",
    "Toaster", "Toilet", "TrashCan", "USB", "WashingMachine", "Window",
)

#: Our category → the PartNet-Mobility class it builds (categories not listed are other objects or room furniture).
PARTNET_CLASS: dict[str, str] = {
    "cabinet": "StorageFurniture", "wardrobe": "StorageFurniture", "nightstand": "StorageFurniture",
    "dresser": "StorageFurniture", "bookshelf": "StorageFurniture", "refrigerator": "Refrigerator",
    "microwave": "Microwave", "oven": "Oven", "dishwasher": "Dishwasher", "washing_machine": "WashingMachine",
    "box": "Box", "trash_can": "TrashCan", "bottle": "Bottle", "table": "Table", "chair": "Chair", "lamp": "Lamp",
    "laptop": "Laptop", "faucet": "Faucet", "door": "Door", "suitcase": "Suitcase",
    "scissors": "Scissors", "pliers": "Pliers", "eyeglasses": "Eyeglasses", "stapler": "Stapler", "pen": "Pen",
    "knife": "Knife", "usb": "USB", "lighter": "Lighter", "remote": "Remote", "phone": "Phone", "mouse": "Mouse",
    "switch": "Switch", "keyboard": "Keyboard",
    "bucket": "Bucket", "kettle": "Kettle", "toaster": "Toaster", "safe": "Safe", "toilet": "Toilet",
    "globe": "Globe", "clock": "Clock", "fan": "Fan", "display": "Display", "printer": "Printer",
    "dispenser": "Dispenser", "camera": "Camera", "coffee_machine": "CoffeeMachine", "window": "Window",
    "cart": "Cart", "kitchen_pot": "KitchenPot", "folding_chair": "FoldingChair",
}


def _counts(items: list[str]) -> str:
    out: dict[str, int] = {}
    for it in items:
        out[it] = out.get(it, 0) + 1
    return ", ".join(k if n == 1 else f"{k} ×{n}" for k, n in out.items())


def rows() -> list[dict[str, str]]:
    """One row per category, in ``seed3d synth --list`` order: name, class, parts, joints, kinds, description."""
    from seed3d.physics.functional import CATEGORY_KINDS, joint_kind
    from seed3d.synth import CATEGORIES, generate
    from seed3d.synth.decor import CATEGORIES as DECOR
    from seed3d.synth.rooms import CATEGORIES as ROOMS

    rooms = {c.name for c in (*ROOMS, *DECOR)}  # furniture, lamps, hood, curtains, rug: what rooms are furnished with
    out = []
    for name, cat in CATEGORIES.items():
        a = generate(name, 0)
        labels = {p.name: p.label for p in a.parts}
        joints = [f"{joint_kind(j.type, labels[j.child], j.axis)} ({j.type})" for j in a.joints if j.movable]
        table = CATEGORY_KINDS.get(name)
        if table is None:
            kinds = "?"
        else:
            need = [" or ".join(g) for g in table.expected]
            need_kinds = {k for g in table.expected for k in g}
            kinds = ", ".join([f"**{k}**" for k in need] + sorted(table.allowed - need_kinds)) or "none (nothing moves)"
        out.append({"category": name, "group": "room" if name in rooms else ("partnet" if name in PARTNET_CLASS
                                                                              else "other"),
                    "class": PARTNET_CLASS.get(name, "—"), "parts": _counts(sorted(labels.values())),
                    "joints": _counts(sorted(joints)) or "none", "kinds": kinds, "description": cat.description})
    return out


def render(rs: list[dict[str, str]]) -> str:
    """The markdown: the category tables (PartNet-Mobility classes, other objects, room furniture) and the
    class coverage table."""
    head = ("| Category | PartNet-Mobility class | Parts (seed 0, by label) | Movable joints (seed 0): kind (type) "
            "| Joint kinds over all seeds (**always**) | What it is |\n|---|---|---|---|---|---|\n")

    def table(group: str) -> str:
        return head + "".join(f"| `{r['category']}` | {r['class']} | {r['parts']} | {r['joints']} | {r['kinds']} "
                              f"| {r['description']} |\n" for r in rs if r["group"] == group)

    by_class: dict[str, list[str]] = {c: [] for c in PARTNET_CLASSES}
    for r in rs:
        if r["class"] in by_class:
            by_class[r["class"]].append(f"`{r['category']}`")
    covered = sum(1 for v in by_class.values() if v)
    groups = {g: sum(r["group"] == g for r in rs) for g in ("partnet", "other", "room")}
    lines = [
        f"{len(rs)} categories: {groups['partnet']} build PartNet-Mobility classes, {groups['other']} are other "
        f"household objects and {groups['room']} are room furniture and furnishings. Generated by "
        "`python eval/synth_table.py` from seed 0 of each category; do not edit by hand.", "",
        "### PartNet-Mobility classes", "", table("partnet"),
        "### Other objects", "", table("other"),
        "### Room furniture and furnishings (for scenes; not PartNet-Mobility classes)", "", table("room"),
        f"### PartNet-Mobility's {len(PARTNET_CLASSES)} classes: {covered} built", "",
        "| PartNet-Mobility class | Categories |\n|---|---|",
        *[f"| {c} | {', '.join(v) or '**not built**'} |" for c, v in by_class.items()], "",
    ]
    return "\n".join(lines)


def replace_between(text: str, table: str) -> str:
    """``text`` with the part between the markers replaced by ``table``."""
    if START not in text or END not in text:
        raise SystemExit(f"{DOC} has no {START} … {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table}\n{END}{tail}"


def main() -> int:
    """Write (or check) the table in docs/synth.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/synth.md is out of date")
    parser.add_argument("--print", action="store_true", help="print the table instead of writing it")
    args = parser.parse_args()
    table = render(rows())
    if args.print:
        print(table)
        return 0
    new = replace_between(DOC.read_text(), table)
    if args.check:
        same = new == DOC.read_text()
        print("docs/synth.md is up to date" if same else "docs/synth.md is out of date: run python eval/synth_table.py")
        return 0 if same else 1
    DOC.write_text(new)
    print(DOC)
    return 0


if __name__ == "__main__":
    sys.exit(main())
