"""The Claude Code hooks' time, whole process, as Claude Code runs them, and where it goes.

    .venv/bin/python -m pytest tests/benchmarks/bench_hooks.py -m benchmark -s

Claude Code starts a new process for every prompt (UserPromptSubmit) and every session
(SessionStart), and waits for it before the prompt reaches the model: what counts is the
whole process, from `bash -c "<the plugin's command>"` to its exit. Budgets (issue 22):
warm <= 100 ms median on a 350 MB archive, cold <= 300 ms.

Each hook is timed two ways: *through serve*, with a `ccarchive serve` running over the
archive (as the plugin runs it for the whole session: the hook asks its hook server), and
*in process*, with none (the hook opens the index itself; a copy of the same index in
another data dir, so that both are timed in the same rounds). And each from two
installs: *installed*, ccarchive built as a wheel into a throwaway venv, as the README's
`pipx install /path/to/ccarchive` installs it (its dependencies reached through a `.pth`
to this venv's), and *editable*, this venv (whose setuptools import finder every Python
start pays for).

The archive is generated (`make_archive.py --size-mb $CCARCHIVE_BENCH_HOOK_MB`, 350 by
default, with planted facts) and indexed once; CCARCHIVE_BENCH_ARCHIVE and
CCARCHIVE_BENCH_DATA point at an existing pair instead. Every figure is a median of
$CCARCHIVE_BENCH_RUNS runs (15), taken in rounds that run each command once in turn, so
the machine's load weighs on all of them alike, beside baselines measured in the same
rounds: `python -c pass` of each install (the interpreter and site) and
`python -c "import tantivy"` (the one extension a hook in its own process cannot do
without).

- *warm*: the index and the code in the page cache, bytecode compiled: every prompt
  after the first;
- *cold*: the first run after the page cache of the index and of every file the hook
  imports was dropped (`posix_fadvise(DONTNEED)`, what a user without root can drop:
  pages another process has mapped, such as the index a running serve has open, stay);
- *cold, no bytecode*: also no `.pyc` (an empty `PYTHONPYCACHEPREFIX`): every module
  compiled from source, the worst first run (a fresh install whose installer did not
  compile).

Then where a warm run's time goes: the hook server's answer alone (a client in this
process), the steps of a hook in its own process (import the entry, open the index,
build the context, write it out), and the modules whose import costs most on each path
(`python -X importtime`, medians).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from ccarchive.config import Settings
from ccarchive.hooks.channel import socket_path
from ccarchive.hooks.client import Answer, ask_server
from tests.conftest import MAKE_ARCHIVE

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_HOOKS = ROOT / ".claude-plugin" / "ccarchive" / "hooks" / "hooks.json"
VENV_BIN = Path(sys.executable).parent
SIZE_MB = int(os.environ.get("CCARCHIVE_BENCH_HOOK_MB", "350"))
RUNS = int(os.environ.get("CCARCHIVE_BENCH_RUNS", "15"))
COLD_RUNS = max(3, RUNS // 3)
WARM_BUDGET_MS = 100.0
COLD_BUDGET_MS = 300.0
HOOK_NAMES = {"UserPromptSubmit": "user-prompt-submit", "SessionStart": "session-start"}

ENTRY_MODULE = "ccarchive.hooks.main, ccarchive.hooks.context"
"""The modules a hook process imports to answer in its own process (its entry imports the
second when no server answers)."""
FAST_MODULES = "ccarchive.hooks.main, ccarchive.locations, ccarchive.hooks.client, socket"
"""What a hook process imports to ask the hook server."""
SERVE_READY_S = 60.0
SERVE_PID: list[int] = []
"""The running serve's pid (set by the `places` fixture), whose CPU time is read."""


def _cpu_ms(pid: int) -> float:
    """CPU time (user + system) a process has used so far, in ms (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


STEPS_PROBE = r"""
import sys, time, json
t0 = time.perf_counter()
import gc
gc.disable()
import orjson
from ccarchive.config import Settings
from ccarchive.hooks.channel import socket_path
from ccarchive.hooks.client import Answer, ask_server
from ccarchive.hooks.context import prompt_context, session_start_context
from ccarchive.hooks.main import existing_service
t1 = time.perf_counter()
event = json.loads(sys.argv[3])
service = existing_service(Settings.resolve(sys.argv[1], sys.argv[2]))
t2 = time.perf_counter()
build = prompt_context if "prompt" in event else session_start_context
text = build(service, event, limit=3, max_chars=1500)
t3 = time.perf_counter()
sys.stdout.buffer.write(
    orjson.dumps({"hookSpecificOutput": {"additionalContext": text}}) + b"\n"
)
sys.stdout.flush()
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "open": t2 - t1, "context": t3 - t2,
                  "output": t4 - t3}), file=sys.stderr)
