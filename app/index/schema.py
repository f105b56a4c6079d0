"""The Tantivy schema: one document per meaningful unit of the archive.

Every other module names fields through the constants here, so a renamed field is a
one-line change. Bump `SCHEMA_VERSION` whenever the schema or the analysis of text
changes: the index lives in a folder named after it, and an old folder is rebuilt
into a new one rather than read with the wrong schema.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

import tantivy

SCHEMA_VERSION = 10
"""Part of the index folder name (`index-v9`); bump on any change to the schema, the
analysis of text or what is extracted into documents, so that indexes are rebuilt."""

CODE_TOKENIZER = "cc_code"
"""Our analyzer for prose mixed with code. Not a built-in name, so a process that forgot
to register it fails loudly instead of silently analysing text another way."""


def code_analyzer() -> tantivy.TextAnalyzer:
    """The analyzer of every tokenized field, at index and at query time: words of letters
    and digits, lowercased. No stemmer and no camelCase regex: each costs 4-6x in
    indexing speed; `ccarchive.index.analysis` recovers both more cheaply."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(64))
        .filter(tantivy.Filter.lowercase())
        .build()
    )


# ---- field names -------------------------------------------------------------------
ID = "id"  # key of a bookkeeping document (raw; upserts delete by it); entries have none
#            and are named by path + seq instead (see `entry_id`)
KIND = "kind"  # see KINDS
ROLE = "role"  # user | assistant | system | agent
PROJECT = "project"  # real path of the working directory (from `cwd`)
SESSION = "session"  # session id (subagent entries carry their parent's)
AGENT = "agent"  # subagent id, "" for the main conversation
UUID = "uuid"  # entry uuid in the transcript (stored; found through UKEY)
UKEY = "ukey"  # the uuid's first UKEY_CHARS characters: indexed, not stored (see uuid_key)
PARENT = "parent"  # parentUuid (or logicalParentUuid on compaction boundaries)
TS = "ts"  # timestamp (UTC); for session docs: last activity
TS_START = "ts_start"  # session docs: first activity
MODEL = "model"
BRANCH = "branch"
TOOL = "tool"  # tool name on tool calls and results
TOOL_USE_ID = "tool_use_id"  # links a tool call to its result
LINK_AGENT = "link_agent"  # on a Task/Agent call or result: the subagent it spawned
FILES = "files"  # files touched (tokenized like code, so `file:parser` matches)
SLUG = "slug"  # plan codename
PATH = "path"  # source file, relative to the archive root
OFFSET = "offset"  # byte offset of the source line
LENGTH = "length"  # byte length of the source line
SEQ = "seq"  # order within the source file (offset * 256 + block index)
TEXT = "text"  # the searchable body (capped, see TEXT_LEN)
PARTS = "parts"  # parts of camelCase identifiers in the body (indexed, not stored)
TITLE = "title"  # plan/memory/session title, searchable
TEXT_LEN = "text_len"  # length of the full body before the index cap
TOKENS = "tokens"  # session docs: total tokens (deduplicated by API message id)
MESSAGES = "messages"  # session docs: user + assistant messages
GEN = "gen"  # commit generation that added the document (stable paging)
STATE = "state"  # session docs: "on_disk" | "gone"
FLAGS = "flags"  # markers on transcript entries: rewind, compact, error, sidechain, queued
BYTES = "bytes"  # session docs: bytes of its transcripts on disk
RANK = "rank"  # kind weight x10, a fast column read for the hits being ranked
TSEC = "tsec"  # timestamp in epoch seconds, a fast column (dates cannot be read by address)
TURN = "turn"  # entries: their turn segment (see `turn_key`), a fast column: search
#               ranks sessions by their best turn
SKEY = "skey"  # a 63-bit hash of the session id, a fast column: hits grouped by session
#                without reading their stored documents (text columns cannot be read by
#                address in tantivy-py)
BLOB = "blob"  # stored JSON: session summaries and file checkpoints

# ---- kinds -------------------------------------------------------------------------
PROMPT = "prompt"  # a human prompt (typed, or queued mid-turn)
ASSISTANT = "assistant"  # assistant prose
THINKING = "thinking"
TOOL_CALL = "tool_call"
TOOL_RESULT = "tool_result"
SUMMARY = "summary"  # summary records, compaction summaries, recaps, session memory
EVENT = "event"  # compaction boundaries, api errors, slash-command output
PLAN = "plan"
MEMORY = "memory"
HISTORY = "history"  # a line of history.jsonl
SESSION_DOC = "session"  # one per session: its figures, for listings (not searched)
STATE_DOC = "_state"  # one per source file: its checkpoint (not searched)

