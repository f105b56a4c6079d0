"""One query by meaning in plain Python, for a process that searches once (`ccarchive
search`): no numpy.

Why: importing numpy is most of what semantic search adds to a `ccarchive search`
process (about 100-200 ms on two cores, against a word search of about 300 ms), and one
query over a few thousand vectors needs none of it: the static encoder's query vector is
the sum of a few rows of its table, read from the file at their offsets, and a cosine per
row is 384 products. So a process that searches once, over at most `MAX_ROWS` vectors,
reads the `.npy` files itself (`read_npy`) and scores them here; anything else (a text the
Python word pieces do not take, more vectors, a table not yet made, a file not as
expected) says None and the caller takes numpy's path (`matrix`, `token_vectors`), which
gives the same cosines within float32 rounding (`tests/semantic/test_light.py`).

Long-lived processes (the app, `serve`) keep numpy's path: there a query costs a matrix
product of a millisecond, here a Python loop of ~15 us a row.
"""

from __future__ import annotations

import ast
import math
import struct
import sys
from operator import mul
from pathlib import Path

from ccarchive.semantic.model_files import is_recorded
from ccarchive.semantic.space import DIM
from ccarchive.semantic.store import VectorStore
from ccarchive.semantic.texts import SESSION_ROW, seq_of
from ccarchive.semantic.wordpiece import WordPiece, fits

MAX_ROWS = 6000
"""Vectors scored in Python at most: beyond, numpy's import costs less than the loop."""
MAX_TOKENS = 512


class NotLight(ValueError):
    """A file or text this path does not take: use numpy's."""


def read_npy(data: bytes, name: str = "") -> tuple[str, tuple[int, ...], memoryview]:
    """The dtype, shape and data of an `.npy` file's bytes (C order only)."""
    if data[:6] != b"\x93NUMPY":
        raise NotLight(f"{name}: not an .npy file")
    if data[6] == 1:
        (size,) = struct.unpack_from("<H", data, 8)
        start = 10
    else:
        (size,) = struct.unpack_from("<I", data, 8)
        start = 12
    header = ast.literal_eval(data[start : start + size].decode("latin1"))
    if not isinstance(header, dict) or header.get("fortran_order"):
        raise NotLight(f"{name}: not a C-ordered array")
    return str(header["descr"]), tuple(header["shape"]), memoryview(data)[start + size :]


def read_npz(path: Path) -> dict[str, bytes]:
    """The members of an `.npz` file as `np.savez` writes them (stored, one local header
    each, sizes in it or in its zip64 field), read without `zipfile` (its import costs
    more than this whole path): anything else is `NotLight`."""
    data = path.read_bytes()
    out: dict[str, bytes] = {}
    at = 0
    while data[at : at + 4] == b"PK\x03\x04":
        _v, flags, method, _t, _d, _crc, size, _u, nlen, xlen = struct.unpack_from(
            "<HHHHHIIIHH", data, at + 4
        )
        if method != 0 or flags & 0x08:
            raise NotLight(f"{path.name}: compressed, or sizes after the data")
        name = data[at + 30 : at + 30 + nlen].decode()
        extra = data[at + 30 + nlen : at + 30 + nlen + xlen]
        if size == 0xFFFFFFFF:  # zip64: the sizes are in the extra field 0x0001
            field, _len = struct.unpack_from("<HH", extra, 0) if len(extra) >= 20 else (0, 0)
            if field != 1:
                raise NotLight(f"{path.name}: a zip64 entry without its sizes")
            (size,) = struct.unpack_from("<Q", extra, 12)
        start = at + 30 + nlen + xlen
        out[name] = data[start : start + size]
        at = start + size
    if not out:
        raise NotLight(f"{path.name}: not an .npz file")
    return out


def _longs(descr: str, shape: tuple[int, ...], raw: memoryview) -> list[int]:
    if descr != "<i8":
        raise NotLight(f"keys of {descr}")
    return list(struct.unpack(f"<{math.prod(shape)}q", raw))


def _floats(descr: str, shape: tuple[int, ...], raw: memoryview) -> tuple[float, ...]:
    code = {"<f2": "e", "<f4": "f"}.get(descr)
    if code is None or shape[-1:] != (DIM,):
        raise NotLight(f"vectors of {descr} {shape}")
    return struct.unpack(f"<{math.prod(shape)}{code}", raw)


