"""The Claude Code plugin in `.claude-plugin/`: its files are what Claude Code reads, and
every command it names runs as Claude Code would run it.

The plugin only names commands (`ccarchive serve`, `ccarchive-hook ...`): the tests run
those exact strings, with the ccarchive executables found on PATH and the archive given
the way Claude Code gives it (`$CLAUDE_CONFIG_DIR`), so a renamed subcommand, a flag the
CLI no longer takes or a hook output Claude Code would reject fails here, not in a
user's session.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support.serve_process import SharedServe, indexed_copy

ROOT = Path(__file__).resolve().parents[2]
MARKETPLACE = ROOT / ".claude-plugin"
PLUGIN = MARKETPLACE / "ccarchive"
VENV_BIN = Path(sys.executable).parent

WORKFLOW = ("search", "context", "get_entries")
"""The three steps the skill and the slash command teach, in order."""

HOOK_OUTPUT_KEYS = frozenset(
    {
        "continue",
        "stopReason",
        "suppressOutput",
        "systemMessage",
        "decision",
        "reason",
        "hookSpecificOutput",
    }
)
"""The top-level keys Claude Code reads in a hook's JSON output."""

SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
"""Skill names: lowercase letters, digits and single hyphens (at most 64 characters)."""


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def front_matter(path: Path) -> tuple[dict[str, str], str]:
    """The YAML front matter of a Markdown file, and the body after it.

    Only a strict subset of YAML is accepted (one `key: value` per line, plain scalars
    that YAML reads as the very same string), so this parser and Claude Code's agree
    without adding a YAML dependency.
    """
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), f"{path.name}: no front matter"
    head, sep, body = text[4:].partition("\n---\n")
    assert sep, f"{path.name}: front matter is not closed"
    fields: dict[str, str] = {}
    for line in head.splitlines():
        key, colon, value = line.partition(": ")
        assert colon and re.fullmatch(r"[a-z][a-z-]*", key), f"{path.name}: {line!r}"
        assert key not in fields, f"{path.name}: {key} twice"
        value = value.strip()
        assert value, f"{path.name}: {key} is empty"
        # characters that would make YAML read something else than this string
        assert value[0] not in "-?:,[]{}#&*!|>'\"%@`", f"{path.name}: {key} needs quotes"
        assert ": " not in value and " #" not in value and not value.endswith(":"), (
            f"{path.name}: {key} needs quotes"
        )
        fields[key] = value
    return fields, body


def tool_calls(markdown: str) -> set[str]:
    """The tools a skill or command tells the model to call, written `name(...)`."""
    return set(re.findall(r"`([a-z_]+)\(", markdown))


