"""Token totals per session against an independent computation on real transcripts.

docs/format.md §6.2: Claude Code writes one API message as several entries that share
`message.id`, each with a copy of the usage (sometimes growing); totals group by
`message.id` and take the largest value of each usage field. The computation here is
deliberately separate from `ccarchive.archive.records`: plain `json`, its own loop.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

from tests.conftest import REAL_CORPUS, build_index

FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _objects(path: Path):
    dec = json.JSONDecoder()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            i = 0
            while i < len(line):
                try:
                    obj, i = dec.raw_decode(line, i)
                except ValueError:
                    break
                while i < len(line) and line[i].isspace():
                    i += 1
                if isinstance(obj, dict):
                    yield obj


def independent_totals(path: Path) -> dict[str, int] | None:
    """Deduplicated usage of one transcript; None when it has no assistant message."""
    best: dict[str, dict[str, int]] = {}
    for obj in _objects(path):
        if obj.get("type") != "assistant":
            continue
        msg = obj.get("message")
        if not isinstance(msg, dict) or not isinstance(msg.get("id"), str) or not msg["id"]:
            continue
        usage = msg.get("usage") if isinstance(msg.get("usage"), dict) else {}
        row = best.setdefault(msg["id"], dict.fromkeys(FIELDS, 0))
        for k in FIELDS:
            v = usage.get(k)
            if isinstance(v, int) and not isinstance(v, bool) and v > row[k]:
                row[k] = v
    if not best:
        return None
    out = {k: sum(r[k] for r in best.values()) for k in FIELDS}
    out["messages"] = len(best)
    return out


def _main_sessions() -> list[Path]:
    if not REAL_CORPUS.is_dir():
        return []
    out = []
    for p in sorted(REAL_CORPUS.rglob("*.jsonl")):
        if p.name.startswith("agent-") or "subagents" in p.parts or p.stat().st_size == 0:
            continue
        if independent_totals(p) is not None:
            out.append(p)
    return out


@pytest.fixture(scope="module")
def real_sessions(tmp_path_factory: pytest.TempPathFactory):
    files = _main_sessions()
    if not files:
        pytest.skip("../shared/corpus/real is not present")
    root = tmp_path_factory.mktemp("real") / "claude"
    placed: dict[str, Path] = {}
    for i, src in enumerate(files):
        # each file its own session: the id is the file name (a uuid), unique here
        sid = str(uuid.uuid5(uuid.NAMESPACE_URL, str(src.relative_to(REAL_CORPUS))))
        dst = root / "projects" / f"-real-{i:03d}" / f"{sid}.jsonl"
        dst.parent.mkdir(parents=True)
        shutil.copyfile(src, dst)
        placed[sid] = src
    (root / "history.jsonl").write_text("")
    svc = build_index(root, root.parent / "data")
    return svc, placed


def test_token_totals_equal_an_independent_count(real_sessions) -> None:
    svc, placed = real_sessions
    assert len(placed) >= 30
    checked = 0
    dup_groups = 0
    for sid, src in placed.items():
        want = independent_totals(src)
        info = svc.session(sid)
        got = info.tokens
        assert (got.input, got.output, got.cache_creation, got.cache_read) == (
            want["input_tokens"],
            want["output_tokens"],
            want["cache_creation_input_tokens"],
            want["cache_read_input_tokens"],
        ), src
        assert got.total == sum(want[k] for k in FIELDS), src
        entries = sum(1 for o in _objects(src) if o.get("type") == "assistant")
        dup_groups += entries > want["messages"]
        checked += 1
    assert checked == len(placed)
    assert dup_groups >= 10, "the corpus repeats usage across entries: dedupe is exercised"


def test_naive_sum_would_differ(real_sessions) -> None:
    """The check has teeth: summing every entry's usage gives other numbers."""
    _svc, placed = real_sessions
    differ = 0
    for src in placed.values():
        naive = sum(
            o["message"]["usage"].get("output_tokens", 0) or 0
            for o in _objects(src)
            if o.get("type") == "assistant"
            and isinstance(o.get("message"), dict)
            and isinstance(o["message"].get("usage"), dict)
        )
        differ += naive != independent_totals(src)["output_tokens"]
    assert differ >= 5
