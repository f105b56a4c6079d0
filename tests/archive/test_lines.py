"""The JSONL reader on every physical quirk of docs/format.md §3, and on arbitrary bytes."""

from __future__ import annotations

import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from ccarchive.archive import lines as L


def read_all(data: bytes, start: int = 0, end: int | None = None):
    return list(L.iter_raw_lines(io.BytesIO(data), start, end))


def test_offsets_point_at_each_line() -> None:
    data = b'{"a":1}\n{"b":2}\n\n{"c":3}\n'
    rows = read_all(data)
    assert [o for o, _ in rows] == [0, 8, 16, 17]
    for offset, line in rows:
        assert data[offset : offset + len(line)] == line


def test_a_last_line_without_newline_is_not_yielded() -> None:
    rows = read_all(b'{"a":1}\n{"b":')
    assert [line for _, line in rows] == [b'{"a":1}']


def test_reading_resumes_from_an_offset_and_stops_at_end() -> None:
    data = b'{"a":1}\n{"b":2}\n{"c":3}\n'
    assert [line for _, line in read_all(data, start=8)] == [b'{"b":2}', b'{"c":3}']
    assert [line for _, line in read_all(data, start=0, end=16)] == [b'{"a":1}', b'{"b":2}']


def test_lines_longer_than_a_chunk(monkeypatch) -> None:
    monkeypatch.setattr(L, "CHUNK", 7)
    data = b'{"text":"' + b"x" * 50 + b'"}\n{"b":2}\n'
    rows = read_all(data)
    assert [o for o, _ in rows] == [0, 62]
    assert json.loads(rows[0][1])["text"] == "x" * 50


def test_huge_lines_keep_only_their_head(monkeypatch) -> None:
    monkeypatch.setattr(L, "CHUNK", 64)
    monkeypatch.setattr(L, "HUGE_LINE", 200)
    monkeypatch.setattr(L, "HUGE_HEAD", 100)
    big = b'{"type":"user","text":"' + b"y" * 1000 + b'"}'
    rows = read_all(big + b'\n{"b":2}\n')
    huge = rows[0][1]
    assert isinstance(huge, L.HugeLine)
    assert huge.length == len(big) and len(huge.head) == 100
    assert rows[1] == (len(big) + 1, b'{"b":2}')


def test_split_only_on_newline_not_unicode_separators() -> None:
    line = json.dumps({"t": "a\u2028b\u2029c"}, ensure_ascii=False).encode()
    rows = read_all(line + b"\n")
    assert len(rows) == 1
    stats = L.LineStats()
    assert L.decode_line(rows[0][1], stats)[0]["t"] == "a\u2028b\u2029c"


def test_decode_counts_each_fault() -> None:
    stats = L.LineStats()
    assert L.decode_line(b"   ", stats) == []
    assert L.decode_line(b'{"a":', stats) == []
    assert L.decode_line(b"[1,2]", stats) == []
    glued = L.decode_line(b'{"a":1}{"b":2} {"c":3}', stats)
    assert [list(o) for o in glued] == [["a"], ["b"], ["c"]]
    bad = L.decode_line(b'{"t":"caf\xff\xfe"}', stats)
    assert bad[0]["t"].startswith("caf") and "\ufffd" in bad[0]["t"]
    assert stats.skipped == {"blank": 1, "invalid_json": 1, "not_an_object": 1}
    assert stats.repaired == {"glued": 2, "invalid_utf8": 1}
    assert stats.objects == 4


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise_and_offsets_stay_true(data: bytes) -> None:
    stats = L.LineStats()
    rows = read_all(data)
    for offset, line in rows:
        assert isinstance(line, bytes)
        assert data[offset : offset + len(line)] == line
        assert data[offset + len(line) : offset + len(line) + 1] == b"\n"
        for obj in L.decode_line(line, stats):
            assert isinstance(obj, dict)
    assert stats.lines == len(rows)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.text(max_size=5), st.text(max_size=20), max_size=3),
        min_size=1,
        max_size=5,
    ),
    st.integers(0, 40),
    st.binary(max_size=8),
)
def test_mutated_real_looking_lines_keep_every_good_line(objs, cut: int, junk: bytes) -> None:
    """Good lines survive any damage done to a neighbouring line."""
    good = [json.dumps(o).encode() for o in objs]
    damaged = good[0][:cut] + junk
    data = b"\n".join([damaged, *good]) + b"\n"
    stats = L.LineStats()
    out = [o for _, line in read_all(data) for o in L.decode_line(line, stats)]
    for o in objs:
        assert o in out


def test_what_the_fast_parser_refuses_the_slow_one_refuses_or_repairs() -> None:
    """orjson refuses NaN, numbers beyond a float, lone surrogates and 1,025 levels; the
    fallback parser (for glued lines and invalid UTF-8) must not let them through."""
    stats = L.LineStats()
    for line in (
        b'{"a":NaN}',
        b'{"a":-Infinity}',
        b'{"a":1e400}',
        b'{"a":1' + b"0" * 400 + b"}",
        b'{"a":1}{"b":NaN}',
    ):
        assert L.decode_line(line, stats) == [], line
    assert stats.skipped == {"number_out_of_range": 5}
    assert L.decode_line(b'{"a":18446744073709551616}{"b":1}', stats)[0]["a"] == 2.0**64
    for line, reason in (
        (b"[" * 1025 + b"]" * 1025, "nested_too_deep"),
        (b'{"a":' * 100_000, "nested_too_deep"),
        (b'{"a":1}' + b"[" * 50_000 + b"]" * 50_000, "nested_too_deep"),
        (b"{" * 100_000, "invalid_json"),
    ):
        stats = L.LineStats()
        assert L.decode_line(line, stats) == [] and stats.skipped == {reason: 1}, line[:20]


def test_lone_surrogates_are_replaced_and_counted_pairs_are_kept() -> None:
    stats = L.LineStats()
    got = L.decode_line(b'{"t":"cut \\ud83d","\\udc00k":["\\ud800x"]}', stats)
    assert got == [{"t": "cut \ufffd", "\ufffdk": ["\ufffdx"]}]
    assert stats.repaired == {"lone_surrogate": 1}
    pair = L.decode_line(b'{"t":"\\ud83d\\ude00"}{"u":"\\\\ud800"}', stats)
    assert pair == [{"t": "\U0001f600"}, {"u": "\\ud800"}]  # an escaped backslash: text
    assert stats.repaired == {"lone_surrogate": 1, "glued": 1}
    for obj in got + pair:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")  # encodable everywhere
