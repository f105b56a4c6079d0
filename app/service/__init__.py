"""The headless query service shared by the TUI, the MCP server, the hooks and the CLI.

`open_service` is the one way to a service: over a live archive's index, or over the
index in the data dir as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ccarchive.service.service import ArchiveService, ServiceError

if TYPE_CHECKING:
    from ccarchive.config import Settings
    from ccarchive.index.store import IndexStore
    from ccarchive.live.live_archive import LiveArchive

__all__ = ["ArchiveService", "ServiceError", "open_service"]


def open_service(settings: Settings, *, live: LiveArchive | None = None,
                 store: IndexStore | None = None,
                 redact_secrets: bool = True) -> ArchiveService:
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
        return ArchiveService(live.store, live.settings.archive_root,
                              redact_secrets=redact_secrets, live=live)
    if store is None:
        from ccarchive.index.store import IndexStore

        store = IndexStore(settings.archive_data_dir, archive_root=settings.archive_root)
    service = ArchiveService(store, settings.archive_root, redact_secrets=redact_secrets)
    service.use_semantic(settings)
    return service
