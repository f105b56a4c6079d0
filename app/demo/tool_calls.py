"""Tool calls and their results, each as Claude Code records them.

A call is an assistant `tool_use` entry and a user `tool_result` entry that carries the
structured `toolUseResult` copy the tool returned. Edits and writes change the project's
files in place (so a later Read shows them) and back a file up before its first change
(the file-history checkpoints); big Bash output is persisted beside the transcript.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable

from ccarchive.demo.conventions import (
    CLAUDE_DIR,
    line_of,
    numbered,
    split_lines,
    structured_patch,
    tokens,
)
from ccarchive.demo.conversation import KEEP, Conversation


class ToolCalling(Conversation):
    """A conversation that also calls tools (Bash, Read, Edit, Write, Grep, Glob, ...)."""

    def tool(
        self,
        name: str,
        inp: dict,
        content: str | list,
        result: object,
        *,
        secs: float = 2.0,
        is_error: bool = False,
        before_result: Callable | None = None,
    ) -> tuple[str, dict]:
        """A tool call and its result; `result` is the structured `toolUseResult` copy."""
        tid = "toolu_01" + self._rand(22)
        use = self._block({"type": "tool_use", "id": tid, "name": name, "input": inp}, secs=4)
        self._close("tool_use")
        start = self.t
        if before_result:
            before_result(tid, use)
        self.at(start + dt.timedelta(seconds=secs))
        self.tick(0.4)
        block: dict = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        tail: dict = {"toolUseResult": result}
        if self.v >= (2, 1, 1):
            tail["sourceToolAssistantUUID"] = use["uuid"]
        if self.prompt_id:
            tail["promptId"] = self.prompt_id
        res = self._emit(
            "user", {"message": {"role": "user", "content": [block]}}, parent=use["uuid"], tail=tail
        )
        self.pending += tokens(json.dumps(content))
        self.tool_uses += 1
        return tid, res

    def bash(
        self,
        command: str,
        stdout: str,
        stderr: str = "",
        *,
        desc: str | None = None,
        secs: float = 2.0,
        is_error: bool = False,
        code: int = 1,
        progress: list[tuple[float, str]] | None = None,
        during: Callable | None = None,
        persist: bool = False,
    ) -> tuple[str, dict]:
        """A Bash call; `progress` = (elapsed seconds, new output) snapshots while it runs."""
        inp = {"command": command}
        if desc:
            inp["description"] = desc
        fields: dict[str, object] = {
            "stdout": stdout,
            "stderr": stderr,
            "interrupted": False,
            "isImage": False,
        }
        if not stdout and not stderr:
            fields["noOutputExpected"] = False
        result: object = fields  # a failed command's result is its text instead
        content = "\n".join(x for x in (stdout, stderr) if x) or "(no output)"
        if is_error:
            content = f"Exit code {code}\n{content}"
            result = "Error: " + content

        def before(tid: str, use: dict) -> None:
            base = self.t
            full = ""
            for i, (elapsed, chunk) in enumerate(progress or ()):
                self.at(base + dt.timedelta(seconds=elapsed))
                full += chunk + "\n"
                self.progress(
                    {
                        "type": "bash_progress",
                        "output": chunk,
                        "fullOutput": full,
                        "elapsedTimeSeconds": int(elapsed),
                        "totalLines": len(split_lines(full)),
                    },
                    f"bash-progress-{i}",
                    tid,
                    parent=use["uuid"] if i == 0 else KEEP,
                )
            if during:
                during()

        tid, res = self.tool(
            "Bash", inp, content, result, secs=secs, is_error=is_error, before_result=before
        )
        if persist:
            self._persist(tid, stdout, res)
        return tid, res

    def _persist(self, tid: str, full: str, res: dict) -> None:
        """Big output: the full text goes to tool-results/<id>.txt, the transcript keeps a
        2 KB preview (Claude Code >= ~2.0.60 does this to keep transcripts small)."""
        rel = f"projects/{self.project.dirname}/{self.sid}/tool-results/{tid}.txt"
        self.arc.put(rel, full, self.t)
        path = f"{CLAUDE_DIR}/{rel}"
        kb = len(full.encode()) / 1024
        res["message"]["content"][0]["content"] = (
            f"<persisted-output>\nOutput too large ({kb:.1f}KB). Full output saved to: {path}"
            f"\n\nPreview (first 2KB):\n{full[:2048]}\n...\n</persisted-output>"
        )
        res["toolUseResult"]["stdout"] = full[:2048]
        res["toolUseResult"]["persistedOutputPath"] = path

    def read(self, path: str, *, secs: float = 1.0) -> tuple[str, dict]:
        text = self.fs[path]
        full = f"{self.cwd}/{path}"
        n = len(split_lines(text))
        return self.tool(
            "Read",
            {"file_path": full},
            numbered(text),
            {
                "type": "text",
                "file": {
                    "filePath": full,
                    "content": text,
                    "numLines": n,
                    "startLine": 1,
                    "totalLines": n,
                },
            },
            secs=secs,
        )

    def edit(
        self,
        path: str,
        old: str,
        new: str,
        *,
        secs: float = 1.0,
        hook: tuple[str, str] | None = None,
    ) -> tuple[str, dict]:
        """An Edit; `hook` = (command, stdout) of a PostToolUse hook that ran after it."""
        original = self.fs[path]
        if original.count(old) != 1:
            raise AssertionError(f"demo edit of {path}: old text must occur exactly once")
        updated = original.replace(old, new)
        full = f"{self.cwd}/{path}"
        inp: dict = {"file_path": full, "old_string": old, "new_string": new}
        if self.v >= (2, 0, 0):
            inp["replace_all"] = False

        def before(_tid: str, _use: dict) -> None:
            self._touch(path)
            self.fs[path] = updated

        start = line_of(updated, split_lines(new)[0]) if new.strip() else 1
        snippet = numbered(
            "\n".join(split_lines(updated)[max(0, start - 3) : start + 6]), max(1, start - 2)
        )
        content = f"Updated {full}. Lines around the change (cat -n):\n{snippet}"
        result = {
            "filePath": full,
            "oldString": old,
            "newString": new,
            "originalFile": original,
            "structuredPatch": structured_patch(original, updated),
            "userModified": False,
            "replaceAll": False,
        }
        tid, res = self.tool("Edit", inp, content, result, secs=secs, before_result=before)
        if hook:
            self._hook_success("PostToolUse:Edit", tid, *hook)
        return tid, res

    def write(
        self, path: str, text: str, *, secs: float = 1.0, hook: tuple[str, str] | None = None
    ) -> tuple[str, dict]:
        full = f"{self.cwd}/{path}"
        original = self.fs.get(path)

        def before(_tid: str, _use: dict) -> None:
            self._touch(path)
            self.fs[path] = text

        result = {
            "type": "create" if original is None else "update",
            "filePath": full,
            "content": text,
            "structuredPatch": [] if original is None else structured_patch(original, text),
            "originalFile": original,
        }
        tid, res = self.tool(
            "Write",
            {"file_path": full, "content": text},
            f"Wrote {len(split_lines(text))} lines to {full}",
            result,
            secs=secs,
            before_result=before,
        )
        if hook:
            self._hook_success("PostToolUse:Write", tid, *hook)
        return tid, res

    def _hook_success(self, name: str, tid: str, command: str, stdout: str) -> None:
        if self.v < (2, 1, 90):
            return
        self.attachment(
            {
                "type": "hook_success",
                "hookName": name,
                "toolUseID": tid,
                "hookEvent": "PostToolUse",
                "content": "",
                "stdout": stdout,
                "stderr": "",
                "exitCode": 0,
                "command": command,
                "durationMs": self.rng.randint(80, 400),
            }
        )

    def grep(
        self,
        pattern: str,
        files: list[str],
        *,
        path: str | None = None,
        content: list[str] | None = None,
    ) -> tuple[str, dict]:
        inp: dict = {"pattern": pattern}
        if path:
            inp["path"] = f"{self.cwd}/{path}"
        if content is not None:
            inp["output_mode"] = "content"
            inp["-n"] = True
            return self.tool(
                "Grep",
                inp,
                "\n".join(content),
                {
                    "mode": "content",
                    "numFiles": 0,
                    "filenames": [],
                    "content": "\n".join(content),
                    "numLines": len(content),
                },
            )
        full = [f"{self.cwd}/{f}" for f in files]
        text = f"Found {len(full)} file{'s' if len(full) != 1 else ''}\n" + "\n".join(full)
        return self.tool(
            "Grep",
            inp,
            text,
            {"mode": "files_with_matches", "filenames": full, "numFiles": len(full)},
        )

    def glob(self, pattern: str) -> tuple[str, dict]:
        rx = re.compile(
            "^" + re.escape(pattern).replace(r"\*\*/", "(.*/)?").replace(r"\*", "[^/]*") + "$"
        )
        hits = sorted(f"{self.cwd}/{p}" for p in self.fs if rx.match(p))
        return self.tool(
            "Glob",
            {"pattern": pattern},
            "\n".join(hits) or "No files found",
            {
                "filenames": hits,
                "durationMs": self.rng.randint(4, 60),
                "numFiles": len(hits),
                "truncated": False,
            },
        )

    def todo(self, *items: tuple[str, str, str]) -> tuple[str, dict]:
        """TodoWrite with (content, status, activeForm) triples."""
        new = [{"content": c, "status": s, "activeForm": a} for c, s, a in items]
        old, self.todos = self.todos, new
        done = sum(t["status"] == "completed" for t in new)
        text = (
            f"Todo list updated: {done} of {len(new)} done. Keep it current as you work "
            "and move on to the next item."
        )
        return self.tool("TodoWrite", {"todos": new}, text, {"oldTodos": old, "newTodos": new})

    def mcp(self, name: str, inp: dict, text: str) -> tuple[str, dict]:
        blocks = [{"type": "text", "text": text}]
        return self.tool(name, inp, blocks, blocks, secs=3)

    def exit_plan(self, plan: str) -> tuple[str, dict]:
        path = f"{CLAUDE_DIR}/plans/{self.slug}.md"
        return self.tool(
            "ExitPlanMode",
            {"plan": plan},
            f"The user approved the plan. It is saved at {path}; start on step 1.",
            {"plan": plan, "isAgent": False, "filePath": path},
            secs=40,
        )
