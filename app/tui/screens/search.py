"""Search pane: a query line that searches as you type, facets, results and a preview.

Latency budget (keystroke to results painted): one search in flight at a time, and the
keystrokes that come while it runs collapse into one search for the latest text (no
fixed delay: a lone keystroke searches at once); the facets and the grouped hits come
from one service call; the result list is virtualised, so painting costs the lines on
screen; the facet sidebar is rebuilt only when its counts or the filters changed; the
preview waits until the cursor has rested on a hit for `PREVIEW_DELAY`.

The facet counts are a third of a search's time on a big archive (aggregations over every
match: 10-17 ms of a 15-34 ms search for a short prefix on 1 GB) and are drawn only
once the keys stop (`FACETS_DELAY`), so a keystroke's search leaves them out: they come
from a query of their own when the results have rested for `FACETS_DELAY`. The first
search (an empty sidebar) and `FACETS_DELAY = 0` still fetch them with the results, in
the same worker, as they fetch the first card's preview: the first screen is one frame.

The facets count what the results hold: the service counts every kind (so that a kind
left out can still be offered), so while tool output and thinking are left out, the
facets' query leaves them out too (`-kind:` filters), and the KINDS section names them
apart, with the key that brings them in.

Keys typed while a list has focus go to the query line (as in fzf): a reader who came
back to the pane with the cursor in the results types a new query without a `/` first.
Below 100 columns the facets are out of the way until ctrl+f brings them in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Static

from ccarchive.service.arguments import ServiceError
from ccarchive.service.models import ContextResult, Facets, Hit, SearchPage, SessionGroup
from ccarchive.tui.messages import IndexUpdated, OpenItem, OpenSession
from ccarchive.tui.screens.pane import PaneScreen
from ccarchive.tui.screens.search_status import left_out_kinds, status_text
from ccarchive.tui.widgets.facet_list import FacetList, Filters
from ccarchive.tui.widgets.hit_preview import TRANSCRIPT_KINDS, HitPreview
from ccarchive.tui.widgets.key_footer import KeyFooter
from ccarchive.tui.widgets.result_list import SNIPPETS_PER_GROUP, ResultList, group_hits
from ccarchive.tui.widgets.status_header import ArchiveHeader

RESULT_LIMIT = 100
"""Hits fetched per query: a screenful many times over, and still ~10 ms."""
GROUP_LIMIT = 40
"""Sessions fetched per grouped query."""


class QueryInput(Input):
    """The query line: `?` in an empty query opens the keys (the first screen's focus is
    here, and a query of `?` alone searches for nothing); in a query with text it is a
    character of the query (`why?`)."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character == "?" and not self.value:
            return False
        return super().check_consume_key(key, character)