"""
"""What a hook process does, step by step, timed from inside (stderr: seconds per step)."""


def _ms(seconds: float) -> float:
    return seconds * 1000.0


def _median(xs: Iterable[float]) -> float:
    return statistics.median(list(xs))


@pytest.fixture(scope="module")
def indexed() -> tuple[Path, Path, dict[str, Any]]:
    """(archive, data dir, answers.json) of the generated, indexed archive."""
    given = os.environ.get("CCARCHIVE_BENCH_ARCHIVE")
    if given:
        root = Path(given)
        data = Path(os.environ.get("CCARCHIVE_BENCH_DATA", str(root.parent / "data")))
    else:
        if not MAKE_ARCHIVE.exists():
            pytest.skip("../shared/corpus/make_archive.py is not present")
        out = Path(tempfile.mkdtemp(prefix="ccarchive-bench-hooks-"))
        root, data = out / "claude", out / "data"
        subprocess.run(
            [sys.executable, str(MAKE_ARCHIVE), "--out", str(root), "--size-mb", str(SIZE_MB)]
            + ["--needles", "20", "--seed", "7"],
            check=True,
            capture_output=True,
        )
    if not list(
        Settings(root.resolve(), data.resolve()).archive_data_dir.glob("index-v*/complete")
    ):
        subprocess.run(
            [str(VENV_BIN / "ccarchive"), "index", "--archive", str(root), "--data-dir", str(data)]
            + ["--json"],
            check=True,
            capture_output=True,
        )
    answers_path = root.parent / "answers.json"
    if not (root.parent / "answers.json").exists() and (data.parent / "answers.json").exists():
        answers_path = data.parent / "answers.json"
    answers = json.loads(answers_path.read_text()) if answers_path.exists() else {"needles": []}
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 1e6
    print(f"\narchive {root}: {size:,.0f} MB; index {data}")
    return root, data, answers


def _events(answers: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """The measured cases: (hook, event) by name."""
    needle = next(n for n in answers["needles"] if n.get("kind") == "transcript")
    base = {"session_id": "0b7c6f3e-1d2a-4e5f-8a9b-0c1d2e3f4a5b", "cwd": needle["project"]}
    return {
        "prompt, a fact found": ("UserPromptSubmit", {**base, "prompt": needle["query"]}),
        "prompt, searched, nothing": (
            "UserPromptSubmit",
            {**base, "prompt": "how long should I boil an egg for a runny yolk"},
        ),
        "prompt, a request (quiet)": (
            "UserPromptSubmit",
            {**base, "prompt": "add pagination to the users list endpoint"},
        ),
        "session start": ("SessionStart", {**base, "source": "startup"}),
    }


def _plugin_commands() -> dict[str, str]:
    """Each event's shell command, exactly as hooks.json gives it to Claude Code."""
    hooks = json.loads(PLUGIN_HOOKS.read_text())["hooks"]
    return {event: groups[0]["hooks"][0]["command"] for event, groups in hooks.items()}


def _env(root: Path, data: Path, bin_dir: Path = VENV_BIN, **extra: str) -> dict[str, str]:
    """Claude Code's view: the archive in CLAUDE_CONFIG_DIR, the data dir in
    CCARCHIVE_HOME, the install's commands on PATH, bytecode written and read as usual
    (whatever the shell running the benchmark says)."""
    inherited = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "CCARCHIVE_HOOK_TRACE")
    }
    return {
        **inherited,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "CLAUDE_CONFIG_DIR": str(root),
        "CCARCHIVE_HOME": str(data),
        **extra,
    }


class Run(NamedTuple):
    """One process: wall time and CPU time (user + system; less sensitive than the wall
    to the other jobs sharing the machine), in ms, and what it printed."""

    wall: float
    cpu: float
    stdout: bytes


def _timed(argv: list[str], stdin: bytes, env: dict[str, str]) -> Run:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert proc.returncode == 0, proc.stderr
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(_ms(elapsed), _ms(cpu), proc.stdout)


