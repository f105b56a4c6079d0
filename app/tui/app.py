"""The terminal app: a frame of panes (Textual modes) over one live archive.

`ArchiveApp` owns the `LiveArchive` (the index, kept current in the background) and
hands its `ArchiveService` to the panes; every query a pane makes goes through it. The
indexer's commit callback (a background thread) becomes one `IndexUpdated` message,
which the app forwards to every pane that has been opened, so each re-runs its query.

Panes are modes, one key each: F1–F7 always (they work while a query box has focus),
1–7 when no text box has focus; every action is also in the command palette (ctrl+p),
and `?` shows the keys of the pane on show.

Replay remembers which pane opened it: its Esc/Backspace, out of the first transcript,
leads back there (a stack: Prompts → Replay → Search → Replay goes back the same way).

Layout follows the terminal's size through breakpoint classes on every screen
(`-narrow`/`-wide` below/above `WIDE` columns, `-short`/`-tall` below/above `TALL` rows):
styles/*.tcss gives the main list the width at 80 columns and folds the charts at 24 rows.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from ccarchive.config import Settings
from ccarchive.live.live_archive import LiveArchive
from ccarchive.service import ArchiveService, open_service
from ccarchive.tui import preferences
from ccarchive.tui import textual_tuning as tuning
from ccarchive.tui.messages import IndexUpdated, OpenItem, OpenSession
from ccarchive.tui.screens.live import LiveScreen
from ccarchive.tui.screens.pane import PaneHost
from ccarchive.tui.screens.plans import PlansScreen
from ccarchive.tui.screens.projects import ProjectsScreen
from ccarchive.tui.screens.prompts import PromptsScreen
from ccarchive.tui.screens.replay.screen import ReplayScreen
from ccarchive.tui.screens.search import SearchScreen
from ccarchive.tui.screens.timeline import TimelineScreen
from ccarchive.tui.widgets.key_help import KeyHelp, own_bindings


def _styles_dir() -> Path:
    """`ccarchive/styles` in a wheel (force-included), `styles/` beside `app/` in a checkout."""
    here = Path(__file__).resolve()
    packaged = here.parents[1] / "styles"
    return packaged if packaged.is_dir() else here.parents[2] / "styles"


STYLES = _styles_dir()
STYLE_FILES = ("base", "search", "replay", "timeline", "plans", "projects", "prompts", "live")

FREEZE_AFTER = 0.3
"""Seconds after the first paint to move the startup heap out of the collector's way."""
GC_THRESHOLDS = (20_000, 20, 50)
"""The collector's thresholds once the app is up (see `_freeze_heap`)."""

PANES: tuple[tuple[str, str, str, str], ...] = (
    # mode, key, title, what it is for (command palette help)
    ("search", "1", "Search", "Search as you type, with facets and a preview."),
    ("replay", "2", "Replay", "Read a session back, step by step or played."),
    ("timeline", "3", "Timeline", "Activity over time and the sessions of a day."),
    ("plans", "4", "Plans", "Plans and their agent subplans."),
    ("projects", "5", "Projects", "Projects, their figures and memory files."),
    ("prompts", "6", "Prompts", "The prompt history, newest first."),
    ("live", "7", "Live", "Follow what Claude Code is writing now."),
)
"""The panes in key order; F<n> and <n> switch to the n-th."""

WIDE = 100
"""Columns from which side panels sit beside the main list (below: `-narrow`)."""
TALL = 32
"""Rows from which the Timeline's charts are three rows a metric (below: `-short`)."""
BACK_DEPTH = 20
"""Panes remembered for Replay's way back."""
PALETTE_EXTRAS = ("Theme", "Quit")
"""Textual's own palette commands that are kept (the rest are its widgets' internals)."""


