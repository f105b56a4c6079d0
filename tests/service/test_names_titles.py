"""Names and titles as a person reads them, on an archive shaped like a real one: projects
by their shortest unique path suffix, sessions from a plan by the plan's heading, any
unique id prefix, and recent activity one session per row."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import tantivy

from ccarchive.archive.titles import clean_title
from ccarchive.index import schema as S
from ccarchive.service import ArchiveService
from ccarchive.service.arguments import ServiceError
from ccarchive.service.naming import home_path, plural, short_names
from tests.conftest import build_index
from tests.support import shapes_archive as A


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> ArchiveService:
    root = A.write_shapes_archive(tmp_path_factory.mktemp("shapes") / "claude")
    return build_index(root, tmp_path_factory.mktemp("shapes-data"))


# ---- titles ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "raw,title",
    [
        (A.PLAN_PROMPT, "Retry backoff for fetch"),
        (" ".join(A.PLAN_PROMPT.split()), "Retry backoff for fetch"),  # as first prompts are kept
        (
            "Implement the following plan: make the CLI quiet when piped",
            "make the CLI quiet when piped",
        ),
        ("Implement the following plan:\n\n## Implementation Plan: Dark mode\nsteps", "Dark mode"),
        (
            "fix the **flaky** `test_retry` in the [cli](http://x/cli)",
            "fix the flaky test_retry in the cli",
        ),
        ("# Release\n- bump the version\n- tag it", "Release bump the version tag it"),
        (
            "rename __init__.py and *.py, *.md globs; keep snake_case_names",
            "rename __init__.py and *.py, *.md globs; keep snake_case_names",
        ),
        ("Implement the following plan:", "Implement the following plan:"),
        ("", ""),
    ],
)
def test_clean_title(raw: str, title: str) -> None:
    assert clean_title(raw) == title
    assert clean_title(title) == title  # idempotent: the service applies it again


def test_clean_title_cuts_with_an_ellipsis() -> None:
    assert clean_title("word " * 50, 20) == "word word word word…"
    assert len(clean_title("x" * 300, 200)) == 200


def test_a_session_from_a_plan_is_titled_by_the_plan_heading(svc: ArchiveService) -> None:
    info = svc.session(A.PLAN_SESSION)
    assert info.title == "Retry backoff for fetch"
    assert info.first_prompt.startswith("Implement the following plan")  # kept as typed
    assert svc.session_title(A.PLAN_SESSION)[0] == "Retry backoff for fetch"
    hits = svc.search("backoff", group_by_session=False).hits
    assert hits and {h.title for h in hits if h.session_id == A.PLAN_SESSION} == {
        "Retry backoff for fetch"
    }
    listed = {s.session_id: s.title for s in svc.sessions(limit=50).sessions}
    assert listed[A.PLAN_SESSION] == "Retry backoff for fetch"
    assert listed[A.OSS_SESSION] == "fix the flaky test_retry in the cli"
    assert svc.transcript(A.PLAN_SESSION, limit=1).title == "Retry backoff for fetch"


def test_an_index_written_before_the_rule_reads_clean(tmp_path: Path) -> None:
    """A session document with the raw plan as its title (what the indexer wrote before
    `clean_title`): the service cleans it when it reads it."""
    root = A.write_shapes_archive(tmp_path / "claude")
    svc = build_index(root, tmp_path / "data")
    sid = A.OSS_SESSION
    old = svc.store.searcher().doc(
        svc.store.searcher()
        .search(tantivy.Query.term_query(svc.schema, S.ID, f"session:{sid}"), 1)
        .hits[0][1]
    )
    blob = orjson.loads(old.get_first(S.BLOB))
    blob["title"] = A.PLAN_PROMPT
    doc = tantivy.Document()
    for field in (S.ID, S.KIND, S.SESSION, S.PROJECT, S.STATE, S.PATH):
        doc.add_text(field, S.first_value(old, field))
    doc.add_unsigned(S.SKEY, S.session_key(sid))
    doc.add_date(S.TS, old.get_first(S.TS))
    doc.add_date(S.TS_START, old.get_first(S.TS_START))
    doc.add_unsigned(S.MESSAGES, 2)
    doc.add_text(S.TITLE, A.PLAN_PROMPT)
    doc.add_bytes(S.BLOB, orjson.dumps(blob))
    writer = svc.store.try_writer()
    writer.delete_documents_by_term(S.ID, f"session:{sid}")
    writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    svc.refresh()
    assert (
        svc.store.searcher()
        .search(tantivy.Query.term_query(svc.schema, S.TITLE, "implement"), 1)
        .count
        == 1
    )
    assert svc.session(sid).title == "Retry backoff for fetch"
    assert svc.session_title(sid)[0] == "Retry backoff for fetch"


# ---- project names -------------------------------------------------------------------------
def test_projects_are_named_by_their_shortest_unique_suffix(svc: ArchiveService) -> None:
    assert svc.project_names() == A.PROJECTS
    assert {svc.project_name(p.path) for p in svc.projects()} == set(A.PROJECTS.values())
    # a path no session has (a plan's, a prompt's) is named among them all the same
    assert svc.project_name("/srv/other/cli") == "other/cli"
    assert svc.project_name("/home/u/src/notes") == "notes"
    assert svc.project_name("") == ""


def test_short_names_rules() -> None:
    names = short_names(
        [
            "/a/work/cli",
            "/b/oss/cli",
            "/b/oss/cli/.worktrees/3",
            "/cli",
            "/x/cli",
            "/home/me/tally",
            "/srv/2",
            "/srv/.hidden",
        ]
    )
    assert names == {
        "/a/work/cli": "work/cli",
        "/b/oss/cli": "oss/cli",
        "/b/oss/cli/.worktrees/3": "cli/.worktrees/3",
        "/cli": "/cli",  # the tail of /x/cli: only its full path is unique
        "/x/cli": "x/cli",
        "/home/me/tally": "tally",
        "/srv/2": "srv/2",
        "/srv/.hidden": "srv/.hidden",
    }
    assert short_names([]) == {}


def test_home_path_and_plural(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    assert home_path("/home/u/work/cli") == "~/work/cli"
    assert home_path("/home/user2/cli") == "/home/user2/cli"
    assert [plural(n, "session") for n in (0, 1, 2)] == ["0 sessions", "1 session", "2 sessions"]
    assert plural(1200, "entry", "entries") == "1,200 entries"
    assert plural(1, "token", shown="1") == "1 token"


# ---- session ids ---------------------------------------------------------------------------
def test_any_unique_prefix_opens_a_session(svc: ArchiveService) -> None:
    assert svc.session("a").session_id == A.PLAN_SESSION
    assert svc.session("c0").session_id == A.TREE3_SESSION
    with pytest.raises(ServiceError) as err:
        svc.session("c")
    assert A.TREE3_SESSION in str(err.value) and A.TREE4_SESSION in str(err.value)
    assert "worktree four" in str(err.value)  # each match with its title
    with pytest.raises(ServiceError, match="unknown session"):
        svc.session("f")


# ---- recent activity ---------------------------------------------------------------------
def test_recent_activity_is_one_row_per_recent_session(svc: ArchiveService) -> None:
    """The newest 200 entries are all the big session's: grouping them shows one
    session; recent activity shows every session, newest first."""
    grouped = svc.search("", group_by_session=True, limit=40)
    assert [g.session_id for g in grouped.groups or []] == [A.BIG_SESSION]
    page = svc.recent_activity(limit=40, hits_per_group=2)
    assert [g.session_id for g in page.groups] == [
        A.BIG_SESSION,
        A.TREE4_SESSION,
        A.TREE3_SESSION,
        A.OSS_SESSION,
        A.PLAN_SESSION,
        A.OLD_SESSION,
    ]
    big = page.groups[0]
    assert big.hit_count == 2 * A.BIG_TURNS and len(big.hits) == 2
    # its newest entries: the last turn's (dates are kept to the second: either first)
    assert {h.snippet for h in big.hits} == {
        f"step {A.BIG_TURNS - 1} of the long refactor",
        f"done with step {A.BIG_TURNS - 1}",
    }
    assert page.groups[-2].title == "Retry backoff for fetch"
    assert page.hits == [g.hits[0] for g in page.groups]
    # filters narrow it as they narrow a search
    only = svc.recent_activity(project="/home/u/oss/cli", limit=40)
    assert {g.session_id for g in only.groups} == {A.OSS_SESSION, A.TREE3_SESSION, A.TREE4_SESSION}
    assert [g.session_id for g in svc.recent_activity(limit=2).groups] == [
        A.BIG_SESSION,
        A.TREE4_SESSION,
    ]
    faceted = svc.recent_activity(limit=5, facets=True)
    assert faceted.facets is not None and faceted.facets.projects
