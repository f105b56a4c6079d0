"""Optional semantic search: a sentence encoder's vectors beside the index.

Words find what shares words with the query; a reworded question shares none with its
answer. With semantic search on, every turn of the archive (its prompt and the start of
its answer) and every session (its title) also has a vector of all-MiniLM-L6-v2, and the
finder mixes each session's best cosine with its word evidence (`ccarchive.service.
semantic`).

Off by default: it needs `pip install 'ccarchive[semantic]'` (onnxruntime, onnx, numpy,
tokenizers, safetensors: no torch) and `--semantic` or `CCARCHIVE_SEMANTIC=1`. The parts:

* `onnx_graph`, `onnx_encoder`: the model as an ONNX graph written from its verified
  weights, run on onnxruntime (used when onnxruntime and onnx are installed);
* `encoder`: the model's forward pass in numpy (otherwise);
* `token_vectors`: the static encoder, the model's word vectors summed, no forward pass
  (`CCARCHIVE_ENCODER=static`);
* `model_files`: where its files come from (a folder, a package, the cache, the hub);
* `texts`: what is embedded, read from the index;
* `store`: the vectors on disk (`<index>/vectors/`);
* `builder`: the writer brings them up to date after each commit;
* `matrix`: the vectors in memory, for queries.

Nothing here is imported unless semantic search is on, and nothing imports numpy at
module level outside these modules.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from ccarchive.config import Settings

EXTRA = "pip install 'ccarchive[semantic]'"
SWITCH = "--semantic (app, search, index, serve) or CCARCHIVE_SEMANTIC=1"
DEPENDENCIES = ("numpy", "tokenizers", "safetensors")
FAST = ("onnxruntime", "onnx")
"""What the encoder runs on when installed (`onnx_encoder`); numpy's forward pass
(`encoder`) otherwise."""
BACKEND_ENV = "CCARCHIVE_ENCODER"
"""`static` for the cheap encoder (`token_vectors`: the model's word vectors summed, no
forward pass); `numpy` to use numpy's forward pass even when onnxruntime is there (to
compare)."""
STATIC = "static"
ENCODERS = {
    "onnxruntime": "all-MiniLM-L6-v2 on onnxruntime",
    "numpy": "all-MiniLM-L6-v2 in numpy",
    STATIC: "all-MiniLM-L6-v2's word vectors, summed (static)",
}
"""What `status` calls each encoder."""


def missing_dependencies() -> list[str]:
    """The packages of the `semantic` extra that are not installed."""
    return [name for name in DEPENDENCIES if importlib.util.find_spec(name) is None]


def backend() -> str:
    """`static` when `CCARCHIVE_ENCODER=static`; else the forward pass: `onnxruntime` when
    it and `onnx` are installed (and not turned away by `CCARCHIVE_ENCODER=numpy`), else
    `numpy`."""
    chosen = os.environ.get(BACKEND_ENV, "").strip().lower()
    if chosen in (STATIC, "numpy"):
        return chosen
    return "onnxruntime" if all(importlib.util.find_spec(n) for n in FAST) else "numpy"


def vector_space(kind: str) -> str:
    """The name of the space an encoder's vectors live in, recorded with the vectors: both
    forward passes give the same vectors (one space), the static encoder another. Vectors
    of one space compared with a query of another are noise, so vectors found of another
    space are built again (`store.VectorStore`)."""
    from ccarchive.semantic.model_files import MODEL_NAME

    if kind == STATIC:
        from ccarchive.semantic.token_vectors import TABLE_VERSION

        return f"{MODEL_NAME}/static-v{TABLE_VERSION}"
    return MODEL_NAME


class TextEncoder(Protocol):
    """Either forward pass of the model (`encoder.Encoder` in numpy, `onnx_encoder.OnnxEncoder`
    on onnxruntime: both give the same vectors), or the static encoder
    (`token_vectors.TokenVectors`: vectors of another space)."""

    def encode(self, texts: list[str]) -> np.ndarray: ...


_encoders: dict[tuple[Path, str], TextEncoder] = {}
_lock = threading.Lock()


def load_encoder(
    settings: Settings, progress: Callable[[str], None] | None = None, kind: str | None = None
) -> TextEncoder:
    """The encoder for these settings (of `kind`, else `backend()`), loaded once per
    process (the files found or downloaded first: `model_files`). Raises `ModelError`
    with what to do."""
    from ccarchive.semantic.encoder import Encoder
    from ccarchive.semantic.model_files import ensure_model

    with _lock:
        folder = ensure_model(settings.model_dir, settings.data_dir, progress=progress)
        kind = kind or backend()
        enc = _encoders.get((folder, kind))
        if enc is None:
            if kind == STATIC:
                from ccarchive.semantic.token_vectors import TokenVectors

                enc = TokenVectors(folder, settings.data_dir)
            elif kind == "onnxruntime":
                from ccarchive.semantic.onnx_encoder import OnnxEncoder

                enc = OnnxEncoder(folder, settings.data_dir)
            else:
                enc = Encoder(folder)
            _encoders[(folder, kind)] = enc
        return enc
