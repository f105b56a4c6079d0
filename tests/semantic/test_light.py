"""The one-query path without numpy (`semantic.light`, what `ccarchive search` takes) against
numpy's path on the same real index: the same files read, the same query vector, the
same cosines, best turns and results; and a `ccarchive search` process that imports no
numpy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid as uuidlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ccarchive.config import SEMANTIC_ENV, Settings
from ccarchive.semantic import STATIC, load_encoder, vector_space
from ccarchive.semantic.builder import VectorBuilder
from ccarchive.semantic.light import LightMatrix, LightTable, read_npy, read_npz
from ccarchive.semantic.space import table_path
from ccarchive.semantic.wordpiece import vocab_path
from ccarchive.service import ArchiveService
from tests.conftest import build_index
from tests.support.appends import assistant_line, main_sessions, prompt_line
from tests.support.encoders import with_static

QUERIES = [
    "potted herbs fading in the summer heat",
    "why is the flaky test expiring",
    "retry with backoff",
    "parser crash on empty input",
    "deploy",
]


@pytest.fixture(scope="module")
def indexed(
    demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ArchiveService, Settings]]:
    root = tmp_path_factory.mktemp("light") / "claude"
    shutil.copytree(demo_archive_ro, root, symlinks=True)
    path = main_sessions(root)[0]
    sid = str(uuidlib.uuid4())
    (path.parent / f"{sid}.jsonl").write_bytes(
        prompt_line(path, "The basil on my balcony wilts in the heatwave.", sid)
        + assistant_line(path, "Water early, mulch the pots, give them shade.", sid)
    )
    data = with_static(root.parent / "data")  # its table made once (tests/support/encoders.py)
    service = build_index(root, data)
    settings = Settings(root, data, semantic=None)
    builder = VectorBuilder(
        service.store, lambda: load_encoder(settings, kind=STATIC), vector_space(STATIC)
    )
    assert builder.update() > 20
    service.use_semantic(settings)
    assert service.semantic is not None and service.semantic.kind == STATIC
    yield service, settings


def test_the_files_read_are_numpys(indexed) -> None:
    service, _settings = indexed
    store = service.semantic.vectors
    for chunk in store.manifest().chunks:
        members = read_npz(store.path / f"{chunk}.npz")
        with np.load(store.path / f"{chunk}.npz", allow_pickle=False) as z:
            for name in ("keys", "vecs", "paths"):
                descr, shape, _raw = read_npy(members[f"{name}.npy"])
                assert shape == z[name].shape and np.dtype(descr) == z[name].dtype


@pytest.mark.parametrize("query", QUERIES)
def test_the_same_query_vector_and_cosines(indexed, query: str) -> None:
    service, settings = indexed
    light = LightTable(table_path(settings.data_dir), vocab_path(settings.data_dir))
    q = light.encode(query)
    assert q is not None
    want = load_encoder(settings, kind=STATIC).encode([query])[0]
    assert np.allclose(q, want, atol=1e-6)
    got = LightMatrix(service.semantic.vectors).scores(q)
    ref = service.semantic.matrix
    ref.refresh()
    expected = ref.scores(want)
    assert got.as_dict().keys() == expected.as_dict().keys()
    for skey, best in expected.as_dict().items():
        assert got.as_dict()[skey] == pytest.approx(best, abs=1e-5)
        a, b = got.best_turn(skey), expected.best_turn(skey)
        assert (a is None) == (b is None)
        if a is not None and b is not None:
            assert a[2] == pytest.approx(b[2], abs=1e-5)
            if abs(a[2] - b[2]) < 1e-6:  # not a near tie: the same turn
                assert a[:2] == b[:2]


@pytest.mark.parametrize("query", QUERIES)
def test_a_search_once_shows_what_numpys_path_shows(indexed, query: str) -> None:
    service, _settings = indexed
    dense = service.semantic

    def page() -> list:
        groups = service.search(query, limit=10, group_by_session=True).groups or []
        return [(g.session_id, [h.id for h in g.hits]) for g in groups]

    dense.once = False
    by_numpy = page()
    dense.once = True
    try:
        assert page() == by_numpy
    finally:
        dense.once = False


def test_a_search_process_imports_no_numpy_and_finds_by_meaning(indexed) -> None:
    service, settings = indexed
    probe = (
        "import sys\nfrom ccarchive.cli.main import main\n"
        "main(sys.argv[1:], standalone_mode=False)\n"
        "print('numpy' in sys.modules, 'tokenizers' in sys.modules, file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in (SEMANTIC_ENV, "CCARCHIVE_ENCODER")}
    where = ["--archive", str(service.root), "--data-dir", str(settings.data_dir)]

    def search(query: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", probe, "search", "--json", *where, query],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )

    out = search(QUERIES[0])
    assert out.stderr.split()[-2:] == ["False", "False"], out.stderr
    titles = [g["title"] for g in json.loads(out.stdout)["groups"]]
    assert "basil" in titles[0].lower(), titles
    # a query the Python word pieces do not take goes numpy's way, and still answers
    accented = search("basilic fané à l'été")
    assert accented.stderr.split()[-2:] == ["True", "True"], accented.stderr


def test_every_data_dir_of_a_process_gets_the_files_its_searches_read(
    indexed, tmp_path: Path
) -> None:
    """The encoder is loaded once per process, but its table and vocabulary are made per
    data dir: a second data dir (another archive, the eval's seeds) gets its own, or its
    `ccarchive search` processes could never take the path without numpy."""
    _service, settings = indexed
    load_encoder(settings, kind=STATIC)
    other = tmp_path / "other-data"
    load_encoder(Settings(settings.archive_root, other, semantic=None), kind=STATIC)
    assert table_path(other).is_file() and vocab_path(other).is_file()
    LightTable(table_path(other), vocab_path(other))  # what a search process opens
