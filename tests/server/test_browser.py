"""Three people play in real browsers (Debian's Chromium through Playwright) against a real server: a GM and two
players register, build a campaign and characters, and play a scene of each game, each seeing the others'
rolls arrive live. Screenshots of every page go to test-artifacts/screenshots/.

The server is uvicorn in a thread over SQLite with seeded dice, so a run is repeatable; where the dice could
still drag a fight on, the GM's override finishes it and the tests assert on what every page shows.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from herotable.dice import SeededRng
from herotable.server.app import create_app
from herotable.server.settings import Settings
from herotable.store.sql import open_store
from isolation import CHEAP_HASHES

from .clients import listening_socket, port_of

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PASSWORD = "browser-test-password"
PHONE = {"width": 390, "height": 844}
WAIT_MS = 60_000  # generous: a loaded machine delays live frames, never loses them; passing never waits it out
expect.set_options(timeout=WAIT_MS)


@dataclass
class Server:
    url: str


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    import uvicorn

    store = open_store(f"sqlite:///{tmp_path / 'table.sqlite'}")
    app = create_app(
        Settings(secret_key="browser-tests-secret-0123456789", **CHEAP_HASHES),
        store=store,
        rng=SeededRng(request.node.name),
    )
    listening = listening_socket()  # the browser's first request waits in its backlog until the server is up
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="auto"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    yield Server(f"http://127.0.0.1:{port_of(listening)}")
    server.should_exit = True
    thread.join(timeout=10)
    listening.close()


@pytest.fixture(scope="module")
def browser(needs: Callable[[str], None]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        needs("browser tests need Debian's Chromium at /usr/bin/chromium (apt-get install chromium; .ci/run does it)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


class Player:
    """One person in their own browser context."""

    def __init__(self, browser: Any, server: Server, name: str, viewport: dict[str, int] | None = None) -> None:
        self.context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
        self.context.set_default_timeout(WAIT_MS)
        self.page = self.context.new_page()
        self.server = server
        self.name = name
        self.errors: list[str] = []
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))
        # the Content-Security-Policy forbids inline script and style: anything it blocks is a page error too
        self.page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type == "error" and "Content Security Policy" in m.text else None,
        )

    def goto(self, path: str) -> None:
        self.page.goto(path if path.startswith("http") else self.server.url + path)

    def shot(self, name: str) -> None:
        self.page.evaluate("window.scrollTo(0, 0)")  # the bar sticks to the top of the screen: shoot from the top
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)

    def register(self) -> None:
        p = self.page
        p.fill("#reg-username", self.name.lower())
        p.fill("#reg-name", self.name)
        p.fill("#reg-password", PASSWORD)
        p.click("form[action='/register'] button[type=submit]")

    def act(
        self,
        where: str,
        action: str,
        fields: dict[str, str] | None = None,
        checks: tuple[str, ...] = (),
        card: str | None = None,
    ) -> None:
        """Open an action in a part of the page ("bar", or "play" with the `card` of a character), fill it, submit it,
        and wait for its answer; fail on a refusal."""
        scope = f"#{where}" + (f" [data-character='{card}']" if card else "")
        form = self.forms(scope, action).first
        form.wait_for(state="attached")
        self.open(form)
        expect(form.locator("button[type=submit]")).to_be_visible()
        for name, value in (fields or {}).items():
            control = form.locator(f"[name='{name}']").last
            if control.evaluate("e => e.tagName") == "SELECT":
                control.select_option(value)
            else:
                control.fill(value)
        for name in checks:  # "name" ticks a box; "name=value" one box of a group
            key, _, value = name.partition("=")
            form.locator(f"input[type=checkbox][name='{key}']" + (f"[value='{value}']" if value else "")).check()
        self.submit(form)

    def forms(self, scope: str, action: str) -> Any:
        """The forms of `action` within `scope`, every section holding one opened first: a section in a drop-down, on
        a card or among the GM's rulings loads its form as it opens. The action may arrive with the next live frame."""
        p = self.page
        sections = p.locator(f"{scope} details[data-action='{action}']")
        forms = p.locator(f"{scope} form[data-action='{action}']")
        sections.or_(forms).first.wait_for(state="attached")
        for i in range(sections.count()):
            section = sections.nth(i)
            self.open(section)
            if not section.evaluate("d => d.open"):
                section.locator("xpath=./summary").click()
        return forms

    def open(self, form: Any) -> None:
        """Open every section and drop-down the form sits in, from the outside in, by clicking their summaries."""
        for _ in range(3):
            closed = form.locator("xpath=ancestor::details[not(@open)]")
            if not closed.count():
                return
            closed.first.locator("xpath=./summary").click()

    def roll_action(
        self, action: str, fields: dict[str, str] | None = None, fixed: dict[str, str] | None = None
    ) -> None:
        """Act on the open roll shown on the table (re-roll, settle, announce…): the form for `action` whose hidden
        fields hold `fixed`, with its choices set to `fields`."""
        forms = self.forms("#play article.roll", action)
        for name, value in (fixed or {}).items():
            forms = forms.filter(has=self.page.locator(f"input[type=hidden][name='{name}'][value='{value}']"))
        form = forms.first
        form.wait_for(state="attached")
        self.open(form)
        for name, value in (fields or {}).items():
            form.locator(f"[name='{name}']").select_option(value)
        self.submit(form)

    def submit(self, form: Any) -> None:
        button = form.locator("button[type=submit]")
        # a live frame may land between opening a section and pressing its button: keep its sections open
        form.evaluate(
            "f => { for (let d = f.closest('details'); d; d = d.parentElement.closest('details')) d.open = true; }"
        )
        with self.page.expect_response(lambda r: r.url.endswith("/table/act")) as answer:
            button.click()
        body = answer.value.text()
        assert 'role="alert"' not in body, f"{self.name}: {re.sub(r'<[^>]+>', ' ', body)}"

    def log_has(self, text: str) -> None:
        expect(self.page.locator("#log")).to_contain_text(text)

    def close(self) -> None:
        assert not self.errors, f"{self.name}'s page raised: {self.errors}"
        self.context.close()


