"""Semantic evidence for the ranking: each session's best cosine with the query, mixed in.

When semantic search is on (by default, when its parts are here: `ccarchive.semantic.
choose`), the query's
words are encoded (a few ms) and compared with every turn and session vector in one
matrix product; a session's semantic score is its best cosine. `session_ranking._rank`
mixes it with the word score, both z-normalised over the candidates, at nearly equal
weight (`DENSE_WEIGHT`), the weight measured best on the eval harness (`tests/eval`,
`--semantic`, seeds 1-3: rewordings' MRR@10 0.80 words only, 0.89 at 0.3, 0.91 at 0.4,
0.84 at 0.5, 0.79 at 0.6; the other categories within a query of where they were). A
query made only of code words (identifiers, paths, flags) is one the words answer best:
it takes a smaller weight (`CODE_WEIGHT`) and admits no session by meaning alone (the
identifier queries of the eval lost a rank to such entrants, and gained nothing at any
weight from 0 to 0.5).

Sessions the words did not find but whose meaning is close can enter (`ENTRANTS`),
shown by their closest turn, as long as that turn's prompt passes every filter of the
search: the search's own filters without its words (the query's filters, `project:`,
dates, `session:`..., and the same options: project, dates, the caller's own session
left out), which `Search` passes to the ranker beside the `DenseSearch`.

Only the process that writes the index builds the vectors (`ccarchive.live`); every
process reads what is there (`VectorMatrix.refresh`, one `stat` per query).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import tantivy

from ccarchive.index import schema as S
from ccarchive.service.base import IndexContext, prompt_addresses

if TYPE_CHECKING:
    from ccarchive.config import Settings
    from ccarchive.index.query.compiler import CompiledQuery
    from ccarchive.index.store import IndexStore
    from ccarchive.semantic.light import LightScores
    from ccarchive.semantic.matrix import SessionScores, VectorMatrix

DENSE_WEIGHT = 0.4
"""Share of the semantic z-score in a session's rank (the word z-score has the rest)."""
CODE_WEIGHT = 0.2
"""The same for a query made only of code words."""
REWORDED_WEIGHT = 0.8
"""The semantic share when the words barely cover the query (`dense_weight`)."""
WELL_COVERED = 0.7
BARELY_COVERED = 0.35
"""Shares of the query's term weights that the best turn found by words holds: at or
above the first the words are trusted as they are, at or below the second the question
is taken for a rewording."""
ENTRANTS = 10
"""Sessions the words did not find that may enter, best cosine first."""
ENTRANT_FLOOR = 0.3
"""...if their cosine is at least this (unrelated texts score below ~0.2); the same floor
for showing a session's closest turn beside the turns its words found."""
DENSE_TERM = -2
"""The key of a turn's semantic evidence among its per-term scores (-1 is proximity)."""
QUERY_CACHE = 64
"""Query vectors kept (the app asks again for each page and each refresh)."""

_CODE = re.compile(r"[_/\\.:=#@<>(){}\[\]$]|[a-z][A-Z]|^-|\d|^[A-Z0-9_]+$")


def is_code_query(terms: list[str]) -> bool:
    """Whether every term of a query is a code word: an identifier with `_` or a camel
    hump, a path, a flag, a number, a constant."""
    return bool(terms) and all(_CODE.search(t.strip('"')) for t in terms)


@dataclass
class Dense:
    """The semantic evidence of one search, for `session_ranking._rank`."""

    scores: dict[Any, float]  # session key (skey) -> best cosine
    weight: float
    entrants: list[tuple[int, int, tantivy.DocAddress]] = field(default_factory=list)
    """(skey, turn key, prompt address): sessions found by meaning alone, with their best
    turn."""
    found: Any = None  # the SessionScores: each session's closest turn
    filters: Any = None  # the search's filters without its words


def dense_weight(weight: float, coverage: float) -> float:
    """The semantic share for a search whose words cover at best `coverage` of the query
    (`session_ranking.word_coverage`): `weight` when they cover `WELL_COVERED` or more,
    rising to `REWORDED_WEIGHT` when they cover `BARELY_COVERED` or less (a reworded
    question, whose word matches are coincidences of common words). A code query keeps
    its own weight."""
    if weight == CODE_WEIGHT or weight >= REWORDED_WEIGHT:
        return weight
    if coverage >= WELL_COVERED:
        return weight
    lack = min(1.0, (WELL_COVERED - coverage) / (WELL_COVERED - BARELY_COVERED))
    return weight + (REWORDED_WEIGHT - weight) * lack


