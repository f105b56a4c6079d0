"""`ccarchive.text.clip`, the one way text is cut to a width everywhere."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ccarchive.text import ELLIPSIS, clip


@given(st.text(), st.integers(1, 200))
def test_a_clipped_text_fits_and_says_it_was_cut(text: str, width: int) -> None:
    out = clip(text, width)
    assert len(out) <= width
    if len(text) <= width:
        assert out == text
    else:
        assert out.endswith(ELLIPSIS) and text.startswith(out[:-1])
        assert not out[:-1][-1:].isspace()  # never "word …"


def test_clip_examples() -> None:
    assert clip("word " * 50, 20) == "word word word word…"
    assert clip("short", 5) == "short"
    assert clip("abcdef", 1) == ELLIPSIS
