"""Write one big session for `tests/benchmarks/bench_tui.py`: >= 100,000 entries and >= 200 MB.

make_archive.py spreads its bytes over thousands of sessions; the replay benchmark
needs a single huge one. This clones the entries of an existing (generated) archive
into one session, with fresh uuids chained in order and timestamps 7 s apart:

    python3 tests/benchmarks/make_big_session.py /tmp/b1g/claude /tmp/big/claude
    ccarchive index --archive /tmp/big/claude --data-dir /tmp/big/data
"""

from __future__ import annotations

import json
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

SESSION = "b16b16b1-0000-4000-8000-000000000001"
MIN_ENTRIES, MIN_BYTES = 100_000, 200_000_000


def main(source: Path, out_root: Path) -> None:
    out_dir = out_root / "projects" / "-home-dev-work-bigproj"
    out_dir.mkdir(parents=True, exist_ok=True)
    t = datetime(2026, 10, 1, 8, 0, tzinfo=UTC)
    n = size = 0
    parent = None
    with open(out_dir / f"{SESSION}.jsonl", "w", encoding="utf-8") as out:
        for f in sorted((source / "projects").glob("*/*.jsonl")):
            remap: dict[str, str] = {}
            for line in open(f, encoding="utf-8", errors="replace"):
                if len(line) > 12_000:
                    continue
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(obj, dict) or obj.get("type") not in (
                    "user",
                    "assistant",
                    "system",
                    "summary",
                ):
                    continue
                new = str(uuid.uuid4())
                if obj.get("uuid"):
                    remap[obj["uuid"]] = new
                    obj["uuid"] = new
                if "parentUuid" in obj:
                    obj["parentUuid"] = parent
                if "sessionId" in obj:
                    obj["sessionId"] = SESSION
                obj["cwd"] = "/home/dev/work/bigproj"
                obj["isSidechain"] = False
                if "timestamp" in obj:
                    t += timedelta(seconds=7)
                    obj["timestamp"] = t.isoformat().replace("+00:00", "Z")
                if obj.get("type") == "summary" and "leafUuid" in obj:
                    obj["leafUuid"] = remap.get(obj["leafUuid"], parent or new)
                text = json.dumps(obj, ensure_ascii=False) + "\n"
                out.write(text)
                parent = obj.get("uuid", parent)
                n += 1
                size += len(text.encode())
                if n >= MIN_ENTRIES and size >= MIN_BYTES:
                    print(f"{n:,} entries, {size / 1e6:.0f} MB")
                    return
    print(f"only {n:,} entries, {size / 1e6:.0f} MB: the source archive is too small")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
