"""The numpy forward pass of all-MiniLM-L6-v2 against what the model is known to give."""

from __future__ import annotations

import numpy as np

from tests.support.encoder_reference import REFERENCE


def test_the_vectors_are_the_reference_implementations(encoder) -> None:
    vecs = encoder.encode(list(REFERENCE))
    assert vecs.shape == (2, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    for vec, want in zip(vecs, REFERENCE.values(), strict=True):
        np.testing.assert_allclose(vec[: len(want)], want, atol=2e-5)


def test_paraphrases_are_close_and_unrelated_texts_are_not(encoder) -> None:
    pairs = [
        ("A man is eating food.", "A man is eating a piece of bread."),
        (
            "The nightly export job keeps timing out.",
            "Why does the overnight export time out every night?",
        ),
        ("How do I undo my last git commit?", "Revert the most recent commit in git"),
    ]
    unrelated = ["Quarterly revenue grew by ten percent.", "The cat sleeps on the sofa."]
    texts = [t for p in pairs for t in p] + unrelated
    v = encoder.encode(texts)
    sim = v @ v.T
    for i in range(len(pairs)):
        a, b = 2 * i, 2 * i + 1
        assert 0.5 < sim[a, b] < 0.95, (texts[a], texts[b], sim[a, b])
        others = [sim[a, j] for j in range(len(texts)) if j not in (a, b)]
        assert sim[a, b] > max(others), (texts[a], sim[a, b], max(others))
    for j in range(len(pairs) * 2, len(texts)):
        assert max(abs(sim[i, j]) for i in range(len(pairs) * 2)) < 0.2


def test_batching_and_padding_change_nothing(encoder) -> None:
    texts = [
        "short one",
        "a somewhat longer sentence about retrying failed uploads " * 3,
        "x " * 400,
    ]
    together = encoder.encode(texts)
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_long_texts_are_cut_at_256_tokens(encoder) -> None:
    text = "retry " * 2000
    assert len(encoder.token_ids([text])[0]) == 256
    longer = encoder.encode([text + " and something entirely different at the end"])
    np.testing.assert_allclose(longer, encoder.encode([text]), atol=1e-6)
    assert encoder.encode([]).shape == (0, 384)
