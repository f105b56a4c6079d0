"""The model's WordPiece tokenizer for one short ASCII text, in Python: a query's ids without
importing `tokenizers` or parsing `tokenizer.json`.

Why: a `ccarchive search` process encodes one query. Loading the Rust tokenizer costs its
import and the parse of a 700 KB JSON file, about a third of what semantic search adds
to the command; the query's few words need none of it. The vocabulary is kept as a
derived file beside the static table (`<data dir>/models/all-MiniLM-L6-v2/static/`), one
token a line in id order, made once from the pinned `tokenizer.json` (its sha256 checked
first, and its settings checked to be the ones written here) and recorded with its own
sha256 like the table.

What it does is all-MiniLM-L6-v2's `tokenizer.json` for ASCII text (BertNormalizer:
control characters dropped, whitespace made spaces, lowercased; BertPreTokenizer: split
on whitespace and on every ASCII punctuation character; WordPiece: longest match first,
`##` for what follows, a word of more than 100 characters or with a piece not in the
vocabulary is `[UNK]`). Anything else, a character outside ASCII (accents, CJK, Unicode
punctuation) or a special token written out (`[MASK]`), goes to the Rust tokenizer
(`fits` says which): the two agree id for id on every text this one takes (a test
compares them on generated texts).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ccarchive.semantic.model_files import FILES, ModelError, cache_dir, file_sha256, is_recorded

VOCAB_VERSION = 1
UNK = "[UNK]"
PREFIX = "##"
MAX_WORD = 100
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
"""Matched in the raw text by the Rust tokenizer before anything else: a text holding
one is left to it."""
SETTINGS = {
    "normalizer": {
        "type": "BertNormalizer",
        "clean_text": True,
        "handle_chinese_chars": True,
        "strip_accents": None,
        "lowercase": True,
    },
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "model": {
        "type": "WordPiece",
        "unk_token": UNK,
        "continuing_subword_prefix": PREFIX,
        "max_input_chars_per_word": MAX_WORD,
    },
}
"""The settings of `tokenizer.json` this module reproduces (checked when the vocabulary
is derived)."""

_DROPPED = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""ASCII control characters other than tab, newline and return (category Cc): dropped."""
_WORDS = re.compile(r"[A-Za-z0-9]+|[!-/:-@\[-`{-~]")
"""After whitespace splits words: runs of letters and digits, and each punctuation
character alone (every printable ASCII character that is neither is punctuation)."""


def vocab_path(data_dir: Path) -> Path:
    digest = FILES["tokenizer.json"][:16]
    return cache_dir(data_dir) / "static" / f"vocab-{digest}-v{VOCAB_VERSION}.txt"


def derive_vocab(model_dir: Path) -> bytes:
    """The vocabulary file's bytes from `tokenizer.json`, once its sha256 is the pinned
    one and its settings are `SETTINGS`; else `ModelError`."""
    source = model_dir / "tokenizer.json"
    got = file_sha256(source)
    if got != FILES["tokenizer.json"]:
        raise ModelError(f"{source} is not the pinned tokenizer (sha256 {got}): not used")
    spec = json.loads(source.read_bytes())
    model = {k: v for k, v in spec["model"].items() if k != "vocab"}
    have = {"normalizer": spec["normalizer"], "pre_tokenizer": spec["pre_tokenizer"]}
    if {**have, "model": model} != SETTINGS:
        raise ModelError(f"{source}: settings other than the ones ccarchive reproduces")
    vocab: dict[str, int] = spec["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.__getitem__)
    if [vocab[t] for t in tokens] != list(range(len(tokens))) or any(
        t != t.strip() or not t for t in tokens
    ):
        raise ModelError(f"{source}: a vocabulary that one token a line cannot hold")
    return "\n".join(tokens).encode() + b"\n"


def ensure_vocab(model_dir: Path, data_dir: Path) -> Path:
    """The vocabulary's file, derived first when missing or not the one recorded."""
    from ccarchive.semantic.model_files import write_recorded

    path = vocab_path(data_dir)
    if path.is_file() and is_recorded(path):
        return path
    write_recorded(path, derive_vocab(model_dir))
    return path


def fits(text: str) -> bool:
    """Whether this tokenizer gives the Rust tokenizer's ids for `text`."""
    return text.isascii() and not any(s in text for s in SPECIALS)


class WordPiece:
    """The vocabulary in memory (a dict: ~10 ms to read) and `ids(text)` for a text that
    `fits`."""

    def __init__(self, path: Path) -> None:
        tokens = path.read_text().split("\n")[:-1]
        self.vocab = {t: i for i, t in enumerate(tokens)}
        self.unk = self.vocab[UNK]

    def ids(self, text: str, limit: int) -> list[int]:
        """The ids of `text` (no [CLS] or [SEP]), at most `limit`."""
        out: list[int] = []
        text = _DROPPED.sub("", text).lower()
        for chunk in text.split():
            for word in _WORDS.findall(chunk):
                out.extend(self._word(word))
                if len(out) >= limit:
                    return out[:limit]
        return out

    def _word(self, word: str) -> list[int]:
        if len(word) > MAX_WORD:
            return [self.unk]
        vocab, pieces, start = self.vocab, [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if not start else PREFIX + word[start:end]
                got = vocab.get(piece)
                if got is not None:
                    pieces.append(got)
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return pieces