class ArchiveApp(App[None]):
    """Browse, search and replay a Claude Code archive."""

    TITLE = "ccarchive"
    CSS_PATH = [
        STYLES / f"{name}.tcss" for name in STYLE_FILES if (STYLES / f"{name}.tcss").exists()
    ]
    MODES = {
        "search": SearchScreen,
        "replay": ReplayScreen,
        "timeline": TimelineScreen,
        "plans": PlansScreen,
        "projects": ProjectsScreen,
        "prompts": PromptsScreen,
        "live": LiveScreen,
    }
    DEFAULT_MODE = "search"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (TALL, "-tall")]
    BINDINGS = [
        *(
            Binding(f"f{n}", f"switch_mode('{mode}')", title, tooltip=help_, priority=True)
            for n, (mode, _k, title, help_) in enumerate(PANES, start=1)
        ),
        *(
            Binding(key, f"switch_mode('{mode}')", title, show=False, tooltip=help_)
            for mode, key, title, help_ in PANES
        ),
        Binding(
            "ctrl+p", "command_palette", "Commands", show=False, tooltip="Every action, searchable."
        ),
        Binding("question_mark", "keys", "Keys", tooltip="Every key of this pane."),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, tooltip="Quit."),
    ]

    def __init__(
        self, settings: Settings, *, live: LiveArchive | None = None, start_live: bool = True
    ) -> None:
        super().__init__()
        tuning.share_parsed_css(self)
        self.settings = settings
        """The archive and the data dir."""
        self.live = live if live is not None else LiveArchive(settings)
        """The index, kept current in the background (the app stops it on exit)."""
        self.service: ArchiveService = open_service(settings, live=self.live)
        """The only way panes query the archive."""
        self._start_live = start_live
        self._closing = False
        self._reported: set[int] = set()
        self.role_known = not start_live
        """Whether the index role (writer or follower) is decided: until the writer lock
        was tried, the header says "starting" rather than guess."""
        self._back: list[str] = []
        """The panes Replay was opened from, the latest last (its way back)."""
        self.live.on_commit(self._committed)
        self._watch_workers()

    # ---- lifecycle -----------------------------------------------------------------
    def on_mount(self) -> None:
        self._restore_theme()
        if self._start_live:
            self._run_live()

    def _restore_theme(self) -> None:
        """The theme chosen in an earlier run (command palette → Theme), and from now
        on each choice saved in the data dir (`preferences`)."""
        theme = preferences.load(self.settings.data_dir).get("theme")
        if isinstance(theme, str) and theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(
            self, lambda t: preferences.save(self.settings.data_dir, theme=t.name)
        )

    def on_ready(self) -> None:
        # Once the first screen is up, the objects built so far (Textual, rich, the
        # styles, the first results) live as long as the app: freezing them keeps the
        # collector's full passes off them, which otherwise took 50-90 ms at random
        # keystrokes (p95 of keystroke -> results painted: 117 ms -> 62 ms).
        self.set_timer(FREEZE_AFTER, self._freeze_heap)

    @staticmethod
    def _freeze_heap() -> None:
        gc.collect()
        gc.freeze()
        # Textual makes and drops many small objects per frame, and the default
        # thresholds (700, 10, 10) run a young pass every few hundred of them and a full
        # pass every hundred young ones, at random keystrokes; fewer, larger passes:
        # keystroke -> results painted p95 75-77 ms -> 54-63 ms on the 1 GB archive.
        gc.set_threshold(*GC_THRESHOLDS)

    @work(thread=True, group="live", exit_on_error=False, description="Opening the index")
    def _run_live(self) -> None:
        # In a thread: taking the writer lock and the first stat of the archive must not
        # delay the first paint; search works on what is indexed while it runs.
        self.live.start()
        self.role_known = True
        if self._closing:  # the app closed while the lock was being taken
            self.live.stop(timeout=2.0)

    def on_unmount(self) -> None:
        self.close_live()

    def close_live(self) -> None:
        """Stop indexing and release the writer lock, if this app started them
        (idempotent: the unmount and `run_app` both call it)."""
        self._closing = True
        if self._start_live:
            self.live.stop(timeout=2.0)

    def _committed(self, info: object) -> None:
        """From the indexer thread: one message; newer commits replace pending ones."""
        self.post_message(IndexUpdated(info))  # type: ignore[arg-type]

    # ---- switching panes ----------------------------------------------------------
    def switch_mode(self, mode: str):  # returns Textual's AwaitMount
        self._switching_to: str | None = mode
        try:
            return super().switch_mode(mode)
        finally:
            self._switching_to = None

    def delay_update(self, delay: float = 0.05) -> None:
        """Textual's `switch_mode` holds every frame back for 50 ms (a frame drawn
        meanwhile is thrown away) and then repaints the whole screen, to hide a pane
        that is not built yet. A pane shown before, or one whose first frame already
        holds its data (`first_frame_complete`), has nothing to hide: holding it back
        only drew its first screen twice (~20 ms a full frame on the 1 GB archive)."""
        mode = getattr(self, "_switching_to", None)
        if (
            tuning.ENABLED
            and mode is not None
            and (
                tuning.mode_opened(self, mode)
                or getattr(self.MODES.get(mode), "first_frame_complete", False)
            )
        ):
            return
        super().delay_update(delay)

    # ---- app-wide messages ---------------------------------------------------------
    @on(IndexUpdated)
    def _forward_index_updated(self, message: IndexUpdated) -> None:
        """Every opened pane re-runs its query (each keeps its reader's place)."""
        for screen in self._mode_screens():
            copy = IndexUpdated(message.info)
            copy.stop()  # delivered, not bubbled back up to the app
            screen.post_message(copy)

    def _mode_screens(self) -> Iterable[Screen[object]]:
        return tuning.mode_screens(self)

    # ---- the way back --------------------------------------------------------------
    def go_back(self) -> None:
        """To the pane Replay was opened from (Search when it was opened directly)."""
        self.switch_mode(self._back.pop() if self._back else "search")

    def _came_from(self, mode: str) -> None:
        if mode != "replay":
            self._back = [*self._back, mode][-BACK_DEPTH:]

    @on(OpenSession)
    async def _open_session(self, message: OpenSession) -> None:
        message.stop()
        self._came_from(self.current_mode)
        await self.switch_mode("replay")
        screen = self.screen
        if isinstance(screen, ReplayScreen):
            screen.open_session(
                message.session_id,
                entry_id=message.entry_id,
                agent_id=message.agent_id,
                query=message.query,
            )

    @on(OpenItem)
    async def _open_item(self, message: OpenItem) -> None:
        """A plan or memory file, selected and shown in its pane (Plans, Projects)."""
        message.stop()
        await self.switch_mode(message.pane)
        reveal = getattr(self.screen, "reveal", None)
        if reveal is not None:
            reveal(message.path, message.project)

    @on(Worker.StateChanged)
    def _worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self._worker_failed(event.worker)

    def _watch_workers(self) -> None:
        # Worker.StateChanged does not bubble: a pane's worker tells its pane only. So
        # the one central error path hears of every worker of every pane as it is done
        # (the other panes need no handler of their own).
        def removed(worker: Worker[object]) -> None:
            if worker.state == WorkerState.ERROR:
                self.call_later(self._worker_failed, worker)

        tuning.on_worker_removed(self, removed)

    def _worker_failed(self, worker: Worker[object]) -> None:
        """One place turns a failed worker into a notice: a query error never crashes."""
        if id(worker) in self._reported:
            return
        self._reported.add(id(worker))
        what = worker.description or worker.name or "background work"
        self.notify(
            f"{what}: {worker.error}", title="Something went wrong", severity="error", timeout=8
        )

    # ---- commands ------------------------------------------------------------------
    def action_keys(self) -> None:
        """The `?` sheet: the keys of the pane on show, read from its bindings."""
        screen = self.screen
        if isinstance(screen, KeyHelp):
            return
        title = next((t for m, _k, t, _h in PANES if m == self.current_mode), "ccarchive")
        self.push_screen(KeyHelp(title, screen))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The panes, the pane's own actions, the key sheet, and Textual's theme and quit:
        not the editing keys of Textual's widgets (an Input brings twenty)."""
        for mode, key, title, help_ in PANES:
            n = [p[0] for p in PANES].index(mode) + 1
            yield SystemCommand(
                f"Go to {title} (F{n} or {key})", help_, partial(self.switch_mode, mode)
            )
        seen = {f"switch_mode('{p[0]}')" for p in PANES} | {"command_palette", "quit", "keys"}
        titles: set[str] = set()
        own: dict[int, set[str]] = {}
        for binding_info in screen.active_bindings.values():
            binding, node = binding_info.binding, binding_info.node
            if id(node) not in own:  # what the node's own classes bind (not Textual's)
                own[id(node)] = {b.action for b in own_bindings(node)}
            if (
                binding.action in seen
                or binding.description in titles
                or not binding.description
                or node is self
                or not (binding.tooltip or binding.show)
                or binding.action not in own[id(node)]
            ):
                continue
            seen.add(binding.action)
            titles.add(binding.description)
            yield SystemCommand(
                binding.description,
                binding.tooltip or binding.description,
                partial(self.run_action, binding.action, node),
            )
        yield SystemCommand(
            "Keys (?)", "Every key of this pane, with what it does.", self.action_keys
        )
        for command in super().get_system_commands(screen):
            if command.title in PALETTE_EXTRAS and command.title not in titles:
                yield command


if TYPE_CHECKING:
    _panes_host: type[PaneHost] = ArchiveApp  # what the panes use of the app, it has


def make_app(
    settings: Settings, *, live: LiveArchive | None = None, start_live: bool = True
) -> ArchiveApp:
    """The app for an archive (shared by the CLI, the tests and the screenshots).

    Args:
        settings: the archive and the data dir.
        live: an already opened archive (tests pass one they drive themselves).
        start_live: start indexing and following in the background.
    """
    return ArchiveApp(settings, live=live, start_live=start_live)


def run_app(settings: Settings) -> None:
    """Open the app (what `ccarchive` with no command does)."""
    app = make_app(settings)
    try:
        app.run()
    finally:  # also when the app failed before unmounting: free the lock, end threads
        app.close_live()
