"""Larger Than Life's odds at the table: what each choice in an exchange is worth before it is made, how the whole
fight may end, and the conflict outcome chart (SVG).

Only presentation lives here; the numbers come from `herotable.odds`. A player never gets odds against a
hidden character: they would reveal its sheet.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape

from markupsafe import Markup

from herotable.dice import Rating
from herotable.ltl.hero import Hero, LossType
from herotable.odds.advisor import advise
from herotable.odds.conflict import ConflictOdds, Contender, DuelState, SideState, conflict, round_odds
from herotable.odds.exchange import Roll, exchange
from herotable.odds.melee import Estimate, MeleeOdds, Method, melee
from herotable.server.answers import DiceOdds, ExchangeOdds, FightChances, FightRefused, MonteCarlo, Probability
from herotable.server.odds_panel import probability
from herotable.table.commands import controls
from herotable.table.game import Choice, Flag, IntRange, LegalAction
from herotable.table.ltl.commands import Attack
from herotable.table.ltl.decide import table_of
from herotable.table.state import TableError, TableState


def _visible(state: TableState, viewer: str, cid: str) -> None:
    """Refuse odds against a hidden sheet, unless the GM lets players see them (the `hidden_odds` option)."""
    c = state.character(cid)
    if c.hidden and not state.is_gm(viewer) and c.owner != viewer and not table_of(state).options.hidden_odds:
        raise TableError(
            "odds/hidden",
            f"{c.name}'s sheet is hidden, so no odds against it are shown",
            fix="the GM may let players see odds against hidden characters in the campaign's settings",
            ruling="R-T-2",
        )


def pairings(state: TableState, actions: Sequence[LegalAction]) -> list[tuple[str, str]]:
    """(attacker, opponent) for every exchange the viewer's legal actions offer."""
    out: list[tuple[str, str]] = []
    for a in actions:
        if a.type != Attack.type:
            continue
        target = a.fields.get("target")
        targets = (
            [a.fixed["target"]] if "target" in a.fixed else list(target.choices) if isinstance(target, Choice) else []
        )
        out += [(str(a.fixed["actor"]), str(t)) for t in targets if (str(a.fixed["actor"]), str(t)) not in out]
    return out


def attack_options(actions: Sequence[LegalAction], actor: str) -> tuple[bool, int]:
    """What the attack's legal action offers the actor: Automatic Success before the roll, and the most levels of
    Going For Broke."""
    for a in actions:
        if a.type == Attack.type and a.fixed.get("actor") == actor:
            broke = a.fields.get("broke")
            return isinstance(a.fields.get("auto_success"), Flag), broke.max if isinstance(broke, IntRange) else 0
    return False, 0


def _contender(hero: Hero, style: str | None, shift: int = 0) -> Contender:
    found = hero.sheet.style(style) if style else None
    return Contender(hero.sheet.base, found.rating if found else None, hero.sheet.heroism, shift=shift)


def _side(hero: Hero, stakes: LossType | None) -> SideState:
    return SideState(hero.base_now(stakes).position, hero.heroism.position)


def duel(
    state: TableState, viewer: str, actor: str, target: str, style: str | None, target_style: str | None
) -> tuple[Contender, Contender, DuelState]:
    """The two sides of an exchange as the odds engine sees them, from the table's current state."""
    if not controls(state, viewer, actor):
        raise TableError(
            "odds/not_yours",
            f"{state.character(actor).name} is not your character",
            fix="ask for the odds of your own characters' choices",
            ruling="R-T-2",
        )
    _visible(state, viewer, target)
    table = table_of(state)
    stakes = table.stakes
    a, t = table.hero(actor), table.hero(target)
    if target_style is None and table.conflict is not None:
        target_style = table.conflict.defence(target)  # the target's standing defence Style (R-T-3)
    for hero in (a, t):
        if hero.is_defeated(stakes):
            raise TableError("odds/defeated", f"{hero.name} is out of the fight", fix="pick fighters still in it")
    # the GM's standing situational modifiers on each side's die count, as in the exchange itself (R-T-2 amended)
    c = table.conflict
    shifts = (c.situation(actor)[0], c.situation(target)[0]) if c is not None else (0, 0)
    a_side, t_side = _contender(a, style, shifts[0]), _contender(t, target_style, shifts[1])
    return a_side, t_side, DuelState(_side(a, stakes), _side(t, stakes))


