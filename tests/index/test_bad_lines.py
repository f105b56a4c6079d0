"""Promise: a bad line costs that line only, never its file, never the index.

Generated bad lines: a record of every known type (every line of the quirks fixture) with
one field, at any depth, given a value of another JSON type (null, bool, int, a 400-digit
int, float, NaN, Infinity, string, list, dict, nested 50 or 2,000 levels deep, a lone
surrogate, invalid UTF-8); and lines nested 1,000 to 100,000 levels deep. Each bad line
sits in its own session file between two good prompts (and in `history.jsonl` between
two good prompts), so what the reader did with it can be told apart:

* every good line is indexed, and searchable by its own word;
* the bad line is indexed or counted as skipped, never both, never counted twice, and
  under a reason a person reads (`nested_too_deep`, `wrong_type:<field>`, ...);
* a record that indexes as it is, and whose mutation gives a listed field the wrong
  type, is indexed or counted: it never vanishes silently;
* the index builds from the whole archive and holds exactly what the reader gave, and
  `status` lists the reasons, summed over the files.

The normal suite runs a few dozen archives; `-m slow` runs hundreds.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccarchive.archive import discovery as D
from ccarchive.archive.record_shape import (
    BLOCK,
    HISTORY,
    MESSAGE,
    RECORD,
    USAGE,
    wrong_type_field,
)
from ccarchive.archive.records import KNOWN_TYPES
from ccarchive.index.documents import ReadTask, read_chunks
from tests.conftest import FIXTURES, build_index

QUIRKS = FIXTURES / "quirks"
PROJECT = "-home-dev-fuzz"
CWD = "/home/dev/fuzz"


def _templates() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every parsable record of the quirks fixture (every known type), and its history."""
    records: list[dict[str, Any]] = []
    for path in sorted((QUIRKS / "projects").rglob("*.jsonl")):
        for line in path.read_bytes().split(b"\n"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and obj.get("type") in KNOWN_TYPES:
                records.append(obj)
    history = [
        json.loads(line)
        for line in (QUIRKS / "history.jsonl").read_bytes().splitlines()
        if line.strip()
    ]
    return records, history


RECORDS, HISTORY_LINES = _templates()

# Values written in place of a field. Markers are replaced in the encoded line by what
# `json.dumps` cannot write: deep nesting and invalid UTF-8.
DEEP_50, DEEP_2000, BAD_UTF8 = "@@DEEP50@@", "@@DEEP2000@@", "@@BADUTF8@@"
WRONG_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    10**400,
    2**64 + 1,
    1.5,
    float("nan"),
    float("inf"),
    "",
    "text",
    [],
    [1, "a", None],
    {},
    {"a": {"b": [1]}},
    DEEP_50,
    DEEP_2000,
    "\ud800",
    "cut emoji \ud83d",
    BAD_UTF8,
    10**18,
    2**64 - 1,
    "9999-12-31T23:59:59Z",
    "0001-01-01T00:00:00Z",
]


