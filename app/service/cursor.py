"""Paging: the opaque cursors the service hands out, and the limits a page may ask for.

A cursor is URL-safe base64 of a small JSON object (`o`: offset, `g`: the commit
generation the first page saw); callers pass back a `next_cursor` as given.
"""

from __future__ import annotations

import binascii
from typing import Any

import orjson

from ccarchive.service.errors import ServiceError

MAX_LIMIT = 500

_URLSAFE = bytes.maketrans(b"+/", b"-_")
_URLSAFE_BACK = bytes.maketrans(b"-_", b"+/")


def encode_cursor(data: dict[str, Any]) -> str:
    """URL-safe base64 of the cursor's JSON (binascii: `base64` costs 2 ms of imports)."""
    raw = binascii.b2a_base64(orjson.dumps(data), newline=False).translate(_URLSAFE)
    return raw.decode().rstrip("=")


def decode_cursor(cursor: str | None) -> dict[str, Any]:
    if not cursor:
        return {}
    try:
        pad = "=" * (-len(cursor) % 4)
        data = orjson.loads(binascii.a2b_base64((cursor + pad).encode().translate(
            _URLSAFE_BACK)))
    except (ValueError, binascii.Error, orjson.JSONDecodeError) as exc:
        raise ServiceError(f"invalid cursor {cursor[:40]!r}: pass back a next_cursor as given") \
            from exc
    if not isinstance(data, dict):
        raise ServiceError("invalid cursor: pass back a next_cursor as given")
    return data


def _check_limit(limit: int, name: str = "limit", top: int = MAX_LIMIT) -> int:
    if not isinstance(limit, int) or limit < 1 or limit > top:
        raise ServiceError(f"{name} must be between 1 and {top}, got {limit!r}")
    return limit