def mix(rows: list[tuple[float, Any]], dense: Dense) -> list[tuple[float, Any]]:
    """Rows (word score, session) rescored as (1 - w) z(word) + w z(cosine), each z over
    the candidates. A session with no vector (not embedded yet, or whose transcript is
    gone and only its typed prompts are left) counts the mean cosine at the base weight
    (`DENSE_WEIGHT`, or `CODE_WEIGHT`'s), never at the weight raised for rewordings,
    which trusts a cosine the session lacks: at 0.8 a history-only session that the words
    ranked first fell to tenth (tests/semantic/test_mix_without_vector.py). A row that is
    no session (a plan, a memory file) counts the mean cosine at the search's weight:
    giving plans and memory files the base weight too pushed sessions down on the
    planted-fact harness (seeds 1-2: deep MRR@10 1.00 -> 0.98, rewordings 0.83 -> 0.82).
    """
    if len(rows) < 2:
        return rows
    lex = [r[0] for r in rows]
    cos = [dense.scores.get(r[1].key) for r in rows]
    zl = _z(lex)
    have = [c for c in cos if c is not None]
    zc = _z(have) if len(have) > 1 else [0.0] * len(have)
    it = iter(zc)
    zd = [next(it) if c is not None else 0.0 for c in cos]
    w = dense.weight
    bare = 1 - min(w, DENSE_WEIGHT)
    return [
        (bare * a if c is None and isinstance(r[1].key, int) else (1 - w) * a + w * b, r[1])
        for a, b, c, r in zip(zl, zd, cos, rows, strict=True)
    ]


def _z(values: list[float]) -> list[float]:
    n = len(values)
    mean = sum(values) / n
    sd = (sum((v - mean) ** 2 for v in values) / n) ** 0.5
    return [(v - mean) / sd if sd > 1e-12 else 0.0 for v in values]