def start_campaign(gm: Player, name: str, ruleset: str) -> str:
    """The GM registers, creates a campaign and an invitation link; returns the link."""
    gm.goto("/")
    gm.shot("01-login")
    gm.register()
    gm.page.fill("#new-name", name)
    gm.page.select_option("#new-ruleset", ruleset)
    gm.shot(f"02-campaigns-{ruleset}")
    gm.page.click("text=Create the campaign")
    gm.page.click("text=Create an invitation link")
    link: str = gm.page.locator("input.invite-link").first.input_value()
    assert "/join/" in link
    return link


def join(player: Player, link: str, ruleset: str, shots: bool) -> None:
    player.goto(link)
    if shots:
        player.shot("03-join-login")
    player.register()
    player.page.wait_for_url(re.compile(r"/join/"))
    if shots:
        player.shot("04-join")
    player.page.click("form button[type=submit]:has-text('Join')")
    player.page.wait_for_url(re.compile(r"/campaigns/[0-9a-f]+$"))
    player.page.click("text=Build your hero")


def fill(page: Any, fields: dict[str, str]) -> None:
    for name, value in fields.items():
        control = page.locator(f"[name='{name}']")
        if control.evaluate("e => e.tagName") == "SELECT":
            control.select_option(value)
        else:
            control.fill(value)


def open_table(player: Player, campaign_url: str) -> None:
    player.goto(campaign_url + "/table")
    expect(player.page.locator("#live-status")).to_have_text("live")


# --- Larger Than Life ---


def ltl_hero(player: Player, name: str, style: str) -> None:
    page = player.page
    fill(page, {"writer": "Dee", "artist": "Max", "origin": "A storm at sea", "power_name_0": "Thunder"})
    fill(page, {"power_stunts_0": "Clap", "motivation": "Protect the harbour", "costume": "Storm grey"})
    fill(page, {"name": name, "base": "d12", "style_name_0": style, "style_die_0": "d20"})
    fill(page, {"karma": "d10", "heroism": "d10", "specialties": "Sailing"})
    page.click("text=Save the character")
    page.wait_for_url(re.compile(r"/characters/[a-z0-9-]+$"))


def squall_in_a_scene(gm: Player, ana: Player) -> None:
    """Gwen's Larger Than Life campaign with Ana's Squall, both at the table, and the first scene begun."""
    link = start_campaign(gm, "Harbour Nights", "ltl")
    campaign_url = gm.page.url.split("#")[0]
    join(ana, link, "ltl", shots=False)
    ltl_hero(ana, "Squall", "Lightning")
    for p in (gm, ana):
        open_table(p, campaign_url)
    for step in ("structure.start_adventure", "structure.start_session", "structure.start_scene"):
        gm.act("bar", step)


