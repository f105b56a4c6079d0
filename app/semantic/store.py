"""The vectors beside the index: `<index folder>/vectors/`, dropped with the index.

One row per turn (key: the session's `skey` and the turn's number, the `seq` of its
prompt, as the finder groups hits), one per passage of a long answer (`texts.PART`), and
one per session (its title; turn number -1, which
no turn has). Each row also keeps a hash of the text it embeds, so a text read again
unchanged is not embedded again, and the transcript path of its turn, so a session found
only by its meaning can show that turn.

On disk: chunks (`c<N>.npz`: keys as int64 (skey, turn, text hash), vectors as float16,
paths), each written once, and `manifest.json`, which lists the chunks in order (a later
row of the same key replaces an earlier one) with the generation of the index the
vectors are up to date with. Only the writer process writes: each live update adds a
small chunk (its cost does not grow with the archive), and when chunks pile up they are
merged into one. Files are written beside their names and renamed, so a reader sees the
old manifest or the new one, never half of one; a reader that finds a chunk gone (merged
away meanwhile) keeps what it had and tries again at its next query.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ccarchive.config import check_own_folder, open_new_file, private_dir, replace_file
from ccarchive.semantic.space import DIM

if TYPE_CHECKING:
    import numpy as np
from ccarchive.semantic.model_files import MODEL_NAME

FOLDER = "vectors"
MANIFEST = "manifest.json"
FORMAT = 3
"""3: passages of long answers (rows keyed `seq + PART x n`, `texts`)."""
MAX_CHUNKS = 24
"""Chunks kept before they are merged: a reader loads only the chunks it has not seen, so
small chunks are cheap, but each costs a file and a read on a cold start."""


@dataclass
class Rows:
    """Rows of vectors and their keys (a chunk, or everything loaded)."""

    keys: np.ndarray  # (n, 3) int64: skey, turn (-1: the session's row), text hash
    vecs: np.ndarray  # (n, DIM) float16 on disk, float32 once loaded for queries
    paths: np.ndarray  # (n,) str: the transcript of the turn ("" for a session row)

    @classmethod
    def empty(cls) -> Rows:
        import numpy as np

        return cls(
            np.zeros((0, 3), np.int64), np.zeros((0, DIM), np.float16), np.zeros(0, dtype="<U1")
        )

    def __len__(self) -> int:
        return len(self.keys)


@dataclass
class Manifest:
    chunks: list[str] = field(default_factory=list)
    gen: int = 0  # the index generation the vectors are up to date with
    pending: int = 0  # texts the writer still had to embed when it wrote this
    rows: int = 0  # rows in all chunks (a key may have several)
    vectors: int = 0  # distinct keys: the turns and sessions embedded
    model: str = MODEL_NAME  # the space of the vectors (`semantic.vector_space`)

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "model": self.model,
                "dim": DIM,
                "chunks": self.chunks,
                "gen": self.gen,
                "pending": self.pending,
                "rows": self.rows,
                "vectors": self.vectors,
            }
        )


class VectorStore:
    """The `vectors/` folder of one index, as seen by one encoder: vectors of another space
    (`semantic.vector_space`: another model, or the static encoder) read as none, and the
    writer builds them again. The space defaults to that of the encoder this process
    uses (`semantic.backend`)."""

    def __init__(self, index_path: Path, space: str | None = None) -> None:
        from ccarchive.semantic import backend, vector_space

        self.path = index_path / FOLDER
        self.space = space or vector_space(backend())
        self._write_lock = threading.Lock()

    # ---- reading ------------------------------------------------------------------------
    def manifest_key(self) -> tuple[int, int, int]:
        """Changes whenever the writer saves (one `stat`)."""
        try:
            st = (self.path / MANIFEST).stat()
        except OSError:
            return (0, 0, 0)
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def other_space(self) -> str | None:
        """The space of the vectors here when it is not this store's (a writer with
        another encoder made them), else None."""
        try:
            data = json.loads((self.path / MANIFEST).read_text())
        except (OSError, ValueError):
            return None
        model = data.get("model") if isinstance(data, dict) else None
        return str(model) if model and model != self.space and data.get("vectors") else None

    def manifest(self) -> Manifest:
        try:
            data = json.loads((self.path / MANIFEST).read_text())
        except (OSError, ValueError):
            return Manifest(model=self.space)
        if (
            not isinstance(data, dict)
            or data.get("format") != FORMAT
            or data.get("model") != self.space
            or data.get("dim") != DIM
        ):
            return Manifest(model=self.space)  # another format or space: built again
        return Manifest(
            model=self.space,
            chunks=[str(c) for c in data.get("chunks", [])],
            gen=int(data.get("gen", 0)),
            pending=int(data.get("pending", 0)),
            rows=int(data.get("rows", 0)),
            vectors=int(data.get("vectors", 0)),
        )

    def read_chunk(self, name: str) -> Rows:
        import numpy as np

        with np.load(self.path / f"{name}.npz", allow_pickle=False) as z:
            return Rows(z["keys"], z["vecs"], z["paths"])

    # ---- writing (the writer process only) ----------------------------------------------
    def save(self, manifest: Manifest, rows: Rows | None) -> Manifest:
        """Add `rows` as a new chunk (if any) and write the manifest; merges the chunks
        when there are too many. Returns the manifest written."""
        with self._write_lock:
            private_dir(self.path, under=self.path.parent)
            check_own_folder(self.path)
            chunks = list(manifest.chunks)
            total = manifest.rows
            if rows is not None and len(rows):
                chunks.append(self._write_chunk(rows))
                total += len(rows)
            out = replace(manifest, chunks=chunks, rows=total)
            if len(chunks) > MAX_CHUNKS:
                out = self._merge(out)
            self._write_manifest(out)
            self._remove_unlisted(out.chunks)
            return out

    def clear(self) -> Manifest:
        """Forget every vector (another space or format was found)."""
        out = Manifest(model=self.space)
        with self._write_lock:
            if self.path.exists():
                self._write_manifest(out)
                self._remove_unlisted([])
        return out

    def _write_chunk(self, rows: Rows) -> str:
        import numpy as np

        existing = [int(p.stem[1:]) for p in self.path.glob("c*.npz") if p.stem[1:].isdigit()]
        name = f"c{max(existing, default=0) + 1:06d}"
        tmp = self.path / f".{name}.tmp{os.getpid()}.npz"
        with os.fdopen(open_new_file(tmp, mode=0o644), "wb") as f:  # never through a link
            np.savez(
                f,
                keys=rows.keys.astype(np.int64),
                vecs=rows.vecs.astype(np.float16),
                paths=rows.paths.astype(str),
            )
        os.replace(tmp, self.path / f"{name}.npz")
        return name

    def _merge(self, manifest: Manifest) -> Manifest:
        rows = dedupe([self.read_chunk(c) for c in manifest.chunks])
        name = self._write_chunk(rows)
        return replace(manifest, chunks=[name], rows=len(rows))

    def _write_manifest(self, manifest: Manifest) -> None:
        replace_file(self.path / MANIFEST, manifest.to_json().encode())

    def _remove_unlisted(self, keep: list[str]) -> None:
        wanted = {f"{c}.npz" for c in keep}
        for p in self.path.glob("*.npz"):
            if p.name not in wanted:
                p.unlink(missing_ok=True)


def dedupe(chunks: list[Rows]) -> Rows:
    """The rows of `chunks` in order, a later row of a key replacing an earlier one."""
    import numpy as np

    chunks = [c for c in chunks if len(c)]
    if not chunks:
        return Rows.empty()
    keys = np.concatenate([c.keys for c in chunks])
    vecs = np.concatenate([c.vecs for c in chunks])
    paths = np.concatenate([c.paths.astype(str) for c in chunks])
    last = {(sk, turn): i for i, (sk, turn) in enumerate(keys[:, :2].tolist())}
    keep = np.fromiter(sorted(last.values()), dtype=np.int64, count=len(last))
    return Rows(keys[keep], vecs[keep], paths[keep])
