"""Redaction on real transcripts: what it costs, and what it takes away that is no secret.

Not run by default (and not a timed test). Run it with:

    .venv/bin/python -m pytest tests/benchmarks/bench_redact.py -m benchmark -s
    .venv/bin/python -m tests.benchmarks.bench_redact [--show N] [--detect-secrets PYTHON]
    .venv/bin/python -m tests.benchmarks.bench_redact --spans [--size-mb 30] [--rounds 5]

``--spans`` (and the test ``test_secret_spans_throughput``) measures `secret_spans` as
the indexer calls it (``cached=False``, one call per text) over three sets of texts: the
real transcripts, a generated archive (../shared/corpus/make_archive.py) and the same
generated texts with a planted secret of every shape (`tests.support.secret_shapes`,
`secret_generated`) put at a random offset of one text in eight. Each set is timed as
the median CPU of N rounds beside two baselines of the same run: a plain ``re`` scan of
one literal pattern over the same texts, and ``json.loads`` of the archive's lines with
a walk of their strings. Then ``ccarchive index`` of the generated archive, cold, with
the CPU spent inside `secret_spans` (a timer around it) as its share.

The texts are those the app shows: every unit the indexer extracts (full text, as read
back) from the real Claude Code transcripts in ../shared/corpus/real (6.2 MB, 6,355
texts), plus a 5 MB mix of stdlib source, package READMEs and transcript-like JSONL
(`tests/service/test_redact.py`) that is dense in key/token/password words. It reports
CPU-time throughput of `find_secrets` and `redact` (one call per text, as the app does),
the cost of a hit's snippet (redacting the stored text whole, then cutting), and every
redaction with its context so that a person can judge which are not secrets.

`--detect-secrets PYTHON` runs the same texts through detect-secrets' default plugins
with that interpreter (a venv where `pip install detect-secrets` was run; it is not a
dependency of ccarchive) for comparison.

Measured with ``--spans`` (2-core container shared with other jobs, load average 2-5,
CPython 3.11, 30 MB generated archive, medians of 5 rounds, CPU), before and after the
prefilters of the rules (gates that skip a text, starts that skip its head), the
keyword hits shared by the assignments and the name/value pairs, and the cached
`redact_name`, run back to back:

    secret_spans, x json.loads+walk   before        after
    real transcripts (6.2 MB)         3.0 MB/s x7.1  4.9 MB/s x3.8
    generated (6.2 MB)                2.6 MB/s x7.7  4.9 MB/s x4.6
    generated + planted (6.3 MB)      2.0 MB/s x7.5  3.4 MB/s x4.7
    ccarchive index, cold             4.02 s CPU, 57% in secret_spans
                                      -> 2.53 s CPU, 50% in secret_spans

What is left is spread thin: one ``in`` test per token rule and per context gate on
every text (the token table's ~55 are a quarter of it), the rules that do run, and the
second pass of the contexts over a text printed inside a JSON string.

Measured with the defaults (same container; the search figures on the demo archive):

    real transcripts, 6.2 MB:  find_secrets ~5.6 MB/s, redact ~4.7 MB/s;
                               2 redactions, both `secret_key_base: "dev-only-secret-..."`
                               literals of a Phoenix config (by design: a SECRET-named
                               literal is redacted; judged not real secrets)
    the index's cuts:          563 texts cut (head | tail), 31 pieces redacted at the cut,
                               none a secret: pieces of CamelCase names (SequenceEditors,
                               rmissionError), uuids, hashes and paths
    a search page (demo):      p50 1.1 ms without redaction, 2.8 ms with (each hit's
                               stored text redacted whole), 1.1 ms for texts seen before
    mixed 5 MB:                ~4.3 MB/s; 11-13 redactions (the READMEs are those of
                               the installed packages), docstring examples (pyjwt's
                               JWT, passwd='...' in netrc/ftplib docs): secret-shaped
    detect-secrets 1.5.0:      0.21 MB/s on the real transcripts (0.22 without its two
                               entropy plugins); 177 findings, all false positives: 141
                               hex digests (mix.lock hashes, git SHAs, agent ids), 34
                               base64 ids (msg_/toolu_/req_ ids, csrf tokens, temp
                               paths), the same 2 secret_key_base values; it gives no
                               span (it names the line), no Anthropic keys, no body of
                               a PEM key (only its BEGIN line)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import REAL_CORPUS

pytestmark = pytest.mark.benchmark


def corpus_texts(root: Path = REAL_CORPUS) -> list[str]:
    """Every text the indexer extracts from the real transcripts, whole."""
    from ccarchive.archive.file_summary import FileSummary
    from ccarchive.archive.lines import LineStats, decode_line
    from ccarchive.archive.records import Extractor

    texts = []
    for path in sorted(root.rglob("*.jsonl")):
        ex = Extractor(FileSummary(), is_agent_file=path.name.startswith("agent-"), full_text=True)
        for line in path.read_bytes().split(b"\n"):
            if line.strip():
                for obj in decode_line(line, LineStats()):
                    texts.extend(u.text for u in ex.extract(obj, LineStats()) if u.text)
    return texts


def _cpu(fn, *args, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        fn(*args)
        best = min(best, time.process_time() - t0)
    return best


def measure(texts: list[str], name: str, show: int) -> dict:
    from ccarchive.redact import find_secrets, redact, redact_window

    mb = sum(len(t) for t in texts) / 1e6
    t_find = _cpu(lambda: [find_secrets(t) for t in texts])
    t_red = _cpu(lambda: [redact(t) for t in texts])
    # a hit's snippet: the stored text (capped at 2-32 kB) redacted whole, then cut
    stored = [t[:2000] for t in texts]
    t_snip = _cpu(lambda: [redact_window(t, len(t) // 3, len(t) // 3 + 180) for t in stored])
    found = [(i, s, e, k) for i, t in enumerate(texts) for s, e, k in find_secrets(t)]
    print(f"\n{name}: {len(texts)} texts, {mb:.1f} MB")
    print(
        f"  find_secrets {mb / t_find:6.1f} MB/s   redact {mb / t_red:6.1f} MB/s   "
        f"snippet of a stored text {t_snip / len(texts) * 1e6:5.0f} us"
    )
    print(f"  {len(found)} redactions: {dict(Counter(k for *_, k in found))}")
    for i, s, e, k in found[:show]:
        t = texts[i]
        print(f"    [{k}] {t[max(0, s - 50) : s]!r} << {t[s:e][:60]!r} >> {t[e : e + 20]!r}")
    return {"mb_s_find": mb / t_find, "mb_s_redact": mb / t_red, "redactions": len(found)}


_DS_SCRIPT = r"""
import json, sys, time
from detect_secrets.core.scan import _process_line_based_plugins
from detect_secrets.settings import default_settings
texts = json.load(open(sys.argv[1]))
found = []
with default_settings():
    t0 = time.process_time()
    for t in texts:
        lines = list(enumerate(t.splitlines(), 1))
        found += [(s.type, s.secret_value) for s in _process_line_based_plugins(lines, "x")]
    dt = time.process_time() - t0
