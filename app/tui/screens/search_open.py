"""Where a search hit opens: a transcript entry in Replay at that entry, a typed prompt
at the prompt entry it became in its session, a plan or a memory file selected in its
pane (Plans, Projects)."""

from __future__ import annotations

from textual import work
from textual.screen import Screen

from ccarchive.service.arguments import ServiceError
from ccarchive.service.models import Hit
from ccarchive.tui.messages import OpenItem, OpenSession
from ccarchive.tui.widgets.hit_preview import TRANSCRIPT_KINDS


class HitOpening(Screen[None]):
    """`open_hit` for the search pane (a screen base class: it posts and runs workers)."""

    @property
    def query_text(self) -> str:
        """The search that led to the hit: Replay marks its words."""
        raise NotImplementedError

    def open_hit(self, hit: Hit) -> None:
        """Open a hit where it lives."""
        query = self.query_text or None
        if hit.kind in TRANSCRIPT_KINDS and hit.session_id:
            self.post_message(OpenSession(hit.session_id, entry_id=hit.id,
                                          agent_id=hit.agent_id or None, query=query))
        elif hit.kind == "history" and hit.session_id:
            self._open_history(hit, query)
        elif hit.kind == "plan" and hit.path:
            self.post_message(OpenItem("plans", hit.path, hit.project))
        elif hit.kind == "memory" and hit.path:
            self.post_message(OpenItem("projects", hit.path, hit.project))
        else:
            self.notify("This hit has no transcript to open.", severity="warning")

    @work(thread=True, group="open-history", exclusive=True, exit_on_error=False,
          description="Finding the prompt in its session")
    def _open_history(self, hit: Hit, query: str | None) -> None:
        """A typed prompt opens its session at the prompt entry it became."""
        service = self.app.service  # type: ignore[attr-defined]
        try:
            text = service.entries([hit.id], max_chars=2_000)[0].text
        except ServiceError:
            text = hit.snippet
        entry = service.prompt_entry(hit.session_id, text, hit.timestamp)
        self.post_message(OpenSession(hit.session_id, entry_id=entry, query=query))