def ltl_villain(gm: Player, campaign_url: str) -> None:
    """The GM makes Captain Krake, a d6 NPC the players see."""
    gm.goto(campaign_url)
    gm.page.click("text=New character or NPC")
    fill(gm.page, {"name": "Captain Krake", "base": "d6", "karma": "d4", "heroism": "d4", "writer": "Dee"})
    gm.page.check("#f-npc")
    gm.page.click("text=Save the character")
    gm.page.wait_for_url(re.compile(r"/characters/captain-krake$"))


def initiative(gm: Player) -> list[list[str]]:
    """The fighters' ids by initiative group, first to act first; none when everyone acts at once."""
    turns = gm.page.locator("#play ol.turns")
    if turns.get_attribute("aria-label") != "Initiative order":
        return []
    return [
        g.locator("[data-fighter]").evaluate_all("es => es.map(e => e.dataset.fighter)")
        for g in turns.locator("li.group").all()
    ]


def test_a_larger_than_life_conflict_to_defeat_in_three_browsers(browser, server):
    gm = Player(browser, server, "Gwen")
    ana = Player(browser, server, "Ana")
    ben = Player(browser, server, "Ben", viewport=PHONE)
    link = start_campaign(gm, "Harbour Nights", "ltl")
    campaign_url = gm.page.url.split("#")[0]
    gm.shot("05-campaign-gm")

    join(ana, link, "ltl", shots=True)
    ana.shot("06-ltl-sheet-editor")
    ana.page.click("text=Save the character")  # an empty sheet: every problem beside its field
    assert "a hero needs a name" in ana.page.locator("#e-name").inner_text()
    ana.shot("07-ltl-sheet-problems")
    ltl_hero(ana, "Squall", "Lightning")
    ana.shot("08-ltl-sheet-view")
    join(ben, link, "ltl", shots=False)
    ben.shot("09-ltl-sheet-editor-phone")
    ltl_hero(ben, "Breaker", "Waves")

    ltl_villain(gm, campaign_url)
    gm.goto(campaign_url)
    gm.shot("10-campaign-with-characters")

    for p in (gm, ana, ben):
        open_table(p, campaign_url)
    for step in ("structure.start_adventure", "structure.start_session"):
        gm.act("bar", step)
    gm.act("bar", "structure.start_scene", checks=("dramatic",))
    # what needs the GM's judgement is a request the GM answers from the inbox in the bar, which counts them
    ana.act("bar", "request.ask", {"kind": "deus_ex_machina", "character": "squall", "text": "the crane falls"})
    expect(gm.page.locator("#bar .requests")).to_contain_text("the crane falls")
    expect(gm.page.locator("#inbox .count")).to_have_text("1")
    expect(gm.page.locator("#toasts .toast.alert")).to_contain_text("request")  # the GM hears of it (R-T-3)
    gm.page.locator("#inbox > summary").click()
    gm.shot("11a-ltl-table-gm-request")
    gm.page.locator("#bar .requests form[data-action='request.answer'] [name='answer']").fill("1 level of Karma")
    gm.submit(gm.page.locator("#bar .requests form[data-action='request.answer']"))
    ana.log_has("1 level of Karma")
    expect(gm.page.locator("#inbox .count")).to_have_text("0")
    # the GM's own answer is told in a toast, in words: "Ana's request", not the page's "Ana&#39;s request"
    expect(gm.page.locator("#toasts .toast.note").last).to_contain_text("Ana's request")
    # a refused action explains itself inline, and nothing is written
    ben.page.locator("#menu-tools > summary").click()
    ben.page.locator("#bar details[data-action='table.roll'] > summary").click()
    ben.page.locator("#bar form[data-action='table.roll'] [name='expression']").fill("2d")
    ben.page.locator("#bar form[data-action='table.roll'] button[type=submit]").click()
    expect(ben.page.locator("#bar form[data-action='table.roll'] [role=alert]")).to_contain_text("Tip:")
    ben.shot("11b-ltl-table-phone-refused")
    ben.page.keyboard.press("Escape")
    gm.act("bar", "ltl.conflict.start")
    for p in (ana, ben):
        expect(p.page.locator("#play")).to_contain_text("Conflict, round 1")
    gm.shot("11-ltl-table-gm")

    settled = 0
    burned = pushed = False
    heroes = {"squall": (ana, "Squall"), "breaker": (ben, "Breaker")}
    for _round in range(4):
        for group in initiative(gm) or [["squall", "breaker"]]:  # no initiative: everyone at once
            for cid in group:
                if cid == "captain-krake":
                    if "acted this round" not in gm.page.locator("#play [data-character='captain-krake']").inner_text():
                        gm.act("play", "ltl.conflict.pass", card="captain-krake")
                    continue
                player, fighter = heroes[cid]
                if player is ben and not pushed:
                    ben.act("play", "ltl.heroism.push", card=cid, checks=("burn",))
                    pushed = True
                    for other in (gm, ana):
                        other.log_has("Breaker is pushing")
                player.act("play", "ltl.attack", {"target": "captain-krake"}, card=cid)
                if player is ana and not burned:
                    ana.act("play", "ltl.karma.try_again", card=cid)
                    ana.roll_action("ltl.reroll", fixed={"source": "try_again"})
                    burned = True
                    ana.shot("12-ltl-table-open-roll")
                    for other in (gm, ben):
                        other.log_has("holds 2 Try Again token(s)")
                player.roll_action("ltl.settle")
                # the exchange waits for the GM's Accept for the villain (R-LTL-3); everyone reads so on its card
                for other in (gm, ana, ben):
                    expect(other.page.locator("#play article.roll .roll-status")).to_contain_text("waiting for")
                gm.roll_action("ltl.settle")
                settled += 1
                for other in (gm, ana, ben):
                    expect(other.page.locator("#log li.entry:has-text('Settled')")).to_have_count(settled)
                    expect(other.page.locator("#log")).to_contain_text(re.compile(rf"{fighter}( \([^)]*\))?: d\d+ "))
        gm.act("bar", "ltl.conflict.end_round")
        expect(gm.page.locator("#play .tracker")).to_contain_text(re.compile(f"round {_round + 2}|over"))
        if "defeated" in gm.page.locator("#play [data-character='captain-krake']").inner_text():
            break
    else:  # the GM rules from the villain's card
        gm.act("play", "ltl.override", {"reason": "the harbour wins", "lose": "5"}, card="captain-krake")
    assert burned and pushed
    for p in (gm, ana, ben):
        expect(p.page.locator("#play [data-character='captain-krake']")).to_contain_text("defeated")
    ben.shot("13-ltl-table-phone")
    gm.act("bar", "ltl.conflict.end")
    for p in (ana, ben):
        p.log_has("The conflict ends")
    gm.shot("14-ltl-table-gm-after")
    ana.shot("15-ltl-table-player")
    for p in (gm, ana, ben):
        p.close()


