"""What names a vector space, with nothing to import: the width of the vectors and the
static encoder's recipe version. Reading a manifest (`store`) or naming a space
(`semantic.vector_space`) needs only these, so `status` and a search with no vectors yet
import no numpy; every module of the package reads them here."""

from __future__ import annotations

DIM = 384
"""The width of all-MiniLM-L6-v2's vectors (both encoders')."""
TABLE_VERSION = 1
"""The static encoder's recipe (`token_vectors`), changed whenever it changes: vectors of
another version are another space (`semantic.vector_space`) and are built again."""
