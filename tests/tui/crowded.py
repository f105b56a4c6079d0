"""A crowded archive for layout tests: many projects (worktrees of one repository among
them), many plans, long and meaningless titles, a session gone quiet long ago.

The demo archive has four projects and four plans, too few to push a list past its room;
the review's real archive had 25 projects (four numbered worktrees of `cli`, nine other
folders named `cli`) and 21 plans. This writes one shaped like it with the demo's own
conversation player, so the files are what Claude Code writes.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from ccarchive.demo.builder import ArchiveBuilder, Project
from ccarchive.demo.conventions import seeded_rng
from ccarchive.demo.conversation import Conversation

HOME = "/home/alex"
PROJECTS = (
    "workspace/cli",
    "workspace/cli/.worktrees/1",
    "workspace/cli/.worktrees/2",
    "workspace/cli/.worktrees/3",
    "workspace/cli/.worktrees/4",
    "Work/entire/devenv/cli",
    "Repositories/cli",
    "wks/cli",
    "test-cli/cli",
    "Developer/cli",
    "src/github.com/acme/cli",
    "workspace/completion-standalone-installer",
    "workspace/cli/.worktrees/ent-109-text-output-checkpoint-flag",
    "code/tally",
    "code/spotter",
    "code/claude-code-log",
    "code/scripts-and-tools",
    "dotfiles",
    "code/homepage",
    "infra/terraform",
    "infra/terraform/.worktrees/fix-gemini",
    "notes",
    "code/wingman",
    "code/agent-bridge",
    "code/docs-site",
)
"""25 project folders under HOME: worktrees and many folders named `cli`."""

PROMPTS = (
    "why is lint failing on the build? the nolint comments keep getting removed by the "
    "formatter and I cannot see why",
    "our git status has broken, why? it says the worktree index is corrupted after gc",
    "/workflows:review https://github.com/acme/cli/pull/6/files",
    "Change ReadCommitted to Return CheckpointSummary",
    "implement the printWrngAgentError, follow same pattern as printMissinAgentError",
    "181",
    "hi",
    "do both please",
    "can we add one more thing? the author of the checkpoint should be read from the git "
    "config of the worktree and not the global one, if you look into /tmp/extensions you "
    "will find the code that does it",
    "Wingman status notifications in the agent terminal are never shown after a resume",
    "Fix Gemini transcript parsing for checkpointing when the session has tool calls",
    "CheckpointSummary",
)
"""First prompts: long ones, titles that say nothing, words a redactor may mistake."""

PLAN_TITLES = (
    "E2E Testing Framework with Real Agent Calls and Recorded Fixtures",
    "Preserve Unknown Hook Types When Rewriting Settings",
    "Wingman status notifications in the agent terminal",
    "Fix hook response format and exit codes for all agents",
    "Content-aware carry-forward for partial checkpoints",
    "Parallelize the directory walk of tally",
    "Fix Gemini Transcript Parsing for Checkpointing",
    "Add Unit Tests for CLIVersion in Metadata",
)
ANSWER = (
    "I looked at the code paths involved. The formatter rewrites the file and drops "
    "the comment because it sits on a line of its own; moving it to the end of the "
    "statement keeps it. I changed the two places and ran the tests again."
)


def write_crowded_archive(root: Path, now: dt.datetime, *, plans: int = 21) -> dict:
    """Write the crowded archive into `root` (missing or empty); returns what it holds."""
    arc = ArchiveBuilder(now)
    projects = [Project(f"{HOME}/{p}", {}) for p in PROJECTS]
    rng = seeded_rng("crowded")
    n_sessions = 0
    plan_no = 0
    for i, project in enumerate(projects):
        for k in range(3 if i < 10 else 2):
            sid = str(seeded_uuid(f"{project.path}:{k}"))
            days_ago = (i * 3 + k * 7) % 40 + (1 if i else 0)
            start = arc.day(days_ago, 9 + (i + k) % 12, (i * 7 + k * 13) % 60)
            slug = None
            if plan_no < plans and (i + k) % 3 != 2:
                slug = f"plan-{plan_no:02d}-{PLAN_TITLES[plan_no % len(PLAN_TITLES)][:12]}"
                slug = slug.lower().replace(" ", "-")
            conv = Conversation(
                arc,
                project,
                rel=f"projects/{project.dirname}/{sid}.jsonl",
                sid=sid,
                start=start,
                version="2.1.30",
                branch=f"alex/ent-{100 + i}-{'long-branch-name-' * (k % 2)}fix",
                model="claude-opus-4-5",
                slug=slug,
                base_ctx=21_000 + rng.randint(0, 4) * 900_000,
            )
            prompt = PROMPTS[(i * 3 + k) % len(PROMPTS)]
            conv.prompt(prompt)
            conv.say(ANSWER)
            for turn in range(2 + (i % 3)):
                conv.prompt(f"and the step after that, number {turn + 2}: check {project.path}")
                conv.say(ANSWER)
            if slug is not None:
                title = PLAN_TITLES[plan_no % len(PLAN_TITLES)]
                body = "\n\n".join(
                    f"## Step {s}\n\nChange the {project.path.rsplit('/', 1)[-1]} code so "
                    f"that {title.lower()} works; test it with the recorded fixtures."
                    for s in range(1, 6)
                )
                arc.put(f"plans/{slug}.md", f"# Plan: {title}\n\n{body}\n", conv.t)
                arc.counts["plans"] += 1
                plan_no += 1
            conv.finish(last_prompt=prompt)
            arc.counts["sessions"] += 1
            n_sessions += 1
    arc.render()
    root.mkdir(parents=True, exist_ok=True)
    for rel, data in arc.text.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        ts = arc.mtime[rel].timestamp()
        os.utime(path, (ts, ts))
    return {"projects": len(projects), "sessions": n_sessions, "plans": plan_no}


def seeded_uuid(name: str):
    import uuid

    return uuid.UUID(int=seeded_rng(name).getrandbits(128), version=4)