# --- Conviction ---


def cv_hero(player: Player, name: str, virtue: str) -> None:
    page = player.page
    fill(page, {"name": name, "level": "3", "first_role": "warrior", "abilities.strength": "2"})
    fill(page, {"abilities.charisma": "1", "toughness": "2", "combat_bonus": "1"})
    fill(page, {"nature.virtue": virtue, "nature.vice": "Reckless", "skill_name_0": "Notice", "skill_ranks_0": "4"})
    page.check("#f-role-warrior")
    page.click("text=Save the character")
    page.wait_for_url(re.compile(r"/characters/[a-z0-9-]+$"))


def cv_villain(gm: Player, campaign_url: str, *, hidden: bool) -> None:
    """The GM makes Captain Rex, a level 2 Warrior NPC, its sheet hidden or not."""
    gm.goto(campaign_url)
    gm.page.click("text=New character or NPC")
    fill(gm.page, {"name": "Captain Rex", "level": "2", "nature.virtue": "Proud", "nature.vice": "Cruel"})
    gm.page.check("#f-role-warrior")
    gm.page.check("#f-npc")
    if hidden:
        gm.page.check("#f-hidden")
    gm.page.click("text=Save the character")
    gm.page.wait_for_url(re.compile(r"/characters/captain-rex$"))


