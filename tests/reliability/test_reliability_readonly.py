"""Promise: ccarchive never creates, changes or deletes anything under the archive.

Every command (index, index --rebuild, index --watch, search, status, show, sessions,
demo, serve over stdio with tool calls, both hooks) and every pane of the app run
against an archive made read-only (chmod -R a-w). Tests often run as root, where
permissions stop no write, so two checks do not rely on them:

* a full manifest of the archive (every path, its type, mode, size, mtime and sha256;
  symlink targets; directory mtimes, which change when an entry is added or removed)
  taken before and compared after;
* a Python audit hook in every ccarchive process that records any open for writing,
  mkdir, rename, remove, chmod, utime or truncate under the archive, even of a file
  created and removed again (the manifest could not see that).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]

AUDIT = textwrap.dedent("""
    import os, sys
    ARCHIVE = os.path.realpath(os.environ["CCA_ARCHIVE"])
    LOG = os.environ["CCA_AUDIT_LOG"]
    WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    EVENTS = {"os.mkdir", "os.rename", "os.replace", "os.remove", "os.rmdir", "os.chmod",
              "os.chown", "os.utime", "os.truncate", "os.symlink", "os.link",
              "shutil.rmtree", "shutil.move", "os.chflags", "os.setxattr",
              "os.removexattr"}

    def _under(p):
        try:
            p = os.fsdecode(p) if not isinstance(p, int) else None
        except Exception:
            return False
        if not p:
            return False
        p = os.path.realpath(p)
        return p == ARCHIVE or p.startswith(ARCHIVE + os.sep)

    def hook(event, args):
        bad = None
        if event == "open" and args and _under(args[0]):
            mode, flags = args[1], args[2]
            if (isinstance(mode, str) and any(c in mode for c in "wax+")) or \\
                    (isinstance(flags, int) and flags & WRITE_FLAGS):
                bad = (event, str(args[0]), str(mode), flags)
        elif event in EVENTS and args and any(_under(a) for a in args[:2]
                                              if isinstance(a, (str, bytes, os.PathLike))):
            bad = (event, *map(str, args[:2]))
        if bad:
            with open(LOG, "a") as f:
                f.write(repr(bad) + "\\n")

    sys.addaudithook(hook)
""")

LAUNCH = AUDIT + textwrap.dedent("""
    code = os.environ.get("CCA_CODE")
    if code:
        exec(compile(code, "<cca>", "exec"))
    elif os.environ.get("CCA_FORK"):
        exec(compile(os.environ["CCA_FORK"], "<cca-fork>", "exec"))
    else:
        from ccarchive.cli.main import main
        sys.argv = ["ccarchive", *sys.argv[1:]]
        main()
""")

FORKS = textwrap.dedent("""
    # What the commands import, imported once (audited too); then each command a process
    # of its own, forked from this one, whose exit status is told back on stdout.
    import json
    import ccarchive.cli.main, ccarchive.cli.format, ccarchive.service
    import ccarchive.index.indexer, ccarchive.hooks.main

    for line in sys.stdin:
        ask = json.loads(line)
        pid = os.fork()
        if pid == 0:
            os.dup2(os.open(ask["stdin"], os.O_RDONLY), 0)
            for fd, name in ((1, ask["stdout"]), (2, ask["stderr"])):
                os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
            sys.stdin = open(0, closefd=False)
            sys.stdout = open(1, "w", closefd=False)
            sys.stderr = open(2, "w", closefd=False)
            sys.argv = ["ccarchive", *ask["args"]]
            ccarchive.cli.main.main()  # exits, as the command does in a process of its own
            raise SystemExit(0)  # (click always exits: a child never reads the parent's loop)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        print(json.dumps({"returncode": code}), flush=True)
""")

PILOT = textwrap.dedent("""
    import asyncio
    from pathlib import Path
    from ccarchive.config import Settings
    from ccarchive.tui.app import PANES, make_app

    async def visit():
        s = Settings(Path(os.environ["CCA_ARCHIVE"]), Path(os.environ["CCA_DATA"]))
        app = make_app(s)  # the real thing: it indexes and watches the archive
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(100):
                await pilot.pause(0.05)
                if app.live.state.watching and not app.live.state.indexing:
                    break
            app.screen.query_one("#query").value = "flaky"
            await pilot.pause(0.3)
            for n, (mode, *_r) in enumerate(PANES, start=1):
                await pilot.press(f"f{n}")
                await pilot.pause(0.2)
                assert app.current_mode == mode, (app.current_mode, mode)
                for key in ("down", "enter"):
                    await pilot.press(key)
                await pilot.pause(0.1)
            await app.workers.wait_for_complete()
            print("visited", ",".join(p[0] for p in PANES), flush=True)

    asyncio.run(visit())
