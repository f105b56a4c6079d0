"""The one query service that the TUI, the MCP server, the hooks and the CLI all call.

Every question a view or a tool asks is a method of `ArchiveService`, returning the typed
models of `ccarchive.service.models`. A second implementation in a front end would be a
second answer to the same question, and the two would drift; so front ends format, they
never query. `open_service` is the one way to a service: over a live archive's index, or
over the index in the data dir as it is.

The service only reads. Who writes the index (this process or another) is the live
layer's business; the service is told its `role` for `status()`.

`ArchiveService` is the one facade; its methods live in one module per kind of question:

* `search`: full-text search (filters, kinds, ranking, hits, groups, facets);
* `session_ranking`: search by session, sessions ranked by their turns' evidence;
* `excerpts`: snippets of hits and pages of entry text, where text is cut and redacted;
* `readback`: entries by id, context, transcripts, positions, the live tail, tool inputs;
* `sessions`: session titles and figures, session lists, projects, status;
* `browse`: timeline, plans, memory files, prompt history;
* `semantic`: the optional semantic evidence the ranking mixes in, and its status line;

over `base` (the shared state and query helpers) and `arguments` (the one error, and the
checks of ids, limits and cursors).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ccarchive.service.base import ServiceBase
from ccarchive.service.browse import BrowseMixin
from ccarchive.service.excerpts import ExcerptsMixin
from ccarchive.service.readback import ReadbackMixin
from ccarchive.service.search import SearchMixin
from ccarchive.service.semantic import SemanticMixin
from ccarchive.service.session_ranking import FindingMixin
from ccarchive.service.sessions import SessionsMixin

if TYPE_CHECKING:
    from ccarchive.config import Settings
    from ccarchive.index.store import IndexStore
    from ccarchive.live.live_archive import LiveArchive

__all__ = ["ArchiveService", "open_service"]


class ArchiveService(
    SemanticMixin,
    SearchMixin,
    FindingMixin,
    ExcerptsMixin,
    ReadbackMixin,
    SessionsMixin,
    BrowseMixin,
    ServiceBase,
):
    """Read-only queries over one archive's index.

    Args:
        store: the opened index.
        archive_root: the archive, to read full entries back by offset.
        redact_secrets: redact credentials in every text returned (the default; see
            `ccarchive.redact`).
        live: the live archive keeping this index current, if any: the service reports
            its role (writer / read-only) in `status()`.
    """


def open_service(
    settings: Settings,
    *,
    live: LiveArchive | None = None,
    store: IndexStore | None = None,
    redact_secrets: bool = True,
) -> ArchiveService:
    """The service over an archive's index.

    Args:
        settings: the archive, the data dir, and whether search is also semantic.
        live: the live archive keeping the index current (started or not): the service
            reads its index and reports its role; `live.stop()` closes it.
        store: the index, when the caller opened it already (to build it first);
            otherwise the one in `settings`' data dir is opened as it is.
        redact_secrets: redact credentials in every text returned.
    """
    if live is not None:
        return ArchiveService(
            live.store, live.settings.archive_root, redact_secrets=redact_secrets, live=live
        )
    if store is None:
        from ccarchive.index.store import IndexStore

        store = IndexStore(settings.archive_data_dir, archive_root=settings.archive_root)
    service = ArchiveService(store, settings.archive_root, redact_secrets=redact_secrets)
    service.use_semantic(settings)
    return service
