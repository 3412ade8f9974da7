"""The compiled policies' strategy kinds and parameter slots (`games.abyss.engine.policies`), as
plain
integers: the strategies (`games.abyss.strategies`) describe and check themselves without compiling
the policies, which compile when `games.abyss.engine.policies` is imported."""

from __future__ import annotations

# strategy kinds (index into `KINDS` of games.abyss.strategies)
RANDOM = 0
GREEDY = 1
HEURISTIC = 2
SEARCH = 3  # the search player (engine.kernel.search): the kernel's driver decides, not `choose`
LEARNED = 4  # the learned player: a linear option scorer over its base heuristic (policies.learned)

# The learned player's vector: its base heuristic's slots (below L_WEIGHTS, the meanings below),
# then one row of N_FEATURES fixed-point weights (LEARNED_SCALE per unit) for each decision it
# scores (policies.LEARNED_DECISIONS, N_LEARNED of them). The features of an option
# (policies.option_features), in order: whether the base heuristic picks it and greedy's key of
# it; the seat's state features in the block of the option's category (N_CATEGORIES blocks); then
# the Ally offered at buying or taking one (N_OFFER). A weights file names its features
# (strategies.learned), so one made before features were added plays as it was made.
N_LEARNED = 16
N_STATE = 9
N_CATEGORIES = 3
N_OFFER = 3
N_FEATURES = 2 + N_CATEGORIES * N_STATE + N_OFFER
LEARNED_SCALE = 1 << 12
L_WEIGHTS = 18
N_SLOTS = L_WEIGHTS + N_LEARNED * N_FEATURES  # parameters of a strategy (int32)
#: the decisions it scores, one weight row each, in order (the codes of policies.D_*): ACTION,
#: PLOT, POWER, BUY, TAKE_ALLY, FIGHT_MONSTER, THREAT_REWARD, COUNCIL_STACK, RECRUIT_LORD,
#: COURT_LORD, PAY_ALLY, LOCATION_SOURCE, LOCATION_KEEP, MONSTER_CHOICE, LEVIATHAN_TARGET,
#: ATTACK_AGAIN; at any other decision it plays its base heuristic
LEARNED_DECISIONS = (2, 0, 1, 3, 4, 5, 6, 7, 8, 18, 9, 12, 13, 30, 31, 34)
#: the seat's state features (policies.state_features) and an option's features, in order
STATE_NAMES = ("bias", "round", "pearls", "hand", "lords", "threat", "arrival_risk",
               "opponents_lords", "opponents_pearls")
OFFER_NAMES = ("offered_value", "offered_price", "track_cards")
FEATURE_NAMES = (
    ("heuristic_pick", "greedy_key")
    + tuple(f"{name}@{c}" for c in range(N_CATEGORIES) for name in STATE_NAMES)
    + OFFER_NAMES
)
assert len(LEARNED_DECISIONS) == N_LEARNED and len(FEATURE_NAMES) == N_FEATURES
# A seat's vector: its strategy's N_SLOTS, then, for the search player, its rollout policy's kind
# and N_SLOTS (every seat plays that policy in the search's rollouts).
ROLLOUT_KIND = N_SLOTS
ROLLOUT_PARAMS = N_SLOTS + 1
N_PARAMS = 2 * N_SLOTS + 1
# the search player's own slots (`sim.core.policy.S_*`)
from sim.core.policy import (  # noqa: E402, F401
               S_CONFIDENCE,
               S_DETERMINIZATIONS,
               S_EXPLORATION,
               S_OPPONENTS,
               S_ROLLOUTS,
)

# greedy parameter vector
G_BUY_MIN, G_TAKE_MIN, G_TAKE_SLOT, G_FIGHT_THREAT = 0, 1, 2, 3
G_COUNCIL_MIN, G_PEARL_SHORTFALL, G_FIGHT_P = 4, 5, 6
G_FIGHT_RISK = 14  # after the heuristic's slots (see baseline.PARAM_SLOTS)
# Restricted play (`abyss-mc restrict`): a Lord never recruited, a Location never taken, unless
# every choice is forbidden (-1: none); greedy's and the heuristic's, after the heuristic's slots.
G_FORBID_LORD, G_FORBID_LOCATION = 15, 16
# A rules question of restricted play: never fight a Leviathan (1), as if the rule were gone.
G_FORBID_FIGHT = 17
# The parametrised heuristic behind the named presets (games/abyss/strategies/presets.toml). Slots
# 0-6 are greedy's (same meaning); the rest steer which Lords it wants, when it recruits, plots,
# requests support, takes Locations, and how much Leviathan risk it accepts when exploring.
H_RECRUIT_MIN, H_KEY_WEIGHT, H_GUILD, H_GUILD_BONUS = 7, 8, 9, 10
H_PLOT_PEARLS, H_EXPLORE_RISK, H_LOCATION_MIN = 11, 12, 13
NO_GUILD = -1