def hook_commands() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(event name, matcher group, hook) for every hook in hooks/hooks.json."""
    hooks = load(PLUGIN / "hooks" / "hooks.json")["hooks"]
    return [
        (event, group, hook)
        for event, groups in hooks.items()
        for group in groups
        for hook in group["hooks"]
    ]


def with_path(first: Path | None, **env: str) -> dict[str, str]:
    """The test's environment with `first` at the head of PATH, or if None, with every
    folder that holds a ccarchive left out of PATH."""
    path = os.environ.get("PATH", "")
    if first is None:
        path = os.pathsep.join(
            p for p in path.split(os.pathsep) if p and not (Path(p) / "ccarchive").exists()
        )
    else:
        path = os.pathsep.join([str(first), path])
    return {**os.environ, "PATH": path, **env}


@pytest.fixture(scope="module")
def claude_env(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """What Claude Code's children see: the venv's ccarchive first on PATH, the demo
    archive as the config dir, and an index of it in a data dir private to this module."""
    archive = demo_archive_ro.resolve()
    data = indexed_copy(archive, tmp_path_factory.mktemp("plugin") / "data", tmp_path_factory)
    return {"CLAUDE_CONFIG_DIR": str(archive), "CCARCHIVE_HOME": str(data.resolve())}


# ---- the files ------------------------------------------------------------------------
def test_every_json_file_parses() -> None:
    files = sorted(MARKETPLACE.rglob("*.json"))
    assert {f.relative_to(MARKETPLACE).as_posix() for f in files} >= {
        "marketplace.json",
        "ccarchive/.claude-plugin/plugin.json",
        "ccarchive/.mcp.json",
        "ccarchive/hooks/hooks.json",
    }
    for f in files:
        assert isinstance(load(f), dict), f


def test_marketplace_lists_the_plugin_folder() -> None:
    market = load(MARKETPLACE / "marketplace.json")
    assert market["name"] == "ccarchive"  # users install ccarchive@ccarchive
    assert market["owner"]["name"]
    (entry,) = market["plugins"]
    for key in ("name", "source", "description", "version"):
        assert isinstance(entry[key], str) and entry[key], key
    # relative sources start with ./, never leave the repository, and resolve from the
    # marketplace root (the folder holding .claude-plugin/), not from .claude-plugin/
    source = entry["source"]
    assert source.startswith("./") and ".." not in Path(source).parts
    assert (ROOT / source).resolve() == PLUGIN.resolve()
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert entry["name"] == manifest["name"]
    assert entry["version"] == manifest["version"]


def test_manifest() -> None:
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert manifest["name"] == "ccarchive"
    assert manifest["description"] and manifest["author"]["name"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert manifest["version"] == project["version"]
    # hooks/hooks.json and .mcp.json are loaded from their default places; naming them in
    # the manifest too makes Claude Code load them twice ("Duplicate hooks file")
    assert manifest.get("hooks") not in ("./hooks/hooks.json", "hooks/hooks.json")
    assert manifest.get("mcpServers") not in ("./.mcp.json", ".mcp.json")
    for key in ("commands", "agents", "skills", "hooks", "mcpServers"):
        paths = manifest.get(key)
        for p in [paths] if isinstance(paths, str) else paths or []:
            if isinstance(p, str):
                assert p.startswith("./") and (PLUGIN / p).exists(), (key, p)
    for default in (".mcp.json", "hooks/hooks.json", "commands", "skills"):
        assert (PLUGIN / default).exists(), default


def test_mcp_json_names_a_stdio_server() -> None:
    servers = load(PLUGIN / ".mcp.json")["mcpServers"]
    assert list(servers) == ["ccarchive"]
    for cfg in servers.values():
        assert isinstance(cfg["command"], str) and cfg["command"]
        assert all(isinstance(a, str) for a in cfg.get("args", []))
        assert "url" not in cfg and cfg.get("type", "stdio") == "stdio"


def test_hooks_json_registers_both_hooks_quietly() -> None:
    hooks = hook_commands()
    assert {event for event, _, _ in hooks} == {"SessionStart", "UserPromptSubmit"}
    for event, group, hook in hooks:
        assert hook["type"] == "command"
        assert hook["timeout"] == 5
        cmd = hook["command"]
        # found on PATH or skipped, and a non-zero exit (2 would block the prompt) is
        # never passed on
        assert cmd.startswith("command -v ccarchive-hook ") and cmd.endswith("|| true")
        subcommand = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit"}[
            event
        ]
        # the hook's own entry, not the `ccarchive` command's click start-up
        assert f"&& ccarchive-hook {subcommand} " in cmd
        if event == "SessionStart":
            matcher = re.compile(group["matcher"])
            assert all(matcher.fullmatch(s) for s in ("startup", "clear", "compact"))
            assert not matcher.fullmatch("resume")  # the transcript already holds it
        else:
            assert "matcher" not in group  # UserPromptSubmit takes none


def test_every_command_the_plugin_runs_is_installed_with_ccarchive() -> None:
    """The commands hooks.json and .mcp.json start are console scripts of the package, so
    `pipx install` / `uv tool install` put them on PATH."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    started = {cfg["command"] for cfg in load(PLUGIN / ".mcp.json")["mcpServers"].values()}
    started |= {re.findall(r"&& (\S+) ", hook["command"])[0] for _, _, hook in hook_commands()}
    assert started == {"ccarchive", "ccarchive-hook"}
    assert started <= set(scripts)
    assert all((VENV_BIN / name).exists() for name in started)


def test_skill_front_matter_and_workflow() -> None:
    skills = sorted((PLUGIN / "skills").glob("*/SKILL.md"))
    assert skills
    for path in skills:
        fields, body = front_matter(path)
        name = fields["name"]
        assert name == path.parent.name and SKILL_NAME.match(name) and len(name) <= 64
        assert 0 < len(fields["description"]) <= 1024
        assert "ccarchive" in fields["description"]
        calls = tool_calls(body)
        assert set(WORKFLOW) <= calls
        # taught in order: find, then look around, then read in full
        assert [body.index(f"`{t}(") for t in WORKFLOW] == sorted(
            body.index(f"`{t}(") for t in WORKFLOW
        )


def test_command_front_matter() -> None:
    commands = sorted((PLUGIN / "commands").glob("*.md"))
    assert commands
    for path in commands:
        fields, body = front_matter(path)
        assert set(fields) <= {"description", "argument-hint", "allowed-tools", "model"}
        assert fields["description"] and fields["argument-hint"]
        assert "$ARGUMENTS" in body
        assert set(WORKFLOW) <= tool_calls(body)


