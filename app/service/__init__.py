"""The headless query service shared by the TUI, the MCP server and the CLI."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ccarchive.service.service import ArchiveService, ServiceError

if TYPE_CHECKING:
    from ccarchive.config import Settings
    from ccarchive.live.live_archive import LiveArchive

__all__ = ["ArchiveService", "ServiceError", "live_service", "open_live_service"]


def live_service(live: LiveArchive, *, redact_secrets: bool = True) -> ArchiveService:
    """The service over a live archive's index; it reports the archive's role."""
    return ArchiveService(live.store, live.settings.archive_root,
                          redact_secrets=redact_secrets, live=live)


def open_live_service(settings: Settings, *, watch: bool = True, never_write: bool = False,
                      redact_secrets: bool = True) -> ArchiveService:
    """Open the archive for a long-running front end: index it (or follow whoever does;
    only follow with `never_write`) and return the service; `service.live.stop()` closes
    it."""
    from ccarchive.live.live_archive import LiveArchive

    live = LiveArchive(settings, watch=watch, never_write=never_write)
    return live_service(live.start(), redact_secrets=redact_secrets)
