"""The category table in docs/synth.md is generated from the code and covers PartNet-Mobility's 46 classes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from seed3d.synth import CATEGORIES

SCRIPT = Path(__file__).resolve().parents[2] / "eval" / "synth_table.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("synth_table", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("synth_table", mod)
    spec.loader.exec_module(mod)
    return mod


def test_every_partnet_class_is_built() -> None:
    mod = _script()
    assert len(mod.PARTNET_CLASSES) == 46
    assert set(mod.PARTNET_CLASS) <= set(CATEGORIES)
    assert set(mod.PARTNET_CLASS.values()) == set(mod.PARTNET_CLASSES)


def test_docs_table_is_up_to_date() -> None:
    mod = _script()
    doc = mod.DOC.read_text()
    assert mod.replace_between(doc, mod.render(mod.rows())) == doc, "run python eval/synth_table.py"
    assert all(f"`{name}`" in doc for name in CATEGORIES)
