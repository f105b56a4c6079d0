"""Promise: bad input costs only itself.

Generated cases (hypothesis) of three kinds: files that start with a UTF-8 byte order
mark (a one-line session lost its only line to it); lines with thousands of content
blocks or glued objects (one 14.7 MB line of 400,000 text blocks became 400,001
documents and 3.1 GB of RSS); and files the indexer cannot read (links, FIFOs), which
`status` now counts by reason instead of leaving out in silence.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccarchive.archive import discovery as D
from ccarchive.archive.lines import GLUED_CAP
from ccarchive.archive.records import BLOCK_CAP
from ccarchive.index.documents import ReadTask, read_chunks
from tests.conftest import build_index

SID = "11111111-2222-4333-8444-555555555555"
PROJECT = "-tmp-proj"
BOM = b"\xef\xbb\xbf"
SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=12)


def _user(text: str, i: int = 0) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": f"u{i}",
        "parentUuid": None,
        "sessionId": SID,
        "cwd": "/tmp/proj",
        "timestamp": f"2026-03-01T10:00:{i % 60:02d}Z",
        "message": {"role": "user", "content": text},
    }


def _docs(path: Path, rel: str, kind: str = D.SESSION) -> tuple[list[dict[str, Any]], Any]:
    src = D.SourceFile(
        path, rel, kind, PROJECT, SID if kind == D.SESSION else "", size=path.stat().st_size
    )
    docs, repaired, skipped = [], {}, {}
    for chunk in read_chunks(ReadTask(src)):
        docs += [d.to_dict() for d in chunk.docs]
        for k, v in (chunk.lines.repaired or {}).items():
            repaired[k] = repaired.get(k, 0) + v
        for k, v in (chunk.lines.skipped or {}).items():
            skipped[k] = skipped.get(k, 0) + v
    return docs, (repaired, skipped)


# ---- a byte order mark ---------------------------------------------------------------
@SETTINGS
@given(
    texts=st.lists(st.lists(words, min_size=1, max_size=6).map(" ".join), min_size=1, max_size=3),
    newline=st.booleans(),
    history=st.booleans(),
)
def test_a_byte_order_mark_costs_no_line(
    tmp_path: Path, texts: list[str], newline: bool, history: bool
) -> None:
    if history:
        rel, kind = "history.jsonl", D.HISTORY
        recs = [
            {
                "display": t,
                "pastedContents": {},
                "timestamp": 1767261600000 + i,
                "project": "/tmp/proj",
                "sessionId": SID,
            }
            for i, t in enumerate(texts)
        ]
    else:
        rel, kind = f"projects/{PROJECT}/{SID}.jsonl", D.SESSION
        recs = [_user(t, i) for i, t in enumerate(texts)]
    path = tmp_path / "claude" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        BOM + b"\n".join(json.dumps(r).encode() for r in recs) + (b"\n" if newline else b"")
    )
    docs, (repaired, skipped) = _docs(path, rel, kind)
    assert [d["text"][0] for d in docs] == texts
    if newline or len(texts) > 1:  # (a last line without newline is parsed whole)
        assert repaired["byte_order_mark"] == 1
    assert not skipped


def test_a_one_line_session_with_a_byte_order_mark_is_found_and_read_back(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    path = root / "projects" / PROJECT / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(BOM + json.dumps(_user("where is the pelican migration")).encode())
    memory = root / "projects" / PROJECT / "memory" / "MEMORY.md"
    memory.parent.mkdir()
    memory.write_bytes(BOM + b"# Pelican notes\n\nthe pelican flies south\n")
    svc = build_index(root, tmp_path / "data")
    hits = svc.search("migration").hits
    assert [h.session_id for h in hits] == [SID]
    assert svc.entries([hits[0].id])[0].text == "where is the pelican migration"
    info = svc.memory_files()[0]
    assert info.title.endswith(": Pelican notes")  # the heading, not a mark before it
    assert svc.memory_file(info.project).text.startswith("# Pelican notes")


# ---- many blocks, many glued objects ---------------------------------------------------
block = st.sampled_from(["text", "thinking", "tool_use"])


@SETTINGS
@given(
    kinds=st.lists(block, min_size=1, max_size=3000),
    glued=st.integers(1, 60),
    results=st.integers(0, 500),
)
def test_one_line_yields_a_bounded_number_of_documents(
    tmp_path: Path, kinds: list[str], glued: int, results: int
) -> None:
    def content(n: int) -> list[dict[str, Any]]:
        out = []
        for i, k in enumerate(kinds[:n]):
            if k == "tool_use":
                out.append(
                    {
                        "type": "tool_use",
                        "id": f"t{i}",
                        "name": "Bash",
                        "input": {"command": f"echo w{i}"},
                    }
                )
            else:
                out.append({"type": k, k: f"word{i} and more"})
        return out

    objs = [
        {
            "type": "assistant",
            "uuid": f"a{j}",
            "sessionId": SID,
            "cwd": "/tmp/p",
            "timestamp": "2026-03-01T10:00:00Z",
            "message": {"role": "assistant", "id": f"m{j}", "content": content(len(kinds))},
        }
        for j in range(glued)
    ]
    tool_results = {
        "type": "user",
        "uuid": "r",
        "sessionId": SID,
        "cwd": "/tmp/p",
        "timestamp": "2026-03-01T10:00:01Z",
        "message": {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": f"t{i}", "content": f"out{i}"}
                for i in range(results)
            ],
        },
    }
    rel = f"projects/{PROJECT}/{SID}.jsonl"
    path = tmp_path / "claude" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    glued_line = b"".join(json.dumps(o).encode() for o in objs)  # one line, no separator
    path.write_bytes(glued_line + b"\n" + json.dumps(tool_results).encode() + b"\n")
    docs, (repaired, skipped) = _docs(path, rel)
    first = [d for d in docs if d["offset"][0] == 0]
    second = [d for d in docs if d["offset"][0] != 0]
    per_record = min(len(kinds), BLOCK_CAP)
    assert len(first) == min(glued, GLUED_CAP) * per_record
    assert len(second) == min(results, BLOCK_CAP)
    assert len({d["seq"][0] for d in first}) == len(first)  # every document its own id
    if glued > GLUED_CAP:
        assert skipped["too_many_objects"] == glued - GLUED_CAP
    if len(kinds) > BLOCK_CAP:  # the rest folded into the last, its head still searchable
        assert repaired["blocks_folded"] >= len(kinds) - BLOCK_CAP
        last = max(
            (d for d in first if d["uuid"][0] == b"a0" or d["uuid"][0] == "a0"),
            key=lambda d: d["seq"][0],
        )
        assert f"{BLOCK_CAP}" in last["text"][0]


def test_a_line_of_400000_text_blocks_costs_bounded_memory(tmp_path: Path) -> None:
    """Read in a process of its own (its peak RSS is the reader's): 14.7 MB, one line,
    written here a piece at a time."""
    path = tmp_path / "claude" / "projects" / "p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    head = json.dumps(
        {
            "type": "assistant",
            "uuid": "a",
            "sessionId": SID,
            "cwd": "/tmp/big",
            "timestamp": "2026-03-01T10:00:00Z",
            "message": {"role": "assistant", "id": "m", "content": []},
        }
    )
    with path.open("w") as f:
        f.write(head[:-3])  # up to the content list's opening bracket
        for i in range(400_000):
            f.write(f'{"," if i else ""}{{"type": "text", "text": "w{i}"}}')
        f.write("]}}\n")
    assert path.stat().st_size > 13_000_000
    script = f"""
from pathlib import Path
from ccarchive.archive import discovery as D
from ccarchive.index.documents import ReadTask, read_chunks
src = next(iter(D.discover(Path({str(tmp_path / "claude")!r}))))
docs = sum(len(c.docs) for c in read_chunks(ReadTask(src)))
print(docs, Path("/proc/self/status").read_text().split("VmHWM:")[1].split()[0])
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300
    ).stdout.split()
    docs, rss_kb = map(int, out)
    assert docs <= BLOCK_CAP
    # The child's own high-water mark (`VmHWM`), not `ru_maxrss`: Linux keeps that across
    # `exec`, so a child of a large pytest worker reported the worker's peak. About 215 MB,
    # against 3.1 GB and 400,001 documents when every block was a document.
    assert rss_kb < 600_000, f"peak RSS {rss_kb / 1024:.0f} MB"


