"""What the reader chose in the app and keeps between runs: the theme.

Stored as `app.json` in the data dir (beside the indexes, never in the archive), read at
start and written when the choice changes; a missing or unreadable file is no choice.
"""

from __future__ import annotations

import json
from pathlib import Path

FILE = "app.json"
"""The file in the data dir."""


def load(data_dir: Path) -> dict[str, object]:
    """The saved choices ({} when none were saved or the file cannot be read)."""
    try:
        data = json.loads((data_dir / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save(data_dir: Path, **choices: object) -> None:
    """Add `choices` to the saved ones (written whole, then renamed into place)."""
    data = {**load(data_dir), **choices}
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        tmp = data_dir / f".{FILE}.tmp"
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        tmp.replace(data_dir / FILE)
    except OSError:
        pass  # a read-only data dir: the choice holds for this run