def _rounds(cases: dict[str, Callable[[], Run]], runs: int) -> dict[str, list[Run]]:
    """Each case once per round, `runs` rounds (one warm-up round first, not counted)."""
    times: dict[str, list[Run]] = defaultdict(list)
    for r in range(runs + 1):
        for name, run in cases.items():
            got = run()
            if r:
                times[name].append(got)
    return times


def _report(title: str, times: dict[str, list[Run]], budget: float | None = None) -> None:
    n = len(next(iter(times.values())))
    print(f"\n{title}: median of {n}, load {os.getloadavg()[0]:.1f}")
    print(f"  {'':<58} {'wall ms':>8} {'min':>7} {'max':>7} {'CPU ms':>8}")
    for name, runs in times.items():
        wall = [r.wall for r in runs]
        mark = ""
        if budget is not None and not name.startswith("baseline"):
            mark = "  within budget" if _median(wall) <= budget else f"  over {budget:.0f} ms"
        print(
            f"  {name:<58} {_median(wall):8.1f} {min(wall):7.1f} {max(wall):7.1f}"
            f" {_median(r.cpu for r in runs):8.1f}{mark}"
        )


# ---- the installs, the serve, the two data dirs ----------------------------------------
@pytest.fixture(scope="module")
def installs() -> Iterator[dict[str, Path]]:
    """Each install's bin folder: `installed` (a wheel of this checkout in a throwaway
    venv, as pipx installs it; left out, with the reason, if it cannot be built) and
    `editable` (this venv)."""
    out = Path(tempfile.mkdtemp(prefix="ccarchive-bench-install-"))
    bins = {}
    try:
        venv = out / "venv"
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(venv)],
            check=True,
            capture_output=True,
        )
        site = next((venv / "lib").glob("python*/site-packages"))
        # the dependencies: this interpreter's site-packages folders (their own .pth
        # files are not read from there: no editable finder comes along)
        deps = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
        (site / "zz-dependencies.pth").write_text("\n".join(deps) + "\n")
        src = out / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, src / name)
        for name in ("app", "styles"):
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        built = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", str(src)],
            capture_output=True,
            text=True,
        )
        if built.returncode == 0:
            bins["installed"] = venv / "bin"
        else:
            print(f"\n(no non-editable install: pip said {built.stderr[-500:]})")
        bins["editable"] = VENV_BIN
        yield bins
    finally:
        shutil.rmtree(out, ignore_errors=True)


