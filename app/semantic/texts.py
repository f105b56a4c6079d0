"""What is embedded, read from the index's stored texts: a turn's question and answer, a
session's title.

A turn's text is its prompt and the start of its answer (the assistant's prose, in
order), about what the encoder reads (256 tokens): what was asked and what was said back,
which a reworded query is about. A long answer says more than its start: the rest of its
prose is cut into passages of about the same size (`PASSAGE_CHARS`, at most `PASSAGES`
of them), each embedded with the start of the prompt it answers, so a reworded memory of
something said late in a turn has a vector to meet. Tool calls and their output are left
out: they are what the words already find. A session's text is its title and its plans'
titles.

A passage's row is keyed by its turn's number plus `PART` times its place (1, 2, ...):
`seq_of` gives the turn back, so every row of a turn counts for that turn.

Which turns to (re)read is found from the documents committed since the vectors were
last brought up to date (their `gen`): the files they are in, then the turns of those
files that gained prompts or answers. A live append touches one turn (the last), and
reading it back costs the same however long the session is.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

import tantivy
from tantivy import Occur, Query

from ccarchive.index import schema as S

PROMPT_CHARS = 700
"""Of the prompt: a long paste would leave no room for the answer."""
ANSWER_CHARS = 1200
"""Of the answer: about what is left of the encoder's 256 tokens (~4.5 characters each)."""
TURN_DOCS = 400
"""Entries of a turn read for its texts, in order."""
PASSAGE_CHARS = 1000
"""Of the answer, per passage after the first text (with `PASSAGE_PROMPT` of the prompt,
about the encoder's 256 tokens)."""
PASSAGE_PROMPT = 160
PASSAGES = 12
"""Passages of one turn at most, evenly spread over its answer when it has more."""
PART = 1 << 48
"""A passage's row is `seq + PART * n` (a `seq` is a byte offset times 256: no
transcript reaches 2**40 bytes)."""
SESSION_ROW = -1
"""The turn number of a session's own row: no turn has it (a prompt's seq is >= 0, and 0
when it is the first line of its file)."""
PAGE = 10_000


@dataclass(frozen=True)
class Text:
    skey: int
    turn: int  # the prompt's seq (+ PART x n for a passage); SESSION_ROW for the title
    path: str  # the transcript ("" for a session row)
    text: str

    @property
    def digest(self) -> int:
        return text_hash(self.text)


def seq_of(turn: int) -> int:
    """The prompt `seq` of a row's turn number (a passage's included)."""
    return turn % PART if turn >= 0 else turn


