"""One process that times searches as it is asked, for `bench_service.py`'s before/after.

    python -m tests.benchmarks.search_worker   (environment: ARCHIVE, DATA, QUERIES, FRESH, CLOCK,
MEANING)

It opens the archive's service with whatever `ccarchive` its PYTHONPATH gives (this
checkout's, or another's: what a change bought is measured beside it), warms every call
up, says `ready`, then for each line `<call> <query index>` on stdin runs that call and
answers its milliseconds. With FRESH=1 each call runs as for a query never asked before:
Python's compiled patterns, the redaction cache and the compiled queries are emptied
first (not timed); the per-commit caches (titles, gone sessions, short ids) stay, as in a
server that has been answering for a while. With CLOCK=cpu it answers the CPU time
the call took (all threads), not the time it waited. With MEANING=1 the service is the
default tier's (ranking by meaning too, from the data dir's vectors).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path


def main() -> None:
    import ccarchive.redact.engine as redact_engine
    from ccarchive.config import Settings
    from ccarchive.index.query.compiler import compile_query
    from ccarchive.index.store import IndexStore
    from ccarchive.mcp_server.server import build_server
    from ccarchive.service import ArchiveService

    root, data = Path(os.environ["ARCHIVE"]), Path(os.environ["DATA"])
    queries: list[str] = json.loads(os.environ["QUERIES"])
    if os.environ.get("MEANING") == "1":  # the default tier, as `open_service` gives it
        from ccarchive.service import open_service

        os.environ.pop("CCARCHIVE_SEMANTIC", None)
        service = open_service(Settings.resolve(root, data))
        assert service.semantic_switch.dense is not None, "no vectors: index with meaning on"
    else:
        service = ArchiveService(IndexStore(Settings.resolve(root, data).archive_data_dir), root)
    tool = build_server(service, active_minutes=0)._tool_manager.get_tool("search").fn
    ctx = service.index_context

    def bare(q: str) -> object:
        cq = compile_query(q, ctx.schema, ctx.analyzer)
        return ctx.searcher().search(ctx.matching(cq), 20, count=False)

    calls: dict[str, Callable[[str], object]] = {
        "bare tantivy": bare,
        "sessions (MCP)": lambda q: service.search(
            q, group_by_session=True, limit=4, hits_per_group=1, passage_chars=320
        ),
        "sessions (TUI)": lambda q: service.search(q, group_by_session=True),
        "MCP tool": lambda q: tool(query=q, include_active=True),
    }
    for q in queries:
        for call in calls.values():
            call(q)
    fresh = os.environ.get("FRESH") == "1"
    # CPU time (of every thread) is what a loaded machine distorts least; wall time is what
    # a user waits
    clock = time.process_time if os.environ.get("CLOCK") == "cpu" else time.perf_counter
    print("ready", flush=True)
    for line in sys.stdin:
        name, i = line.rsplit(" ", 1)
        if fresh:
            re.purge()
            redact_engine._settled.cache_clear()
            getattr(service.text_search, "_compiled_queries", {}).clear()
        t = clock()
        calls[name](queries[int(i)])
        print((clock() - t) * 1000, flush=True)


if __name__ == "__main__":
    main()
