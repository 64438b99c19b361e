"""A campaign's own settings, the GM's to change: its name, its game's options, whether it is archived, and who is
its GM.

An archived campaign is kept read-only: every command is refused (`decide`) but bringing it back from the archive and
members leaving or being removed. Handing the GM role over makes the new GM's the whole log and every character the
old GM held (NPCs, hidden sheets, heroes of players who left); the old GM stays on as a player.

None of these is an action that undo reaches (R-T-4): each is a line undo does not cross.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from herotable.table.codec import evolved
from herotable.table.commands import (
    NAME_LENGTH,
    Command,
    Ctx,
    Decision,
    InvalidCommand,
    Text,
    handles,
    require_gm,
)
from herotable.table.core import evolves
from herotable.table.facts import Emitted, Fact, fact
from herotable.table.game import (
    GAMES,
    Choice,
    Flag,
    KeyedValues,
    LegalAction,
    TextDomain,
    checked_options,
    game_of,
)
from herotable.table.state import Role, TableError, TableState, unread_by

RULE = "R-T-1"
WHILE_ARCHIVED = frozenset({"campaign.archive", "member.remove"})


# --- facts ---


@fact
@dataclass(frozen=True)
class CampaignRenamed(Fact):
    type = "campaign.renamed"
    name: str


@fact
@dataclass(frozen=True)
class CampaignArchived(Fact):
    """The campaign went into the archive, read-only (`archived`), or came back from it."""

    type = "campaign.archived"
    archived: bool = True


@fact
@dataclass(frozen=True)
class GmHandedOver(Fact):
    """The GM role passed from `old` (a player from now on) to `new`, with the characters the old GM held."""

    type = "campaign.gm_handed_over"
    old: str
    new: str
    characters: tuple[str, ...] = ()


@fact
@dataclass(frozen=True)
class OptionsChanged(Fact):
    """Some of the game's campaign options changed (`options`: the new values), from the next round or scene on:
    nothing was open when they changed."""

    type = "campaign.options_changed"
    options: dict[str, Any]


@evolves(OptionsChanged)
def _options(state: TableState, f: OptionsChanged) -> TableState:
    return evolved(state, game=game_of(state).with_options(state.game, f.options), done=(), befores=())


@evolves(CampaignRenamed)
def _renamed(state: TableState, f: CampaignRenamed) -> TableState:
    return evolved(state, name=f.name, done=(), befores=())


@evolves(CampaignArchived)
def _archived(state: TableState, f: CampaignArchived) -> TableState:
    return evolved(state, archived=f.archived, done=(), befores=())


@evolves(GmHandedOver)
def _handed(state: TableState, f: GmHandedOver) -> TableState:
    roles = {f.old: Role.PLAYER, f.new: Role.GM}
    members = tuple(evolved(m, role=roles[m.user]) if m.user in roles else m for m in state.members)
    passing = set(f.characters)
    characters = tuple(evolved(c, owner=f.new) if c.id in passing else c for c in state.characters)
    retired = tuple(evolved(s, ref=evolved(s.ref, owner=f.new)) if s.ref.id in passing else s for s in state.retired)
    journal = unread_by(state.journal, f.new)
    return evolved(state, members=members, characters=characters, retired=retired, journal=journal, done=(), befores=())


# --- commands ---


@dataclass(frozen=True)
class RenameCampaign(Command):
    """The GM gives the campaign a new name; the log keeps the old one where it was said."""

    type = "campaign.rename"
    name: Annotated[str, Text(NAME_LENGTH, required=True)]


@dataclass(frozen=True)
class ChangeOptions(Command):
    """Change some of the game's campaign options (by name, as `GET /api/v1/games` lists them), between rounds and
    scenes: refused while a roll, a conflict or anything else is open."""

    type = "campaign.options"
    options: Annotated[dict[str, Any], Text(NAME_LENGTH * 20)]


@dataclass(frozen=True)
class ArchiveCampaign(Command):
    """Put the campaign in the archive, read-only (`archived`), or bring it back."""

    type = "campaign.archive"
    archived: bool = True


@dataclass(frozen=True)
class HandOver(Command):
    """The GM hands the GM role to a player, and stays on as a player."""

    type = "campaign.hand_over"
    user: Annotated[str, Text(NAME_LENGTH, required=True)]


def refuse_if_archived(state: TableState, kind: str) -> None:
    """An archived campaign is read-only: only bringing it back and members leaving. Raises TableError."""
    if state.archived and kind not in WHILE_ARCHIVED:
        raise TableError(
            "campaign/archived",
            f"{state.name} is archived: it is kept read-only",
            fix="the GM brings it back from the archive first",
            ruling=RULE,
        )


def _not_busy(state: TableState, what: str) -> None:
    why = game_of(state).busy(state)
    if why:
        raise TableError(
            "campaign/busy",
            f"the campaign cannot be {what} now: {why}",
            fix="settle, end or undo what is open on the table first",
            ruling=RULE,
        )


@handles(RenameCampaign)
def _rename(state: TableState, cmd: RenameCampaign, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    return Decision([Emitted(CampaignRenamed(cmd.name.strip()))])


@handles(ArchiveCampaign)
def _archive(state: TableState, cmd: ArchiveCampaign, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    if state.archived is cmd.archived:
        word = "archived" if cmd.archived else "not archived"
        raise TableError("campaign/same", f"{state.name} is already {word}", fix="nothing to change", ruling=RULE)
    if cmd.archived:
        _not_busy(state, "archived")
    return Decision([Emitted(CampaignArchived(cmd.archived))])


@handles(ChangeOptions)
def _change_options(state: TableState, cmd: ChangeOptions, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    game = game_of(state)
    given = checked_options(game.option_specs, cmd.options, changing=True)
    if not given:
        raise InvalidCommand("options/none", "no option was named", fix="name at least one option and its new value")
    _not_busy(state, "given other options")
    return Decision([Emitted(OptionsChanged(given))])


@handles(HandOver)
def _hand_over(state: TableState, cmd: HandOver, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    if state.role_of(cmd.user) is not Role.PLAYER:
        players = ", ".join(f"{m.name} ({m.user})" for m in state.members if m.role is Role.PLAYER) or "no players yet"
        raise TableError(
            "campaign/hand_over",
            f"{state.names().get(cmd.user, repr(cmd.user))} is not a player here: the GM role goes to a player",
            fix=f"choose one of {players} (make a spectator a player first)",
            ruling=RULE,
        )
    _not_busy(state, "handed over")
    held = tuple(c.id for c in state.characters if c.owner == ctx.user)
    held += tuple(s.ref.id for s in state.retired if s.ref.owner == ctx.user)
    return Decision([Emitted(GmHandedOver(ctx.user, cmd.user, held))])


# --- what the GM may do ---


def campaign_actions(state: TableState, user: str) -> list[LegalAction]:
    """The GM's campaign settings: rename, archive (or bring back), hand the GM role over."""
    if not state.is_gm(user):
        return []
    group = "Campaign"
    if state.archived:
        return [LegalAction(ArchiveCampaign.type, "Bring back from the archive", {"archived": False}, group=group)]
    out = [
        LegalAction(
            RenameCampaign.type,
            "Rename the campaign",
            fields={"name": TextDomain(NAME_LENGTH, required=True)},
            group=group,
        )
    ]
    if game_of(state).busy(state) is None:
        out += [  # one option at a time, from the next round or scene on
            LegalAction(
                ChangeOptions.type,
                f"Change the option: {spec.title}",
                fields={"options": KeyedValues((spec.name,), spec.domain, (spec.title,), min_keys=1)},
                group=group,
                rule=spec.rule,
            )
            for spec in game_of(state).option_specs
            if spec.changeable
        ]
        out.append(LegalAction(ArchiveCampaign.type, "Archive the campaign", {"archived": True}, group=group))
        out += [
            LegalAction(HandOver.type, f"Hand the GM role to {m.name}", {"user": m.user}, group=group)
            for m in state.members
            if m.role is Role.PLAYER
        ]
    return out