def text_hash(text: str) -> int:
    """A 63-bit hash of a text (stored with its vector: unchanged texts are not re-embedded)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1


def max_gen(searcher: tantivy.Searcher, schema: tantivy.Schema) -> int:
    """The newest commit generation the searcher sees: the indexer stamps it on its
    `state:_meta` document at every commit (one lookup); else the largest of any document."""
    hits = searcher.search(Query.term_query(schema, S.ID, "state:_meta"), 1, count=False).hits
    if hits:
        gen = searcher.doc(hits[0][1]).get_first(S.GEN)
        if gen:
            return int(gen)
    agg = searcher.aggregate(Query.all_query(), {"g": {"max": {"field": S.GEN}}})
    value = agg.get("g", {}).get("value")
    return int(value) if value else 0


def _since(schema: tantivy.Schema, gen: int, top: int) -> Query:
    return Query.range_query(
        schema, S.GEN, tantivy.FieldType.Unsigned, gen + 1, top, use_inverted_index=True
    )


def _kinds(schema: tantivy.Schema, *kinds: str) -> Query:
    return Query.term_set_query(schema, S.KIND, list(kinds))


def _all(*qs: Query) -> Query:
    return Query.boolean_query([(Occur.Must, q) for q in qs])


def changed_turns(
    searcher: tantivy.Searcher, schema: tantivy.Schema, gen: int, top: int
) -> list[tuple[str, int]]:
    """(path, prompt seq) of every turn that gained a prompt or an answer in a commit of
    generation (gen, top], in file order."""
    new = _all(_since(schema, gen, top), _kinds(schema, S.PROMPT, S.ASSISTANT))
    agg = searcher.aggregate(new, {"p": {"terms": {"field": S.PATH, "size": 1_000_000}}})
    paths = sorted(b["key"] for b in agg.get("p", {}).get("buckets", []) if b.get("key"))
    out: list[tuple[str, int]] = []
    for path in paths:
        q = _all(Query.term_query(schema, S.PATH, path), new)
        seen: set[int] = set()
        for addrs in _pages(searcher, q):
            seen.update(
                S.turn_prompt_seq(int(tk or 0)) for tk in searcher.fast_field_values(S.TURN, addrs)
            )
        out += [(path, seq) for seq in sorted(seen)]
    return out


def changed_sessions(
    searcher: tantivy.Searcher, schema: tantivy.Schema, gen: int, top: int
) -> list[str]:
    """Session ids whose session document was written in a commit of (gen, top]."""
    q = _all(_since(schema, gen, top), Query.term_query(schema, S.KIND, S.SESSION_DOC))
    return sorted(
        {S.first_value(searcher.doc(a), S.SESSION) for addrs in _pages(searcher, q) for a in addrs}
        - {""}
    )


def _pages(searcher: tantivy.Searcher, q: Query) -> Iterator[list[tantivy.DocAddress]]:
    n = searcher.search(q, 1, count=True).count or 0
    if n:
        hits = searcher.search(q, n, count=False).hits
        for i in range(0, len(hits), PAGE):
            yield [a for _s, a in hits[i : i + PAGE]]


def turn_text(
    searcher: tantivy.Searcher, schema: tantivy.Schema, path: str, seq: int
) -> Text | None:
    """The first text of the turn opened by the prompt at `seq` of `path` (its prompt and
    the start of its answer); None when that is no main-conversation prompt."""
    texts = turn_texts(searcher, schema, path, seq)
    return texts[0] if texts else None


def turn_texts(
    searcher: tantivy.Searcher, schema: tantivy.Schema, path: str, seq: int
) -> list[Text]:
    """The texts of the turn opened by the prompt at `seq` of `path`: its prompt with the
    start of its answer, then passages of the rest of its answer (see the module); none
    when that is no main-conversation prompt (a subagent's, a sidechain's, or gone)."""
    lo = seq << 12
    turn = Query.range_query(
        schema, S.TURN, tantivy.FieldType.Unsigned, lo, S.turn_key(seq, 1 << 30)
    )
    q = _all(Query.term_query(schema, S.PATH, path), turn, _kinds(schema, S.PROMPT, S.ASSISTANT))
    hits = searcher.search(
        q, TURN_DOCS, count=False, order_by_field=S.SEQ, order=tantivy.Order.Asc
    ).hits
    prompt, answer, skey = "", [], 0
    for _v, addr in hits:
        doc = searcher.doc(addr)
        kind = S.first_value(doc, S.KIND)
        if kind == S.PROMPT and int(S.first_value(doc, S.SEQ, 0)) == seq:
            if S.first_value(doc, S.AGENT):
                return []
            prompt = S.first_value(doc, S.TEXT)
            skey = S.session_key(S.first_value(doc, S.SESSION))
        elif kind == S.ASSISTANT and not S.first_value(doc, S.AGENT):
            answer.append(" ".join(S.first_value(doc, S.TEXT).split()))
    if not prompt or not skey:
        return []
    prompt = " ".join(prompt.split())
    body = " ".join(answer)
    first = body[:ANSWER_CHARS]
    out = [
        Text(
            skey, seq, path, f"{prompt[:PROMPT_CHARS]}\n{first}" if first else prompt[:PROMPT_CHARS]
        )
    ]
    rest = body[len(first) :]
    windows = [rest[i : i + PASSAGE_CHARS] for i in range(0, len(rest), PASSAGE_CHARS)]
    windows = [w for w in windows if len(w) >= PASSAGE_CHARS // 5]  # not a last crumb
    if len(windows) > PASSAGES:
        step = len(windows) / PASSAGES
        windows = [windows[int(i * step)] for i in range(PASSAGES)]
    head = prompt[:PASSAGE_PROMPT]
    out += [Text(skey, seq + PART * (n + 1), path, f"{head}\n{w}") for n, w in enumerate(windows)]
    return out


def session_text(searcher: tantivy.Searcher, schema: tantivy.Schema, sid: str) -> Text | None:
    """A session's title and the titles of the plans it is linked to."""
    hits = searcher.search(Query.term_query(schema, S.ID, f"session:{sid}"), 1, count=False).hits
    if not hits:
        return None
    doc = searcher.doc(hits[0][1])
    title = S.first_value(doc, S.TITLE)
    plans = []
    for slug in doc.get_all(S.SLUG)[:3]:
        q = _all(Query.term_query(schema, S.KIND, S.PLAN), Query.term_query(schema, S.SLUG, slug))
        for _s, a in searcher.search(q, 4, count=False).hits:
            pdoc = searcher.doc(a)
            if not S.first_value(pdoc, S.AGENT):
                plans.append(S.first_value(pdoc, S.TITLE))
                break
    text = " · ".join(t for t in [title, *plans] if t)
    if not text or title == sid[:8] and not plans:
        return None  # no title of its own: nothing to say beyond its turns
    return Text(S.session_key(sid), SESSION_ROW, "", text)
