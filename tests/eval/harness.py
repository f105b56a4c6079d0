"""The search-quality harness: known-item queries scored at session and turn level.

Why it exists: ranking is only as good as what it finds for the questions people and agents
really ask, and a change that helps one query can hurt ten others. This harness builds a
realistic archive from the real transcripts in `../shared/corpus/real` (with
`make_archive.py`, so session ids, dates and projects change with the seed while the text
stays the same), then runs two sets of queries through the same `ArchiveService.search` that
every front end calls:

- `queries.jsonl`: hand-written after reading the real transcripts, in categories (topic,
  question, identifier, identifier with context, deep in a long session, a topic many
  sessions share, rewording, plan, prompt). Each names the *source* transcript that answers
  it (a substring of its path in the corpus) and, where one turn answers it, a few words of
  that turn's prompt.
- the planted facts of `make_archive.py --needles` (`answers.json`): a natural-language
  question per fact, with the session it was planted in.

A result counts at session level when a top-10 session is a clone of the answering source;
at turn level when one of the turns shown for the top-10 sessions opens with the answering
prompt. Scores: Recall@10, MRR@10 and Turn@10 (the share of queries whose answering turn is
shown), per category.

Run it on demand (several seeds, never one):

    .venv/bin/python -m tests.eval.harness --seeds 1 2 3

With `--semantic`, each seed is also scored with semantic search on (its vectors built
first, as `ccarchive index --semantic` does), and what that costs is printed: the time to
embed the archive's turns, the query encoding time, the memory of the vectors and the
encoder, the size of the vector store on disk.

With `--blind`, the blind set is scored instead (`blind.py`: queries written from the
transcripts alone, graded by their answering turn), words only and with `--semantic`:

    .venv/bin/python -m tests.eval.harness --blind --semantic --seeds 7 8 --size-mb 80

A `--workdir` keeps the archives, indexes and vectors of a run: the next run with the
same seeds (and size) reuses them.

`tests/eval/test_eval.py` and `test_blind_set.py` run one seed in CI against floors.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.eval.blind import (
    ArchiveKey,
    BlindReport,
    evaluate_blind,
    format_blind,
    load_blind,
)

HERE = Path(__file__).resolve().parent
QUERIES = HERE / "queries.jsonl"
SHARED = HERE.parents[2] / "shared"
MAKE_ARCHIVE = SHARED / "corpus" / "make_archive.py"
K = 10


@dataclass
class Query:
    id: str
    cat: str
    q: str
    relevant: set[str]  # session ids that answer it
    turn: str = ""  # words of the answering turn's prompt, if one turn answers it


@dataclass
class Outcome:
    rank: int | None  # 1-based rank of the first relevant session in the top K
    turn_found: bool | None  # None when the query names no turn


@dataclass
class Report:
    rows: dict[str, list[Outcome]] = field(default_factory=lambda: defaultdict(list))

    def add(self, cat: str, outcome: Outcome) -> None:
        self.rows[cat].append(outcome)

    def table(self) -> list[dict]:
        out = []
        cats = sorted(self.rows)
        everything = [o for c in cats for o in self.rows[c]]
        for cat, rows in [*((c, self.rows[c]) for c in cats), ("ALL", everything)]:
            turns = [o.turn_found for o in rows if o.turn_found is not None]
            out.append(
                {
                    "category": cat,
                    "n": len(rows),
                    "recall@10": sum(o.rank is not None for o in rows) / len(rows),
                    "mrr@10": sum(1 / o.rank for o in rows if o.rank) / len(rows),
                    "turn@10": (sum(turns) / len(turns)) if turns else None,
                    "turn_n": len(turns),
                }
            )
        return out


def build_archive(seed: int, out: Path, size_mb: int = 50) -> tuple[Path, Path, Path]:
    """A generated archive (about `size_mb`; larger ones clone every real session several
    times, so each query meets its answer's copies and many more distractors) with 40
    planted facts; returns archive, manifest, answers."""
    root = out / "claude"
    manifest, answers = out / "manifest.jsonl", out / "answers.json"
    if (
        manifest.is_file()
        and answers.is_file()
        and json.loads(manifest.read_text().split("\n", 1)[0]).get("seed") == str(seed)
    ):
        return root, manifest, answers  # made by an earlier run (the seed fixes it)
    from tests.support.generated import generate

    generate(
        out,
        [
            "--out",
            str(root),
            "--seed",
            str(seed),
            "--needles",
            "40",
            "--answers",
            str(answers),
            "--manifest",
            str(manifest),
            "--size-mb",
            str(size_mb),
            "--force",
        ],
    )
    return root, manifest, answers


def load_queries(manifest: Path, answers: Path) -> list[Query]:
    """The hand-written queries, resolved to this archive's session ids, and the needles."""
    rows = [json.loads(line) for line in manifest.read_text().splitlines()[1:]]
    by_src: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        if r.get("role") == "main" and r.get("sessionId"):
            by_src[r["src"]].add(r["sessionId"])
    queries = []
    for line in QUERIES.read_text().splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        rel = {sid for src, sids in by_src.items() if q["src"] in src for sid in sids}
        if not rel:
            raise ValueError(f"query {q['id']}: no session of this archive comes from {q['src']}")
        queries.append(Query(q["id"], q["cat"], q["q"], rel, q.get("turn", "")))
    queries.extend(
        Query(n["id"], "needle", n["query"], {n["sessionId"]}, n.get("prompt", "")[:40])
        for n in json.loads(answers.read_text())["needles"]
        if n.get("kind") == "transcript" and n.get("sessionId")
    )
    return queries


def run_query(service, q: Query) -> Outcome:  # service: an ArchiveService
    page = service.search(q.q, limit=K, group_by_session=True)
    rank = None
    turn_found = False if q.turn else None
    want = q.turn.lower()
    for i, group in enumerate(page.groups or [], 1):
        if rank is None and group.session_id in q.relevant:
            rank = i
        if want and group.session_id in q.relevant:
            for hit in group.hits:
                shown = f"{getattr(hit, 'prompt', '')} {hit.snippet}".lower()
                if want in " ".join(shown.split()):
                    turn_found = True
    return Outcome(rank, turn_found)


def evaluate(service, queries: list[Query]) -> Report:
    report = Report()
    for q in queries:
        report.add(q.cat, run_query(service, q))
    return report


def format_table(table: list[dict]) -> str:
    lines = [f"{'category':<20} {'n':>4} {'R@10':>6} {'MRR@10':>7} {'Turn@10':>8}"]
    for r in table:
        turn = f"{r['turn@10']:.2f} ({r['turn_n']})" if r["turn@10"] is not None else "-"
        lines.append(
            f"{r['category']:<20} {r['n']:>4} {r['recall@10']:>6.2f} {r['mrr@10']:>7.2f} {turn:>8}"
        )
    return "\n".join(lines)


def evaluate_seed(
    seed: int, workdir: Path, verbose: bool = False, size_mb: int = 50, semantic: bool = False
) -> tuple[Report, Report | None, dict]:
    """The seed's report, and with `semantic` its report with semantic search on and
    what that cost."""
    from tests.conftest import build_index

    root, manifest, answers = build_archive(seed, workdir / f"s{seed}", size_mb)
    service = build_index(root, workdir / f"s{seed}" / "data")
    queries = load_queries(manifest, answers)
    report = _scored(service, queries, verbose)
    if not semantic:
        return report, None, {}
    costs = enable_semantic(service, root, workdir / f"s{seed}" / "data")
    return report, _scored(service, queries, verbose), costs


def _scored(service, queries: list[Query], verbose: bool) -> Report:
    report = Report()
    for q in queries:
        o = run_query(service, q)
        report.add(q.cat, o)
        if verbose and (o.rank is None or o.rank > 3):
            print(f"  miss {q.id:<12} rank={o.rank} {q.q}")
    return report


class ReusingEncoder:
    """An encoder that encodes each distinct text once and gives its vector again for
    every copy. A generated archive clones the real sessions (a third of a 50 MB
    archive's texts are copies of another), and a text's vector does not depend on the
    batch it is encoded in (`tests/semantic/test_onnx_encoder.py`): the vectors are the
    ones the encoder gives, for a third less of its time.

    With `kept` (a folder), the vectors of earlier runs are kept there too, in a file
    named for the encoder's graph (its bytes' digest: a changed graph starts afresh). The
    full model's floor encodes the same 451 texts of its archive on every run, 35 CPU-s
    of the suite's ~500 for vectors that only a change of the encoder changes. Before
    any is used, a sample of them spread over their lengths (`CHECKED`) is encoded again
    and compared: if one differs (the tokenizer, the padding or the pooling changed
    outside the graph), all are dropped and every text is encoded afresh. So the vectors
    used are always what the encoder gives now."""

    CHECKED = 16

    def __init__(self, encoder, kept: Path | None = None) -> None:  # a TextEncoder
        self.encoder = encoder
        self.vectors: dict[str, Any] = {}
        self.encoded = 0
        self.kept_file: Path | None = None
        self._asked: set[str] = set()
        self.dropped = False
        """Whether the kept vectors were found stale and dropped."""
        if kept is not None:
            self.kept_file = kept / f"{_file_digest(encoder.path)}.npz"
            self.vectors = self._check(_read_vectors(self.kept_file))
        self._from_before = set(self.vectors)

    @property
    def reused(self) -> int:
        """Distinct texts asked for whose vector came from an earlier run (`kept`)."""
        return len(self._asked & self._from_before)

    def _check(self, kept: dict[str, Any]) -> dict[str, Any]:
        """`kept` if a sample of it is what the encoder gives now, else nothing."""
        import numpy as np

        if not kept:
            return {}
        by_length = sorted(kept, key=lambda t: (len(t), t))
        step = max(1, len(by_length) // self.CHECKED)
        sample = by_length[::step][: self.CHECKED] + [by_length[-1]]
        fresh = self.encoder.encode(sample)
        self.encoded += len(sample)
        if not np.allclose(fresh, np.stack([kept[t] for t in sample]), atol=1e-5):
            self.dropped = True
            return {}
        return kept

    def encode(self, texts: list[str]):  # -> np.ndarray
        import numpy as np

        new = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        self._asked.update(texts)
        if new:
            self.vectors.update(zip(new, self.encoder.encode(new), strict=True))
            self.encoded += len(new)
        return np.stack([self.vectors[t] for t in texts])

    def keep(self) -> None:
        """Write every vector known to `kept`'s file (atomically: workers may race)."""
        if self.kept_file is None or not self.vectors:
            return
        import os

        import numpy as np

        folder = self.kept_file.parent
        folder.mkdir(parents=True, exist_ok=True)
        ignore = folder.parent / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# vectors kept between runs of the tests (harness.py)\n*\n")
        texts = sorted(self.vectors)
        tmp = folder / f".{self.kept_file.name}.{os.getpid()}.npz"
        np.savez(tmp, texts=np.array(texts), vectors=np.stack([self.vectors[t] for t in texts]))
        tmp.replace(self.kept_file)


def _file_digest(path: Path) -> str:
    import hashlib

    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()[:24]


def _read_vectors(path: Path) -> dict[str, Any]:
    """The vectors kept in `path`, by text; none if it is missing or unreadable."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            return dict(zip(data["texts"].tolist(), data["vectors"], strict=True))
    except (OSError, ValueError, KeyError):
        return {}


def enable_semantic(
    service,
    root: Path,
    data: Path,
    reuse_copies: bool = False,
    threads: int | None = None,
    semantic: bool | None = True,
    kept: Path | None = None,
) -> dict:
    """Build the vectors of `service`'s index and turn semantic search on; returns the
    costs: embedding time, texts, query encode time, memory, store size.

    With `reuse_copies`, a text that is a copy of one encoded before takes that one's
    vector (`ReusingEncoder`): the same vectors, but the time is no longer what
    `ccarchive index --semantic` would take (`encoded` says how many were encoded).
    `threads` sets onnxruntime's threads for the build (the test suite runs a process
    per core: one thread each, as tests/conftest.py does for BLAS; two spinning threads
    took a third more CPU for the same vectors). `semantic` is the setting: True the full
    model (`--semantic`), None the default tier (the static encoder). `kept` (with
    `reuse_copies`) a folder where vectors are kept between runs (`ReusingEncoder`)."""
    import time
    import tracemalloc

    from ccarchive.config import Settings
    from ccarchive.semantic import choose, load_encoder, vector_space
    from ccarchive.semantic.builder import VectorBuilder

    settings = Settings(root, data.resolve(), semantic=semantic)
    kind = choose(settings).kind
    assert kind is not None, choose(settings).why
    t0 = time.perf_counter()
    encoder = load_encoder(settings, kind=kind)
    building = encoder
    if (
        threads is not None
        and hasattr(encoder, "session")  # the onnxruntime encoder, with other threads
        and encoder.session.get_session_options().intra_op_num_threads != threads
    ):
        from ccarchive.semantic.onnx_encoder import OnnxEncoder

        building = OnnxEncoder(encoder.model_dir, settings.data_dir, threads=threads)
    load_s = time.perf_counter() - t0
    embedding = ReusingEncoder(building, kept) if reuse_copies else building
    builder = VectorBuilder(service.store, lambda: embedding, vector_space(kind))
    t0 = time.perf_counter()
    texts = builder.update()
    embed_s = time.perf_counter() - t0
    if isinstance(embedding, ReusingEncoder):
        embedding.keep()
    service.use_semantic(settings)
    tracemalloc.start()
    service.semantic.matrix.refresh()
    matrix_bytes = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    words = [
        "why did the nightly export time out",
        "retry with backoff",
        "parser crash",
        "how do I make the tests less flaky",
        "deploy to production",
    ]
    encoder.encode(["warm up"])
    t0 = time.perf_counter()
    for w in words:
        encoder.encode([w])
    encode_ms = (time.perf_counter() - t0) * 1000 / len(words)
    store = service.semantic.vectors.path
    layers = getattr(encoder, "layers", None)  # the numpy encoder's; else the graph file
    weights = (
        sum(a.nbytes for layer in layers for a in vars(layer).values() if hasattr(a, "nbytes"))
        + encoder.word.nbytes
        + encoder.pos.nbytes
        if layers is not None
        else encoder.path.stat().st_size
    )
    return {
        "texts": texts,
        "encoded": embedding.encoded if isinstance(embedding, ReusingEncoder) else texts,
        **(
            {"kept": embedding.reused, "kept_dropped": embedding.dropped}
            if isinstance(embedding, ReusingEncoder) and embedding.kept_file is not None
            else {}
        ),
        "vectors": len(service.semantic.matrix),
        "embed_s": round(embed_s, 1),
        "model_load_s": round(load_s, 2),
        "per_text_ms": round(embed_s * 1000 / max(1, texts), 1),
        "query_encode_ms": round(encode_ms, 1),
        "matrix_mb": round(matrix_bytes / 1e6, 2),
        "encoder_weights_mb": round(weights / 1e6, 1),
        "encoder": type(encoder).__name__,
        "store_mb": round(sum(p.stat().st_size for p in store.iterdir()) / 1e6, 2),
    }


def blind_seed(
    seed: int, workdir: Path, size_mb: int, semantic: bool, verbose: bool = False
) -> tuple[BlindReport, BlindReport | None, dict]:
    """The blind set (`blind.py`) on one seed's archive, words only and, with `semantic`,
    with the vectors built and semantic search on; and what the vectors cost."""
    from tests.conftest import build_index

    root, manifest, _answers = build_archive(seed, workdir / f"s{seed}", size_mb)
    service = build_index(root, workdir / f"s{seed}" / "data")
    key = ArchiveKey(root, manifest)
    queries = load_blind()
    words = evaluate_blind(service, key, queries, verbose)
    if not semantic:
        return words, None, {}
    costs = enable_semantic(service, root, workdir / f"s{seed}" / "data")
    return words, evaluate_blind(service, key, queries, verbose), costs


def main_blind(args: argparse.Namespace, workdir: Path) -> None:
    total, total_sem, costs = BlindReport(), BlindReport(), []
    for seed in args.seeds:
        words, sem, cost = blind_seed(seed, workdir, args.size_mb, args.semantic, args.verbose)
        total.extend(words)
        if sem is not None:
            total_sem.extend(sem)
        costs.append(cost)
        if not args.json:
            print(f"seed {seed}, words only\n{format_blind(words.table())}\n")
            if sem is not None:
                print(f"seed {seed}, semantic\n{format_blind(sem.table())}\n{cost}\n")
    if args.json:
        print(
            json.dumps(
                {"words": total.table(), "semantic": total_sem.table(), "costs": costs}, indent=1
            )
        )
        return
    print(f"all seeds {args.seeds}, words only\n{format_blind(total.table())}")
    if args.semantic:
        print(f"\nall seeds {args.seeds}, semantic\n{format_blind(total_sem.table())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--workdir", type=Path)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--size-mb", type=int, default=50)
    ap.add_argument(
        "--semantic",
        action="store_true",
        help="Also score with semantic search on, and print what it costs.",
    )
    ap.add_argument(
        "--blind",
        action="store_true",
        help="Score the blind set (blind_queries.jsonl) instead, by turn.",
    )
    args = ap.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ccarchive-eval-"))
    if args.blind:
        main_blind(args, workdir)
        return
    total, total_sem, costs = Report(), Report(), []
    for seed in args.seeds:
        rep, sem, cost = evaluate_seed(seed, workdir, args.verbose, args.size_mb, args.semantic)
        for cat, rows in rep.rows.items():
            total.rows[cat].extend(rows)
        for cat, rows in sem.rows.items() if sem else ():
            total_sem.rows[cat].extend(rows)
        costs.append(cost)
        if not args.json:
            print(f"seed {seed}\n{format_table(rep.table())}\n")
            if sem is not None:
                print(f"seed {seed}, semantic\n{format_table(sem.table())}\n{cost}\n")
    table = total.table()
    if args.json:
        print(
            json.dumps(
                {"words": table, "semantic": total_sem.table(), "costs": costs}
                if args.semantic
                else table,
                indent=1,
            )
        )
        return
    print(f"all seeds {args.seeds}\n{format_table(table)}")
    if args.semantic:
        print(f"\nall seeds {args.seeds}, semantic\n{format_table(total_sem.table())}")


if __name__ == "__main__":
    main()
