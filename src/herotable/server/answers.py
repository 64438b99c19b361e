"""The API's answers as types that several modules build: a campaign as its member sees it, a fact of the log,
odds, a field's domain. Each is a TypedDict: mypy checks the code that builds it, and pydantic validates every answer
against it and describes it in the OpenAPI schema. A key an answer leaves out stays out (`NotRequired`), and a key
the type does not name is refused (`answer`), so the schema is exactly what is sent.

Each router's own answers live beside it (`api/accounts.py`, `api/tokens.py`…).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from herotable.odds.melee_model import Method
from herotable.table.state import Role

answer = with_config(ConfigDict(extra="forbid"))  # an answer holds the keys its type names, and no other


# --- odds ---


@answer
class Probability(TypedDict):
    """A probability, exact and as a float."""

    exact: Annotated[str, Field(description='an exact fraction, e.g. "7/20"')]
    float: float


@answer
class MonteCarlo(TypedDict):
    """A probability estimated from simulated fights, with its 95% interval."""

    estimate: float
    low: float
    high: float


Estimate = Probability | MonteCarlo


@answer
class ExchangeOption(TypedDict):
    """One choice open to the actor this round: its exchange's odds and its chance to win the whole duel."""

    key: str
    label: str
    win: Probability
    tie: Probability
    lose: Probability
    duel_win: Probability
    change: Annotated[Probability, Field(description="how much it changes the chance to win the duel")]
    resource: Annotated[str, Field(description="what it spends, in words; empty when it spends nothing")]


@answer
class FightRefused(TypedDict):
    """The whole fight, without odds: one of its fighters' sheets is hidden from the asker."""

    sides: list[str]
    fighters: Annotated[list[list[str]], Field(description="each side's standing fighters, by name")]
    refused: str


@answer
class FightChances(TypedDict):
    """How the whole fight may end, side against side: exact, or a Monte Carlo estimate when too large to solve."""

    sides: list[str]
    fighters: Annotated[list[list[str]], Field(description="each side's standing fighters, by name")]
    method: Method
    says: Annotated[str, Field(description="what the figures are, in words")]
    trials: Annotated[int, Field(description="simulated fights behind an estimate; 0 when exact")]
    a_wins: Estimate
    b_wins: Estimate
    draw: Estimate


@answer
class ExchangeOdds(TypedDict):
    """The actor's options this round against the target, each with its exchange's and the whole duel's odds."""

    actor: str
    target: str
    method: Annotated[Method, Field(description="always exact: a duel's odds are solved exactly")]
    fight: Annotated[
        FightChances | FightRefused | None,
        Field(description="how the whole fight may end; null outside a conflict of two sides standing"),
    ]
    options: list[ExchangeOption]


@answer
class DiceOdds(TypedDict):
    """One exchange between two dice under the campaign's options."""

    you: str
    opp: str
    win: Probability
    tie: Probability
    lose: Probability
    crit_success: Probability
    crit_failure: Probability


@answer
class CheckOption(TypedDict):
    """A Conviction check made one way: plain, with a Quotable Wit, a Conviction re-roll, or both."""

    key: str
    label: str
    success: Probability
    change: Annotated[Probability, Field(description="how much it adds to the plain roll's chance")]


@answer
class CheckOdds(TypedDict):
    """A check's chance of success with and without each spend."""

    bonus: int
    difficulty: int
    options: list[CheckOption]


# --- the log ---


@answer
class Event(TypedDict):
    """A fact of the log as its reader sees it, at its place in the reader's own stream (the live socket's frames
    carry the same)."""

    position: Annotated[int, Field(ge=1, description="its place in your own stream, never the campaign's sequence")]
    type: Annotated[str, Field(description="the fact's type, e.g. table.dice_rolled, chat.said, ltl.settled")]
    command_id: Annotated[str | None, Field(description="the command that recorded it: its facts share it")]
    actor: Annotated[str | None, Field(description="the user whose command it was")]
    at: Annotated[str, Field(description="when it was recorded (ISO 8601, UTC)")]
    visibility: Annotated[str, Field(description="who may see it: public, owner or gm")]
    text: Annotated[
        str | None, Field(description="the fact as one line of the log; null when it says nothing worth one")
    ]
    fact: Annotated[dict[str, Any], Field(description="the fact's own fields (its type's payload)")]
    undone: Annotated[bool, Field(description="whether its command was undone since")]
    headline: Annotated[bool, Field(description="whether the table tells it as it happens: a roll or an outcome")]


# --- a campaign ---


@answer
class Member(TypedDict):
    user: str
    name: str
    role: Role


@answer
class Character(TypedDict):
    """A character at the table, whatever the game. Its name is public even when its sheet is hidden."""

    id: str
    owner: Annotated[str, Field(description="the user who plays it (the GM for an NPC)")]
    name: str
    npc: bool
    hidden: Annotated[bool, Field(description="its sheet is the GM's secret")]


@answer
class Structure(TypedDict):
    """Where the campaign is: adventure, game session and scene counters, and what is open (R-T-1)."""

    adventure: int
    session: int
    scene: int
    in_adventure: bool
    in_session: bool
    in_scene: bool
    dramatic: bool


