"""A whole session: tool calls plus the subagents it spawns, in all three on-disk generations.

`Transcript.open_session` starts a main session (its id seeded from the session's name);
`agent` plays a subagent's own conversation and links it back to the Task/Agent call that
spawned it, the way the Claude Code version of the session would have stored it.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable

from ccarchive.demo.builder import ArchiveBuilder, Project
from ccarchive.demo.conventions import seeded_rng, tokens
from ccarchive.demo.tool_calls import ToolCalling


class Transcript(ToolCalling):
    """A conversation with tools and subagents: what a session script is played on."""

    @classmethod
    def open_session(
        cls,
        arc: ArchiveBuilder,
        project: Project,
        name: str,
        *,
        start: dt.datetime,
        version: str,
        branch: str,
        model: str,
        slug: str | None = None,
    ) -> Transcript:
        """A main session, `projects/<project>/<sid>.jsonl`; ids are seeded from `name`."""
        rng = seeded_rng("session:" + name)
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        rel = f"projects/{project.dirname}/{sid}.jsonl"
        start += dt.timedelta(milliseconds=rng.randint(0, 999))
        arc.counts["sessions"] += 1
        return cls(
            arc,
            project,
            rel=rel,
            sid=sid,
            start=start,
            version=version,
            branch=branch,
            model=model,
            slug=slug,
            rng=rng,
        )

    def agent(
        self,
        *,
        gen: str,
        subagent_type: str,
        description: str,
        prompt: str,
        model: str,
        play: Callable[[Transcript], None],
        save_plan: bool = False,
    ) -> str:
        """Spawn a subagent and play its conversation.

        `gen` picks the on-disk generation: "inline" (1.0.x, sidechain entries in this
        file), "legacy" (2.0.x, `projects/<p>/agent-<8hex>.jsonl`) or "subagents" (2.1.x,
        `<sid>/subagents/agent-a<16hex>.jsonl` + `.meta.json`). With `save_plan`, the
        agent's final answer is also its subplan, `plans/<slug>-agent-<id>.md`. Returns the
        agent id.
        """
        tool = "Agent" if self.v >= (2, 1, 63) else "Task"
        tid = "toolu_01" + self._rand(22)
        inp = {"description": description, "prompt": prompt, "subagent_type": subagent_type}
        use = self._block({"type": "tool_use", "id": tid, "name": tool, "input": inp}, secs=4)
        self._close("tool_use")
        start = self.t
        aid, child = self._spawn(gen, tid, subagent_type, description, model)
        child.prompt(prompt, after=1.0, history=False)
        play(child)
        child.done()
        report = child.last_text
        if save_plan:
            self.arc.put(f"plans/{self.slug}-agent-{aid}.md", report, child.t)
            self.arc.counts["plans"] += 1
        if gen == "subagents":
            self._log_progress(child, use["uuid"], tid, prompt, aid)
        self.at(child.t)
        self.tick(1.0)
        ms = (self.t - start) // dt.timedelta(milliseconds=1)
        blocks: list = [{"type": "text", "text": report}]
        result: dict = {}
        if gen != "inline":
            result = {"status": "completed", "prompt": prompt, "agentId": aid}
        if gen == "subagents":
            result["agentType"] = subagent_type
            blocks.append(
                {
                    "type": "text",
                    "text": (
                        f"agentId: {aid} (pass this id to resume the same agent later)\n"
                        f"<usage>total_tokens: {child.total_tokens}\ntool_uses: {child.tool_uses}\n"
                        f"duration_ms: {ms}</usage>"
                    ),
                }
            )
        result.update(
            content=[{"type": "text", "text": report}],
            totalDurationMs=ms,
            totalTokens=child.total_tokens,
            totalToolUseCount=child.tool_uses,
            usage=child.last_usage,
        )
        tail: dict = {"toolUseResult": result}
        if self.v >= (2, 1, 1):
            tail["sourceToolAssistantUUID"] = use["uuid"]
        if self.prompt_id:
            tail["promptId"] = self.prompt_id
        self._emit(
            "user",
            {
                "message": {
                    "role": "user",
                    "content": [{"tool_use_id": tid, "type": "tool_result", "content": blocks}],
                }
            },
            parent=use["uuid"],
            tail=tail,
        )
        self.pending += tokens(report)
        self.tool_uses += 1
        return aid

    def _spawn(
        self, gen: str, tid: str, subagent_type: str, description: str, model: str
    ) -> tuple[str, Transcript]:
        """The subagent's id and transcript, where its generation stores them."""
        p = self.project
        if gen == "inline":
            # 1.0.x: the subagent's entries are sidechain lines of the parent's own file
            return "", Transcript(
                self.arc,
                p,
                rel=None,
                sid=self.sid,
                start=self.t,
                version=self.version,
                branch=self.branch,
                model=model,
                slug=self.slug,
                sidechain=True,
                lines=self.lines,
                rng=self.rng,
                base_ctx=9_000,
            )
        if gen == "legacy":
            aid = self._hex(8)
            rel = f"projects/{p.dirname}/agent-{aid}.jsonl"
        else:
            aid = "a" + self._hex(16)
            rel = f"projects/{p.dirname}/{self.sid}/subagents/agent-{aid}.jsonl"
            meta = {"agentType": subagent_type, "description": description, "toolUseId": tid}
            self.arc.put(
                rel[: -len(".jsonl")] + ".meta.json",
                json.dumps(meta, separators=(",", ":")),
                self.t,
            )
        self.arc.counts["subagents"] += 1
        return aid, Transcript(
            self.arc,
            p,
            rel=rel,
            sid=self.sid,
            start=self.t,
            version=self.version,
            branch=self.branch,
            model=model,
            slug=self.slug,
            agent_id=aid,
            sidechain=True,
            base_ctx=9_000,
        )

    def _log_progress(
        self, child: Transcript, parent_uuid: str, tid: str, prompt: str, aid: str
    ) -> None:
        """2.1.x: the parent logs the child's first messages as progress while it runs."""
        shown = [
            e
            for e, _ in child.times
            if e["type"] == "assistant"
            and e["message"]["content"][0]["type"] in ("tool_use", "text")
        ]
        when = {id(e): t for e, t in child.times}
        prev: object = parent_uuid
        for e in shown[:4]:
            self.at(when[id(e)])
            pe = self.progress(
                {
                    "message": {
                        "type": "assistant",
                        "message": e["message"],
                        "uuid": e["uuid"],
                        "timestamp": e["timestamp"],
                    },
                    "normalizedMessages": [],
                    "type": "agent_progress",
                    "prompt": prompt,
                    "agentId": aid,
                },
                f"agent_msg_{e['message']['id']}",
                tid,
                parent=prev,
            )
            prev = pe["uuid"]

    def warmup(self, model: str, play: Callable[[Transcript], None]) -> str:
        """2.0.x probed each new session with a "Warmup" agent whose file links to no call.

        Returns the agent id.
        """
        p = self.project
        aid = self._hex(8)
        warm = Transcript(
            self.arc,
            p,
            rel=f"projects/{p.dirname}/agent-{aid}.jsonl",
            sid=self.sid,
            start=self.t,
            version=self.version,
            branch=self.branch,
            model=model,
            agent_id=aid,
            sidechain=True,
            base_ctx=4_000,
        )
        self.arc.counts["subagents"] += 1
        warm.prompt("Warmup", after=0.5, history=False)
        play(warm)
        warm.done()
        return aid