# --- the log ---


def _say_renamed(f: CampaignRenamed, n: Mapping[str, str]) -> str:
    return f"The campaign is renamed {f.name!r}"


def _say_options(f: OptionsChanged, n: Mapping[str, str]) -> str:
    said = "; ".join(option_words(name, value) for name, value in f.options.items())
    return f"The GM changes the campaign's options ({said}), from the next round or scene on"


def option_words(name: str, value: object) -> str:
    """An option and its value as the forms say them ("Initiative: Initiative rolled each round"), from the game
    that lists it; the name as it is for an option no game lists any more."""
    for game in GAMES.values():
        spec = next((s for s in game.option_specs if s.name == name), None)
        if spec is None:
            continue
        d = spec.domain
        if isinstance(d, Choice) and d.labels and value in d.choices:
            return f"{spec.title}: {d.labels[d.choices.index(value)]}"
        if isinstance(d, Flag):
            return f"{spec.title}: {'on' if value else 'off'}"
        return f"{spec.title}: {value}"
    return f"{name.replace('_', ' ')}: {value}"


def _say_archived(f: CampaignArchived, n: Mapping[str, str]) -> str:
    return "The GM archives the campaign: it is read-only" if f.archived else "The campaign is back from the archive"


def _say_handed(f: GmHandedOver, n: Mapping[str, str]) -> str:
    held = f" with {len(f.characters)} character(s)" if f.characters else ""
    return f"{n.get(f.old, f.old)} hands the GM role to {n.get(f.new, f.new)}{held}, and plays on"


SAYS: dict[str, Callable[[Any, Mapping[str, str]], str]] = {
    CampaignRenamed.type: _say_renamed,
    CampaignArchived.type: _say_archived,
    GmHandedOver.type: _say_handed,
    OptionsChanged.type: _say_options,
}
TITLES = {
    CampaignRenamed.type: "Campaign",
    CampaignArchived.type: "Campaign",
    GmHandedOver.type: "Campaign",
    OptionsChanged.type: "Campaign",
}
COMMANDS_OUTSIDE_UNDO = frozenset({RenameCampaign.type, ArchiveCampaign.type, HandOver.type, ChangeOptions.type})
LISTED_FACTS = frozenset({CampaignRenamed.type, CampaignArchived.type, GmHandedOver.type})  # for campaign listings
