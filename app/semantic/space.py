"""What names a vector space, without numpy: the width of the vectors, the static
encoder's recipe version and where its table is kept. Reading a manifest (`store`),
naming a space (`semantic.vector_space`) or finding the table (`light`) needs only these,
so `status` and a search with no vectors yet import no numpy; every module of the package
reads them here (and this one nothing of the package but `model_files`)."""

from __future__ import annotations

from pathlib import Path

from ccarchive.semantic.model_files import FILES, cache_dir

DIM = 384
"""The width of all-MiniLM-L6-v2's vectors (both encoders')."""
TABLE_VERSION = 1
"""The static encoder's recipe (`token_vectors`), changed whenever it changes: vectors of
another version are another space (`semantic.vector_space`) and are built again."""


def table_path(data_dir: Path) -> Path:
    """Where the static encoder's table is kept: named by the pinned weights and the
    recipe's version."""
    weights = FILES["model.safetensors"][:16]
    return cache_dir(data_dir) / "static" / f"tokens-{weights}-v{TABLE_VERSION}.npy"