print(json.dumps({"seconds": dt, "found": found}))
"""


def detect_secrets(texts: list[str], python: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "texts.json"
        data.write_text(json.dumps(texts))
        r = subprocess.run(
            [python, "-c", _DS_SCRIPT, str(data)], capture_output=True, text=True, check=True
        )
    out = json.loads(r.stdout)
    mb = sum(len(t) for t in texts) / 1e6
    kinds = Counter(k for k, _ in out["found"])
    print(
        f"  detect-secrets: {mb / out['seconds']:.2f} MB/s, {len(out['found'])} findings: "
        f"{dict(kinds)}"
    )


def cut_edges(texts: list[str]) -> None:
    """What the index's cut of long tool output costs: the texts over TOOL_CAP, capped as
    the index keeps them, redacted with the cut as an edge; the pieces taken there."""
    from ccarchive.archive.record_text import TOOL_CAP, cap
    from ccarchive.redact import find_secrets

    capped = [cap(t, TOOL_CAP) for t in texts if len(t) > TOOL_CAP]
    pieces = []
    for c in capped:
        limit = len(c) - 3
        head = limit - limit // 5
        pieces += [
            c[s:e]
            for s, e, k in find_secrets(c, cuts=(head, head + 3))
            if k == "partial" or (s <= head + 3 and e >= head and k == "private-key")
        ]
    print(
        f"  {len(capped)} texts cut by the index, {len(pieces)} pieces redacted at the cut: "
        f"{pieces[:8]}"
    )


def search_cost(
    queries: tuple[str, ...] = (
        "test",
        "error",
        "migration",
        "token",
        "walk",
        "kind:tool_result build",
        "password",
    ),
) -> None:
    """p50 of a search page (20 hits with snippets) on the demo archive, redaction on/off."""
    import statistics

    from ccarchive.demo import write_demo_archive
    from tests.conftest import DEMO_NOW, build_index

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "claude"
        write_demo_archive(root, now=DEMO_NOW)
        svc = build_index(root, Path(tmp) / "data")
        from ccarchive.redact.engine import _settled

        for on, cached in ((False, False), (True, False), (True, True)):
            svc.redact_secrets = on
            times = []
            for _ in range(15):
                for q in queries:
                    if not cached:
                        _settled.cache_clear()
                    t0 = time.perf_counter()
                    svc.search(q, include_tool_results=True, limit=20)
                    times.append(time.perf_counter() - t0)
            print(
                f"  search p50 (20 hits), redaction {'on' if on else 'off'}"
                f"{', texts seen before' if cached else ''}: "
                f"{statistics.median(times) * 1000:.2f} ms"
            )


def test_redaction_cost_and_false_positives() -> None:
    if not REAL_CORPUS.exists():
        pytest.skip("../shared/corpus/real is not present")
    texts = corpus_texts()
    real = measure(texts, "real transcripts", show=50)
    cut_edges(texts)
    from tests.support.corpus import mixed_corpus

    mixed = mixed_corpus(5_000_000)
    measure([mixed[i : i + 2000] for i in range(0, len(mixed), 2000)], "mixed, 2 kB texts", 50)
    search_cost()
    assert real["redactions"] < 50  # a real archive is not redacted wholesale


def generated_archive(out: Path, size_mb: int) -> Path:
    """A generated archive of ``size_mb`` MB (../shared/corpus/make_archive.py, seed 7)."""
    from tests.conftest import MAKE_ARCHIVE

    root = out / "claude"
    subprocess.run(
        [sys.executable, str(MAKE_ARCHIVE), "--out", str(root), "--size-mb", str(size_mb)]
        + ["--seed", "7"],
        check=True,
        capture_output=True,
    )
    return root


def planted_texts(texts: list[str], seed: int = 7) -> list[str]:
    """``texts`` with a planted secret (every shape in turn) inserted at a random offset
    of one text in eight: the detections, the merge and the settling then run too."""
    import random

    from tests.support.secret_generated import GENERATED
    from tests.support.secret_shapes import SHAPES, Gen

    rng = random.Random(seed)
    g = Gen(rng)
    makers = list({**SHAPES, **GENERATED}.values())
    out = []
    for i, t in enumerate(texts):
        if i % 8 == 0:
            at = rng.randrange(len(t) + 1)
            t = f"{t[:at]}\n{makers[(i // 8) % len(makers)](g).text}\n{t[at:]}"
        out.append(t)
    return out


def _json_walk(lines: list[bytes]) -> int:
    """The baseline: parse each line and visit every string in it."""
    n = 0
    stack: list = []
    for line in lines:
        try:
            stack.append(json.loads(line))
        except ValueError:
            continue
        while stack:
            v = stack.pop()
            if isinstance(v, str):
                n += len(v)
            elif isinstance(v, dict):
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)
    return n


def _median_cpus(fns: dict, rounds: int) -> dict[str, float]:
    """The median CPU of each of ``fns``, timed in turn in every round (a drift of the
    machine's load then reaches all of them alike)."""
    import statistics

    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.process_time()
            fn()
            times[name].append(time.process_time() - t0)
    return {name: statistics.median(v) for name, v in times.items()}


def spans_throughput(size_mb: int = 30, rounds: int = 5) -> dict[str, float]:
    """`secret_spans` over the real, generated and planted texts, with baselines."""
    import os
    import re

    from ccarchive.redact import secret_spans

    print(f"\nuptime: {os.popen('uptime').read().strip()}")
    literal = re.compile(r"sk-ant-")
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = generated_archive(Path(tmp), size_mb)
        gen = corpus_texts(root)
        lines = [
            line for p in sorted(root.rglob("*.jsonl")) for line in p.read_bytes().splitlines()
        ]
        print(f"generated archive {size_mb} MB: {len(lines)} lines; medians of {rounds} rounds")
        sets = [("real transcripts", corpus_texts()), ("generated", gen)]
        sets.append(("generated + planted", planted_texts(gen)))
        for name, texts in sets:
            mb = sum(map(len, texts)) / 1e6
            for t in texts:  # compile what these texts need before timing
                secret_spans(t, cached=False)
            cpu = _median_cpus(
                {
                    "json": lambda: _json_walk(lines),
                    "re": lambda texts=texts: [literal.search(t) for t in texts],
                    "spans": lambda texts=texts: [secret_spans(t, cached=False) for t in texts],
                },
                rounds,
            )
            t_sp = cpu["spans"]
            found = sum(bool(secret_spans(t, cached=False)) for t in texts)
            print(
                f"  {name:20s} {len(texts):6d} texts {mb:5.1f} MB: secret_spans "
                f"{t_sp:.3f} s = {len(texts) / t_sp:5.0f} texts/s {mb / t_sp:4.1f} MB/s; "
                f"x{t_sp / cpu['json']:.2f} json.loads+walk of the archive ({cpu['json']:.3f} s), "
                f"x{t_sp / cpu['re']:.0f} a one-literal re scan ({cpu['re'] * 1000:.1f} ms); "
                f"{found} texts with secrets"
            )
            results[name] = mb / t_sp
        results["index_share"] = index_share(root)
    return results


def index_share(root: Path) -> float:
    """``ccarchive index`` of ``root``, cold: CPU, and the share spent in `secret_spans`."""
    from ccarchive.redact import engine
    from tests.conftest import build_index

    inside = [0.0]
    original = engine.secret_spans

    def timed(*args, **kwargs):
        t0 = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            inside[0] += time.process_time() - t0

    engine.secret_spans = timed  # every redaction of the indexer goes through it
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t0, w0 = time.process_time(), time.perf_counter()
            build_index(root, Path(tmp) / "data")
            cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    finally:
        engine.secret_spans = original
    print(
        f"  ccarchive index (cold): wall {wall:.2f} s, CPU {cpu:.2f} s, of which "
        f"secret_spans {inside[0]:.2f} s ({inside[0] / cpu:.0%})"
    )
    return inside[0] / cpu


def test_secret_spans_throughput() -> None:
    from tests.conftest import MAKE_ARCHIVE

    if not REAL_CORPUS.exists() or not MAKE_ARCHIVE.exists():
        pytest.skip("../shared/corpus is not present")
    spans_throughput()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spans", action="store_true", help="secret_spans throughput only")
    ap.add_argument("--size-mb", type=int, default=30, help="generated archive (--spans)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of each timing (--spans)")
    ap.add_argument("--show", type=int, default=50, help="redactions listed per corpus")
    ap.add_argument(
        "--detect-secrets",
        metavar="PYTHON",
        help="an interpreter with detect-secrets installed, for comparison",
    )
    args = ap.parse_args()
    if args.spans:
        spans_throughput(args.size_mb, args.rounds)
        return
    texts = corpus_texts()
    measure(texts, "real transcripts", args.show)
    cut_edges(texts)
    if args.detect_secrets:
        detect_secrets(texts, args.detect_secrets)
    from tests.support.corpus import mixed_corpus

    mixed = mixed_corpus(5_000_000)
    measure(
        [mixed[i : i + 2000] for i in range(0, len(mixed), 2000)], "mixed, 2 kB texts", args.show
    )
    print("\ndemo archive:")
    search_cost()


if __name__ == "__main__":
    sys.exit(main())
