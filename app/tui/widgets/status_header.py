"""The one-line header every pane shows: the archive, the index state and its size.

It reads the live archive's `state` (a plain dataclass the indexer thread updates)
twice a second. Polling a few attributes is cheaper and simpler than a message per
progress tick, and the header is the only thing that wants them that often.

It reads them from its app through `HeaderSource`, a protocol that `ArchiveApp` fulfils,
not through `ArchiveApp` itself: the app imports the panes, which import this header,
so a reference back to the app would close an import cycle.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

from rich.text import Text
from textual.widget import Widget

if TYPE_CHECKING:
    from rich.style import Style

    from ccarchive.config import Settings
    from ccarchive.live.live_archive import LiveArchive
    from ccarchive.service import ArchiveService


class HeaderSource(Protocol):
    """What the header reads from its app (`ccarchive.tui.app.ArchiveApp` has it)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def live(self) -> LiveArchive: ...

    @property
    def service(self) -> ArchiveService: ...

    @property
    def role_known(self) -> bool:
        """False until the writer lock was tried (the header says "starting")."""
        ...


NARROW = 90
"""Below this width the header says less (`docs`, no reason after read-only), so the
state and the count keep their place beside the pane's name and the archive."""


def short_path(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home and home != "/" and path.startswith(home) else path


class ArchiveHeader(Widget):
    """Archive · pane · index state (indexing N% / embedding N% / live / read-only) ·
    documents (embedding: semantic search's vectors being built, `ccarchive.semantic`)."""

    COMPONENT_CLASSES = {
        "archive-header--brand",
        "archive-header--pane",
        "archive-header--path",
        "archive-header--live",
        "archive-header--indexing",
        "archive-header--read-only",
        "archive-header--count",
    }
    """Styled from styles/base.tcss."""

    def __init__(self, pane: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.pane = pane
        """The pane's name, shown after the brand."""
        self._last: tuple[object, ...] = ()
        """The state last drawn (the poll redraws when it changed)."""

    def on_mount(self) -> None:
        self.set_interval(0.5, self._poll)

    def _poll(self) -> None:
        # against what was last drawn: the first poll redrew a header that had not
        # changed since its first frame (a frame of its own, half a second in)
        if self._state_key() != self._last:
            self.refresh()

    def _state_key(self) -> tuple[object, ...]:
        app: HeaderSource = self.app  # type: ignore[assignment]
        live = getattr(app, "live", None)
        if live is None:
            return ("offline", 0, 0.0, 0, None)
        st = live.state
        # the state's role reads "read-only" until the lock is tried: not a fact yet
        role = st.role if getattr(app, "role_known", True) else "starting"
        vectors = getattr(live, "vectors", None)  # semantic search's, while they are built
        embedding = (
            round(vectors.state.progress, 2)
            if vectors is not None and vectors.state.running and vectors.state.todo > 1
            else None
        )
        return (role, st.indexing, round(st.progress, 2), app.service.document_count(), embedding)

    def _style(self, part: str) -> Style:
        return self.get_component_rich_style(f"archive-header--{part}", partial=True)

    def render(self) -> Text:
        app: HeaderSource = self.app  # type: ignore[assignment]
        self._last = self._state_key()
        role, indexing, progress, docs, embedding = self._last
        narrow = self.size.width < NARROW
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(" ◆ ccarchive ", self._style("brand"))
        if self.pane:
            out.append(f" {self.pane} ", self._style("pane"))
        settings = getattr(app, "settings", None)
        right = Text(no_wrap=True)
        if indexing:
            right.append(
                f"◐ indexing {float(progress) * 100:.0f}%",  # type: ignore[arg-type]
                self._style("indexing"),
            )
        elif embedding is not None:
            right.append(
                f"◐ embedding {float(embedding) * 100:.0f}%",  # type: ignore[arg-type]
                self._style("indexing"),
            )
        elif role == "writer":
            right.append("● live", self._style("live"))
        elif role == "offline":
            right.append("○ offline", self._style("read-only"))
        elif role == "starting":
            right.append("◌ starting", self._style("count"))
        else:
            right.append(
                "○ read-only" if narrow else "○ read-only (another ccarchive indexes)",
                self._style("read-only"),
            )
            if narrow:
                self.tooltip = "Another ccarchive process indexes; this one follows it."
        count = f"{int(docs):,}"  # type: ignore[call-overload]
        right.append(
            f"  {count} docs " if narrow else f"  {count} documents ", self._style("count")
        )
        path = short_path(str(settings.archive_root)) if settings else ""
        # two cells before the path, and at least one between it and the state on the right
        room = self.size.width - out.cell_len - right.cell_len - 3
        if room > 4 and path:
            shown = path if len(path) <= room else "…" + path[-(room - 1) :]
            out.append("  " + shown, self._style("path"))
        pad = self.size.width - out.cell_len - right.cell_len
        if pad > 0:
            out.append(" " * pad)
        out.append_text(right)
        return out