def exchange_odds(
    state: TableState,
    viewer: str,
    actor: str,
    target: str,
    style: str | None = None,
    target_style: str | None = None,
    actions: Sequence[LegalAction] | None = None,
) -> ExchangeOdds:
    """Every option open to the actor this round with its exchange odds and its chance to win the duel
    (R-LTL-7, R-LTL-10, R-LTL-11). The options come from the viewer's legal actions when given. It never decides."""
    you, opp, now = duel(state, viewer, actor, target, style, target_style)
    table = table_of(state)
    karma = table.hero(actor).karma
    karma_now = karma.usable
    broke = None
    if actions is not None:
        karma_now, broke = attack_options(actions, actor)
    rows = advise(you, opp, now, karma=karma if karma_now else None, options=table.options, broke_levels=broke)
    return {
        "actor": actor,
        "target": target,
        "method": Method.EXACT,  # a duel's odds are always solved exactly
        "fight": fight_odds(state, viewer),
        "options": [
            {
                "key": o.key,
                "label": o.label,
                "win": probability(o.exchange.win),
                "tie": probability(o.exchange.tie),
                "lose": probability(o.exchange.lose),
                "duel_win": probability(o.duel_win),
                "change": probability(o.change),
                "resource": o.resource,
            }
            for o in rows
        ],
    }


FIGHT_TRIALS = 20_000  # Monte Carlo fights behind the whole fight's odds when it is too large to solve exactly


def estimate(value: Estimate) -> Probability | MonteCarlo:
    """The API's shape for an exact probability (`probability`) or a Monte Carlo one (estimate, low, high)."""
    if value.exact is not None:
        return probability(value.exact)
    return {"estimate": value.value, "low": value.low, "high": value.high}


def says(odds: MeleeOdds) -> str:
    """What a panel says it shows: exact odds, or a Monte Carlo estimate with its interval."""
    if odds.method is Method.EXACT:
        return "exact"
    return f"Monte Carlo estimate from {odds.trials:,} simulated fights, {odds.confidence:.0%} interval"


@lru_cache(maxsize=256)
def _fight(side_a: tuple[int, ...], side_b: tuple[int, ...], seed: int) -> MeleeOdds:
    return melee([Rating(p) for p in side_a], [Rating(p) for p in side_b], seed=seed, trials=FIGHT_TRIALS)


def fight_odds(state: TableState, viewer: str) -> FightChances | FightRefused | None:
    """How the whole fight may end, side against side, every standing fighter rolling base Power and attacking
    the weakest opponent (the melee model of `herotable.odds.melee`, R-LTL-12): exact while it can be solved
    within the exact solver's limit, else a Monte Carlo estimate with its 95% interval, seeded by the campaign
    state so the same state shows the same figures; `method` and `says` tell which. None outside a conflict of
    two sides standing. A player facing a hidden sheet gets the refusal instead of odds that would reveal it."""
    table = table_of(state)
    fight = table.conflict
    if fight is None:
        return None
    heroes = {f.id: table.hero(f.id) for f in fight.fighters}
    standing = [
        f
        for f in fight.fighters
        if not (f.gave_up or heroes[f.id].is_defeated(fight.stakes) or heroes[f.id].unconscious)
    ]
    sides = list(dict.fromkeys(f.side for f in standing))
    if len(sides) != 2:
        return None
    names = [[state.character(f.id).name for f in standing if f.side == side] for side in sides]
    try:
        for f in standing:
            _visible(state, viewer, f.id)
    except TableError as err:
        return {"sides": sides, "fighters": names, "refused": err.reason}
    positions = [tuple(heroes[f.id].base_now(fight.stakes).position for f in standing if f.side == s) for s in sides]
    if not all(p >= 1 for side in positions for p in side):
        return None  # someone standing below d4: the melee model has no die for them
    odds = _fight(positions[0], positions[1], state.seq)
    return {
        "sides": sides,
        "fighters": names,
        "method": odds.method,
        "says": says(odds),
        "trials": odds.trials,
        "a_wins": estimate(odds.a_wins),
        "b_wins": estimate(odds.b_wins),
        "draw": estimate(odds.draw),
    }


def conflict_odds(state: TableState, viewer: str, actor: str, target: str) -> ConflictOdds:
    you, opp, now = duel(state, viewer, actor, target, None, None)
    return conflict(you, opp, table_of(state).options, state=now)


