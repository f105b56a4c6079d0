"""Titles and names around secrets: redacted where a token is, readable everywhere else.

A real index over sessions whose titles, branches and project paths hold a token, whose
only title is a token, whose titles are ordinary code words, and that have no title at
all: what `sessions`, `search` and `entries` show, and that an id with a redacted path
in it still opens its entry.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import orjson
import pytest

from ccarchive.archive.titles import fallback_title, names_something, readable
from ccarchive.service import ArchiveService
from ccarchive.service.models import to_jsonable
from tests.conftest import build_index

_RNG = random.Random(24)
TOKEN = "ghp_" + "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(36))
TOKEN2 = "ghp_" + "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(36))
ORDINARY = "fix CheckpointSummary and printMissinAgentError after /workflows:review"


def _session(
    root: Path,
    cwd: str,
    sid: str,
    prompt: str,
    *,
    branch: str = "main",
    slug: str = "",
    title: str = "",
) -> None:
    folder = root / "projects" / cwd.replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    base = {
        "sessionId": sid,
        "cwd": cwd,
        "gitBranch": branch,
        "version": "2.1.0",
        "timestamp": "2026-03-04T10:00:00.000Z",
    }
    if slug:
        base["slug"] = slug
    lines = [
        {
            **base,
            "type": "user",
            "uuid": f"{sid[:8]}-u1",
            "parentUuid": None,
            "message": {"role": "user", "content": prompt},
        },
        {
            **base,
            "type": "assistant",
            "uuid": f"{sid[:8]}-a1",
            "parentUuid": f"{sid[:8]}-u1",
            "timestamp": "2026-03-04T10:00:05.000Z",
            "message": {
                "id": f"msg_{sid[:6]}",
                "role": "assistant",
                "model": "claude-x",
                "content": [{"type": "text", "text": f"done: {prompt} zebrawords"}],
            },
        },
    ]
    if title:
        lines.append({"type": "custom-title", "customTitle": title, "sessionId": sid})
    (folder / f"{sid}.jsonl").write_bytes(b"\n".join(orjson.dumps(x) for x in lines) + b"\n")


SIDS = {
    name: f"{i:08d}-1111-4222-8333-444455556666"
    for i, name in enumerate(
        (
            "only-token",
            "ordinary",
            "mixed",
            "untitled-slug",
            "untitled",
            "token-path",
            "number",
            "greeting",
        )
    )
}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> ArchiveService:
    root = tmp_path_factory.mktemp("titles") / "claude"
    _session(root, "/home/dev/app", SIDS["only-token"], "rotate the deploy key today", title=TOKEN)
    _session(root, "/home/dev/app", SIDS["ordinary"], ORDINARY)
    _session(
        root,
        "/home/dev/app",
        SIDS["mixed"],
        f"use {TOKEN2} for the deploy job",
        branch=f"feature/{TOKEN}",
    )
    _session(root, "/home/dev/app", SIDS["untitled-slug"], "/clear", slug="witty-purring-moon")
    _session(root, "/home/dev/billing", SIDS["untitled"], "/compact")
    _session(root, f"/home/dev/{TOKEN2}/api", SIDS["token-path"], "check the api zebrapath")
    _session(root, "/home/dev/shop", SIDS["number"], "181")
    _session(root, "/home/dev/shop", SIDS["greeting"], "hi", slug="calm-blue-heron")
    return build_index(root, tmp_path_factory.mktemp("titles-data"))


def _json(obj: object) -> str:
    return json.dumps(to_jsonable(obj), default=str)


def _titles(svc: ArchiveService) -> dict[str, str]:
    return {s.session_id: s.title for s in svc.sessions(limit=50).sessions}


def test_no_title_is_only_a_mark_and_none_an_id(svc: ArchiveService) -> None:
    titles = _titles(svc)
    assert len(titles) == len(SIDS)
    for sid, title in titles.items():
        assert readable(title), (sid, title)
        assert sid[:8] not in title
    assert titles[SIDS["only-token"]] == "rotate the deploy key today"  # next candidate
    assert titles[SIDS["untitled-slug"]] == "witty purring moon"
    assert titles[SIDS["untitled"]].startswith("billing session, 4 Mar 2026")


def test_a_prompt_that_names_nothing_is_no_title(svc: ArchiveService) -> None:
    """`181` (an answer to a question) and `hi` name no subject: the session is named by
    its plan's codename, else by its project and when it began."""
    titles = _titles(svc)
    assert titles[SIDS["number"]].startswith("shop session, 4 Mar 2026")
    assert titles[SIDS["greeting"]] == "calm blue heron"


@pytest.mark.parametrize(
    ("prompt", "names"),
    [
        ("181", False),
        ("hi", False),
        ("ok go", False),
        ("[REDACTED:env]", False),
        ("refactor", True),
        ("fix the login bug", True),
        ("why does 181 fail", True),
    ],
)
def test_which_prompts_name_a_session(prompt: str, names: bool) -> None:
    assert names_something(prompt) is names


def test_ordinary_code_words_are_not_redacted(svc: ArchiveService) -> None:
    assert _titles(svc)[SIDS["ordinary"]] == ORDINARY
    hits = svc.search("CheckpointSummary", limit=5).hits
    assert hits and all("[REDACTED" not in h.title + h.snippet for h in hits)


def test_a_redacted_title_keeps_what_is_no_secret(svc: ArchiveService) -> None:
    title = _titles(svc)[SIDS["mixed"]]
    assert title == "use [REDACTED:github] for the deploy job"


def test_names_hold_no_token_on_any_listing(svc: ArchiveService) -> None:
    shown = [_json(s) for s in svc.sessions(limit=50).sessions]
    shown += [_json(h) for h in svc.search("zebrawords", limit=20).hits]
    shown += [_json(p) for p in svc.projects()]
    joined = "\n".join(shown)
    assert TOKEN not in joined and TOKEN2 not in joined
    assert TOKEN[:12] not in joined and TOKEN2[:12] not in joined
    assert "feature/[REDACTED:github]" in joined


def test_an_id_with_a_redacted_path_opens_its_entry(svc: ArchiveService) -> None:
    hits = svc.search("zebrapath", limit=5).hits
    assert hits and "[REDACTED:github]" in hits[0].id
    entries = svc.entries([hits[0].id])
    assert entries and "zebrapath" in entries[0].text
    assert TOKEN2 not in _json(entries[0])


def test_no_query_finds_a_token_in_a_name(svc: ArchiveService) -> None:
    for probe in (
        f"branch:{TOKEN[:10]}",
        f"project:{TOKEN2[:10]}",
        f"{TOKEN[:8]}*",
        f"{TOKEN2[4:12].lower()}*",
    ):
        assert svc.search(probe, include_tool_results=True, limit=1).total == 0, probe


def test_fallback_title_rules() -> None:
    assert fallback_title(["gentle-rolling-harbor"], "/x/y", "") == "gentle rolling harbor"
    assert (
        fallback_title([], "/home/u/shop/", "2026-01-02T03:04:05Z")
        == "shop session, 2 Jan 2026 03:04"
    )
    assert fallback_title([], "", "") == "Untitled session"
    assert (
        fallback_title(["[REDACTED:github]"], "", "2026-01-02T03:04:05Z")
        == "Untitled session, 2 Jan 2026 03:04"
    )
    assert not readable("[REDACTED:env] — [REDACTED:partial]")
    assert readable("ok [REDACTED:env]")