def _encode(obj: Any) -> bytes:
    """One JSONL line; NaN, Infinity and huge ints written as Python writes them."""
    line = json.dumps(obj, ensure_ascii=True, allow_nan=True).encode()
    line = line.replace(f'"{DEEP_50}"'.encode(), b"[" * 50 + b"]" * 50)
    line = line.replace(f'"{DEEP_2000}"'.encode(), b"[" * 2000 + b"]" * 2000)
    return line.replace(BAD_UTF8.encode(), b"caf\xe9 \xff")


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place a value sits in `obj` (keys and list items, at every depth)."""
    out: list[tuple[Any, ...]] = []
    items = (
        obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    )
    for key, value in items:
        out.append((*prefix, key))
        if len(out) < 400:
            out += _paths(value, (*prefix, key))
    return out


def _replace(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        return {**obj, head: _replace(obj[head], rest, value)}
    copy = list(obj)
    copy[head] = _replace(copy[head], rest, value)
    return copy


def _by_type(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault(str(r.get("type")), []).append(r)
    return [groups[k] for k in sorted(groups)]


@st.composite
def bad_record(draw: Any, templates: list[dict[str, Any]]) -> tuple[bytes, dict[str, Any]]:
    """(the bad line, the record it was made from): a record type, then one record of it,
    then one of its fields at any depth, given one of `WRONG_VALUES`."""
    template = draw(st.sampled_from(draw(st.sampled_from(_by_type(templates)))))
    paths = _paths(template)
    path = draw(st.sampled_from(paths)) if paths else ()
    value = draw(st.sampled_from(WRONG_VALUES))
    mutated = _replace(template, path, value) if path else template
    return _encode(mutated), template


@st.composite
def deep_line(draw: Any) -> tuple[bytes, dict[str, int]]:
    """A line nested `depth` levels deep (orjson reads up to 1,024), as {"depth": n}."""
    depth = draw(st.sampled_from([1_000, 1_024, 1_025, 5_000, 100_000]))
    opener = draw(st.sampled_from([b"[", b'{"a":']))
    closer = b"]" if opener == b"[" else b"}"
    inner = opener * depth + b"1" + closer * depth
    where = draw(st.sampled_from(["message", "content", "top"]))
    if where == "top":
        return inner, {"depth": depth}
    if where == "message":
        return b'{"type":"user","message":' + inner + b"}", {"depth": depth + 1}
    return (
        b'{"type":"user","uuid":"u","message":{"role":"user","content":' + inner + b"}}",
        {"depth": depth + 2},
    )


# ---- reading one file the way the indexer does --------------------------------------
def _good(marker: str, i: int) -> bytes:
    return _encode(
        {
            "type": "user",
            "uuid": f"good-{marker}-{i}",
            "parentUuid": None,
            "sessionId": "",
            "cwd": CWD,
            "timestamp": f"2026-03-0{i + 1}T10:00:00Z",
            "message": {"role": "user", "content": f"please look at {marker}"},
        }
    )


def _good_history(marker: str) -> bytes:
    return _encode(
        {
            "display": f"typed {marker}",
            "pastedContents": {},
            "timestamp": 1767261600000,
            "project": CWD,
        }
    )


def _read(path: Path, rel: str, kind: str, sid: str = "") -> tuple[Counter[int], Counter[str]]:
    """Documents per line offset, and skips by reason, as the indexer's reader gives them."""
    src = D.SourceFile(
        path, rel, kind, PROJECT if kind != D.HISTORY else "", sid, size=path.stat().st_size
    )
    docs: Counter[int] = Counter()
    skipped: Counter[str] = Counter()
    for chunk in read_chunks(ReadTask(src)):
        for doc in chunk.docs:
            docs[doc.to_dict()["offset"][0]] += 1
        skipped.update(chunk.lines.skipped or {})
    return docs, skipped


_LISTED = {
    *RECORD,
    *(f"message.{k}" for k in MESSAGE),
    *(f"message.usage.{k}" for k in USAGE),
    "attachment.type",
    "attachment.prompt",
    *HISTORY,
}
_REASON = re.compile(
    r"^(nested_too_deep|number_out_of_range|invalid_json|not_an_object|"
    r"unknown_type|blank|unexpected_value|wrong_type:(.+))$"
)


def _assert_reason(reason: str) -> None:
    m = _REASON.match(reason)
    assert m, f"a reason nobody reads: {reason!r}"
    field = m.group(2)
    if field:
        plain = re.sub(r"\[\]", "", field)
        last = plain.rsplit(".", 1)[-1]
        assert plain in _LISTED or last in BLOCK, field


_template_docs: dict[bytes, int] = {}


