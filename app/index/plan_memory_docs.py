"""Plans and memory files: one document each, placed in the sessions and projects they belong to.

A plan names only its codename (slug) and a memory file only its project folder; which
session wrote the plan and which real path the folder stands for are known from the
transcripts' checkpoints. `CheckpointMaps` holds those lookups (rebuilt after
transcripts change), and `whole_file_doc` makes a file's one document with them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

import tantivy

from ccarchive.archive import discovery as D
from ccarchive.archive.record_text import PROSE_CAP, TITLE_CAP
from ccarchive.archive.safe_read import fd_head_tail, root_of, text_head_tail
from ccarchive.index import schema as S
from ccarchive.index.analysis import camel_parts
from ccarchive.index.checkpoints import FileState
from ccarchive.index.documents import decode_dir
from ccarchive.redact import redact, redact_name


@dataclass
class CheckpointMaps:
    """Lookups over all checkpoints for plans and memory files (rebuilt when needed)."""

    slug_sessions: dict[str, list[str]]
    session_cwd: dict[str, str]
    dir_cwds: dict[str, Counter[str]]

    @classmethod
    def build(cls, states: dict[str, FileState]) -> CheckpointMaps:
        slugs: dict[str, list[tuple[str, str]]] = {}
        session_cwd: dict[str, str] = {}
        dir_cwds: dict[str, Counter[str]] = {}
        for rel, st in states.items():
            s = st.summary
            if not s or st.kind != D.SESSION:
                continue
            sid, cwd = s.get("session_id", ""), s.get("cwd", "")
            if sid and cwd:
                session_cwd.setdefault(sid, cwd)
                parts = rel.split("/")
                if len(parts) > 2:
                    dir_cwds.setdefault(parts[1], Counter())[cwd] += 1
            for slug in s.get("slugs", ()):
                slugs.setdefault(slug, []).append((s.get("last_ts", ""), sid))
        slug_sessions = {
            k: [sid for _, sid in sorted(v, reverse=True) if sid] for k, v in slugs.items()
        }
        return cls(slug_sessions, session_cwd, dir_cwds)

    def sessions_for_slug(self, slug: str) -> list[str]:
        """Main sessions whose entries carry this plan codename, most recent first."""
        return self.slug_sessions.get(slug, [])

    def session_project(self, sid: str) -> str:
        return self.session_cwd.get(sid, "") if sid else ""

    def project_for_dir(self, project_dir: str) -> str:
        """The real path of a project folder: the commonest `cwd` of its sessions."""
        counts = self.dir_cwds.get(project_dir)
        if counts:
            return counts.most_common(1)[0][0]
        return redact_name(decode_dir(project_dir))


class WholeFileDoc(NamedTuple):
    """A plan's or memory file's document, its kind, and the summary for its checkpoint."""

    doc: tantivy.Document
    kind: str
    summary: dict[str, Any]


def whole_file_doc(
    src: D.SourceFile, maps: CheckpointMaps, gen: int, fd: int | None = None
) -> WholeFileDoc:
    """Read a plan or memory file into its one document (raises `OSError` if unreadable,
    or if it became a symbolic link, a hard link or another file since the walk:
    `archive.safe_read`). `fd`: the file, opened by the caller with `open_file`.

    Only what the document keeps is held in memory: the head and tail of the text (as
    `cap` keeps them); the rest is counted as it streams by (a 300 MB memory file took a
    server to 956 MB when read whole).
    """
    tail_chars = PROSE_CAP // 5
    if fd is not None:
        head, tail, n_chars, size = fd_head_tail(fd, PROSE_CAP, tail_chars)
    else:
        head, tail, n_chars, size = text_head_tail(
            root_of(src.path, src.rel), src.rel, PROSE_CAP, tail_chars, src.seen_as
        )
    if tail:  # redacted as cut: a secret across either cut is taken whole
        kept = head[: PROSE_CAP - tail_chars]
        text = redact(f"{kept}\n…\n{tail}", cuts=(len(kept), len(kept) + 3), cached=False)
        head = text
    else:
        text = head = redact(head, cached=False)
    kind = S.PLAN if src.kind == D.PLAN else S.MEMORY
    doc = tantivy.Document()
    doc.add_text(S.ID, f"{src.kind}:{src.rel}")
    doc.add_text(S.PATH, src.rel)
    doc.add_unsigned(S.OFFSET, 0)
    doc.add_unsigned(S.LENGTH, size)
    doc.add_unsigned(S.SEQ, 0)
    doc.add_unsigned(S.TEXT_LEN, n_chars)
    doc.add_unsigned(S.GEN, gen)
    doc.add_date(S.TS, datetime.fromtimestamp(src.mtime_ns / 1e9, tz=UTC))
    title = markdown_title(text)
    if src.kind == D.PLAN:
        slug, aid = D.agent_plan_parts(src.path.stem)
        doc.add_text(S.KIND, S.PLAN)
        doc.add_text(S.SLUG, redact_name(slug))
        doc.add_text(S.AGENT, aid)
        sessions = maps.sessions_for_slug(slug)
        session = sessions[0] if sessions else ""
        project = maps.session_project(session)
        title = title or slug
        summary: dict[str, Any] = {"slug": slug, "agent_id": aid, "sessions": sessions[:20]}
    else:
        doc.add_text(S.KIND, S.MEMORY)
        session = src.session_id
        project = maps.project_for_dir(src.project_dir)
        name = redact_name(src.path.name)
        title = f"{name}: {title}" if title else name
        if src.session_id:
            title = f"session memory: {title}"
        summary = {"project_dir": src.project_dir, "session_id": src.session_id}
    doc.add_text(S.PROJECT, project)
    doc.add_text(S.SESSION, session)
    doc.add_unsigned(S.SKEY, S.session_key(session))
    doc.add_text(S.TITLE, title[:TITLE_CAP])
    doc.add_text(S.TEXT, text)
    doc.add_unsigned(S.RANK, S.KIND_RANK[kind])
    doc.add_unsigned(S.TSEC, src.mtime_ns // 1_000_000_000)
    parts = camel_parts(head)
    if parts:
        doc.add_text(S.PARTS, parts)
    return WholeFileDoc(doc, kind, summary)


def markdown_title(text: str) -> str:
    """The first heading of a Markdown text ("" if its first 40 lines have none)."""
    for line in text.splitlines()[:40]:
        s = line.strip()
        if s.startswith("#"):
            return s.lstrip("#").strip()[:TITLE_CAP]
    return ""
