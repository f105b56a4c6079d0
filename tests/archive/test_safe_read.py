"""archive/safe_read: pages of a text and the indexed head and tail, read a chunk at a time,
are exactly what slicing the whole text gives, wherever a chunk cuts a character; and the
line the index points at is checked against the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccarchive.archive import safe_read as R
from ccarchive.archive.record_text import cap

TEXT = st.text(alphabet=st.sampled_from(list("ab \n") + ["é", "日", "😀", "\u2028"]), max_size=300)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(TEXT, st.integers(0, 320), st.integers(0, 320), st.integers(1, 9))
def test_a_page_is_the_slice_of_the_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, offset: int, n: int, chunk: int
) -> None:
    monkeypatch.setattr(R, "PAGE_CHUNK", chunk)  # chunks cut inside characters
    (tmp_path / "f.md").write_text(text, encoding="utf-8")
    page, more, size = R.read_text_page(tmp_path, "f.md", offset, n)
    assert page == text[offset : offset + n]
    assert more == (len(text) > offset + n)
    assert size == len(text.encode())


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(TEXT, st.integers(1, 9), st.integers(5, 60))
def test_head_and_tail_are_what_cap_keeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, chunk: int, limit: int
) -> None:
    monkeypatch.setattr(R, "PAGE_CHUNK", chunk)
    (tmp_path / "f.md").write_text(text, encoding="utf-8")
    tail_n = limit // 5
    head, tail, n, size = R.text_head_tail(tmp_path, "f.md", limit, tail_n)
    kept = f"{head[: limit - tail_n]}\n…\n{tail}" if tail else head
    assert kept == cap(text, limit) and n == len(text) and size == len(text.encode())


def test_invalid_utf8_is_replaced_in_pages(tmp_path: Path) -> None:
    (tmp_path / "f.md").write_bytes(b"ab\xffcd\xe6\x97")
    assert R.read_text_page(tmp_path, "f.md", 0, 100)[0] == "ab\ufffdcd\ufffd"


def test_a_line_is_checked_against_the_file(tmp_path: Path) -> None:
    (tmp_path / "f.jsonl").write_bytes(b'{"a":1}\n{"b":2}\n{"c":3}')
    assert R.read_line(tmp_path, "f.jsonl", 8, 7) == b'{"b":2}'
    assert R.read_line(tmp_path, "f.jsonl", 16, 7) == b'{"c":3}'  # the last, unterminated
    for offset, length in ((9, 6), (8, 6), (8, 8), (16, 8), (100, 5), (-1, 3), (0, 0)):
        with pytest.raises(R.FileChanged):
            R.read_line(tmp_path, "f.jsonl", offset, length)
