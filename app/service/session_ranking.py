"""Finding sessions: results ranked by the evidence of their best turn and of the session.

Why not rank entries: a question's words are spread over one *turn* (a human prompt and
everything up to the next: the answer, the tool calls), and a session that did the thing
has one turn dense in them, while a long session that mentions them in passing does not.
So each term of the query is searched on its own over the entries, and its best score is
kept per turn and per session (the entries' kind weights applied: prompts and plans over
prose, subagent chatter and file bodies under it, see `schema.KIND_RANK` and the reader).
A turn scores the sum over terms of its best entry for each term; a session the same over
all its entries, plus its title. The two are normalised by the best of each and mixed,
the turn weighing more (`TURN_WEIGHT`): the mix measured best on the eval harness
(`tests/eval`), above summing several turns (long sessions came back) and above rank
fusion. Words near each other (a phrase with slop) add to their turn.

Cost: one search per term (a few hundred hits each, read through fast columns only), so
a plain query of five words is five small searches; only the hits shown are read.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import tantivy
from tantivy import Occur, Query

from ccarchive.index import schema as S
from ccarchive.index.query.compiler import CompiledQuery
from ccarchive.index.schema import first_value
from ccarchive.service import models as M
from ccarchive.service.arguments import encode_cursor
from ccarchive.service.base import IndexContext, as_datetime, prompt_addresses
from ccarchive.service.excerpts import Excerpts
from ccarchive.service.passages import PASSAGE_CHARS, Terms, Window
from ccarchive.service.semantic import Dense, DenseSearch, dense_weight, mix
from ccarchive.service.sessions import SessionCatalog
from ccarchive.text import clip

TERM_POOL = 200
"""Best hits read per term. A rare term's hits all fit; a common term's best few hundred
carry what it can add (its weight is small)."""
TURN_WEIGHT = 0.6
"""Share of the best turn in a session's score; the session's own evidence has the rest."""
PROXIMITY_WEIGHT = 0.5
"""How much the query's words side by side (slop 3) add, as a share of one term."""
TITLE_WEIGHT = 1.0
"""A session title's match counts as much as one term's best entry."""
PROMPT_CHARS = 300
"""How much of a turn's prompt a result shows."""
SPARE_TURNS = 2
"""Turns read beyond those shown, so that one answering can move up past one that does
not (`_answering_first`)."""
ASIDE_KINDS = frozenset({S.HISTORY, S.SUMMARY})
"""Kinds that repeat a turn the session has: a history line repeats its prompt, a summary
retells it. (A plan or a memory file is a document of its own, often the very answer: an
agent asked about a plan reads the plan, so it keeps its place by its score.)"""
DOCUMENT_KINDS = frozenset({S.PLAN, S.MEMORY})
"""Documents beside the conversation: shown first only when they hold more of the query
than the conversation's best turn (`_documents_after_their_turn`)."""
COMMAND_OUTPUT = ("<bash-stdout>", "<bash-input>", "<bash-stderr>", "<local-command-stdout>")
"""How a prompt that is a command's output, not a question, begins (`!cmd`, `/cmd`)."""
ANSWER_CANDIDATES = 4
"""Entries of a turn (its best by evidence) weighed for showing it by their passage."""
NEAR_BEST = 0.5
"""... those with at least this share of the best entry's evidence."""


@dataclass
class _Turn:
    skey: Any
    turn: int
    per_term: dict[int, float] = field(default_factory=dict)
    best: tuple[float, Any] = (0.0, None)  # (entry evidence, address) of its best entry
    entries: dict[Any, list] = field(default_factory=dict)  # (seg, doc) -> [evidence, addr]

    @property
    def score(self) -> float:
        return sum(self.per_term.values())


@dataclass
class _Session:
    key: Any
    per_term: dict[int, float] = field(default_factory=dict)
    title: float = 0.0
    turns: list[_Turn] = field(default_factory=list)
    hits: int = 0

    @property
    def score(self) -> float:
        return sum(self.per_term.values()) + self.title


