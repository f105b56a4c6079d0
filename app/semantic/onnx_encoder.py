"""The sentence encoder on onnxruntime: the same network as `encoder.py`, several times faster.

The graph is written by `onnx_graph` from the safetensors weights, once, into the data
dir (`<data dir>/models/all-MiniLM-L6-v2/onnx/`), named by the weights' sha256 and the
graph's version; the weights are checked against the sha256 pinned in `model_files`
before a graph is written from them, and the graph's own sha256 is recorded beside it and
checked when it is loaded (a damaged or altered file is written again, never used).

It has `encode` and `token_ids` as `encoder.Encoder` has, so the builder and the query
path do not know which runs. Which one `load_encoder` picks: `backend()`.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ccarchive.semantic.encoder import TokenBatches
from ccarchive.semantic.model_files import FILES, checked_weights, is_recorded, write_recorded

THREADS = 2
"""onnxruntime's threads for one encode: the budget is two cores; more threads on a
machine shared with the indexer and the app buy little."""

NO_SPINNING = ("session.intra_op.allow_spinning", "0")
"""onnxruntime's worker threads otherwise spin between the pieces of work they are given,
on a core the indexer or the app may need, which is where vectors are built (beside
the live index) and queries asked. With two busy processes beside it, a query took
36 ms (p50) and 21 ms of CPU with spinning threads, 26 ms and 12 ms without; on a quiet
machine a query took the same (9.0 and 8.5 ms) and a batch of 64 texts 5 % longer
(3.53 and 3.70 s, the same CPU), on two cores."""


def graph_path(data_dir: Path, quantized: bool = False) -> Path:
    """Where the graph is kept: named by the pinned weights it is written from (those of
    any folder the model is found in, once checked) and the graph's version."""
    from ccarchive.semantic.model_files import cache_dir
    from ccarchive.semantic.onnx_graph import GRAPH_VERSION

    weights = FILES["model.safetensors"][:16]
    name = f"minilm-{weights}-g{GRAPH_VERSION}{'-int8' if quantized else ''}.onnx"
    return cache_dir(data_dir) / "onnx" / name


def ensure_graph(model_dir: Path, data_dir: Path, quantized: bool = False) -> Path:
    """The graph's file, written first if it is missing or is not the file recorded
    beside it (its sha256; its size and time, to skip the hash). The int8 graph is
    quantized from the float one (onnxruntime's dynamic quantization)."""
    path = graph_path(data_dir, quantized)
    if path.is_file() and is_recorded(path):
        return path
    if quantized:
        from onnx import TensorProto
        from onnxruntime.quantization import QuantType, quantize_dynamic

        source = ensure_graph(model_dir, data_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
        try:
            quantize_dynamic(
                str(source),
                str(tmp),
                weight_type=QuantType.QInt8,
                extra_options={"DefaultTensorType": TensorProto.FLOAT},
            )
            data = tmp.read_bytes()
        finally:
            tmp.unlink(missing_ok=True)
    else:
        checked_weights(model_dir)
        from ccarchive.semantic.onnx_graph import build_model

        data = build_model(model_dir).SerializeToString()
    write_recorded(path, data)
    return path


class OnnxEncoder(TokenBatches):
    """all-MiniLM-L6-v2 on onnxruntime (thread-safe, as `Encoder`)."""

    def __init__(
        self, model_dir: Path, data_dir: Path, threads: int = THREADS, quantized: bool = False
    ) -> None:
        import onnxruntime as ort

        self.model_dir = Path(model_dir)
        self.path = ensure_graph(self.model_dir, data_dir, quantized)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, min(threads, os.cpu_count() or 1))
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry(*NO_SPINNING)
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(
            str(self.path), opts, providers=["CPUExecutionProvider"]
        )
        self._load_tokenizer(self.model_dir)

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        n = max(len(t) for t in batch)
        ids = np.zeros((len(batch), n), dtype=np.int32)
        mask = np.zeros((len(batch), n), dtype=np.int32)
        for i, t in enumerate(batch):
            ids[i, : len(t)] = t
            mask[i, : len(t)] = 1
        return self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
