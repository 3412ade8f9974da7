"""What every game's search player shares (docs/search.md): UCB1 over a decision's options, the
rule that keeps the rollout policy's own option unless the rollouts say clearly otherwise, the
reward of a finished rollout, the search's own random keys, and the canonical shuffle that keeps
a determinization from depending on the true order of a face-down deck.

Each game keeps its own driver (the turn replayed from its start) and `determinize`: those read
the game's rules. The rest takes the offsets and columns as arguments, or is made for a game by a
factory from its offsets (`SearchBlocks`, `SearchSlots`: `hooks_for`, `search_decision_for`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.core.apart import called_apart
from sim.core.jit import njit, njit_closure
from sim.core.policy import S_CONFIDENCE, S_DETERMINIZATIONS, S_EXPLORATION, S_OPPONENTS, S_ROLLOUTS
from sim.core.rng import GOLDEN, mix64
from sim.core.workspace import shuffle_in, traced

#: the sign-flip test enumerates every sign pattern up to this many pairs, beyond them FLIPS
EXACT_PAIRS = 12
FLIPS = 4095
#: the parameter vector holds `confidence` in millionths
CONFIDENCE_UNIT = 1_000_000
#: a replayed turn's search mode: probing for the first decision past the script, or a rollout
PROBE, ROLLOUT = 1, 2
#: `searched`: no option of its own, the seat's (now the rollout) policy decides.
POLICY_DECIDES = -(1 << 30)
#: the search's opponent model (its S_OPPONENTS slot): every seat plays the rollout policy, or
#: the opponents keep their own strategies (`opponents=own`: the expert of `abyss-mc learn`)
OPPONENTS_ROLLOUT, OPPONENTS_OWN = 0, 1


class SearchBlocks(NamedTuple):
    """The search's fields of a game's workspace (`sim.core.driver.search_blocks`)."""

    begin: int  # SEARCH_BEGIN: what a replay restores (state, streams, trace)
    mode: int  # 0 off, PROBE, ROLLOUT
    count: int  # search decisions asked so far in this replay of the turn
    script: int  # the turn's scripted options (count, then the options)
    force: int  # a rollout's option
    found: int  # probe: 1 when the decision past the script was met (2 while it is met)
    default: int  # probe: the rollout policy's own option there
    seat: int
    decision: int
    n_options: int
    options: int
    trace: int  # decisions asked so far; then (seat, decision, option, n) per decision


class SearchSlots(NamedTuple):
    """A game's offsets of its seats' policies, and the search's slots in its parameter vector
    (`sim.core.policy.S_*`): with `SearchBlocks`, all the search needs to know of a game."""

    opt: int  # the option row a decision's options are written to
    policy_kind: int  # a seat's policy kind
    policy_params: int  # the seats' parameter vectors
    n_params: int  # a seat's vector length
    n_players: int
    turn: int
    rng_keys: int
    rec_on: int  # recording for the learned player
    search_kind: int  # the search player's policy kind
    rollout_kind: int  # the slots of the rollout policy's kind and its first parameter
    rollout_params: int
    n_slots: int  # a policy's parameter count


@njit(cache=True)
def ucb(total, visits, r, c):
    """UCB1: the option with the highest mean reward + c * sqrt(ln r / its visits), r the
    rollouts so far (every option visited at least once)."""
    best, best_value = 0, -1e300
    for i in range(len(visits)):
        value = total[i] / visits[i] + c * np.sqrt(np.log(r) / visits[i])
        if value > best_value:
            best, best_value = i, value
    return best


@njit(cache=True)
def most_visited(visits, total):
    """The most visited option, the best summed reward among equals."""
    best = 0
    for i in range(1, len(visits)):
        if visits[i] > visits[best] or (visits[i] == visits[best] and total[i] > total[best]):
            best = i
    return best


@njit(cache=True)
def position(options, option):
    """Where `option` is among `options`; -1: not there."""
    for i in range(len(options)):
        if options[i] == option:
            return i
    return -1


@njit(cache=True, inline="always")
def sample(v, kinds):
    """The sample of the hidden cards a v-th rollout plays: v, or v modulo `kinds` (the
    determinizations cycled; kinds > 0)."""
    return v % kinds if kinds > 0 else v


@njit(cache=True)
def confirmation_pairs(budget, n, confidence, kinds):
    """The pairs of rollouts a decision among n options keeps from its budget to confirm
    UCB1's choice against the default: a quarter of the budget, UCB1 keeping one rollout per
    option at least; none with the rule off (confidence <= 0). With `kinds` determinizations
    cycled (kinds > 0) at most kinds: a repeated sample repeats its rollouts, no new pair (and
    the pairs are not fresh: UCB1 played the same samples)."""
    if confidence <= 0.0:
        return 0
    pairs = max(0, min(budget // 4, (budget - n) // 2))
    return min(pairs, kinds) if kinds > 0 else pairs


def hooks_for(determinize, policy_choose, record_features, blocks: SearchBlocks,
              slots: SearchSlots):
    """A game's search hooks, written once: `(searched, rollout_policy, ask)` (below), made
    from its `determinize(s, seat)` (what the seat cannot see, sampled afresh), its policies'
    `choose` and `record_features` and its offsets."""
    searched, rollout_policy = searched_for(determinize, blocks, slots)
    ask = asker_for(searched, policy_choose, record_features, blocks, slots)
    return searched, rollout_policy, asked_apart(ask, slots.opt)


def asked_apart(ask, opt_at: int):
    """`ask` called apart (`sim.core.apart`: its tree compiled once, not again in every rule
    that asks), but a single option answered in place, as `ask` does, without the call."""
    apart = called_apart(ask)

    @njit_closure(inline="always")
    def choose(s, seat, decision, n):
        if n == 1:
            return s[opt_at]
        return apart(s, seat, decision, n)

    choose.apart_symbol = apart.apart_symbol
    return choose


def searched_for(determinize, blocks: SearchBlocks, slots: SearchSlots):
    """A game's search seat at a decision of a replayed turn, and the switch of every seat to
    its rollout policy: `(searched(s, seat, decision, n), rollout_policy(s, seat))`.

    `searched` returns the script's option, if the turn's script has one for this decision; in
    a rollout it forks here: `determinize(s, seat)`, every seat switched to the searching seat's
    rollout policy, and SEARCH_FORCE played; else (probing: the first decision past the script
    is recorded, its options copied) every seat plays the rollout policy to the end of the
    turn, and it returns POLICY_DECIDES."""
    B, Q = blocks, slots
    mode_at, count_at, script_at, force_at, found_at = B.mode, B.count, B.script, B.force, B.found
    seat_at, decision_at, n_at, options_at = B.seat, B.decision, B.n_options, B.options
    opt_at, kind_at, params_at, players_at = Q.opt, Q.policy_kind, Q.policy_params, Q.n_players
    n_params, rollout_kind, rollout_params = Q.n_params, Q.rollout_kind, Q.rollout_params
    n_slots, opponents_slot, search_kind = Q.n_slots, S_OPPONENTS, Q.search_kind

    @njit_closure
    def rollout_policy(s, seat):
        """Every seat plays the searching seat's rollout policy (its kind and slots) from now
        on; with OPPONENTS_OWN, only the searching seat and other search seats do, the others
        keeping their own strategies."""
        vec = params_at + seat * n_params
        kind = s[vec + rollout_kind]
        own = s[vec + opponents_slot] == OPPONENTS_OWN  # (read before the seat's slots change)
        for q in range(s[players_at]):  # (the slots written never overlap the rollout's)
            if own and q != seat and s[kind_at + q] != search_kind:
                continue
            s[kind_at + q] = kind
            at = params_at + q * n_params
            for i in range(n_slots):
                s[at + i] = s[vec + rollout_params + i]

    @njit_closure
    def searched(s, seat, decision, n):
        k = s[count_at]
        s[count_at] = k + 1
        if k < s[script_at]:
            return s[script_at + 1 + k]
        if s[mode_at] == ROLLOUT:
            determinize(s, seat)
            rollout_policy(s, seat)
            s[mode_at] = 0
            return s[force_at]
        if s[mode_at] == PROBE and s[found_at] == 0:
            s[found_at] = 2  # the game's `choose` keeps the rollout policy's option, then 1
            s[seat_at], s[decision_at], s[n_at] = seat, decision, n
            for i in range(n):
                s[options_at + i] = s[opt_at + i]
        rollout_policy(s, seat)
        return POLICY_DECIDES

    return searched, rollout_policy


def asker_for(searched, policy_choose, record_features, blocks: SearchBlocks,
              slots: SearchSlots):
    """A game's question to a seat, `ask(s, seat, decision, n)`: the option its strategy picks
    among the n options at the option row (a single option is not asked), traced. A search
    seat's replayed turn may answer first (`searched`); at the probe's decision the rollout
    policy's own option is kept as the default and, when recording for the learned player,
    the options' features are written (`record_features`). Called apart only (`asked_apart`),
    so compiled once, for a workspace and int64 arguments, by its C function when first called
    (`sim.core.apart`), not when its module is imported."""
    opt_at, kind_at, rec_at, search_kind = slots.opt, slots.policy_kind, slots.rec_on, \
        slots.search_kind  # fmt: skip
    found_at, default_at, trace_at = blocks.found, blocks.default, blocks.trace

    @njit_closure
    def ask(s, seat, decision, n):
        if n == 1:
            return s[opt_at]
        pick = searched(s, seat, decision, n) if s[kind_at + seat] == search_kind \
            else POLICY_DECIDES  # fmt: skip
        if pick == POLICY_DECIDES:
            pick = policy_choose(s, seat, decision, n)
            if s[found_at] == 2:  # the probe's decision: the rollout policy's own option
                s[found_at], s[default_at] = 1, pick
                if s[rec_at] == 1:
                    record_features(s, seat, decision, n)
        return traced(s, trace_at, seat, decision, pick, n)

    return ask


def search_decision_for(rollout, blocks: SearchBlocks, slots: SearchSlots):
    """A game's search decision (`search_decision(s, start, w, rows, active, visits, total)`):
    UCB1 over the options of the decision s recorded (the probe), each rollout
    `rollout(s, start, w, rows, active, seat, k, option, seed, j)` (the turn replayed from
    `start` in w past the script's first k decisions, forked there on the keys of (seed, j):
    sample j of the hidden cards, common to every option: the v-th rollout of every option
    plays sample v; the seat's reward). UCB1's choice, the most visited option (the best summed
    reward among equals), is played if the rule is off (confidence 0) or the rollout policy's
    own option (recorded by the probe) is unknown; else only if it beats that default in
    `confirmation_pairs` pairs of rollouts on fresh samples, samples no rollout of UCB1 played,
    with `confidence` (`confident`): a budget too small to keep a pair plays the default (at a
    small budget the search is its rollout policy, whatever the number of options). Each
    option's rollouts (the confirmation's included) and summed reward are left in visits and
    total. One implementation for every game, compiled for each with its own rollout."""
    B, Q = blocks, slots
    seat_at, n_at, options_at, script_at = B.seat, B.n_options, B.options, B.script
    default_at, turn_at, keys_at, params_at = B.default, Q.turn, Q.rng_keys, Q.policy_params
    n_params, rollouts_slot, exploration_slot = Q.n_params, S_ROLLOUTS, S_EXPLORATION
    kinds_slot, confidence_slot = S_DETERMINIZATIONS, S_CONFIDENCE

    @njit_closure
    def search_decision(s, start, w, rows, active, visits, total):
        seat, n, k = s[seat_at], s[n_at], s[script_at]
        options = s[options_at : options_at + n].copy()
        vec = params_at + seat * n_params  # read at the turn's start: the probe changed s's
        budget = max(start[vec + rollouts_slot], n)
        c = start[vec + exploration_slot] / 1000.0
        kinds = start[vec + kinds_slot]
        confidence = start[vec + confidence_slot] / CONFIDENCE_UNIT
        # the search's own random numbers: from the game's keys and this decision, never the cards
        seed = search_seed(s, keys_at, s[turn_at], k)
        default = position(options, s[default_at])
        pairs = confirmation_pairs(budget, n, confidence, kinds)
        selection = budget - 2 * pairs
        for r in range(selection):  # UCB1: every option once, then the highest bound
            i = r if r < n else ucb(total, visits, r, c)
            gain = rollout(s, start, w, rows, active, seat, k, options[i], seed,
                           sample(visits[i], kinds))  # fmt: skip
            visits[i] += 1
            total[i] += gain
        best = most_visited(visits, total)
        if confidence <= 0.0 or default < 0 or best == default:
            return options[best]
        if pairs == 0:  # a budget too small to confirm anything: the rule keeps the default
            return options[default]
        paired = np.empty(2 * pairs)  # the confirmation: UCB1's choice, then the default
        for r in range(2 * pairs):
            i = best if r % 2 == 0 else default
            paired[r] = rollout(s, start, w, rows, active, seat, k, options[i], seed,
                                sample(selection + r // 2, kinds))  # fmt: skip
            visits[i] += 1
            total[i] += paired[r]
        return options[best] if confident(paired, confidence, seed) else options[default]

    return search_decision


@njit(cache=True)
def sign_flip_p(d, m, seed):
    """One-sided p-value of the sum of the paired differences d[:m] (none zero) by the sign-flip
    (randomization) test: the share of sign patterns whose sum reaches the observed one. Where
    the two options are worth the same, each difference is as likely positive as negative, so
    every pattern is equally likely: exact, whatever the rewards' distribution (win or loss,
    few pairs). Every pattern up to EXACT_PAIRS pairs (at least 2^-m: few pairs never convince);
    beyond, FLIPS random patterns from `seed`, (1 + reached) / (FLIPS + 1) (still exact)."""
    observed, scale = 0.0, 0.0
    for i in range(m):
        observed += d[i]
        scale += abs(d[i])
    reach = observed - 1e-9 * scale  # a sum equal up to rounding reaches it
    count = 0
    if m <= EXACT_PAIRS:
        for pattern in range(1 << m):
            t = 0.0
            for i in range(m):
                t += -d[i] if (pattern >> i) & 1 else d[i]
            count += t >= reach
        return count / (1 << m)
    key = mix64(np.uint64(seed) * GOLDEN + np.uint64(1))
    bits = np.uint64(0)
    drawn = 0
    for _ in range(FLIPS):
        t = 0.0
        for i in range(m):
            if i % 64 == 0:
                drawn += 1
                bits = mix64(key + np.uint64(drawn) * GOLDEN)
            t += -d[i] if (bits >> np.uint64(i % 64)) & np.uint64(1) else d[i]
        count += t >= reach
    return (1 + count) / (FLIPS + 1)


@njit(cache=True)
def confident(paired, confidence, seed):
    """Whether the confirmation's rollouts show UCB1's choice better than the default (the
    rollout policy's own option) with `confidence`. paired[2v], paired[2v + 1]: the rewards of
    the choice and of the default on the v-th fresh sample.

    Fresh, because UCB1's own rollouts cannot tell: the most visited of k options is the
    luckiest, its mean biased upward by its selection (and by UCB1 giving an option more
    rollouts while it looks good), so a test on them departs far more often than its level
    says. On samples played after the choice was made that bias is gone, and the one test needs
    no correction for the k options the choice was made among. Paired: both rewards of a pair
    played the same sample, so the sample's luck cancels; the sign-flip test (`sign_flip_p`)
    is exact on win-or-loss rewards and few pairs; identical rollouts (a difference of 0) say
    nothing and are left out. With a choice of equal worth to the default, the search departs
    with probability at most 1 - confidence (0: always departs; 1: never)."""
    if confidence <= 0.0:
        return True
    pairs = len(paired) // 2
    d = np.empty(pairs)
    m, gain = 0, 0.0
    for v in range(pairs):
        x = paired[2 * v] - paired[2 * v + 1]
        if x != 0.0:
            d[m] = x
            m += 1
            gain += x
    return gain > 0.0 and sign_flip_p(d, m, seed) <= 1.0 - confidence


@njit(cache=True, inline="always")
def share_reward(rows, n_players, seat, rank_col, score_col):
    """The seat's share of the win (ties shared: every seat ranked 1), plus a thousandth of its
    score margin over the best other seat, clipped to +-100 (a tie-break between equal
    shares). rows[q, rank_col] and rows[q, score_col]: seat q's rank and final score."""
    winners, other = 0, -(1 << 30)
    for q in range(n_players):
        if rows[q, rank_col] == 1:
            winners += 1
        if q != seat:
            other = max(other, rows[q, score_col])
    share = 1.0 / winners if rows[seat, rank_col] == 1 else 0.0
    return share + 0.001 * max(-100.0, min(100.0, rows[seat, score_col] - other)) / 100.0


@njit(cache=True, inline="always")
def search_seed(s, keys, turn, k):
    """The search's own seed at the k-th search decision of turn `turn`: from the game's first
    stream key (a function of the run's seed and the game's index), never from the cards."""
    return np.int64(s[keys] & 0x7FFFFFFF) * (1 << 20) + np.int64(turn) * 1024 + k


@njit(cache=True, inline="always")
def canonical_shuffle_in(s, off, keys, counters, stream):
    """Sort the stack at s[off:], then shuffle it from the stream keyed at s[keys:]: the result
    depends on its cards, never on their order. (An insertion sort: a deck is short, and
    numba's generic sort doubles the compile.)"""
    for i in range(off + 2, off + 1 + s[off]):
        v = s[i]
        j = i
        while j > off + 1 and s[j - 1] > v:
            s[j] = s[j - 1]
            j -= 1
        s[j] = v
    shuffle_in(s, off, keys, counters, stream)
