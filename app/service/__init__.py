"""The one query service that the TUI, the MCP server, the hooks and the CLI all call.

Every question a view or a tool asks is a method of `ArchiveService`, returning the typed
models of `ccarchive.service.models`. A second implementation in a front end would be a
second answer to the same question, and the two would drift; so front ends format, they
never query. `open_service` is the one way to a service: over a live archive's index, or
over the index in the data dir as it is.

The service only reads. Who writes the index (this process or another) is the live
layer's business; the service is told its `role` for `status()`.

`ArchiveService` is the one facade, composed of plain parts, one per kind of question,
each in its own module and each given the one `IndexContext` (`base`: the store, the
archive root, redaction, the role, the lock, the query helpers) and the parts it asks:

* `SessionCatalog` (`sessions`): session titles and figures, session lists, projects
  and their names, the index's figures for `status()`;
* `Excerpts` (`excerpts`): hits and entries as shown, where text is cut and redacted;
* `SemanticSwitch` (`semantic`): whether search ranks by meaning too, the `DenseSearch`
  it then uses, and its status line;
* `SessionRanking` (`session_ranking`): sessions ranked by their turns' evidence, given
  the `DenseSearch` (when on) and the search's filters without its words;
* `Search` (`search`): full-text search (filters, kinds, ranking, hits, groups, facets)
  and what the empty query shows;
* `Readback` (`readback`): entries by id, context, transcripts, positions, the live
  tail, tool inputs;
* `Browse` (`browse`): timeline, plans, memory files, prompt history.

The parts form a chain without loops (catalog <- excerpts <- ranking <- search <- browse),
each calling another through the reference it was given (`self.catalog.session(...)`).
Every public method of the facade is one of theirs, bound here by name; `status()` is
the one that asks two parts (the catalog's figures and the semantic line). Composed so,
each call can be followed from the line that makes it, and a part reads (and type
checks) on its own: nothing reaches a sibling through a shared base class, and the
semantic evidence is an argument of the ranking, not an override of it. Beside them:
`arguments` (the one error, and the checks of ids, limits and cursors) and `models`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from ccarchive.service import models as M
from ccarchive.service.base import IndexContext
from ccarchive.service.browse import Browse
from ccarchive.service.excerpts import Excerpts
from ccarchive.service.readback import Readback
from ccarchive.service.search import Search
from ccarchive.service.semantic import DenseSearch, SemanticSwitch
from ccarchive.service.session_ranking import SessionRanking
from ccarchive.service.sessions import SessionCatalog

if TYPE_CHECKING:
    from ccarchive.config import Settings
    from ccarchive.index.store import IndexStore
    from ccarchive.live.live_archive import LiveArchive

__all__ = ["ArchiveService", "open_service"]


class ArchiveService:
    """Read-only queries over one archive's index.

    Args:
        store: the opened index.
        archive_root: the archive, to read full entries back by offset.
        redact_secrets: redact credentials in every text returned (the default; see
            `ccarchive.redact`).
        live: the live archive keeping this index current, if any: the service reports
            its role (writer / read-only) in `status()`.
    """

    def __init__(
        self,
        store: IndexStore,
        archive_root: Path,
        *,
        redact_secrets: bool = True,
        live: LiveArchive | None = None,
    ) -> None:
        ctx = IndexContext(store, archive_root, redact_secrets=redact_secrets, live=live)
        self.index_context = ctx
        self.store, self.root, self.live = store, archive_root, live
        self.schema, self.analyzer = ctx.schema, ctx.analyzer
        self.catalog = SessionCatalog(ctx)
        self.excerpts = Excerpts(ctx, self.catalog)
        self.semantic_switch = SemanticSwitch(ctx)
        self.ranking = SessionRanking(ctx, self.catalog, self.excerpts)
        self.text_search = Search(
            ctx, self.catalog, self.excerpts, self.ranking, self.semantic_switch
        )
        self.readback = Readback(ctx, self.catalog, self.excerpts)
        self.browse = Browse(ctx, self.catalog, self.excerpts, self.text_search)

        # the index and the archive's files
        self.refresh = ctx.refresh
        self.indexed_identity = ctx.indexed_identity
        self.note_refused = ctx.note_refused
        # search
        self.search = self.text_search.search
        self.recent_activity = self.text_search.recent_activity
        # sessions and projects
        self.session = self.catalog.session
        self.sessions = self.catalog.sessions
        self.session_title = self.catalog.session_title
        self.short_session_ids = self.catalog.short_session_ids
        self.active_sessions = self.catalog.active_sessions
        self.sessions_started = self.catalog.sessions_started
        self.last_activity = self.catalog.last_activity
        self.archive_date = self.catalog.archive_date
        self.projects = self.catalog.projects
        self.project_names = self.catalog.project_names
        self.project_name = self.catalog.project_name
        self.document_count = self.catalog.document_count
        self.indexing_note = self.catalog.indexing_note
        # entries read back
        self.entries = self.readback.entries
        self.context = self.readback.context
        self.transcript = self.readback.transcript
        self.entry_position = self.readback.entry_position
        self.turns = self.readback.turns
        self.tail = self.readback.tail
        self.tail_last = self.readback.tail_last
        self.tool_inputs = self.readback.tool_inputs
        self.tool_summaries = self.readback.tool_summaries
        # the other collections
        self.timeline = self.browse.timeline
        self.plans = self.browse.plans
        self.plan = self.browse.plan
        self.memory_files = self.browse.memory_files
        self.memory_file = self.browse.memory_file
        self.history = self.browse.history
        self.prompt_entry = self.browse.prompt_entry
        # semantic search
        self.use_semantic = self.semantic_switch.use
        self.semantic_status = self.semantic_switch.status_line

    @property
    def redact_secrets(self) -> bool:
        """Redact credentials in every text returned: one switch for every part."""
        return self.index_context.redact_secrets

    @redact_secrets.setter
    def redact_secrets(self, value: bool) -> None:
        self.index_context.redact_secrets = value

    @property
    def role(self) -> str:
        """writer | read-only (another process indexes) | offline (nobody indexes)."""
        return self.index_context.role

    @role.setter
    def role(self, value: str) -> None:
        self.index_context.role = value

    @property
    def generation(self) -> int:
        """Changes with every commit this process sees (`IndexContext.generation`)."""
        return self.index_context.generation

    @property
    def message(self) -> str | None:
        """What opening the index had to say (a recovery), shown by `status()`."""
        return self.index_context.message

    @property
    def refused_reads(self) -> Counter[str]:
        """Reads back refused since this service started, by reason."""
        return self.index_context.refused_reads

    @property
    def semantic(self) -> DenseSearch | None:
        """The semantic side of search, or None when it is off (`SemanticSwitch.dense`)."""
        return self.semantic_switch.dense

    def status(self) -> M.Status:
        """Archive and index figures (what is indexed, what was skipped and why), with
        the semantic search's line."""
        st = self.catalog.status()
        st.semantic = self.semantic_switch.status_line()
        return st


def open_service(
    settings: Settings,
    *,
    live: LiveArchive | None = None,
    store: IndexStore | None = None,
    redact_secrets: bool = True,
) -> ArchiveService:
    """The service over an archive's index.

    Args:
        settings: the archive, the data dir, and whether search is also semantic.
        live: the live archive keeping the index current (started or not): the service
            reads its index and reports its role; `live.stop()` closes it.
        store: the index, when the caller opened it already (to build it first);
            otherwise the one in `settings`' data dir is opened as it is.
        redact_secrets: redact credentials in every text returned.
    """
    if live is not None:
        return ArchiveService(
            live.store, live.settings.archive_root, redact_secrets=redact_secrets, live=live
        )
    if store is None:
        from ccarchive.index.store import IndexStore

        store = IndexStore(settings.archive_data_dir, archive_root=settings.archive_root)
    service = ArchiveService(store, settings.archive_root, redact_secrets=redact_secrets)
    service.use_semantic(settings)
    return service
