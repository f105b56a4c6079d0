"""The demo archive is what newcomers see first and what screenshots are made from, so it
must be stable (same `now`, same bytes) and faithful to the on-disk format: these tests
check the structural rules a real `~/.claude` follows (docs/format.md) on the generated
files, independently of the indexer. Its stories are package data (app/demo/data), so the
last tests check that an installed package finds them and that the script format refuses
what it does not understand.
"""

from __future__ import annotations

import datetime as dt
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from ccarchive.demo import write_demo_archive

REPO = Path(__file__).resolve().parents[2]

NOW = dt.datetime(2026, 3, 14, 15, 9, 26, 535_000, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("demo") / "claude"
    summary = write_demo_archive(root, now=NOW)
    return root, summary


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def _jsonl(path: Path) -> list[dict]:
    raw = path.read_bytes()
    if not raw:
        return []
    assert raw.endswith(b"\n"), f"{path} must end with a newline"
    out = []
    for n, line in enumerate(raw.decode("utf-8").split("\n")[:-1], 1):
        obj = json.loads(line)  # raises on invalid JSON
        assert isinstance(obj, dict), f"{path}:{n} is not an object"
        out.append(obj)
    return out


def _transcripts(root: Path) -> list[Path]:
    return sorted((root / "projects").rglob("*.jsonl"))


def test_same_now_gives_identical_bytes(tmp_path: Path) -> None:
    assert write_demo_archive(tmp_path / "a", now=NOW)["bytes"] > 0
    write_demo_archive(tmp_path / "b", now=NOW)
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert list(a) == list(b)
    for rel in a:
        assert a[rel].read_bytes() == b[rel].read_bytes(), rel
        assert os.stat(a[rel]).st_mtime == os.stat(b[rel]).st_mtime, rel


def test_another_now_moves_only_the_clock(tmp_path: Path) -> None:
    later = NOW + dt.timedelta(days=40, hours=3)
    write_demo_archive(tmp_path / "a", now=NOW)
    write_demo_archive(tmp_path / "b", now=later)
    assert list(_files(tmp_path / "a")) == list(_files(tmp_path / "b"))


def test_refuses_non_empty_root(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("not a demo")
    with pytest.raises(ValueError):
        write_demo_archive(tmp_path, now=NOW)
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_accepts_existing_empty_root(tmp_path: Path) -> None:
    summary = write_demo_archive(tmp_path, now=NOW)
    assert summary["sessions"] >= 14


def test_summary_and_size(demo: tuple[Path, dict]) -> None:
    root, summary = demo
    files = _files(root)
    assert summary["files"] == len(files)
    assert summary["bytes"] == sum(p.stat().st_size for p in files.values())
    assert summary["bytes"] < 1_000_000
    assert summary["sessions"] == 14 and summary["projects"] == 4
    projects = {rel.split("/")[1] for rel in files if rel.startswith("projects/")}
    assert len(projects) == 4


def test_every_jsonl_line_is_a_json_object(demo: tuple[Path, dict]) -> None:
    root, _ = demo
    for path in [*_transcripts(root), root / "history.jsonl"]:
        _jsonl(path)


def test_parent_uuids_resolve_within_the_file(demo: tuple[Path, dict]) -> None:
    root, _ = demo
    for path in _transcripts(root):
        entries = _jsonl(path)
        uuids = {e["uuid"] for e in entries if "uuid" in e}
        for e in entries:
            if "uuid" not in e:
                continue
            assert e["parentUuid"] is None or e["parentUuid"] in uuids, (path, e["uuid"])
            if "logicalParentUuid" in e:
                assert e["parentUuid"] is None and e["logicalParentUuid"] in uuids


def test_assistant_entries_have_exactly_one_block(demo: tuple[Path, dict]) -> None:
    root, _ = demo
    shared = 0
    for path in _transcripts(root):
        ids: dict[str, int] = {}
        for e in _jsonl(path):
            if e["type"] == "assistant":
                assert len(e["message"]["content"]) == 1, (path, e["uuid"])
                ids[e["message"]["id"]] = ids.get(e["message"]["id"], 0) + 1
        shared += sum(n > 1 for n in ids.values())
    assert shared >= 10, "API messages should be spread over several entries"


def test_every_tool_use_has_a_result(demo: tuple[Path, dict]) -> None:
    root, _ = demo
    for path in _transcripts(root):
        uses, results = set(), set()
        for e in _jsonl(path):
            content = e.get("message", {}).get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if block.get("type") == "tool_use":
                    uses.add(block["id"])
                elif block.get("type") == "tool_result":
                    results.add(block["tool_use_id"])
        assert uses == results, path


def _first_prompt(entries: list[dict]) -> object:
    return next(e["message"]["content"] for e in entries if e["type"] == "user")


def test_subagent_files_link_to_a_parent_tool_call(demo: tuple[Path, dict]) -> None:
    root, _ = demo
    legacy = sorted((root / "projects").glob("*/agent-*.jsonl"))
    nested = sorted((root / "projects").glob("*/*/subagents/agent-*.jsonl"))
    assert legacy and nested
    warmups = 0
    for path in [*legacy, *nested]:
        entries = _jsonl(path)
        aid = path.stem.removeprefix("agent-")
        assert all(e.get("isSidechain") is True for e in entries if "uuid" in e)
        assert {e["agentId"] for e in entries if "uuid" in e} == {aid}
        sids = {e["sessionId"] for e in entries if "uuid" in e}
        assert len(sids) == 1
        sid = sids.pop()
        if _first_prompt(entries) == "Warmup":
            assert path in legacy
            warmups += 1
            continue
        project_dir = path.parent if path in legacy else path.parent.parent.parent
        parent = _jsonl(project_dir / f"{sid}.jsonl")
        calls = {
            b["id"]: b
            for e in parent
            if e["type"] == "assistant"
            for b in e["message"]["content"]
            if b["type"] == "tool_use"
        }
        links = [
            e["message"]["content"][0]["tool_use_id"]
            for e in parent
            if isinstance(e.get("toolUseResult"), dict) and e["toolUseResult"].get("agentId") == aid
        ]
        assert len(links) == 1, path
        call = calls[links[0]]
        assert call["name"] in ("Task", "Agent")
        assert call["input"]["prompt"] == _first_prompt(entries)
        if path in nested:
            meta = json.loads(path.with_suffix(".meta.json").read_text())
            assert meta["toolUseId"] == links[0]
            assert meta["agentType"] == call["input"]["subagent_type"]
    assert warmups == 1
    inline = [
        p
        for p in _transcripts(root)
        if p.parent.parent.name == "projects"
        and not p.name.startswith("agent-")
        and any(e.get("isSidechain") for e in _jsonl(p))
    ]
    assert len(inline) == 1, "one 1.0.x session keeps its subagent inline"


def test_plans_belong_to_sessions(demo: tuple[Path, dict]) -> None:
    root, _ = demo
    slugs = {e["slug"] for p in _transcripts(root) for e in _jsonl(p) if "slug" in e}
    agents = {p.stem.removeprefix("agent-") for p in (root / "projects").rglob("agent-*.jsonl")}
    plans = sorted((root / "plans").glob("*.md"))
    sub = 0
    for plan in plans:
        m = re.fullmatch(r"(.+?)(?:-agent-(a[0-9a-f]{16}|[0-9a-f]{8}))?", plan.stem)
        assert m and m.group(1) in slugs, plan.name
        if m.group(2):
            sub += 1
            assert m.group(2) in agents, plan.name
    assert len(plans) - sub >= 3 and sub >= 2


def test_history_lines(demo: tuple[Path, dict]) -> None:
    root, _ = demo
    lines = _jsonl(root / "history.jsonl")
    stamps = [h["timestamp"] for h in lines]
    assert stamps == sorted(stamps)
    assert all(isinstance(t, int) for t in stamps)
    assert not {"sessionId"} & set(lines[0]), "the oldest lines predate sessionId"
    assert "sessionId" in lines[-1]
    assert any(h["display"].startswith("/") for h in lines)
    pasted = [h for h in lines if "[Pasted text #1 +12 lines]" in h["display"]]
    assert len(pasted) == 1 and pasted[0]["pastedContents"]["1"]["content"].count("\n") == 12
    # every typed prompt of every main session is in the history
    typed = {h["display"] for h in lines}
    for path in _transcripts(root):
        if path.name.startswith("agent-") or "subagents" in path.parts:
            continue
        for e in _jsonl(path):
            c = e.get("message", {}).get("content") if e["type"] == "user" else None
            if isinstance(c, str) and not e.get("isSidechain") and not e.get("isCompactSummary"):
                assert c in typed or any("[Pasted text" in t for t in typed), c[:40]


def test_timestamps_are_recent_and_two_sessions_are_live(demo: tuple[Path, dict]) -> None:
    root, _ = demo
    oldest, live = NOW - dt.timedelta(days=22), 0
    for path in _transcripts(root):
        stamps = [
            dt.datetime.fromisoformat(e["timestamp"]) for e in _jsonl(path) if "timestamp" in e
        ]
        assert all(oldest < t <= NOW for t in stamps), path
        if stamps:
            last = max(stamps)
            assert abs(path.stat().st_mtime - last.timestamp()) < 0.01, path
            if not path.name.startswith("agent-") and "subagents" not in path.parts:
                live += last > NOW - dt.timedelta(hours=1)
    assert live == 2


def test_record_types_and_quirks_are_covered(demo: tuple[Path, dict]) -> None:
    """The demo doubles as an end-to-end fixture: each kind of record appears at least once."""
    root, _ = demo
    seen: set[str] = set()
    leaves: list[tuple[Path, str]] = []
    for path in _transcripts(root):
        if path.stat().st_size == 0:
            seen.add("empty-file")
        entries = _jsonl(path)
        if len({e["version"] for e in entries if "version" in e}) > 1:
            seen.add("multi-version")
        for e in entries:
            t = e["type"]
            seen.add(t)
            if t == "system":
                seen.add("system/" + e["subtype"])
            elif t == "progress":
                seen.add("progress/" + e["data"]["type"])
            elif t == "attachment":
                seen.add("attachment/" + e["attachment"]["type"])
            elif t == "assistant":
                b = e["message"]["content"][0]
                seen.add("block/" + b["type"])
                if b["type"] == "thinking" and not b["thinking"]:
                    seen.add("empty-thinking")
                if b["type"] == "tool_use":
                    seen.add("tool/" + ("mcp" if b["name"].startswith("mcp__") else b["name"]))
            elif t == "user":
                c = e["message"]["content"]
                if e.get("isCompactSummary"):
                    seen.add("compact-summary")
                if isinstance(c, list) and c[0].get("is_error"):
                    seen.add("tool-error")
                if isinstance(c, list) and "<persisted-output>" in json.dumps(c):
                    seen.add("persisted-output")
            elif t == "summary":
                leaves.append((path, e["leafUuid"]))
        text = path.read_text()
        if "sk-ant-api03-DEMO" in text and "postgres://app:s3cret-demo@db.internal/app" in text:
            seen.add("fake-credentials")
        if _has_rewind(entries):
            seen.add("rewind")
    required = {
        "user",
        "assistant",
        "system",
        "summary",
        "custom-title",
        "ai-title",
        "agent-name",
        "last-prompt",
        "permission-mode",
        "pr-link",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "attachment",
        "system/compact_boundary",
        "system/api_error",
        "system/turn_duration",
        "system/local_command",
        "system/away_summary",
        "progress/hook_progress",
        "progress/bash_progress",
        "progress/agent_progress",
        "attachment/queued_command",
        "attachment/hook_success",
        "block/text",
        "block/thinking",
        "block/tool_use",
        "empty-thinking",
        "tool/Bash",
        "tool/Read",
        "tool/Edit",
        "tool/Write",
        "tool/Grep",
        "tool/Glob",
        "tool/TodoWrite",
        "tool/mcp",
        "tool/Task",
        "tool/Agent",
        "compact-summary",
        "tool-error",
        "persisted-output",
        "fake-credentials",
        "rewind",
        "empty-file",
        "multi-version",
    }
    assert required <= seen, sorted(required - seen)
    # summary records title a branch that ends in *another* session file
    owner = {e["uuid"]: p for p in _transcripts(root) for e in _jsonl(p) if "uuid" in e}
    assert leaves and all(owner[leaf] != path for path, leaf in leaves)
    assert list((root / "projects").glob("*/*/session-memory/summary.md"))
    memory = list((root / "projects").glob("*/memory/*.md"))
    assert len({m.parent for m in memory}) >= 2
    assert any(m.read_text().startswith("---\n") for m in memory)


def _has_rewind(entries: list[dict]) -> bool:
    """A typed prompt whose parent already has another user/assistant child."""
    children: dict[str, list[dict]] = {}
    for e in entries:
        if e.get("parentUuid") and e["type"] in ("user", "assistant"):
            children.setdefault(e["parentUuid"], []).append(e)
    return any(
        len(kids) > 1 and any(isinstance(k["message"]["content"], str) for k in kids[1:])
        for kids in children.values()
    )


# ---- the stories as package data ----------------------------------------------------------


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and modification time, by relative path."""
    return {rel: (p.read_bytes(), os.stat(p).st_mtime_ns) for rel, p in _files(root).items()}


_WRITE_FROM_INSTALLED = """
import datetime as dt, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import ccarchive.demo
from ccarchive.demo.stories import data_folder
now = dt.datetime.fromisoformat(sys.argv[3])
summary = ccarchive.demo.write_demo_archive(Path(sys.argv[2]), now=now)
print(json.dumps({"module": ccarchive.demo.__file__, "data": str(data_folder()),
                  "summary": summary}))
"""


def _write_from(installed: Path, root: Path) -> dict:
    """Write the demo with the package at `installed` (a zip or a wheel), in a fresh
    interpreter: no site-packages (so not the editable install) and another hash seed."""
    out = subprocess.run(
        [
            sys.executable,
            "-S",
            "-c",
            _WRITE_FROM_INSTALLED,
            str(installed),
            str(root),
            NOW.isoformat(),
        ],
        capture_output=True,
        text=True,
        cwd=root.parent,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONHASHSEED": "12345"},
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def _package_files() -> dict[str, Path]:
    """What setuptools puts in the wheel: each listed package's modules and the files its
    package-data patterns match (the same recursive glob build_py uses)."""
    tool = _pyproject()["tool"]["setuptools"]
    roots = tool["package-dir"]
    out: dict[str, Path] = {}
    for package in tool["packages"]:
        top = max((k for k in roots if package == k or package.startswith(k + ".")), key=len)
        folder = REPO / roots[top] / package[len(top) :].lstrip(".").replace(".", "/")
        arc = package.replace(".", "/")
        for path in sorted(folder.glob("*.py")):
            out[f"{arc}/{path.name}"] = path
        for pattern in tool.get("package-data", {}).get(package, []):
            for hit in glob.glob(str(folder / pattern), recursive=True):
                if os.path.isfile(hit):
                    out[f"{arc}/{Path(hit).relative_to(folder).as_posix()}"] = Path(hit)
    return out


def test_every_story_file_is_packaged() -> None:
    """A data file or folder left out of pyproject.toml works in a checkout and breaks in a
    wheel; a data folder that is not listed makes setuptools warn at every build."""
    data = REPO / "app" / "demo" / "data"
    files = {
        f"ccarchive/demo/data/{p.relative_to(data).as_posix()}"
        for p in data.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert files and files <= set(_package_files()), sorted(files - set(_package_files()))
    folders = {
        "ccarchive.demo.data." + p.relative_to(data).as_posix().replace("/", ".")
        for p in data.rglob("*")
        if p.is_dir()
    } | {"ccarchive.demo.data"}
    packages = set(_pyproject()["tool"]["setuptools"]["packages"])
    assert folders <= packages, sorted(folders - packages)


def test_installed_package_finds_its_stories(tmp_path: Path, demo: tuple[Path, dict]) -> None:
    """The package as a wheel lays it out, zipped: nothing on disk beside the modules, so the
    stories are found through importlib.resources or not at all. The same `now` gives the
    same bytes there, in another process with another hash seed, as in this one."""
    installed = tmp_path / "site.zip"
    with zipfile.ZipFile(installed, "w") as z:
        for arcname, path in _package_files().items():
            z.write(path, arcname)
    root = tmp_path / "claude"
    result = _write_from(installed, root)
    assert result["module"].startswith(str(installed))
    assert result["data"].startswith(str(installed))
    ref_root, ref_summary = demo
    assert _snapshot(root) == _snapshot(ref_root)
    assert result["summary"] == {**ref_summary, "root": str(root)}


@pytest.mark.slow
def test_built_wheel_writes_the_same_archive(tmp_path: Path, demo: tuple[Path, dict]) -> None:
    """The real thing: `pip wheel` from a copy of the sources, imported from the .whl."""
    src = tmp_path / "src"  # a copy: an in-tree build leaves build/ behind, stale next time
    for folder in ("app", "styles"):
        shutil.copytree(REPO / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(tmp_path / "dist"),
            str(src),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("ccarchive-*.whl")
    root = tmp_path / "claude"
    result = _write_from(wheel, root)
    assert result["data"].startswith(str(wheel))
    assert _snapshot(root) == _snapshot(demo[0])


# ---- the script format ----------------------------------------------------------------------


def _story(tmp_path: Path, steps: str, header: str = "") -> Path:
    """A one-project, one-session story folder in the format of app/demo/data/README.md."""
    data = tmp_path / "stories"
    (data / "demo").mkdir(parents=True)
    (data / "archive.toml").write_text('projects = ["demo"]\n')
    (data / "demo" / "project.toml").write_text(
        'path = "/home/demo/src/demo"\nsessions = ["only"]\n[files]\n"a.txt" = "one\\n"\n'
    )
    (data / "demo" / "only.toml").write_text(
        'version = "2.1.119"\nbranch = "main"\nmodel = "claude-opus-4-6"\n'
        f'start = {{days_ago = 1, time = "10:00"}}\n{header}\n{steps}'
    )
    return data


def test_a_story_of_its_own_is_played(tmp_path: Path) -> None:
    data = _story(
        tmp_path,
        """
[[step]]
let = {greeting = "hello from {{sid}}"}
[[step]]
prompt = "edit a.txt"
[[step]]
edit = "a.txt"
old = "one"
new = "two"
[[step]]
say = "{{greeting}}"
[[step]]
finish = true
last_prompt = "edit a.txt"
""",
    )
    summary = write_demo_archive(tmp_path / "claude", now=NOW, stories=data)
    assert summary["projects"] == 1 and summary["sessions"] == 1
    (path,) = (tmp_path / "claude" / "projects").glob("*/*.jsonl")
    entries = _jsonl(path)
    said = [
        e["message"]["content"][0]["text"]
        for e in entries
        if e["type"] == "assistant" and e["message"]["content"][0]["type"] == "text"
    ]
    assert said == [f"hello from {path.stem}"]
    edit = next(
        e
        for e in entries
        if isinstance(e.get("toolUseResult"), dict) and "structuredPatch" in e["toolUseResult"]
    )
    assert edit["toolUseResult"]["originalFile"] == "one\n"


@pytest.mark.parametrize(
    ("steps", "header", "error"),
    [
        ('[[step]]\nshout = "hi"\n', "", "unknown step 'shout'"),
        ('[[step]]\nsay = "hi"\nloud = true\n', "", "unknown keys ['loud']"),
        ('[[step]]\nsay = "{{nobody}}"\n', "", "unknown placeholder {{nobody}}"),
        ('[[step]]\nedit = "a.txt"\nold = "zero"\nnew = "two"\n', "", "must occur exactly once"),
        (
            '[[step]]\nprompt = "hi"\n',
            'must_end_before = {days_ago = 1, time = "09:00"}',
            "must end before",
        ),
        # a value of the wrong TOML type names the step and the key
        ("[[step]]\nsay = 3\n", "", "step 'say': its value is a text, not 3"),
        ("[[step]]\nwait = true\n", "", "step 'wait': its value is a number, not True"),
        (
            '[[step]]\nbash = "ls"\nstdout = ["a"]\n',
            "",
            "step 'bash': 'stdout' is a text, not ['a']",
        ),
        ('[[step]]\nbash = "ls"\n', "", "step 'bash' needs 'stdout'"),
        (
            '[[step]]\nmemory = "notes.md"\ntext = "x"\nat = "yesterday"\n',
            "",
            "step 'memory': 'at' is a table, not 'yesterday'",
        ),
        (
            '[[step]]\nexit_plan = "# Plan"\nsave = "yes"\n',
            "",
            "step 'exit_plan': 'save' is true or false, not 'yes'",
        ),
        ('[[step]]\ntodo = "write tests"\n', "", "step 'todo': its value is an array"),
    ],
)
def test_a_script_error_is_refused(tmp_path: Path, steps: str, header: str, error: str) -> None:
    """A typo in a script fails loudly, instead of silently writing another archive."""
    data = _story(tmp_path, steps, header)
    with pytest.raises((ValueError, AssertionError), match=re.escape(error)):
        write_demo_archive(tmp_path / "claude", now=NOW, stories=data)
