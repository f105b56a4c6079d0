"""A cheap encoder: a text's vector is the sum of its words' vectors, no forward pass.

Why it works: all-MiniLM-L6-v2's input embeddings (`embeddings.word_embeddings.weight`,
one 384-dim row per WordPiece token) were trained with the rest of the network, so words
used alike sit close: *invoice* near *billing*, *nightly* near *overnight*. Summing a
text's rows gives a point near the words it is about, and two texts about the same
things land near each other whatever their exact words. Two corrections make the sum
useful (both measured on the eval's blind set; docs/semantic.md):

* centred: the rows share a large common direction; subtracting the mean row of the
  words (ids from `FIRST_WORD`) leaves what tells one word from another;
* weighted by rarity: the vocabulary is ordered by frequency from `FIRST_WORD`, so a
  row is scaled by log(1 + rank), rank counted from there; the ids below it
  (punctuation, unused slots) take the smallest weight, and the special tokens
  ([PAD], [UNK], [CLS], [SEP], [MASK]) none. Common words barely move the sum; rare
  ones, which say what a text is about, do.

What it is not: a sentence encoder. It is a bag of word meanings: no word order, no
context (*bank* of a river and of money are one row), no negation. It finds reworded
questions far better than words alone and far worse than the model's forward pass, at
a few hundred texts a second where the forward pass manages about 16 (two cores).

The table (30,522 x 384, float32, 47 MB) is made once per data dir from the checked
weights (`model_files.checked_weights`: a file that is not the pinned one is refused),
reading only that one tensor, and kept beside the ONNX graph with its own sha256
(`<data dir>/models/all-MiniLM-L6-v2/static/`); a load maps it (`mmap`), so opening it
costs a `stat` and a process touches only the rows of the words it meets.

A query (one short ASCII text) is cut into word pieces in Python from a vocabulary file
derived beside the table (`wordpiece`): the process that only searches never imports
the Rust tokenizer nor parses `tokenizer.json`; the builder's batches, and any text with
other characters, use the Rust tokenizer, loaded on first need.
"""

from __future__ import annotations

import io
import threading
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ccarchive.semantic.encoder import load_tokenizer
from ccarchive.semantic.model_files import (
    checked_weights,
    is_recorded,
    write_recorded,
)
from ccarchive.semantic.space import DIM, table_path
from ccarchive.semantic.wordpiece import WordPiece, ensure_vocab, fits

if TYPE_CHECKING:
    from tokenizers import Tokenizer

TENSOR = "embeddings.word_embeddings.weight"
FIRST_WORD = 1996
"""The first id of the vocabulary's words ("the"); the ids below are [PAD], [unused*],
specials and single characters."""
SPECIAL = (0, 100, 101, 102, 103)
"""[PAD], [UNK], [CLS], [SEP], [MASK]: rows of zeros, so they add nothing."""
FEW = 4
"""Texts cut in Python at most (a query, a few in tests); more go to the Rust tokenizer,
whose batches run on every core."""
MAX_TOKENS = 512
"""Tokens read of a text: nothing in the sum depends on position, so the cut is only a
bound on the work (the builder's texts are at most about 1,900 characters, ~450 tokens)."""


def build_table(model_dir: Path) -> np.ndarray:
    """The table from the model's weights, checked against their pin first (see the
    module): centred on the words' mean, each row times its rarity weight."""
    from safetensors import safe_open

    weights = checked_weights(model_dir)
    with safe_open(str(weights), framework="numpy") as f:
        name = next(k for k in f.keys() if k.removeprefix("bert.") == TENSOR)
        rows = f.get_tensor(name).astype(np.float32)
    if rows.ndim != 2 or rows.shape[1] != DIM:
        raise ValueError(f"{weights}: {name} has shape {rows.shape}, expected (n, {DIM})")
    rows -= rows[FIRST_WORD:].mean(0)
    rank = np.maximum(1, np.arange(len(rows)) - (FIRST_WORD - 1))
    weight = np.log1p(rank).astype(np.float32)
    weight[:FIRST_WORD] = weight.min()
    weight[list(SPECIAL)] = 0.0
    rows *= weight[:, None]
    return rows


def ensure_table(model_dir: Path, data_dir: Path) -> Path:
    """The table's file, made first when it is missing or not the file recorded beside
    it (a damaged or altered file is made again, never used)."""
    path = table_path(data_dir)
    if path.is_file() and is_recorded(path):
        return path
    buf = io.BytesIO()
    np.save(buf, build_table(model_dir), allow_pickle=False)
    write_recorded(path, buf.getvalue())
    return path


class TokenVectors:
    """The static encoder: `encode(texts)` as `TextEncoder` (thread-safe: the Rust
    tokenizer behind a lock, the table and the vocabulary read only)."""

    def __init__(self, model_dir: Path, data_dir: Path) -> None:
        self.model_dir = Path(model_dir)
        self.path = ensure_table(self.model_dir, data_dir)
        self.table: np.ndarray = np.load(self.path, mmap_mode="r", allow_pickle=False)
        if self.table.ndim != 2 or self.table.shape[1] != DIM:
            raise ValueError(f"{self.path}: shape {self.table.shape}, expected (n, {DIM})")
        self.words = WordPiece(ensure_vocab(self.model_dir, data_dir))
        self._tokenizer: Tokenizer | None = None
        self._lock = threading.Lock()

    @property
    def tokenizer(self) -> Tokenizer:
        """The Rust tokenizer, loaded on first need."""
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer = load_tokenizer(self.model_dir, MAX_TOKENS)
            return self._tokenizer

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's WordPiece ids, without [CLS] and [SEP], cut at `MAX_TOKENS`: a few
        texts that `wordpiece.fits` in Python, the rest by the Rust tokenizer."""
        if len(texts) <= FEW and all(fits(t) for t in texts):
            return [self.words.ids(t, MAX_TOKENS) for t in texts]
        tokenizer = self.tokenizer
        with self._lock:
            return [e.ids for e in tokenizer.encode_batch(texts, add_special_tokens=False)]

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors (len(texts) x 384, float32), in the order of `texts`; a text with
        no known word gets a vector of zeros (no cosine with anything)."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        ids = self.token_ids(texts)
        lengths = np.fromiter((len(i) for i in ids), dtype=np.int64, count=len(ids))
        have = np.flatnonzero(lengths)
        if not len(have):
            return out
        flat = np.fromiter(  # one C-level pass over every id, no Python loop over tokens
            chain.from_iterable(ids[i] for i in have.tolist()),
            dtype=np.int64,
            count=int(lengths.sum()),
        )
        starts = np.concatenate(([0], np.cumsum(lengths[have])[:-1]))
        sums = np.add.reduceat(self.table[flat], starts, axis=0)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        out[have] = np.divide(sums, norms, out=np.zeros_like(sums), where=norms > 0)
        return out
