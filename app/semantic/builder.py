"""Bringing the vectors up to date with the index: the writer process's job.

`VectorBuilder.update()` reads what the index committed since the vectors' generation
(see `texts`), embeds the texts that are new or changed, and saves them as a chunk
(`store`). The first time, that is every turn of the archive (minutes: the encoder runs
about 16 texts a second on two cores), so it saves every few hundred turns: search uses
what is there, progress shows, and a killed build resumes, re-embedding nothing it
saved (texts are compared by hash). Afterwards each commit brings a few turns.

`BackgroundBuilder` runs it in a thread of the live writer: started after the first
lexical pass (search works at once; the vectors follow) and woken by each commit.
"""

from __future__ import annotations

import logging
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ccarchive.semantic import TextEncoder, load_encoder, vector_space
from ccarchive.semantic import texts as T
from ccarchive.semantic.store import Manifest, Rows, VectorStore, dedupe

log = logging.getLogger(__name__)

SAVE_EVERY = 256
"""Texts embedded between two saves during a long build."""
ENCODE_BATCH = 32


@dataclass
class BuildState:
    """What `status` and the app's header show of the vectors being built."""

    running: bool = False
    todo: int = 0  # texts to embed in the current update
    done: int = 0
    vectors: int = 0  # rows in the store (a key counted once)
    error: str | None = None
    seconds: float = 0.0  # spent embedding, in this process

    @property
    def progress(self) -> float:
        return self.done / self.todo if self.todo else 1.0


class VectorBuilder:
    """Embeds what the index holds into its `vectors/` folder (the writer only).

    Args:
        index_store: the index (an `IndexStore`: its `searcher()`, `schema` and `path`).
        encoder: returns the encoder, loading it on first call (it may download).
        space: the space of that encoder's vectors (`semantic.vector_space` of the kind
            the encoder is): vectors of another are dropped and built again. Given by the
            caller, who chose the encoder: guessed from the environment, it once labelled
            the static encoder's vectors with the full model's space, and a search of
            the static space then found none.
    """

    def __init__(self, index_store, encoder: Callable[[], TextEncoder], space: str) -> None:
        self.index = index_store
        self.vectors = VectorStore(index_store.path, space)
        self._encoder = encoder
        self.state = BuildState()
        self._lock = threading.Lock()
        self._hashes: dict[tuple[int, int], int] | None = None
        self._manifest: Manifest | None = None

    def _load(self) -> Manifest:
        if self._manifest is None:
            manifest = self.vectors.manifest()
            try:
                rows = dedupe([self.vectors.read_chunk(c) for c in manifest.chunks])
            except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
                log.warning("semantic vectors unreadable (%s): built again", exc)
                manifest, rows = Manifest(model=self.vectors.space), Rows.empty()
            if not manifest.chunks and self.vectors.path.exists():
                manifest = self.vectors.clear()  # another format or model, or damaged
            self._hashes = {(int(k[0]), int(k[1])): int(k[2]) for k in rows.keys.tolist()}
            self.state.vectors = len(self._hashes)
            self._manifest = manifest
        return self._manifest

    def update(self, stop: threading.Event | None = None) -> int:
        """Embed what changed since the last update; returns how many texts were embedded.

        Stops between batches when `stop` is set (what was saved stays)."""
        with self._lock:
            manifest = self._load()
            hashes = self._hashes
            assert hashes is not None
            searcher = self.index.searcher()
            schema = self.index.schema
            top = T.max_gen(searcher, schema)
            if top <= manifest.gen:
                return 0
            self.state.running = True
            try:
                todo = self._changed(searcher, schema, manifest.gen, top, hashes)
                self.state.todo, self.state.done = len(todo), 0
                embedded = self._embed(todo, stop)
                if stop is not None and stop.is_set():
                    return embedded
                self._manifest = self.vectors.save(replace(self._load(), gen=top, pending=0), None)
                self.state.error = None
                return embedded
            finally:
                self.state.running = False

    def _changed(
        self, searcher, schema, gen: int, top: int, hashes: dict[tuple[int, int], int]
    ) -> list[T.Text]:
        out = []
        for path, seq in T.changed_turns(searcher, schema, gen, top):
            out += [
                t
                for t in T.turn_texts(searcher, schema, path, seq)
                if hashes.get((t.skey, t.turn)) != t.digest
            ]
        for sid in T.changed_sessions(searcher, schema, gen, top):
            t = T.session_text(searcher, schema, sid)
            if t is not None and hashes.get((t.skey, t.turn)) != t.digest:
                out.append(t)
        return out

    def _embed(self, todo: list[T.Text], stop: threading.Event | None) -> int:
        """Embed `todo`, saving a chunk every `SAVE_EVERY` texts (the generation stays
        the old one until all are saved: a build cut short resumes where it was)."""
        if not todo:
            return 0
        encoder = self._encoder()
        hashes = self._hashes
        assert hashes is not None
        done = 0
        for start in range(0, len(todo), SAVE_EVERY):
            part = todo[start : start + SAVE_EVERY]
            vecs = []
            for b in range(0, len(part), ENCODE_BATCH):
                if stop is not None and stop.is_set():
                    return done
                batch = [t.text for t in part[b : b + ENCODE_BATCH]]
                t0 = time.perf_counter()
                vecs.append(encoder.encode(batch))
                self.state.seconds += time.perf_counter() - t0
                self.state.done += len(batch)
            rows = Rows(
                keys=np.array([(t.skey, t.turn, t.digest) for t in part], np.int64),
                vecs=np.concatenate(vecs).astype(np.float16),
                paths=np.array([t.path for t in part], dtype=str),
            )
            pending = len(todo) - start - len(part)
            for t in part:
                hashes[(t.skey, t.turn)] = t.digest
            self.state.vectors = len(hashes)
            self._manifest = self.vectors.save(
                replace(self._load(), pending=pending, vectors=len(hashes)), rows
            )
            done += len(part)
        return done


class BackgroundBuilder:
    """A `VectorBuilder` in a thread: `kick()` after each commit, `stop()` at exit."""

    def __init__(self, builder: VectorBuilder, ready: Callable[[], bool]) -> None:
        self.builder = builder
        self._ready = ready
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def state(self) -> BuildState:
        return self.builder.state

    def kick(self) -> None:
        """New commits: bring the vectors up to date (once the index is ready)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._loop, name="ccarchive-vectors", daemon=True
            )
            self._thread.start()
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._stop.is_set():
                return
            if not self._ready():
                continue
            try:
                self.builder.update(self._stop)
            except Exception as exc:  # a model that cannot load, a full disk: say so
                self.builder.state.error = str(exc)
                log.warning("semantic vectors: %s", exc)


def background_builder(
    index_store, settings, kind: str, ready: Callable[[], bool]
) -> BackgroundBuilder:
    """The builder a live writer runs, its encoder (`kind`, as `choose` decided) loaded on
    first need (downloaded only if the full model was asked for)."""
    return BackgroundBuilder(
        VectorBuilder(index_store, lambda: load_encoder(settings, kind=kind), vector_space(kind)),
        ready,
    )
