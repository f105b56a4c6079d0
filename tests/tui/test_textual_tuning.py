"""Textual's private API, fenced in `ccarchive.tui.textual_tuning`: this Textual still has
everything it uses, another version or the off switch runs the panes on plain Textual,
and the panes work either way."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ccarchive.tui import textual_tuning as tuning


def test_this_textual_has_every_hook_the_tuning_uses() -> None:
    """Fails when a Textual upgrade removes or renames what textual_tuning reaches into:
    then fix the module for the new version, or widen nothing and let it run plain."""
    assert tuning.missing_hooks() == []
    # the first frame waits for the layout AwaitMount asks for, from this function
    assert tuning._await_mount_caller() == "await_mount"


def test_the_suites_idle_probes_reach_textuals_wait() -> None:
    """tests/conftest.py's `quick_idle_probes` shortens Pilot's idle probes through two
    names of `textual._wait`: a Textual that renames them fails here, not as slow tests.
    `wait_for_idle` reads both at each call (not as defaults bound at import)."""
    import inspect

    from textual import _wait

    from tests.conftest import IDLE_PROBE_S, IDLE_SHARE

    assert _wait.SLEEP_GRANULARITY == IDLE_PROBE_S
    assert _wait.SLEEP_IDLE == IDLE_PROBE_S * IDLE_SHARE
    body = inspect.getsource(_wait.wait_for_idle).split('"""')[-1]
    assert "sleep(SLEEP_GRANULARITY)" in body and "< SLEEP_IDLE" in body


def test_the_tuning_is_on_for_the_pinned_textual() -> None:
    assert tuning.ENABLED == (os.environ.get(tuning.OFF_ENV, "") in ("", "0"))


@pytest.mark.parametrize(
    ("version", "on"),
    [
        ("8.2.0", True),
        ("8.2.8", True),
        ("8.10.1", True),
        ("8.99", True),
        ("8.1.9", False),
        ("9.0.0", False),
        ("10.1", False),
        ("7.5.0", False),
        ("8.2.0rc1", True),
        ("nightly", False),
        ("", False),
    ],
)
def test_a_textual_outside_the_measured_range_runs_plain(version: str, on: bool) -> None:
    assert tuning.supported(version) is on


PLAIN_RUN = textwrap.dedent("""
    import asyncio, sys
    from pathlib import Path
    from ccarchive.config import Settings
    from ccarchive.tui import textual_tuning as tuning
    from ccarchive.tui.app import make_app
    from ccarchive.tui.widgets.plan_tree import PlanTree

    async def visit() -> None:
        assert not tuning.ENABLED and tuning.MOUNT_LAYOUT_CALLER is None
        app = make_app(Settings(Path(sys.argv[1]), Path(sys.argv[2])))
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(600):
                await pilot.pause(0.05)
                if app.live.state.watching and not app.live.state.indexing:
                    break
            await app.run_action("switch_mode('plans')")
            for _ in range(100):
                await pilot.pause(0.05)
                if app.screen.query_one(PlanTree).groups:
                    break
            print(app.screen.released_by, len(app.screen.query_one(PlanTree).groups))

    asyncio.run(visit())
""")


def test_the_off_switch_runs_the_panes_on_plain_textual(
    demo_archive_ro: Path, demo_indexed: Path, index_copy
) -> None:
    """The app of another process, the tuning off, over the shared demo archive and a
    copy of its index (it becomes the writer and finds nothing to index)."""
    settings = index_copy(demo_archive_ro, demo_indexed)
    env = {**os.environ, tuning.OFF_ENV: "1"}
    run = subprocess.run(
        [sys.executable, "-c", PLAIN_RUN, str(settings.archive_root), str(settings.data_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    released_by, plans = run.stdout.split()
    assert released_by == "plain"  # nothing held
    assert int(plans) > 0  # and the pane shows its data


def _counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The CSS texts Textual parses from now on, counted where it parses them."""
    from textual.css import stylesheet

    parsed: list[str] = []
    parse = stylesheet.parse

    def counted(scope: str, css: str, *args: object, **kwargs: object):
        parsed.append(css)
        return parse(scope, css, *args, **kwargs)

    monkeypatch.setattr(stylesheet, "parse", counted)
    return parsed


def test_stylesheets_of_one_process_parse_a_source_once_per_theme(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A source parsed by one app's stylesheet is not parsed by the next one's: the same
    rule sets, as Textual shares them within one app. The variables (the theme) are part
    of what was parsed: another theme parses anew and resolves them its own way, also
    for a stylesheet whose theme changed."""
    import uuid

    from textual.color import Color

    parsed = _counting_parses(monkeypatch)
    css = f"Label {{ color: $accent; }} /* {uuid.uuid4()} */"
    where = ("", "test")
    blue, again = (tuning.SharedStylesheet(variables={"accent": "blue"}) for _ in range(2))
    red = tuning.SharedStylesheet(variables={"accent": "red"})

    first = blue._parse_rules(css, where)
    assert again._parse_rules(css, where) is first
    assert parsed.count(css) == 1
    in_red = red._parse_rules(css, where)
    assert parsed.count(css) == 2
    assert first[0].styles.color == Color.parse("blue")
    assert in_red[0].styles.color == Color.parse("red")
    again.set_variables({"accent": "red"})
    assert again._parse_rules(css, where) is in_red
    assert blue._parse_rules(css, where) is first
    # another source, scope or place is another parse
    assert blue._parse_rules(css, ("", "elsewhere")) is not first
    assert blue._parse_rules(css, where, scope="Label") is not first
    assert parsed.count(css) == 4


async def test_a_second_app_parses_no_css_and_draws_the_same(
    monkeypatch: pytest.MonkeyPatch, live, tui_settings
) -> None:
    """The second app of a process (every app test after the first; never a user's, who
    starts one) takes the rule sets the first one parsed, and its first screen is the
    same, character for character. On plain Textual (the tuning off) it parses them all."""
    from ccarchive.tui.app import make_app
    from ccarchive.tui.screens.search import SearchScreen
    from tests.tui.support import settle

    parsed = _counting_parses(monkeypatch)
    monkeypatch.setattr(SearchScreen, "SHOW_TIMING", False)
    monkeypatch.setattr(SearchScreen, "PREVIEW_DELAY", 0)  # drawn before the screen is read
    screens: list[str] = []
    for _ in range(2):
        parsed.clear()
        app = make_app(tui_settings, live=live, start_live=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            assert isinstance(app.screen, SearchScreen) and app.screen.page is not None
            screens.append(tuning.screen_text(app.screen))
    assert screens[0] == screens[1]
    assert "Results" in screens[1]
    assert (len(parsed) == 0) is tuning.ENABLED, len(parsed)
