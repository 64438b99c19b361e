"""Monte Carlo melees and duels, vectorised with numpy: every trial of a round is rolled at once (R-LTL-3,
R-LTL-8, R-LTL-12, R-LTL-18). The rules are those of `melee` (its exact solver is the reference); the
randomness comes only from the seed or numpy Generator passed in. Win rates carry a Wilson score interval,
the mean number of rounds a normal interval.

Both dice of an exchange come from one draw `x`, uniform on 0..14399 (`Generator.integers`, exactly
unbiased): 120 is the least common multiple of the ladder's sides, so `x % 120` and `x // 120` are two
independent uniform numbers on 0..119, and each taken modulo its die's sides is an exactly uniform face.
The outcome of every pair of dice and draw (tie, win, critical win, loss, critical loss) is tabulated once;
a duel without exploding dice goes further and tabulates its next state, so a round of every trial is one
draw and two table look-ups. A melee of up to six fighters without exploding dice keeps each trial in one
packed integer, tabulates each round's exchanges, and the dice their fighters roll, by the fighters' positions,
and lands the losses on every fighter at once with word arithmetic (`_packed_melee`); larger melees and exploding
dice keep one row per fighter.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from math import sqrt
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from herotable.dice import Rating, penalty_at, rolled_sides, step_down
from herotable.ltl.options import DEFAULT_OPTIONS, LtlOptions
from herotable.ltl.roll import MAX_EXPLOSIONS
from herotable.odds.melee_model import Estimate, MeleeOdds, Method, Targeting, check_sides

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Int8Array = npt.NDArray[np.int8]
UInt8Array = npt.NDArray[np.uint8]
# rolled positions: 1..7 as on the ladder, 0 a d4 under a -1 die type, which counts its face one lower (R-LTL-8)
_SIDES = np.array([rolled_sides(p) for p in range(8)], dtype=np.int64)
_PENALTY = np.array([penalty_at(p) for p in range(8)], dtype=np.int64)
_STEP_DOWN = np.array([0] + [step_down(p) for p in range(1, 8)], dtype=np.int8)  # the die rolled under a -1
MAX_ROUNDS = 10_000

_FACES = 120  # lcm of the ladder's sides: every side divides it
_DRAW = _FACES * _FACES  # one draw settles both dice of an exchange
# outcome codes of one exchange, seen from the actor
TIE, WIN, CRIT_WIN, LOSE, CRIT_LOSE = range(5)
_IS_CRIT_WIN = np.array([0, 0, 1, 0, 0], dtype=np.int8)
_IS_CRIT_LOSE = np.array([0, 0, 0, 0, 1], dtype=np.int8)


def wilson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """The Wilson score interval for a proportion."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


@cache
def _face_table() -> IntArray:
    """`[rolled position, u]` → the face shown by that die for a uniform u in 0..119."""
    u = np.arange(_FACES, dtype=np.int64)
    return np.stack([u % side + 1 for side in _SIDES])


def _code(tot_a: IntArray, nat_a: IntArray, s_a: IntArray, tot_t: IntArray, nat_t: IntArray, s_t: IntArray) -> IntArray:
    """Outcome codes from totals and natural faces (R-LTL-3, R-LTL-8)."""
    a_wins = tot_a > tot_t
    t_wins = tot_t > tot_a
    a_crit = a_wins & (nat_a == s_a) & (nat_t == 1)
    t_crit = t_wins & (nat_t == s_t) & (nat_a == 1)
    return np.where(a_wins, WIN + a_crit, np.where(t_wins, LOSE + t_crit, TIE)).astype(np.int64)


@cache
def _outcome_table() -> UInt8Array:
    """Flat `[(actor's rolled position * 8 + target's) * 14400 + draw]` → outcome code, without explosions."""
    faces = _face_table()
    x = np.arange(_DRAW, dtype=np.int64)
    u_a, u_t = x % _FACES, x // _FACES
    table = np.zeros((8, 8, _DRAW), dtype=np.uint8)
    for ra in range(8):
        for rt in range(8):
            nat_a, nat_t = faces[ra][u_a], faces[rt][u_t]
            table[ra, rt] = _code(nat_a - _PENALTY[ra], nat_a, _SIDES[ra], nat_t - _PENALTY[rt], nat_t, _SIDES[rt])
    return table.reshape(-1)