class DenseSearch:
    """The vectors of one index and the encoder, both loaded on first use."""

    def __init__(self, store: IndexStore, settings: Settings, kind: str, model: str = "") -> None:
        from ccarchive.semantic import vector_space
        from ccarchive.semantic.store import VectorStore

        self.settings = settings
        self.schema = store.schema
        self.kind = kind
        """The encoder (`semantic.choose`), chosen once: the vectors read are its space's."""
        self.model = model
        """Where the model's files were found, when `choose` looked (the default)."""
        self.vectors = VectorStore(store.path, vector_space(self.kind))
        self._matrix: VectorMatrix | None = None
        self._cache: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.error: str | None = None
        self.once = False
        """Set by a process that searches once (`ccarchive search`): a query of the static
        encoder over few vectors is then scored in Python, without importing numpy
        (`semantic.light`)."""

    @property
    def matrix(self) -> VectorMatrix:
        """The vectors in memory, made on first need: numpy is imported only by a process
        that searches with vectors there (not by `status`, `show`, `sessions`)."""
        if self._matrix is None:
            from ccarchive.semantic.matrix import VectorMatrix

            self._matrix = VectorMatrix(self.vectors)
        return self._matrix

    def encode(self, text: str) -> Any:
        """The query's unit vector (cached)."""
        with self._lock:
            v = self._cache.get(text)
            if v is not None:
                self._cache.move_to_end(text)
                return v
        from ccarchive.semantic import load_encoder

        v = load_encoder(self.settings, kind=self.kind).encode([text])[0]
        with self._lock:
            self._cache[text] = v
            while len(self._cache) > QUERY_CACHE:
                self._cache.popitem(last=False)
        return v

    def session_scores(self, text: str) -> SessionScores | LightScores | None:
        """Every session's best cosine with `text`; None when there are no vectors yet
        or the model cannot be had (the reason kept in `error`, for `status`)."""
        from ccarchive.semantic.model_files import ModelError

        if self._matrix is None and not self.vectors.manifest().vectors:
            return None  # none yet: no numpy, no encoder
        if self.once and text.strip():
            light = self._light_scores(text)
            if light is not None:
                return light
        self.matrix.refresh()
        if not len(self.matrix) or not text.strip():
            return None
        try:
            q = self.encode(text)
        except ModelError as exc:
            self.error = str(exc)
            return None
        return self.matrix.scores(q)

    def _light_scores(self, text: str) -> LightScores | None:
        """`session_scores` in Python (`semantic.light`), or None for numpy's path."""
        import struct

        from ccarchive.semantic import STATIC
        from ccarchive.semantic.light import LightMatrix, LightTable, NotLight, numpy_loaded
        from ccarchive.semantic.model_files import find_model
        from ccarchive.semantic.space import table_path
        from ccarchive.semantic.wordpiece import vocab_path

        if self.kind != STATIC or numpy_loaded() or self._matrix is not None:
            return None
        try:
            if find_model(self.settings.model_dir, self.settings.data_dir) is None:
                return None
            data = self.settings.data_dir
            q = LightTable(table_path(data), vocab_path(data)).encode(text)
            if q is None:
                return None
            return LightMatrix(self.vectors).scores(q)
        except (NotLight, OSError, ValueError, KeyError, struct.error) as exc:
            import logging  # here only: a word search imports no logging

            logging.getLogger(__name__).debug("semantic search by numpy: %s", exc)
            return None

    def evidence(
        self,
        searcher: tantivy.Searcher,
        cq: CompiledQuery,
        filters: tantivy.Query,
        keys: set[Any],
    ) -> Dense | None:
        """Each session's best cosine with the query, and the sessions that enter by
        meaning alone: not among `keys` (those the words found), and with a closest turn
        whose prompt passes `filters`, the search's filters without its words (see the
        module). None when the query asks for no kind that has a meaning here, or there
        are no vectors yet."""
        if cq.kinds and not cq.kinds & {S.PROMPT, S.ASSISTANT}:
            return None
        found = self.session_scores(" ".join(cq.terms))
        if found is None:
            return None
        code = is_code_query(cq.terms)
        out = Dense(
            found.as_dict(), CODE_WEIGHT if code else DENSE_WEIGHT, found=found, filters=filters
        )
        if code:
            return out
        candidates = []
        for skey, best in found.ranked()[: ENTRANTS + len(keys)]:
            if best < ENTRANT_FLOOR:
                break
            if skey not in keys:
                candidates.append(skey)
        # best first, as many as enter; their prompts are looked up a batch at a time
        for start in range(0, len(candidates), ENTRANTS):
            batch = candidates[start : start + ENTRANTS]
            for entrant in self._entrants(searcher, filters, found, batch):
                if len(out.entrants) < ENTRANTS:
                    out.entrants.append(entrant)
            if len(out.entrants) >= ENTRANTS:
                break
        return out

    def add_closest_turns(
        self, searcher: tantivy.Searcher, shown: list[Any], dense: Dense, new_turn: Any
    ) -> None:
        """Each session shown also shows its turn closest in meaning, when its words found
        another: that turn's evidence is its cosine times the session's best turn's score
        times the search's semantic share (`DENSE_TERM`), so it comes after a turn the
        words found well, unless the words barely cover the query (`dense_weight`).
        `dense` is this search's `evidence`; `new_turn` is the ranker's turn record.

        Not when the words cover the query well (its share is not raised above the base):
        then the turn that holds the query's words is the answer more often than the one
        closest in meaning (blind set, seeds 7, 8 and 10, static encoder: the first turn
        shown answered 0.69 of plain questions with the closest turn lifted, 0.82
        without; overall 0.75 and 0.78)."""
        if dense.weight <= DENSE_WEIGHT:
            return
        for s in shown:
            best = dense.found.best_turn(s.key) if isinstance(s.key, int) else None
            if best is None or best[2] < ENTRANT_FLOOR:
                continue
            tkey = S.turn_key(best[0], 0)
            top = max((t.score for t in s.turns), default=0.0)
            turn = next((t for t in s.turns if t.turn == tkey), None)
            if turn is None:
                entrant = self._entrant(searcher, dense.filters, dense.found, s.key)
                if entrant is None:
                    continue
                turn = new_turn(s.key, tkey, best=(0.0, entrant[2]))
                s.turns.append(turn)
            lift = top * best[2] * dense.weight
            turn.per_term[DENSE_TERM] = max(turn.per_term.get(DENSE_TERM, 0.0), lift)

    def _entrant(
        self,
        searcher: tantivy.Searcher,
        filters: tantivy.Query,
        found: SessionScores | LightScores,
        skey: int,
    ) -> tuple[int, int, tantivy.DocAddress] | None:
        """A session found by meaning: its best turn's prompt, if it passes `filters`."""
        entrants = self._entrants(searcher, filters, found, [skey])
        return entrants[0] if entrants else None

    def _entrants(
        self,
        searcher: tantivy.Searcher,
        filters: tantivy.Query,
        found: SessionScores | LightScores,
        skeys: list[int],
    ) -> list[tuple[int, int, tantivy.DocAddress]]:
        """Sessions found by meaning, in the order given, each with its best turn's
        prompt, those whose prompt passes `filters`: their prompts looked up together
        (`prompt_addresses`; one at a time they took 1.7 ms of a search's 12 at
        350 MB)."""
        best = {skey: found.best_turn(skey) for skey in skeys}
        wanted = {(path, seq) for b in best.values() if b is not None for seq, path, _c in [b]}
        if not wanted:
            return []
        at = prompt_addresses(searcher, self.schema, wanted, filters)
        out = []
        for skey in skeys:
            b = best[skey]
            if b is not None and (prompt := at.get((b[1], b[0]))) is not None:
                out.append((skey, S.turn_key(b[0], 0), prompt))
        return out


