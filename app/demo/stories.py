"""The demo's stories, read from the package's data folder and played into an archive.

`data/archive.toml` lists the projects in the order they are played; each project folder
holds `project.toml` (its path, its files before the first session, its sessions in order)
and one script per session, `<session>.toml`. The data is read through importlib.resources,
so it is found the same way in a checkout, an editable install, a wheel or a zip.
"""

from __future__ import annotations

import tomllib
import uuid
from importlib.resources import files
from importlib.resources.abc import Traversable

from ccarchive.demo.actions import Scene, play_steps
from ccarchive.demo.builder import ArchiveBuilder, Project
from ccarchive.demo.conventions import seeded_rng
from ccarchive.demo.steps import Expander, moment
from ccarchive.demo.transcript import Transcript

_SESSION_KEYS = {"version", "branch", "model", "slug", "start", "must_end_before", "step"}


def data_folder() -> Traversable:
    """Where the stories are: `ccarchive/demo/data` inside the installed package."""
    return files("ccarchive.demo") / "data"


def read_toml(path: Traversable) -> dict:
    return tomllib.loads(path.read_bytes().decode("utf-8"))


def play_stories(arc: ArchiveBuilder, data: Traversable | None = None) -> dict[str, int]:
    """Play every project's sessions into `arc`; returns the projects and empty sessions.

    `data` is the stories' folder (default: the package's own, `data_folder()`).
    """
    data = data or data_folder()
    projects = read_toml(data / "archive.toml")["projects"]
    empty = 0
    for name in projects:
        folder = data / name
        spec = read_toml(folder / "project.toml")
        scene = Scene(
            arc, Project(spec["path"], dict(spec["files"])), Expander(arc, folder, {}), finished={}
        )
        for session in spec["sessions"]:
            script = read_toml(folder / f"{session}.toml")
            scene.expander = Expander(arc, folder, {})  # `let` names last one session
            empty += _play_session(scene, session, script)
    return {"projects": len(projects), "empty_sessions": empty}


def _play_session(scene: Scene, name: str, script: dict) -> int:
    """Play one session script; returns 1 for an empty session file, else 0."""
    arc, project = scene.arc, scene.project
    if script.get("empty"):
        # a session resumed and closed without doing anything: a 0-byte transcript
        sid = str(uuid.UUID(int=seeded_rng(name).getrandbits(128), version=4))
        arc.put(f"projects/{project.dirname}/{sid}.jsonl", "", moment(arc, script["start"]))
        return 1
    unknown = set(script) - _SESSION_KEYS
    if unknown:
        raise ValueError(f"session {name}: unknown keys {sorted(unknown)}")
    tr = Transcript.open_session(
        arc,
        project,
        name,
        start=moment(arc, script["start"]),
        version=script["version"],
        branch=script["branch"],
        model=script["model"],
        slug=script.get("slug"),
    )
    play_steps(scene, tr, script.get("step", []))
    scene.finished[name] = tr.last or ""
    deadline = script.get("must_end_before")
    if deadline and not tr.t < moment(arc, deadline):
        raise ValueError(
            f"session {name} must end before {deadline}, a live session ends before now"
        )
    return 0