def _strings(descr: str, shape: tuple[int, ...], raw: memoryview) -> list[str]:
    if not descr.startswith("<U"):
        raise NotLight(f"paths of {descr}")
    width = int(descr[2:]) * 4
    data = bytes(raw)
    return [
        data[i * width : (i + 1) * width].decode("utf-32-le").rstrip("\0")
        for i in range(shape[0] if shape else 0)
    ]


class LightScores:
    """`matrix.SessionScores` for one query, in lists: each session's best cosine, and
    its best turn."""

    def __init__(self, rows: list[tuple[int, int, str]], cos: list[float]) -> None:
        self.best: dict[int, float] = {}
        self._turn: dict[int, tuple[int, str, float]] = {}
        for (skey, turn, path), c in zip(rows, cos, strict=True):
            if c > self.best.get(skey, -math.inf):
                self.best[skey] = c
            if turn != SESSION_ROW and c > self._turn.get(skey, (0, "", -math.inf))[2]:
                self._turn[skey] = (seq_of(turn), path, c)

    def as_dict(self) -> dict[int, float]:
        return dict(self.best)

    def ranked(self) -> list[tuple[int, float]]:
        """(session key, best cosine), best first."""
        return sorted(self.best.items(), key=lambda kv: -kv[1])

    def best_turn(self, skey: int) -> tuple[int, str, float] | None:
        return self._turn.get(skey)


class LightMatrix:
    """The rows of a vector store read without numpy (see the module)."""

    def __init__(self, store: VectorStore) -> None:
        manifest = store.manifest()
        if not manifest.vectors or manifest.rows > MAX_ROWS:
            raise NotLight(f"{manifest.rows} rows")
        keys: list[int] = []
        vecs: list[float] = []
        paths: list[str] = []
        for chunk in manifest.chunks:
            z = read_npz(store.path / f"{chunk}.npz")
            keys += _longs(*read_npy(z["keys.npy"], chunk))
            vecs += _floats(*read_npy(z["vecs.npy"], chunk))
            paths += _strings(*read_npy(z["paths.npy"], chunk))
        n = len(paths)
        if len(keys) != 3 * n or len(vecs) != DIM * n:
            raise NotLight("chunks of unequal lengths")
        last = {(keys[3 * i], keys[3 * i + 1]): i for i in range(n)}  # a later row wins
        keep = sorted(last.values())
        self.rows = [(keys[3 * i], keys[3 * i + 1], paths[i]) for i in keep]
        self.vecs = [vecs[DIM * i : DIM * (i + 1)] for i in keep]

    def __len__(self) -> int:
        return len(self.rows)

    def scores(self, query: list[float]) -> LightScores:
        return LightScores(self.rows, [sum(map(mul, query, v)) for v in self.vecs])


class LightTable:
    """The static encoder's query side: its table's rows read at their offsets (the table
    must be the one recorded: `token_vectors.ensure_table` makes it), its vocabulary's
    word pieces (`wordpiece`)."""

    def __init__(self, table: Path, vocab: Path) -> None:
        if not (table.is_file() and is_recorded(table) and vocab.is_file()):
            raise NotLight("the table or the vocabulary is not made yet")
        with table.open("rb") as f:
            head = f.read(4096)
        descr, shape, rest = read_npy(head, table.name)
        if descr != "<f4" or len(shape) != 2 or shape[1] != DIM:
            raise NotLight(f"{table}: {descr} {shape}")
        self.path, self.rows, self.offset = table, shape[0], len(head) - len(rest)
        self.words = WordPiece(vocab)

    def encode(self, text: str) -> list[float] | None:
        """The unit vector of `text`, or None if it is not one for this path (see
        `wordpiece.fits`) or has no known word."""
        if not fits(text):
            raise NotLight("a text for the Rust tokenizer")
        ids = self.words.ids(text, MAX_TOKENS)
        total = [0.0] * DIM
        size = DIM * 4
        with self.path.open("rb") as f:
            for i in ids:
                f.seek(self.offset + i * size)
                row = struct.unpack(f"<{DIM}f", f.read(size))
                total = [a + b for a, b in zip(total, row, strict=True)]
        norm = math.sqrt(sum(x * x for x in total))
        return [x / norm for x in total] if norm > 0 else None


def numpy_loaded() -> bool:
    """Whether this process has numpy already (then its path costs nothing more)."""
    return "numpy" in sys.modules