# --- duels: the state of a trial is one byte ------------------------------------------------------------------
# codes 0 and 1 are "A has won" and "B has won"; a running duel (positions 1..7, the -1 each carries) is
# 2 + ((pa - 1) * 7 + (pb - 1)) * 4 + ma * 2 + mb. In a duel only one -1 can be carried at a time.
A_WON, B_WON = 0, 1
_RUNNING = 2


def _duel_code(pa: int, pb: int, ma: int, mb: int) -> int:
    if pb <= 0:
        return A_WON
    if pa <= 0:
        return B_WON
    return _RUNNING + ((pa - 1) * 7 + (pb - 1)) * 4 + ma * 2 + mb


@cache
def _duel_table(extra: int) -> UInt8Array:
    """Flat `[state * 14400 + draw]` → next state: one round of a duel (R-LTL-3, R-LTL-8; losses land at the
    end of the round, a critical success takes `1 + extra` levels, a critical failure is -1 die type next round)."""
    outcome = _outcome_table().reshape(64, _DRAW)
    after = np.zeros((256, 5), dtype=np.uint8)
    pair = np.zeros(256, dtype=np.int64)
    after[B_WON] = B_WON  # finished duels stay finished; their pair (0) is never looked at
    for pa in range(1, 8):
        for pb in range(1, 8):
            for ma, mb in ((0, 0), (1, 0), (0, 1)):
                s = _duel_code(pa, pb, ma, mb)
                pair[s] = (step_down(pa) if ma else pa) * 8 + (step_down(pb) if mb else pb)
                after[s] = (
                    _duel_code(pa, pb, 0, 0),
                    _duel_code(pa, pb - 1, 0, 0),
                    _duel_code(pa, pb - 1 - extra, 0, 1),
                    _duel_code(pa - 1, pb, 0, 0),
                    _duel_code(pa - 1 - extra, pb, 1, 0),
                )
    states = np.arange(256)
    return np.ascontiguousarray(after[states[:, None], outcome[pair]]).reshape(-1)


_DUEL_BASE = np.arange(256, dtype=np.intp) * _DRAW


@dataclass
class _Tally:
    """What the trials came to: wins, draws, the sum and sum of squares of their lengths in rounds, and the
    exchanges rolled (two dice each, before explosions)."""

    a: int = 0
    b: int = 0
    draw: int = 0
    rounds: int = 0
    rounds_sq: int = 0
    exchanges: int = 0
    duel: bool = False  # one exchange a round

    def running(self, round_no: int, live: int) -> None:
        """`live` trials play round `round_no` (1-based): each adds 1 to its length, 2·n − 1 to its square."""
        self.rounds += live
        self.exchanges += live if self.duel else 0
        self.rounds_sq += (2 * round_no - 1) * live


def _duel(pa: int, pb: int, trials: int, gen: np.random.Generator, extra: int) -> _Tally:
    table = _duel_table(extra)
    state = np.full(trials, _duel_code(pa, pb, 0, 0), dtype=np.uint8)
    tally = _Tally(duel=True)
    live = trials
    for round_no in range(1, MAX_ROUNDS + 1):
        tally.running(round_no, live)
        idx = _DUEL_BASE[state]
        idx += gen.integers(0, _DRAW, size=state.size, dtype=np.int32)
        state = table[idx]
        done = state < _RUNNING
        finished = int(np.count_nonzero(done))
        live = state.size - finished
        if live == 0 or 4 * finished > state.size:  # drop finished duels once they are a quarter of the array
            won = int(np.count_nonzero(state == A_WON))
            tally.a += won
            tally.b += finished - won
            state = state[~done]
            if live == 0:
                return tally
    raise ArithmeticError(f"{live} trials still running after {MAX_ROUNDS} rounds")


# --- melees: one row per fighter, one column per running trial ------------------------------------------------


def _explode(gen: np.random.Generator, natural: IntArray, sides: IntArray) -> IntArray:
    """Totals of exploding dice (R-LTL-18): add another roll while the die shows its maximum."""
    total = natural.copy()
    going = np.flatnonzero(natural == sides)
    for _ in range(MAX_EXPLOSIONS):
        if going.size == 0:
            break
        again = gen.integers(1, sides[going] + 1)
        total[going] += again
        going = going[again == sides[going]]
    return total


