"""The encoder on onnxruntime: the same vectors as the numpy pass, from a graph we write and
check, cached in the data dir."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from ccarchive.semantic.model_files import ModelError
from ccarchive.semantic.onnx_encoder import OnnxEncoder, ensure_graph, graph_path
from tests.support.encoder_reference import REFERENCE
from tests.support.encoders import with_graph, written_graph

TEXTS = [
    "This is an example sentence",
    "Why does the overnight export time out every night?",
    "x",
    "A long answer " * 120,  # cut at 256 tokens, as numpy's pass cuts it
    "日本語のテキストと emoji 🎉 and code `foo_bar()`",
]


@pytest.fixture(scope="module")
def graph_written_apart() -> Path:
    """The graph `with_graph` places, written once in this process
    (tests.support.encoders.py). Module-scoped, so that this module's tests share a worker
    (tests/conftest.py) and write it once between them: it is 1.3 CPU-s."""
    return written_graph()


@pytest.fixture(scope="module")
def onnx_encoder(
    model_dir: Path, graph_written_apart: Path, tmp_path_factory: pytest.TempPathFactory
) -> OnnxEncoder:
    # one thread: the suite runs a process per core (two spinning threads took a third
    # more CPU for the same vectors; tests/eval/harness.py `enable_semantic`)
    # its graph written once (tests.support.encoders.py); the writing is tested below
    return OnnxEncoder(model_dir, with_graph(tmp_path_factory.mktemp("data")), threads=1)


def test_the_graph_gives_numpys_vectors(onnx_encoder, encoder) -> None:
    got, want = onnx_encoder.encode(TEXTS), encoder.encode(TEXTS)
    assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
    np.testing.assert_allclose((got * want).sum(1), 1.0, atol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    for vec, ref in zip(onnx_encoder.encode(list(REFERENCE)), REFERENCE.values(), strict=True):
        np.testing.assert_allclose(vec[: len(ref)], ref, atol=5e-5)


def test_two_threads_give_the_same_vectors_and_never_spin(
    onnx_encoder, model_dir: Path, tmp_path: Path
) -> None:
    """A user's encoder runs two threads (`THREADS`), which wait for work without spinning
    on a core the indexer or the app needs (`NO_SPINNING`, with its measurement)."""
    two = OnnxEncoder(model_dir, with_graph(tmp_path / "data"))
    options = two.session.get_session_options()
    assert options.intra_op_num_threads == min(2, os.cpu_count() or 1)
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    np.testing.assert_allclose(two.encode(TEXTS), onnx_encoder.encode(TEXTS), atol=1e-5)


def test_order_and_batches_do_not_change_a_vector(onnx_encoder) -> None:
    alone = np.stack([onnx_encoder.encode([t])[0] for t in TEXTS])
    together = onnx_encoder.encode(list(reversed(TEXTS)))[::-1]
    np.testing.assert_allclose(alone, together, atol=1e-5)
    assert onnx_encoder.encode([]).shape == (0, 384)


def _many_batches(onnx_encoder: OnnxEncoder, every: int) -> None:
    """24 texts of 1 to 300 words, lengths shuffled: more tokens than two batches hold, so
    the batches are cut by length, each padded to its longest text, and the rows put back
    in the caller's order. Encoded together, each row is what that text gives alone, for
    every `every`-th text by length and the longest: a batch holds texts of consecutive
    lengths, at least 8 but the last one (`BATCH_TOKENS` over `MAX_TOKENS`), which holds
    the longest, so every 3rd checks each batch, short texts padded among long ones too."""
    from ccarchive.semantic.encoder import BATCH_TOKENS, MAX_TOKENS

    assert BATCH_TOKENS // MAX_TOKENS >= 8
    rng = np.random.default_rng(7)
    words = "retry upload flaky parser cache token window export invoice night".split()
    texts = [" ".join(rng.choice(words, int(n))) for n in rng.integers(1, 300, 24)]
    ids = onnx_encoder.token_ids(texts)
    assert sum(len(i) for i in ids) > 2 * BATCH_TOKENS
    together = onnx_encoder.encode(texts)
    by_length = sorted(range(len(texts)), key=lambda i: len(ids[i]))
    checked = sorted({*by_length[::every], by_length[-1]})
    alone = np.stack([onnx_encoder.encode([texts[i]])[0] for i in checked])
    np.testing.assert_allclose(together[checked], alone, atol=1e-5)


def test_texts_split_over_many_batches_keep_their_vectors_and_order(onnx_encoder) -> None:
    """Every 3rd text by length (and the longest) checked alone: each batch, at about a
    third of the cost of all 24
    (`test_every_text_split_over_many_batches_keeps_its_vector`, in the slow tier)."""
    _many_batches(onnx_encoder, every=3)


@pytest.mark.slow
def test_every_text_split_over_many_batches_keeps_its_vector(onnx_encoder) -> None:
    """All 24 texts encoded alone too (~2.5 CPU-s more): the suite checks every 3rd by
    length, which covers each batch
    (`test_texts_split_over_many_batches_keep_their_vectors_and_order`)."""
    _many_batches(onnx_encoder, every=1)


@pytest.mark.long
def test_the_graph_is_written_once_the_same_and_rewritten_when_damaged(
    model_dir: Path, graph_written_apart: Path, tmp_path: Path
) -> None:
    first = ensure_graph(model_dir, tmp_path / "a")
    again = graph_written_apart  # written apart, in this process
    assert first != again and first.read_bytes() == again.read_bytes()  # deterministic
    stamp = first.stat().st_mtime_ns
    assert ensure_graph(model_dir, tmp_path / "a") == first
    assert first.stat().st_mtime_ns == stamp  # kept, not rewritten
    with first.open("r+b") as f:  # damaged: another size
        f.truncate(first.stat().st_size // 2)
    assert ensure_graph(model_dir, tmp_path / "a").read_bytes() == again.read_bytes()


def test_weights_that_are_not_the_pinned_ones_are_refused(
    tampered_model_dir: Path, tmp_path: Path
) -> None:
    with pytest.raises(ModelError, match="not the pinned"):
        ensure_graph(tampered_model_dir, tmp_path / "data")
    assert not graph_path(tmp_path / "data").exists()