@answer
class OpenRequest(TypedDict):
    """A question for the GM's judgement, until answered: its asker and the GM see it."""

    id: Annotated[str, Field(description="the command that asked it")]
    user: str
    kind: str
    text: str
    character: str | None


@answer
class LastAction(TypedDict):
    """The newest action still in effect, shown to the GM and to whoever took it."""

    command_id: str
    type: str
    user: str
    commit: Annotated[bool, Field(description="it rolled dice or acted on a roll: undo stops here (R-T-4)")]


@answer
class JournalHeading(TypedDict):
    """A journal entry you may read, without its text (GET /api/v1/campaigns/{id}/journal gives it). Who else reads
    it is the GM's to know: `everyone` and `readers` come to the GM alone."""

    id: str
    title: str
    image: Annotated[str | None, Field(description="the digest of its image: GET /campaigns/{id}/images/{digest}")]
    everyone: NotRequired[bool]
    readers: NotRequired[list[str]]


@answer
class JournalEntry(JournalHeading):
    """A journal entry you may read, with its text."""

    body: Annotated[str, Field(description="Markdown")]


@answer
class Journal(TypedDict):
    """The journal as you may read it: entries shown to you (the GM: all), and the private notes on your characters
    (the GM: on all)."""

    entries: list[JournalHeading]
    private_notes: Annotated[dict[str, str], Field(description="by character id")]


@answer
class Arrival(TypedDict):
    """A character brought from a file, waiting for the GM's approval: it is not at the table and cannot act."""

    ref: Annotated[Character, Field(description="who it is and whose; it joins play as a hero of its player")]
    sheet: Annotated[dict[str, Any], Field(description="its sheet, in its game's format")]
    advancement: Annotated[dict[str, Any], Field(description="what play added to it before, in its game's terms")]
    notes: str


@answer
class CampaignView(TypedDict):
    """The campaign as you see it: what you may not see is left out before it leaves the server."""

    campaign_id: str
    name: str
    ruleset: Annotated[str, Field(description="the game it plays, as GET /api/v1/games lists them")]
    role: Annotated[Role, Field(description="your role in it")]
    members: list[Member]
    characters: list[Character]
    retired: Annotated[list[Character], Field(description="characters out of play, their sheets kept")]
    arrivals: Annotated[
        list[Arrival],
        Field(description="characters from files waiting for the GM's approval: yours, or all for the GM"),
    ]
    archived: bool
    structure: Structure
    requests: Annotated[list[OpenRequest], Field(description="open questions for the GM: yours, or all for the GM")]
    last_action: LastAction | None
    game: Annotated[
        dict[str, Any],
        Field(
            description="The game's own state as you may see it, its shape set by `ruleset`: `options` (the "
            "campaign's options) and `heroes` (each character's sheet and state) in every game, then what the game "
            "tracks: for ltl `tasks`, `conflict`, `contest`, `team`, `calls`, `recovery`…; for conviction `checks`, "
            "`wits`, `sides`, `order`…. A hidden sheet you may not read is not there."
        ),
    ]
    journal: Journal


# --- what a field may hold (a legal action's fields, a game's options) ---


@answer
class ChoiceDomain(TypedDict):
    """One of the listed values."""

    kind: Literal["choice"]
    choices: list[Any]
    labels: NotRequired[Annotated[list[str], Field(description="the choices in words, in the same order")]]


@answer
class IntDomain(TypedDict):
    """A whole number from `min` to `max`."""

    kind: Literal["int"]
    min: int
    max: int
    optional: NotRequired[Annotated[bool, Field(description="it may be left out")]]


@answer
class TextDomain(TypedDict):
    """Any text of at most `max_length` characters."""

    kind: Literal["text"]
    max_length: int
    required: NotRequired[Annotated[bool, Field(description="not blank")]]
    exclude: NotRequired[Annotated[list[str], Field(description="texts it may not be (whatever the case)")]]
    format: NotRequired[Annotated[str, Field(description='"dice": dice notation')]]
    suggestions: NotRequired[Annotated[list[str], Field(description="what a picker offers first")]]


@answer
class FlagDomain(TypedDict):
    """True or false."""

    kind: Literal["bool"]


@answer
class MultiDomain(TypedDict):
    """Any subset of the listed values, as a JSON list."""

    kind: Literal["multi"]
    choices: list[Any]
    labels: NotRequired[list[str]]
    min_size: NotRequired[int]
    within: NotRequired[Annotated[str, Field(description="only values that are also keys of this other field")]]


@answer
class MapDomain(TypedDict):
    """Values of the `value` domain for some of the listed keys: a JSON object, or with `pairs` a list of pairs."""

    kind: Literal["map"]
    keys: list[str]
    value: Domain
    labels: NotRequired[list[str]]
    min_keys: NotRequired[int]
    pairs: NotRequired[bool]


@answer
class SheetDomain(TypedDict):
    """A character sheet in the game's format."""

    kind: Literal["sheet"]
    game: str


@answer
class CharacterDocumentDomain(TypedDict):
    """A character file of the game (format herotable.character), as a character's export gives it."""

    kind: Literal["character_document"]
    game: str


Domain = Annotated[
    ChoiceDomain
    | IntDomain
    | TextDomain
    | FlagDomain
    | MultiDomain
    | MapDomain
    | SheetDomain
    | CharacterDocumentDomain,
    Field(discriminator="kind"),
]