def _exchange(gen: np.random.Generator, r_a: Int8Array, r_t: Int8Array, exploding: bool) -> IntArray:
    """Outcome codes of exchanges between dice of rolled positions `r_a` (actor) and `r_t` (target)."""
    x = gen.integers(0, _DRAW, size=r_a.size)
    ra, rt = r_a.astype(np.intp), r_t.astype(np.intp)
    if not exploding:
        code: IntArray = _outcome_table()[(ra * 8 + rt) * _DRAW + x].astype(np.int64)
        return code
    faces = _face_table()
    nat_a, nat_t = faces[ra, x % _FACES], faces[rt, x // _FACES]
    s_a, s_t = _SIDES[ra], _SIDES[rt]
    tot_a = _explode(gen, nat_a, s_a) - _PENALTY[ra]
    tot_t = _explode(gen, nat_t, s_t) - _PENALTY[rt]
    return _code(tot_a, nat_a, s_a, tot_t, nat_t, s_t)


def _targets(pos: Int8Array, standing: BoolArray, n_a: int, targeting: Targeting) -> list[Int8Array]:
    """Each fighter's target in every running trial (both sides have someone standing), by `melee.targets`."""
    count = pos.shape[0]
    sides = (range(0, n_a), range(n_a, count))
    out: list[Int8Array] = []
    for own, opp in (sides, sides[::-1]):
        if targeting is not Targeting.SPREAD:
            weakest = targeting is Targeting.WEAKEST
            best = np.where(standing[opp[0]], pos[opp[0]], 127 if weakest else -128).astype(np.int8)
            tgt = np.full(pos.shape[1], opp[0], dtype=np.int8)
            for j in opp[1:]:
                better = standing[j] & ((pos[j] < best) if weakest else (pos[j] > best))
                tgt[better] = j
                best[better] = pos[j][better]
            out.extend(tgt for _ in own)
            continue
        seen = np.cumsum(standing[opp.start : opp.stop], axis=0, dtype=np.int8)  # standing opponents up to j
        alive = seen[-1]
        rank = np.zeros(pos.shape[1], dtype=np.int8)  # standing fighters of the own side listed before
        for i in own:
            want = rank % alive + 1
            tgt = np.full(pos.shape[1], -1, dtype=np.int8)
            for k, j in enumerate(opp):
                tgt[standing[j] & (seen[k] == want)] = j
            out.append(tgt)
            rank += standing[i]
    return out


def _melee(
    start: Sequence[int],
    n_a: int,
    trials: int,
    gen: np.random.Generator,
    targeting: Targeting,
    exploding: bool,
    extra: int,
) -> _Tally:
    count = len(start)
    loss_actor = np.array([0, 0, 0, 1, 1 + extra], dtype=np.int8)
    loss_target = np.array([0, 1, 1 + extra, 0, 0], dtype=np.int8)
    pos = np.repeat(np.array(start, dtype=np.int8)[:, None], trials, axis=1)
    minus = np.zeros_like(pos)
    tally = _Tally()
    for round_no in range(1, MAX_ROUNDS + 1):
        n = pos.shape[1]
        if n == 0:
            return tally
        tally.running(round_no, n)
        standing = pos > 0
        rolled = np.where(minus > 0, _STEP_DOWN[np.clip(pos, 1, 7)], np.clip(pos, 1, 7)).astype(np.int8)
        aim = _targets(pos, standing, n_a, targeting)
        acted = np.zeros((count, n), dtype=bool)
        loss = np.zeros((count, n), dtype=np.int8)
        crit = np.zeros((count, n), dtype=np.int8)
        for actor in range(count):
            idx = np.flatnonzero(standing[actor] & ~acted[actor])
            if idx.size == 0:
                continue
            tally.exchanges += idx.size
            tgt = aim[actor][idx].astype(np.intp)
            acted[tgt, idx] = True
            code = _exchange(gen, rolled[actor, idx], rolled[tgt, idx], exploding)
            # each trial appears once per actor, so these fancy-index additions do not collide
            loss[actor, idx] += loss_actor[code]
            loss[tgt, idx] += loss_target[code]
            crit[actor, idx] += _IS_CRIT_LOSE[code]
            crit[tgt, idx] += _IS_CRIT_WIN[code]
        pos -= loss
        up = pos > 0
        minus = np.where(up, crit, 0).astype(np.int8)
        a_up = up[:n_a].any(axis=0)
        b_up = up[n_a:].any(axis=0)
        going = a_up & b_up
        a_only = int(np.count_nonzero(a_up & ~b_up))
        b_only = int(np.count_nonzero(b_up & ~a_up))
        tally.a += a_only
        tally.b += b_only
        tally.draw += n - int(np.count_nonzero(going)) - a_only - b_only
        pos, minus = pos[:, going], minus[:, going]
    if pos.shape[1]:
        raise ArithmeticError(f"{pos.shape[1]} trials still running after {MAX_ROUNDS} rounds")
    return tally


# --- melees of up to six fighters without exploding dice: one packed integer per trial -------------------------
# A trial's fighters are 8-bit lanes of one int64 `s`: lane f holds fighter f's position (bits 0-2; 0 is down)
# and its -1 for this round (bit 3). The round's plan (who attacks whom) depends only on the positions, so it is
# tabulated once for every position code `pc` (3 bits a fighter, 8**count codes): for each fighter, the lane of
# its target, or an empty lane when it does not act; and, for each exchange, what the actor's and the target's
# lanes hold then (`_plan_nibbles`: their positions; a trial with a -1 this round, which is rare, has its own made
# from its lanes). A round is then, for each exchange, one draw and the outcome table, and one look-up of what
# the outcome costs whom, added into a packed word of losses (bits 0-4 of a lane) and criticals suffered (bits
# 5-7). Losses land on all lanes at once with word arithmetic: (position | 128) - loss stays within its lane, and
# its bit 7 says whether anything is left.

PACKED_MAX = 6
_LANES = sum(1 << (8 * f) for f in range(PACKED_MAX))  # 0x010101010101
_LOW3, _LOW5, _LOW7, _HIGH = 7 * _LANES, 31 * _LANES, 127 * _LANES, 128 * _LANES
_MINUS = 8 * _LANES  # each lane's -1 bit
_BYTE = [k if sys.byteorder == "little" else 7 - k for k in range(8)]  # where bits 8k.. of an int64 lie in memory


@cache
def _plan(count: int, n_a: int, targeting: Targeting) -> tuple[IntArray, UInt8Array]:
    """Per position code: the round's exchanges in order, 8 bits each (actor in the high 4, target in the low
    4), and how many there are."""
    codes = np.arange(8**count, dtype=np.int64)
    pos = np.stack([(codes >> (3 * f)) & 7 for f in range(count)]).astype(np.int8)
    standing = pos > 0
    with np.errstate(divide="ignore", invalid="ignore"):  # codes with one side down: never played
        aim = _targets(pos, standing, n_a, targeting)
    acted = np.zeros((count, codes.size), dtype=bool)
    cols = np.arange(codes.size)
    packed = np.zeros(codes.size, dtype=np.int64)
    exchanges = np.zeros(codes.size, dtype=np.int64)
    for f in range(count):
        tgt = aim[f].astype(np.int64)
        acts = standing[f] & ~acted[f] & (tgt >= 0)
        acts[acts] &= standing[tgt[acts], cols[acts]]  # no standing opponent: the melee is over
        acted[f] |= acts
        acted[tgt[acts], cols[acts]] = True
        packed[acts] |= ((f << 4) | tgt[acts]) << (8 * exchanges[acts])
        exchanges += acts
    return packed, exchanges.astype(np.uint8)


@cache
def _plan_nibbles(count: int, n_a: int, targeting: Targeting) -> IntArray:
    """Per position code: for each of the round's exchanges in order, 8 bits: the actor's lane nibble in the high
    4 and the target's in the low 4, as they are with no -1 (a fighter's position alone): with `_plan`'s
    exchanges, what indexes the outcome table. Trials with a -1 this round have theirs made by `_nibbles`."""
    packed, exchanges = _plan(count, n_a, targeting)
    codes = np.arange(8**count, dtype=np.int64)
    out = np.zeros(codes.size, dtype=np.int64)
    for k in range(PACKED_MAX):
        who = (packed >> (8 * k)) & 0xFF
        actor = (codes >> (3 * (who >> 4))) & 7
        target = (codes >> (3 * (who & 15))) & 7
        out |= np.where(exchanges > k, (actor << 4) | target, 0) << (8 * k)
    return out


def _nibbles(s: IntArray, plays: IntArray) -> IntArray:
    """`_plan_nibbles` for trials whose lanes `s` carry a -1 (bit 3), from their exchanges `plays`."""
    out = np.zeros(s.size, dtype=np.int64)
    for k in range(PACKED_MAX):
        who = (plays >> (8 * k)) & 0xFF
        actor = (s >> ((who >> 4) << 3)) & 15
        target = (s >> ((who & 15) << 3)) & 15
        out |= ((actor << 4) | target) << (8 * k)
    return out


@cache
def _loss_rows(count: int, extra: int) -> IntArray:
    """`[(actor × 16 + target) × 5 + outcome]` → the packed losses and criticals that exchange adds."""
    rows = np.zeros(16 * 16 * 5, dtype=np.int64)
    for f in range(count):
        for t in range(count):
            at = (f * 16 + t) * 5
            rows[at + WIN] = 1 << (8 * t)
            rows[at + CRIT_WIN] = (1 + extra + 32) << (8 * t)
            rows[at + LOSE] = 1 << (8 * f)
            rows[at + CRIT_LOSE] = (1 + extra + 32) << (8 * f)
    return rows


@cache
def _pair_outcomes() -> UInt8Array:
    """`[(actor lane's low nibble × 16 + target's) << 14 | draw]` → the outcome code: the outcome table
    re-indexed by what the lanes hold (position, and the -1 in bit 3), so one look-up settles an exchange."""
    rolled = [p if m == 0 else int(_STEP_DOWN[p]) for m in (0, 1) for p in range(8)]
    table = np.zeros((256, 1 << 14), dtype=np.uint8)
    outcome = _outcome_table().reshape(64, _DRAW)
    for a, ra in enumerate(rolled):
        for t, rt in enumerate(rolled):
            table[a * 16 + t, :_DRAW] = outcome[ra * 8 + rt]
    return table.reshape(-1)


def _packed_melee(
    start: Sequence[int], n_a: int, trials: int, gen: np.random.Generator, targeting: Targeting, extra: int
) -> _Tally:
    count = len(start)
    plan, exchanges = _plan(count, n_a, targeting)
    plan_nibbles = _plan_nibbles(count, n_a, targeting)
    losses = _loss_rows(count, extra)
    outcome = _pair_outcomes()
    code_a = sum(7 << (3 * f) for f in range(n_a))  # each side's fighters in a position code
    code_b = sum(7 << (3 * f) for f in range(n_a, count))
    code = sum(p << (3 * f) for f, p in enumerate(start))
    s = np.full(trials, sum(p << (8 * f) for f, p in enumerate(start)), dtype=np.int64)
    counts = np.zeros(PACKED_MAX + 1, dtype=np.int64)  # how many running trials have each number of exchanges
    counts[exchanges[code]] = trials
    plays = np.full(trials, plan[code], dtype=np.int64)
    nibbles = np.full(trials, plan_nibbles[code], dtype=np.int64)
    tally = _Tally()
    for round_no in range(1, MAX_ROUNDS + 1):
        # s, plays and nibbles hold the running trials, those with the most exchanges first, so the k-th exchange
        # of the round is played by a prefix
        n = s.size
        if n == 0:
            return tally
        tally.running(round_no, n)
        upto = np.cumsum(counts[::-1])[::-1]  # upto[k]: trials with k exchanges or more
        tally.exchanges += int(upto[1:].sum())
        hit = np.zeros(n, dtype=np.int64)
        # the k-th exchange's byte of every trial's plays and nibbles, read in place (no shifting and masking)
        play_bytes, nibble_bytes = plays.view(np.uint8).reshape(n, 8), nibbles.view(np.uint8).reshape(n, 8)
        for k in range(1, PACKED_MAX + 1):
            m = int(upto[k])
            if m == 0:
                break
            byte = _BYTE[k - 1]
            at = nibble_bytes[:m, byte].astype(np.int64)
            at <<= 14
            at |= gen.integers(0, _DRAW, size=m, dtype=np.int32)  # 32-bit draws: about 1.5x numpy's 64-bit rate
            who = np.multiply(play_bytes[:m, byte], 5, dtype=np.int64)
            who += outcome[at]
            hit[:m] += losses[who]
        left = (s & _LOW3 | _HIGH) - (hit & _LOW5)
        low = left & _LOW7
        alive = (left & (low + _LOW7) & _HIGH) >> 7
        pos = low & (alive * 255)
        crit = (((hit >> 5) & _LOW3) + _LOW7) & _HIGH
        s = pos | ((crit >> 4) & (alive << 3))
        # the position code: each lane's 3 bits side by side; it has no exchanges once a side is down
        pos |= pos >> 5
        pos &= 0x003F003F003F003F
        pos |= pos >> 10
        pos &= 0x00000FFF00000FFF
        pos |= pos >> 20
        pos &= 0xFFFFFF
        many = exchanges[pos]
        ranked = np.argsort(np.uint8(PACKED_MAX) - many, kind="stable")
        going = int(np.count_nonzero(many))
        ended = pos[ranked[going:]]  # the trials this round ended: which side is still up
        a_up = (ended & code_a) != 0
        b_up = (ended & code_b) != 0
        a_only = int(np.count_nonzero(a_up > b_up))
        b_only = int(np.count_nonzero(b_up > a_up))
        tally.a += a_only
        tally.b += b_only
        tally.draw += ended.size - a_only - b_only
        order = ranked[:going]
        pos = pos[order]
        counts = np.bincount(many, minlength=PACKED_MAX + 1)
        s, plays, nibbles = s[order], plan[pos], plan_nibbles[pos]
        minus = np.flatnonzero(s & _MINUS)  # a -1 this round (after a critical loss): rare
        if minus.size:
            nibbles[minus] = _nibbles(s[minus], plays[minus])
    if s.size:
        raise ArithmeticError(f"{s.size} trials still running after {MAX_ROUNDS} rounds")
    return tally


def simulate_melee(
    side_a: Sequence[Rating],
    side_b: Sequence[Rating],
    rng: np.random.Generator | int,
    *,
    trials: int = 20_000,
    targeting: Targeting = Targeting.WEAKEST,
    options: LtlOptions = DEFAULT_OPTIONS,
    confidence: float = 0.95,
) -> MeleeOdds:
    """Monte Carlo odds of a melee or duel by the rules of `melee` (R-LTL-12), `trials` conflicts at once.
    Raises ValueError for an empty side, a fighter below d4, or no trials."""
    check_sides(side_a, side_b)
    if trials < 1:
        raise ValueError("run at least one trial")
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    return _summary(_simulate(side_a, side_b, gen, trials, targeting, options), trials, confidence)


def _simulate(
    side_a: Sequence[Rating],
    side_b: Sequence[Rating],
    gen: np.random.Generator,
    trials: int,
    targeting: Targeting,
    options: LtlOptions,
) -> _Tally:
    extra = 1 if options.effect_cap >= 2 else 0
    start = [r.position for r in (*side_a, *side_b)]
    if len(start) == 2 and not options.exploding:
        return _duel(start[0], start[1], trials, gen, extra)
    if len(start) <= PACKED_MAX and not options.exploding:
        return _packed_melee(start, len(side_a), trials, gen, targeting, extra)
    return _melee(start, len(side_a), trials, gen, targeting, options.exploding, extra)


def _summary(tally: _Tally, n: int, confidence: float) -> MeleeOdds:
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    mean = tally.rounds / n
    if n > 1:
        variance = (n * tally.rounds_sq - tally.rounds * tally.rounds) / (n * (n - 1))  # exact integers first
        half = z * sqrt(max(0.0, variance) / n)
    else:
        half = float("inf")

    def share(k: int) -> Estimate:
        low, high = wilson(k, n, confidence)
        return Estimate(k / n, low, high)

    return MeleeOdds(
        Method.MONTE_CARLO,
        share(tally.a),
        share(tally.b),
        share(tally.draw),
        Estimate(mean, mean - half, mean + half),
        trials=n,
        confidence=confidence,
    )
