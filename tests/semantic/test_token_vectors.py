"""The static encoder (`token_vectors`): deterministic unit vectors, a bag of word meanings,
its table made only from the pinned weights and kept checked in the data dir."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccarchive.semantic.model_files import ModelError
from ccarchive.semantic.space import table_path
from ccarchive.semantic.token_vectors import TokenVectors, ensure_table

TEXTS = [
    "Why does the overnight export time out every night?",
    "the nightly invoice export timing out",
    "x",
    "A long answer " * 300,  # longer than the cut
    "日本語のテキストと emoji 🎉 and code `foo_bar()`",
]


@pytest.fixture(scope="module")
def static(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> TokenVectors:
    return TokenVectors(model_dir, tmp_path_factory.mktemp("data"))


def test_vectors_are_unit_length_and_the_same_alone_or_in_a_batch(static: TokenVectors) -> None:
    got = static.encode(TEXTS)
    assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    alone = np.stack([static.encode([t])[0] for t in TEXTS])
    np.testing.assert_array_equal(alone, got)  # no batch effect at all: a sum per text
    np.testing.assert_array_equal(static.encode(list(reversed(TEXTS)))[::-1], got)
    assert static.encode([]).shape == (0, 384)


WORDS = st.sampled_from(
    ["export", "invoice", "nightly", "the", "of", "a", "--flag", "foo_bar()", "日本語", "🎉"]
)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.lists(WORDS | st.text(max_size=8), max_size=12).map(" ".join),
        max_size=6,
    )
)
def test_any_texts_get_unit_vectors_or_none_in_their_order(
    static: TokenVectors, texts: list[str]
) -> None:
    got = static.encode(texts)
    norms = np.linalg.norm(got, axis=1)
    ids = static.token_ids(texts)
    for text, n, tokens, row in zip(texts, norms, ids, got, strict=True):
        if any(t not in (0, 100, 101, 102, 103) for t in tokens):
            assert abs(n - 1.0) < 1e-5, text
            np.testing.assert_array_equal(row, static.encode([text])[0])
        else:  # nothing but unknown characters or spaces: no direction, no cosine
            assert n == 0.0, text


def test_a_bag_of_word_meanings_order_free_and_closer_for_related_words(
    static: TokenVectors,
) -> None:
    a, b = static.encode(["invoice export stalls at night", "at night export stalls invoice"])
    np.testing.assert_allclose(a, b, atol=1e-6)  # no word order: what it is not
    q, near, far = static.encode(
        [
            "why does the overnight billing dump stall",
            "the nightly invoice export keeps timing out",
            "my sourdough starter smells of nail polish",
        ]
    )
    assert q @ near > q @ far + 0.1


def test_the_table_is_made_once_kept_and_made_again_when_damaged(
    model_dir: Path, tmp_path: Path, static: TokenVectors
) -> None:
    path = ensure_table(model_dir, tmp_path)
    assert path == table_path(tmp_path) and path.with_suffix(".sha256").is_file()
    stamp = path.stat().st_mtime_ns
    assert ensure_table(model_dir, tmp_path) == path and path.stat().st_mtime_ns == stamp
    with path.open("r+b") as f:  # damaged: another size
        f.truncate(path.stat().st_size // 2)
    again = TokenVectors(model_dir, tmp_path)
    np.testing.assert_array_equal(again.encode(TEXTS), static.encode(TEXTS))


def test_weights_that_are_not_the_pinned_ones_are_refused(
    tampered_model_dir: Path, tmp_path: Path
) -> None:
    with pytest.raises(ModelError, match="not the pinned"):
        TokenVectors(tampered_model_dir, tmp_path / "data")
    assert not table_path(tmp_path / "data").exists()


def test_threads_encoding_at_once_get_each_their_own_vectors(static: TokenVectors) -> None:
    # the query path and the vector builder share one encoder
    from concurrent.futures import ThreadPoolExecutor

    batches = [[f"{t} {i}" for t in TEXTS] for i in range(16)]
    want = [static.encode(b) for b in batches]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(static.encode, batches))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
