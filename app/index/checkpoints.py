"""The checkpoint of each source file, and how checkpoints are stored in the index.

A checkpoint says how much of a file is indexed (offset, fingerprints of its first bytes
and of the last bytes read, its `FileSummary`). It is a document of the index itself, so
it is committed in the same Tantivy commit as the documents it accounts for: after a kill
the index never holds documents its checkpoints do not know of, or the reverse. The
`Indexer` (`ccarchive.index.indexer`) decides when to write them; this module holds what
they are and how they are read back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
import tantivy

from ccarchive.index import schema as S
from ccarchive.index.store import IndexStore

HEAD_BYTES = 1024
"""The first bytes of a file are fingerprinted, and so are the last bytes read: same
inode and size-or-larger but other bytes at either place means the file was rewritten
in place, not appended to."""

META_ID = "state:_meta"
"""The one checkpoint document that is not a file's: summary leaves resolved to sessions,
and the generation a search cursor pins its pages to."""


@dataclass
class FileState:
    """The checkpoint of one source file."""

    rel: str
    kind: str
    dev: int = 0
    ino: int = 0
    size: int = 0
    mtime_ns: int = 0
    offset: int = 0
    head: str = ""
    head_len: int = 0
    tail: str = ""  # fingerprint of the HEAD_BYTES before `offset` (what was read last)
    tail_at: int = 0  # where that span starts
    gone: bool = False
    docs: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    repaired: dict[str, int] = field(default_factory=dict)
    pending: int = 0  # bytes of a last line still without its newline
    open_tail: bool = False  # the file ended in a complete line without newline, read
    summary: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> bytes:
        return orjson.dumps({k: getattr(self, k) for k in self.__dataclass_fields__})

    @classmethod
    def from_json(cls, raw: bytes) -> FileState:
        data = orjson.loads(raw)
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in known})


def load_states(store: IndexStore) -> tuple[dict[str, FileState], dict[str, Any]]:
    """Every file's checkpoint (by archive-relative path), and what the `META_ID` document
    holds (`leaf_sessions`: `leafUuid` -> session id; `unreadable`: archive-relative path
    -> why it was not read), as last committed."""
    states: dict[str, FileState] = {}
    meta: dict[str, Any] = {}
    store.reload()
    searcher = store.searcher()
    q = tantivy.Query.term_query(store.schema, S.KIND, S.STATE_DOC)
    n = searcher.search(q, 1, count=True).count
    if not n:
        return states, meta
    for _score, addr in searcher.search(q, n + 1, count=False).hits:
        doc = searcher.doc(addr)
        blob = doc.get_first(S.BLOB)
        if blob is None:
            continue
        if doc.get_first(S.ID) == META_ID:
            meta = orjson.loads(blob)
            continue
        st = FileState.from_json(blob)
        states[st.rel] = st
    return states, meta


def state_doc(st: FileState) -> tantivy.Document:
    """The document that stores one file's checkpoint (replaced by its id `state:<rel>`)."""
    doc = tantivy.Document()
    doc.add_text(S.ID, f"state:{st.rel}")
    doc.add_text(S.KIND, S.STATE_DOC)
    doc.add_text(S.PATH, st.rel)
    doc.add_bytes(S.BLOB, st.to_json())
    return doc


def meta_doc(
    leaf_sessions: dict[str, str], gen: int, unreadable: dict[str, str] | None = None
) -> tantivy.Document:
    """The `META_ID` document, rewritten by every commit: the resolved summary leaves,
    and the files of the archive that were not read, with why (`ccarchive status`)."""
    meta = tantivy.Document()
    meta.add_text(S.ID, META_ID)
    meta.add_text(S.KIND, S.STATE_DOC)
    meta.add_bytes(
        S.BLOB, orjson.dumps({"leaf_sessions": leaf_sessions, "unreadable": unreadable or {}})
    )
    meta.add_unsigned(S.GEN, gen)  # what a search cursor pins its pages to
    return meta