def test_a_conviction_scene_with_a_reroll_a_surge_and_a_quotable_wit(browser, server):
    gm = Player(browser, server, "Gwen")
    kes = Player(browser, server, "Kes")
    moss = Player(browser, server, "Moss", viewport=PHONE)
    link = start_campaign(gm, "Ninja Island", "conviction")
    campaign_url = gm.page.url.split("#")[0]
    join(kes, link, "conviction", shots=False)
    kes.shot("20-cv-sheet-editor")
    cv_hero(kes, "Kestrel", "Loyal")
    kes.shot("21-cv-sheet-view")
    join(moss, link, "conviction", shots=False)
    cv_hero(moss, "Moss", "Curious")
    cv_villain(gm, campaign_url, hidden=True)

    for p in (gm, kes, moss):
        open_table(p, campaign_url)
    for step in ("structure.start_adventure", "structure.start_session", "structure.start_scene"):
        gm.act("bar", step)
    gm.act("bar", "cv.round.start")
    expect(moss.page.locator("#play")).to_contain_text("Sheet hidden by the GM")
    # R-CV-4 (amended): initiative stays pending until the GM begins the first turn; the GM re-rolls Rex's with
    # Conviction, then begins it, and the order reaches everyone
    gm.act("play", "cv.initiative.reroll", card="captain-rex")
    gm.log_has("re-rolls initiative with Conviction")
    gm.act("bar", "cv.round.begin")
    for p in (kes, moss):
        p.log_has("Initiative order")

    # a check, a Conviction re-roll, then the announcement everyone sees
    # R-T-3: the GM calls for the check and sets its Difficulty; Kes rolls it
    gm.act("play", "cv.check.call", {"difficulty": "15", "label": "Climb the mast"}, card="kestrel")
    # the call raises a toast on Kes's page only; a public fact after it shows the others' pages were told of
    # everything they may see
    expect(kes.page.locator("#toasts .toast.alert").filter(has_text="calls for your roll")).to_have_count(1)
    kes.act("play", "cv.check", card="kestrel")
    expect(gm.page.locator("#play")).to_contain_text("Climb the mast")
    expect(moss.page.locator("#play")).not_to_contain_text("Climb the mast")  # pending: Kes and the GM only
    kes.roll_action("cv.reroll")
    kes.shot("22-cv-table-pending-check")
    kes.roll_action("cv.announce")
    for p in (gm, moss):
        p.log_has("Climb the mast")
        p.log_has("re-rolled")

    # a surge, seen by everyone
    moss.act("play", "cv.surge", card="moss")
    for p in (gm, kes):
        p.log_has("Moss surges for an extra standard action")
    for p in (gm, moss):
        expect(p.page.locator("#toasts .toast.alert")).to_have_count(0)

    # a Quotable Wit in the next round (one point a round): Moss marks a line Kestrel heard; Kestrel uses it
    gm.act("bar", "cv.round.start")
    wit = {"text": "Not today, Rex!", "speaker": "moss"}
    moss.act("play", "cv.wit.designate", wit, checks=("heard_by=kestrel",), card="moss")
    for p in (gm, kes):
        expect(p.page.locator("#play .wits")).to_contain_text("Not today, Rex!")
    gm.act("play", "cv.check.call", {"difficulty": "12", "label": "Swing across"}, card="kestrel")
    kes.act("play", "cv.check", card="kestrel")
    expect(kes.page.locator("#play article.roll form[data-action='cv.wit.use']")).to_have_count(1)
    kes.roll_action("cv.wit.use", {"wit": "1"})
    kes.roll_action("cv.announce")
    for p in (gm, moss):
        p.log_has("Swing across")
        p.log_has("+2 from Quotable Wit #1")
    moss.shot("23-cv-table-phone")
    gm.shot("24-cv-table-gm")
    for p in (gm, kes, moss):
        p.close()


# --- one screen: a three-fighter conflict at both widths ---

DESK = {"width": 1400, "height": 900}


def in_view(player: Player, selector: str) -> None:
    """The element is on screen without scrolling: the page is at its top and the element lies within the viewport."""
    page = player.page
    element = page.locator(selector).first
    expect(element).to_be_visible()
    assert page.evaluate("window.scrollY") == 0
    box = element.bounding_box()
    height = page.viewport_size["height"]
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, (player.name, selector, box)


def both_widths(player: Player, name: str) -> None:
    """A screenshot of the page at the desk's width and the phone's (then back to the player's own)."""
    own = player.page.viewport_size
    for size, tag in ((DESK, "desk"), (PHONE, "phone")):
        player.page.set_viewport_size(size)
        player.page.evaluate("window.scrollTo(0, 0)")
        player.shot(f"{name}-{tag}")
    player.page.set_viewport_size(own)