SEARCHABLE_KINDS = (
    PROMPT,
    ASSISTANT,
    THINKING,
    TOOL_CALL,
    TOOL_RESULT,
    SUMMARY,
    EVENT,
    PLAN,
    MEMORY,
    HISTORY,
)
"""Kinds a search may return; session and state documents are bookkeeping."""

ALL_KINDS = (*SEARCHABLE_KINDS, SESSION_DOC, STATE_DOC)
"""Every kind a document of the index has: a filter can name the kinds it leaves out."""

DEFAULT_EXCLUDED_KINDS = (TOOL_RESULT, THINKING)
"""Searchable, but only when asked for (`kind:` or an option): raw tool output and
private reasoning drown what people mean."""

KIND_RANK = {
    PROMPT: 20,
    PLAN: 20,
    MEMORY: 20,
    SUMMARY: 16,
    HISTORY: 16,
    ASSISTANT: 14,
    TOOL_CALL: 10,
    EVENT: 10,
    TOOL_RESULT: 6,
    THINKING: 6,
}
"""Ranking weight x10 by kind: what people mean (their prompts, plans, memory) above
assistant prose, and that above what tools printed."""

FILE_BODY_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
"""Tool calls whose input is mostly a file's text: searchable, but weighed under what
people said (the eval measured them slightly harmful in the default ranking)."""
PLAN_PROMPT = "Implement the following plan"
"""How Claude Code opens the session that implements an accepted plan: the plan's text
follows, so it is the planning session's content, not this one's."""


