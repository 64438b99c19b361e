"""A third game, as small as a game can be: one command (poke the counter), one fact (it was poked), and the
presenter that puts it on the web. Nothing in `herotable.server` knows of it: it registers itself as the two real
games do, and `python -m server.toy_game` (from tests/) plays it through the API and the web table.

The commands' API schema is made when the API is first imported, so the game registers before anything imports
`herotable.server`: the test runs this module in a process of its own (`test_toy_game.py`)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Annotated, Any

from herotable.table import kinds  # noqa: F401  (the built-in games first, as the app has them)
from herotable.table.commands import Command, Ctx, Decision, Range, handles
from herotable.table.facts import Emitted, Fact, fact
from herotable.table.game import Board, Boundary, IntRange, LegalAction, PackagedGame, register
from herotable.table.state import Role, Ruleset, TableError, TableState
from herotable.table.structure import EndAdventure
from herotable.table.undo import Undo

TOY = Ruleset("toy")


@dataclass(frozen=True)
class ToyOptions:
    most: int = 3  # the most one poke may add


@dataclass(frozen=True)
class ToyTable:
    options: ToyOptions = ToyOptions()
    pokes: int = 0


@dataclass(frozen=True)
class Poke(Command):
    """Poke the counter: it goes up by `by`."""

    type = "toy.poke"
    by: Annotated[int, Range(1, 3)] = 1


@fact
@dataclass(frozen=True)
class Poked(Fact):
    type = "toy.poked"
    by: int
    now: int


@handles(Poke, TOY)
def _poke(state: TableState, cmd: Poke, ctx: Ctx) -> Decision:
    if state.role_of(ctx.user) is Role.SPECTATOR:
        raise TableError("toy/spectator", "a spectator watches the counter", fix="join as a player")
    table: ToyTable = state.game
    if cmd.by > table.options.most:
        raise TableError("toy/too_hard", f"a poke adds at most {table.options.most}", fix="poke more gently")
    after = table.pokes + cmd.by
    return Decision([Emitted(Poked(cmd.by, after))], replace(table, pokes=after))


class ToyGame(PackagedGame):
    ruleset = TOY
    title = "Poke the Counter"
    rules_version = 1
    options_type = ToyOptions
    table_type = ToyTable
    titles: Mapping[str, str] = {Poked.type: "Poke"}
    command_titles: Mapping[str, str] = {}

    @staticmethod
    def evolve(game: ToyTable, f: Fact) -> ToyTable:
        return replace(game, pokes=f.now) if isinstance(f, Poked) else game

    def on_boundary(self, state: TableState, boundary: Boundary, detail: Mapping[str, Any]) -> Decision:
        return Decision([], state.game)

    def busy(self, state: TableState) -> str | None:
        return None

    def legal_actions(self, state: TableState, user: str) -> list[LegalAction]:
        if state.role_of(user) is Role.SPECTATOR or state.archived:
            return []
        most = state.game.options.most
        return [LegalAction(Poke.type, "Poke the counter", fields={"by": IntRange(1, most)}, group="Counter")]

    def end_adventure_action(self, state: TableState) -> LegalAction:
        return LegalAction(EndAdventure.type, "End the adventure", group="Structure")

    def mask(self, state: TableState, user: str) -> dict[str, Any]:
        return {"pokes": state.game.pokes}

    def render(self, f: Fact, names: Mapping[str, str]) -> str | None:
        return f"The counter was poked by {f.by}: it stands at {f.now}." if isinstance(f, Poked) else None

    def board(self, state: TableState, user: str) -> Board:
        return Board(extras={"pokes": state.game.pokes})


def register_toy() -> None:
    """The game and its face on the web, registered as `herotable.table.kinds` and `herotable.server.games` register
    the built-in ones."""
    from herotable.server.actions import Layout, Panel
    from herotable.server.board import Board as WebBoard
    from herotable.server.presenter import Duels
    from herotable.server.presenter import register as present
    from herotable.server.sheets import SheetEditor

    class ToyPresenter:
        ruleset = TOY
        sheets: SheetEditor = None  # type: ignore[assignment]  # no characters, so no sheets
        layout = Layout()
        duels: Duels | None = None
        panels: str | None = None
        rules: str | None = None
        listed = 3
        blurb = "a test's own game"

        @staticmethod
        def read_board(state: TableState, user: str, game: Mapping[str, Any], board: WebBoard) -> None:
            board.extras["pokes"] = game["pokes"]

        @staticmethod
        def chances(state: TableState, user: str, laid: Panel) -> dict[str, str]:
            return {}

        @staticmethod
        def odds_panels(laid: Panel) -> set[str]:
            return set()

    register(ToyGame())
    present(ToyPresenter())


def play() -> None:
    """The toy game, played through the API and the web table by a GM, a player and a spectator."""
    from server.clients import anonymous, make_app
    from server.clients import register as sign_up

    app = make_app()
    games = anonymous(app).get("/api/v1/games").json()
    assert ("toy", "Poke the Counter") in [(g["ruleset"], g["title"]) for g in games], games

    gm = sign_up(app, "gwen")
    form = gm.get("/").text
    assert '<option value="toy"' in form and "Poke the Counter (a test&#39;s own game)" in form, form
    made = gm.client.post("/campaigns", data={"name": "Pokes", "ruleset": "toy", "csrf_token": gm.csrf})
    assert made.status_code == 200 and "Poke the Counter" in made.text, made.text  # the campaign page, by redirect
    cid = str(made.url).rstrip("/").rsplit("/", 1)[-1]
    members = {"gm": gm}
    for name, role in (("pat", "player"), ("sly", "spectator")):
        code = gm.post(f"/api/v1/campaigns/{cid}/invites", {"role": role}).json()["code"]
        members[name] = sign_up(app, name)
        assert members[name].post(f"/api/v1/join/{code}").status_code == 200
    pat, sly = members["pat"], members["sly"]

    # the API: the action is listed, taken, refused out of range and from a spectator, and seen in the view
    actions = pat.get(f"/api/v1/campaigns/{cid}/actions").json()["actions"]
    poke = next(a for a in actions if a["type"] == "toy.poke")
    assert poke["fields"]["by"] == {"kind": "int", "min": 1, "max": 3}, poke
    assert pat.command(cid, type="toy.poke", by=2).status_code == 200
    assert pat.command(cid, type="toy.poke", by=4).status_code == 422  # the command's own range (R-T-5)
    refused = sly.command(cid, type="toy.poke")
    assert refused.status_code == 409 and "spectator" in refused.text, refused.text
    assert pat.get(f"/api/v1/campaigns/{cid}").json()["game"] == {"pokes": 2}
    wrong = pat.command(cid, type="ltl.karma.roll", character="x")
    assert wrong.status_code == 409 and "Poke the Counter" in wrong.text, wrong.text  # another game's command

    # the web table: the form is on the page, taking it answers in words, and the log says so to everyone
    page = pat.get(f"/campaigns/{cid}/table").text
    assert 'data-action="toy.poke"' in page, page
    done = pat.client.post(
        f"/campaigns/{cid}/table/act",
        data={"type": "toy.poke", "by": "1", "csrf_token": pat.csrf},
        headers={"HX-Request": "true"},
    )
    assert done.status_code == 200 and "The counter was poked by 1: it stands at 3." in done.text, done.text
    for who in (gm, pat, sly):
        log = who.get(f"/campaigns/{cid}/table/log").text
        assert "it stands at 2." in log and "it stands at 3." in log, log
    assert 'data-action="toy.poke"' not in sly.get(f"/campaigns/{cid}/table").text  # nothing for a spectator

    # undo takes the poke back, and the export names the game
    undone = gm.command(cid, type=Undo.type)
    assert undone.status_code == 200, undone.text
    assert gm.get(f"/api/v1/campaigns/{cid}").json()["game"] == {"pokes": 2}
    assert gm.get(f"/api/v1/campaigns/{cid}/export").json()["campaign"]["ruleset"] == "toy"


if __name__ == "__main__":
    register_toy()
    play()
    sys.stdout.write("played\n")
