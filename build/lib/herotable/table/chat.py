"""Chat beside the log: messages and free dice rolls, public or whispered, stored as facts like everything else.

Chat is not an action (R-T-4): it is never undone, it never stands in the way of undoing the last action, and a
chat roll is no commit point. A whisper is seen by its sender, its recipient and the GM (as in Roll20 and Foundry
VTT: the GM referees the table and sees every whisper). A whisper between two players is stored as two facts of
one command, one in each player's stream; the GM's stream holds both, and the log shows them once.

`parse_line` reads what a member typed in the chat box: `/r 2d6+1 to hit` rolls, `/w Name text` whispers,
`/gmroll 1d20` rolls for the GM's eyes only; anything else is a message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import d20  # type: ignore[import-untyped]

from herotable.notation import EXAMPLES, NotationError, roll_notation
from herotable.table.commands import (
    LABEL_LENGTH,
    PROSE_LENGTH,
    Command,
    Ctx,
    Decision,
    Text,
    handles,
    require_member,
    require_player,
)
from herotable.table.dice_roll import EXPRESSION_LENGTH
from herotable.table.facts import Emitted, Fact, Visibility, fact
from herotable.table.game import Choice, Domain, LegalAction, TextDomain
from herotable.table.state import Role, TableError, TableState

SAY = "chat.say"
ROLL = "chat.roll"
CHAT_COMMANDS = frozenset({SAY, ROLL})  # not actions: the fold keeps no undo entry for them (R-T-4)
GROUP = "Chat"


@fact
@dataclass(frozen=True)
class ChatSaid(Fact):
    """A chat message; `to` names the member it was whispered to (None: said to everyone)."""

    type = "chat.said"
    inert = True
    text: str
    to: str | None = None


@fact
@dataclass(frozen=True)
class ChatRolled(Fact):
    """Dice rolled in the chat with free notation, every face kept; `to` as for a message (the GM's own roll to
    the GM is a secret roll)."""

    type = "chat.rolled"
    inert = True
    rolled = True
    expression: str
    label: str
    total: int
    text: str  # the roll as dice notation with every face, as the d20 library writes it
    dice: tuple[tuple[int, int], ...]
    to: str | None = None

    @classmethod
    def headline(cls) -> bool:
        return False  # the chat shows it where the talk is: no toast as well

    def dice_faces(self) -> tuple[tuple[int, int], ...]:
        return self.dice


@dataclass(frozen=True)
class Say(Command):
    """Say something in the chat, to everyone or whispered to one member (`to`, a member's id)."""

    type = SAY
    text: Annotated[str, Text(PROSE_LENGTH, required=True)]
    to: str | None = None


@dataclass(frozen=True)
class ChatRoll(Command):
    """Roll free dice notation in the chat (`2d6+1`), for everyone or whispered to one member (`to`)."""

    type = ROLL
    expression: Annotated[str, Text(EXPRESSION_LENGTH, required=True)]
    label: Annotated[str, Text(LABEL_LENGTH)] = ""
    to: str | None = None


def _recipient(state: TableState, user: str, to: str | None, *, roll: bool) -> None:
    """`to` is another member (or, for a roll, the GM rolling in secret). Raises TableError."""
    if to is None:
        return
    found = state.member(to)
    if found is None:
        others = ", ".join(m.name for m in state.members if m.user != user) or "nobody yet"
        raise TableError(
            "chat/unknown_recipient",
            "that recipient is not a member of this campaign",
            fix=f"whisper to one of: {others}",
            ruling="R-T-4",
        )
    if to == user and not (roll and state.is_gm(user)):
        raise TableError(
            "chat/to_yourself",
            "a whisper goes to someone else",
            fix="choose another member, or send it to everyone",
            ruling="R-T-4",
        )


def audience(state: TableState, user: str, f: Fact, to: str | None) -> list[Emitted]:
    """The copies of a chat fact: one for everyone, or one per player in the whisper (the GM sees them all)."""
    if to is None:
        return [Emitted(f, Visibility.PUBLIC)]
    players = [u for u in dict.fromkeys((user, to)) if not state.is_gm(u)]
    if not players:  # the GM's secret roll
        return [Emitted(f, Visibility.GM)]
    return [Emitted(f, Visibility.OWNER, u) for u in players]


@handles(Say)
def _say(state: TableState, cmd: Say, ctx: Ctx) -> Decision:
    """Every member may talk, spectators included; chat is not an action (R-T-4)."""
    require_member(state, ctx.user)
    _recipient(state, ctx.user, cmd.to, roll=False)
    return Decision(audience(state, ctx.user, ChatSaid(cmd.text.strip(), cmd.to), cmd.to))


@handles(ChatRoll)
def _roll(state: TableState, cmd: ChatRoll, ctx: Ctx) -> Decision:
    """The GM and the players roll in the chat with the table's dice; spectators watch."""
    require_player(state, ctx.user)
    _recipient(state, ctx.user, cmd.to, roll=True)
    try:
        result = roll_notation(cmd.expression, ctx.rng)
    except NotationError as err:
        raise TableError(err.code, err.reason, fix=err.fix, ruling="R-T-4") from None
    rolled = ChatRolled(result.expression, cmd.label.strip(), result.total, result.text, result.dice, cmd.to)
    return Decision(audience(state, ctx.user, rolled, cmd.to))


# --- legal actions ---


def legal(state: TableState, user: str) -> list[LegalAction]:
    """Chatting, for every member; rolling in the chat, for the GM and the players."""
    role = state.role_of(user)
    if role is None:
        return []
    others = [m for m in state.members if m.user != user]
    to = Choice((None, *(m.user for m in others)), ("everyone", *(m.name for m in others)))
    out = [LegalAction(SAY, "Say", fields={"text": TextDomain(PROSE_LENGTH, required=True), "to": to}, group=GROUP)]
    if role is Role.SPECTATOR:
        return out
    if role is Role.GM:  # the GM's roll to the GM: a secret roll
        to = Choice((*to.choices, user), (*to.labels, "only you (secret)"))
    fields: dict[str, Domain] = {
        "expression": TextDomain(EXPRESSION_LENGTH, required=True, format="dice"),
        "label": TextDomain(LABEL_LENGTH),
        "to": to,
    }
    out.append(LegalAction(ROLL, "Roll in the chat", fields=fields, group=GROUP))
    return out


# --- what is typed in the chat box ---

HELP = "/r 2d6+1 rolls dice, /w Name text whispers, /gmroll 1d20 rolls for the GM's eyes only"


def _who(state: TableState, user: str, rest: str) -> tuple[str, str]:
    """The member a `/w` names at the start of `rest` (a name, possibly with spaces, or "gm"), and the text after
    it. Raises TableError."""
    key = rest.casefold()
    names: list[tuple[str, str]] = [("gm", state.gm)]
    names += [(m.name.casefold(), m.user) for m in state.members]
    names += [(m.user.casefold(), m.user) for m in state.members]
    for name, member in sorted(names, key=lambda n: -len(n[0])):
        if name and key.startswith(name) and (len(key) == len(name) or key[len(name)].isspace()):
            return member, rest[len(name) :].strip()
    others = ", ".join(m.name for m in state.members if m.user != user) or "nobody yet"
    raise TableError(
        "chat/unknown_recipient",
        "/w names nobody in this campaign",
        fix=f"write /w and one of these names, then the message: {others}, or GM",
        ruling="R-T-4",
    )


def split_roll(text: str) -> tuple[str, str]:
    """Dice notation and the words after it (`2d6+1 to hit` → ("2d6+1", "to hit")); the whole text when it does
    not read as dice, so rolling it says what is wrong."""
    text = text.strip()
    try:
        comment = d20.parse(text, allow_comments=True).comment
    except (d20.RollSyntaxError, d20.RollValueError, ValueError):
        return text, ""
    if not comment:
        return text, ""
    comment = str(comment).strip()
    head = text[: text.rfind(comment)] if comment in text else text
    return head.strip(), comment


def parse_line(state: TableState, user: str, line: str, to: str | None = None) -> Command:
    """The command a line typed in the chat box stands for; `to` (a member's id, from the recipient selector)
    whispers it unless the line says otherwise. Raises TableError for a line that cannot be sent."""
    text = line.strip()
    if not text.startswith("/") or text.startswith("//"):
        return Say(text[1:] if text.startswith("//") else text, to)
    word, _, rest = text.partition(" ")
    word, rest = word.casefold(), rest.strip()
    if word in ("/r", "/roll", "/gmroll", "/gr"):
        if not rest:
            raise TableError(
                "dice/empty", f"{word} needs dice to roll", fix=f"write dice after it, like {EXAMPLES}", ruling="R-T-4"
            )
        expression, label = split_roll(rest)
        return ChatRoll(expression, label, state.gm if word in ("/gmroll", "/gr") else to)
    if word in ("/w", "/whisper"):
        member, message = _who(state, user, rest)
        if not message:
            raise TableError(
                "table/blank", "the whisper is empty", fix="write the message after the name", ruling="R-T-5"
            )
        return Say(message, member)
    raise TableError(
        "chat/unknown_command",
        f"{word[:20]} is not a chat command",
        fix=f"{HELP}; start a message with // to begin it with a slash",
        ruling="R-T-4",
    )


# --- the log's words (registered in herotable.table.render) ---


def _to(to: str | None, n: Mapping[str, str]) -> str:
    return "" if to is None else f"to {n.get(to, 'a former member')}: "


def _said(f: ChatSaid, n: Mapping[str, str]) -> str:
    return _to(f.to, n) + f.text


def _rolled(f: ChatRolled, n: Mapping[str, str]) -> str:
    return _to(f.to, n) + (f"{f.label}: " if f.label else "") + f.text


RENDERERS: dict[str, Callable[[Any, Mapping[str, str]], str]] = {ChatSaid.type: _said, ChatRolled.type: _rolled}
TITLES = {ChatSaid.type: "Chat", ChatRolled.type: "Dice"}
