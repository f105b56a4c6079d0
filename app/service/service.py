"""The one query service that the TUI, the MCP server and the CLI all call.

Every question a view or a tool asks is a method here, returning the typed models of
`ccarchive.service.models`. A second implementation in a front end would be a second answer
to the same question, and the two would drift; so front ends format, they never query.

The service only reads. Who writes the index (this process or another) is the live
layer's business; the service is told its `role` for `status()`.

`ArchiveService` is the one facade; its methods live in one module per kind of question:

* `search`: full-text search (filters, kinds, ranking, hits, groups, facets);
* `excerpts`: snippets of hits and pages of entry text, where text is cut and redacted;
* `readback`: entries by id, context, transcripts, positions, the live tail;
* `sessions`: session titles and figures, session lists, projects, status;
* `browse`: timeline, plans, memory files, prompt history;
* `semantic`: the optional semantic evidence the finder mixes in, and its status line;

over `base` (the shared state and query helpers), `cursor` (paging) and `errors`.
"""

from __future__ import annotations

from ccarchive.service.base import KIND_ORDER, ServiceBase
from ccarchive.service.browse import BrowseMixin
from ccarchive.service.cursor import MAX_LIMIT, decode_cursor, encode_cursor
from ccarchive.service.errors import ServiceError
from ccarchive.service.excerpts import SNIPPET_CHARS, ExcerptsMixin
from ccarchive.service.readback import ENTRY_CHARS, ENTRY_KINDS, ReadbackMixin
from ccarchive.service.search import BASE_SCORE, RANK_POOL_MAX, RANK_POOL_MIN, SearchMixin
from ccarchive.service.semantic import SemanticMixin
from ccarchive.service.session_ranking import FindingMixin
from ccarchive.service.sessions import SessionsMixin

__all__ = [
    "BASE_SCORE", "ENTRY_CHARS", "ENTRY_KINDS", "KIND_ORDER", "MAX_LIMIT", "RANK_POOL_MAX",
    "RANK_POOL_MIN", "SNIPPET_CHARS", "ArchiveService", "ServiceError", "decode_cursor",
    "encode_cursor",
]


class ArchiveService(SemanticMixin, SearchMixin, FindingMixin, ExcerptsMixin, ReadbackMixin,
                     SessionsMixin, BrowseMixin, ServiceBase):
    """Read-only queries over one archive's index.

    Args:
        store: the opened index.
        archive_root: the archive, to read full entries back by offset.
        redact_secrets: redact credentials in every text returned (the default; see
            `ccarchive.redact`).
        live: the live archive keeping this index current, if any: the service reports
            its role (writer / read-only) in `status()`.
    """
