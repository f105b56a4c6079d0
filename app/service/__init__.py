"""The headless query service shared by the TUI, the MCP server and the CLI."""

from __future__ import annotations

from app.service.service import ArchiveService, ServiceError

__all__ = ["ArchiveService", "ServiceError"]
