"""Activity chart: sessions, messages and tokens per day/week/month, as aligned bar bands.

Each metric gets its own band of block-character bars (eighths of a cell), all bands share
the same columns, and the selected bucket is highlighted through every band, so a column
reads as one day. Drawn with the Line API: each row is one Strip, rebuilt only when the
data, the selection or the size changes.

A band is as tall as the chart's height allows, up to `BAND_ROWS`: styles/timeline.tcss
gives the chart three rows a band, or one on a small terminal (a band of one row puts its
scale beside its name), so that the selected day's sessions keep room below.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from ccarchive.service.models import DayActivity
from ccarchive.tui.format import human_count

BLOCKS = " ▁▂▃▄▅▆▇█"
BAND_ROWS = 3
"""Rows per metric band at most: 3 rows of eighths = 24 levels, enough to compare days."""
LABEL_W = 14
METRICS = (("sessions", "sessions"), ("messages", "messages"), ("tokens", "tokens"))


@dataclass
class _Layout:
    first: int  # index of the first bucket shown
    left: int  # cells before the first bar (centres the bars)
    count: int  # buckets shown
    bar: int  # bar width in cells
    slot: int  # bar + gap


class ActivityChart(Widget, can_focus=True):
    """Bars per bucket for sessions, messages and tokens; one bucket is selected."""

    COMPONENT_CLASSES = {
        "activity-chart--label",
        "activity-chart--scale",
        "activity-chart--sessions",
        "activity-chart--messages",
        "activity-chart--tokens",
        "activity-chart--selected",
        "activity-chart--axis",
        "activity-chart--axis-selected",
        "activity-chart--empty",
    }

    BINDINGS = [
        Binding("left", "move(-1)", "Earlier", show=False),
        Binding("right", "move(1)", "Later", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]

    selected: reactive[int] = reactive(-1)
    """Index of the selected bucket (-1: none)."""

    @dataclass
    class Selected(Message):
        """The reader selected a bucket."""

        chart: ActivityChart
        index: int
        bucket: DayActivity

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.buckets: list[DayActivity] = []
        self.bucket_kind = "day"
        self._lines: list[Strip] | None = None
        self._layout = _Layout(0, 0, 0, 2, 3)

    # ---- data ------------------------------------------------------------------
    def set_data(self, buckets: list[DayActivity], kind: str, selected: int) -> None:
        """Replace the buckets and select one (without posting Selected)."""
        self.buckets = buckets
        self.bucket_kind = kind
        self.set_reactive(ActivityChart.selected, max(-1, min(selected, len(buckets) - 1)))
        self._lines = None
        self.refresh()

    def watch_selected(self) -> None:
        self._lines = None
        self.refresh()
        if 0 <= self.selected < len(self.buckets):
            self.post_message(self.Selected(self, self.selected, self.buckets[self.selected]))

    def action_move(self, step: int) -> None:
        if self.buckets:
            self.selected = max(0, min(len(self.buckets) - 1, self.selected + step))

    def action_jump(self, index: int) -> None:
        if self.buckets:
            self.selected = index % len(self.buckets)

    def on_click(self, event: events.Click) -> None:
        x = event.x - LABEL_W - self._layout.left - self.gutter.left
        lay = self._layout
        if x < 0 or not self.buckets:
            return
        i = lay.first + x // lay.slot
        if lay.first <= i < lay.first + lay.count:
            self.selected = i

    def on_resize(self) -> None:
        self._lines = None

    # ---- drawing ----------------------------------------------------------------
    def get_content_height(self, container, viewport, width: int) -> int:
        return BAND_ROWS * len(METRICS) + 1  # with `height: auto`; the styles set one

    @property
    def band_rows(self) -> int:
        """Rows per metric band: what the chart's height holds (the axis takes one)."""
        height = self.content_region.height or BAND_ROWS * len(METRICS) + 1
        return max(1, min(BAND_ROWS, (height - 1) // len(METRICS)))

    def _compute_layout(self, width: int) -> _Layout:
        n = len(self.buckets)
        avail = max(2, width - LABEL_W - 1)
        if n == 0:
            return _Layout(0, 0, 0, 2, 3)
        slot = avail // n
        if slot >= 3:
            bar = min(slot - 1, 5)
            return _Layout(0, (avail - n * (bar + 1)) // 2, n, bar, bar + 1)
        # too many buckets for the width: show a window of them around the selection
        slot = 2
        count = max(1, avail // slot)
        sel = self.selected if self.selected >= 0 else n - 1
        first = max(0, min(n - count, sel - count // 2)) if sel >= count else 0
        return _Layout(first, 0, min(count, n), 1, slot)

    def _build(self, width: int) -> list[Strip]:
        lay = self._layout = self._compute_layout(width)
        style = self.get_component_rich_style
        base = self.rich_style
        label_st = style("activity-chart--label")
        scale_st = style("activity-chart--scale")
        sel_bg = style("activity-chart--selected").bgcolor
        empty_st = style("activity-chart--empty")
        shown = self.buckets[lay.first : lay.first + lay.count]
        rows = self.band_rows
        lines: list[Strip] = []
        for key, name in METRICS:
            values = [getattr(b, key) for b in shown]
            top = max(values, default=0)
            bar_st = style(f"activity-chart--{key}")
            for row in range(rows):
                segs: list[Segment] = []
                if rows == 1:  # the name and its scale side by side
                    scale = human_count(top)
                    label = name if len(name) + 1 + len(scale) <= LABEL_W - 2 else name[:4]
                    pad = " " * max(1, LABEL_W - 2 - len(label) - len(scale))
                    segs += [
                        Segment(label, label_st),
                        Segment(pad, base),
                        Segment(f"{scale}  ", scale_st),
                    ]
                elif row == 0:
                    segs.append(Segment(f"{name:>{LABEL_W - 2}}  ", label_st))
                elif row == rows - 1:
                    segs.append(Segment(f"{'max ' + human_count(top):>{LABEL_W - 2}}  ", scale_st))
                else:
                    segs.append(Segment(" " * LABEL_W, base))
                if lay.left:
                    segs.append(Segment(" " * lay.left, base))
                from_bottom = rows - 1 - row
                for i, v in enumerate(values):
                    units = max(1, round(v / top * rows * 8)) if top and v else 0
                    fill = max(0, min(8, units - from_bottom * 8))
                    selected = lay.first + i == self.selected
                    bg = sel_bg if selected else None
                    if fill == 0 and from_bottom == 0 and not v:
                        cell, st = "·".center(lay.bar)[: lay.bar], empty_st
                    elif fill == 8:
                        # a full cell as background: no seams between rows in any renderer
                        cell, st = " " * lay.bar, Style(bgcolor=bar_st.color)
                    else:
                        cell, st = BLOCKS[fill] * lay.bar, bar_st
                    if bg is not None and fill < 8:
                        st = st + Style(bgcolor=bg)
                    segs.append(Segment(cell, st))
                    gap = lay.slot - lay.bar
                    if gap:
                        segs.append(Segment(" " * gap, base))
                lines.append(Strip(segs).adjust_cell_length(width, base))
        lines.append(self._axis(width, shown, lay))
        return lines

    def _label(self, b: DayActivity) -> str:
        d = date.fromisoformat(b.day)
        if self.bucket_kind == "month":
            return d.strftime("%b %y")
        return d.strftime("%d %b")

    def _axis(self, width: int, shown: list[DayActivity], lay: _Layout) -> Strip:
        axis_st = self.get_component_rich_style("activity-chart--axis")
        sel_st = self.get_component_rich_style("activity-chart--axis-selected")
        cells = [" "] * max(0, width - LABEL_W)
        styles: list[Style | None] = [None] * len(cells)
        labels = [self._label(b) for b in shown]
        lab_w = max((len(x) for x in labels), default=6) + 1
        step = max(1, -(-lab_w // lay.slot))
        if self.bucket_kind == "day" and step < 7 and lay.slot * 7 >= lab_w:
            step = 7 if step > 1 else step
        sel_local = self.selected - lay.first
        order = list(range(len(shown)))
        if 0 <= sel_local < len(shown):  # the selected bucket's label wins its place
            order = [sel_local] + [i for i in order if i != sel_local]
        placed: list[tuple[int, int]] = []
        for i in order:
            if i != sel_local and (len(shown) - 1 - i) % step:
                continue
            x0 = lay.left + i * lay.slot
            text = labels[i]
            x1 = x0 + len(text)
            if x1 > len(cells):
                x0 = max(0, len(cells) - len(text))
                x1 = len(cells)
            if any(not (x1 + 1 <= a or x0 >= b + 1) for a, b in placed):
                continue
            placed.append((x0, x1))
            for j, ch in enumerate(text[: x1 - x0]):
                cells[x0 + j] = ch
                styles[x0 + j] = sel_st if i == sel_local else axis_st
        segs = [Segment(" " * LABEL_W, self.rich_style)]
        segs += [Segment(ch, st or self.rich_style) for ch, st in zip(cells, styles, strict=True)]
        return Strip(segs).simplify().adjust_cell_length(width, self.rich_style)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if (
            self._lines is None
            or (self._lines and self._lines[0].cell_length != width)
            or len(self._lines) != self.band_rows * len(METRICS) + 1
        ):
            self._lines = self._build(width)
        if y < len(self._lines):
            return self._lines[y]
        return Strip.blank(width, self.rich_style)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines = None
