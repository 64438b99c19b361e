"""Quotable Wit (R-CV-12): a point marks a line said at the table; anyone who heard it, enemies included,
may use it once for +2 on one roll in a related situation; at most three uses in a game session."""

from __future__ import annotations

from dataclasses import dataclass, replace

from herotable.conviction.checks import Bonus, Check, with_bonus
from herotable.conviction.hero import Hero
from herotable.conviction.spending import pay
from herotable.errors import IllegalAction

WIT_BONUS = 2
USES_PER_SESSION = 3


@dataclass(frozen=True)
class QuotableWit:
    number: int
    text: str
    speaker: str
    designated_by: str
    heard_by: frozenset[str]
    used_by: str | None = None
    hijacked: bool = False


@dataclass(frozen=True)
class WitLedger:
    """Every Quotable Wit of the campaign and the uses made in the current game session."""

    wits: tuple[QuotableWit, ...] = ()
    session_uses: int = 0

    def get(self, number: int) -> QuotableWit:
        """The wit with that number. Raises IllegalAction for an unknown number."""
        for wit in self.wits:
            if wit.number == number:
                return wit
        raise IllegalAction(
            "quotable_wit/unknown",
            f"there is no Quotable Wit #{number}",
            ruling="R-CV-12",
            fix="use the number the wit was given when it was designated",
        )


def designate(
    ledger: WitLedger, spender: Hero, *, text: str, speaker: str, heard_by: frozenset[str]
) -> tuple[Hero, WitLedger, QuotableWit]:
    """Spend a point to mark something said as Quotable Wit, with who said it and who heard it; the speaker
    and the spender count as having heard it (R-CV-12).

    Raises IllegalAction for an empty text; the spending errors of `pay`.
    """
    if not text.strip():
        raise IllegalAction(
            "quotable_wit/empty",
            "a Quotable Wit needs the words that were said",
            ruling="R-CV-12",
            fix="record the line itself",
        )
    paid = pay(spender)
    wit = QuotableWit(
        number=len(ledger.wits) + 1,
        text=text.strip(),
        speaker=speaker,
        designated_by=spender.name,
        heard_by=frozenset(heard_by) | {speaker, spender.name},
    )
    return paid, replace(ledger, wits=(*ledger.wits, wit)), wit


def use_wit(
    ledger: WitLedger, number: int, check: Check, *, related: bool = True, hijack: bool = False
) -> tuple[WitLedger, Check]:
    """The roller of a pending check uses a Quotable Wit they heard for +2. Whether the situation is related
    is the GM's call (`related`); `hijack` records an enemy of the speaker turning it around (R-CV-12).

    Raises IllegalAction when the GM ruled it unrelated, the roller did not hear it, it was used already,
    three wits were used this session, or the check was announced.
    """
    wit = ledger.get(number)
    user = check.roller
    if not related:
        raise IllegalAction(
            "quotable_wit/unrelated",
            f"the GM rules Quotable Wit #{number} unrelated to {check.label}",
            ruling="R-CV-12",
            fix="use it in a situation the GM agrees it fits",
        )
    if user not in wit.heard_by:
        raise IllegalAction(
            "quotable_wit/not_heard",
            f"{user} did not hear Quotable Wit #{number}",
            ruling="R-CV-12",
            fix="only those who heard the line when it was said may use it",
        )
    if wit.used_by is not None:
        raise IllegalAction(
            "quotable_wit/used",
            f"Quotable Wit #{number} was already used by {wit.used_by}",
            ruling="R-CV-12",
            fix="each Quotable Wit is used once; mark a new one",
        )
    if ledger.session_uses >= USES_PER_SESSION:
        raise IllegalAction(
            "quotable_wit/session_limit",
            f"{USES_PER_SESSION} Quotable Wits were already used this game session",
            ruling="R-CV-12",
            fix="keep it for the next game session",
        )
    boosted = with_bonus(check, Bonus(f"Quotable Wit #{number}", WIT_BONUS))
    used = replace(wit, used_by=user, hijacked=hijack)
    wits = tuple(used if w.number == number else w for w in ledger.wits)
    return WitLedger(wits, ledger.session_uses + 1), boosted


def new_session(ledger: WitLedger) -> WitLedger:
    """A new game session starts: three more uses; unused wits carry over (R-CV-12, R-T-1)."""
    return replace(ledger, session_uses=0)
