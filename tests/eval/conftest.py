"""The generated archive the evaluations share: seed 1, 50 MB, with its planted facts.

Generating and indexing it takes about ten seconds; the search-quality floors
(`test_eval.py`) and the blind set's floors (`test_blind_set.py`) both read it, so it is
built once per worker for the whole session. The tests that read it carry the
`xdist_group("eval-archive")` mark, which keeps them on one worker (a
session-scoped fixture is not grouped by module: see tests/conftest.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.conftest import build_index
from tests.eval import harness
from tests.support.encoders import one_thread


class EvalArchive(NamedTuple):
    root: Path
    manifest: Path
    answers: Path
    service: Any  # an ArchiveService over its index


@pytest.fixture(autouse=True)
def onnx_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The full model on one onnxruntime thread, its queries too (the semantic floor:
    tests.support.encoders.py)."""
    one_thread(monkeypatch)


@pytest.fixture(scope="session")
def eval_archive(tmp_path_factory: pytest.TempPathFactory) -> EvalArchive:
    work = tmp_path_factory.mktemp("eval")
    root, manifest, answers = harness.build_archive(1, work)
    return EvalArchive(root, manifest, answers, build_index(root, work / "data"))
