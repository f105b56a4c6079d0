"""The vectors in memory for queries: one matrix product per query, best row per session.

Loaded from the store on first use and kept current cheaply: each query `stat`s the
manifest, and when the writer saved since, only the chunks not yet loaded are read (a
replaced row is overwritten in place). Rows are float32 in memory (4 x 384 bytes a
row: 1.5 MB per 1,000 turns): numpy's matrix-vector product runs on BLAS only in float32.
"""

from __future__ import annotations

import logging
import threading
import zipfile
from dataclasses import dataclass

import numpy as np

from ccarchive.semantic.space import DIM
from ccarchive.semantic.store import Rows, VectorStore, dedupe
from ccarchive.semantic.texts import SESSION_ROW, seq_of

log = logging.getLogger(__name__)


@dataclass
class SessionScores:
    """For one query: every session's best cosine, and the rows behind it (a snapshot:
    the matrix may grow meanwhile)."""

    skeys: np.ndarray  # (s,) int64, sorted
    best: np.ndarray  # (s,) float32: the best cosine of the session's rows
    cos: np.ndarray  # (n,) float32: every row's cosine
    keys: np.ndarray  # (n, 3) the rows' keys
    paths: list[str]  # (n,) the rows' transcripts
    order: np.ndarray  # rows ordered by session
    starts: np.ndarray  # where each session of `skeys` starts in `order`

    def as_dict(self) -> dict[int, float]:
        return dict(zip(self.skeys.tolist(), self.best.tolist(), strict=True))

    def ranked(self) -> list[tuple[int, float]]:
        """(session key, best cosine), best first."""
        order = self.best.argsort(kind="stable")[::-1]
        return list(zip(self.skeys[order].tolist(), self.best[order].tolist(), strict=True))

    def best_turn(self, skey: int) -> tuple[int, str, float] | None:
        """(prompt seq, transcript path, cosine) of a session's best turn row (a
        passage's row counts for its turn)."""
        i = int(np.searchsorted(self.skeys, skey))
        if i >= len(self.skeys) or self.skeys[i] != skey:
            return None
        end = self.starts[i + 1] if i + 1 < len(self.starts) else len(self.order)
        rows = self.order[self.starts[i] : end]
        rows = rows[self.keys[rows, 1] != SESSION_ROW]
        if not len(rows):
            return None
        r = int(rows[np.argmax(self.cos[rows])])
        return seq_of(int(self.keys[r, 1])), str(self.paths[r]), float(self.cos[r])


class VectorMatrix:
    """The rows of one index's vector store, ready for queries (thread-safe)."""

    def __init__(self, store: VectorStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._seen: tuple[int, int, int] = (0, 0, 0)
        self._chunks: list[str] = []
        self.keys = np.zeros((0, 3), np.int64)
        self.vecs = np.zeros((0, DIM), np.float32)
        self.paths: list[str] = []
        self._row_of: dict[tuple[int, int], int] = {}
        self._groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def nbytes(self) -> int:
        return self.vecs.nbytes + self.keys.nbytes + sum(len(p) + 50 for p in self.paths)

    def refresh(self) -> None:
        """See what the writer saved since the last call (one `stat` when nothing)."""
        key = self.store.manifest_key()
        if key == self._seen:
            return
        with self._lock:
            if key == self._seen:
                return
            manifest = self.store.manifest()
            try:
                if self._chunks and manifest.chunks[: len(self._chunks)] == self._chunks:
                    new = [self.store.read_chunk(c) for c in manifest.chunks[len(self._chunks) :]]
                    self._apply(dedupe(new))
                else:
                    rows = dedupe([self.store.read_chunk(c) for c in manifest.chunks])
                    self._replace(rows)
            except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
                log.debug("vectors being rewritten, kept the loaded ones: %s", exc)
                return  # merged away meanwhile: try again at the next query
            self._chunks = manifest.chunks
            self._seen = key

    def _replace(self, rows: Rows) -> None:
        self.keys = rows.keys
        self.vecs = rows.vecs.astype(np.float32)
        self.paths = rows.paths.tolist()
        self._row_of = {(k[0], k[1]): i for i, k in enumerate(self.keys[:, :2].tolist())}
        self._groups = None

    def _apply(self, rows: Rows) -> None:
        if not len(rows):
            return
        fresh = []
        for i, k in enumerate(rows.keys[:, :2].tolist()):
            r = self._row_of.get((k[0], k[1]))
            if r is None:
                fresh.append(i)
            else:
                self.keys[r] = rows.keys[i]
                self.vecs[r] = rows.vecs[i]
                self.paths[r] = str(rows.paths[i])
        if fresh:
            idx = np.array(fresh)
            start = len(self.keys)
            self.keys = np.concatenate([self.keys, rows.keys[idx]])
            self.vecs = np.concatenate([self.vecs, rows.vecs[idx].astype(np.float32)])
            self.paths += rows.paths[idx].tolist()
            for j, k in enumerate(rows.keys[idx, :2].tolist()):
                self._row_of[(k[0], k[1])] = start + j
            self._groups = None

    def _grouping(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows ordered by session: (order, start of each session in it, its skey)."""
        g = self._groups
        if g is None:
            order = np.argsort(self.keys[:, 0], kind="stable")
            sk = self.keys[order, 0]
            starts = (
                np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]]) if len(sk) else np.zeros(0, np.int64)
            )
            g = self._groups = (order, starts, sk[starts])
        return g

    def scores(self, query: np.ndarray) -> SessionScores | None:
        """Every session's best cosine with the query vector (a unit vector)."""
        with self._lock:
            if not len(self.keys):
                return None
            cos = self.vecs @ query.astype(np.float32)
            order, starts, skeys = self._grouping()
            best = np.maximum.reduceat(cos[order], starts)
            return SessionScores(skeys, best, cos, self.keys, self.paths, order, starts)
