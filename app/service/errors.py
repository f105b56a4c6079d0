"""The one error the query service raises for a bad request.

It is a `ValueError`, so callers that only know the standard library still catch it; the
front ends turn it into their own message (a CLI error, an MCP `ToolError`).
"""

from __future__ import annotations


class ServiceError(ValueError):
    """A bad request: unknown id, bad date, limit out of range. The message says which."""
