"""The styles a transcript entry is drawn with: one value that views fill from their
component classes (so the look stays in `styles/*.tcss`), with defaults for a dark
terminal for renderers that have no widget (`EntryTheme()`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.style import Style


@dataclass(frozen=True)
class EntryTheme:
    """The styles an entry is drawn with (views fill it from their component classes)."""

    prompt: Style = field(default_factory=lambda: Style(color="#f0c674", bold=True))
    prompt_mark: Style = field(default_factory=lambda: Style(color="#f0c674", bold=True))
    assistant_mark: Style = field(default_factory=lambda: Style(color="#81a2be", bold=True))
    tool: Style = field(default_factory=lambda: Style(color="#8abeb7", bold=True))
    tool_arg: Style = field(default_factory=lambda: Style(color="#c5c8c6"))
    dim: Style = field(default_factory=lambda: Style(color="#7f848e"))
    thinking: Style = field(default_factory=lambda: Style(color="#8c8c9c", italic=True))
    error: Style = field(default_factory=lambda: Style(color="#e06c75", bold=True))
    flag: Style = field(default_factory=lambda: Style(color="#c678dd", bold=True))
    summary: Style = field(default_factory=lambda: Style(color="#b294bb"))
    subagent: Style = field(default_factory=lambda: Style(color="#c678dd", bold=True))
    match: Style = field(
        default_factory=lambda: Style(color="#1d1f21", bgcolor="#f0c674", bold=True)
    )
    diff_add: Style = field(default_factory=lambda: Style(color="#b5bd68", bgcolor="#1f2d1f"))
    diff_remove: Style = field(default_factory=lambda: Style(color="#cc6666", bgcolor="#2d1f1f"))
    code_theme: str = "monokai"


DEFAULT_THEME = EntryTheme()
