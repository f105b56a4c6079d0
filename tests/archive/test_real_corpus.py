"""Every real transcript in ../shared/corpus/real is read without error, and each file
yields exactly the documents an independent reading of it says it should.

The independent reading (tests/support/expected_kinds.py) uses only the standard library
and the written rules of what is indexed, not the indexer's code, so a bug in either shows
up as a mismatch on a real file.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import REAL_CORPUS, build_index
from tests.support.expected_kinds import expected_kinds, indexed_kinds

pytestmark = pytest.mark.skipif(not REAL_CORPUS.is_dir(), reason="../shared is not present")


def corpus_files() -> list[Path]:
    return sorted(REAL_CORPUS.rglob("*.jsonl"))


def place(src: Path, root: Path, i: int) -> str:
    """Lay a corpus file out where a real archive would hold it; return its archive path."""
    project = f"projects/c{i:03d}"
    if src.parent.name == "subagents":
        rel = f"{project}/{src.parent.parent.name}/subagents/{src.name}"
    else:
        rel = f"{project}/{src.name}"
    dst = root / rel
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    meta = src.with_name(src.stem + ".meta.json")
    if meta.exists():
        shutil.copyfile(meta, dst.with_name(meta.name))
    return rel


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("corpus") / "claude"
    placed = {place(src, root, i): src for i, src in enumerate(corpus_files())}
    svc = build_index(root, tmp_path_factory.mktemp("corpus-data"))
    return svc, placed


def test_every_real_file_is_indexed_with_the_documents_it_holds(corpus_index) -> None:
    svc, placed = corpus_index
    assert len(placed) >= 200
    got = indexed_kinds(svc)
    mismatches = []
    for rel, src in placed.items():
        want = expected_kinds(src.read_bytes(), agent_file=src.name.startswith("agent-"))
        have = got.get(rel, Counter())
        if +want != +have:
            mismatches.append(f"{src.relative_to(REAL_CORPUS)}: want {dict(want)} got {dict(have)}")
    assert not mismatches, "\n".join(mismatches[:20])


def test_every_real_session_has_a_project_and_sane_figures(corpus_index) -> None:
    svc, placed = corpus_index
    status = svc.status()
    assert status.files == len(placed)
    assert status.documents > 5000
    page = svc.sessions(limit=500)
    assert page.total > 50
    for s in page.sessions:
        assert s.project, s  # the cwd as recorded (one real file has a redacted relative one)
        assert s.first_activity is None or s.first_activity <= s.last_activity
        assert s.tokens.total >= s.tokens.output


def test_subagents_are_linked_to_their_parent_and_spawning_call(corpus_index) -> None:
    svc, _ = corpus_index
    linked = 0
    for s in svc.sessions(limit=500).sessions:
        for a in s.subagents:
            if a.tool_use_id and not a.warmup:
                page = svc.transcript(s.session_id, limit=1000, kinds=["tool_call"])
                calls = [e for e in page.entries if e.tool_use_id == a.tool_use_id]
                if calls:
                    linked += 1
                    sub = svc.transcript(s.session_id, agent_id=a.agent_id, limit=5)
                    assert sub.entries, a
    assert linked >= 5
