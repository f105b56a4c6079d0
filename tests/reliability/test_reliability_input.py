"""Promise: no input makes ccarchive fall over, and every error is a clear message.

* the line parser and the record extractor on mutated REAL lines (../shared/corpus/real):
  cut, spliced, glued, bytes flipped or inserted, values swapped for other JSON types;
* the search language through the service, on arbitrary strings and options;
* every MCP tool on arbitrary arguments through a real in-process MCP client: a result,
  or an MCP error that says what was wrong, never a crash; the server keeps serving;
* hand-made worst cases indexed completely: a 200 MB line (peak RSS of the indexing
  process checked), a binary file named .jsonl, a symlink loop, an unreadable file, a
  directory named like a session, a file that shrinks while it is read.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccarchive.archive import lines as L
from ccarchive.archive.file_summary import FileSummary
from ccarchive.archive.records import Extractor
from ccarchive.service.arguments import ServiceError
from tests.conftest import REAL_CORPUS, build_index
from tests.support.mcp_client import SyncClient

ROOT = Path(__file__).resolve().parents[2]


def _real_lines() -> list[bytes]:
    out: list[bytes] = []
    files = sorted(REAL_CORPUS.rglob("*.jsonl")) if REAL_CORPUS.is_dir() else []
    for path in files:
        lines = path.read_bytes().split(b"\n")[:40]
        out.extend(line for line in lines if 2 < len(line) < 30_000)
    return out


REAL = _real_lines()
needs_real = pytest.mark.skipif(not REAL, reason="../shared/corpus/real is not present")
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
    max_leaves=8,
)


@st.composite
def mutated(draw: Any) -> bytes:
    line = REAL[draw(st.integers(0, len(REAL) - 1))]
    how = draw(
        st.sampled_from(
            ["cut", "insert", "flip", "delete", "glue", "newline", "utf8", "separator", "dup"]
        )
    )
    i = draw(st.integers(0, len(line)))
    if how == "cut":
        return line[:i]
    if how == "insert":
        return line[:i] + draw(st.binary(min_size=1, max_size=8)) + line[i:]
    if how == "flip" and line:
        j = min(i, len(line) - 1)
        return line[:j] + bytes([line[j] ^ draw(st.integers(1, 255))]) + line[j + 1 :]
    if how == "delete":
        return line[:i] + line[i + draw(st.integers(1, 50)) :]
    if how == "glue":
        return line + REAL[draw(st.integers(0, len(REAL) - 1))]
    if how == "newline":
        return line[:i] + b"\n" + line[i:]
    if how == "utf8":
        return line[:i] + b"\xff\xfe\xc3" + line[i:]
    if how == "separator":
        return line[:i] + "\u2028".encode() + line[i:]
    return line + b"\n" + line


def _mutate_value(obj: Any, rng: random.Random, new: Any) -> Any:
    """Replace one value somewhere in a parsed record by `new` (another JSON type)."""
    if isinstance(obj, dict) and obj:
        k = rng.choice(sorted(obj))
        if rng.random() < 0.4:
            return {**obj, k: new}
        return {**obj, k: _mutate_value(obj[k], rng, new)}
    if isinstance(obj, list) and obj:
        i = rng.randrange(len(obj))
        return [*obj[:i], _mutate_value(obj[i], rng, new), *obj[i + 1 :]]
    return new


@needs_real
@settings(max_examples=400, deadline=None)
@given(st.lists(mutated(), min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_mutated_real_lines_never_raise_and_good_lines_survive(
    bad: list[bytes], rng: random.Random
) -> None:
    good = [REAL[rng.randrange(len(REAL))] for _ in range(3)]
    data = b"\n".join([good[0], *bad, good[1], good[2]]) + b"\n"
    stats = L.LineStats()
    objs: list[dict] = []
    rows = list(L.iter_raw_lines(io.BytesIO(data), 0))
    for offset, line in rows:
        assert data[offset : offset + len(line)] == line  # offsets stay true
        objs += L.decode_line(line, stats)
    assert stats.lines == len(rows)
    for g in (good[0], good[2]):  # neighbours of the damage are kept whole
        try:
            want = json.loads(g)
        except ValueError:
            continue
        if isinstance(want, dict):
            assert want in objs
    ext = Extractor(FileSummary(), is_agent_file=False)
    for obj in objs:
        ext.extract(obj, stats)


@needs_real
@settings(max_examples=400, deadline=None)
@given(st.integers(0, 10**6), JSON, st.booleans())
def test_records_with_values_of_the_wrong_type_never_raise(i: int, new: Any, agent: bool) -> None:
    rng = random.Random(i)
    for _ in range(20):
        line = REAL[rng.randrange(len(REAL))]
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            break
    else:
        return
    broken = _mutate_value(obj, rng, new)
    if not isinstance(broken, dict):
        return
    summary = FileSummary()
    Extractor(summary, is_agent_file=agent).extract(broken, L.LineStats())
    Extractor(summary, is_agent_file=agent, full_text=True).extract(broken, L.LineStats())
    summary.title()
    FileSummary.from_json(summary.to_json()).token_totals()


# ---- the search language through the service ----------------------------------------
QUERY_BITS = [
    "AND",
    "OR",
    "NOT",
    "(",
    ")",
    '"',
    "-",
    "*",
    ":",
    "kind:",
    "kind:plan",
    "project:",
    "after:",
    "before:7d",
    "after:2026-02",
    "tool:Bash",
    "file:",
    "session:",
    "role:user",
    "model:",
    "branch:",
    "flaky",
    "walker",
    "migra*",
    "E0432",
    "日本語",
    "\\",
    "\x00",
    "\n",
    "kind:nope",
    "after:someday",
    "{",
    "}",
    "[",
    "]",
    "^",
    "~",
    "/",
    "a" * 300,
]


@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.one_of(st.sampled_from(QUERY_BITS), st.text(max_size=12)), max_size=25),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.integers(1, 60),
)
def test_any_query_gives_a_page_with_warnings(
    demo_service,
    parts: list[str],
    group: bool,
    recency: bool,
    facets: bool,
    tools: bool,
    limit: int,
) -> None:
    text = " ".join(parts)
    page = demo_service.search(
        text,
        group_by_session=group,
        recency=recency,
        facets=facets,
        include_tool_results=tools,
        include_thinking=tools,
        limit=limit,
    )
    assert all(isinstance(w, str) and w for w in page.warnings)
    assert len(page.hits) <= limit
    if page.next_cursor:
        demo_service.search(text, group_by_session=group, limit=limit, cursor=page.next_cursor)
    demo_service.history(query=text or None, limit=5)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=30), st.text(max_size=30), st.text(max_size=30), st.text(max_size=40))
def test_any_option_value_is_a_page_or_a_service_error(
    demo_service, since: str, until: str, project: str, cursor: str
) -> None:
    calls = [
        lambda: demo_service.search("test", since=since, until=until, project=project),
        lambda: demo_service.search("test", cursor=cursor),
        lambda: demo_service.sessions(project=project, since=since, cursor=cursor),
        lambda: demo_service.session(project),
        lambda: demo_service.entries([cursor]),
        lambda: demo_service.transcript(project or "x", cursor=cursor),
        lambda: demo_service.plan(project or "x"),
        lambda: demo_service.memory_file(project or "x", since or None),
        lambda: demo_service.timeline(since=since or None, project=project),
    ]
    for call in calls:
        try:
            call()
        except ServiceError as exc:
            assert str(exc)  # a message that says what was wrong


# ---- the MCP tools on arbitrary arguments ---------------------------------------------
@pytest.fixture(scope="module")
def served(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory):
    s = SyncClient(build_index(demo_archive_ro, tmp_path_factory.mktemp("fuzz-mcp")))
    yield s
    s.close()


TOOLS = [
    "search",
    "context",
    "get_entries",
    "get_session",
    "list_projects",
    "list_sessions",
    "timeline",
    "list_plans",
    "get_plan",
    "list_memory_files",
    "get_memory_file",
    "search_history",
    "status",
]
ARG_VALUE = st.one_of(
    JSON,
    st.text(max_size=60),
    st.integers(-(10**12), 10**12),
    st.lists(st.text(max_size=30), max_size=25),
    st.sampled_from(
        ["", "flaky", "kind:plan", "7d", "2026-01-01", "session:x", "tally", "\x00", "x" * 5000]
    ),
)
FIELDS = [
    "query",
    "project",
    "kind",
    "since",
    "until",
    "limit",
    "cursor",
    "id",
    "ids",
    "before",
    "after",
    "max_chars",
    "char_offset",
    "session_id",
    "agent_id",
    "days",
    "bucket",
    "codename",
    "offset",
    "filename",
    "include_agent_plans",
    "group_by_session",
    "detail",
    "include_active",
    "bogus",
]


@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(TOOLS), st.dictionaries(st.sampled_from(FIELDS), ARG_VALUE, max_size=6))
def test_mcp_tools_on_arbitrary_arguments(
    served: SyncClient, caplog, tool: str, args: dict[str, Any]
) -> None:
    r = served.call(tool, args)
    text = r.content[0].text if r.content else ""
    if r.is_error:
        # a ToolError or a validation error carries its reason after the tool's name;
        # an unexpected exception would be the bare "Error executing tool <name>"
        prefix = f"Error executing tool {tool}: "
        assert text.startswith(prefix) and len(text) > len(prefix), text
    else:
        assert r.structured_content is not None and json.loads(text) is not None
    assert "raised an unexpected exception" not in caplog.text


def test_mcp_server_keeps_serving_after_the_fuzz(served: SyncClient) -> None:
    r = served.call("status", {})
    assert not r.is_error and r.structured_content["sessions"] > 0
    r = served.call("search", {"query": "flaky", "include_active": True})
    assert not r.is_error and r.structured_content["total"] > 0


# ---- hand-made worst cases ----------------------------------------------------------------
SID = "5e5510a0-0000-4000-8000-00000000000"


def _line(i: int, sid: str, text: str) -> bytes:
    return json.dumps(
        {
            "type": "user",
            "uuid": f"{sid[:8]}-{i}",
            "parentUuid": None,
            "sessionId": sid,
            "timestamp": f"2026-03-01T10:00:{i % 60:02d}Z",
            "cwd": "/home/me/worst",
            "message": {"role": "user", "content": text},
        }
    ).encode()


def _session(root: Path, n: int, body: bytes) -> Path:
    path = root / "projects" / "-home-me-worst" / f"{SID}{n}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return path


def test_worst_cases_index_completely_and_every_fault_is_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "claude"
    rng = random.Random(7)
    good: list[str] = []

    def words(n: int) -> bytes:
        text = f"goodline{n} keeper"
        good.append(f"goodline{n}")
        return _line(n, f"{SID}{n % 10}", text)

    # 1. a binary file named .jsonl, with good lines between the junk
    junk = [bytes(rng.randrange(256) for _ in range(300)).replace(b"\n", b"") for _ in range(6)]
    _session(root, 1, b"\n".join(j + b"\n" + words(100 + k) for k, j in enumerate(junk)) + b"\n")
    # 2. a symlink loop, and a link to itself named like a session
    proj = root / "projects" / "-home-me-worst"
    (proj / "loop").symlink_to(proj)
    (proj / f"{SID}9.jsonl").symlink_to(proj / f"{SID}9.jsonl")
    # 3. an unreadable file
    unreadable = _session(root, 2, words(200) + b"\n")
    good.pop()
    unreadable.chmod(0)
    if os.geteuid() == 0:  # root reads anything: refuse it the way the OS would
        real_access, real_open = os.access, open

        def access(path: Any, mode: int, *a: Any, **k: Any) -> bool:
            return False if Path(path) == unreadable else real_access(path, mode, *a, **k)

        monkeypatch.setattr(os, "access", access)
        import builtins

        def fake_open(path: Any, *a: Any, **k: Any) -> Any:
            if isinstance(path, (str, Path)) and Path(path) == unreadable:
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, *a, **k)

        monkeypatch.setattr(builtins, "open", fake_open)
    # 4. a directory named like a session, with a transcript inside
    d = proj / f"{SID}3.jsonl"
    d.mkdir()
    (d / "inner.jsonl").write_bytes(_line(1, f"{SID}3", "insidedir") + b"\n")
    # 5. a file that shrinks while it is read (truncated to its first half mid-read)
    shrink_lines = [words(300 + k) for k in range(40)]
    shrinking = _session(root, 4, b"\n".join(shrink_lines) + b"\n")
    half = len(b"\n".join(shrink_lines[:20])) + 1
    from ccarchive.index import documents as I  # where files are read line by line

    real_iter = I.iter_raw_lines

    shrinking_ino = shrinking.stat().st_ino

    def iter_and_shrink(f: Any, start: int, end: int | None = None):
        # the reader opens by file descriptor (archive/safe_read): known by its inode
        ours = os.fstat(f.fileno()).st_ino == shrinking_ino
        for n, row in enumerate(real_iter(f, start, end)):
            if n == 5 and ours:
                os.truncate(shrinking, half)
            yield row

    monkeypatch.setattr(I, "iter_raw_lines", iter_and_shrink)
    # 6. ordinary good sessions beside them
    _session(root, 5, b"\n".join(words(400 + k) for k in range(20)) + b"\n")

    data = tmp_path / "data"
    svc = build_index(root, data)
    st1 = svc.status()
    # the shrunk file: the lines that are still there are indexed; nothing more
    kept_shrunk = [g for g in good if g.startswith("goodline3") and int(g[8:]) - 300 < 20]
    lost_shrunk = {f"goodline{300 + k}" for k in range(20, 40)}
    # a second run, once the file holds still, agrees with a clean build
    monkeypatch.setattr(I, "iter_raw_lines", real_iter)
    svc = build_index(root, data)
    clean = build_index(root, tmp_path / "clean")
    for g in good:
        want = 0 if g in lost_shrunk else 1
        assert svc.search(g).total == want, g
        assert clean.search(g).total == want, g
    assert len(kept_shrunk) == 20
    assert svc.search("insidedir").total == 0  # a directory is not a transcript
    skipped = svc.status().skipped_by_reason
    assert skipped.get("invalid_json", 0) + skipped.get("invalid_utf8", 0) >= 6, skipped
    assert st1.files >= 3
    from ccarchive.archive import discovery as D

    report = D.DiscoveryReport({})
    list(D.discover(root, report))
    assert report.skipped.get("symlink", 0) >= 2 and report.skipped.get("unreadable") == 1


HUGE = r"""
import sys
from pathlib import Path
from tests.conftest import build_index
svc = build_index(Path(sys.argv[1]), Path(sys.argv[2]))
st = svc.status()
hwm_kb = int(Path("/proc/self/status").read_text().split("VmHWM:")[1].split()[0])
print(svc.search("afterhuge").total, st.repaired_by_reason.get("huge_line", 0), hwm_kb)
"""


def _peak_rss_mb(args: list[str]) -> tuple[float, str]:
    """The child's own peak RSS (`VmHWM`, printed last) and the rest of its output. Not
    `ru_maxrss` from `wait4`: Linux keeps that across `exec`, so a child of a large pytest
    worker would report the worker's peak, and so would its baseline."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", HUGE, *args], capture_output=True, text=True, env=env, check=True
    )
    *rest, hwm_kb = proc.stdout.split()
    return int(hwm_kb) / 1024, " ".join(rest)