def entry_rank(kind: str, tool: str, text: str, subagent: bool) -> int:
    """An entry's ranking weight x10 (`RANK`): its kind's, lowered for subagent entries,
    file bodies and pasted plans, which mention much and decide little."""
    rank = KIND_RANK.get(kind, 10)
    if kind == PROMPT and text.startswith(PLAN_PROMPT):
        rank = 4
    elif kind == TOOL_CALL and tool in FILE_BODY_TOOLS:
        rank = 6
    if subagent:
        rank = max(1, rank * 7 // 10)
    return rank


RAW_FIELDS = (ID, KIND, ROLE, PROJECT, SESSION, AGENT, MODEL, BRANCH, TOOL, SLUG, PATH, STATE)
"""Text fields matched whole (filters, lookups)."""
STORED_ONLY_FIELDS = (UUID, PARENT, TOOL_USE_ID, LINK_AGENT, FLAGS)
"""Read back with an entry, never searched: stored as UTF-8 bytes, because a Tantivy text
field is always indexed, and indexing nearly-unique values (uuids, tool ids) costs: work
per field is most of Tantivy's time per document (measured: leaving the per-entry id,
these, seq and the timestamp out of the inverted index cut its CPU by about a fifth)."""
FAST_RAW_FIELDS = frozenset({KIND, PROJECT, SESSION, PATH})
"""Text columns that are aggregated (facets, per-project and per-file counts); a fast
column on every other raw field would cost indexing time for nothing."""
UNSIGNED_FIELDS = (OFFSET, LENGTH, SEQ, TEXT_LEN, TOKENS, MESSAGES, GEN, BYTES, TURN)
_UNSIGNED_OPTIONS = {  # (indexed, fast): stored-only where nothing filters or sorts on it;
    # range queries and sorting run on a fast column alone (no inverted index needed)
    OFFSET: (False, False),
    LENGTH: (False, False),
    TEXT_LEN: (False, False),
    SEQ: (False, True),
    GEN: (True, True),
    MESSAGES: (True, True),
    TOKENS: (False, True),
    BYTES: (False, True),
    TURN: (False, True),
}


def build_schema() -> tantivy.Schema:
    """Build the schema; field options are chosen for the queries in `ccarchive.index.search`."""
    sb = tantivy.SchemaBuilder()
    for name in RAW_FIELDS:
        sb.add_text_field(
            name,
            stored=True,
            tokenizer_name="raw",
            fast=name in FAST_RAW_FIELDS,
            index_option="basic",
        )
    sb.add_text_field(UKEY, stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_text_field(TEXT, stored=True, tokenizer_name=CODE_TOKENIZER, index_option="position")
    sb.add_text_field(PARTS, stored=False, tokenizer_name=CODE_TOKENIZER, index_option="position")
    sb.add_text_field(TITLE, stored=True, tokenizer_name=CODE_TOKENIZER, index_option="position")
    sb.add_text_field(FILES, stored=True, tokenizer_name=CODE_TOKENIZER, index_option="position")
    sb.add_date_field(TS, stored=True, indexed=False, fast=True)  # ranges run on the column
    sb.add_date_field(TS_START, stored=True, indexed=False, fast=True)
    for name in UNSIGNED_FIELDS:
        indexed, fast = _UNSIGNED_OPTIONS[name]
        sb.add_unsigned_field(name, stored=True, indexed=indexed, fast=fast)
    for name in (RANK, TSEC, SKEY):
        sb.add_unsigned_field(name, stored=False, indexed=False, fast=True)
    for name in (BLOB, *STORED_ONLY_FIELDS):
        sb.add_bytes_field(name, stored=True, indexed=False)
    return sb.build()


UKEY_CHARS = 4
"""An entry's uuid is looked up (only to match summary records to the sessions they
title) through its first 4 characters: 65,536 terms at most, each naming a handful of
entries whose stored uuid is then compared. Indexing the whole uuid, a term of its own
per document, cost a fifth of Tantivy's indexing CPU (measured on the same documents)."""


def uuid_key(uuid: str) -> str:
    """The indexed key of an entry uuid (`UKEY`)."""
    return uuid[:UKEY_CHARS]


TURN_SEGMENT = 24
"""Entries per segment of a turn. An agentic turn (one prompt, then hundreds of tool
calls) would otherwise be as diffuse as a whole session; a segment of it is as dense as
a conversational turn (measured: long agentic sessions stopped outranking the session that
answered, tests/eval at 400 MB)."""
_SEG_BITS = 12


def turn_key(prompt_seq: int, entries_since: int) -> int:
    """The `TURN` of an entry: the `seq` of the prompt that opened its turn (0 before any)
    and which segment of that turn it is in, packed in one u64."""
    return (prompt_seq << _SEG_BITS) | min(entries_since // TURN_SEGMENT, (1 << _SEG_BITS) - 1)


def turn_prompt_seq(key: int) -> int:
    """The `seq` of the prompt that opened the turn of a `turn_key`."""
    return key >> _SEG_BITS


def session_key(session_id: str) -> int:
    """The `skey` of a session id: 0 for none, else a stable 63-bit hash (collisions
    among even a million sessions are vanishingly rare)."""
    if not session_id:
        return 0
    digest = hashlib.blake2b(session_id.encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "little") >> 1) or 1


# ---- entry ids -------------------------------------------------------------------------
def block_of(obj_index: int, unit_index: int) -> int:
    """The low byte of `seq`: which object of a line (glued lines hold several) and which
    unit of it. Both are clamped to 15 so the byte never spills into the offset."""
    return min(obj_index, 15) * 16 + min(unit_index, 15)


def entry_id(path: str, seq: int) -> str:
    """The id of an entry document, `<path>:<byte offset>:<block>`, derived from two
    stored fields rather than indexed as a unique term of its own."""
    return f"{path}:{seq >> 8}:{seq & 255}"


MAX_ENTRY_OFFSET = 1 << 50
"""Byte offsets beyond this (a petabyte) are no entry's: `seq` must fit Tantivy's u64
column, and a forged id's offset must not reach a range query (a huge one aborted the
process)."""


def parse_entry_id(value: str) -> tuple[str, int] | None:
    """(path, seq) of an entry id, or None if `value` is not one (ASCII digits, an offset
    a file can have, a block of 0-255)."""
    if not isinstance(value, str):
        return None
    head, sep, block = value.rpartition(":")
    path, sep2, offset = head.rpartition(":")
    if (
        not (
            sep
            and sep2
            and path
            and offset.isascii()
            and offset.isdigit()
            and block.isascii()
            and block.isdigit()
        )
        or len(offset) > 16
        or len(block) > 3
    ):
        return None
    if int(block) > 255 or int(offset) > MAX_ENTRY_OFFSET:
        return None
    return path, int(offset) * 256 + int(block)


def doc_id(doc: tantivy.Document) -> str:
    """A stored document's id: its own (bookkeeping documents) or its entry id."""
    own = doc.get_first(ID)
    if own:
        return own
    return entry_id(doc.get_first(PATH) or "", int(doc.get_first(SEQ) or 0))


def first_value(doc: tantivy.Document, field: str, default: Any = "") -> Any:
    """A stored document's first value of `field` (`default` if none), stored-only
    fields decoded back to the text they were (see `STORED_ONLY_FIELDS`)."""
    v = doc.get_first(field)
    if v is None:
        return default
    return v.decode() if isinstance(v, bytes) and field in STORED_ONLY_FIELDS else v


def searchable_counts(buckets: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Documents per searchable kind, from the buckets of a terms aggregation on `KIND`:
    what every front end calls the index's documents (the session and state documents are
    bookkeeping)."""
    return {b["key"]: b["doc_count"] for b in buckets if b["key"] in SEARCHABLE_KINDS}
