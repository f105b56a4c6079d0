"""What each step of a session script does: one small function per action.

Most actions are one call on the `Transcript` (`say`, `bash`, `edit`...). The others add the
files a session leaves beside its transcript (plans, memory, todos), write bookkeeping
records, or move the story along (`wait`, `resume`, `mark` and `rewind`, `let`). The
format itself is described in `data/README.md`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from ccarchive.demo.builder import ArchiveBuilder, Project
from ccarchive.demo.steps import Expander, Step, moment
from ccarchive.demo.transcript import Transcript


@dataclass
class Scene:
    """What the steps of one project's sessions share while they are played."""

    arc: ArchiveBuilder
    project: Project
    expander: Expander
    finished: dict[str, str]
    """Session name -> uuid of its last entry, for `summary` records of later sessions."""
    marks: dict[str, tuple[str | None, dict[str, str]]] = field(default_factory=dict)
    """`mark` name -> (last entry, the project's files) for a later `rewind`."""


Action = Callable[[Scene, Transcript, Step], object]
"""What an action returns is not used (the one-line actions return what their call does)."""
ACTIONS: dict[str, Action] = {}


def action(name: str) -> Callable[[Action], Action]:
    def register(fn: Action) -> Action:
        ACTIONS[name] = fn
        return fn

    return register


def play_steps(scene: Scene, tr: Transcript, steps: list[dict]) -> None:
    """Play `steps` on `tr`, in order."""
    for raw in steps:
        step = Step(raw, lambda v: scene.expander.value(tr, v))
        if step.action not in ACTIONS:
            raise ValueError(f"unknown step {step.action!r}")
        ACTIONS[step.action](scene, tr, step)
        step.check()


def _then(scene: Scene, steps: object) -> Callable[[Transcript], None]:
    """Nested steps (a subagent's conversation) as the callback the transcript expects."""
    if not isinstance(steps, list):
        raise ValueError(f"`play` is a list of steps ([[step.play]]), not {steps!r}")
    return lambda child: play_steps(scene, child, steps)


# ---- the conversation -------------------------------------------------------------------


@action("prompt")
def _prompt(scene: Scene, tr: Transcript, step: Step) -> None:
    """A typed prompt; with `paste`, a pasted text between `prompt` and `after_paste`."""
    kw = step.kwargs("after", "history")
    pasted = step.text("paste", None)
    if pasted is None:
        tr.prompt(step.text(), **kw)
        return
    tail = step.text("after_paste", "")
    n = pasted.count("\n")
    tr.prompt(
        step.text() + pasted + tail,
        **kw,
        display=f"{step.text()}[Pasted text #1 +{n} lines]{tail}",
        pasted={"1": {"id": 1, "type": "text", "content": pasted}},
    )


action("say")(lambda _scene, tr, step: tr.say(step.text(), **step.kwargs("secs")))
action("think")(lambda _scene, tr, step: tr.think(step.text(), **step.kwargs("secs")))
action("done")(lambda _scene, tr, _step: tr.done())
action("wait")(lambda _scene, tr, step: tr.tick(step.number()))
action("finish")(lambda _scene, tr, step: tr.finish(**step.kwargs("last_prompt")))
action("compact")(lambda _scene, tr, step: tr.compact(step.text(), step.text("summary")))
action("session_start_hook")(lambda _scene, tr, step: tr.session_start_hook(step.text()))
action("attachment")(lambda _scene, tr, step: tr.attachment(step.table()))
action("ai_title")(lambda _scene, tr, step: tr.title("ai-title", step.text()))
action("custom_title")(lambda _scene, tr, step: tr.title("custom-title", step.text()))
action("agent_name")(lambda _scene, tr, step: tr.title("agent-name", step.text()))


@action("switch_model")
def _switch_model(_scene: Scene, tr: Transcript, step: Step) -> None:
    tr.model = step.text()


@action("system")
def _system(_scene: Scene, tr: Transcript, step: Step) -> None:
    tr.system(
        step.text(), step.text("content", None), **step.kwargs("secs"), **step.table("fields", {})
    )


@action("local_command")
def _local_command(_scene: Scene, tr: Transcript, step: Step) -> None:
    tr.local_command(step.text(), step.text("args"), step.text("stdout"))


@action("history")
def _history(scene: Scene, tr: Transcript, step: Step) -> None:
    """A history.jsonl line typed outside a prompt (a slash command, a queued prompt)."""
    scene.arc.add_history(tr.t, step.text(), tr.cwd, tr.sid)


# ---- tools ------------------------------------------------------------------------------


@action("bash")
def _bash(scene: Scene, tr: Transcript, step: Step) -> None:
    during = step.array("during", None)
    tr.bash(
        step.text(),
        step.text("stdout"),
        **step.kwargs("stderr", "desc", "secs", "is_error", "code", "progress", "persist"),
        during=(lambda: play_steps(scene, tr, during)) if during else None,
    )


