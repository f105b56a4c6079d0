"""The full model's forward pass on one onnxruntime thread in the test processes.

`OnnxEncoder` asks onnxruntime for two threads (`onnx_encoder.THREADS`), a user's
two-core budget. The suite runs a process per core, so the second thread mostly waits,
spinning, for a core another worker holds: the semantic floor's 121 queries took 9.6
CPU-s with two threads and 4.9 with one (tests/eval/test_eval.py, the same table), as
tests/conftest.py found for BLAS. The vectors do not depend on the threads
(tests/semantic/test_onnx_encoder.py compares one-thread vectors with numpy's pass).
"""

from __future__ import annotations

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