@pytest.mark.parametrize(
    "mb", [pytest.param(64, id="64MB"), pytest.param(200, id="200MB", marks=pytest.mark.slow)]
)
def test_a_huge_line_is_indexed_by_its_head_in_bounded_memory(tmp_path: Path, mb: int) -> None:
    root = tmp_path / "claude"
    small = _session(root, 1, _line(1, f"{SID}1", "beforehuge") + b"\n")
    path = small.with_name(f"{SID}2.jsonl")
    head = _line(0, f"{SID}2", "")[:-3]  # ...,"content": "
    with open(path, "wb") as f:
        f.write(head)
        block = b"hugebody " * (1 << 17)
        for _ in range(mb * (1 << 20) // len(block)):
            f.write(block)
        f.write(b'"}}\n' + _line(2, f"{SID}2", "afterhuge") + b"\n")
    # baseline: the same archive without the huge line
    base = tmp_path / "base"
    _session(base, 1, _line(1, f"{SID}1", "beforehuge") + b"\n")
    _session(base, 2, _line(2, f"{SID}2", "afterhuge") + b"\n")
    base_rss, _ = _peak_rss_mb([str(base), str(tmp_path / "d0")])
    rss, out = _peak_rss_mb([str(root), str(tmp_path / "d1")])
    found, huge = map(int, out.split())
    assert found == 1 and huge == 1  # the line after it is kept; the huge one counted
    extra = rss - base_rss
    print(f"\n{mb} MB line: peak RSS {rss:.0f} MB (baseline {base_rss:.0f} MB, +{extra:.0f} MB)")
    assert extra < 100, (rss, base_rss)  # bounded by HUGE_LINE, not by the line