action("read")(lambda _scene, tr, step: tr.read(step.text(), **step.kwargs("secs")))
action("glob")(lambda _scene, tr, step: tr.glob(step.text()))
action("todo")(lambda _scene, tr, step: tr.todo(*(tuple(item) for item in step.array())))
action("mcp")(lambda _scene, tr, step: tr.mcp(step.text(), step.table("input"), step.text("text")))


@action("edit")
def _edit(_scene: Scene, tr: Transcript, step: Step) -> None:
    tr.edit(step.text(), step.text("old"), step.text("new"), **step.kwargs("secs", "hook"))


@action("write")
def _write(_scene: Scene, tr: Transcript, step: Step) -> None:
    tr.write(step.text(), step.text("text"), **step.kwargs("secs", "hook"))


@action("grep")
def _grep(_scene: Scene, tr: Transcript, step: Step) -> None:
    tr.grep(step.text(), step.array("files", []), **step.kwargs("path", "content"))


@action("exit_plan")
def _exit_plan(scene: Scene, tr: Transcript, step: Step) -> None:
    """ExitPlanMode; with `save = true` the approved plan is saved as `plans/<slug>.md`."""
    tr.exit_plan(step.text())
    if step.flag("save"):
        _put_plan(scene, tr, step.text())


@action("agent")
def _agent(scene: Scene, tr: Transcript, step: Step) -> None:
    tr.agent(
        gen=step.text(),
        subagent_type=step.text("subagent_type"),
        description=step.text("description"),
        prompt=step.text("prompt"),
        model=step.text("model"),
        play=_then(scene, step.get("play")),
        **step.kwargs("save_plan"),
    )


@action("warmup")
def _warmup(scene: Scene, tr: Transcript, step: Step) -> None:
    tr.warmup(step.text(), _then(scene, step.get("play")))


# ---- records and files beside the transcript ----------------------------------------------

action("record")(lambda _scene, tr, step: tr.record(step.table()))


@action("permission_mode")
def _permission_mode(_scene: Scene, tr: Transcript, step: Step) -> None:
    """The mode switch (shift+tab) is a record; later prompts carry the new mode."""
    tr.record({"type": "permission-mode", "permissionMode": step.text(), "sessionId": tr.sid})
    tr.mode = step.text()


@action("summary")
def _summary(scene: Scene, tr: Transcript, step: Step) -> None:
    """A summary record titling the branch that ends another (earlier) session."""
    tr.record(
        {
            "type": "summary",
            "summary": step.text(),
            "leafUuid": scene.finished[step.text("leaf_of")],
        }
    )


def _put_plan(scene: Scene, tr: Transcript, text: str) -> None:
    scene.arc.put(f"plans/{tr.slug}.md", text, tr.t)
    scene.arc.counts["plans"] += 1


action("save_plan")(lambda scene, tr, step: _put_plan(scene, tr, step.text()))


@action("memory")
def _memory(scene: Scene, tr: Transcript, step: Step) -> None:
    """A project memory file; dated by the session's last entry unless `at` says when."""
    at = step.table("at", None)
    when = moment(scene.arc, at) if at else tr.t_max
    scene.arc.put(f"projects/{scene.project.dirname}/memory/{step.text()}", step.text("text"), when)
    scene.arc.counts["memory_files"] += 1


@action("session_memory")
def _session_memory(scene: Scene, tr: Transcript, step: Step) -> None:
    """The session's own running notes, `<sid>/session-memory/summary.md`."""
    rel = f"projects/{scene.project.dirname}/{tr.sid}/session-memory/summary.md"
    scene.arc.put(rel, step.text(), tr.t_max)
    scene.arc.counts["memory_files"] += 1


@action("todos_file")
def _todos_file(scene: Scene, tr: Transcript, _step: Step) -> None:
    """2.0.x kept the last TodoWrite list in `todos/<sid>-agent-<sid>.json`."""
    scene.arc.put(f"todos/{tr.sid}-agent-{tr.sid}.json", json.dumps(tr.todos, indent=2), tr.t_max)


# ---- moving the story along -------------------------------------------------------------


@action("let")
def _let(scene: Scene, _tr: Transcript, step: Step) -> None:
    """Name texts for `{{name}}`, expanded now (so `{{date}}` keeps today's date)."""
    scene.expander.variables.update(step.table())


@action("resume")
def _resume(scene: Scene, tr: Transcript, step: Step) -> None:
    """The session is resumed later, by the Claude Code version given."""
    tr.set_version(step.text())
    tr.t = moment(scene.arc, step.table("at"))


@action("mark")
def _mark(scene: Scene, tr: Transcript, step: Step) -> None:
    """Remember this point (the last entry and the files) for a later `rewind`."""
    scene.marks[step.text()] = (tr.last, dict(scene.project.files))


@action("rewind")
def _rewind(scene: Scene, tr: Transcript, step: Step) -> None:
    """Esc Esc: the next prompt continues from the marked entry, files restored."""
    last, files = scene.marks[step.text()]
    scene.project.files.clear()
    scene.project.files.update(files)
    tr.last = last
