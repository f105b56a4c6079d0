"""What semantic search by default does to an agent: the agent harness's questions
(`tests.eval.agent_harness`: fact@1, fact@2, tokens) asked of the same index twice, words
only (`CCARCHIVE_SEMANTIC=0`, `--no-semantic`) and with the default (the static
encoder's vectors built as `ccarchive index` builds them, the service given the
settings a `ccarchive serve` without flags has).

    .venv/bin/python -m tests.semantic.agent_default --seeds 1 2 --size-mb 15
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from dataclasses import replace
from pathlib import Path

from tests.eval.agent_harness import (
    Report,
    build,
    evaluate,
    format_table,
    needle_questions,
    own_questions,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--size-mb", type=int, default=15)
    ap.add_argument("--workdir", type=Path)
    ap.add_argument("-v", "--verbose", action="store_true", help="print each question missed")
    args = ap.parse_args()
    for name in ("CCARCHIVE_SEMANTIC", "CCARCHIVE_ENCODER", "CCARCHIVE_MODEL_DIR"):
        os.environ.pop(name, None)  # the default, as a user without settings has it

    from ccarchive.config import Settings
    from ccarchive.semantic import choose, load_encoder, vector_space
    from ccarchive.semantic.builder import VectorBuilder

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ccarchive-agent-default-"))
    totals = {"words only": Report(), "default (static)": Report()}
    listed = 0
    for seed in args.seeds:
        service, answers = build(seed, workdir, args.size_mb)  # a words-only service
        questions = needle_questions(answers) + own_questions()
        settings = Settings(service.root, workdir / f"s{seed}" / "data", semantic=None)
        choice = choose(settings)
        assert choice.kind is not None, choice.why
        builder = VectorBuilder(
            service.store,
            lambda s=settings, k=choice.kind: load_encoder(s, kind=k),
            vector_space(choice.kind),
        )
        texts = builder.update()
        for label, semantic in (("words only", False), ("default (static)", None)):
            service.use_semantic(replace(settings, semantic=semantic))
            assert (service.semantic is not None) == (semantic is None)
            rep, listed = asyncio.run(evaluate(service, questions, verbose=args.verbose))
            for cat, rows in rep.rows.items():
                totals[label].rows[cat].extend(rows)
            print(f"seed {seed}, {label} ({texts} texts embedded)\n{format_table(rep.table())}\n")
    for label, total in totals.items():
        print(f"all seeds {args.seeds}, {label}\n{format_table(total.table(), listed)}\n")


if __name__ == "__main__":
    main()
