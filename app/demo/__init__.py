"""A small, complete, made-up Claude Code archive for first runs, screenshots and tests.

`write_demo_archive(root)` writes a directory shaped like a real `~/.claude`: four projects
(a Rust CLI, a web API, a data pipeline and a dotfiles repo), fourteen main sessions that
each tell a small story (a bug hunt, a refactor, a migration, a performance investigation),
their subagents in all three on-disk generations, plans, memory files, `history.jsonl` and
the file-history blobs the checkpoints point to.

The stories are data, not code: `data/` holds each project's files and one TOML script per
session (see `data/README.md`); the modules here play those scripts. Why a player and not a
committed folder: every timestamp is placed relative to `now`, so a timeline built from the
demo always looks current (two sessions are still "live", inside the last hour) and
screenshots never show a stale archive. Why so detailed: it is the first thing a newcomer
sees, and it doubles as an end-to-end fixture, so it exercises every record type of
docs/format.md (one content block per assistant entry, shared `message.id`s, rewinds,
compaction, progress, attachments, bookkeeping records).

Everything in it is invented. The output is deterministic for a given `now`: all ids come
from `random.Random` instances seeded from fixed names, never from the clock. Standard
library only, so the demo works before any optional dependency is installed; it sits beside
the archive layer and imports nothing else of ccarchive.
"""

from ccarchive.demo.writer import write_demo_archive

__all__ = ["write_demo_archive"]
