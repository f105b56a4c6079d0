"""Passages: a long answer has more vectors than its start, and each counts for its turn."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ccarchive.semantic import texts as T
from ccarchive.semantic.matrix import VectorMatrix
from ccarchive.semantic.store import Rows, VectorStore
from tests.conftest import build_index
from tests.support.appends import assistant_line, main_sessions, prompt_line

LATE = "The lighthouse keeper repainted the lantern room in ochre after the winter storms."


def _long_turn(archive: Path) -> tuple[Path, str]:
    path = main_sessions(archive)[0]
    sid = path.stem
    filler = [
        f"Step {i}: we read the config, ran the suite and noted what failed. " * 4
        for i in range(14)
    ]
    with path.open("ab") as f:
        f.write(prompt_line(path, "walk me through the whole migration", sid))
        for text in [*filler, LATE]:
            f.write(assistant_line(path, text, sid))
    return path, sid


def test_a_long_answer_has_passages_and_the_late_one_is_among_them(
    demo_archive: Path, tmp_path: Path
) -> None:
    path, _sid = _long_turn(demo_archive)
    svc = build_index(demo_archive, tmp_path / "data")
    searcher = svc.store.searcher()
    rel = str(path.relative_to(demo_archive))
    seqs = T.changed_turns(searcher, svc.store.schema, 0, T.max_gen(searcher, svc.store.schema))
    seq = max(s for p, s in seqs if p == rel)  # the turn just written
    texts = T.turn_texts(searcher, svc.store.schema, rel, seq)
    assert len(texts) > 2
    first, rest = texts[0], texts[1:]
    assert first.turn == seq and first.text.startswith("walk me through the whole migration")
    assert len(first.text) <= T.PROMPT_CHARS + 1 + T.ANSWER_CHARS
    assert [t.turn for t in rest] == [seq + T.PART * n for n in range(1, len(rest) + 1)]
    assert all(T.seq_of(t.turn) == seq for t in texts)
    assert all(t.text.startswith("walk me through") for t in rest)  # with the prompt's start
    assert any("lighthouse keeper" in t.text for t in rest)
    assert "lighthouse keeper" not in first.text
    assert len({t.digest for t in texts}) == len(texts)
    assert T.turn_text(searcher, svc.store.schema, rel, seq) == first


def test_a_passage_row_shows_its_turn(tmp_path: Path) -> None:
    """The best row of a session may be a passage: the turn it names is its turn's."""
    store = VectorStore(tmp_path)
    vecs = np.eye(3, 384, dtype=np.float32)
    keys = np.array([(7, 4096, 1), (7, 4096 + 3 * T.PART, 2), (7, T.SESSION_ROW, 3)], np.int64)
    store.save(
        store.manifest(), Rows(keys, vecs.astype(np.float16), np.array(["p.jsonl", "p.jsonl", ""]))
    )
    matrix = VectorMatrix(store)
    matrix.refresh()
    scores = matrix.scores(vecs[1])  # closest to the passage
    assert scores is not None
    assert scores.best_turn(7) == (4096, "p.jsonl", 1.0)
    assert scores.as_dict()[7] == 1.0