@pytest.fixture(scope="module")
def places(indexed: tuple[Path, Path, dict[str, Any]]) -> Iterator[dict[str, Path]]:
    """The data dir for each way: `through serve` (the index a running `ccarchive serve`
    holds, started here and stopped at the end) and `in process` (a copy of that index
    in another data dir, which no serve answers for)."""
    root, data, _ = indexed
    alone = Path(tempfile.mkdtemp(prefix="ccarchive-bench-alone-")) / "data"
    shutil.copytree(data, alone, ignore=shutil.ignore_patterns("hook"))
    settings = Settings.resolve(root, data)
    sock = socket_path(str(settings.archive_data_dir))
    assert sock is not None
    # as the plugin runs it: stdio, its stdin held open by the client (here: this pipe)
    serve = subprocess.Popen(
        [str(VENV_BIN / "ccarchive"), "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=_env(root, data),
    )
    try:
        deadline = time.monotonic() + SERVE_READY_S
        ask = {"event_name": "SessionStart", "raw": b"{}", "limit": 3, "max_chars": 1500}
        while not isinstance(ask_server(str(settings.archive_data_dir), **ask), Answer):
            assert serve.poll() is None, serve.stderr.read() if serve.stderr else ""
            assert time.monotonic() < deadline, "the serve's hook server did not start"
            time.sleep(0.05)
        # its first pass over the archive (everything indexed: a walk and no commit)
        time.sleep(float(os.environ.get("CCARCHIVE_BENCH_SERVE_SETTLE", "8")))
        print(f"\nserve pid {serve.pid}, hook server on {sock}")
        SERVE_PID[:] = [serve.pid]
        yield {"through serve": data, "in process": alone}
    finally:
        assert serve.stdin is not None
        serve.stdin.close()  # the client went away: the serve exits, removing its socket
        try:
            serve.wait(30)
        except subprocess.TimeoutExpired:
            serve.kill()
        shutil.rmtree(alone.parent, ignore_errors=True)


def _ways(
    root: Path, installs: dict[str, Path], places: dict[str, Path]
) -> dict[str, dict[str, str]]:
    """The environment of each (install, way) pair, by label."""
    return {
        f"{install}, {way}": _env(root, data, bin_dir)
        for install, bin_dir in installs.items()
        for way, data in places.items()
    }


def _baselines(root: Path, installs: dict[str, Path]) -> dict[str, Callable[[], Run]]:
    env = _env(root, root)
    cases: dict[str, Callable[[], Run]] = {}
    for install, bin_dir in installs.items():
        py = str(bin_dir / "python")
        cases[f"baseline: python -c pass ({install})"] = lambda py=py: _timed(
            [py, "-c", "pass"], b"", env
        )
    cases["baseline: python -c 'import tantivy' (editable)"] = lambda: _timed(
        [sys.executable, "-c", "import tantivy"], b"", env
    )
    return cases


def _hook_cases(
    root: Path, answers: dict[str, Any], ways: dict[str, dict[str, str]]
) -> dict[str, Callable[[], Run]]:
    commands = _plugin_commands()
    bash = shutil.which("bash") or "bash"
    cases: dict[str, Callable[[], Run]] = {}
    for name, (event_name, event) in _events(answers).items():
        stdin = json.dumps(event).encode()
        cmd = commands[event_name]
        for way, env in ways.items():
            cases[f"{way}: {name}"] = lambda cmd=cmd, stdin=stdin, env=env: _timed(
                [bash, "-c", cmd], stdin, env
            )
    return cases


@pytest.mark.benchmark
def test_warm_whole_process(
    indexed: tuple[Path, Path, dict[str, Any]],
    installs: dict[str, Path],
    places: dict[str, Path],
) -> None:
    root, _data, answers = indexed
    ways = _ways(root, installs, places)
    cases = _hook_cases(root, answers, ways)
    # the fact is there, and both ways say the same
    said = {name: run().stdout for name, run in cases.items() if "a fact found" in name}
    assert all(said.values()), "the needle's question added nothing"
    assert len(set(said.values())) == 1, "the server and the hook's own process differ"
    serve_cpu = _cpu_ms(SERVE_PID[0])
    times = _rounds({**_baselines(root, installs), **cases}, RUNS)
    serve_cpu = _cpu_ms(SERVE_PID[0]) - serve_cpu
    _report("Hooks, warm, whole process (bash -c <hooks.json command>)", times, WARM_BUDGET_MS)
    served = sum(1 for name in cases if "through serve" in name) * (RUNS + 1)
    print(
        f"  the serve's CPU time for them: {serve_cpu / served:.1f} ms a request "
        f"({serve_cpu:.0f} ms for {served}, its idle watching included): add it to the "
        "CPU ms of a run through serve for the whole work"
    )


def _loaded_files(python: str, root: Path, data: Path, event: dict[str, Any]) -> list[str]:
    """Every file a hook process of this interpreter reads on either path: its modules
    (source, bytecode, extensions), the interpreter, and the index's files."""
    probe = (
        STEPS_PROBE
        + "\nimport importlib.util\nimport ccarchive.hooks.client, socket\nfiles = set()\n"
        + "for m in list(sys.modules.values()):\n"
        + "    f = getattr(m, '__file__', None)\n"
        + "    if f:\n"
        + "        files.add(f)\n"
        + "        if f.endswith('.py'):\n"
        + "            files.add(importlib.util.cache_from_source(f))\n"
        + "files.add(os.path.realpath(sys.executable))\n"
        + "print(json.dumps(sorted(files)))\n"
    )
    out = subprocess.run(
        [python, "-c", "import os\n" + probe, str(root), str(data), json.dumps(event)],
        capture_output=True,
        check=True,
        text=True,
    )
    modules = json.loads(out.stdout.splitlines()[-1])
    index = [str(p) for p in data.rglob("*") if p.is_file()]
    return [f for f in modules + index if os.path.isfile(f)]


def _drop_from_page_cache(files: Iterable[str]) -> None:
    for f in files:
        try:
            fd = os.open(f, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


@pytest.mark.benchmark
def test_cold_whole_process(
    indexed: tuple[Path, Path, dict[str, Any]],
    installs: dict[str, Path],
    places: dict[str, Path],
) -> None:
    root, _data, answers = indexed
    commands = _plugin_commands()
    bash = shutil.which("bash") or "bash"
    events = _events(answers)
    ways = _ways(root, installs, places)
    files = sorted(
        {
            f
            for bin_dir in installs.values()
            for data in places.values()
            for _, event in events.values()
            for f in _loaded_files(str(bin_dir / "python"), root, data, event)
        }
    )
    times: dict[str, list[Run]] = defaultdict(list)
    for _ in range(COLD_RUNS):
        for name, (event_name, event) in events.items():
            stdin = json.dumps(event).encode()
            argv = [bash, "-c", commands[event_name]]
            for way, env in ways.items():
                _drop_from_page_cache(files)
                times[f"cold, {way}: {name}"].append(_timed(argv, stdin, env))
                if not way.startswith("installed"):
                    continue
                with tempfile.TemporaryDirectory() as empty:
                    no_pyc = {**env, "PYTHONPYCACHEPREFIX": empty, "PYTHONDONTWRITEBYTECODE": "1"}
                    times[f"cold, no bytecode, {way}: {name}"].append(_timed(argv, stdin, no_pyc))
        for install, bin_dir in installs.items():
            _drop_from_page_cache(files)
            times[f"baseline: python -c pass, cold ({install})"].append(
                _timed([str(bin_dir / "python"), "-c", "pass"], b"", _env(root, root))
            )
        _drop_from_page_cache(files)
        times["baseline: python -c 'import tantivy', cold (editable)"].append(
            _timed([sys.executable, "-c", "import tantivy"], b"", _env(root, root))
        )
    print(f"\n({len(files)} files dropped from the page cache before each cold run)")
    _report("Hooks, cold, whole process", times, COLD_BUDGET_MS)


@pytest.mark.benchmark
def test_where_a_warm_run_goes(
    indexed: tuple[Path, Path, dict[str, Any]], places: dict[str, Path]
) -> None:
    root, _data, answers = indexed
    alone = places["in process"]
    env = _env(root, alone)
    steps: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    walls: dict[str, list[float]] = defaultdict(list)
    served: dict[str, list[float]] = defaultdict(list)
    baseline: list[float] = []
    served_dir = str(Settings.resolve(root, places["through serve"]).archive_data_dir)
    for r in range(RUNS + 1):
        ms_pass = _timed([sys.executable, "-c", "pass"], b"", env)
        for name, (event_name, event) in _events(answers).items():
            raw = json.dumps(event).encode()
            t = time.perf_counter()
            answer = ask_server(served_dir, event_name, raw, limit=3, max_chars=1500)
            asked = _ms(time.perf_counter() - t)
            assert isinstance(answer, Answer), answer
            t = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-c", STEPS_PROBE, str(root), str(alone), json.dumps(event)],
                capture_output=True,
                env=env,
                check=True,
            )
            wall = _ms(time.perf_counter() - t)
            if r:
                served[name].append(asked)
                walls[name].append(wall)
                for step, s in json.loads(proc.stderr.decode().splitlines()[-1]).items():
                    steps[name][step].append(_ms(s))
        if r:
            baseline.append(ms_pass.wall)
    print(f"\nWhere a warm run goes (median of {RUNS}; {os.getloadavg()[0]:.1f} load)")
    print(f"  python -c pass (start and exit of the interpreter): {_median(baseline):6.1f} ms")
    print("  through serve: the hook server's answer, asked from a warm process:")
    for name, times in served.items():
        print(f"    {name:<28} {_median(times):6.1f} ms")
    print("  in process:")
    for name, by_step in steps.items():
        parts = "  ".join(f"{k} {_median(v):6.1f}" for k, v in by_step.items())
        print(f"    {name:<28} whole {_median(walls[name]):6.1f} ms = start + {parts}")
    _import_profile(env, FAST_MODULES, "asking the server")
    _import_profile(env, ENTRY_MODULE, "in process")


def _import_profile(env: dict[str, str], modules: str, what: str) -> None:
    """The costliest modules of these imports: `-X importtime`, medians of RUNS."""
    self_us: dict[str, list[int]] = defaultdict(list)
    cumulative_us: dict[str, list[int]] = defaultdict(list)
    line = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")
    for _ in range(RUNS):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {modules}"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        for m in line.finditer(proc.stderr):
            self_us[m.group(4)].append(int(m.group(1)))
            cumulative_us[m.group(4)].append(int(m.group(2)))
    top = sorted(cumulative_us, key=lambda k: -_median(cumulative_us[k]))
    print(f"\n{what}, import {modules}: the 25 costliest (cumulative, self; median ms)")
    for name in top[:25]:
        print(
            f"  {name:<48} {_median(cumulative_us[name]) / 1000:6.1f}"
            f" {_median(self_us[name]) / 1000:6.1f}"
        )
    print(f"  ({len(cumulative_us)} modules imported)")
