"""The blind set (`tests.eval.harness --blind`) with semantic search as a user without
settings has it: the default's encoder chosen by `semantic.choose` (no flag, no
variable), its vectors built as `ccarchive index` builds them. Its table should be the
one `CCARCHIVE_ENCODER=static python -m tests.eval.harness --blind --semantic` prints for
the same seeds: the default is that encoder.

    .venv/bin/python -m tests.semantic.eval_default --seeds 7 --size-mb 40
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from tests.eval.blind import ArchiveKey, BlindReport, evaluate_blind, format_blind, load_blind
from tests.eval.harness import build_archive


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[7])
    ap.add_argument("--size-mb", type=int, default=40)
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args()
    for name in ("CCARCHIVE_SEMANTIC", "CCARCHIVE_ENCODER", "CCARCHIVE_MODEL_DIR"):
        os.environ.pop(name, None)

    from ccarchive.config import Settings
    from ccarchive.semantic import choose, load_encoder, vector_space
    from ccarchive.semantic.builder import VectorBuilder
    from tests.conftest import build_index

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ccarchive-eval-default-"))
    total = BlindReport()
    for seed in args.seeds:
        out = workdir / f"s{seed}"
        root, manifest, _answers = build_archive(seed, out, args.size_mb)
        data = out / "data-default"
        service = build_index(root, data)
        settings = Settings(root, data, semantic=None)  # the default, explicitly
        choice = choose(settings)
        assert choice.kind is not None, choice.why
        VectorBuilder(
            service.store,
            lambda s=settings, k=choice.kind: load_encoder(s, kind=k),
            vector_space(choice.kind),
        ).update()
        service.use_semantic(settings)
        assert service.semantic is not None
        rep = evaluate_blind(service, ArchiveKey(root, manifest), load_blind(), False)
        total.extend(rep)
        print(f"seed {seed}, the default ({choice.kind})\n{format_blind(rep.table())}\n")
    print(f"all seeds {args.seeds}, the default\n{format_blind(total.table())}")


if __name__ == "__main__":
    main()
