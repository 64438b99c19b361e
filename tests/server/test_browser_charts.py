"""The charts page in real browsers: a GM, a player and a spectator of a Larger Than Life and a Conviction campaign
read every chart, at the desk's width and the phone's, in the light theme and the dark, each seeing only what they saw.
The campaigns are played through the API (what is charted, not how it is played, is under test here). Screenshots
go to test-artifacts/screenshots/."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY

from .test_browser import DESK, PHONE, Player, Server, browser, server  # noqa: F401
from .test_browser_axe import violations

CV_SHEET = {
    "level": 3,
    "roles": ["warrior"],
    "toughness": 2,
    "nature": {"virtue": "Loyal", "vice": "Reckless"},
    "combat_bonus": 2,
    "abilities": {"strength": 2, "dexterity": 1, "constitution": 1, "intelligence": 0, "wisdom": 1, "charisma": 1},
    "skills": [["Notice", 4]],
}


class Api:
    """A member's calls to the API from their own browser context, with its session cookie and CSRF token."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.request = player.context.request
        self.token = self.request.get(f"{player.server.url}/api/v1/csrf").json()["csrf_token"]

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        answer = self.request.fetch(
            f"{self.player.server.url}/api/v1{path}", method=method, data=body, headers={"X-CSRF-Token": self.token}
        )
        assert answer.ok, f"{self.player.name} {method} {path}: {answer.text()}"
        return answer.json()

    def command(self, cid: str, **body: Any) -> None:
        self.call("POST", f"/campaigns/{cid}/commands", body)


def campaign(gm: Api, others: tuple[tuple[Api, str], ...], name: str, ruleset: str) -> str:
    cid: str = gm.call("POST", "/campaigns", {"name": name, "ruleset": ruleset})["campaign_id"]
    for member, role in others:
        code = gm.call("POST", f"/campaigns/{cid}/invites", {"role": role})["code"]
        member.call("POST", f"/join/{code}", {})
    return cid


def begin(gm: Api, cid: str) -> None:
    for step in ("structure.start_adventure", "structure.start_session", "structure.start_scene"):
        gm.command(cid, type=step)


def played_ltl(gm: Api, ana: Api, sly: Api) -> str:
    """Two adventures: dice for the fairness test (and the GM's secret one), Karma and Heroism burned, levels lost and
    healed, Hero Points spent; the hidden villain's losses are the GM's."""
    cid = campaign(gm, ((ana, "player"), (sly, "spectator")), "Harbour Nights", "ltl")
    ana.command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    ana.command(cid, type="character.create_ltl", character="nova", sheet={**CAPTAIN_COMET, "name": "Nova"})
    gm.command(cid, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True, hidden=True)
    begin(gm, cid)
    ana.command(cid, type="table.roll", expression="40d6", label="a storm of dice")
    ana.command(cid, type="table.roll", expression="100d20", label="a hundred d20s")
    gm.command(cid, type="table.roll", expression="1d100", secret=True)
    ana.command(cid, type="ltl.karma.try_again", character="comet")
    ana.command(cid, type="ltl.heroism.push", character="nova", burn=True)
    gm.command(cid, type="ltl.override", character="comet", reason="the bridge falls", lose=2)
    gm.command(cid, type="ltl.override", character="entropy", reason="his own field", lose=3)
    gm.command(cid, type="ltl.time_passes", period="weeks")
    gm.command(cid, type="structure.end_adventure", awards={"comet": 12, "nova": 6})
    ana.command(cid, type="ltl.hero_points.spend", character="comet", kind="add_specialty", target="Piloting")
    ana.command(cid, type="ltl.hero_points.spend", character="nova", kind="add_specialty", target="Sailing")
    begin(gm, cid)
    gm.command(cid, type="ltl.override", character="nova", reason="ambushed", lose=1)
    ana.command(cid, type="ltl.karma.try_again", character="comet")
    return cid


def played_conviction(gm: Api, ana: Api, sly: Api) -> str:
    """Two sessions of Conviction spent, and d20s rolled."""
    cid = campaign(gm, ((ana, "player"), (sly, "spectator")), "Ninja Island", "conviction")
    ana.command(cid, type="character.create_cv", character="kes", sheet={**CV_SHEET, "name": "Kestrel"})
    ana.command(cid, type="character.create_cv", character="moss", sheet={**CV_SHEET, "name": "Moss"})
    gm.command(
        cid,
        type="character.create_cv",
        character="rex",
        sheet={**CV_SHEET, "name": "Captain Rex"},
        npc=True,
        hidden=True,
    )
    begin(gm, cid)
    ana.command(cid, type="table.roll", expression="100d20")
    ana.command(cid, type="cv.surge", character="kes")
    for step in ("structure.end_scene", "structure.end_session", "structure.start_session", "structure.start_scene"):
        gm.command(cid, type=step)
    ana.command(cid, type="cv.surge", character="moss")
    ana.command(cid, type="cv.surge", character="kes")
    return cid