def _docs_alone(tmp: Path, template: dict[str, Any]) -> int:
    """How many documents `template` gives as it is, between the same good lines."""
    key = _encode(template)
    if key not in _template_docs:
        path = tmp / "alone" / "projects" / PROJECT / "alone.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\n".join([_good("alone", 0), key, _good("alone", 1)]) + b"\n")
        docs, _ = _read(path, f"projects/{PROJECT}/alone.jsonl", D.SESSION, "alone")
        _template_docs[key] = docs[len(_good("alone", 0)) + 1]
    return _template_docs[key]


def _check_archive(
    root: Path,
    tmp: Path,
    bad: list[tuple[bytes, dict[str, Any]]],
    bad_history: list[tuple[bytes, dict[str, Any]]],
) -> Any:
    """Write the archive, check each file as the reader reads it, then the whole index."""
    project = root / "projects" / PROJECT
    project.mkdir(parents=True)
    expected_docs = 0
    expected_skips: Counter[str] = Counter()
    markers: list[str] = []
    for n, (line, template) in enumerate(bad):
        sid = f"00000000-0000-4000-8000-{n:012d}"
        marker_a, marker_b = f"zqgood{n}a", f"zqgood{n}b"
        markers += [marker_a, marker_b]
        first = _good(marker_a, 0)
        path = project / f"{sid}.jsonl"
        path.write_bytes(b"\n".join([first, line, _good(marker_b, 1)]) + b"\n")
        docs, skipped = _read(path, f"projects/{PROJECT}/{sid}.jsonl", D.SESSION, sid)
        at = len(first) + 1
        third = at + len(line) + 1
        assert docs[0] == 1 and docs[third] == 1, (line[:300], docs)  # good lines kept
        assert sum(skipped.values()) <= 1, (line[:300], skipped)  # counted once at most
        assert not (docs[at] and skipped), (line[:300], docs, skipped)  # never both
        for reason in skipped:
            _assert_reason(reason)
        if "depth" in template:  # a deep line: nothing in it can be indexed
            assert not docs[at], line[:80]
            if template["depth"] > 1_024:  # beyond orjson's 1,024 levels: not read
                assert skipped == {"nested_too_deep": 1}, (line[:80], skipped)
        else:
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                obj = None
            if isinstance(obj, dict) and _safe_wrong_type(obj) and _docs_alone(tmp, template):
                assert docs[at] or skipped, ("vanished silently", line[:300])
        expected_docs += sum(docs.values())
        expected_skips.update(skipped)
    history = root / "history.jsonl"
    lines = []
    for n, (line, _) in enumerate(bad_history):
        markers.append(f"zqhist{n}")
        lines += [_good_history(f"zqhist{n}"), line]
    markers.append("zqhistend")
    lines.append(_good_history("zqhistend"))
    history.write_bytes(b"\n".join(lines) + b"\n")
    docs, skipped = _read(history, "history.jsonl", D.HISTORY)
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    for k in range(0, len(lines), 2):  # the good prompts
        assert docs[offsets[k]] == 1, (k, lines[k][:200])
    for k in range(1, len(lines), 2):  # the bad ones: one or the other
        assert docs[offsets[k]] <= 1
    assert sum(skipped.values()) <= len(bad_history)
    for reason in skipped:
        _assert_reason(reason)
    expected_docs += sum(docs.values())
    expected_skips.update(skipped)

    # the whole archive through the indexer: it builds, and holds what the reader gave
    svc = build_index(root, tmp / "data")
    status = svc.status()
    assert status.documents == expected_docs, (status.documents_by_kind, expected_docs)
    assert Counter(status.skipped_by_reason) == expected_skips
    for marker in markers:
        page = svc.search(marker, kind=["prompt", "history"])
        assert page.total >= 1, marker
    return svc


def _safe_wrong_type(obj: dict[str, Any]) -> bool:
    try:
        return bool(wrong_type_field(obj))
    except RecursionError:
        return False


@st.composite
def bad_history_line(draw: Any) -> tuple[bytes, dict[str, Any]]:
    return draw(bad_record(HISTORY_LINES))