class SearchScreen(PaneScreen):
    """Type to search; Tab moves query → results → facets; Enter opens a hit."""

    BINDINGS = [
        Binding(
            "ctrl+g",
            "toggle_group",
            "Group/hits",
            tooltip="Results grouped by session, or every hit on its own.",
        ),
        Binding(
            "ctrl+t",
            "toggle_all_kinds",
            "Tool output",
            tooltip="Also search tool output and thinking (left out by default).",
        ),
        Binding(
            "ctrl+f",
            "focus_facets",
            "Facets",
            tooltip="Filter by project, kind or date (Enter toggles one).",
        ),
        Binding(
            "ctrl+o",
            "toggle_preview",
            "Preview",
            tooltip="Show or hide the preview (hidden below 100 columns: the results "
            "take the width).",
        ),
        Binding("ctrl+x", "clear_filters", "Clear filters", tooltip="Drop every facet filter."),
        Binding(
            "slash",
            "focus_query",
            "Query",
            show=False,
            tooltip="Back to the query line, the cursor at its end.",
        ),
        Binding("escape", "focus_query", "Query", show=False),
        Binding(
            "question_mark",
            "keys",
            "Keys",
            priority=True,
            tooltip="Every key of this pane (typed into a query that has text).",
        ),
    ]

    SHOW_TIMING = True
    """Show how long the search took (snapshots turn it off: it differs run to run)."""
    PREVIEW_DELAY = 0.12
    """Seconds the cursor rests on a hit before its preview is read (0: at once)."""
    FACETS_DELAY = 0.15
    """Seconds without new results before the facet counts are redrawn (0: at once):
    while keys come, a keystroke's paint is the result list, not the sidebar too."""
    AUTO_FOCUS = "#query"

    @dataclass
    class ResultsReady(Message):
        """A search finished (dropped if a newer one was started since)."""

        token: int
        page: SearchPage | None
        groups: list[SessionGroup] | None
        error: str | None = None
        facets: Facets | None = None
        """The facet counts, when the search counted them apart (kinds left out)."""
        preview: tuple[str, ContextResult | None] | None = None
        """The first card's hit and its preview, when it is to be previewed at once."""

    @dataclass
    class FacetsReady(Message):
        """The facet counts of the search `token` (dropped if a newer one was started)."""

        token: int
        facets: Facets | None

    @dataclass
    class PreviewReady(Message):
        hit_id: str
        context: ContextResult | None

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.filters = Filters()
        """The facet filters in force."""
        self.grouped = True
        """Results grouped by session (ctrl+g toggles)."""
        self.all_kinds = False
        """Include tool output and thinking in the search."""
        self._token = 0
        self._shown_token = 0
        self._in_flight: int | None = None
        """The token of the search running (keystrokes meanwhile wait for it)."""
        self._pending = False
        self._facets_key: object = None
        self._preview_timer: Timer | None = None
        self._facets_timer: Timer | None = None
        self._search_args: tuple[int, tuple[Any, ...]] = (0, ())
        """The token and the arguments of the last search started (for its facets)."""
        self._server_groups = True
        self._status_lines = 1
        self._shown_what: tuple[object, ...] | None = None
        """What the results on show answer (text, filters, kinds; not the grouping): a
        new question puts the cursor on the first hit, the same one keeps its place."""
        """Lines the status line took (it wraps: a change of count needs a layout)."""
        self._terms: tuple[str, ...] = ()
        self._previewed: str | None = None
        """The hit last previewed (None before the first preview)."""
        self._preview_given: str | None = None
        """The hit previewed with the results, whose `HitHighlighted` is to come."""
        self.page: SearchPage | None = None
        """The results on screen."""

    def compose(self) -> ComposeResult:
        yield ArchiveHeader("Search")
        # no select-all on focus: keys typed in a list are appended (`/` and Esc select)
        yield QueryInput(
            placeholder="Search your archive…  e.g.  migration project:billing "
            'after:7d  kind:prompt  "exact phrase"',
            id="query",
            select_on_focus=False,
        )
        yield Static(id="search-status")
        with Horizontal(id="search-body"):
            yield FacetList(id="facets")
            yield ResultList(id="results")
            yield HitPreview(id="preview")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#preview").border_title = "Preview"
        self.query_one("#facets").border_title = "Filters"
        self.query_one("#results").border_title = "Results"
        self._search()

    # ---- running searches ----------------------------------------------------------
    @property
    def query_text(self) -> str:
        return self.query_one("#query", Input).value

    def _search(self) -> None:
        """Search for what the query line and the filters say now (or once the search in
        flight is back: however many keystrokes come meanwhile, one search follows)."""
        self._token += 1
        if self._in_flight is not None:
            self._pending = True
            return
        self._start_search()

    def _start_search(self) -> None:
        self._in_flight, self._pending = self._token, False
        args = (
            self.query_text,
            self.filters.project,
            sorted(self.filters.kinds),
            self.filters.since,
            self.grouped,
            self.all_kinds,
        )
        self._search_args = (self._token, args)
        # The facets come at once with the first results (an empty sidebar) or when
        # FACETS_DELAY is 0: with the results' own query when they count what the
        # results hold (nothing left out), else from a query of their own that leaves
        # out the same kinds, run by the same worker, so that results and counts are
        # drawn in one frame rather than two.
        at_once = self.FACETS_DELAY <= 0 or self.query_one(FacetList).option_count == 0
        left_out = self._left_out()
        facets = at_once and not left_out
        facets_apart = self._facets_text(args[0], left_out) if at_once and left_out else None
        # The first results' first card is previewed with them (one frame), as is every
        # search's when PREVIEW_DELAY is 0; a cursor that rests is previewed as before.
        preview = self.PREVIEW_DELAY <= 0 or self._previewed is None
        self._run_search(self._token, *args, facets, facets_apart, preview)

    @staticmethod
    def _facets_text(text: str, left_out: tuple[str, ...]) -> str:
        """The facets' own query: the results' words with the kinds they leave out
        left out (the service counts every kind)."""
        return " ".join([str(text), *(f"-kind:{k}" for k in left_out)])

    @work(thread=True, group="search", exit_on_error=False, description="Searching the archive")
    def _run_search(
        self,
        token: int,
        text: str,
        project: str | None,
        kinds: list[str],
        since: str | None,
        grouped: bool,
        all_kinds: bool,
        facets: bool = True,
        facets_apart: str | None = None,
        preview: bool = False,
    ) -> None:
        try:
            self._search_now(
                token,
                text,
                project,
                kinds,
                since,
                grouped,
                all_kinds,
                facets,
                facets_apart,
                preview,
            )
        except BaseException as exc:
            self.post_message(self.ResultsReady(token, None, None, f"search failed: {exc}"))
            raise

    def _search_now(
        self,
        token: int,
        text: str,
        project: str | None,
        kinds: list[str],
        since: str | None,
        grouped: bool,
        all_kinds: bool,
        facets: bool = True,
        facets_apart: str | None = None,
        preview: bool = False,
    ) -> None:
        service = self.app.service
        args: dict[str, Any] = {
            "project": project,
            "kind": kinds or None,
            "since": since,
            "facets": facets,
            "include_tool_results": all_kinds,
            "include_thinking": all_kinds,
        }
        try:
            groups = None
            if grouped and not text.strip():  # recent activity: one row per session
                page = service.recent_activity(
                    limit=GROUP_LIMIT, hits_per_group=SNIPPETS_PER_GROUP, **args
                )
                groups = page.groups
            elif grouped and self._server_groups:
                try:
                    page = service.search(
                        text,
                        limit=GROUP_LIMIT,
                        group_by_session=True,
                        hits_per_group=SNIPPETS_PER_GROUP,
                        **args,
                    )
                    groups = page.groups
                except ServiceError:
                    raise
                except Exception:  # grouping failed in the service: do it here
                    self._server_groups = False
            if not grouped or not self._server_groups:
                page = service.search(text, limit=RESULT_LIMIT, **args)
                if grouped:
                    groups = group_hits(page.hits)
                    for g in groups:  # named after the session, not its best hit
                        if g.session_id:
                            g.title = service.session_title(g.session_id)[0] or g.title
            if grouped and page.ignored:  # every word ignored: the empty query's list
                recent = service.recent_activity(
                    limit=GROUP_LIMIT, hits_per_group=SNIPPETS_PER_GROUP, **args
                )
                recent.query, recent.warnings, recent.ignored = page.query, page.warnings, True
                page, groups = recent, recent.groups
        except ServiceError as exc:
            self.post_message(self.ResultsReady(token, None, None, str(exc)))
            return
        counts = None
        if facets_apart is not None:
            try:
                counts = self._count_facets(facets_apart, project, kinds, since, all_kinds)
            except ServiceError:
                pass  # the results say what is wrong with the query
        # the first card's hit, where the list puts the cursor on new results
        if groups is not None:
            first = next((g.hits[0] for g in groups if g.hits), None)
        else:
            first = page.hits[0] if page.hits else None
        shown = (first.id, self._preview_context(first)) if preview and first is not None else None
        self.post_message(self.ResultsReady(token, page, groups, facets=counts, preview=shown))

    @on(ResultsReady)
    def _show_results(self, message: ResultsReady) -> None:
        message.stop()
        if message.token == self._in_flight:
            self._in_flight = None
        if self._pending and self._in_flight is None:
            self._start_search()  # the text changed meanwhile: its search goes out now
        if message.token != self._token:
            return  # a newer search is on its way: stale results never overwrite it
        self._shown_token = message.token
        started, args = self._search_args
        what = (args[:4] + args[5:]) if started == message.token else None
        keep, self._shown_what = what == self._shown_what, what  # the same search again
        status = self.query_one("#search-status", Static)
        if message.page is None:
            status.update(Text(f"⚠ {message.error}", "bold red"))
            return
        page = self.page = message.page
        self._terms = tuple(
            w.strip('"').lower()
            for w in page.query.split()
            if ":" not in w and w.upper() not in ("AND", "OR", "NOT") and len(w.strip('"')) > 1
        )
        results = self.query_one(ResultList)
        results.show(page, message.groups, keep=keep)
        self._preview_with_results(results, message.preview)
        # `_facets_key` is what the facet list shows; a pending redraw is replaced by the
        # newest one, and dropped when the newest counts are those already shown (as after
        # ctrl+g, which searches again with the same query).
        if self._facets_timer is not None:
            self._facets_timer.stop()
            self._facets_timer = None
        facets = page.facets if page.facets is not None else message.facets
        if facets is not None:  # fetched with the results: drawn at once
            self._facets_ready(self.FacetsReady(message.token, facets))
        elif self.FACETS_DELAY <= 0 or self.query_one(FacetList).option_count == 0:
            self._fetch_facets(message.token)  # the first ones: at once
        else:  # their own query, once the results have rested (typing costs none)
            self._facets_timer = self.set_timer(
                self.FACETS_DELAY, lambda token=message.token: self._fetch_facets(token)
            )
        self._show_status(self._status_text(page, message.groups))
        if not page.hits:
            self._cancel_preview()
            self.query_one(HitPreview).show_message(
                Text(
                    "No results."
                    + (
                        "  Facet filters are on: ctrl+x clears them."
                        if self.filters.active()
                        else ""
                    ),
                    "italic",
                )
            )

    def _fetch_facets(self, token: int) -> None:
        self._facets_timer = None
        started, args = self._search_args
        if token != self._token or started != token:
            return  # a newer search is on its way: its results ask again
        text, project, kinds, since, _grouped, all_kinds = args
        left_out = self._left_out(kinds, all_kinds)
        if left_out:  # count what the results hold (the service counts every kind)
            text = self._facets_text(text, left_out)
        self._run_facets(token, text, project, kinds, since, all_kinds)

    @work(
        thread=True,
        group="facets",
        exclusive=True,
        exit_on_error=False,
        description="Counting the facets",
    )
    def _run_facets(
        self,
        token: int,
        text: str,
        project: str | None,
        kinds: list[str],
        since: str | None,
        all_kinds: bool,
    ) -> None:
        try:
            facets = self._count_facets(text, project, kinds, since, all_kinds)
        except ServiceError:
            return  # the results' own search said what is wrong with the query
        self.post_message(self.FacetsReady(token, facets))

    def _count_facets(
        self, text: str, project: str | None, kinds: list[str], since: str | None, all_kinds: bool
    ) -> Facets | None:
        """The facet counts of a query (they do not depend on grouping, the kinds asked
        for or the limit). From a worker."""
        return self.app.service.search(
            text,
            limit=1,
            project=project,
            kind=kinds or None,
            since=since,
            facets=True,
            include_tool_results=all_kinds,
            include_thinking=all_kinds,
        ).facets

    @on(FacetsReady)
    def _facets_ready(self, message: FacetsReady) -> None:
        message.stop()
        if message.token != self._token or message.token != self._shown_token:
            return
        key = (
            message.facets,
            self.filters.project,
            frozenset(self.filters.kinds),
            self.filters.since,
        )
        if key != self._facets_key:
            self._facets_key = key
            self.query_one(FacetList).show(message.facets, self.filters, left_out=self._left_out())

    def _left_out(
        self, kinds: list[str] | None = None, all_kinds: bool | None = None
    ) -> tuple[str, ...]:
        """The kinds the results leave out (none when the query or a facet names kinds,
        or ctrl+t asked for everything)."""
        kinds = sorted(self.filters.kinds) if kinds is None else kinds
        all_kinds = self.all_kinds if all_kinds is None else all_kinds
        return left_out_kinds(self.query_text, kinds, all_kinds)

    def _show_status(self, text: Text) -> None:
        """The status line, laid out again only when its number of lines changed (it
        wraps: at 80 columns two warnings and the count take two or three)."""
        status = self.query_one("#search-status", Static)
        width = status.content_region.width or self.size.width - 4
        lines = min(3, len(text.wrap(self.app.console, max(1, width))))
        status.update(text, layout=lines != self._status_lines)
        self._status_lines = lines

    def _status_text(self, page: SearchPage, groups: list[SessionGroup] | None) -> Text:
        width = self.query_one("#search-status", Static).content_region.width or self.size.width - 4
        return status_text(
            page,
            groups,
            self.filters,
            timing=self.SHOW_TIMING,
            left_out=bool(self._left_out()),
            width=width,
        )

    # ---- preview -------------------------------------------------------------------
    @on(ResultList.HitHighlighted)
    def _hit_highlighted(self, message: ResultList.HitHighlighted) -> None:
        message.stop()
        given, self._preview_given = self._preview_given, None
        if message.hit.id == given:  # its preview came with the results, and is shown
            return
        self._cancel_preview()
        if self.PREVIEW_DELAY <= 0:
            self._run_preview(message.hit)
        else:  # read it once the cursor rests (typing and scrolling cost no previews)
            self._preview_timer = self.set_timer(
                self.PREVIEW_DELAY, lambda hit=message.hit: self._run_preview(hit)
            )

    def _cancel_preview(self) -> None:
        if self._preview_timer is not None:
            self._preview_timer.stop()
            self._preview_timer = None

    @work(
        thread=True,
        exclusive=True,
        group="preview",
        exit_on_error=False,
        description="Reading the preview",
    )
    def _run_preview(self, hit: Hit) -> None:
        self.post_message(self.PreviewReady(hit.id, self._preview_context(hit)))

    def _preview_context(self, hit: Hit) -> ContextResult | None:
        """What the preview shows of `hit` (None when it cannot be read). From a worker."""
        try:
            return self.app.service.context(hit.id, before=2, after=3, max_chars=700)
        except ServiceError:
            return None

    def _preview_with_results(
        self, results: ResultList, preview: tuple[str, ContextResult | None] | None
    ) -> None:
        """The preview the search brought, shown with its results when the cursor is on
        its hit (the card's `HitHighlighted`, which comes after, then reads nothing)."""
        idx = results.highlighted
        if preview is None or idx is None or results.hits[idx].id != preview[0]:
            return
        hit = results.hits[idx]
        self._cancel_preview()
        self._previewed = self._preview_given = hit.id
        self.query_one(HitPreview).show(hit, preview[1], self._terms)

    @on(PreviewReady)
    def _show_preview(self, message: PreviewReady) -> None:
        message.stop()
        results = self.query_one(ResultList)
        idx = results.highlighted
        if idx is None or idx >= len(results.hits) or results.hits[idx].id != message.hit_id:
            return  # the cursor moved on (its own preview is on its way)
        hit = results.hits[idx]
        self._previewed = hit.id
        self.query_one(HitPreview).show(hit, message.context, self._terms)

    # ---- opening -------------------------------------------------------------------
    @on(ResultList.HitChosen)
    def _hit_chosen(self, message: ResultList.HitChosen) -> None:
        message.stop()
        self.open_hit(message.hit)

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        results = self.query_one(ResultList)
        if results.hits:
            idx = results.highlighted or 0
            self.open_hit(results.hits[min(idx, len(results.hits) - 1)])

    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._search()

    def on_key(self, event: events.Key) -> None:
        focused = self.focused
        if event.key == "down" and isinstance(focused, Input):
            self.query_one(ResultList).focus()
            event.stop()
        elif (
            isinstance(focused, (ResultList, FacetList))
            and event.is_printable
            and event.character
            and (event.character.isdigit() or event.key not in self.active_bindings)
        ):
            # typed in a list: to the query, appended (as in fzf); bound keys (j/k, /, ?)
            # keep their meaning, digits are typed (`3d`, `v2`): F1-F7 switch panes
            event.stop()
            event.prevent_default()
            self._type_into_query(event.character)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "keys":  # `?` in a query with text is a character of the query
            focused = self.focused
            return not (isinstance(focused, Input) and focused.value)
        return True

    def action_keys(self) -> None:
        self.app.action_keys()  # type: ignore[attr-defined]

    def action_toggle_preview(self) -> None:
        """The preview on or off (by default: on from 100 columns)."""
        shown = self.query_one(HitPreview).display
        self.set_class(shown, "-preview-off")
        self.set_class(not shown, "-preview-on")

    def _type_into_query(self, text: str) -> None:
        query = self.query_one("#query", Input)
        query.focus()
        query.cursor_position = len(query.value)
        query.insert_text_at_cursor(text)

    # ---- facets --------------------------------------------------------------------
    @on(FacetList.Toggled)
    def _facet_toggled(self, message: FacetList.Toggled) -> None:
        message.stop()
        f = self.filters
        if message.facet == "project":
            f.project = None if f.project == message.value else message.value
        elif message.facet == "kind":
            f.kinds ^= {message.value}
        elif message.facet == "since":
            f.since = None if f.since == message.value else message.value
        self._search()

    def action_clear_filters(self) -> None:
        self.filters = Filters()
        self._search()

    def action_toggle_group(self) -> None:
        self.grouped = not self.grouped
        self.query_one("#results").border_title = "Sessions" if self.grouped else "Hits"
        self._search()

    def action_toggle_all_kinds(self) -> None:
        self.all_kinds = not self.all_kinds
        self._search()

    def action_focus_facets(self) -> None:
        self.add_class("-facets-open")  # below 100 columns they show while focused
        self.query_one(FacetList).focus()

    @on(events.DescendantBlur)
    def _blurred(self, event: events.DescendantBlur) -> None:
        if isinstance(event.widget, FacetList):
            self.remove_class("-facets-open")

    def action_focus_query(self) -> None:
        """Back to the query line, the cursor at the end of its text: typing adds to it
        (ctrl+u empties it)."""
        query = self.query_one("#query", Input)
        query.focus()
        query.cursor_position = len(query.value)

    # ---- live ----------------------------------------------------------------------
    @on(IndexUpdated)
    def _index_updated(self, message: IndexUpdated) -> None:
        message.stop()
        self._search()  # ResultList.show keeps the cursor on the same hit

    # ---- where a hit opens ---------------------------------------------------------
    # A transcript entry in Replay at that entry, a typed prompt at the prompt entry it
    # became in its session, a plan or a memory file selected in its pane.
    def open_hit(self, hit: Hit) -> None:
        """Open a hit where it lives."""
        query = self.query_text or None
        if hit.kind in TRANSCRIPT_KINDS and hit.session_id:
            self.post_message(
                OpenSession(
                    hit.session_id, entry_id=hit.id, agent_id=hit.agent_id or None, query=query
                )
            )
        elif hit.kind == "history" and hit.session_id:
            self._open_history(hit, query)
        elif hit.kind == "plan" and hit.path:
            self.post_message(OpenItem("plans", hit.path, hit.project))
        elif hit.kind == "memory" and hit.path:
            self.post_message(OpenItem("projects", hit.path, hit.project))
        else:
            self.notify("This hit has no transcript to open.", severity="warning")

    @work(
        thread=True,
        group="open-history",
        exclusive=True,
        exit_on_error=False,
        description="Finding the prompt in its session",
    )
    def _open_history(self, hit: Hit, query: str | None) -> None:
        """A typed prompt opens its session at the prompt entry it became."""
        service = self.app.service
        try:
            text = service.entries([hit.id], max_chars=2_000)[0].text
        except ServiceError:
            text = hit.snippet
        entry = service.prompt_entry(hit.session_id, text, hit.timestamp)
        self.post_message(OpenSession(hit.session_id, entry_id=entry, query=query))
