"""The query service, call by call, on real indexes of fixture archives.

Two fixtures: the demo archive (`demo_service`: every record type, rewinds, compaction,
subagents, plans with subplans, memory, history) and a generated archive cloned from
real transcripts with planted needles (`gen`: the answers say where each needle is).
Expected values are derived from the archive files themselves, never typed in, so the
tests survive changes to the fixtures' content.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ccarchive.service import ArchiveService
from ccarchive.service import models as M
from ccarchive.service.arguments import ServiceError
from tests.conftest import MAKE_ARCHIVE, build_index
from tests.support.generated import generate


# ---- fixtures ----------------------------------------------------------------------
class Gen:
    def __init__(self, root: Path, data: Path, svc: ArchiveService, answers: dict) -> None:
        self.root, self.data, self.svc, self.answers = root, data, svc, answers

    def needles(self, kind: str) -> list[dict]:
        return [n for n in self.answers["needles"] if n["kind"] == kind]


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> Gen:
    """A 40-session archive cloned from the real corpus, with 20 planted needles."""
    if not MAKE_ARCHIVE.exists():
        pytest.skip("../shared/corpus/make_archive.py is not present")
    out = tmp_path_factory.mktemp("gen")
    root = out / "claude"
    generate(
        out,
        [
            "--out",
            str(root),
            "--sessions",
            "40",
            "--needles",
            "20",
            "--answers",
            str(out / "answers.json"),
        ],
    )
    svc = build_index(root, out / "data")
    return Gen(root, out / "data", svc, json.loads((out / "answers.json").read_text()))


def _all_sessions(svc: ArchiveService, **kw) -> list[M.SessionInfo]:
    out, cursor = [], None
    while True:
        page = svc.sessions(limit=100, cursor=cursor, **kw)
        out += page.sessions
        cursor = page.next_cursor
        if not cursor:
            return out


def _whole_transcript(
    svc: ArchiveService, sid: str, agent_id: str | None = None, limit: int = 1000
) -> list[M.Entry]:
    out, cursor = [], None
    while True:
        page = svc.transcript(sid, agent_id=agent_id, limit=limit, cursor=cursor)
        out += page.entries
        cursor = page.next_cursor
        if not cursor:
            return out


def _sec(t: datetime) -> datetime:
    """The index keeps dates to the second (tantivy's date fast fields): sorting, date
    filters and aggregations see times at that resolution."""
    return t.replace(microsecond=0)


def _jsonl(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        dec = json.JSONDecoder()
        i = 0
        line = line.strip()
        while i < len(line):
            try:
                obj, j = dec.raw_decode(line, i)
            except ValueError:
                break
            if isinstance(obj, dict):
                out.append(obj)
            i = j
            while i < len(line) and line[i].isspace():
                i += 1
    return out


# ---- search: options -----------------------------------------------------------------
def test_search_finds_every_transcript_needle_by_its_phrase(gen: Gen) -> None:
    for n in gen.needles("transcript"):
        page = gen.svc.search(f'"{n["phrase"].strip("`")}"', limit=5)
        assert page.hits, n["phrase"]
        top = page.hits[0]
        assert top.session_id == n["sessionId"], n["phrase"]
        assert top.uuid in n["uuids"]
        assert top.project == n["project"]
        assert top.highlights, "a phrase hit is highlighted"
        s, e = top.highlights[0]
        assert 0 <= s < e <= len(top.snippet)


def test_search_finds_plan_memory_and_prompt_needles(gen: Gen) -> None:
    for n in gen.needles("plan"):
        hits = gen.svc.search(f'"{n["phrase"].strip("`")}"', limit=5).hits
        assert hits and hits[0].kind == "plan" and hits[0].path == n["file"]
    for n in gen.needles("memory"):
        hits = gen.svc.search(f'"{n["phrase"].strip("`")}"', limit=5).hits
        assert hits and hits[0].kind == "memory" and hits[0].path == n["file"]
    for n in gen.needles("prompt"):
        hits = gen.svc.search(f'"{n["phrase"]}" kind:history', limit=5).hits
        assert hits and hits[0].kind == "history"
        assert hits[0].session_id == n["sessionId"]


def test_search_kind_option_and_default_exclusions(demo_service: ArchiveService) -> None:
    svc = demo_service
    default = svc.search("test", limit=200, facets=True)
    kinds = {h.kind for h in default.hits}
    assert "tool_result" not in kinds and "thinking" not in kinds
    with_results = svc.search("test", limit=200, include_tool_results=True)
    assert "tool_result" in {h.kind for h in with_results.hits}
    assert with_results.total > default.total
    with_thinking = svc.search("the", limit=200, include_thinking=True)
    assert "thinking" in {h.kind for h in with_thinking.hits}
    only = svc.search("test", kind="tool_result", limit=50)
    assert only.hits and {h.kind for h in only.hits} == {"tool_result"}
    two = svc.search("test", kind=["prompt", "assistant"], limit=200)
    assert {h.kind for h in two.hits} <= {"prompt", "assistant"}
    assert svc.search("test", kind="prompt,assistant", limit=200).total == two.total
    # the option and the kind: filter intersect
    both = svc.search("test kind:prompt", kind=["prompt", "assistant"], limit=200)
    assert {h.kind for h in both.hits} == {"prompt"}
    clash = svc.search("test kind:plan", kind="prompt")
    assert clash.warnings and not clash.hits
    with pytest.raises(ServiceError, match="unknown kind 'bogus'"):
        svc.search("test", kind="bogus")


def test_search_project_and_dates(demo_service: ArchiveService) -> None:
    svc = demo_service
    projects = [p.path for p in svc.projects()]
    assert len(projects) >= 2
    name = projects[0].rsplit("/", 1)[-1]
    page = svc.search("the", project=name, limit=100)
    assert page.hits and all(name in h.project for h in page.hits)
    assert page.total < svc.search("the", limit=1).total
    everything = svc.search("the", limit=500, include_tool_results=True)
    stamps = sorted(h.timestamp for h in everything.hits if h.timestamp)
    mid = _sec(stamps[len(stamps) // 2])  # the index keeps times to the second
    since = svc.search("the", since=mid, limit=500, include_tool_results=True)
    until = svc.search("the", until=mid, limit=500, include_tool_results=True)
    assert since.hits and all(h.timestamp >= mid for h in since.hits)
    assert until.hits and all(h.timestamp < mid for h in until.hits)
    assert since.total + until.total == everything.total
    day = mid.date().isoformat()
    iso = svc.search(
        "the", since=day, until=day + "T23:59:59Z", limit=500, include_tool_results=True
    )
    assert all(h.timestamp.date() == mid.date() for h in iso.hits if h.timestamp)
    assert svc.search("the", since="3650d").total == svc.search("the").total
    for bad in ("yesterdayish", "2026-13-45", "7x"):
        with pytest.raises(ServiceError, match="since"):
            svc.search("the", since=bad)
    with pytest.raises(ServiceError, match="until"):
        svc.search("the", until="not a date")


def test_search_session_filter_and_exclusion(demo_service: ArchiveService) -> None:
    svc = demo_service
    hits = svc.search("the", limit=100).hits
    sid = hits[0].session_id
    inside = svc.search("the", session_id=sid, limit=100)
    assert inside.hits and {h.session_id for h in inside.hits} == {sid}
    outside = svc.search("the", exclude_sessions=[sid], limit=500)
    assert sid not in {h.session_id for h in outside.hits}
    assert inside.total + outside.total == svc.search("the").total


def test_search_group_by_session(demo_service: ArchiveService) -> None:
    svc = demo_service
    flat = svc.search("test", limit=500)
    page = svc.search("test", group_by_session=True, limit=3, hits_per_group=2)
    assert page.groups is not None and len(page.groups) == 3
    sids = [g.session_id for g in page.groups]
    keys = [g.session_id or g.hits[0].id for g in page.groups]
    assert len(set(keys)) == 3
    for g in page.groups:
        assert 1 <= len(g.hits) <= 2
        assert all(h.session_id == g.session_id for h in g.hits)
        if g.session_id:
            assert g.hit_count == sum(1 for h in flat.hits if h.session_id == g.session_id)
        else:  # a hit outside any session (a plan, a memory file) is a group of its own
            assert g.hit_count == 1
        assert g.hits[0].score >= g.hits[-1].score
    # groups come in the order of their best hit
    firsts = []
    for h in flat.hits:
        if h.session_id and h.session_id not in firsts:
            firsts.append(h.session_id)
    assert [s for s in sids if s] == [s for s in firsts if s in sids]
    nxt = svc.search("test", group_by_session=True, limit=3, cursor=page.next_cursor)
    assert nxt.groups and not (set(sids) - {""}) & {g.session_id for g in nxt.groups}
    assert not set(keys) & {g.session_id or g.hits[0].id for g in nxt.groups}


def test_search_paging_is_contiguous(demo_service: ArchiveService) -> None:
    svc = demo_service
    whole = [h.id for h in svc.search("the", limit=60).hits]
    got, cursor = [], None
    for _ in range(20):
        page = svc.search("the", limit=7, cursor=cursor)
        got += [h.id for h in page.hits]
        cursor = page.next_cursor
        if not cursor or len(got) >= 60:
            break
    assert got[:60] == whole
    with pytest.raises(ServiceError, match="cursor"):
        svc.search("the", cursor="!!not-a-cursor")


def test_search_facets_count_the_current_query(demo_service: ArchiveService) -> None:
    svc = demo_service
    page = svc.search(
        "test", facets=True, limit=500, include_tool_results=True, include_thinking=True
    )
    f = page.facets
    assert f is not None
    # facets count every kind (for the sidebar) while hits honour the default exclusions
    every = svc.search("test", limit=500, kind=list(_kinds()))
    assert sum(c.count for c in f.kinds) == every.total
    by_kind: dict[str, int] = {}
    for h in every.hits:
        by_kind[h.kind] = by_kind.get(h.kind, 0) + 1
    assert {c.value: c.count for c in f.kinds} == by_kind
    by_project: dict[str, int] = {}
    for h in every.hits:
        if h.project:
            by_project[h.project] = by_project.get(h.project, 0) + 1
    assert {c.value: c.count for c in f.projects} == by_project
    stamps = [_sec(h.timestamp) for h in every.hits if h.timestamp]
    assert f.first == min(stamps) and f.last == max(stamps)
    narrowed = svc.search("test", facets=True, project=f.projects[0].value)
    assert [c.value for c in narrowed.facets.projects] == [f.projects[0].value]


def _kinds() -> tuple[str, ...]:
    from ccarchive.index.schema import SEARCHABLE_KINDS

    return SEARCHABLE_KINDS


def test_search_recency_boost_favours_recent_hits(demo_service: ArchiveService) -> None:
    svc = demo_service
    plain = svc.search("test", limit=50)
    recent = svc.search("test", limit=50, recency=True)
    assert {h.id for h in plain.hits} == {h.id for h in recent.hits} or plain.total == recent.total

    def mean_age(hits: list[M.Hit]) -> float:
        top = [h.timestamp.timestamp() for h in hits[:10] if h.timestamp]
        return sum(top) / len(top)

    assert mean_age(recent.hits) >= mean_age(plain.hits)


def test_search_snippets_are_bounded(demo_service: ArchiveService) -> None:
    for h in demo_service.search("the", limit=100, include_tool_results=True).hits:
        assert len(h.snippet) <= 200
    short = demo_service.search("the", limit=20, snippet_chars=40, kind="tool_call")
    assert short.hits


def test_search_ranking_prompts_plans_memory_above_tool_output(gen: Gen) -> None:
    """The same words in a prompt/plan/memory file and in tool output: people first."""
    svc = gen.svc
    for n in gen.needles("plan") + gen.needles("memory"):
        words = " ".join(w.strip("`") for w in n["phrase"].split()[:4])
        page = svc.search(words, limit=20, include_tool_results=True)
        kinds = [h.kind for h in page.hits]
        assert kinds and kinds[0] in ("plan", "memory", "prompt"), (words, kinds)
    for word in ("error", "test", "file", "build"):
        page = svc.search(word, limit=50, kind=["prompt", "tool_result"])
        kinds = [h.kind for h in page.hits]
        if "prompt" in kinds and "tool_result" in kinds:
            assert kinds.index("prompt") < kinds.index("tool_result"), word


def test_ranking_kind_weight_on_equal_text(tmp_path: Path) -> None:
    """Identical text as a prompt and as a tool result: the prompt ranks first."""
    root = tmp_path / "claude"
    proj = root / "projects" / "-w-rank"
    proj.mkdir(parents=True)
    sid = "11111111-2222-3333-4444-555555555555"
    text = "zebracorn migration failed on the orders table"
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": sid,
            "cwd": "/w/rank",
            "timestamp": "2026-01-01T10:00:00Z",
            "message": {"role": "user", "content": text},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": sid,
            "cwd": "/w/rank",
            "timestamp": "2026-01-01T10:00:01Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-x",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "Bash",
                        "input": {"command": "ls"},
                    }
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a1",
            "sessionId": sid,
            "cwd": "/w/rank",
            "timestamp": "2026-01-01T10:00:02Z",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": text}],
            },
        },
    ]
    (proj / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (root / "plans").mkdir()
    (root / "plans" / "quiet-zebra-plan.md").write_text(f"# Plan\n\n{text}\n")
    (root / "history.jsonl").write_text("")
    svc = build_index(root, tmp_path / "data")
    hits = svc.search("zebracorn migration", include_tool_results=True).hits
    kinds = [h.kind for h in hits]
    assert set(kinds) == {"prompt", "plan", "tool_result"}
    assert kinds[-1] == "tool_result"


# ---- search: the query language end to end -------------------------------------------
def test_language_words_phrases_boolean_prefix(demo_service: ArchiveService) -> None:
    svc = demo_service
    a, b = svc.search("test", limit=500), svc.search("release", limit=500)
    ids_a, ids_b = {h.id for h in a.hits}, {h.id for h in b.hits}
    both = {h.id for h in svc.search("test AND release", limit=500).hits}
    plain = svc.search("test release", limit=500).hits
    implicit = {h.id for h in plain}
    either = {h.id for h in svc.search("test OR release", limit=500).hits}
    minus = {h.id for h in svc.search("test NOT release", limit=500).hits}
    dash = {h.id for h in svc.search("test -release", limit=500).hits}
    required = {h.id for h in svc.search("+test +release", limit=500).hits}
    half = {h.id for h in svc.search("test +release", limit=500).hits}
    assert both == required == ids_a & ids_b
    assert half == ids_b
    # plain words rank by any of them, and what holds both comes first
    assert implicit == either == ids_a | ids_b
    assert plain[0].id in both
    assert minus == dash == ids_a - ids_b
    grouped = {h.id for h in svc.search("(test OR release) AND NOT test", limit=500).hits}
    assert grouped == ids_b - ids_a
    # prefix: tes* finds test, tests, testing (one stem) and more
    prefix = svc.search("tes*", limit=500)
    assert ids_a <= {h.id for h in prefix.hits}
    shorter = svc.search("te*", limit=500)
    assert {h.id for h in prefix.hits} <= {h.id for h in shorter.hits}
    assert shorter.total > a.total
    # an exact phrase: words in order
    hit = a.hits[0]
    words = hit.snippet.split()
    for i in range(len(words) - 2):
        phrase = " ".join(words[i : i + 3])
        if phrase.replace(" ", "").isalpha():
            ph = svc.search(f'"{phrase}"', limit=50)
            assert hit.id in {h.id for h in ph.hits}
            rev = " ".join(reversed(words[i : i + 3]))
            assert hit.id not in {h.id for h in svc.search(f'"{rev}"', limit=50).hits}
            break


def test_language_field_filters(demo_service: ArchiveService) -> None:
    svc = demo_service
    hits = svc.search("the", limit=500, include_tool_results=True, include_thinking=True).hits
    sess = next(h for h in hits if h.session_id and h.kind == "assistant")
    proj = sess.project.rsplit("/", 1)[-1]
    checks = {
        f"the project:{proj}": lambda h: proj in h.project,
        f"the session:{sess.session_id[:8]}": lambda h: h.session_id == sess.session_id,
        "the kind:assistant": lambda h: h.kind == "assistant",
        "the kind:prompts": lambda h: h.kind == "prompt",
        "the role:user": lambda h: h.role == "user",
        "the -role:user": lambda h: h.role != "user",
    }
    tool_hit = next(h for h in hits if h.tool)
    checks[f"tool:{tool_hit.tool.lower()}"] = lambda h: h.tool == tool_hit.tool
    model_hit = next(h for h in hits if h.model)
    checks[f"the model:{model_hit.model.split('-')[1]}"] = lambda h: (
        model_hit.model.split("-")[1] in h.model
    )
    branch_hit = next(h for h in hits if h.branch)
    checks[f"the branch:{branch_hit.branch}"] = lambda h: branch_hit.branch in h.branch
    for q, ok in checks.items():
        page = svc.search(q, limit=200, include_tool_results=True)
        assert page.hits, q
        assert not page.warnings, (q, page.warnings)
        assert all(ok(h) for h in page.hits), q
    # file: finds tool calls by a part of the path
    files = [f for e in _whole_transcript(svc, sess.session_id) for f in e.files]
    if files:
        stem = Path(files[0]).stem.split("_")[0].split(".")[0]
        page = svc.search(f"file:{stem}", limit=50, include_tool_results=True)
        assert page.hits and not page.warnings


def test_language_dates_after_before(demo_service: ArchiveService) -> None:
    svc = demo_service
    hits = svc.search("the", limit=500).hits
    stamps = sorted(h.timestamp for h in hits if h.timestamp)
    mid = stamps[len(stamps) // 2]
    day = mid.date().isoformat()
    after = svc.search(f"the after:{day}", limit=500)
    before = svc.search(f"the before:{day}", limit=500)
    assert after.hits and before.hits
    # after:/before: read dates in local time: allow a day either side
    slack = timedelta(days=1)
    start = datetime.fromisoformat(day).replace(tzinfo=UTC)
    assert all(h.timestamp >= start - slack for h in after.hits)
    assert all(h.timestamp < start + slack for h in before.hits)
    assert after.total + before.total == svc.search("the").total
    rel = svc.search("the after:36500d")
    assert rel.total == svc.search("the").total and not rel.warnings
    assert svc.search("the after:1w").total <= rel.total


def test_language_code_words_by_parts_and_whole(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    proj = root / "projects" / "-w-code"
    proj.mkdir(parents=True)
    sid = "21111111-2222-3333-4444-555555555555"
    texts = [
        "the fetchUserProfile helper returns None",
        "set MAX_RETRY_COUNT to 5",
        "see src/app/billing_client.py for E0432",
    ]
    lines = [
        {
            "type": "user",
            "uuid": f"u{i}",
            "parentUuid": f"u{i - 1}" if i else None,
            "sessionId": sid,
            "cwd": "/w/code",
            "timestamp": f"2026-01-01T10:00:0{i}Z",
            "message": {"role": "user", "content": t},
        }
        for i, t in enumerate(texts)
    ]
    (proj / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (root / "history.jsonl").write_text("")
    svc = build_index(root, tmp_path / "data")
    for q, want in [
        ("fetchUserProfile", 0),
        ("user profile", 0),
        ("fetch", 0),
        ("MAX_RETRY_COUNT", 1),
        ("retry", 1),
        ("billing_client", 2),
        ("src/app/billing_client.py", 2),
        ("billing", 2),
        ("E0432", 2),
    ]:
        hits = svc.search(q).hits
        assert hits and hits[0].snippet.startswith(texts[want][:10]), q


@pytest.mark.parametrize(
    "query",
    [
        '"unclosed',
        "project:",
        "AND OR",
        "((((",
        "NOT",
        ")",
        "kind:bogus test",
        "after:notadate x",
        '""',
        "-",
        "tool:" + "x" * 500,
        "\x00\x01 weird",
    ],
)
def test_broken_queries_explain_not_crash(demo_service: ArchiveService, query: str) -> None:
    page = demo_service.search(query, facets=True, group_by_session=True)
    assert isinstance(page, M.SearchPage)
    if query not in ("\x00\x01 weird",):
        assert page.warnings, query
    assert all(isinstance(w, str) and w for w in page.warnings)


def test_a_10kb_query_is_cut_and_says_so(demo_service: ArchiveService) -> None:
    q = ("test " * 2100)[:10_500]
    page = demo_service.search(q, facets=True)
    assert any("characters" in w or "terms" in w for w in page.warnings)
    assert page.hits
    assert page.elapsed_ms < 5000


def test_empty_query_lists_newest_first(demo_service: ArchiveService) -> None:
    page = demo_service.search("", limit=50)
    stamps = [_sec(h.timestamp) for h in page.hits]  # ordered to the second
    assert stamps == sorted(stamps, reverse=True)
    only = demo_service.search("kind:plan", limit=50)
    assert only.hits and {h.kind for h in only.hits} == {"plan"}


# ---- bad arguments -------------------------------------------------------------------
def test_bad_arguments_raise_service_errors(demo_service: ArchiveService) -> None:
    svc = demo_service
    cases = [
        (lambda: svc.search("x", limit=0), "limit must be between 1 and 500"),
        (lambda: svc.search("x", limit=501), "limit"),
        (lambda: svc.sessions(limit=-1), "limit"),
        (lambda: svc.sessions(since="2026-99-99"), "since"),
        (lambda: svc.session("nope-not-a-session"), "unknown session"),
        (lambda: svc.session(""), "session_id"),
        (lambda: svc.transcript("nope-not-a-session"), "unknown session"),
        (lambda: svc.transcript(_some_sid(svc), limit=5000), "limit"),
        (lambda: svc.transcript(_some_sid(svc), cursor="@@@"), "cursor"),
        (lambda: svc.context("no:such:entry"), "unknown entry id"),
        (lambda: svc.context(_some_id(svc), before=-1), "before"),
        (lambda: svc.context(_some_id(svc), after=100), "after"),
        (lambda: svc.entries([]), "at least one"),
        (lambda: svc.entries(["no:such:entry"]), "unknown entry id"),
        (lambda: svc.entries([_some_id(svc)] * 101), "number of ids"),
        (lambda: svc.entries([_some_id(svc)], max_chars=0), "max_chars"),
        (lambda: svc.timeline(bucket="year"), "bucket"),
        (lambda: svc.timeline(since="2026-02-01", until="2026-01-01"), "since must be before"),
        (lambda: svc.timeline(days=0), "days"),
        (lambda: svc.timeline(since="bogus"), "since"),
        (lambda: svc.plan(""), "codename"),
        (lambda: svc.plan("no-such-plan"), "unknown plan"),
        (lambda: svc.plans(offset=-1), "offset"),
        (lambda: svc.memory_file("/no/such/project"), "no memory files"),
        (lambda: svc.history(limit=1000), "limit"),
        (lambda: svc.history(since="soon"), "since"),
        (lambda: svc.tail("nope-not-a-session"), "unknown session"),
    ]
    for call, msg in cases:
        with pytest.raises(ServiceError, match=msg):
            call()


def _some_sid(svc: ArchiveService) -> str:
    return svc.sessions(limit=1).sessions[0].session_id


def _some_id(svc: ArchiveService) -> str:
    return svc.search("the", limit=1, kind="assistant").hits[0].id


# ---- projects, sessions, session -----------------------------------------------------
def test_projects_figures_add_up(demo_service: ArchiveService, demo_archive_ro: Path) -> None:
    svc = demo_service
    projects = svc.projects()
    sessions = _all_sessions(svc, include_empty=True)
    assert projects
    lasts = [p.last_activity for p in projects]
    assert lasts == sorted(lasts, reverse=True)
    for p in projects:
        mine = [s for s in sessions if s.project == p.path]
        assert p.sessions == len(mine), p.path
        assert p.messages == sum(s.messages for s in mine)
        assert p.tokens == sum(s.tokens.total for s in mine)
        assert p.archive_bytes == sum(s.archive_bytes for s in mine)
        assert p.first_activity == _sec(min(s.first_activity for s in mine))
        assert p.last_activity == _sec(max(s.last_activity for s in mine))
    disk = sum(f.stat().st_size for f in (demo_archive_ro / "projects").rglob("*.jsonl"))
    assert sum(p.archive_bytes for p in projects) <= disk


def test_sessions_filters_and_sort(demo_service: ArchiveService) -> None:
    svc = demo_service
    every = _all_sessions(svc)
    assert every
    lasts = [s.last_activity for s in every]
    assert lasts == sorted(lasts, reverse=True)
    assert all(s.messages > 0 for s in every)
    with_empty = _all_sessions(svc, include_empty=True)
    assert len(with_empty) >= len(every)
    one = every[0]
    proj = one.project.rsplit("/", 1)[-1]
    by_proj = _all_sessions(svc, project=proj)
    assert by_proj and all(proj in s.project for s in by_proj)
    assert {s.session_id for s in by_proj} == {s.session_id for s in every if proj in s.project}
    model = next(m for s in every for m in s.models)
    by_model = _all_sessions(svc, model=model)
    assert {s.session_id for s in by_model} == {s.session_id for s in every if model in s.models}
    branch = next(b for s in every for b in s.branches)
    by_branch = _all_sessions(svc, branch=branch)
    assert {s.session_id for s in by_branch} == {
        s.session_id for s in every if any(branch in b for b in s.branches)
    }
    mid = _sec(sorted(lasts)[len(lasts) // 2])
    since = _all_sessions(svc, since=mid)
    until = _all_sessions(svc, until=mid)
    assert since and until
    assert all(s.last_activity >= mid for s in since)
    assert all(s.last_activity < mid for s in until)
    assert len(since) + len(until) == len(every)
    # paging
    page1 = svc.sessions(limit=3)
    page2 = svc.sessions(limit=3, cursor=page1.next_cursor)
    assert page1.total == len(every)
    assert [s.session_id for s in page1.sessions + page2.sessions] == [
        s.session_id for s in every[:6]
    ]


def test_session_figures_match_the_transcript(
    demo_service: ArchiveService, demo_archive_ro: Path
) -> None:
    svc = demo_service
    for info in _all_sessions(svc):
        got = svc.session(info.session_id)
        assert got == info
        assert svc.session(info.session_id[:8]).session_id == info.session_id
        assert got.title and got.project and got.on_disk
        assert got.first_activity <= got.last_activity
        assert got.duration_s == pytest.approx(
            (got.last_activity - got.first_activity).total_seconds(), abs=1
        )
        objs = _jsonl(demo_archive_ro / got.path)
        msg_ids = {
            o["message"]["id"]
            for o in objs
            if o.get("type") == "assistant"
            and isinstance(o.get("message"), dict)
            and o["message"].get("id")
        }
        tools = sum(
            1
            for o in objs
            if o.get("type") == "assistant"
            for b in (o.get("message") or {}).get("content") or []
            if isinstance(b, dict) and b.get("type") == "tool_use"
        )
        assert got.tool_calls == tools, got.session_id
        assert got.messages == got.prompts + len(msg_ids), got.session_id
        assert (
            got.tokens.total
            == got.tokens.input
            + got.tokens.output
            + got.tokens.cache_creation
            + got.tokens.cache_read
        )
        models = {o["message"].get("model") for o in objs if o.get("type") == "assistant"}
        assert set(got.models) <= models
        assert got.subagent_count == len([a for a in got.subagents if not a.warmup])
        assert got.tokens.subagents == sum(a.tokens for a in got.subagents)


# ---- transcripts ---------------------------------------------------------------------
def test_transcript_pages_in_file_order(demo_service: ArchiveService) -> None:
    svc = demo_service
    for info in _all_sessions(svc):
        whole = svc.transcript(info.session_id, limit=1000)
        assert whole.total == len(whole.entries)
        assert whole.title == info.title and whole.project == info.project
        seqs = [(e.offset, e.id) for e in whole.entries]
        assert [s[0] for s in seqs] == sorted(s[0] for s in seqs)
        assert all(e.agent_id in ("", "sidechain") for e in whole.entries)
        paged, cursor, start = [], None, 0
        while True:
            page = svc.transcript(info.session_id, limit=4, cursor=cursor)
            assert page.start == start
            paged += page.entries
            start += len(page.entries)
            cursor = page.next_cursor
            if not cursor:
                break
        assert [e.id for e in paged] == [e.id for e in whole.entries]
        mid = svc.transcript(info.session_id, start=2, limit=3)
        assert [e.id for e in mid.entries] == [e.id for e in whole.entries[2:5]]
        # the uuid chain: each parent is an earlier entry (or outside the indexed units)
        seen: set[str] = set()
        for e in whole.entries:
            assert not e.parent_uuid or e.parent_uuid not in {
                x.uuid for x in whole.entries if x.offset > e.offset
            }
            seen.add(e.uuid)


def test_transcript_flags_rewind_and_compaction(
    demo_service: ArchiveService, demo_archive_ro: Path
) -> None:
    svc = demo_service
    flags: dict[str, list[M.Entry]] = {}
    for info in _all_sessions(svc):
        for e in _whole_transcript(svc, info.session_id):
            for f in e.flags:
                flags.setdefault(f, []).append(e)
    assert "rewind" in flags and "compact" in flags
    for e in flags["rewind"]:
        assert e.kind == "prompt"
        # a rewind prompt's parent is not the entry just before it in the file
        objs = _jsonl(demo_archive_ro / e.path)
        uuids = [o.get("uuid") for o in objs if o.get("uuid")]
        i = uuids.index(e.uuid)
        assert e.parent_uuid in uuids[: i - 1]
    for e in flags["compact"]:
        assert e.kind == "event"
        info = svc.session(e.session_id)
        assert info.compactions >= 1 or "micro" in e.text.lower() or e.parent_uuid
    compacted = [s for s in _all_sessions(svc) if s.compactions]
    assert compacted
    for s in compacted:
        kinds = [e.kind for e in _whole_transcript(svc, s.session_id)]
        assert "summary" in kinds


def test_transcript_kinds_filter(demo_service: ArchiveService) -> None:
    sid = _some_sid(demo_service)
    page = demo_service.transcript(sid, kinds=["prompt"], limit=100)
    assert page.entries and {e.kind for e in page.entries} == {"prompt"}


def test_subagents_reachable_from_the_spawning_tool_call(
    demo_service: ArchiveService, gen: Gen
) -> None:
    checked = 0
    for svc in (demo_service, gen.svc):
        for info in _all_sessions(svc):
            real = [a for a in info.subagents if a.tool_use_id]
            if not real:
                continue
            entries = _whole_transcript(svc, info.session_id)
            calls = {e.tool_use_id: e for e in entries if e.kind == "tool_call"}
            for sub in real:
                call = calls.get(sub.tool_use_id)
                assert call is not None, (info.session_id, sub.agent_id)
                assert call.tool in ("Task", "Agent")
                assert call.subagent_id == sub.agent_id
                result = [
                    e
                    for e in entries
                    if e.kind == "tool_result" and e.tool_use_id == sub.tool_use_id
                ]
                assert all(r.subagent_id in ("", sub.agent_id) for r in result)
                page = svc.transcript(info.session_id, agent_id=call.subagent_id, limit=50)
                assert page.agent_id == sub.agent_id
                assert page.entries
                assert {e.agent_id for e in page.entries} == {sub.agent_id}
                assert {e.session_id for e in page.entries} == {info.session_id}
                assert page.total == len(_whole_transcript(svc, info.session_id, sub.agent_id))
                checked += 1
    assert checked >= 2


# ---- context and entries -------------------------------------------------------------
def test_context_before_and_after(demo_service: ArchiveService) -> None:
    svc = demo_service
    sid = max(_all_sessions(svc), key=lambda s: s.messages).session_id
    entries = _whole_transcript(svc, sid)
    i = len(entries) // 2
    ctx = svc.context(entries[i].id, before=3, after=2)
    assert ctx.target.id == entries[i].id
    assert [e.id for e in ctx.before] == [e.id for e in entries[i - 3 : i]]
    assert [e.id for e in ctx.after] == [e.id for e in entries[i + 1 : i + 3]]
    first = svc.context(entries[0].id, before=5, after=0)
    assert first.before == [] and first.after == []
    last = svc.context(entries[-1].id, before=0, after=5)
    assert last.after == []
    # a plan or history hit has no neighbours in a transcript, but does not fail
    plan = svc.search("kind:plan", limit=1).hits[0]
    assert svc.context(plan.id).target.kind == "plan"


def _long_entry_archive(tmp_path: Path, n_chars: int) -> tuple[Path, str]:
    root = tmp_path / "claude"
    proj = root / "projects" / "-w-long"
    proj.mkdir(parents=True)
    sid = "31111111-2222-3333-4444-555555555555"
    body = "".join(f"line {i:06d} of a very long tool output\n" for i in range(n_chars // 38))
    prompt = "<ide_opened_file>The user opened x.py</ide_opened_file>run the long thing"
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": sid,
            "cwd": "/w/long",
            "timestamp": "2026-01-01T10:00:00Z",
            "message": {"role": "user", "content": prompt},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": sid,
            "cwd": "/w/long",
            "timestamp": "2026-01-01T10:00:01Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-x",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "Bash",
                        "input": {"command": "make long"},
                    }
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a1",
            "sessionId": sid,
            "cwd": "/w/long",
            "timestamp": "2026-01-01T10:00:02Z",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": body}],
            },
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "parentUuid": "u2",
            "sessionId": sid,
            "cwd": "/w/long",
            "timestamp": "2026-01-01T10:00:03Z",
            "message": {
                "id": "msg_2",
                "role": "assistant",
                "model": "claude-x",
                "content": [{"type": "text", "text": "P" * 50_000}],
            },
        },
    ]
    (proj / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (root / "history.jsonl").write_text(
        json.dumps(
            {
                "display": "run the long thing",
                "timestamp": 1767261600000,
                "project": "/w/long",
                "sessionId": sid,
            }
        )
        + "\n"
    )
    return root, body


def test_entries_read_beyond_the_index_cap(tmp_path: Path) -> None:
    root, body = _long_entry_archive(tmp_path, 100_000)
    svc = build_index(root, tmp_path / "data")
    sid = "31111111-2222-3333-4444-555555555555"
    page = svc.transcript(sid, limit=10)
    result = next(e for e in page.entries if e.kind == "tool_result")
    prose = next(e for e in page.entries if e.kind == "assistant")
    prompt = next(e for e in page.entries if e.kind == "prompt")
    # a prompt shown without the IDE context it carried is whole, not "truncated"
    assert prompt.text == "run the long thing" and not prompt.truncated
    # the transcript shows the capped head, says so and says where to read on
    assert result.text_len == len(body)
    assert result.truncated and result.next_char is not None
    assert body.startswith(result.text)
    assert len(prose.text) <= 4000 and prose.truncated and prose.next_char == len(prose.text)
    # read the whole text back in pages
    got, offset = "", 0
    for _ in range(20):
        (e,) = svc.entries([result.id], max_chars=30_000, char_offset=offset)
        assert e.text_len == len(body)
        got += e.text
        if not e.truncated:
            assert e.next_char is None
            break
        assert e.next_char == offset + len(e.text)
        offset = e.next_char
    assert got == body
    # reading on from a transcript's cut point
    (rest,) = svc.entries([result.id], char_offset=result.next_char, max_chars=200_000)
    assert result.text + rest.text == body
    (full,) = svc.entries([prose.id], max_chars=200_000)
    assert full.text == "P" * 50_000 and not full.truncated
    # context caps the neighbours too
    ctx = svc.context(prose.id, before=3, max_chars=100)
    assert all(len(e.text) <= 100 for e in ctx.before)
    assert any(e.truncated and e.next_char == 100 for e in ctx.before)
    # history entries read back as well
    h = svc.history().items[0]
    (he,) = svc.entries([h.id])
    assert he.text == "run the long thing" and he.kind == "history"


def test_entries_several_ids_keep_their_order(demo_service: ArchiveService) -> None:
    ids = [h.id for h in demo_service.search("the", limit=5, kind="assistant").hits]
    got = demo_service.entries(list(reversed(ids)))
    assert [e.id for e in got] == list(reversed(ids))
    assert all(e.text for e in got)


# ---- timeline ------------------------------------------------------------------------
def test_timeline_day_week_month(demo_service: ArchiveService) -> None:
    svc = demo_service
    every = [s for s in _all_sessions(svc, include_empty=True) if s.first_activity]
    lo = min(s.first_activity for s in every).replace(hour=0, minute=0, second=0, microsecond=0)
    hi = max(s.first_activity for s in every) + timedelta(days=1)
    tl = svc.timeline(since=lo, until=hi)
    assert tl.bucket == "day"
    days = [d.day for d in tl.days]
    assert days == sorted(days) and len(days) == len(set(days))
    assert days[0] == lo.date().isoformat()
    assert sum(d.sessions for d in tl.days) == len(every)
    for d in tl.days:
        mine = [s for s in every if s.first_activity.date().isoformat() == d.day]
        assert d.sessions == len(mine)
        assert d.tokens == sum(s.tokens.total for s in mine)
        assert d.messages == sum(s.messages for s in mine)
    prompts = svc.search("kind:prompt", limit=500)
    main_prompts = [h for h in prompts.hits if not h.agent_id]
    assert sum(d.prompts for d in tl.days) == len(main_prompts)
    for bucket in ("week", "month"):
        t2 = svc.timeline(since=lo, until=hi, bucket=bucket)
        assert t2.bucket == bucket
        assert sum(d.sessions for d in t2.days) == len(every)
        assert sum(d.prompts for d in t2.days) == len(main_prompts)
        for d in t2.days:
            day = datetime.fromisoformat(d.day)
            assert day.weekday() == 0 if bucket == "week" else day.day == 1
    proj = every[0].project
    tp = svc.timeline(since=lo, until=hi, project=proj)
    assert sum(d.sessions for d in tp.days) == len([s for s in every if s.project == proj])
    last = svc.timeline(days=7, until=hi)
    assert len(last.days) == 7


# ---- plans and memory ----------------------------------------------------------------
def test_plans_list_and_tree(demo_service: ArchiveService, demo_archive_ro: Path) -> None:
    svc = demo_service
    files = sorted((demo_archive_ro / "plans").glob("*.md"))
    main_files = [f for f in files if "-agent-" not in f.stem]
    listed = svc.plans(limit=100)
    assert listed.total == len(main_files)
    assert {p.path for p in listed.plans} == {f"plans/{f.name}" for f in main_files}
    mods = [p.modified for p in listed.plans]
    assert mods == sorted(mods, reverse=True)
    every = svc.plans(limit=100, include_agent_plans=True)
    assert every.total == len(files)
    page = svc.plans(limit=2, offset=1)
    assert [p.path for p in page.plans] == [p.path for p in listed.plans[1:3]]
    with_subs = [p for p in every.plans if p.agent_id]
    assert with_subs, "the demo archive has agent subplans"
    sub = with_subs[0]
    tree = svc.plan(sub.codename)
    assert tree.plan.agent_id == "" and tree.plan.codename == sub.codename
    assert tree.text == (demo_archive_ro / tree.plan.path).read_text()
    assert sub.agent_id in {s.plan.agent_id for s in tree.subplans}
    for s in tree.subplans:
        assert s.text == (demo_archive_ro / s.plan.path).read_text()
        assert s.sessions == []
    assert tree.sessions, "the plan links to the sessions that carry its codename"
    for s in tree.sessions:
        assert sub.codename in s.slugs
    assert {s.session_id for s in tree.sessions} == set(tree.plan.sessions)
    flat = svc.plan(sub.codename, include_agent_plans=False)
    assert flat.subplans == []
    # a listed plan's sessions (read for the whole page at once) are its own plan's
    for p in every.plans:
        assert p.sessions == svc.plan(p.codename).plan.sessions, p.codename
    assert any(p.sessions for p in every.plans)
    full = {p.path: p.sessions for p in every.plans}
    for cap in (1, 0):  # the newest `cap` only, however many there are
        svc.browse.SLUG_SESSIONS = cap
        try:
            capped = svc.plans(limit=100, include_agent_plans=True).plans
        finally:
            del svc.browse.SLUG_SESSIONS
        assert {p.path: p.sessions for p in capped} == {k: v[:cap] for k, v in full.items()}
    small = svc.plan(sub.codename, max_chars=20)
    assert len(small.text) == 20 and small.truncated
    # filters
    proj = tree.plan.project.rsplit("/", 1)[-1]
    assert all(proj in p.project for p in svc.plans(project=proj).plans)
    part = sub.codename.split("-")[1]
    assert {p.codename for p in svc.plans(codename=part).plans} == {
        p.codename for p in listed.plans if part in p.codename
    }
    word = tree.text.split()[-1].strip(".,:;`*#")
    assert tree.plan.path in {p.path for p in svc.plans(query=word).plans}


def test_memory_files_and_reading_one(demo_service: ArchiveService, demo_archive_ro: Path) -> None:
    svc = demo_service
    files = svc.memory_files()
    on_disk = list((demo_archive_ro / "projects").rglob("*.md"))
    assert len(files) == len(on_disk)
    for f in files:
        assert f.size == (demo_archive_ro / f.path).stat().st_size
        assert f.modified is not None and f.project
    proj = files[0].project
    mine = svc.memory_files(project=proj.rsplit("/", 1)[-1])
    assert mine and all(proj.rsplit("/", 1)[-1] in m.project for m in mine)
    main = next(f for f in files if f.filename == "MEMORY.md")
    got = svc.memory_file(main.project)
    assert got.info.path == main.path
    assert got.text == (demo_archive_ro / main.path).read_text()
    topic = next((f for f in files if f.filename not in ("MEMORY.md", "summary.md")), None)
    if topic:
        t = svc.memory_file(topic.project, topic.filename, max_chars=10)
        assert len(t.text) == 10 and t.truncated
    with pytest.raises(ServiceError, match="no memory file 'nope.md'"):
        svc.memory_file(main.project, "nope.md")


# ---- history -------------------------------------------------------------------------
def test_history_list_and_search(demo_service: ArchiveService, demo_archive_ro: Path) -> None:
    svc = demo_service
    lines = [
        json.loads(x)
        for x in (demo_archive_ro / "history.jsonl").read_text().splitlines()
        if x.strip()
    ]
    typed = [x for x in lines if x.get("display", "").strip()]
    page = svc.history(limit=500)
    assert page.total == len(typed)
    stamps = [i.timestamp for i in page.items]
    assert stamps == sorted(stamps, reverse=True)
    proj = typed[0]["project"]
    by_proj = svc.history(project=proj, limit=500)
    assert by_proj.total == sum(1 for x in typed if x.get("project") == proj)
    sid = next(x["sessionId"] for x in typed if x.get("sessionId"))
    by_sid = svc.history(session_id=sid, limit=500)
    assert by_sid.total == sum(1 for x in typed if x.get("sessionId") == sid)
    assert svc.history(session_id=sid[:8], limit=500).total == by_sid.total
    mid = stamps[len(stamps) // 2]
    a, b = svc.history(since=mid, limit=500), svc.history(until=mid, limit=500)
    assert a.total + b.total == page.total
    assert all(i.timestamp >= mid for i in a.items)
    word = max(typed[0]["display"].split(), key=len).strip(".,:;`'\"!?")
    found = svc.history(query=word, limit=50)
    assert found.items and any(word.lower() in i.text.lower() for i in found.items)
    assert svc.history(query='"unclosed').warnings
    p2 = svc.history(limit=5, offset=5)
    assert [i.id for i in p2.items] == [i.id for i in page.items[5:10]]


# ---- status and tail -----------------------------------------------------------------
def test_status_figures(demo_service: ArchiveService, demo_archive_ro: Path) -> None:
    st = demo_service.status()
    sessions = _all_sessions(demo_service, include_empty=True)
    assert st.sessions == len(sessions)
    assert st.projects == len(demo_service.projects())
    assert st.documents == sum(st.documents_by_kind.values())
    assert st.documents_by_kind["plan"] == len(list((demo_archive_ro / "plans").glob("*.md")))
    jsonl = [p for p in demo_archive_ro.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".md")]
    assert st.files == len(jsonl)
    assert st.archive_bytes == sum(p.stat().st_size for p in jsonl)
    assert st.index_bytes > 0 and st.last_update is not None
    assert st.role == "offline"  # built, and no process is indexing it now


def test_tail_returns_what_follows(demo_service: ArchiveService) -> None:
    sid = max(_all_sessions(demo_service), key=lambda s: s.messages).session_id
    entries = _whole_transcript(demo_service, sid)
    got, last = demo_service.tail(sid)
    assert [e.id for e in got] == [e.id for e in entries]
    more, last2 = demo_service.tail(sid, after_seq=last)
    assert more == [] and last2 == last
    half, last3 = demo_service.tail(sid, limit=3)
    assert [e.id for e in half] == [e.id for e in entries[:3]]
    rest, _ = demo_service.tail(sid, after_seq=last3)
    assert [e.id for e in rest] == [e.id for e in entries[3:]]


# ---- paging stays put while the indexer commits ----------------------------------------
def _append_prompts(root: Path, sid_path: Path, text: str, n: int) -> None:
    objs = _jsonl(sid_path)
    last = next(o for o in reversed(objs) if o.get("uuid"))
    stamp = datetime(2027, 1, 1, tzinfo=UTC)
    lines = []
    parent = last["uuid"]
    for i in range(n):
        uuid = f"appended-{i:04d}-{stamp.timestamp():.0f}"
        lines.append(
            {
                "type": "user",
                "uuid": uuid,
                "parentUuid": parent,
                "sessionId": last.get("sessionId"),
                "cwd": last.get("cwd"),
                "timestamp": (stamp + timedelta(minutes=i)).isoformat(),
                "message": {"role": "user", "content": f"{text} number {i}"},
            }
        )
        parent = uuid
    with open(sid_path, "a", encoding="utf-8") as f:
        f.write("".join(json.dumps(x) + "\n" for x in lines))


@pytest.mark.parametrize("query,grouped", [("kind:prompt", False), ("test", False), ("the", True)])
def test_cursor_does_not_shift_when_documents_are_committed(
    demo_archive: Path, tmp_path: Path, query: str, grouped: bool
) -> None:
    """A live indexer commits between page 1 and page 2 (newer and matching entries):
    page 2 continues page 1 as it was, and a new search sees the new entries."""
    from ccarchive.config import Settings
    from ccarchive.index.indexer import Indexer
    from ccarchive.index.store import IndexStore

    store = IndexStore(Settings(demo_archive, tmp_path / "data").archive_data_dir)
    indexer = Indexer(store, demo_archive, store.try_writer())
    try:
        indexer.run()
        svc = ArchiveService(store, demo_archive)

        def ids(page: M.SearchPage) -> list[str]:
            if grouped:
                return [g.session_id or g.hits[0].id for g in page.groups]
            return [h.id for h in page.hits]

        before = ids(svc.search(query, limit=8, group_by_session=grouped))
        page1 = svc.search(query, limit=4, group_by_session=grouped)
        assert ids(page1) == before[:4] and page1.next_cursor
        target = svc.session(svc.sessions(limit=1).sessions[0].session_id)
        _append_prompts(demo_archive, demo_archive / target.path, "test the appended prompt", 6)
        # a second session gains matches too, so grouped pages would shift
        other = svc.sessions(limit=3).sessions[-1]
        _append_prompts(demo_archive, demo_archive / other.path, "test the other one", 3)
        report = indexer.run()
        assert report.docs_added >= 9
        svc.refresh()
        page2 = svc.search(query, limit=4, group_by_session=grouped, cursor=page1.next_cursor)
        assert ids(page2) == before[4:8]
        fresh = svc.search(query, limit=50, group_by_session=grouped)
        if not grouped:
            assert any(h.uuid.startswith("appended-") for h in fresh.hits)
            assert fresh.total == page1.total + 9
    finally:
        indexer.close()


# ---- bounded outputs -----------------------------------------------------------------
def test_every_big_text_is_capped_and_says_so(tmp_path: Path) -> None:
    root, body = _long_entry_archive(tmp_path, 300_000)
    svc = build_index(root, tmp_path / "data")
    sid = "31111111-2222-3333-4444-555555555555"
    for e in svc.transcript(sid, max_chars=500).entries:
        assert len(e.text) <= 500
        assert e.truncated == (e.text_len > len(e.text))
        if e.truncated:
            assert e.next_char == len(e.text)
    hits = svc.search("line", include_tool_results=True, snippet_chars=60).hits
    assert hits and all(len(h.snippet) <= 200 for h in hits)
    (e,) = svc.entries([hits[0].id])
    assert len(e.text) == 20_000 and e.truncated and e.next_char == 20_000
    ctx = svc.context(hits[0].id, max_chars=50)
    assert len(ctx.target.text) <= 200 and ctx.target.truncated
    tail, _ = svc.tail(sid, max_chars=100)
    assert all(len(x.text) <= 100 for x in tail)
    assert any(x.truncated and x.next_char == 100 for x in tail)
    # the title of a session made of a huge prompt is capped too
    info = svc.session(sid)
    assert len(info.title) <= 200 and len(info.first_prompt) <= 200


def test_every_hit_carries_its_own_sessions_title(demo_service: ArchiveService) -> None:
    """Titles of a page of hits are read in one query; each must still be its own."""
    svc = demo_service
    for grouped in (False, True):
        page = svc.search("the", limit=30, group_by_session=grouped)
        sessions = {h.session_id for h in page.hits if h.session_id}
        assert len(sessions) >= 3
        for hit in page.hits:
            if hit.session_id and hit.kind not in ("plan", "memory"):
                assert hit.title == svc.session(hit.session_id).title, hit.id
        for group in page.groups or []:
            if group.session_id:  # plans and memory files group on their own
                assert group.title == svc.session(group.session_id).title