def _run(tmp_path_factory: pytest.TempPathFactory, bad: list[Any], hist: list[Any]) -> None:
    tmp = tmp_path_factory.mktemp("fuzz")
    _check_archive(tmp / "claude", tmp, bad, hist)


SETTINGS = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}


def test_the_templates_hold_every_known_record_type() -> None:
    assert {r["type"] for r in RECORDS} == KNOWN_TYPES
    assert len(HISTORY_LINES) >= 5


@settings(max_examples=12, **SETTINGS)  # type: ignore[arg-type]
@given(
    st.lists(bad_record(RECORDS) | deep_line(), min_size=1, max_size=12),
    st.lists(bad_history_line(), max_size=6),
)
def test_generated_bad_lines_cost_their_line_only(
    tmp_path_factory: pytest.TempPathFactory, bad: list[Any], hist: list[Any]
) -> None:
    _run(tmp_path_factory, bad, hist)


@pytest.mark.slow
@settings(max_examples=300, **SETTINGS)  # type: ignore[arg-type]
@given(
    st.lists(bad_record(RECORDS) | deep_line(), min_size=1, max_size=30),
    st.lists(bad_history_line(), max_size=10),
)
def test_generated_bad_lines_cost_their_line_only_long(
    tmp_path_factory: pytest.TempPathFactory, bad: list[Any], hist: list[Any]
) -> None:
    _run(tmp_path_factory, bad, hist)


# ---- the cases that stopped `ccarchive index`, and each reason, by hand --------------
def _user(**extra: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": "u-x",
        "sessionId": "",
        "cwd": CWD,
        "timestamp": "2026-03-05T10:00:00Z",
        "message": {"role": "user", "content": "the bad one"},
        **extra,
    }


CASES: list[tuple[str, bytes, dict[str, int], int]] = [
    # (what, the line, skipped, documents of the line)
    (
        "nested 1,025 levels",
        b'{"type":"user","message":' + b"[" * 1025 + b"]" * 1025 + b"}",
        {"nested_too_deep": 1},
        0,
    ),
    ("nested 100,000 levels", b"[" * 100_000 + b"]" * 100_000, {"nested_too_deep": 1}, 0),
    (
        "system subtype a list",
        _encode({"type": "system", "subtype": ["compact_boundary"], "content": "x", "uuid": "s1"}),
        {"wrong_type:subtype": 1},
        0,
    ),
    (
        "system subtype a dict",
        _encode({"type": "system", "subtype": {"a": 1}, "content": "x"}),
        {"wrong_type:subtype": 1},
        0,
    ),
    (
        "content a number",
        _encode(_user(message={"role": "user", "content": 5})),
        {"wrong_type:message.content": 1},
        0,
    ),
    ("message a list", _encode(_user(message=["hi"])), {"wrong_type:message": 1}, 0),
    ("NaN", _encode(_user(extra=float("nan"))), {"number_out_of_range": 1}, 0),
    ("a 400-digit number", _encode(_user(extra=10**400)), {"number_out_of_range": 1}, 0),
    ("not JSON", b'{"type":"user",', {"invalid_json": 1}, 0),
    (
        "a lone surrogate, repaired",
        _encode(_user(message={"role": "user", "content": "cut \ud83d here"})),
        {},
        1,
    ),
    ("uuid a list (tolerated)", _encode(_user(uuid=["a"])), {}, 1),
    (
        "a timestamp in year 9999 (indexed without it)",
        _encode(_user(timestamp="9999-12-31T23:59:59Z")),
        {},
        1,
    ),
    (
        "a timestamp in year 1 (indexed without it)",
        _encode(_user(timestamp="0001-01-01T00:00:00Z")),
        {},
        1,
    ),
    (
        "token counts of 2**64 - 1",
        _encode(
            {
                "type": "assistant",
                "uuid": "a-x",
                "timestamp": "2026-03-05T10:00:00Z",
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "content": "the bad one",
                    "usage": dict.fromkeys(USAGE, 2**64 - 1),
                },
            }
        ),
        {},
        1,
    ),
]


