"""How fast could any Python indexer of ours be on this machine? What bounds it.

`tests/benchmarks/bench_index.py` runs this in its own process, on the same archive in the same run,
so that its cold-indexing figure comes with the bounds it is measured against:

- **parse**: read every transcript line and `orjson.loads` the ones the indexer parses
  (progress and snapshot records are skipped unparsed, as the reader does). No extraction,
  no documents: the least CPU any reader of JSONL in Python spends.
- **read**: the indexer's reader (`ccarchive.index.documents`) making its documents: parsing,
  extraction, camelCase parts and building each `tantivy.Document`.
- **tantivy**: those documents added, committed and merged with the indexer's own writer
  settings: the CPU the index itself costs for the documents the issue asks for.

All are CPU seconds of the whole process (Tantivy's indexing threads included). On
`cores` cores, `cores * MB / (parse + tantivy)` bounds any Python reader of these
documents, and `cores * MB / (read + tantivy)` bounds ours, with perfect overlap.

    python3 -m tests.benchmarks.index_ceiling ARCHIVE   # prints one JSON object
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import orjson

from ccarchive.archive import discovery as D
from ccarchive.archive.lines import HugeLine, iter_raw_lines
from ccarchive.index import documents as R
from ccarchive.index import schema as S
from ccarchive.index.store import WRITER_THREADS, IndexStore


def _sources(root: Path) -> list[D.SourceFile]:
    return [s for s in D.discover(root) if s.kind in D.TRANSCRIPT_KINDS or s.kind == D.HISTORY]


def parse_cpu(sources: list[D.SourceFile]) -> tuple[float, int]:
    """CPU seconds to read and parse what the indexer parses; bytes read."""
    c0, total = time.process_time(), 0
    for src in sources:
        with open(src.path, "rb") as f:
            for _at, line in iter_raw_lines(f, 0, end=src.size):
                if isinstance(line, HugeLine) or (src.kind != D.HISTORY and R.is_noise(line)):
                    continue
                try:
                    orjson.loads(line)
                except orjson.JSONDecodeError:
                    pass
        total += src.size
    return time.process_time() - c0, total


def read_docs(sources: list[D.SourceFile]) -> tuple[float, list]:
    """CPU seconds for the reader to make its documents; the documents."""
    c0 = time.process_time()
    docs = [d for src in sources for chunk in R.read_chunks(R.ReadTask(src)) for d in chunk.docs]
    return time.process_time() - c0, docs


def tantivy_cost(docs: list) -> dict[str, float]:
    """Wall and CPU seconds for Tantivy alone to index these documents."""
    with tempfile.TemporaryDirectory(prefix="ccarchive-ceiling-") as tmp:
        store = IndexStore(Path(tmp))
        writer = store.try_writer()
        t0, c0 = time.perf_counter(), time.process_time()
        for doc in docs:
            doc.add_unsigned(S.GEN, 1)
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"docs": len(docs), "wall_s": wall, "cpu_s": cpu}


def main(root: Path) -> dict[str, float]:
    sources = _sources(root)
    parse_s, nbytes = parse_cpu(sources)
    read_s, docs = read_docs(sources)
    tv = tantivy_cost(docs)
    cores = os.cpu_count() or 1
    mb = nbytes / 1e6
    return {
        "transcript_MB": round(mb, 1),
        "parse_cpu_s": round(parse_s, 2),
        "read_cpu_s": round(read_s, 2),
        "tantivy_cpu_s": round(tv["cpu_s"], 2),
        "tantivy_wall_s": round(tv["wall_s"], 2),
        "tantivy_alone_MB_per_s": round(mb / tv["wall_s"], 1),
        "writer_threads": WRITER_THREADS,
        "cores": cores,
        "ceiling_MB_per_s": round(cores * mb / (parse_s + tv["cpu_s"]), 1),
        "reader_bound_MB_per_s": round(cores * mb / (read_s + tv["cpu_s"]), 1),
    }


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
