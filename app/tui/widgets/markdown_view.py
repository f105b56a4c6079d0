"""A Markdown document drawn as one widget: the plan and memory-file previews.

Textual's `Markdown` mounts a widget per block, list item, bullet and paragraph: a
1.5 KB memory file with a twenty-item list became ~80 widgets to style, lay out and
composite, and took 0.2–0.25 s of CPU of the plans and projects panes' first screens
(measured by stubbing it out in the 1 GB benchmark). This view renders the document with
Rich's Markdown once per width into lines of text, in the look of Textual's Markdown
(the theme's `$markdown-*` header colours, `$text-primary` bullets, inline code on
`$warning 10%`), and shows them as one text: still selectable with the mouse.

YAML front matter (`---` … `---` at the top, as memory files have) is shown as a dim
block of `key: value` lines rather than as a rule and a heading.
"""

from __future__ import annotations

import re
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, HorizontalRule, ListItem, Markdown
from rich.padding import Padding
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from rich.theme import Theme
from textual.widget import Widget

FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.S)

_STYLES = {
    # Rich's style name: this widget's component class
    "markdown.h1": "h1",
    "markdown.h2": "h2",
    "markdown.h3": "h3",
    "markdown.h4": "h4",
    "markdown.h5": "h5",
    "markdown.h6": "h6",
    "markdown.code": "code",
    "markdown.code_block": "code-block",
    "markdown.block_quote": "quote",
    "markdown.item.bullet": "bullet",
    "markdown.item.number": "bullet",
    "markdown.link": "link",
    "markdown.link_url": "link",
    "markdown.hr": "rule",
    "markdown.table.border": "rule",
    "markdown.table.header": "table-header",
}


class _Heading(Heading):
    """Textual's headers: H1 centred, a blank line more above H1 and H2."""

    LEVEL_ALIGN: ClassVar[dict[str, str]] = {"h1": "center"}  # type: ignore[assignment]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.tag in ("h1", "h2"):
            yield Text("")
        yield from super().__rich_console__(console, options)


class _CodeBlock(CodeBlock):
    """A fenced block as Textual draws it: highlighted, padded 1 × 2, on its own shade."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        style = console.get_style("markdown.code_block")
        code = str(self.text).rstrip()
        syntax = Syntax(
            code,
            self.lexer_name,
            theme="ansi_dark",
            word_wrap=True,
            background_color=style.bgcolor.name if style.bgcolor else None,
        )
        yield Padding(syntax, (1, 2), style=style)


class _ListItem(ListItem):
    """Bullets and numbers as Textual draws them: `• ` and ` 1. `."""

    def render_bullet(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(
            self.elements, options.update(width=options.max_width - 2), style=self.style
        )
        style = console.get_style("markdown.item.bullet", default="none")
        for n, line in enumerate(lines):
            yield Segment("  " if n else "• ", style)
            yield from line
            yield Segment("\n")

    def render_number(
        self, console: Console, options: ConsoleOptions, number: int, last_number: int
    ) -> RenderResult:
        width = len(str(last_number)) + 3
        lines = console.render_lines(
            self.elements, options.update(width=options.max_width - width), style=self.style
        )
        style = console.get_style("markdown.item.number", default="none")
        numeral = Segment(f"{number}.".rjust(width - 1) + " ", style)
        padding = Segment(" " * width, style)
        for n, line in enumerate(lines):
            yield padding if n else numeral
            yield from line
            yield Segment("\n")


class _Rule(HorizontalRule):
    """A solid rule, as Textual draws it."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Rule(style=console.get_style("markdown.hr", default="none"))
        yield Text()


class _Markdown(Markdown):
    elements: ClassVar = {
        **Markdown.elements,
        "heading_open": _Heading,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
        "list_item_open": _ListItem,
        "hr": _Rule,
    }


