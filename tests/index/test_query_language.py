"""The search language, tested by which documents of a small real index each query finds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
import tantivy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccarchive.index import schema as S
from ccarchive.index.analysis import camel_parts
from ccarchive.index.query.compiler import CompiledQuery, compile_query
from ccarchive.index.query.dates import parse_date_bound
from ccarchive.index.query.parser import And, Not, Or, Phrase, Word, parse
from ccarchive.index.query.tokens import MAX_TERMS

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)

MY_APP = "/home/ana/work/My App"
OTHER = "/home/bo/OtherProject"
CCA = "/srv/ccarchive"
S1 = "a1b2c3d4-0000-4000-8000-000000000001"
S2 = "b2c3d4e5-0000-4000-8000-000000000002"
S3 = "c3d4e5f6-0000-4000-8000-000000000003"


def _doc(
    doc_id,
    kind,
    ts,
    text,
    *,
    role=None,
    project=CCA,
    session=S3,
    tool=None,
    model=None,
    branch=None,
    files=None,
    title=None,
):
    return {
        "id": doc_id,
        "kind": kind,
        "ts": ts,
        "text": text,
        "role": role,
        "project": project,
        "session": session,
        "tool": tool,
        "model": model,
        "branch": branch,
        "files": files,
        "title": title,
    }


def T(*args):
    return datetime(*args, tzinfo=UTC)


DOCS = [
    _doc(
        "d01",
        "prompt",
        T(2026, 1, 10, 9, 0),
        "Please run the database migrations for the billing service",
        role="user",
        project=MY_APP,
        session=S1,
    ),
    _doc(
        "d02",
        "assistant",
        T(2026, 1, 10, 9, 5),
        "I ran the migrations; parseHttpResponse now handles errors",
        role="assistant",
        project=MY_APP,
        session=S1,
        model="claude-opus-4-5",
        branch="main",
    ),
    _doc(
        "d03",
        "tool_call",
        T(2026, 1, 10, 9, 6),
        "pytest tests/test_app.py -q",
        role="assistant",
        project=MY_APP,
        session=S1,
        tool="Bash",
        files="src/app.py",
    ),
    _doc(
        "d04",
        "tool_result",
        T(2026, 1, 10, 9, 7),
        "error[E0432]: unresolved import `foo_bar`",
        role="user",
        project=MY_APP,
        session=S1,
        tool="Bash",
        files="src/app.py",
    ),
    _doc(
        "d05",
        "plan",
        T(2026, 2, 1, 0, 0),
        "Step one: write the schema migration. Step two: backfill.",
        project=MY_APP,
        session=None,
        title="Migration plan for billing",
    ),
    _doc(
        "d06",
        "memory",
        T(2026, 2, 15, 10, 0),
        "Always use snake_case names like get_user_name",
        project=OTHER,
        session=None,
        title="Project memory",
    ),
    _doc(
        "d07",
        "prompt",
        T(2026, 3, 1, 8, 0),
        "how do I configure the HTTP client timeout",
        role="user",
        project=OTHER,
        session=S2,
    ),
    _doc(
        "d08",
        "assistant",
        T(2026, 3, 1, 8, 1),
        "The timeout lives in config.yaml under http.client",
        role="assistant",
        project=OTHER,
        session=S2,
        model="claude-sonnet-4-5",
        branch="feature/Login-Page",
    ),
    _doc(
        "d09",
        "tool_call",
        T(2026, 3, 2, 10, 0),
        "read schema.py",
        role="assistant",
        project=OTHER,
        tool="Read",
        files="app/index/schema.py",
    ),
    _doc(
        "d10",
        "tool_call",
        T(2026, 3, 3, 10, 0),
        "edit the query compiler",
        role="assistant",
        project=OTHER,
        tool="Edit",
        files="app/index/query.py app/index/schema.py",
    ),
    _doc(
        "d11",
        "thinking",
        T(2026, 3, 4, 10, 0),
        "Maybe the migration failed because of a lock",
        role="assistant",
    ),
    _doc(
        "d12",
        "summary",
        T(2026, 3, 5, 10, 0),
        "We fixed the billing migration and the timeout bug",
        role="system",
        title="Session recap",
    ),
    _doc("d13", "event", T(2026, 3, 6, 10, 0), "API error: overloaded", role="system"),
    _doc(
        "d14",
        "history",
        T(2026, 3, 7, 10, 0),
        "fix the flaky test in test_query_language",
        project=MY_APP,
    ),
    _doc(
        "d15",
        "prompt",
        T(2026, 3, 8, 0, 0),
        "visit http://example.com/docs for foo:bar details",
        role="user",
    ),
    _doc(
        "d16",
        "assistant",
        T(2026, 3, 9, 12, 0),
        "Use fooBar() or foo_bar() interchangeably",
        role="assistant",
        model="claude-opus-4-6",
        branch="feature/search",
    ),
    _doc("d17", "prompt", T(2026, 3, 10, 10, 0), "the quick brown fox jumps", role="user"),
    _doc(
        "d18",
        "plan",
        T(2026, 3, 14, 23, 59),
        "Retry with exponential backoff",
        session=None,
        title="Timeout handling",
    ),
    _doc(
        "d19",
        "assistant",
        T(2026, 3, 15, 1, 0),
        "Windows path C:\\Users\\ana\\project",
        role="assistant",
    ),
    _doc(
        "d20", "prompt", T(2026, 3, 15, 11, 0), "migrate everything to the new schema", role="user"
    ),
]
ALL = {d["id"] for d in DOCS}
BILLING = {"d01", "d05", "d12"}
PLANS = {"d05", "d18"}
PROMPTS = {"d01", "d07", "d15", "d17", "d20"}


@pytest.fixture(scope="module")
def index():
    schema = S.build_schema()
    ix = tantivy.Index(schema)
    ix.register_tokenizer(S.CODE_TOKENIZER, S.code_analyzer())
    writer = ix.writer(50_000_000, 1)
    for d in DOCS:
        fields = {k: v for k, v in d.items() if v is not None}
        parts = camel_parts(d["text"])  # as the indexer does
        if parts:
            fields[S.PARTS] = parts
        writer.add_document(tantivy.Document(**fields))
    writer.commit()
    writer.wait_merging_threads()
    ix.reload()
    return ix


@pytest.fixture(scope="module")
def analyzer():
    return S.code_analyzer()


@pytest.fixture()
def run(index, analyzer):
    """Compile and search; returns (ids found, compiled query)."""
    searcher = index.searcher()

    def _run(text: str, now: datetime = NOW) -> tuple[set[str], CompiledQuery]:
        cq = compile_query(text, index.schema, analyzer, now=now)
        hits = searcher.search(cq.query, limit=100).hits
        return {searcher.doc(addr)["id"][0] for _, addr in hits}, cq

    return _run


@pytest.fixture()
def find(run):
    """Ids found, asserting the query compiled without warnings."""

    def _find(text: str, now: datetime = NOW) -> set[str]:
        ids, cq = run(text, now)
        assert cq.warnings == [], (text, cq.warnings)
        return ids

    return _find


# ---- text --------------------------------------------------------------------------
def test_words_are_anded(find):
    assert find("billing") == BILLING
    assert find("billing migration") == BILLING
    assert find("billing timeout") == {"d12"}
    assert find("billing AND timeout") == {"d12"}


def test_or(find):
    assert find("overloaded OR backfill") == {"d13", "d05"}
    # AND binds tighter than OR
    assert find("overloaded OR billing timeout") == {"d13", "d12"}


def test_not_and_minus(find):
    assert find("billing NOT plan") == {"d01", "d12"}
    assert find("billing -recap") == {"d01", "d05"}
    assert find("billing -(recap OR plan)") == {"d01"}
    assert find("NOT NOT billing") == BILLING


def test_only_negative_matches_everything_else(find):
    assert find("NOT billing") == ALL - BILLING
    assert find("-billing -timeout") == ALL - BILLING - {"d07", "d08", "d18"}


def test_parentheses(find):
    assert find("(timeout OR billing) fixed") == {"d12"}
    assert find("timeout (client OR backoff)") == {"d07", "d08", "d18"}
    assert find("overloaded OR (quick fox)") == {"d13", "d17"}


def test_lowercase_operators_are_words(find):
    # "or" and "not" are ordinary words; neither document has both words otherwise
    assert find("quick or fox") == set()
    assert find("quick fox") == {"d17"}


def test_phrases(find):
    assert find('"quick brown fox"') == {"d17"}
    assert find('"brown quick"') == set()
    assert find('"billing migration"') == {"d12"}
    assert find('-"billing migration" billing') == {"d01", "d05"}


def test_prefix(find):
    assert find("overl*") == {"d13"}
    assert find("interch*") == {"d16"}
    assert find("backf*") == {"d05"}
    # a prefix is a prefix of the words as written (the index keeps words unstemmed)
    migrat = {"d01", "d02", "d05", "d11", "d12", "d20"}
    assert find("migra*") == migrat
    assert find("migrations*") == {"d01", "d02"}
    # several tokens: a phrase whose last word is a prefix
    assert find("parseHttpResp*") == {"d02"}
    assert find("quick bro*") == {"d17"}


def test_code_words_by_parts_and_whole(find):
    assert find("parseHttpResponse") == {"d02"}
    assert find("http") == {"d02", "d07", "d08", "d15"}
    assert find("response") == {"d02"}
    assert find("get_user_name") == {"d06"}
    assert find("user_name") == {"d06"}
    assert find("snake_case") == {"d06"}
    assert find("foo_bar") == {"d04", "d15", "d16"}
    assert find("fooBar") == {"d04", "d15", "d16"}
    assert find("test_app.py") == {"d03"}
    assert find("tests/test_app.py") == {"d03"}
    assert find("config.yaml") == {"d08"}
    assert find("E0432") == {"d04"}
    assert find("e0432") == {"d04"}


def test_title_matches_and_ranks_higher(index, analyzer, run):
    assert run("timeout")[0] == {"d07", "d08", "d12", "d18"}
    assert run("recap")[0] == {"d12"}  # only in a title
    cq = compile_query("timeout", index.schema, analyzer, now=NOW)
    searcher = index.searcher()
    top = searcher.search(cq.query, limit=1).hits[0][1]
    assert searcher.doc(top)["id"][0] == "d18"  # the title match, boosted


def test_colon_words_that_are_not_fields_are_text(find):
    assert find("foo:bar") == {"d04", "d15", "d16"}
    assert find("http://example.com") == {"d15"}
    assert find("C:\\Users") == {"d19"}


def test_terms_and_text_query(run):
    _, cq = run('billing -recap "quick fox" migra* kind:plan')
    assert cq.terms == ["billing", "quick fox", "migra*"]
    assert cq.excluded == ["recap"]
    assert cq.filters == ["kind:plan"]
    assert cq.text_query is not None
    _, cq = run("NOT billing kind:plan")
    assert cq.text_query is None
    assert cq.terms == []
    assert not cq.is_empty()


def test_text_query_drives_snippets(index, analyzer):
    cq = compile_query("billing -recap", index.schema, analyzer, now=NOW)
    searcher = index.searcher()
    hit = searcher.search(cq.query, limit=1).hits[0][1]
    gen = tantivy.SnippetGenerator.create(searcher, cq.text_query, index.schema, S.TEXT)
    assert "<b>billing</b>" in gen.snippet_from_doc(searcher.doc(hit)).to_html()


# ---- filters -----------------------------------------------------------------------
def test_project_filter(find):
    my_app = {"d01", "d02", "d03", "d04", "d05", "d14"}
    assert find('project:"my app"') == my_app
    assert find("project:otherproj") == {"d06", "d07", "d08", "d09", "d10"}
    assert find("project:ccarchive billing") == {"d12"}
    assert find("-project:ccarchive") == my_app | {"d06", "d07", "d08", "d09", "d10"}
    assert find('project:"my app" project:other') == my_app | {"d06", "d07", "d08", "d09", "d10"}
    assert find("project:home kind:plan") == {"d05"}


def test_session_filter_is_a_prefix(find):
    assert find("session:a1b2") == {"d01", "d02", "d03", "d04"}
    assert find("session:A1B2C3D4-0000") == {"d01", "d02", "d03", "d04"}
    assert find("session:2c3") == set()
    assert find("session:a1b2 session:b2c3") == {"d01", "d02", "d03", "d04", "d07", "d08"}


def test_kind_filter(find, run):
    assert find("kind:plan") == PLANS
    assert find("kind:plans") == PLANS
    assert find("kind:prompt kind:plan") == PROMPTS | PLANS
    assert find("kind:user") == PROMPTS
    assert find("kind:tool") == {"d03", "d09", "d10"}
    assert find("kind:result") == {"d04"}
    assert find("kind:output") == {"d04"}
    assert find("kind:Thinking") == {"d11"}
    assert find("kind:tool-call") == {"d03", "d09", "d10"}
    assert find("-kind:plan") == ALL - PLANS
    assert find("NOT kind:plan") == ALL - PLANS
    assert find("billing -kind:plan") == {"d01", "d12"}
    assert find("-(kind:plan kind:prompt)") == ALL - PLANS - PROMPTS
    # filters apply wherever they are typed
    assert find("(billing kind:plan)") == {"d05"}
    assert find("kind:prompt OR kind:plan") == PROMPTS | PLANS


def test_kinds_reported_for_the_service(run):
    assert run("billing")[1].kinds is None
    assert run("kind:prompt kind:plans")[1].kinds == frozenset({"prompt", "plan"})
    assert run("kind:result")[1].kinds == frozenset({"tool_result"})
    assert run("-kind:plan")[1].kinds is None


def test_role_filter(find):
    assert find("role:system") == {"d12", "d13"}
    assert find("role:SYSTEM") == {"d12", "d13"}
    assert find("role:user billing") == {"d01"}
    assert find("role:system role:user") == {"d12", "d13", "d01", "d04", "d07", "d15", "d17", "d20"}


def test_tool_filter(find):
    assert find("tool:bash") == {"d03", "d04"}
    assert find("tool:Bash") == {"d03", "d04"}
    assert find("tool:Bas") == set()  # exact name, not a substring
    assert find("kind:tool NOT tool:Bash") == {"d09", "d10"}
    assert find("tool:read tool:edit") == {"d09", "d10"}


def test_model_and_branch_filters(find):
    assert find("model:opus") == {"d02", "d16"}
    assert find("model:Sonnet") == {"d08"}
    assert find("model:opus -model:4-6") == {"d02"}
    assert find("branch:feature") == {"d08", "d16"}
    assert find("branch:login") == {"d08"}
    assert find("branch:main branch:search") == {"d02", "d16"}


def test_file_filter(find):
    assert find("file:schema.py") == {"d09", "d10"}
    assert find("file:query") == {"d10"}
    assert find("file:src/app.py") == {"d03", "d04"}
    assert find('file:"index/query"') == {"d10"}
    assert find("file:app") == {"d03", "d04", "d09", "d10"}
    assert find("file:que*") == {"d10"}
    assert find("-file:src kind:tool") == {"d09", "d10"}
    assert find("file:query file:src") == {"d03", "d04", "d10"}


def test_filters_anywhere_and_case_of_field_names(find):
    assert find("billing Kind:Plan") == {"d05"}
    assert find("kind:summary billing") == {"d12"}


# ---- dates -------------------------------------------------------------------------
def test_absolute_dates(find):
    jan = {"d01", "d02", "d03", "d04"}
    assert find("before:2026-02") == jan
    assert find("before:2026-02-01") == jan  # exclusive of that day's start
    assert find("after:2026-02-01") == ALL - jan  # inclusive of it
    assert find("after:2026-02 before:2026-03") == {"d05", "d06"}
    assert find("after:2026-03-01T08:01") == ALL - jan - {"d05", "d06", "d07"}
    assert find("after:2026-03-15T01:00Z") == {"d19", "d20"}
    assert find("after:2027") == set()
    assert find("before:2026") == set()
    assert find("-after:2026-03") == jan | {"d05", "d06"}


def test_relative_dates(find):
    week = {"d15", "d16", "d17", "d18", "d19", "d20"}
    assert find("after:7d") == week
    assert find("before:7d") == ALL - week
    assert find("after:2w") == ALL - {"d01", "d02", "d03", "d04", "d05", "d06"}
    assert find("after:today") == {"d19", "d20"}
    assert find("after:yesterday") == {"d18", "d19", "d20"}
    assert find("after:yesterday before:today") == {"d18"}
    assert find("after:12h") == {"d19", "d20"}
    assert find("after:10h") == {"d20"}
    assert find("after:3m") == ALL
    assert find("after:1y") == ALL
    assert find("after:2m") == ALL - {"d01", "d02", "d03", "d04"}


def test_dates_follow_the_zone_of_now(find):
    # At 12:00 UTC it is 07:00 in New York (UTC-5): its day began at 05:00 UTC.
    ny_now = NOW.astimezone(timezone(timedelta(hours=-5)))
    assert find("after:today", now=ny_now) == {"d20"}
    assert find("after:2026-03-15", now=ny_now) == {"d20"}
    # ...and 22:00 in Sydney-ish UTC+10: its day began at 14:00 UTC on the 14th.
    east_now = NOW.astimezone(timezone(timedelta(hours=10)))
    assert find("after:today", now=east_now) == {"d18", "d19", "d20"}
    assert find("after:2026-03-15T10:00Z", now=east_now) == {"d20"}


def test_parse_date_bound():
    assert parse_date_bound("2026-02-01", now=NOW) == T(2026, 2, 1)
    assert parse_date_bound("2026-02", now=NOW) == T(2026, 2, 1)
    assert parse_date_bound("2026", now=NOW) == T(2026, 1, 1)
    assert parse_date_bound("2026-02-01T10:00", now=NOW) == T(2026, 2, 1, 10, 0)
    assert parse_date_bound("2026-02-01 10:00:30", now=NOW) == T(2026, 2, 1, 10, 0, 30)
    assert parse_date_bound("2026-02-01T10:00+02:00", now=NOW) == T(2026, 2, 1, 8, 0)
    assert parse_date_bound("today", now=NOW) == T(2026, 3, 15)
    assert parse_date_bound("Yesterday", now=NOW) == T(2026, 3, 14)
    assert parse_date_bound("7d", now=NOW) == T(2026, 3, 8)
    assert parse_date_bound("2w", now=NOW) == T(2026, 3, 1)
    assert parse_date_bound("3m", now=NOW) == T(2025, 12, 15)
    assert parse_date_bound("1y", now=NOW) == T(2025, 3, 15)
    assert parse_date_bound("12h", now=NOW) == T(2026, 3, 15, 0, 0)
    assert parse_date_bound("1m", now=T(2026, 3, 31, 9)) == T(2026, 2, 28)
    assert parse_date_bound("today", now=datetime(2026, 3, 15, 12)) == T(2026, 3, 15)
    for bad in ["someday", "", "2026-13-01", "2026-02-30", "99999y", "7x", "2026-02-01T25:00"]:
        with pytest.raises(ValueError) as e:
            parse_date_bound(bad, now=NOW)
        assert str(e.value)


# ---- the parser ----------------------------------------------------------------------
def test_parser_precedence():
    assert parse("a OR b c") == Or((Word("a"), And((Word("b"), Word("c")))))
    assert parse("a -bc") == And((Word("a"), Not(Word("bc"))))
    assert parse('NOT "x y" z*') == And((Not(Phrase("x y")), Word("z", prefix=True)))
    assert parse("(a OR b) AND c") == And((Or((Word("a"), Word("b"))), Word("c")))
    assert parse("print(x) --force") == And((Word("print(x)"), Word("--force")))


def test_a_one_letter_flag_is_searched_not_left_out():
    """`claude -p`, `pytest -k`, `git commit -m`: a dash and one letter is a flag (as
    `--force` is), never "leave out the word p", which would leave out the very entries
    that use the flag; a dash before a longer word still leaves it out."""
    assert parse("claude -p") == And((Word("claude"), Word("-p")))
    assert parse("pytest -k flaky") == And((Word("pytest"), Word("-k"), Word("flaky")))
    assert parse("(ls -l)") == And((Word("ls"), Word("-l")))
    assert parse("a -bc") == And((Word("a"), Not(Word("bc"))))
    assert parse("-x") == Word("-x")
    assert parse("-1 a") == And((Word("-1"), Word("a")))


# ---- leniency --------------------------------------------------------------------------
def _lenient(run, text, expected):
    ids, cq = run(text)
    assert cq.warnings, text
    assert all(isinstance(w, str) and w for w in cq.warnings)
    assert ids == expected, (text, cq.warnings)
    return cq


def test_unclosed_quote(run):
    cq = _lenient(run, '"quick brown', {"d17"})
    assert "never closed" in cq.warnings[0]
    _lenient(run, 'fox "quick brown', {"d17"})
    _lenient(run, 'project:"my app billing', set())


def test_filter_without_value(run):
    cq = _lenient(run, "project: billing", BILLING)
    assert "project:" in cq.warnings[0]
    _lenient(run, "billing kind:", BILLING)


def test_dangling_operators(run):
    cq = _lenient(run, "AND OR", ALL)
    assert len(cq.warnings) == 2 and cq.is_empty()
    _lenient(run, "billing AND", BILLING)
    _lenient(run, "billing OR", BILLING)
    _lenient(run, "OR billing", BILLING)
    _lenient(run, "billing OR OR timeout", BILLING | {"d07", "d08", "d18"})
    cq = _lenient(run, "NOT", ALL)
    assert cq.is_empty()
    _lenient(run, "billing NOT", BILLING)
    _lenient(run, "billing -", BILLING)


def test_unbalanced_parentheses(run):
    cq = _lenient(run, "((billing", BILLING)
    assert "never closed" in cq.warnings[0]
    _lenient(run, "billing))", BILLING)
    _lenient(run, "(timeout OR billing", BILLING | {"d07", "d08", "d18"})
    _lenient(run, "() billing", BILLING)
    _lenient(run, "(" * 200 + "billing", BILLING)


def test_terms_with_nothing_to_search(run):
    cq = _lenient(run, "***", ALL)
    assert "***" in cq.warnings[0] and cq.is_empty()
    _lenient(run, "--", ALL)
    _lenient(run, "billing ***", BILLING)
    _lenient(run, '"" billing', BILLING)
    _lenient(run, "billing " + "x" * 80, BILLING)


def test_unknown_kind(run):
    cq = _lenient(run, "kind:nope billing", BILLING)
    assert "kind:nope" in cq.warnings[0]
    for kind in S.SEARCHABLE_KINDS:
        assert kind in cq.warnings[0]
    assert cq.kinds is None
    cq = _lenient(run, "kind:nope kind:plan", PLANS)
    assert cq.kinds == frozenset({"plan"})


def test_bad_date(run):
    cq = _lenient(run, "after:someday billing", BILLING)
    assert "after:someday" in cq.warnings[0] and "2026-02-01" in cq.warnings[0]
    _lenient(run, "before:2026-02-31 billing", BILLING)


def test_filter_on_one_side_of_or_is_reported(run):
    cq = _lenient(run, "overloaded OR kind:plan", set())
    assert "kind:plan" in cq.warnings[0]


def test_oversized_query(run):
    text = "billing " * 1300  # ~10 kB
    cq = _lenient(run, text, BILLING)
    assert len(cq.terms) == MAX_TERMS
    _lenient(run, "x" * 10_000, ALL)
    _lenient(run, "fooBar" * 2000, ALL)  # one 12 kB word: nothing indexable, ignored
    _lenient(run, "project:" + "a" * 5000, ALL)


def test_long_regex_filter_values_are_refused_not_raised(run):
    ids, cq = run("tool:" + "ß" * 99)
    assert cq.warnings or ids == set()
    ids, cq = run("project:" + "ß" * 150 + " billing")
    assert ids == BILLING and cq.warnings


# ---- never raises ----------------------------------------------------------------------
FRAGMENTS = [
    "AND",
    "OR",
    "NOT",
    "and",
    "(",
    ")",
    '"',
    "-",
    "*",
    ":",
    "\\",
    "kind:",
    "kind:plan",
    "project:",
    'project:"',
    "after:",
    "before:7d",
    "after:2026-02",
    "tool:",
    "file:",
    "session:",
    "role:",
    "model:",
    "branch:",
    "foo",
    "fooBar",
    "foo_bar",
    "src/app.py",
    "migra*",
    "E0432",
    "http://x",
    "C:\\path",
    "日本語",
    "ß",
    "--",
    "***",
    "kind:nope",
    "after:someday",
    "(?i)",
    ".*",
    "[",
    "]",
    "{",
    "}",
    "^",
    "$",
    "|",
    "+",
    "?",
    "#",
    "~",
    "&",
    "\x00",
    "\n",
    "\t",
]


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS),
            st.text(alphabet=st.sampled_from('abXY09 "():*-\\_./ßé'), max_size=8),
            st.text(max_size=4),
        ),
        max_size=30,
    ),
    st.sampled_from(["", " "]),
)
def test_never_raises_and_always_searches(index, analyzer, parts, sep):
    text = sep.join(parts)
    cq = compile_query(text, index.schema, analyzer, now=NOW)
    assert isinstance(cq, CompiledQuery)
    assert all(isinstance(w, str) for w in cq.warnings)
    searcher = index.searcher()
    searcher.search(cq.query, limit=5)
    if cq.text_query is not None:
        searcher.search(cq.text_query, limit=5)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_never_raises_on_any_text(text):
    cq = compile_query(text, _SCHEMA, _ANALYZER, now=NOW)
    assert isinstance(cq.warnings, list)


_SCHEMA = S.build_schema()
_ANALYZER = S.code_analyzer()


def test_word_forms_stand_in_for_a_stemmer(find):
    # "migration" also finds "migrations"; "migrate" finds "migrations"/"migration"
    assert {"d01", "d02"} <= find("migration")
    assert {"d01", "d02", "d12"} <= find("migrate")
    assert find('"migration"') == find('"migration"') - {"d01", "d02"}  # a phrase is exact


def test_a_kept_regex_query_matches_what_is_committed_after_it_was_built() -> None:
    """`regex_query` keeps compiled filters for reuse across searches; the terms they
    match are looked up per search, so documents committed later are found too."""
    from ccarchive.index.query.regex import regex_query

    schema = S.build_schema()
    ix = tantivy.Index(schema)
    ix.register_tokenizer(S.CODE_TOKENIZER, S.code_analyzer())
    writer = ix.writer(50_000_000, 1)
    q = regex_query(schema, S.PROJECT, "(?i).*mobile.*")
    assert regex_query(schema, S.PROJECT, "(?i).*mobile.*") is q
    for i, project in enumerate(["/w/mobile-app", "/w/web", "/w/Mobile"]):
        writer.add_document(tantivy.Document(id=str(i), project=project, text="x"))
        writer.commit()
        ix.reload()
        found = {ix.searcher().doc(a)["id"][0] for _, a in ix.searcher().search(q, 10).hits}
        assert found == {"0", "2"} & {str(j) for j in range(i + 1)}