def outcome_chart(odds: ConflictOdds, a_name: str, b_name: str) -> str:
    """An SVG bar chart of how the conflict may end: who wins, and with how many levels left."""
    rows = sorted(odds.outcomes, key=lambda o: (o[0] != "a", -o[1]))
    width, bar_h, label_w = 360, 22, 170
    height = 34 + bar_h * len(rows)
    top = max((p for _, _, p in rows), default=Fraction(1)) or Fraction(1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="How the conflict may end: {escape(a_name)} wins {float(odds.a_wins):.0%}">',
        f'<text x="0" y="16" font-size="13" font-weight="600">{escape(a_name)} {float(odds.a_wins):.1%} · '
        f"{escape(b_name)} {float(odds.b_wins):.1%}</text>",
    ]
    for i, (side, left, p) in enumerate(rows):
        y = 28 + i * bar_h
        name = a_name if side == "a" else b_name
        length = float(p / top) * (width - label_w - 50)
        colour = "#2b6cb0" if side == "a" else "#b3261e"
        parts.append(
            f'<text x="0" y="{y + 15}" font-size="12">{escape(name)} wins, {escape(Rating(left).name)} left</text>'
        )
        parts.append(f'<rect x="{label_w}" y="{y + 4}" width="{length:.1f}" height="{bar_h - 8}" fill="{colour}"/>')
        parts.append(f'<text x="{label_w + length + 4:.1f}" y="{y + 15}" font-size="12">{float(p):.1%}</text>')
    parts.append("</svg>")
    return "".join(parts)


def panel(state: TableState, viewer: str, acts: Sequence[LegalAction]) -> list[dict[str, Any]]:
    """For each of the viewer's fighters able to attack, against each opponent they may attack: every option's odds
    this round and how the whole conflict may end (R-LTL-7, R-LTL-10, R-LTL-11). The options come from the viewer's
    legal actions (`acts`); the GM sees them for every pairing. A pairing against a hidden sheet says why it has
    none."""
    out: list[dict[str, Any]] = []
    for actor, target in pairings(state, acts):
        a_name, t_name = state.character(actor).name, state.character(target).name
        head = {"actor": a_name, "target": t_name, "actor_id": actor, "target_id": target}
        try:
            advice = exchange_odds(state, viewer, actor, target, actions=acts)
            chart = outcome_chart(conflict_odds(state, viewer, actor, target), a_name, t_name)
        except TableError as err:
            out.append({**head, "refused": err.reason})
            continue
        out.append(
            {
                **head,
                "options": advice["options"],
                "chart": Markup(chart),
                "styles": _by_style(state, viewer, actor, target),
            }
        )
    return out


def _by_style(state: TableState, viewer: str, actor: str, target: str) -> list[dict[str, Any]]:
    """This exchange's chance to win with each die the attacker may choose: base Power and each Style (R-LTL-4), as
    the die rolls now, against the target's standing defence."""
    table = table_of(state)
    hero = table.hero(actor)
    out = []
    for label, style in [("base Power", None), *((st.name, st.name) for st in hero.sheet.styles)]:
        die = hero.rating_for(style, table.stakes)
        if not die.usable:
            continue
        you, opp, now = duel(state, viewer, actor, target, style, None)
        win = round_odds(you, opp, now, options=table.options).win
        out.append({"label": f"{label} {die.name}", "win": probability(win)})
    return out


class LtlDuels:
    """Larger Than Life's duels as the web shows them: the API's exchange odds and conflict chart, and the table
    page's odds panel."""

    panel = staticmethod(panel)

    @staticmethod
    def exchange(
        state: TableState,
        viewer: str,
        actor: str,
        target: str,
        style: str | None,
        target_style: str | None,
        acts: Sequence[LegalAction],
    ) -> ExchangeOdds:
        offered = any(a.type == Attack.type and a.fixed.get("actor") == actor for a in acts)
        return exchange_odds(state, viewer, actor, target, style, target_style, acts if offered else None)

    @staticmethod
    def dice(state: TableState, you: str, opp: str) -> DiceOdds:
        ratings = []
        for field, text in (("you", you), ("opp", opp)):
            try:
                ratings.append(Rating.of(text.strip()))
            except ValueError:
                raise TableError(
                    "odds/bad_die",
                    f"{field}: {text[:20]!r} is not a die of the ladder",
                    fix="name one of d4, d6, d8, d10, d12 or d20",
                ) from None
        odds = exchange(Roll(ratings[0]), Roll(ratings[1]), table_of(state).options)
        return {
            "you": str(ratings[0]),
            "opp": str(ratings[1]),
            "win": probability(odds.win),
            "tie": probability(odds.tie),
            "lose": probability(odds.lose),
            "crit_success": probability(odds.crit_success),
            "crit_failure": probability(odds.crit_failure),
        }

    @staticmethod
    def chart(state: TableState, viewer: str, actor: str, target: str) -> str:
        odds = conflict_odds(state, viewer, actor, target)
        return outcome_chart(odds, state.character(actor).name, state.character(target).name)