class MarkdownView(Widget):
    """Markdown source shown as rendered text (height: the document's)."""

    ALLOW_SELECT = True
    DEFAULT_CSS = """
    MarkdownView {
        height: auto;
        padding: 0 2 0 2;
        color: $foreground;
        & > .markdown-view--h1 {
            color: $markdown-h1-color;
            background: $markdown-h1-background;
            text-style: $markdown-h1-text-style;
        }
        & > .markdown-view--h2 {
            color: $markdown-h2-color;
            background: $markdown-h2-background;
            text-style: $markdown-h2-text-style;
        }
        & > .markdown-view--h3 {
            color: $markdown-h3-color;
            background: $markdown-h3-background;
            text-style: $markdown-h3-text-style;
        }
        & > .markdown-view--h4 {
            color: $markdown-h4-color;
            background: $markdown-h4-background;
            text-style: $markdown-h4-text-style;
        }
        & > .markdown-view--h5 {
            color: $markdown-h5-color;
            background: $markdown-h5-background;
            text-style: $markdown-h5-text-style;
        }
        & > .markdown-view--h6 {
            color: $markdown-h6-color;
            background: $markdown-h6-background;
            text-style: $markdown-h6-text-style;
        }
        & > .markdown-view--code { background: $warning 10%; color: $text-warning 95%; }
        & > .markdown-view--code-block { color: rgb(210,210,210); background: black 10%; }
        & > .markdown-view--quote { color: $foreground; background: $boost; }
        & > .markdown-view--bullet { color: $text-primary; }
        & > .markdown-view--link { text-style: underline; }
        & > .markdown-view--rule { color: $secondary; }
        & > .markdown-view--table-header { text-style: bold; }
        & > .markdown-view--front-matter { color: $text-muted; }
    }
    """
    """Textual's Markdown look, from the theme (its `Markdown*` widgets' defaults)."""

    COMPONENT_CLASSES = {
        "markdown-view--h1",
        "markdown-view--h2",
        "markdown-view--h3",
        "markdown-view--h4",
        "markdown-view--h5",
        "markdown-view--h6",
        "markdown-view--code",
        "markdown-view--code-block",
        "markdown-view--quote",
        "markdown-view--bullet",
        "markdown-view--link",
        "markdown-view--rule",
        "markdown-view--table-header",
        "markdown-view--front-matter",
    }

    def __init__(self, markdown: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source = markdown
        """The Markdown shown."""
        self._texts: dict[int, Text] = {}
        """The rendered document by width (layout asks at more than one width)."""
        self._parsed: _Markdown | None = None
        """The document parsed (once: rendered at each width layout asks for)."""
        self._theme_cache: Theme | None = None

    def update(self, markdown: str) -> None:
        """Show another document."""
        if markdown != self.source:
            self.source = markdown
            self._texts = {}
            self._parsed = None
            self.refresh(layout=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._texts = {}
        self._theme_cache = None

    # ---- rendering -----------------------------------------------------------------
    def _theme(self) -> Theme:
        if self._theme_cache is not None:
            return self._theme_cache

        def style(name: str) -> Style:
            st = self.get_component_rich_style(f"markdown-view--{name}")
            return Style(
                color=st.color,
                bgcolor=st.bgcolor,
                bold=st.bold,
                italic=st.italic,
                underline=st.underline,
                strike=st.strike,
            )

        styles = {rich_name: style(name) for rich_name, name in _STYLES.items()}
        styles["markdown.h1.border"] = styles["markdown.h1"]
        self._theme_cache = Theme(styles, inherit=True)
        return self._theme_cache

    def _render_text(self, width: int) -> Text:
        if width in self._texts:
            return self._texts[width]
        source = self.source
        out = Text(end="", no_wrap=True, overflow="crop")
        console = self.app.console
        options = console.options.update(width=max(1, width), highlight=False, height=None)
        front = FRONT_MATTER.match(source)
        lines: list[list[Segment]] = [[]]  # a blank line on top (two above a heading)
        with console.use_theme(self._theme()):
            if front:
                matter = Text(
                    front.group(1).strip("\n"),
                    style=self.get_component_rich_style("markdown-view--front-matter"),
                )
                lines += console.render_lines(matter, options, pad=False)
                lines.append([])
                source = source[front.end() :]
            if source.strip():
                try:
                    if self._parsed is None:
                        self._parsed = _Markdown(source, hyperlinks=True)
                    lines += console.render_lines(self._parsed, options, pad=False)
                except Exception:  # never a crash for a document: show its text
                    lines += console.render_lines(Text(source), options, pad=False)
        while lines and not "".join(s.text for s in lines[-1]).strip():
            lines.pop()  # no trailing blank lines: the next block's margin is the gap
        for n, line in enumerate(lines):
            if n:
                out.append("\n")
            for seg in line:
                out.append(seg.text, seg.style if seg.style else None)
        if len(self._texts) > 3:
            self._texts.clear()
        self._texts[width] = out
        return out

    def get_content_height(self, container, viewport, width: int) -> int:
        if not self.source:
            return 0
        return len(self._render_text(width).plain.split("\n"))

    def render(self) -> Text:
        if not self.source:
            return Text("")
        return self._render_text(self.content_region.width or self.size.width)
