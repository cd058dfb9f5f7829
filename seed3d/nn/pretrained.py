"""``save_pretrained`` / ``from_pretrained``: a model folder is ``config.json`` (its dataclass config) and
``model.safetensors`` (its state dict)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import torch

from seed3d.asset import atomic_dir
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.typed import PathType

M = TypeVar("M", bound="PretrainedMixin")


class PretrainedMixin:
    """Mixin for ``torch.nn.Module`` models built from one dataclass config (``config_class``)."""

    config_class: ClassVar[type]
    model_type: ClassVar[str]
    config: Any

    def save_pretrained(self, path: PathType, dtype: torch.dtype | None = None, overwrite: bool = False,
                        extra_files: dict[str, str] | None = None) -> Path:
        """Write ``config.json`` and ``model.safetensors`` (cast to ``dtype`` when given) atomically."""
        from safetensors.torch import save_file

        state = {k: (v.to(dtype) if dtype is not None and v.is_floating_point() else v).detach().cpu().contiguous()
                 for k, v in self.state_dict().items()}  # type: ignore[attr-defined]
        doc = {"model_type": self.model_type, **dataclasses.asdict(self.config)}
        with atomic_dir(path, overwrite=overwrite) as tmp:
            (tmp / "config.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
            save_file(state, str(tmp / "model.safetensors"), metadata={"model_type": self.model_type})
            for name, text in (extra_files or {}).items():
                (tmp / name).write_text(text)
        return Path(path)

    @classmethod
    def config_from_pretrained(cls, path: PathType) -> Any:
        """The config of a model folder written by ``save_pretrained``."""
        root = Path(path)
        cfg_path, weights = root / "config.json", root / "model.safetensors"
        if not cfg_path.is_file() or not weights.is_file():
            raise AssetFormatError(f"{root}: not a model folder (needs config.json and model.safetensors)")
        try:
            doc = json.loads(cfg_path.read_text())
        except json.JSONDecodeError as exc:
            raise AssetFormatError(f"{cfg_path}: not JSON ({exc})") from exc
        if doc.pop("model_type", None) != cls.model_type:
            raise AssetFormatError(f"{root}: not a {cls.model_type} model")
        names = {f.name for f in dataclasses.fields(cls.config_class)}
        unknown = sorted(set(doc) - names)
        if unknown:
            raise InvalidInputError(f"{cfg_path}: unknown config fields {unknown}")
        return cls.config_class(**{k: tuple(v) if isinstance(v, list) else v for k, v in doc.items()})

    @classmethod
    def from_pretrained(cls: type[M], path: PathType, device: str | torch.device = "cpu") -> M:
        """Load a model folder written by ``save_pretrained`` (weights cast to float32)."""
        from safetensors.torch import load_file

        config = cls.config_from_pretrained(path)
        weights = Path(path) / "model.safetensors"
        model = cls(config)  # type: ignore[call-arg]
        state = {k: v.float() if v.is_floating_point() else v for k, v in load_file(str(weights)).items()}
        missing, unexpected = model.load_state_dict(state, strict=False)  # type: ignore[attr-defined]
        if missing or unexpected:
            raise AssetFormatError(f"{weights}: weights do not fit the config (missing {list(missing)[:5]}, "
                                   f"unexpected {list(unexpected)[:5]})")
        return model.to(device).eval()  # type: ignore[attr-defined,no-any-return]
