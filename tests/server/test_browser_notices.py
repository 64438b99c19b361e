"""Notices in real browsers (Debian's Chromium through Playwright), at 1400x900 and on a 390x844 phone: the sound is
off until its player turns it on, stays as they left it, and only then does a call for their roll sound a tone; the
toast that says so is in a polite live region either way. Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_browser import PHONE, Player, browser, server, squall_in_a_scene  # noqa: F401

WIDE = {"width": 1400, "height": 900}
# counts the tones the page starts, whatever the Web Audio API of the machine does with them
COUNT_TONES = """
window.__tones = 0;
const Real = window.AudioContext || window.webkitAudioContext;
if (Real) {
  window.AudioContext = class extends Real {
    createOscillator() {
      const osc = super.createOscillator();
      const start = osc.start.bind(osc);
      osc.start = (...args) => { window.__tones += 1; return start(...args); };
      return osc;
    }
  };
}
"""


def call_for(gm: Player, card: str, kind: str) -> None:
    """The GM calls for a roll of `kind` from the character's card."""
    form = gm.forms(f"#play [data-character='{card}']", "ltl.call").filter(
        has=gm.page.locator(f"input[type=hidden][name='kind'][value='{kind}']")
    )
    form.first.wait_for(state="attached")
    gm.open(form.first)
    gm.submit(form.first)


@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["1400", "390"])
def test_sound_is_off_until_turned_on_and_then_a_call_sounds(browser, server, size):  # noqa: F811
    gm = Player(browser, server, "Gwen", viewport=WIDE)
    ana = Player(browser, server, "Ana", viewport=size)
    ana.context.add_init_script(COUNT_TONES)
    squall_in_a_scene(gm, ana)

    toggle = ana.page.locator("#sound-toggle")
    expect(toggle).to_have_text("Sound: off")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    # the log and chat panels' own look and keys come with the page: no "Back to the newest" before older pages
    expect(ana.page.locator("#log .log-newest")).to_be_hidden()
    toasts = ana.page.locator("#toasts")
    expect(toasts).to_have_attribute("aria-live", "polite")

    call_for(gm, "squall", "challenge")
    expect(toasts.locator(".toast.alert")).to_contain_text("calls for your roll")
    assert ana.page.evaluate("window.__tones") == 0  # a toast, and no sound until it is turned on

    toggle.focus()
    ana.page.keyboard.press("Enter")  # by keyboard, like every control
    expect(toggle).to_have_text("Sound: on")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    ana.page.reload()
    expect(ana.page.locator("#live-status")).to_have_text("live")
    expect(ana.page.locator("#sound-toggle")).to_have_text("Sound: on")  # remembered in this browser
    assert ana.page.evaluate("window.__tones") == 0  # a reload toasts and sounds nothing old

    call_for(gm, "squall", "karma")
    expect(ana.page.locator("#toasts .toast.alert").last).to_contain_text("calls for your roll")
    ana.page.wait_for_function("window.__tones === 1")
    ana.shot(f"49-table-sound-on-{size['width']}")
    assert ana.page.evaluate("window.__tones") == 1
    for p in (gm, ana):
        p.close()
