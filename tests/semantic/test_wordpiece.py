"""The query's word pieces in Python (`semantic.wordpiece`) against the model's own Rust
tokenizer: the same ids for every text the Python one takes, hence the same query vector;
the vocabulary file derived from the pinned `tokenizer.json` only, and made again when
damaged."""

from __future__ import annotations

import json
import shutil
import string
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ccarchive.semantic.encoder import load_tokenizer
from ccarchive.semantic.model_files import ModelError
from ccarchive.semantic.token_vectors import FEW, MAX_TOKENS, TokenVectors
from ccarchive.semantic.wordpiece import WordPiece, derive_vocab, ensure_vocab, fits, vocab_path
from tests.support.encoders import with_static


@pytest.fixture(scope="module")
def rust(model_dir: Path):
    return load_tokenizer(model_dir, MAX_TOKENS)


@pytest.fixture(scope="module")
def static(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> TokenVectors:
    # its table and vocabulary made once (tests/support/encoders.py); the vocabulary's
    # making is tested below
    return TokenVectors(model_dir, with_static(tmp_path_factory.mktemp("data")))


@pytest.fixture(scope="module")
def words(static: TokenVectors) -> list[str]:
    """Words of the vocabulary, pieces and whole, to build texts that hit it."""
    return [t for t in static.words.vocab if t.isascii() and "[" not in t][:30000:7]


def rust_ids(rust, text: str) -> list[int]:
    return rust.encode(text, add_special_tokens=False).ids


ASCII = st.text(alphabet=st.characters(max_codepoint=127), max_size=200)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=ASCII)
@example("why does the daily forecast job take so long?")
@example("ParseError: unexpected token '}' at line 3 -- see src/parser.rs:42 (v2.0.1)")
@example("tab\there\x0bvertical\x0cfeed\x1fseparator\x7fdelete\x00nul\r\nnew")
@example("x" * 101 + " " + "y" * 100)
@example("unbelievably antidisestablishmentarianism qwxzqwxz")
@example("[mask] [Cls] [ SEP ]")
def test_ascii_text_gives_the_rust_tokenizers_ids(static: TokenVectors, rust, text: str) -> None:
    if not fits(text):
        assert "[" in text  # ASCII only fails for a special token written out
        return
    assert static.words.ids(text, MAX_TOKENS) == rust_ids(rust, text)


VOCABULARY_EXAMPLES = 50
"""Texts of vocabulary words the suite draws (9 ms each: ASCII texts cost a fraction, and
the suite draws 400 of them); its twin in the slow tier draws 400."""


def _vocabulary_text_agrees(static: TokenVectors, rust, words: list[str], data) -> None:
    parts = data.draw(
        st.lists(
            st.one_of(
                st.sampled_from(words).map(lambda w: w.removeprefix("##")),
                st.sampled_from(string.punctuation),
                st.sampled_from([" ", "  ", "\n", "\t", ""]),
                st.from_regex(r"[A-Za-z0-9]{1,12}", fullmatch=True),
            ),
            max_size=60,
        )
    )
    text = "".join(parts)
    assert static.words.ids(text, MAX_TOKENS) == rust_ids(rust, text)


@settings(
    max_examples=VOCABULARY_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_texts_of_vocabulary_words_and_punctuation_agree(
    static: TokenVectors, rust, words: list[str], data
) -> None:
    _vocabulary_text_agrees(static, rust, words, data)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_texts_of_vocabulary_words_and_punctuation_agree_many(
    static: TokenVectors, rust, words: list[str], data
) -> None:
    """`test_texts_of_vocabulary_words_and_punctuation_agree` over 400 drawn texts, not
    50: in the slow tier for its 3.5 CPU-s."""
    _vocabulary_text_agrees(static, rust, words, data)


def test_a_long_text_is_cut_where_the_rust_tokenizer_cuts(static: TokenVectors, rust) -> None:
    text = " ".join(["alpha", "beta-gamma", "delta's"] * 300)
    ids = static.words.ids(text, MAX_TOKENS)
    assert len(ids) == MAX_TOKENS and ids == rust_ids(rust, text)


def test_what_it_does_not_take_goes_to_the_rust_tokenizer(static: TokenVectors) -> None:
    for text in ("café au lait", "naïve [MASK] test", "中文 search", "quote “this”", "[CLS]"):
        assert not fits(text)
    assert fits("plain words, and punctuation: all ASCII!")


@pytest.mark.parametrize(
    "queries",
    [
        ["potted herbs fading in the summer heat"],
        ["retry with backoff", "parser crash on empty input"],
        ["café crème", "deploy"],  # one not ASCII: both through the Rust tokenizer
    ],
)
def test_the_query_vector_is_the_same_either_way(static: TokenVectors, queries) -> None:
    """A query encoded alone (Python's pieces when it fits) and among more texts than `FEW`
    (always the Rust tokenizer's batch): the same vector, bit for bit."""
    fill = [f"filler text number {i}" for i in range(FEW + 1)]
    alone = static.encode(queries)
    batched = static.encode([*queries, *fill])[: len(queries)]
    assert np.array_equal(alone, batched)


def test_the_vocabulary_comes_only_from_the_pinned_tokenizer(
    model_dir: Path, tmp_path: Path
) -> None:
    fake = tmp_path / "model"
    shutil.copytree(model_dir, fake)
    path = fake / "tokenizer.json"
    spec = json.loads(path.read_text())
    spec["normalizer"]["lowercase"] = False  # a tokenizer this module would not reproduce
    path.write_text(json.dumps(spec))
    with pytest.raises(ModelError, match="not the pinned tokenizer"):
        derive_vocab(fake)
    with pytest.raises(ModelError):
        TokenVectors(fake, tmp_path / "data")


def test_a_damaged_vocabulary_file_is_made_again(model_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    path = ensure_vocab(model_dir, data)
    assert path == vocab_path(data)
    good = path.read_bytes()
    path.write_bytes(good.replace(b"\nthe\n", b"\nteh\n"))  # same size, other words
    assert ensure_vocab(model_dir, data).read_bytes() == good
    assert WordPiece(path).vocab["the"] == 1996
