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


def test_the_suites_shared_css_parse_wraps_what_textual_parses_with() -> None:
    """tests/conftest.py's `css_parsed_once` keys the rules a stylesheet parses by the
    arguments of `Stylesheet._parse_rules` and the stylesheet's `_variables` (all the
    parse reads): a Textual that parses with more fails here. The wrapped parse is the
    fixture's, and a new variable set parses anew."""
    import inspect

    from textual.css.stylesheet import Stylesheet

    from tests.conftest import _PARSED_CSS

    assert Stylesheet._parse_rules.__name__ == "parsed_once"
    original = inspect.getsource(Stylesheet._parse_rules.__closure__[0].cell_contents)
    assert "variable_tokens=self._variable_tokens" in original
    for line in ("self._variables = variables", "self.__variable_tokens = None"):
        assert line in inspect.getsource(Stylesheet.set_variables)
    params = list(inspect.signature(Stylesheet._parse_rules).parameters)
    assert params == ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]
    blue, red = Stylesheet(variables={"accent": "blue"}), Stylesheet(variables={"accent": "red"})
    css = "Label { color: $accent; }"
    first = blue._parse_rules(css, ("", "test"))
    assert blue._parse_rules(css, ("", "test")) is first
    assert red._parse_rules(css, ("", "test")) is not first
    assert sum(key[0] == css for key in _PARSED_CSS) == 2


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


def test_the_off_switch_runs_the_panes_on_plain_textual(demo_archive: Path, tmp_path: Path) -> None:
    env = {**os.environ, tuning.OFF_ENV: "1"}
    run = subprocess.run(
        [sys.executable, "-c", PLAIN_RUN, str(demo_archive), str(tmp_path / "data")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    released_by, plans = run.stdout.split()
    assert released_by == "plain"  # nothing held
    assert int(plans) > 0  # and the pane shows its data
