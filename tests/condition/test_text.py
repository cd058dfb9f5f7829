"""The MiniLM text encoder: loads offline, shapes and masks, pooled embeddings, input checks, nouns' use of it."""

from __future__ import annotations

import socket
import threading
from typing import Any

import numpy as np
import pytest
import torch

from seed3d.condition import TEXT_DIM, TextEncoder, default_text_encoder
from seed3d.errors import InvalidInputError


@pytest.fixture(scope="module")
def encoder() -> TextEncoder:
    """A fresh encoder loaded with every network connection refused."""
    real = socket.socket.connect

    def refuse(self: socket.socket, *args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"network access attempted: {args}")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    try:
        enc = TextEncoder().load()
    finally:
        socket.socket.connect = real  # type: ignore[method-assign]
    return enc


def test_tokens_and_mask(encoder: TextEncoder) -> None:
    tokens, mask = encoder.encode_tokens(["a red chair", "a tall oak wardrobe with two doors and a drawer", ""])
    assert tokens.dtype == torch.float32 and mask.dtype == torch.bool
    assert tokens.shape[0] == 3 and tokens.shape[2] == TEXT_DIM and mask.shape == tokens.shape[:2]
    lengths = mask.sum(1).tolist()
    assert lengths[1] == tokens.shape[1] > lengths[0] > lengths[2] == 2  # the empty text is [CLS] [SEP]
    assert mask[0, : lengths[0]].all() and not mask[0, lengths[0]:].any()
    short, _ = encoder.encode_tokens("a red chair")
    torch.testing.assert_close(short[0], tokens[0, : lengths[0]], atol=1e-4, rtol=1e-4)  # padding is inert
    cut, cut_mask = encoder.encode_tokens(["word " * 100], max_length=16)
    assert cut.shape == (1, 16, TEXT_DIM) and cut_mask.all()
    layer = torch.nn.Linear(TEXT_DIM, 4)  # the tokens condition trainable layers: gradients must flow through
    layer(tokens).sum().backward()
    assert layer.weight.grad is not None and not tokens.requires_grad


def test_pooled_embeddings(encoder: TextEncoder) -> None:
    texts = ["a wooden chair", "a wooden chair", "a stool made of wood", "a stainless steel refrigerator"]
    emb = encoder.encode_pooled(texts)
    assert emb.shape == (4, TEXT_DIM) and emb.dtype == torch.float32
    torch.testing.assert_close(emb.norm(dim=1), torch.ones(4))
    assert torch.equal(emb[0], emb[1])
    sims = emb @ emb.T
    assert sims[0, 2] > sims[0, 3]
    torch.testing.assert_close(encoder.encode_pooled("a wooden chair")[0], emb[0], atol=1e-5, rtol=1e-5)
    assert encoder.encode_pooled([]).shape == (0, TEXT_DIM)


def test_bad_texts_are_rejected(encoder: TextEncoder) -> None:
    with pytest.raises(InvalidInputError, match="None"):
        encoder.encode_pooled(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="not a string"):
        encoder.encode_tokens(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="limit of 2000"):
        encoder.encode_tokens("x" * 2001)
    with pytest.raises(InvalidInputError, match="max_length"):
        encoder.encode_tokens("ok", max_length=1)


def test_concurrent_use_is_safe(encoder: TextEncoder) -> None:
    texts = [f"a chair number {i}" for i in range(4)]
    expected = encoder.encode_pooled(texts)
    results: list[torch.Tensor] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(encoder.encode_pooled(texts))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 4
    for r in results:
        torch.testing.assert_close(r, expected, atol=1e-5, rtol=1e-5)


def test_nouns_embed_with_this_encoder(encoder: TextEncoder) -> None:
    from seed3d.program import nouns

    words = ["wastebasket", "cooktop"]
    got = nouns.encode(words)
    assert got.dtype == np.float64 and got.shape == (2, TEXT_DIM)
    np.testing.assert_allclose(got, encoder.encode_pooled(words).numpy(), atol=1e-5)
    assert nouns._text_encoder() is default_text_encoder()
    assert nouns.encode([]).shape == (0, TEXT_DIM)