""")


def manifest(root: Path) -> dict[str, tuple]:
    out: dict[str, tuple] = {}
    for d, dirs, files in os.walk(root, followlinks=False):
        for name in [*dirs, *files]:
            p = Path(d, name)
            st = p.lstat()
            rel = p.relative_to(root).as_posix()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", st.st_mode, st.st_mtime_ns)
            else:
                out[rel] = (
                    "file",
                    st.st_mode,
                    st.st_size,
                    st.st_mtime_ns,
                    hashlib.sha256(p.read_bytes()).hexdigest(),
                )
    st = root.stat()
    out["."] = ("dir", st.st_mode, st.st_mtime_ns)
    return out


@pytest.fixture
def readonly_archive(demo_archive: Path, tmp_path: Path):
    """The demo archive copy, with a few awkward entries, made read-only."""
    proj = next((demo_archive / "projects").iterdir())
    (proj / "loop").symlink_to(proj)  # a symlink loop
    (demo_archive / "debug").mkdir(exist_ok=True)
    (demo_archive / "debug" / "log.txt").write_text("not indexed\n")
    for d, dirs, files in os.walk(demo_archive):
        for name in [*dirs, *files]:
            p = Path(d, name)
            if not p.is_symlink():
                p.chmod(p.stat().st_mode & ~0o222)
    demo_archive.chmod(demo_archive.stat().st_mode & ~0o222)
    before = manifest(demo_archive)
    yield demo_archive, before
    for d, _dirs, _files in os.walk(demo_archive):  # let pytest clean up
        os.chmod(d, 0o755)


def _env(archive: Path, data: Path, log: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CCA_ARCHIVE": str(archive),
        "CCA_DATA": str(data),
        "CCA_AUDIT_LOG": str(log),
        "PYTHONUNBUFFERED": "1",
        "CLAUDE_CONFIG_DIR": str(archive),
        "CCARCHIVE_HOME": str(data),
        **extra,
    }


def _run(
    launcher: Path, env: dict[str, str], *args: str, stdin: str = "", ok: bool = True
) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(
        [sys.executable, str(launcher), *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return _checked(args, r, ok)


def _checked(
    args: tuple[str, ...], r: subprocess.CompletedProcess[str], ok: bool
) -> subprocess.CompletedProcess[str]:
    assert "Traceback" not in r.stderr, (args, r.stderr)
    if ok:
        assert r.returncode == 0, (args, r.stderr)
    return r


class Forks:
    """The one-shot commands, each a process of its own, forked from one audited process
    that imported what they import: a Python start and ~0.25 CPU-s of imports once, not
    once a command. Each still runs from `main()` to its exit (its `atexit` too) with its
    own stdin, stdout and stderr, and what it writes is audited and in the manifest."""

    def __init__(self, launcher: Path, env: dict[str, str], folder: Path) -> None:
        self.folder = folder
        self.proc = subprocess.Popen(
            [sys.executable, str(launcher)],
            env={**env, "CCA_FORK": FORKS},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.n = 0

    def run(self, *args: str, stdin: str = "", ok: bool = True) -> subprocess.CompletedProcess[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.n += 1
        files = {k: self.folder / f"{self.n}.{k}" for k in ("stdin", "stdout", "stderr")}
        files["stdin"].write_text(stdin)
        ask = {"args": list(args), **{k: str(v) for k, v in files.items()}}
        self.proc.stdin.write(json.dumps(ask) + "\n")
        self.proc.stdin.flush()
        told = self.proc.stdout.readline()
        assert told, f"the process that forks the commands ended: {args}"
        r = subprocess.CompletedProcess(
            list(args),
            json.loads(told)["returncode"],
            files["stdout"].read_text(),
            files["stderr"].read_text(),
        )
        return _checked(args, r, ok)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        assert self.proc.wait(30) == 0


@pytest.mark.long
async def test_every_command_and_pane_leaves_the_archive_untouched(
    readonly_archive: tuple[Path, dict], tmp_path: Path
) -> None:
    archive, before = readonly_archive
    data = tmp_path / "data"
    log = tmp_path / "audit.log"
    launcher = tmp_path / "launch.py"
    launcher.write_text(LAUNCH)
    env = _env(archive, data, log)
    # the audit hook itself works: a write under the archive is recorded
    probe = {**env, "CCA_CODE": "open(os.path.join(ARCHIVE, 'probe'), 'w')"}
    subprocess.run([sys.executable, str(launcher)], env=probe, capture_output=True)
    assert "probe" in log.read_text()
    log.unlink()
    if os.geteuid() != 0:  # permissions do stop writes: the probe failed, nothing made
        assert not (archive / "probe").exists()
        assert manifest(archive) == before
    else:  # as root the write went through, and the manifest sees it
        assert manifest(archive) != before
        (archive / "probe").unlink()
        before = manifest(archive)

    ran: list[str] = []
    T0 = time.monotonic()

    (tmp_path / "io").mkdir()
    forks = Forks(launcher, env, tmp_path / "io")

    def run(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
        ran.append(" ".join(args[:2]))
        print(round(time.monotonic() - T0, 1), args[:2], flush=True)
        return forks.run(*args, **kw)  # type: ignore[arg-type]

    run("index")
    run("index", "--rebuild")
    out = json.loads(run("index", "--json").stdout)
    assert out["files_read"] == 0  # nothing changed since
    hits = json.loads(run("search", "--json", "--all-kinds", "flaky").stdout)["hits"]
    assert hits
    run("search", "flaky OR walker", "--group")
    run("status")
    run("status", "--json")
    sid = next(h["session_id"] for h in hits if h["session_id"])
    run("show", sid)
    run("show", hits[0]["id"], "--json")
    run("sessions")
    run("sessions", "--json")
    demo_data = tmp_path / "demo-data"
    r = run("demo", "--no-open", "--data-dir", str(demo_data))
    assert str(demo_data) in r.stderr and (demo_data / "demo-archive" / "projects").is_dir()
    hook_in = json.dumps(
        {
            "session_id": "x",
            "cwd": "/home/ana/tally",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "why is the walker test flaky",
        }
    )
    run("hook", "user-prompt-submit", stdin=hook_in)
    run(
        "hook",
        "session-start",
        stdin=json.dumps(
            {
                "session_id": "x",
                "cwd": "/home/ana",
                "hook_event_name": "SessionStart",
                "source": "startup",
            }
        ),
    )
    # refused: a data dir inside the archive
    r = run("index", "--data-dir", str(archive / "cache"), ok=False)
    assert r.returncode != 0 and "never writes into the archive" in r.stderr
    forks.close()
    # index --watch: up, one full pass, stopped
    proc = subprocess.Popen(
        [sys.executable, str(launcher), "index", "--watch"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    for line in proc.stdout:
        if "full pass" in line or time.monotonic() > deadline:
            break
    proc.terminate()
    rest = proc.communicate(timeout=20)[0]
    assert "Traceback" not in rest and "stopped" in rest
    ran.append("index --watch")
    print(round(time.monotonic() - T0, 1), "index --watch", flush=True)
    # serve over stdio, with tool calls
    params = StdioServerParameters(command=sys.executable, args=[str(launcher), "serve"], env=env)
    async with Client(params) as c:
        for tool, args in [
            ("search", {"query": "flaky", "include_active": True}),
            ("get_session", {"session_id": sid, "limit": 3}),
            ("get_entries", {"ids": [hits[0]["id"]]}),
            ("list_projects", {}),
            ("list_plans", {}),
            ("list_memory_files", {}),
            ("search_history", {}),
            ("timeline", {"days": 3660}),
            ("status", {}),
        ]:
            res = await c.call_tool(tool, args)
            assert not res.is_error, (tool, res.content)
    ran.append("serve")
    print(round(time.monotonic() - T0, 1), "serve", flush=True)
    # every pane of the app, which indexes and watches the archive itself
    r = _run(launcher, {**env, "CCA_CODE": PILOT})
    assert "visited search,replay,timeline,plans,projects,prompts,live" in r.stdout
    ran.append("app panes")
    print(round(time.monotonic() - T0, 1), "app panes", flush=True)

    assert not log.exists(), log.read_text()  # no write was even attempted
    after = manifest(archive)
    assert after == before, sorted(set(after.items()) ^ set(before.items()))[:10]
    assert len(ran) >= 18
