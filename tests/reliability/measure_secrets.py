"""Redaction measured both ways: recall on generated plantings, precision on real text.

Not a test (nothing here asserts): run it to get the figures, before and after a change.

    .venv/bin/python -m tests.reliability.measure_secrets [--seeds 300] [--show 20]

To measure another checkout (the code before a change), run it with that checkout's
interpreter and this file's folder first on the path, e.g. ``cd /work/main &&
PYTHONPATH=/work/wt-redact .venv/bin/python -m tests.reliability.measure_secrets``
(the redactor is imported from where that checkout keeps it).

Reported:
- recall: per generated class (`secret_generated`), plantings whose secret is still
  readable after `redact` (any 8 characters of it);
- false positives on the real transcripts (../shared/corpus/real, read in place): texts
  changed by `redact` per MB of text (the corpus holds no real credential: every change
  is one), listed with their context;
- titles: session titles of the real transcripts and of a generated archive as the
  service shows them, and every prompt read as a title (its first 200 characters): how
  many show a redaction mark (per 1,000), how many are only marks, how many are an id;
- surfaces: the generated classes in every place, read on every service and MCP surface;
- oracle: characters of planted secrets recovered by prefix probes of ``search``.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.secret_generated import GENERATED, plant_oracle_archive
from tests.support.secret_shapes import Gen

try:  # this checkout: titles are redacted whole when indexed, shown without a cut
    from ccarchive.redact import MARKER_RE, redact

    TITLE_CUT = False
except ImportError:  # before: the redactor in the service, a title's end taken as a cut
    from ccarchive.service.redact import MARKER_RE, redact  # type: ignore[no-redef]

    TITLE_CUT = True

REAL = Path("/work/shared/corpus/real")
MAKE_ARCHIVE = Path("/work/shared/corpus/make_archive.py")
_ID_RE = re.compile(r"[0-9a-f]{8}")


def recall(seeds: int) -> None:
    print(f"\nrecall, {seeds} seeds per class (readable / planted):")
    total = bad = 0
    for name, maker in GENERATED.items():
        n = readable = 0
        for seed in range(seeds):
            p = maker(Gen(random.Random(seed * 7919 + 17)))
            out = redact(p.text)
            n += 1
            readable += any(
                s[i : i + 8] in out for s in p.secrets for i in range(max(1, len(s) - 7))
            )
        total, bad = total + n, bad + readable
        print(f"  {name:22} {readable:5} / {n}")
    print(f"  {'all':22} {bad:5} / {total}")


def _texts(root: Path) -> tuple[list[str], list[str]]:
    """Every text of the real transcripts (whole), and every prompt as a title."""
    from ccarchive.archive.file_summary import FileSummary
    from ccarchive.archive.lines import LineStats, decode_line
    from ccarchive.archive.records import Extractor

    texts, prompts = [], []
    for path in sorted(root.rglob("*.jsonl")):
        ex = Extractor(FileSummary(), is_agent_file=path.name.startswith("agent-"), full_text=True)
        for line in path.read_bytes().split(b"\n"):
            if line.strip():
                for obj in decode_line(line, LineStats()):
                    for u in ex.extract(obj, LineStats()):
                        if u.text:
                            texts.append(u.text)
                            if u.kind == "prompt":
                                prompts.append(" ".join(u.text.split())[:200])
    return texts, prompts


def false_positives(show: int) -> None:
    texts, prompts = _texts(REAL)
    mb = sum(len(t.encode()) for t in texts) / 1e6
    changed = []
    for t in texts:
        out = redact(t)
        if out != t:
            changed.extend(
                out[max(0, m.start() - 60) : m.end() + 40].replace("\n", " ")
                for m in MARKER_RE.finditer(out)
            )
    print(
        f"\nreal transcripts: {len(texts)} texts, {mb:.1f} MB; redactions: {len(changed)} "
        f"({len(changed) / mb:.2f} per MB)"
    )
    for c in changed[:show]:
        print(f"  … {c}")

    def as_title(p: str) -> str:
        return redact(p, cuts=(len(p),) if TITLE_CUT else ())

    marked = [p for p in prompts if MARKER_RE.search(as_title(p))]
    print(
        f"prompts read as titles: {len(prompts)}; with a mark: {len(marked)} "
        f"({1000 * len(marked) / max(1, len(prompts)):.2f} per 1,000)"
    )
    for p in marked[:show]:
        print(f"  … {as_title(p)[:160]}")


def _titles(archive: Path) -> list[str]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.conftest import build_index

    with tempfile.TemporaryDirectory() as data:
        svc = build_index(archive, Path(data))
        titles, cursor = [], None
        while True:  # pages of 500, the service's most
            page = svc.sessions(limit=500, cursor=cursor)
            titles += [s.title for s in page.sessions]
            cursor = page.next_cursor
            if not cursor:
                return titles


def _real_titles(root: Path) -> list[str]:
    """The title each main session of the real transcripts gets, as it is shown: read
    with the extractor the indexer uses (the real corpus is not laid out as an archive)."""
    from ccarchive.archive.file_summary import FileSummary
    from ccarchive.archive.lines import LineStats, decode_line
    from ccarchive.archive.records import Extractor

    out = []
    for path in sorted(root.rglob("*.jsonl")):
        if path.name.startswith("agent-"):
            continue
        summary = FileSummary(session_id=path.stem)
        try:
            ex = Extractor(summary, redacted=True)
        except TypeError:  # before: the extractor kept secrets, the service cut titles
            ex = Extractor(summary)
        for line in path.read_bytes().split(b"\n"):
            if line.strip():
                for obj in decode_line(line, LineStats()):
                    ex.extract(obj, LineStats())
        if not summary.entries:
            continue
        if TITLE_CUT:
            title = summary.title() or path.stem[:8]
            out.append(redact(title, cuts=(len(title),)))
        else:
            from ccarchive.archive.titles import fallback_title, readable

            title = redact(summary.title())
            out.append(
                title
                if readable(title)
                else fallback_title(summary.slugs, summary.cwd, summary.first_ts)
            )
    return out


def titles(show: int) -> None:
    gen = Path(tempfile.mkdtemp()) / "claude"
    subprocess.run(
        [sys.executable, str(MAKE_ARCHIVE), "--out", str(gen), "--size-mb", "40", "--seed", "3"],
        check=True,
        capture_output=True,
    )
    for name, shown in (
        ("real transcripts", _real_titles(REAL)),
        ("generated archive (40 MB)", _titles(gen)),
    ):
        marks = [t for t in shown if MARKER_RE.search(t)]
        only = [t for t in shown if t and not re.search(r"[^\W_]{2,}", MARKER_RE.sub(" ", t))]
        ids = [t for t in shown if _ID_RE.fullmatch(t)]
        print(
            f"\n{name}: {len(shown)} session titles; with a mark {len(marks)} "
            f"({1000 * len(marks) / max(1, len(shown)):.1f} per 1,000), only marks "
            f"{len(only)}, an id prefix {len(ids)}, empty {shown.count('')}"
        )
        for t in (marks + ids)[:show]:
            print(f"  … {t[:120]}")


def surfaces(seed: int) -> None:
    """The generated classes planted in every place of an archive, read on every service
    surface (search at several snippet lengths, entries paged, sessions, transcripts,
    plans, memory, history, export) and through MCP: plantings x surfaces x readable."""
    import asyncio

    from mcp import Client

    from ccarchive.mcp_server.server import build_server
    from tests.conftest import build_index
    from tests.support import secret_archive
    from tests.support.secret_surfaces import Exposure, held_elsewhere, read_mcp, read_service

    out = Path(tempfile.mkdtemp())
    saved = dict(secret_archive.SHAPES)
    secret_archive.SHAPES.update(GENERATED)
    try:
        arc = secret_archive.plant_archive(out / "claude", seed, shapes=sorted(GENERATED))
    finally:
        secret_archive.SHAPES.clear()
        secret_archive.SHAPES.update(saved)
    svc = build_index(arc.root, out / "data")
    ex = Exposure(arc.plants)
    ex.ignore(held_elsewhere(arc.plants, arc.root))
    read_service(svc, arc, ex, random.Random(seed))

    async def mcp() -> None:
        async with Client(build_server(svc, redact_secrets=True, active_minutes=0)) as client:
            await read_mcp(client, arc, ex, random.Random(seed + 1), share=0.25)

    asyncio.run(mcp())
    readable = ex.readable()
    print(
        f"\nsurfaces: {len(GENERATED)} generated classes x {len(secret_archive.PLACES)} places"
        f" = {len(arc.plants)} plantings, {len(ex.calls)} surfaces, "
        f"{sum(ex.calls.values())} calls; readable plantings: {len(readable)}"
    )
    print(ex.report()[:3000])


def oracle(seed: int) -> None:
    """The attack on the index: secrets of known formats and of the generated classes
    planted beside made-up words; each probed ``+<word> +<prefix>*`` with a growing prefix
    of its first run of letters and digits (4 to 24 characters) while the hit total says
    it is there."""
    from tests.conftest import build_index

    out = Path(tempfile.mkdtemp())
    arc = plant_oracle_archive(out / "claude", seed)
    svc = build_index(arc.root, out / "data")
    probed = found = chars = queries = 0
    for p in arc.plants:
        for secret in p.secrets:
            runs = re.findall(r"[A-Za-z0-9]{6,}", secret)
            if not runs:
                continue
            probed += 1
            best = 0
            for k in range(4, min(len(runs[0]), 24) + 1):
                queries += 1
                if (
                    svc.search(
                        f"+{p.needle} +{runs[0][:k]}*",
                        include_tool_results=True,
                        include_thinking=True,
                        limit=1,
                    ).total
                    == 0
                ):
                    break
                best = k
            found += best > 0
            chars += best
    print(
        f"\noracle: {probed} secrets probed ({queries} prefix queries): {found} with a "
        f"prefix of 4+ characters confirmed, {chars} characters recovered"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=300)
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--only", choices=("recall", "fp", "titles", "surfaces", "oracle"))
    args = ap.parse_args()
    if args.only in (None, "recall"):
        recall(args.seeds)
    if args.only in (None, "fp"):
        false_positives(args.show)
    if args.only in (None, "titles"):
        titles(args.show)
    if args.only in (None, "surfaces"):
        surfaces(20261127)
    if args.only in (None, "oracle"):
        oracle(20261127)


if __name__ == "__main__":
    main()
