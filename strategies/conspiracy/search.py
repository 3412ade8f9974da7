"""The search player for Abyss: Conspiracy (docs/search.md): determinized flat Monte Carlo on the
fast path, as Abyss's.

At each of its decisions with more than one option, the driver (`sim.conspiracy.kernel_search`)
replays the turn from its start in a copy of the game, samples what no player can see
(`kernel.determinize`: the Lord and Location decks in a canonical order, reshuffled), plays each
option and the game to its end with `rollout_policy` in every seat, and keeps the option that
UCB1 visited most. This class holds the documented parameters and the vector the kernel reads.

The reference engine plays the same games: it tells the policy of every turn's start
(`turn_starts`: the state encoded, as the fast path copies it) and `choose` runs the same compiled
`search_decision` from there, with the turn's search decisions so far as its script.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.conspiracy import policies as P
from sim.conspiracy import state as S
from sim.core.rng import N_STREAMS
from strategies.conspiracy import CompiledPolicy
from strategies.registry import StrategyError, param


def _preset_names() -> tuple[str, ...]:
    names = []
    for f in ("presets.toml", "tuned.toml"):
        with open(Path(__file__).with_name(f), "rb") as fh:
            names += [k for k, v in tomllib.load(fh).items() if isinstance(v, dict)]
    return ("random", "heuristic", *names)


#: What the rollouts may play: the built-in policies and presets (hand-written and tuned).
ROLLOUT_POLICIES = _preset_names()


@dataclass
class SearchPolicy(CompiledPolicy):
    """Looks ahead: every option of every decision valued by rollouts to the end of the game."""

    name: str = "search"
    rollouts: int = param(
        64,
        "Rollouts per decision (the budget), shared among the options by UCB1; every option "
        "gets at least one.",
        "values the options more exactly and plays slower (docs/search.md).",
        low=1,
        high=100_000,
        unit="rollouts",
        tune=False,
    )
    exploration: float = param(
        0.7,
        "UCB1's exploration constant: the next rollout goes to the option with the highest "
        "mean reward + exploration x sqrt(ln rollouts / the option's rollouts).",
        "spreads the rollouts more evenly over the options; 0: always the best so far.",
        low=0.0,
        high=5.0,
        unit="reward",
        tune=False,
    )
    determinizations: int = param(
        0,
        "Samples of the face-down decks cycled: the j-th rollout of every option plays sample "
        "j modulo this (common random numbers between the options). 0: a new sample for every "
        "rollout.",
        "compares the options on fewer deals, each seen by several rollouts.",
        low=0,
        high=100_000,
        unit="samples",
        tune=False,
    )
    rollout_policy: str = param(
        "key_hunter_tuned_2p",
        "The strategy every seat plays in the rollouts (a built-in policy or preset): the "
        "search's model of every player, itself included, after the decision.",
        "plays the rollouts with another model of every player (docs/search.md).",
        choices=ROLLOUT_POLICIES,
        unit="built-in policies and presets",
        tune=False,
    )
    kind = P.SEARCH
    #: it looks ahead (slow): not screened into `tune`'s default field
    LOOKS_AHEAD = True

    def params(self) -> np.ndarray:
        from strategies.conspiracy import REGISTRY

        vec = np.zeros(S.N_PARAMS, dtype=np.int32)
        vec[P.S_ROLLOUTS] = self.rollouts
        vec[P.S_EXPLORATION] = round(self.exploration * 1000)
        vec[P.S_DETERMINIZATIONS] = self.determinizations
        rollout = REGISTRY.make_policy(self.rollout_policy)
        vec[P.ROLLOUT_KIND] = rollout.kind
        vec[P.ROLLOUT_PARAMS : P.ROLLOUT_PARAMS + S.N_SLOTS] = rollout.params()[: S.N_SLOTS]
        return vec

    # ------------------------------------------------------------- the reference engine
    def turn_starts(self, game, seat: int) -> None:
        """The reference engine's turn boundary: keep the start of this seat's turn as the fast
        path's driver copies it (state, card tables, every seat's strategy, the streams)."""
        if game.policies[seat] is self:
            self.keep_turn_start(game, seat)

    def keep_turn_start(self, game, seat: int) -> None:
        """The start of `seat`'s turn, this policy searching for it."""
        start = np.zeros(S.SEARCH_BEGIN, dtype=np.int32)
        start[: S.TABLE_END] = S.cached_template(game.t)[: S.TABLE_END]
        start[: S.STATE_SIZE] = S.encode(game)[0]
        for q, policy in enumerate(game.policies):
            policy = self if q == seat else policy
            if hasattr(policy, "kind"):  # the built-in strategies (a test's scripts: none)
                at = S.POLICY_PARAMS + q * S.N_PARAMS
                start[S.POLICY_KIND + q] = policy.kind
                start[at : at + S.N_PARAMS] = _params(policy)
        rng = game.rng  # uint64 keys and int64 counters, as int32 halves (the kernel's)
        start[S.RNG_KEYS : S.RNG_KEYS + 2 * N_STREAMS] = rng.keys.astype(np.uint64).view(np.int32)
        counters = rng.counters.astype(np.int64).view(np.int32)
        start[S.RNG_COUNTERS : S.RNG_COUNTERS + 2 * N_STREAMS] = counters
        game.search_turn = (seat, start, [])

    def choose(self, game, seat: int, decision: int, options: list[int]) -> int:
        """The compiled search's choice, from the turn's start and its search decisions so far
        (the same rollouts as the fast path's)."""
        from sim.conspiracy import kernel as KN
        from sim.conspiracy.kernel_search import search_decision

        turn_seat, start, script = getattr(game, "search_turn", (-1, None, None))
        if turn_seat != seat:
            raise StrategyError(
                "the search player decides from its turn's start, which this engine does not "
                "report (sim.conspiracy.rules.Game does: turn_starts)"
            )
        s = np.zeros(S.WORKSPACE_BASE, dtype=np.int32)
        s[: S.SEARCH_BEGIN] = start
        s[S.TURN] = game.turn
        s[S.SCRIPT] = len(script)
        s[S.SCRIPT + 1 : S.SCRIPT + 1 + len(script)] = script
        n = len(options)
        s[S.SEARCH_SEAT], s[S.SEARCH_DECISION], s[S.SEARCH_N] = seat, decision, n
        s[S.SEARCH_OPTS : S.SEARCH_OPTS + n] = options
        rows = np.zeros((S.MAX_PLAYERS, KN.N_SEAT_FIELDS), dtype=np.int32)
        visits, total = np.zeros(n, np.int64), np.zeros(n)
        option = int(search_decision(s, start, s.copy(), rows, np.int32(seat), visits, total))
        script.append(option)
        return option


def _params(policy) -> np.ndarray:
    params = getattr(policy, "_params", None)
    if params is None:
        params = policy._params = policy.params()
    return params
