"""Where pages show character portraits, and to whom: a portrait is shown to whoever may read its character's sheet,
and changed by its player or the GM (`check_portrait_change`). It is kept in the store beside the log, never as a
fact; `portrait_image` checks and re-encodes uploads, `portrait_routes` serves and changes them."""

from __future__ import annotations

from typing import Any

from herotable.server.portrait_image import ACCEPT, FIT, MAX_BYTES
from herotable.store.port import EventStore
from herotable.table.sheet_edits import check_portrait_change
from herotable.table.state import TableError, TableState
from herotable.table.views import may_see_sheet

FIELD = "portrait"  # the upload form's file control


def portrait_url(campaign_id: str, cid: str, digest: str) -> str:
    """Where a portrait is served; the digest in the address makes a new portrait a new address to every cache."""
    return f"/campaigns/{campaign_id}/portraits/{cid}?v={digest[:16]}"


def shown(state: TableState, uid: str, digests: dict[str, str]) -> dict[str, str]:
    """The addresses of the portraits `uid` may see, by character: those of the characters whose sheets they may
    read (a hidden character's portrait is as secret as its sheet)."""
    return {
        c.id: portrait_url(state.campaign_id, c.id, digests[c.id])
        for c in state.characters
        if c.id in digests and may_see_sheet(state, uid, c.id)
    }


def edit_context(store: EventStore, state: TableState, uid: str, cid: str) -> dict[str, Any]:
    """What the page that edits a character shows of its portrait: the image's address (or None), whether the viewer
    may change it, and what the upload takes."""
    try:
        check_portrait_change(state, uid, cid)
        may = True
    except TableError:
        may = False
    return {
        "portrait": shown(state, uid, store.portrait_digests(state.campaign_id)).get(cid),
        "portrait_may": may,
        "portrait_form": {"field": FIELD, "accept": ACCEPT, "megabytes": MAX_BYTES // (1024 * 1024), "fit": FIT},
    }
