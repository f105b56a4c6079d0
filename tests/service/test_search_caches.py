"""What session searches cache until the next commit, and that a commit drops it.

A session search marks the sessions whose files are gone (`gone_sessions`) and an MCP
result names each session by its shortest unique id prefix (`short_session_ids`); both
are cached per commit generation. One service is kept open over a live index that grows
and loses a file, as `serve` keeps one: each answer must be the one a fresh service gives.
"""

from __future__ import annotations

import uuid as uuidlib

import pytest

from ccarchive.config import Settings
from ccarchive.live.live_archive import LiveArchive
from ccarchive.service import open_service
from tests.support.appends import main_sessions, prompt_line, rel, word


@pytest.fixture
def live(demo_settings: Settings):
    """The writer over a private demo archive, indexed once, no watcher thread."""
    la = LiveArchive(demo_settings, watch=False)
    assert la._try_become_writer()
    la.run_once()
    yield la
    la.stop()


def _groups(svc, query: str) -> dict[str, bool]:
    page = svc.search(query, group_by_session=True, limit=10, hits_per_group=1)
    return {g.session_id: g.on_disk for g in page.groups or []}


def test_a_session_gone_after_the_first_search_is_marked_gone(live: LiveArchive) -> None:
    svc = open_service(live.settings, live=live)
    src = main_sessions(live.root)[0]
    sid = str(uuidlib.uuid4())
    w = word()
    session = src.parent / f"{sid}.jsonl"
    session.write_bytes(prompt_line(src, f"where did {w} go", session_id=sid))
    live.run_once(only=[rel(live.root, session)])

    assert _groups(svc, w) == {sid: True}
    session.unlink()
    live.run_once(only=[rel(live.root, session)])

    assert _groups(svc, w) == {sid: False}  # the same service, after the commit
    assert _groups(open_service(live.settings, live=live), w) == {sid: False}


def test_a_new_session_sharing_a_prefix_lengthens_the_short_id(live: LiveArchive) -> None:
    svc = open_service(live.settings, live=live)
    src = main_sessions(live.root)[0]
    first = str(uuidlib.uuid4())
    # the same first 10 characters, and another 11th (a random one matched 1 time in 16,
    # and the two ids then needed longer short ids than asserted below)
    twin = first[:10] + ("0" if first[10] != "0" else "1") + str(uuidlib.uuid4())[11:]
    assert twin != first and twin[:10] == first[:10] and twin[10] != first[10]
    f1 = src.parent / f"{first}.jsonl"
    f1.write_bytes(prompt_line(src, f"first {word()}", session_id=first))
    live.run_once(only=[rel(live.root, f1)])
    assert svc.short_session_ids([first]) == {first: first[:8]}

    f2 = src.parent / f"{twin}.jsonl"
    f2.write_bytes(prompt_line(src, f"twin {word()}", session_id=twin))
    live.run_once(only=[rel(live.root, f2)])

    fresh = open_service(live.settings, live=live).short_session_ids([first, twin])
    assert fresh == {first: first[:12], twin: twin[:12]}
    assert svc.short_session_ids([first, twin]) == fresh  # the cache was dropped


def test_a_query_is_compiled_once_unless_it_reads_the_time(demo_service) -> None:
    """The same words are compiled once (a search and its answering documents); a date
    filter is read from now at every search, so such a query is compiled every time."""
    search = demo_service.text_search
    assert search._compiled("migration database") is search._compiled("migration database")
    for q in ("migration after:7d", "migration BEFORE:yesterday", "-after:2d x"):
        assert search._compiled(q) is not search._compiled(q)
    first = search._compiled("q0")
    for i in range(1, 200):  # the oldest are let go
        search._compiled(f"q{i}")
    assert search._compiled("q0") is not first


def test_searches_from_threads_answer_as_one_after_another(demo_service) -> None:
    """The caches are shared by the threads a front end searches from (the TUI's
    workers, an HTTP server's): the same questions asked from four threads at once get
    the pages they get one after another, compiled queries and short ids included."""
    from concurrent.futures import ThreadPoolExecutor

    from ccarchive.service.models import to_jsonable

    queries = ["test", "migration database", '"npm test"', "fix the bug", "kind:prompt api"]

    def ask(q: str) -> tuple[object, object]:
        page = demo_service.search(q, group_by_session=True, limit=4, hits_per_group=1)
        shown = to_jsonable(page)
        shown.pop("elapsed_ms")
        short = demo_service.short_session_ids(g.session_id for g in page.groups or [])
        return shown, short

    alone = [ask(q) for q in queries]
    demo_service.text_search._compiled_queries.clear()
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(ask, queries * 4))
    assert together == alone * 4
