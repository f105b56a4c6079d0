"""The secrets suite's checker reads what it should: a page cursor (two numbers the
service made) is not a leak even when its base64 shares 8 characters with a planted
secret, while the same characters anywhere else, a JWT's segment included, still are."""

from __future__ import annotations

import base64
import json

from hypothesis import given
from hypothesis import strategies as st

from ccarchive.service.arguments import encode_cursor
from tests.support.secret_archive import Plant
from tests.support.secret_surfaces import Exposure

GEN = st.integers(min_value=10**12, max_value=2 * 10**12)
OFFSET = st.integers(min_value=0, max_value=1_000_000)


def _plant(secret: str) -> Plant:
    return Plant("transcript", "jwt", (secret,), "needle", ("needle",))


@given(OFFSET, GEN, st.integers(min_value=0, max_value=8))
def test_a_cursor_sharing_a_window_with_a_secret_is_not_a_leak(offset, gen, start) -> None:
    cursor = encode_cursor({"o": offset, "g": gen})
    window = cursor[start : start + 8]
    ex = Exposure([_plant("Qx" + window + "Qx")])
    ex.show("search", {"next_cursor": cursor, "hits": [f"page on: {cursor}"]})
    assert not ex.readable()
    # the same characters outside a cursor are read as a leak
    ex.show("search", {"text": f"token zz{window}zz"})
    assert ex.readable()


@given(GEN)
def test_a_jwt_segment_is_read_though_it_starts_as_a_cursor_does(gen) -> None:
    """Only a run the service accepts as a cursor is passed over: a JWT's header begins
    with the same `eyJ` but holds other keys."""
    header = base64.urlsafe_b64encode(json.dumps({"alg": "HS256", "g": gen}).encode())
    segment = header.decode().rstrip("=")
    assert segment.startswith("eyJ")
    ex = Exposure([_plant(segment)])
    ex.show("search", {"text": f"Authorization: Bearer {segment}"})
    assert ex.readable()
