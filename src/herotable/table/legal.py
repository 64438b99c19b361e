"""Legal actions: every command a viewer may issue now, with each field's domain (the table's own commands here,
each game's in its package). The one source for the action panels, the API and the advisor; a property test holds
it sound and complete against decide. It never shows a viewer what they may not see."""

from __future__ import annotations

from herotable.table import campaign_settings, chat, journal, recap_notes, sheet_edits, travel
from herotable.table.commands import LABEL_LENGTH, PROSE_LENGTH
from herotable.table.dice_roll import EXPRESSION_LENGTH, FreeRoll
from herotable.table.game import Choice, Domain, Flag, LegalAction, TextDomain, game_of
from herotable.table.requests import AnswerGm, AskGm, RequestKind
from herotable.table.state import Role, TableState
from herotable.table.structure import (
    BeginPlay,
    EndScene,
    EndSession,
    MarkDramatic,
    RemoveMember,
    SetRole,
    StartAdventure,
    StartScene,
    StartSession,
)
from herotable.table.undo import Undo, undoable


def legal_actions(state: TableState, user: str) -> list[LegalAction]:
    """What `user` may do now in this campaign (nothing for a non-member)."""
    role = state.role_of(user)
    if role is None:
        return []
    if state.archived:  # read-only: the GM may bring it back, members may leave
        leaving = [a for a in _members(state, user, role) if a.type in campaign_settings.WHILE_ARCHIVED]
        return campaign_settings.campaign_actions(state, user) + leaving
    out = _structure(state) if role is Role.GM else []
    out += game_of(state).legal_actions(state, user)
    if role is not Role.SPECTATOR:
        out += _table(state, user, role)
    out += chat.legal(state, user)
    out += journal.legal(state, user)
    out += sheet_edits.sheet_actions(state, user)
    out += travel.travel_actions(state, user)
    out += campaign_settings.campaign_actions(state, user)
    out += recap_notes.legal(state, user)
    out += _members(state, user, role)
    last = undoable(state, user)
    if last is not None:
        out.append(
            LegalAction(Undo.type, "Undo the last action", {"target": last.command_id}, group="Undo", rule="R-T-4")
        )
    return out


def _structure(state: TableState) -> list[LegalAction]:
    s = state.structure
    busy = game_of(state).busy(state) is not None
    group, rule = "Structure", "R-T-1"
    out = []
    if not (s.in_adventure or s.in_session or s.in_scene):  # the first step of play, in one click
        out.append(LegalAction(BeginPlay.type, "Begin play: adventure, session and scene", group="Begin", rule=rule))
    if not s.in_adventure:
        out.append(LegalAction(StartAdventure.type, "Start an adventure", group=group, rule=rule))
    elif not busy:
        out.append(game_of(state).end_adventure_action(state))
    if s.in_session:
        out.append(LegalAction(EndSession.type, "End the game session", group=group, rule=rule))
    else:
        out.append(LegalAction(StartSession.type, "Start a game session", group=group, rule=rule))
    if s.in_scene:
        if not busy:
            out.append(LegalAction(EndScene.type, "End the scene", group=group, rule=rule))
        label = "Mark the scene as not dramatic" if s.dramatic else "Mark the scene dramatic"
        out.append(LegalAction(MarkDramatic.type, label, {"dramatic": not s.dramatic}, group=group, rule=rule))
    else:
        out.append(LegalAction(StartScene.type, "Start a scene", fields={"dramatic": Flag()}, group=group, rule=rule))
    for r in state.requests:
        out.append(
            LegalAction(
                AnswerGm.type,
                "Answer the request",
                {"request": r.id},
                {"answer": TextDomain(PROSE_LENGTH), "granted": Flag()},
                group="Requests",
                rule="R-T-2",
            )
        )
    return out


def _table(state: TableState, user: str, role: Role) -> list[LegalAction]:
    roll_fields: dict[str, Domain] = {
        "expression": TextDomain(EXPRESSION_LENGTH, required=True, format="dice"),
        "label": TextDomain(LABEL_LENGTH),
    }
    if role is Role.GM:
        roll_fields["secret"] = Flag()
    out = [LegalAction(FreeRoll.type, "Roll dice (free notation)", fields=roll_fields, group="Dice")]
    own = [c for c in state.characters if role is Role.GM or c.owner == user]
    about = Choice((None, *(c.id for c in own)), ("—", *(c.name for c in own)))
    kinds = [k for k in RequestKind if k is not RequestKind.OTHER]
    out.append(
        LegalAction(
            AskGm.type,
            "Ask the GM",
            fields={
                "kind": Choice(tuple(k.value for k in kinds), tuple(k.value.replace("_", " ") for k in kinds)),
                "text": TextDomain(PROSE_LENGTH),
                "character": about,
            },
            group="Requests",
            rule="R-T-3",
        )
    )
    out.append(
        LegalAction(
            AskGm.type,
            "Ask the GM something else",
            {"kind": RequestKind.OTHER.value},
            {"text": TextDomain(PROSE_LENGTH, required=True), "character": about},
            group="Requests",
            rule="R-T-3",
        )
    )
    return out


def _members(state: TableState, user: str, role: Role) -> list[LegalAction]:
    out = []
    if role is Role.GM:
        for m in state.members:
            if m.role is Role.GM:
                continue
            other = Role.SPECTATOR if m.role is Role.PLAYER else Role.PLAYER
            out.append(
                LegalAction(
                    SetRole.type,
                    f"Make {m.name} a {other.value}",
                    {"user": m.user, "role": other.value},
                    group="Members",
                )
            )
            out.append(LegalAction(RemoveMember.type, f"Remove {m.name}", {"user": m.user}, group="Members"))
    else:
        out.append(LegalAction(RemoveMember.type, "Leave the campaign", {"user": user}, group="Members"))
    return out
