"""The questions the panes used to answer themselves, now asked of the service: a typed
prompt's entry, a tool call's one line, whole plans for a subplan's match, timeline
windows, the document count. Over the indexed demo archive."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from ccarchive.service.browse import bucket_start, bucket_window, next_bucket


def test_a_typed_prompt_opens_at_its_entry(demo_service) -> None:
    items = demo_service.history(limit=40).items
    assert items
    opened = 0
    for item in items:
        entry_id = demo_service.prompt_entry(item.session_id, item.text, item.timestamp)
        if entry_id is None:
            continue
        (entry,) = demo_service.entries([entry_id])
        assert entry.kind == "prompt" and entry.session_id == item.session_id
        assert not entry.agent_id
        head = " ".join(item.text.split())[:30].lower()
        assert (
            " ".join(entry.text.split()).lower().startswith(head[:20])
            or abs((entry.timestamp - item.timestamp).total_seconds()) <= 120
        )
        opened += 1
    assert opened >= len(items) * 3 // 4, (opened, len(items))


def test_a_prompt_with_no_session_or_no_match_opens_nowhere(demo_service) -> None:
    item = demo_service.history(limit=1).items[0]
    assert demo_service.prompt_entry("", item.text, item.timestamp) is None
    far = item.timestamp - timedelta(days=400)
    assert demo_service.prompt_entry(item.session_id, "zzz nothing like it", far) is None
    assert demo_service.prompt_entry("not-a-session-id!", item.text, item.timestamp) is None


def test_tool_summaries_say_what_each_call_did(demo_service) -> None:
    sid = demo_service.sessions(limit=1).sessions[0].session_id
    entries = demo_service.transcript(sid, limit=400).entries
    calls = [e for e in entries if e.kind == "tool_call"]
    assert calls
    lines = demo_service.tool_summaries(entries)
    assert set(lines) == {e.id for e in calls}  # every call, and nothing else
    assert all(line and "\n" not in line for line in lines.values())
    inputs = demo_service.tool_inputs(calls)
    assert inputs and set(inputs) <= set(lines)


def test_show_does_not_load_the_app(demo_service) -> None:
    code = (
        "import sys\n"
        "from ccarchive.cli.main import main\n"
        "main(sys.argv[1:], standalone_mode=False)\n"
        "print('loaded:', sorted(m for m in sys.modules if m.startswith('ccarchive.tui')"
        " or m.split('.')[0] == 'textual'), file=sys.stderr)\n"
    )
    sid = demo_service.sessions(limit=1).sessions[0].session_id
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "show",
            "--archive",
            str(demo_service.root),
            "--data-dir",
            str(demo_service.store.base.parent),
            sid[:8],
            "--limit",
            "50",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "loaded: []" in out.stderr, out.stderr
    assert out.stdout.strip()


def test_a_subplan_match_brings_its_whole_plan(demo_service) -> None:
    every = demo_service.plans(include_agent_plans=True, limit=100).plans
    subplans = [p for p in every if p.agent_id]
    assert subplans
    tried = 0
    for sub in subplans:
        for word in sub.title.split():
            word = word.strip(":,.").lower()
            if len(word) < 5:
                continue
            page = demo_service.plans(include_agent_plans=True, query=word, limit=50)
            if any(p.codename == sub.codename and not p.agent_id for p in page.plans):
                continue  # the main plan matches by itself
            if not any(p.agent_id == sub.agent_id for p in page.plans):
                continue
            tried += 1
            whole = demo_service.plans(
                include_agent_plans=True, query=word, limit=50, whole_plans=True
            )
            assert whole.total == page.total
            assert whole.plans[: len(page.plans)] == page.plans  # the page, then the mains
            mains = whole.plans[len(page.plans) :]
            assert [p.codename for p in mains].count(sub.codename) == 1
            assert all(not p.agent_id for p in mains)
            assert {p.codename for p in mains} <= {p.codename for p in page.plans}
    assert tried, "no query matched a subplan alone"


def test_timeline_windows_end_with_the_bucket_holding_the_day(demo_service) -> None:
    day = date(2026, 3, 31)
    for kind, n in (("day", 30), ("week", 26), ("month", 12)):
        tl = demo_service.timeline(bucket=kind, ending=day, buckets=n)
        assert len(tl.days) == n, kind
        assert tl.days[-1].day == bucket_start(day, kind).isoformat()
        assert date.fromisoformat(tl.days[-1].day) <= day < tl.until.date()
        assert tl.since.date().isoformat() == tl.days[0].day


@given(
    st.dates(min_value=date(1990, 1, 1), max_value=date(2100, 12, 31)),
    st.sampled_from(["day", "week", "month"]),
    st.integers(1, 60),
)
def test_bucket_arithmetic_agrees_with_itself(day: date, kind: str, n: int) -> None:
    start = bucket_start(day, kind)
    since, until = bucket_window(day, kind, n)
    nxt = next_bucket(datetime.combine(start, datetime.min.time(), tzinfo=UTC), kind)
    assert start <= day < nxt.date() and until == nxt
    walk = since
    for _ in range(n):
        assert bucket_start(walk.date(), kind) == walk.date()
        walk = next_bucket(walk, kind)
    assert walk == until


def test_the_document_count_is_the_status_count(demo_service) -> None:
    assert demo_service.document_count() == demo_service.status().documents > 0
    assert demo_service.document_count() < demo_service.store.searcher().num_docs