@pytest.mark.parametrize(("what", "line", "skipped", "n_docs"), CASES, ids=[c[0] for c in CASES])
def test_each_bad_line_is_counted_under_its_reason(
    tmp_path: Path, what: str, line: bytes, skipped: dict[str, int], n_docs: int
) -> None:
    template = {"depth": 100_000} if "nested" in what else _user()
    svc = _check_archive(tmp_path / "claude", tmp_path, [(line, template)], [])
    assert svc.status().skipped_by_reason == skipped, what
    assert svc.status().documents == 2 + n_docs + 1  # two good prompts, history's one
    if n_docs and "surrogate" in what:
        assert svc.search("cut here").total == 1


def test_status_lists_the_reasons_over_the_cli(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ccarchive.cli.main import main

    root = tmp_path / "claude"
    _check_archive(root, tmp_path, [(CASES[0][1], {"depth": 1026}), (CASES[2][1], _user())], [])
    args = ["--archive", str(root), "--data-dir", str(tmp_path / "data")]
    out = CliRunner().invoke(main, ["status", *args])
    assert out.exit_code == 0, out.output
    assert "nested_too_deep 1" in out.output and "wrong_type:subtype 1" in out.output
    out = CliRunner().invoke(main, ["status", "--json", *args])
    assert json.loads(out.output)["skipped_by_reason"] == {
        "nested_too_deep": 1,
        "wrong_type:subtype": 1,
    }


def test_wrong_types_in_history_are_counted(tmp_path: Path) -> None:
    bad = [
        (_encode({"display": ["a list"], "timestamp": 1}), {}),
        (_encode({"display": "ok", "project": 5, "timestamp": "x"}), {}),
        (_encode({"display": "before 1970", "timestamp": -1}), {}),
        (_encode({"display": "year 33658", "timestamp": 10**15}), {}),
    ]
    svc = _check_archive(tmp_path / "claude", tmp_path, [], bad)
    assert svc.status().skipped_by_reason == {"wrong_type:display": 1}


# ---- every field of every record given every wrong value, at the extractor ----------
def _every_mutation(records: list[dict[str, Any]]) -> Any:
    for template in records:
        for path in _paths(template):
            for value in WRONG_VALUES:
                yield _encode(_replace(template, path, value))


def _extract_all(records: list[dict[str, Any]], history: list[dict[str, Any]]) -> int:
    """Extract every mutation of `records` and `history`; nothing may raise (the reader's
    guard is the second line of defence, not the first). Returns the number of lines."""
    import orjson

    from ccarchive.archive import lines as L
    from ccarchive.archive.file_summary import FileSummary
    from ccarchive.archive.record_shape import wrong_type_history
    from ccarchive.archive.record_text import history_text
    from ccarchive.archive.records import Extractor

    n = 0
    for line in _every_mutation(records):
        n += 1
        stats = L.LineStats()
        for obj in L.decode_line(line, stats):
            for agent, full in ((False, False), (True, False), (False, True)):
                summary = FileSummary()
                Extractor(summary, is_agent_file=agent, full_text=full).extract(obj, stats)
                orjson.dumps(summary.to_json())
                summary.title()
                FileSummary.from_json(summary.to_json()).token_totals()
            wrong_type_field(obj)
    for line in _every_mutation(history):
        n += 1
        for obj in L.decode_line(line, L.LineStats()):
            history_text(obj)
            wrong_type_history(obj)
    return n


def test_every_field_of_one_record_per_type_with_every_wrong_value() -> None:
    richest = [max(group, key=lambda r: len(_paths(r))) for group in _by_type(RECORDS)]
    assert _extract_all(richest, HISTORY_LINES[:2]) > 4_500


@pytest.mark.slow
def test_every_field_of_every_record_with_every_wrong_value() -> None:
    n = _extract_all(RECORDS, HISTORY_LINES)
    print(f"\n{n:,} mutated lines extracted")
    assert n > 70_000