def look(player: Player, path: str, name: str, *, dark: bool, axe: bool = False) -> None:
    """The page at both widths in one theme, each screenshot looked at; nothing wider than the phone, and the
    drawings' words in the theme's ink; with `axe`, no serious accessibility violation either."""
    player.page.emulate_media(color_scheme="dark" if dark else "light")
    player.goto(path)
    expect(player.page.locator("h1")).to_have_text("Charts")
    for size, tag in ((DESK, "wide"), (PHONE, "phone")):
        player.page.set_viewport_size(size)
        player.shot(f"{name}-{tag}{'-dark' if dark else ''}")
        assert player.page.evaluate("document.documentElement.scrollWidth") <= size["width"], (name, tag)
    assert not axe or violations(player) == [], name  # axe-core finds nothing serious or critical
    ink = player.page.evaluate(
        "() => [getComputedStyle(document.querySelector('svg.chart .axis')).stroke,"
        " getComputedStyle(document.body).color, getComputedStyle(document.querySelector('svg.chart text')).fill]"
    )
    assert ink[0] == ink[1], ink  # the drawings' lines take the page's own ink, light or dark
    lightness = sum(int(c) for c in ink[2][4:-1].split(",")) / 3  # and their words are light on the dark theme
    assert (lightness > 128) == dark, ink


def images(player: Player) -> list[str]:
    """The titles of the page's drawings, which name them to a screen reader."""
    return [str(i.locator("title").first.text_content()) for i in player.page.get_by_role("img").all()]


def test_every_member_reads_every_chart_at_both_widths_and_in_the_dark(browser, server: Server):  # noqa: F811
    gm = Player(browser, server, "Gwen", viewport=DESK)
    ana = Player(browser, server, "Ana", viewport=PHONE)
    sly = Player(browser, server, "Sly", viewport=DESK)
    for player in (gm, ana, sly):
        player.goto("/")
        player.register()
        expect(player.page.locator(".who")).to_contain_text(player.name)
    apis = Api(gm), Api(ana), Api(sly)

    ltl = played_ltl(*apis)
    ana.goto(f"/campaigns/{ltl}/table")
    expect(ana.page.locator("#live-status")).to_have_text("live")
    ana.shot("126-table-charts-link-phone")
    ana.page.locator("#charts-link").click()  # the table page leads there
    expect(ana.page.locator("h1")).to_have_text("Charts")
    path = f"/campaigns/{ltl}/charts"
    look(gm, path, "120-charts-ltl-gm", dark=False, axe=True)
    look(ana, path, "121-charts-ltl-player", dark=True)
    look(sly, path, "122-charts-ltl-spectator", dark=False)
    for player in (gm, ana, sly):
        said = apis[(gm, ana, sly).index(player)].call("GET", f"/campaigns/{ltl}/charts")["fairness"]["says"]
        expect(player.page.locator("#dice-verdict")).to_contain_text(said[:1].upper() + said[1:])
        assert said != "too few rolls to tell"
    # what each saw: the GM's secret d100 and hidden villain for the GM alone; every chart drawn with its numbers
    assert "d100" in " ".join(images(gm)) and "d100" not in " ".join(images(ana) + images(sly))
    for player in (gm, ana, sly):
        page = player.page
        for key in ("hero_points", "levels_lost", "levels_healed", "spent"):
            chart = page.locator(f"#chart-{key}")
            expect(chart.get_by_role("img")).to_have_count(1)
            expect(chart.locator("table.chart-numbers tbody tr").first).to_be_visible()
        expect(page.locator("#chart-spent table")).to_contain_text("Heroism")
        expect(page.get_by_role("img", name="d6: 40 rolled")).to_be_visible()
    expect(gm.page.locator("#chart-levels_lost table")).to_contain_text("Doctor Entropy")
    expect(ana.page.locator("#chart-levels_lost table")).not_to_contain_text("Doctor Entropy")
    expect(sly.page.locator("#chart-levels_lost table")).to_contain_text("Nova")

    cv = played_conviction(*apis)
    path = f"/campaigns/{cv}/charts"
    look(gm, path, "123-charts-cv-gm", dark=True, axe=True)
    look(ana, path, "124-charts-cv-player", dark=False)
    look(sly, path, "125-charts-cv-spectator", dark=True)
    for player in (gm, ana, sly):
        held = player.page.locator("#chart-conviction")
        expect(held.locator("svg polyline")).to_have_count(3 if player is gm else 2)  # Captain Rex's is the GM's
        expect(held.locator("table tbody tr").first).to_contain_text("Kestrel")
        expect(held.locator("table tbody tr").first).to_contain_text("3")
        expect(player.page.get_by_role("img", name="d20: 100 rolled")).to_be_visible()
    expect(ana.page.locator("#chart-conviction table")).not_to_contain_text("Captain Rex")
    for p in (gm, ana, sly):
        p.close()