class SemanticSwitch:
    """Whether search ranks by meaning too: the `DenseSearch` the ranker is given (None
    when off), and the line `status()` shows about it."""

    def __init__(self, ctx: IndexContext) -> None:
        self.ctx = ctx
        self._dense: DenseSearch | None = None
        self._why = ""
        """Why there is no `DenseSearch` (one sentence, with the command that fixes it)."""
        self._decided = False

    def use(self, settings: Settings) -> None:
        """Rank by meaning too with the encoder `semantic.choose` picks for `settings` (by
        default the static one, if its parts are here); keep why not, for `status`."""
        self._dense, self._why = None, ""
        if settings.semantic is False:
            from ccarchive.semantic import OFF_LINE

            self._why = OFF_LINE
        else:
            from ccarchive.semantic import choose

            choice = choose(settings)
            if choice.kind is None:
                self._why = choice.why
            else:
                self._dense = DenseSearch(self.ctx.store, settings, choice.kind, choice.model)
        self._decided = True

    @property
    def dense(self) -> DenseSearch | None:
        """The semantic side of search, or None when it is off. A service over a live
        archive follows that archive's settings; others are told (`use`)."""
        if not self._decided:
            settings = getattr(self.ctx.live, "settings", None)
            if settings is not None:
                self.use(settings)
            self._decided = True
        return self._dense

    def status_line(self) -> str:
        """One line: on (the encoder, the vectors and their progress), or off and why,
        with what turns it on."""
        from ccarchive.semantic import SWITCH

        dense = self.dense
        if dense is not None:
            return _vectors_line(dense, getattr(self.ctx.live, "vectors", None))
        if self._why:
            return self._why
        return f"off (words only): to rank by meaning too, use {SWITCH}"


def _vectors_line(dense: DenseSearch, builder: Any) -> str:
    from ccarchive.semantic import ENCODERS
    from ccarchive.semantic.model_files import find_model

    manifest = dense.vectors.manifest()
    n = manifest.vectors
    parts = [
        f"on: {n:,} turns and sessions embedded" if n else "on: no vectors yet",
        f"encoder: {ENCODERS[dense.kind]}",
    ]
    state = getattr(builder, "state", None)
    if state is not None and state.running and state.todo:
        parts.append(f"embedding {state.done:,} of {state.todo:,} ({100 * state.progress:.0f}%)")
    elif manifest.pending:
        parts.append(f"{manifest.pending:,} texts left to embed")
    elif not n and (other := dense.vectors.other_space()) is not None:
        parts.append(
            f"the vectors there are of another encoder ({other}): the process that "
            f"indexes uses it, or has not rebuilt them yet"
        )
    elif not n and state is None:
        parts.append("built by the process that indexes (the app, serve, `ccarchive index`)")
    try:
        found = find_model(dense.settings.model_dir, dense.settings.data_dir)
    except Exception as exc:  # a bad --semantic-model folder: say so
        found, parts = None, [*parts, f"model: {exc}"]
    if found is not None:
        parts.append(f"model from the {found[1]}")
    elif dense.settings.semantic is not True:
        parts.append("model: not found here (the default never downloads it)")
    elif dense.settings.model_dir is None:
        parts.append("model: downloaded on first use")
    error = dense.error or getattr(state, "error", None)
    if error:
        parts.append(f"error: {error}")
    return "; ".join(parts)