def test_a_three_fighter_conflict_fits_one_screen_with_only_legal_actions_at_both_widths(browser, server):
    gm = Player(browser, server, "Gwen", viewport=DESK)
    ana = Player(browser, server, "Ana", viewport=DESK)
    ben = Player(browser, server, "Ben", viewport=PHONE)
    link = start_campaign(gm, "Harbour Nights", "ltl")
    campaign_url = gm.page.url.split("#")[0]
    join(ana, link, "ltl", shots=False)
    ltl_hero(ana, "Squall", "Lightning")
    both_widths(ana, "30-sheet-view")
    join(ben, link, "ltl", shots=False)
    both_widths(ben, "31-sheet-editor")
    ltl_hero(ben, "Breaker", "Waves")
    ltl_villain(gm, campaign_url)
    gm.goto("/")
    both_widths(gm, "32-campaigns")
    gm.goto(campaign_url)
    both_widths(gm, "33-campaign")
    gm.goto("/rules#R-LTL-9")
    expect(gm.page.locator("#R-LTL-9")).to_be_attached()
    both_widths(gm, "34-rules")

    for p in (gm, ana, ben):
        open_table(p, campaign_url)
    for step in ("structure.start_adventure", "structure.start_session", "structure.start_scene"):
        gm.act("bar", step)
    gm.act("bar", "ltl.conflict.start")
    for p in (ana, ben):
        expect(p.page.locator("#play .tracker")).to_contain_text("Conflict, round 1")

    # a player's card offers what the API lists for that character now, and nothing else
    api = ana.page.request.get(f"{campaign_url.replace('/campaigns/', '/api/v1/campaigns/')}/actions").json()
    listed = api if isinstance(api, list) else api["actions"]
    for_squall = {
        a["type"]
        for a in listed
        if "squall" in (a["fixed"].get("character"), a["fixed"].get("actor"), a["fixed"].get("healer"))
        and not ({"task", "check"} & set(a["fixed"]))
        and not a["type"].startswith(("character.", "campaign.", "chat."))  # the sheet's page, the chat box
    }
    card = ana.page.locator("#play [data-character='squall'] .card-acts [data-action]")  # a section, or a button
    shown = set(card.evaluate_all("fs => fs.map(f => f.dataset.action)"))
    assert shown == for_squall, (shown, for_squall)
    assert "ltl.attack" in shown and "ltl.override" not in shown
    assert not ana.page.locator("#play [data-character='breaker'] [data-action]").count()  # Ben's, not hers
    expect(ana.page.locator("#play [data-character='squall'] .odds-inline")).to_contain_text("to win the conflict")

    # Squall attacks; her pending roll and the GM's end-the-round control are on screen without scrolling
    ana.act("play", "ltl.attack", {"target": "captain-krake"}, card="squall")
    for p in (ana, gm):
        expect(p.page.locator("#play article.roll svg.die").first).to_be_visible()
    for p in (gm, ana):
        p.page.evaluate("window.scrollTo(0, 0)")
    in_view(ana, "#play article.roll [data-action='ltl.settle']")
    in_view(gm, "#play article.roll")
    expect(ana.page.locator("#play article.roll svg.die title").first).to_contain_text(re.compile(r"d\d+ showing \d+"))
    both_widths(ana, "35-table-player-pending-roll")
    gm.roll_action("ltl.settle")  # the GM accepts for the villain first; Ana's Accept settles (R-LTL-3)
    ana.roll_action("ltl.settle")
    expect(gm.page.locator("#play [data-fighter='squall']")).to_contain_text("acted")
    in_view(gm, "#bar .rounds [data-action='ltl.conflict.end_round']")
    both_widths(gm, "36-table-gm-conflict")

    # Ben on his phone: his roll is on screen without scrolling too, and so is the GM's control on a phone
    ben.act("play", "ltl.attack", {"target": "captain-krake"}, card="breaker")
    ben.page.evaluate("window.scrollTo(0, 0)")
    in_view(ben, "#play article.roll [data-action='ltl.settle']")
    ben.shot("37-table-phone-pending-roll")
    ben.roll_action("ltl.settle")
    gm.roll_action("ltl.settle")  # the round ends only with no exchange open (R-LTL-12)
    gm.page.set_viewport_size(PHONE)
    gm.page.evaluate("window.scrollTo(0, 0)")
    in_view(gm, "#bar .rounds [data-action='ltl.conflict.end_round']")
    gm.page.set_viewport_size(DESK)
    both_widths(ben, "38-table-player")

    # keyboard only: the GM opens the Structure menu and Escape closes it again
    gm.page.locator("#menu-structure > summary").focus()
    gm.page.keyboard.press("Enter")
    expect(gm.page.locator("#menu-structure")).to_have_attribute("open", "")
    gm.page.keyboard.press("Escape")
    expect(gm.page.locator("#menu-structure")).not_to_have_attribute("open", "")
    for p in (gm, ana, ben):
        p.close()
