"""The learned player (docs/learned.md): a linear option scorer distilled from the search player,
over a base heuristic (`games.abyss.engine.policies.learned`).

Its weights are data: a file per player count (`learned_<n>p.npz` next to this module, made by
`abyss-mc learn`), or a user's (`learned:weights=FILE`). The vector the kernel reads is the base
strategy's (the file names it), then the weights, one row per decision it scores. Restricted
play works on it as on the heuristics: its forbid_* slots are its own.
"""

from __future__ import annotations

from pathlib import Path

from games.abyss.engine import policy_params as P
from games.abyss.strategies.baseline import CompiledPolicy, GreedyPolicy
from strategies.learned import learned_policy

DEFAULT_PLAYERS = 4

# The decisions the learned player scores (policy_params.LEARNED_DECISIONS), by rulebook name.
ACTION, PLOT, POWER, BUY, TAKE_ALLY, FIGHT_MONSTER = 2, 0, 1, 3, 4, 5
RECRUIT_LORD, COURT_LORD, PAY_ALLY, LOCATION_SOURCE = 8, 18, 9, 12
MONSTER_CHOICE, ATTACK_AGAIN = 30, 34
#: Each heuristic parameter -> the scored decisions it steers (read from
#: `games.abyss.engine.policies`: `heuristic`, `greedy`, `greedy_leviathan`). A Lord's worth
#: (`lord_score`: Keys, guild) decides recruiting, the Court, whether to recruit at all and the
#: Slaver; `plot_pearls` steers the Slaver only before plotting, a decision the weights never score.
STEERS = {
    "buy_min": (BUY,),
    "take_min": (TAKE_ALLY,),
    "take_slot": (TAKE_ALLY,),
    "fight_threat": (FIGHT_MONSTER,),
    "council_min": (ACTION,),
    "pearl_shortfall": (PAY_ALLY,),
    "fight_p": (MONSTER_CHOICE, ATTACK_AGAIN),
    "fight_risk": (MONSTER_CHOICE,),
    "recruit_min": (ACTION, POWER),
    "key_weight": (RECRUIT_LORD, COURT_LORD, ACTION, POWER),
    "guild": (RECRUIT_LORD, COURT_LORD, ACTION, POWER),
    "guild_bonus": (RECRUIT_LORD, COURT_LORD, ACTION, POWER),
    "plot_pearls": (PLOT,),
    "explore_risk": (ACTION, MONSTER_CHOICE),
    "location_min": (LOCATION_SOURCE,),
}


def builtin_weights(n_players: int = DEFAULT_PLAYERS) -> Path:
    return LearnedPolicy.builtin(n_players)


LearnedPolicy = learned_policy(
    __name__, CompiledPolicy, GreedyPolicy, ("forbid_lord", "forbid_location", "forbid_fight"),
    kind=P.LEARNED, slots=P, default_players=DEFAULT_PLAYERS, steers=STEERS)