@dataclass
class _ShownTurns:
    """The turns a page shows, per session in rank order, and their opening prompts."""

    rows: list[tuple[float, _Session, list[tuple[_Turn, tantivy.Document, Window | None]]]]
    prompts: dict[tuple[str, int], tantivy.Document]


SIDE_SEARCHES = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ccarchive-side-search")
"""Where a ranking's side searches run (`SessionRanking._side_searches`) while its own
thread gathers the words' hits: Tantivy lets go of Python's lock while it searches, and
the two took about a fifth of a question's time (the count of a question of seven common
words alone 1-2 ms on a 350 MB archive), now hidden behind the gathering when a core is
free. A query of one word runs them in place: waking a thread cost it more than its one
title search (quiet machine, 66 queries: p50 6.25 ms in place, 6.67 on the thread; the
questions among them 18.0 and 17.0). Two threads, so that two searches at once (the TUI's
and a tool's) do not queue."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off while one search is ranked.

    Ranking a question makes some ten thousand small objects that all live until the page
    is built (each hit's turn, session and entry records), so the collector's youngest
    generation fills every 700 of them and is walked again and again, each time over
    everything made so far: gathering and ranking the hits of 86 queries took about a
    third less CPU with it held off. The ranking makes no reference cycles, so all of it
    is freed as usual when the search returns; the collector runs again from there. It is
    resumed only if it was running (another thread's search may hold it off too: it
    resumes when the last of them that found it running finishes)."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


class SessionRanking:
    """Sessions ranked by their best turn and their own evidence (see the module), with
    the semantic evidence mixed in when a `DenseSearch` is given."""

    def __init__(self, ctx: IndexContext, catalog: SessionCatalog, excerpts: Excerpts) -> None:
        self.ctx = ctx
        self.catalog = catalog
        self.excerpts = excerpts

    def find_sessions(
        self,
        searcher: tantivy.Searcher,
        cq: CompiledQuery,
        base: tantivy.Query,
        offset: int,
        limit: int,
        per_group: int,
        chars: int,
        page: M.SearchPage,
        gen: int | None,
        passage_chars: int = PASSAGE_CHARS,
        *,
        dense: DenseSearch | None = None,
        bare_filters: tantivy.Query | None = None,
        words_filter: list[tuple[Occur, Query]] | None = None,
    ) -> None:
        """One page of `search(group_by_session=True)` for a query with words, into
        `page`: `base` is the search's query with its filters and kinds. With `dense`
        (semantic search on), each session's closeness in meaning is mixed in and
        sessions the words missed may enter if their closest turn passes
        `bare_filters`, the search's filters without its words (`base` if None).
        `words_filter`, when given, is what each term's search is kept to in place of
        `base`: the filters alone (unscored clauses), for a query that each of its terms
        satisfies."""
        terms = cq.rank_terms
        filt = [(Occur.Must, Query.const_score_query(base, 0.0))]
        term_filt = filt if words_filter is None else words_filter
        weights = self.term_weights(searcher, terms)
        turns: dict[tuple[Any, int], _Turn] = {}
        sessions: dict[Any, _Session] = {}
        searches = [(i, q) for i, (_t, q, _r) in enumerate(terms)]
        if cq.near is not None:
            searches.append((-1, cq.near))
        # a query of one word kept to the filters alone matches what `base` matches: its
        # own search counts the entries (one search, not two)
        counted = len(searches) == 1 and words_filter is not None
        # the count of several words' matches is worth a thread's hand-off; the titles
        # of one word's, alone, are not (measured: `SIDE_SEARCHES`)
        side = (
            None
            if counted
            else SIDE_SEARCHES.submit(self._side_searches, searcher, cq, base, count=True)
        )
        for ti, q in searches:
            # the words side by side keep `base`: a word of several tokens (a path) is a
            # phrase of its own, which the looser phrase of all the words does not imply
            hits, skeys, tkeys, ranks, count = _term_hits(
                searcher, q, filt if ti < 0 else term_filt, count=counted
            )
            if counted:
                page.total = count
            if hits:
                _gather(ti, hits, skeys, tkeys, ranks, turns, sessions)
        if side is None:
            titles, _ = self._side_searches(searcher, cq, base, count=False)
        else:
            titles, page.total = side.result()
        _title_evidence(titles, sessions)
        meaning = (
            dense.evidence(
                searcher, cq, base if bare_filters is None else bare_filters, set(sessions)
            )
            if dense is not None
            else None
        )
        if meaning is not None:  # sessions found by meaning alone, shown by their best turn
            for key, turn, addr in meaning.entrants:
                sessions[key] = _Session(key, turns=[_Turn(key, turn, best=(0.0, addr))])
            meaning.weight = dense_weight(meaning.weight, word_coverage(sessions, weights))
        ranked = _rank(sessions, meaning)
        shown = ranked[offset : offset + limit]
        if dense is not None and meaning is not None:  # each shown: its turn closest in meaning
            dense.add_closest_turns(searcher, [s for _sc, s in shown], meaning, _Turn)
        snip = self.excerpts.snippets(searcher, cq)
        words = [t for t, _q, _r in terms]
        keep = max(1, per_group)
        evidence = Terms.of(words, weights)
        picked = self._shown_turns(searcher, shown, keep, evidence, passage_chars, weights)
        prompts = picked.prompts
        self.catalog.prefetch_titles(
            first_value(rows[0][1], S.SESSION) for _sc, _s, rows in picked.rows if rows
        )
        turns_shown = max(1, per_group - 1)  # one turn more than shown: see `_group`
        page.groups = [
            self._group(
                s,
                score,
                rows,
                prompts,
                snip,
                chars,
                weights,
                words,
                evidence,
                passage_chars,
                turns_shown,
            )
            for score, s, rows in picked.rows
        ]
        page.hits = [g.hits[0] for g in page.groups if g.hits]
        if offset + limit < len(ranked):
            page.next_cursor = encode_cursor(
                {"o": offset + limit, "g": gen or self.ctx.visible_gen(searcher)}
            )

    def _shown_turns(
        self,
        searcher: tantivy.Searcher,
        shown: list[tuple[float, _Session]],
        keep: int,
        evidence: Terms,
        width: int,
        weights: list[float],
    ) -> _ShownTurns:
        """Each shown session's first `keep` turns in the order shown, each with the entry
        that shows it (`_answer_doc`), and the prompts that opened them.

        The order is by score, but an aside or a document may give way to a turn that
        asked and was answered (`_answering_first`), so `SPARE_TURNS` more are weighed
        for it. They are weighed only when one of the first `keep` is such a turn: when
        none is, `_answering_first` keeps the first `keep` as they are, and choosing the
        entry that shows each spare turn (reading its candidates, weighing their
        windows) would be wasted: half of the entries chosen at the MCP tool's
        arguments."""
        ranked = {
            id(s): [
                t
                for t in sorted(s.turns, key=lambda t: (-t.score, t.turn))[: keep + SPARE_TURNS]
                if t.best[1] is not None
            ]
            for _sc, s in shown
        }
        first = {
            key: [(t, *self._answer_doc(searcher, t, evidence, width)) for t in turns[:keep]]
            for key, turns in ranked.items()
        }
        prompts = self._turn_prompts(
            searcher,
            [(doc, S.turn_prompt_seq(t.turn)) for rows in first.values() for t, doc, _w in rows],
        )
        spare = {
            key: [(t, *self._answer_doc(searcher, t, evidence, width)) for t in ranked[key][keep:]]
            for key, rows in first.items()
            if not all(_in_conversation(row, prompts) for row in rows)
        }
        if spare:
            prompts.update(
                self._turn_prompts(
                    searcher,
                    [
                        (doc, S.turn_prompt_seq(t.turn))
                        for rows in spare.values()
                        for t, doc, _w in rows
                    ],
                )
            )
        rows = [
            (
                score,
                s,
                _answering_first(first[id(s)] + spare[id(s)], prompts, weights)[:keep]
                if id(s) in spare
                else first[id(s)],
            )
            for score, s in shown
        ]
        return _ShownTurns(rows, prompts)

    # -- evidence ------------------------------------------------------------------------
    def term_weights(
        self, searcher: tantivy.Searcher, terms: list[tuple[str, Query, bool]]
    ) -> list[float]:
        """An idf per term (of its rarest word), for how much of the query a turn covers."""
        n = max(1, searcher.num_docs)
        out = []
        for text, _q, _r in terms:
            tokens = self.ctx.analyzer.analyze(text.rstrip("*")) or [text.lower()]
            df = min(searcher.doc_freq(S.TEXT, tok) for tok in tokens[:4])
            out.append(math.log(1 + n / (df + 1)))
        return out

    def _side_searches(
        self, searcher: tantivy.Searcher, cq: CompiledQuery, base: tantivy.Query, *, count: bool
    ) -> tuple[tuple[list, list], int]:
        """The two searches a ranking needs beside its words' own, which depend on the
        query alone: the session titles its words match (best 200, with their sessions'
        keys) and how many entries it matches in all, each once, as a search for single
        entries counts them (unscored: the count is the same, and scoring every match
        took 40 % of it). They run on `SIDE_SEARCHES` while the words' hits are gathered
        (see there)."""
        words = [q for _t, q, _r in cq.rank_terms]
        titles: tuple[list, list] = ([], [])
        if words:
            q = Query.boolean_query(
                [
                    (Occur.Must, Query.term_query(self.ctx.schema, S.KIND, S.SESSION_DOC)),
                    (Occur.Must, Query.boolean_query([(Occur.Should, w) for w in words])),
                ]
            )
            hits = searcher.search(q, 200, count=False).hits
            if hits:
                titles = (hits, searcher.fast_field_values(S.SKEY, [a for _s, a in hits]))
        if not count:
            return titles, 0
        total = searcher.search(Query.const_score_query(base, 0.0), 1, count=True).count or 0
        return titles, total

    # -- results -------------------------------------------------------------------------
    def _group(
        self,
        s: _Session,
        score: float,
        rows: list[tuple[_Turn, tantivy.Document, Window | None]],
        prompts: dict[tuple[str, int], tantivy.Document],
        snip: dict[str, tantivy.SnippetGenerator] | None,
        chars: int,
        weights: list[float],
        terms: list[str],
        evidence: Terms,
        passage_chars: int,
        shown: int,
    ) -> M.SessionGroup:
        """A session's result: its hits from `rows`, the turns shown. `rows` holds one
        turn more than `shown`, in case a history line that repeats a prompt beside it
        is dropped (`search.drop_echoes`), so the rest are made into hits only when one
        of the first `shown` is such a line: otherwise they would be cut unseen (their
        time still counts in the session's)."""
        hits: list[M.Hit] = []
        for t, doc, window in rows:
            if len(hits) >= shown and all(h.kind != S.HISTORY for h in hits):
                break
            hit = self.excerpts.hit(doc, t.score, snip, chars)
            hit.passage = self.excerpts.passage(doc, evidence, passage_chars, window=window)
            pdoc = (
                doc
                if first_value(doc, S.KIND) == S.PROMPT
                else prompts.get((first_value(doc, S.PATH), S.turn_prompt_seq(t.turn)))
            )
            if pdoc is not None:
                hit.prompt, hit.turn_id = (
                    self._clip_prompt(first_value(pdoc, S.TEXT)),
                    S.doc_id(pdoc),
                )
            hits.append(hit)
        first = hits[0]
        sid = first.session_id
        title = (self.catalog.session_title(sid)[0] if sid else "") or first.title
        covered = set(rows[0][0].per_term) if rows else set()
        covered |= self._in_title(title, terms)
        total_w = sum(weights) or 1.0
        relevance = sum(w for i, w in enumerate(weights) if i in covered) / total_w
        return M.SessionGroup(
            session_id=sid,
            title=title,
            project=first.project,
            timestamp=max(
                (ts for _t, doc, _w in rows if (ts := as_datetime(doc.get_first(S.TS)))),
                default=None,
            ),
            score=round(score, 4),
            hit_count=s.hits,
            hits=hits,
            relevance=round(relevance, 3),
        )

    def _in_title(self, title: str, terms: list[str]) -> set[int]:
        """Which terms a session's title holds (a title is part of its evidence)."""
        have = set(self.ctx.analyzer.analyze(title)) if title else set()
        return {
            i
            for i, t in enumerate(terms)
            if have
            and (toks := self.ctx.analyzer.analyze(t.rstrip("*")))
            and all(k in have for k in toks)
        }

    def _answer_doc(
        self, searcher: tantivy.Searcher, t: _Turn, evidence: Terms, width: int
    ) -> tuple[tantivy.Document, Window | None]:
        """The entry a turn is shown by, and its passage's window: of the turn's best
        entries by evidence, the one whose densest window holds most of the query
        (`passages`); the turn's own prompt only when no other entry holds evidence
        (the prompt is shown beside the answer anyway), so a result reads as the
        question and the part of the answer that answers it. The window is None when
        nothing was weighed by it (one candidate): it is found if the turn is shown."""
        rows = sorted(t.entries.values(), key=lambda row: -row[0])[:ANSWER_CANDIDATES]
        # near rivals only: an entry far below the turn's best in evidence does not
        # show it, however dense its window
        rows = [r for r in rows if r[0] >= NEAR_BEST * rows[0][0]]
        if not rows:
            doc = searcher.doc(t.best[1])
            return doc, self.excerpts.passage_window(doc, evidence, width)
        docs = [searcher.doc(addr) for _ev, addr in rows]
        if len(docs) == 1 and first_value(docs[0], S.KIND) != S.PROMPT:
            return docs[0], None  # no rival to weigh it against: its window if shown
        best: tuple[tuple[bool, bool, float, float], tantivy.Document, Window] | None = None
        for i, ((ev, _addr), doc) in enumerate(zip(rows, docs, strict=True)):
            window = self.excerpts.passage_window(doc, evidence, width)
            kind = first_value(doc, S.KIND)
            # a file beside the transcript (a session's memory summary, a subplan) shows
            # the turn only when it is the turn's best: the turn is the conversation
            key = (
                kind != S.PROMPT,
                i == 0 or kind not in (S.MEMORY, S.PLAN),
                round(window.score, 6),
                ev,
            )
            if best is None or key > best[0]:
                best = (key, doc, window)
        assert best is not None
        doc, window = best[1], best[2]
        if first_value(doc, S.KIND) == S.PROMPT:
            reply = self._reply_to(searcher, doc)
            if reply is not None:  # the question found: its answer is what followed
                return reply, self.excerpts.passage_window(reply, evidence, width)
        return doc, window

    def _reply_to(
        self, searcher: tantivy.Searcher, prompt: tantivy.Document
    ) -> tantivy.Document | None:
        """The first assistant reply of a prompt's turn, if it has one."""
        seq = int(first_value(prompt, S.SEQ, 0))
        q = self.ctx.all_of(
            self.ctx.term(S.PATH, first_value(prompt, S.PATH)),
            self.ctx.term(S.KIND, S.ASSISTANT),
            Query.range_query(self.ctx.schema, S.SEQ, tantivy.FieldType.Unsigned, seq + 1, None),
        )
        hits = searcher.search(
            q, 1, count=False, order_by_field=S.SEQ, order=tantivy.Order.Asc
        ).hits
        if not hits:
            return None
        turn = searcher.fast_field_values(S.TURN, [hits[0][1]])[0]
        if S.turn_prompt_seq(int(turn or 0)) != seq:
            return None  # the prompt got no reply before the next one
        return searcher.doc(hits[0][1])

    def _turn_prompts(
        self, searcher: tantivy.Searcher, wanted: list[tuple[tantivy.Document, int]]
    ) -> dict[tuple[str, int], tantivy.Document]:
        """The prompts that opened the turns shown, by (path, seq), looked up together
        (`prompt_addresses`)."""
        keys = {
            (first_value(doc, S.PATH), turn)
            for doc, turn in wanted
            if turn and first_value(doc, S.KIND) != S.PROMPT
        }
        if not keys:
            return {}
        found = prompt_addresses(searcher, self.ctx.schema, keys)
        return {key: searcher.doc(addr) for key, addr in found.items()}

    def _clip_prompt(self, text: str) -> str:
        flat = " ".join(self.ctx.red(text).split())
        return clip(flat, PROMPT_CHARS)


def _answering_first(
    rows: list[tuple[_Turn, tantivy.Document, Window | None]],
    prompts: dict[tuple[str, int], tantivy.Document],
    weights: list[float],
) -> list[tuple[_Turn, tantivy.Document, Window | None]]:
    """A session's turns in the order shown: by score, but a turn shown by something
    outside the conversation (a history line, a summary) or opened by a command's
    output (bash mode, a local command: no question, nothing answered) after the turns
    that asked and were answered, when there are such turns; and a plan or memory file
    after the conversation's best turn when that turn holds as much of the query
    (`_documents_after_their_turn`)."""

    marks = [_aside(r, prompts) for r in rows]
    if not all(marks):
        rows = [r for r, m in zip(rows, marks, strict=True) if not m] + [
            r for r, m in zip(rows, marks, strict=True) if m
        ]
    return _documents_after_their_turn(rows, weights)


def _aside(
    row: tuple[_Turn, tantivy.Document, Window | None],
    prompts: dict[tuple[str, int], tantivy.Document],
) -> bool:
    """Whether a turn is shown by something outside the conversation (a history line, a
    summary) or was opened by a command's output rather than a question."""
    t, doc, _window = row
    if first_value(doc, S.KIND) in ASIDE_KINDS:
        return True
    pdoc = (
        doc
        if first_value(doc, S.KIND) == S.PROMPT
        else prompts.get((first_value(doc, S.PATH), S.turn_prompt_seq(t.turn)))
    )
    text = first_value(pdoc, S.TEXT).lstrip() if pdoc is not None else ""
    return text.startswith(COMMAND_OUTPUT)


def _in_conversation(
    row: tuple[_Turn, tantivy.Document, Window | None],
    prompts: dict[tuple[str, int], tantivy.Document],
) -> bool:
    """A turn `_answering_first` never moves another ahead of: a question asked and
    answered in the conversation, shown by neither an aside nor a plan or memory file.
    When a session's first turns are all such, they keep their places (asides move
    after them, and a document moves only from ahead of the first such turn)."""
    return first_value(row[1], S.KIND) not in DOCUMENT_KINDS and not _aside(row, prompts)


def _covered(t: _Turn, weights: list[float]) -> float:
    """The query's term weights (idf) a turn holds (proximity and meaning left out)."""
    return sum(weights[i] for i in t.per_term if 0 <= i < len(weights))


def _documents_after_their_turn(
    rows: list[tuple[_Turn, tantivy.Document, Window | None]], weights: list[float]
) -> list[tuple[_Turn, tantivy.Document, Window | None]]:
    """A plan or memory file ranked above the conversation's best turn moves just after
    it when that turn holds at least as much of the query: a session's plan retells the
    turn that asked for it in the same words (and often outscores it, being long), but
    the turn is where the question was asked and answered. A document that holds words
    of the query no turn shown does (a fact only the plan records) keeps its place, so
    an agent reading the first result reads it."""
    if len(rows) < 2:
        return rows
    kinds = [first_value(doc, S.KIND) for _t, doc, _w in rows]
    turn_at = next((i for i, k in enumerate(kinds) if k not in DOCUMENT_KINDS), None)
    if not turn_at or kinds[turn_at] in ASIDE_KINDS:
        return rows
    held = _covered(rows[turn_at][0], weights)
    ahead = rows[:turn_at]
    moved = [r for r in ahead if _covered(r[0], weights) <= held + 1e-9]
    if not moved:
        return rows
    kept = [r for r in ahead if _covered(r[0], weights) > held + 1e-9]
    return [*kept, rows[turn_at], *moved, *rows[turn_at + 1 :]]


def _title_evidence(titles: tuple[list, list], sessions: dict[Any, _Session]) -> None:
    """Session titles (custom, AI, summary) matched by the query's words (`titles`: their
    hits and sessions' keys), as evidence of the sessions found by the words."""
    hits, skeys = titles
    if not hits or not sessions:
        return
    top = max(float(sc) for sc, _a in hits) or 1.0
    best_term = max((max(s.per_term.values(), default=0.0) for s in sessions.values()), default=0.0)
    for (score, _addr), sk in zip(hits, skeys, strict=True):
        s = sessions.get(sk) if sk else None
        if s is not None:
            s.title = TITLE_WEIGHT * best_term * float(score) / top


def _gather(
    ti: int,
    hits: list,
    skeys: list,
    tkeys: list,
    ranks: list,
    turns: dict[tuple[Any, int], _Turn],
    sessions: dict[Any, _Session],
) -> None:
    """One term's hits (`ti`: its index, -1 for the words side by side) into the evidence
    of their turns and sessions: each turn's and session's best for the term, and each
    entry's sum over terms (the loop every hit of every term goes through, so written
    with its lookups at hand)."""
    scale = PROXIMITY_WEIGHT if ti < 0 else 1.0
    turn_of, session_of = turns.get, sessions.get
    for (score, addr), sk, tk, rk in zip(hits, skeys, tkeys, ranks, strict=True):
        w = float(score) * (rk or 10) / 10 * scale
        key = sk or ("doc", addr.segment_ord, addr.doc)
        tkey = (key, tk or 0)
        t = turn_of(tkey)
        if t is None:
            t = turns[tkey] = _Turn(key, tk or 0)
            s = session_of(key)
            if s is None:
                s = sessions[key] = _Session(key)
            s.turns.append(t)
        else:
            s = sessions[key]
        s.hits += 1
        per_term = t.per_term
        if w > per_term.get(ti, 0.0):
            per_term[ti] = w
        per_term = s.per_term
        if w > per_term.get(ti, 0.0):
            per_term[ti] = w
        ak = (addr.segment_ord, addr.doc)
        row = t.entries.get(ak)
        if row is None:
            row = t.entries[ak] = [0.0, addr]
        row[0] += w
        if row[0] > t.best[0]:
            t.best = (row[0], addr)


def _term_hits(
    searcher: tantivy.Searcher, q: Query, filt: list[tuple[Occur, Query]], count: bool = False
) -> tuple[list, list, list, list, int]:
    """One term's best hits (`filt`: the clauses that keep it to the search's documents,
    scoring nothing), the columns the ranking reads (session, turn, weight), and, if
    asked for, how many entries it matches in all (counted in the same pass)."""
    found = searcher.search(Query.boolean_query([(Occur.Must, q), *filt]), TERM_POOL, count=count)
    hits, total = found.hits, (found.count or 0) if count else 0
    if not hits:
        return [], [], [], [], total
    addrs = [a for _s, a in hits]
    return (
        hits,
        searcher.fast_field_values(S.SKEY, addrs),
        searcher.fast_field_values(S.TURN, addrs),
        searcher.fast_field_values(S.RANK, addrs),
        total,
    )


def word_coverage(sessions: dict[Any, _Session], weights: list[float]) -> float:
    """How much of the query the words found at best: the largest share of the query's
    term weights (idf) that one session's best turn holds. A question asked with its own
    words is covered well somewhere; a reworded one is matched in a few common words."""
    total = sum(weights)
    if not total or not sessions:
        return 0.0
    best = 0.0
    for s in sessions.values():
        for t in s.turns:
            got = sum(weights[i] for i in t.per_term if 0 <= i < len(weights))
            best = max(best, got)
    return best / total


def _rank(
    sessions: dict[Any, _Session], dense: Dense | None = None
) -> list[tuple[float, _Session]]:
    """Sessions by `TURN_WEIGHT` x best turn + the rest x session evidence, each divided
    by its best over the candidates (with semantic evidence, that mixed with each
    session's best cosine: `semantic.mix`); ties in a stable order."""
    if not sessions:
        return []
    best_turn = {k: max(sum(t.per_term.values()) for t in s.turns) for k, s in sessions.items()}
    top_t = max(best_turn.values()) or 1.0
    top_s = max(s.score for s in sessions.values()) or 1.0
    rows = [
        (TURN_WEIGHT * best_turn[k] / top_t + (1 - TURN_WEIGHT) * s.score / top_s, s)
        for k, s in sessions.items()
    ]
    if dense is not None:
        rows = mix(rows, dense)
    rows.sort(key=lambda r: (-r[0], str(r[1].key)))
    return rows
