"""The hooks never wait for the encoder, even with semantic search switched on: a prompt hook
runs before the user's prompt reaches the model, so it searches by words alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ccarchive.config import SEMANTIC_ENV
from tests.conftest import build_index

PROBE = """
import json, sys
from pathlib import Path
from ccarchive.config import Settings
from ccarchive.hooks.context import prompt_context
from ccarchive.hooks.main import existing_service
settings = Settings.resolve(sys.argv[1], sys.argv[2])
svc = existing_service(settings)
text = prompt_context(svc, {"prompt": "why is the flaky test expiring"}, limit=3,
                      max_chars=1500)
print(json.dumps({"wanted": settings.semantic, "semantic": svc.semantic is not None,
                  "context": bool(text),
                  "loaded": sorted(m for m in sys.modules if m.startswith(
                      ("ccarchive.semantic.", "onnxruntime", "tokenizers", "numpy",
                       "safetensors")))}))
"""


@pytest.mark.parametrize("value", ["1", None], ids=["full model", "default"])
def test_a_hook_with_semantic_on_searches_by_words_and_loads_no_encoder(
    demo_archive_ro: Path, tmp_path: Path, value: str | None
) -> None:
    data = tmp_path / "data"
    build_index(demo_archive_ro, data)
    env = {k: v for k, v in os.environ.items() if k != SEMANTIC_ENV}
    if value is not None:  # else unset: the default, the static encoder
        env[SEMANTIC_ENV] = value
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(demo_archive_ro), str(data)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    got = json.loads(out.stdout)
    assert got["wanted"] is (True if value == "1" else None)  # on, or the default...
    assert got["semantic"] is False  # ...and the hook's service does not use it
    assert got["context"] is True  # it still answers, by words
    # nothing of the encoder was even imported (the package's light `__init__` may be)
    assert got["loaded"] == [], got["loaded"]
