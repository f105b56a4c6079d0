"""The theme is chosen once and remembered (in the data dir), and the preview follows it."""

from __future__ import annotations

import json

from ccarchive.tui.widgets.hit_preview import HitPreview
from tests.tui.support import SIZE, pasted, settle


async def test_the_theme_is_remembered_in_the_data_dir(live, tui_settings) -> None:
    from ccarchive.tui.app import make_app

    app = make_app(tui_settings, live=live, start_live=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme != "textual-light"
        app.theme = "textual-light"
        await pilot.pause()
    saved = json.loads((tui_settings.data_dir / "app.json").read_text())
    assert saved["theme"] == "textual-light"
    again = make_app(tui_settings, live=live, start_live=False)
    async with again.run_test(size=SIZE) as pilot:
        await settle(again, pilot)
        assert again.theme == "textual-light"
    # a file that is not ours, or a theme that no longer exists: the default, no error
    (tui_settings.data_dir / "app.json").write_text("{not json")
    third = make_app(tui_settings, live=live, start_live=False)
    async with third.run_test(size=SIZE) as pilot:
        await settle(third, pilot)
        assert third.theme != "textual-light"


async def test_the_preview_takes_its_colours_from_the_theme(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pasted(app, pilot, "walker")
        preview = app.screen.query_one(HitPreview)
        dark = preview.get_component_rich_style("hit-preview--tool-arg", partial=True).color
        app.theme = "ansi-light"
        await settle(app, pilot)
        light = preview.get_component_rich_style("hit-preview--tool-arg", partial=True).color
        assert dark != light
        assert light is None or light.triplet is None or sum(light.triplet) < 600