# ---- files that cannot be read, counted by reason ------------------------------------
PLACES = {
    "session": f"projects/{PROJECT}/22222222-2222-4333-8444-555555555555.jsonl",
    "agent": f"projects/{PROJECT}/{SID}/subagents/agent-abc.jsonl",
    "memory": f"projects/{PROJECT}/memory/notes.md",
    "plan": "plans/some-plan.md",
    "history": "history.jsonl",
}
BAD = ("symlink", "hard_link", "not_a_file")


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(planted=st.dictionaries(st.sampled_from(sorted(PLACES)), st.sampled_from(BAD), min_size=1))
def test_files_not_read_are_counted_by_reason(
    tmp_path_factory: Any, planted: dict[str, str]
) -> None:
    tmp = tmp_path_factory.mktemp("planted")
    root = tmp / "claude"
    good = root / "projects" / PROJECT / f"{SID}.jsonl"
    good.parent.mkdir(parents=True)
    good.write_text(json.dumps(_user("a good session")) + "\n")
    outside = tmp / "outside.txt"
    outside.write_text(json.dumps(_user("outside words zqoutside")) + "\n")
    for place, how in planted.items():
        path = root / PLACES[place]
        path.parent.mkdir(parents=True, exist_ok=True)
        if how == "symlink":
            path.symlink_to(outside)
        elif how == "hard_link":
            os.link(outside, path)
        else:
            os.mkfifo(path)
    svc = build_index(root, tmp / "data")
    want: dict[str, int] = {}
    for how in planted.values():
        want[how] = want.get(how, 0) + 1
    assert svc.status().unreadable_by_reason == want
    assert svc.search("zqoutside").total == 0
    assert svc.search("good session").total == 1  # the rest is indexed as ever