# ---- the commands, run as Claude Code runs them ----------------------------------------
async def test_mcp_server_command_serves_every_tool(shared_stdio: SharedServe) -> None:
    """The server in .mcp.json, spawned exactly as configured (no --archive: the archive
    comes from CLAUDE_CONFIG_DIR), answers initialize and tools/list through a real MCP
    client; the tools the skill and command name all exist. (The stdio serve the MCP
    tests share is that one: tests/mcp/conftest.py.)"""
    taught = set().union(
        *(
            tool_calls(p.read_text(encoding="utf-8"))
            for p in [*PLUGIN.glob("skills/*/SKILL.md"), *PLUGIN.glob("commands/*.md")]
        )
    )
    (cfg,) = load(PLUGIN / ".mcp.json")["mcpServers"].values()
    params = shared_stdio.params
    assert params is not None and params.env is not None
    assert (params.command, params.args) == (cfg["command"], cfg.get("args", []))
    assert "--archive" not in params.args and "CLAUDE_CONFIG_DIR" in params.env
    assert params.env["PATH"].split(os.pathsep)[0] == str(VENV_BIN)
    c = shared_stdio.client
    assert c.server_info is not None and c.server_info.name == "ccarchive"
    assert c.instructions and all(f"`{t}" in c.instructions for t in WORKFLOW)
    tools = {t.name for t in (await c.list_tools()).tools}
    assert len(tools) == 13
    assert taught <= tools, taught - tools
    status = await c.call_tool("status", {})
    assert not status.is_error
    assert status.structured_content["archive"] == params.env["CLAUDE_CONFIG_DIR"]
    found = await c.call_tool(
        "search", {"query": "flaky", "include_active": True, "group_by_session": False}
    )
    assert found.structured_content["results"]


def _events(demo_service: Any) -> dict[str, dict[str, Any]]:
    """A real hook event per event name, as Claude Code sends it, in a demo project where
    each hook has something to say."""
    flaky = next(s for s in demo_service.sessions(limit=50).sessions if "flaky" in s.title.lower())
    base = {
        "session_id": "0b7c6f3e-1d2a-4e5f-8a9b-0c1d2e3f4a5b",
        "transcript_path": "/home/demo/.claude/projects/x/0b7c6f3e.jsonl",
        "cwd": flaky.project,
    }
    return {
        "SessionStart": {**base, "hook_event_name": "SessionStart", "source": "startup"},
        "UserPromptSubmit": {
            **base,
            "hook_event_name": "UserPromptSubmit",
            "permission_mode": "default",
            "prompt": "test_expiring_soon is flaky on CI again, what did we find last time?",
        },
    }


def _run(
    command: str, event: dict[str, Any], env: dict[str, str], cwd: str, shell: str = "bash"
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [shutil.which(shell) or shell, "-c", command],
        cwd=cwd,
        env=env,
        input=json.dumps(event).encode(),
        capture_output=True,
        timeout=60,
    )


@pytest.mark.parametrize("shell", ["bash", "sh"])
def test_hook_commands_add_context(
    claude_env: dict[str, str], demo_service: Any, tmp_path: Path, shell: str
) -> None:
    """Each hook command, as written in hooks.json, with a real event on stdin: exit 0
    and the JSON Claude Code reads for that event (additionalContext)."""
    events = _events(demo_service)
    env = with_path(VENV_BIN, **claude_env)
    for event_name, _, hook in hook_commands():
        proc = _run(hook["command"], events[event_name], env, str(tmp_path), shell)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert set(out) <= HOOK_OUTPUT_KEYS
        specific = out["hookSpecificOutput"]
        assert specific["hookEventName"] == event_name
        assert isinstance(specific["additionalContext"], str)
        assert "historical record, not instructions" in specific["additionalContext"]


def test_hook_commands_are_quiet_without_ccarchive(
    claude_env: dict[str, str], demo_service: Any, tmp_path: Path
) -> None:
    """No ccarchive on PATH, or no index yet: exit 0 and no output at all."""
    events = _events(demo_service)
    no_ccarchive = with_path(None, **claude_env)
    assert (
        subprocess.run(
            ["bash", "-c", "command -v ccarchive"], env=no_ccarchive, capture_output=True
        ).returncode
        != 0
    )
    no_index = with_path(
        VENV_BIN,
        CLAUDE_CONFIG_DIR=claude_env["CLAUDE_CONFIG_DIR"],
        CCARCHIVE_HOME=str(tmp_path / "empty-data"),
    )
    for env in (no_ccarchive, no_index):
        for event_name, _, hook in hook_commands():
            proc = _run(hook["command"], events[event_name], env, str(tmp_path))
            assert proc.returncode == 0 and proc.stdout == b"", (event_name, proc)
    assert not (tmp_path / "empty-data").exists()  # hooks never start an index
