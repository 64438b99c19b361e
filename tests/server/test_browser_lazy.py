"""A light table page in a real browser (Debian's Chromium through Playwright): a section's form loads as it opens,
what the GM was typing there survives a live redraw of the panel (the form loads again, with their words and their
place in it), and a form that cannot be loaded says so and loads when the section is opened again."""

from __future__ import annotations

from playwright.sync_api import expect

from .test_browser import Player, browser, server, squall_in_a_scene  # noqa: F401


def test_a_section_s_form_keeps_what_the_gm_typed_through_a_live_redraw(browser, server):  # noqa: F811
    gm = Player(browser, server, "Gwen")
    ana = Player(browser, server, "Ana")
    squall_in_a_scene(gm, ana)

    section = gm.page.locator("#play [data-character='squall'] details[data-action='ltl.call']").first
    assert not section.locator("form").count()  # only its title is on the page
    form = gm.forms("#play [data-character='squall']", "ltl.call").first
    form.locator("[name='label']").fill("Leap the gap")
    form.locator("[name='reason']").click()  # the GM's place: an empty field, not changed yet

    ana.act("bar", "request.ask", {"kind": "deus_ex_machina", "character": "squall", "text": "the crane falls"})
    expect(gm.page.locator("#inbox .count")).to_have_text("1")  # the live frame has redrawn the panels
    gm.page.keyboard.type("rain")
    form = gm.page.locator("#play [data-character='squall'] form[data-action='ltl.call']").first
    expect(form.locator("[name='label']")).to_have_value("Leap the gap")
    expect(form.locator("[name='reason']")).to_have_value("rain")

    # a form that cannot be loaded says why; opened again once the server answers, it loads
    other = gm.page.locator("#play [data-character='squall'] details[data-action='ltl.override']").first
    gm.page.route("**/table/form?*", lambda route: route.fulfill(status=503, body="busy"))
    other.locator("xpath=./summary").click()
    expect(other.locator(".form-slot [role=alert]")).to_contain_text("could not be loaded: the server answered 503")
    gm.page.unroute("**/table/form?*")
    other.locator("xpath=./summary").click()  # closed
    other.locator("xpath=./summary").click()  # and open again
    expect(other.locator("form[data-action='ltl.override']")).to_be_attached()
    gm.shot("60-ltl-table-gm-lazy-form")
