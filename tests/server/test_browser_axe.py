"""No serious or critical accessibility violation, as axe-core finds them, on any page a GM or a player sees, in
both games, at both widths, light and dark (issue 28). axe-core runs in the page through Playwright."""

from __future__ import annotations

from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from .test_browser import (  # noqa: F401
    DESK,
    PHONE,
    Player,
    browser,
    cv_hero,
    join,
    open_table,
    server,
    squall_in_a_scene,
    start_campaign,
)

AXE = Axe()
SERIOUS = {"serious", "critical"}


def violations(player: Player) -> list[str]:
    """The serious and critical violations on the player's page now, each with where it is."""
    found: dict[str, Any] = AXE.run(player.page).response
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found["violations"]
        if v["impact"] in SERIOUS
    ]


def sweep(player: Player, paths: list[str], where: str) -> list[str]:
    """Every page in `paths`, at both widths, light and dark: what axe-core finds, named by page and setting."""
    out = []
    own = player.page.viewport_size
    for path in paths:
        player.goto(path)
        if path.endswith("/table"):
            expect(player.page.locator("#live-status")).to_have_text("live")
            expect(player.page.locator("#log-entries")).to_be_attached()
        for size, width in ((DESK, "desk"), (PHONE, "phone")):
            player.page.set_viewport_size(size)
            for scheme in ("light", "dark"):
                player.page.emulate_media(color_scheme=scheme)
                out += [f"{where} {path} {width} {scheme}: {v}" for v in violations(player)]
                if path.endswith("/table") and scheme == "dark":  # the table as it looks at night, to look at
                    player.shot(f"70-table-dark-{where.lower().replace(' ', '-')}-{width}")
    player.page.set_viewport_size(own)
    player.page.emulate_media(color_scheme="light")
    return out


@pytest.mark.parametrize("game", ["ltl", "conviction"])
def test_no_serious_accessibility_violation_on_any_page_of_either_role(browser, server, game):  # noqa: F811
    gm = Player(browser, server, "Gwen")
    ana = Player(browser, server, "Ana")
    if game == "ltl":
        squall_in_a_scene(gm, ana)
    else:
        link = start_campaign(gm, "Ninja Island", "conviction")
        join(ana, link, "conviction", shots=False)
        cv_hero(ana, "Kestrel", "Loyal")
        campaign = gm.page.url.split("#")[0]
        for p in (gm, ana):
            open_table(p, campaign)
        for step in ("structure.start_adventure", "structure.start_session", "structure.start_scene"):
            gm.act("bar", step)
    campaign = ana.page.url.split("/table")[0].replace(server.url, "")
    found = sweep(gm, ["/", campaign, campaign + "/settings", campaign + "/table"], f"GM {game}")
    found += sweep(ana, ["/", campaign, campaign + "/table"], f"player {game}")
    assert not found, "\n".join(found)
    for p in (gm, ana):
        p.close()
