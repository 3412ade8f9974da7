"""Conspiracy's learned player (docs/learned.md): a linear option scorer distilled from the search
player, over a base heuristic (`games.conspiracy.engine.policies.learned`). Its weights are data:
`learned_<n>p.npz` next to this module (made by `abyss-mc learn --game conspiracy`), or a user's
(`learned:weights=FILE`). Restricted play works on it as on the heuristic: its forbid_* slots are
its own.
"""

from __future__ import annotations

from games.conspiracy.engine import policies as P
from games.conspiracy.engine import state as S
from games.conspiracy.strategies.baseline import CompiledPolicy, HeuristicPolicy
from strategies.learned import learned_policy

#: Each heuristic parameter -> the scored decisions it steers (games.conspiracy.engine.policies): a
#: Lord's worth (`lord_value`) decides which Lord to keep and place and which pile to take; a
#: Pearl's also what a Location is worth. The swap grows the largest coalition, whatever the
#: weights.
_LORD = (P.D_SOURCE, P.D_KEEP, P.D_PLACE)
STEERS = {
    "ip_weight": _LORD,
    "coalition_weight": _LORD,
    "key_weight": _LORD,
    "master_weight": _LORD,
    "pearl_weight": (*_LORD, P.D_LOCATION_SOURCE, P.D_LOCATION_KEEP),
    "pile_min": (P.D_SOURCE,),
    "draw": (P.D_SOURCE,),
    "location_min": (P.D_LOCATION_SOURCE,),
}


class _Slots:
    L_WEIGHTS, N_SLOTS = S.L_WEIGHTS, S.N_SLOTS
    LEARNED_DECISIONS, FEATURE_NAMES = P.LEARNED_DECISIONS, P.FEATURE_NAMES


LearnedPolicy = learned_policy(
    __name__, CompiledPolicy, HeuristicPolicy, ("forbid_colour", "forbid_ip", "forbid_location"),
    kind=P.LEARNED, slots=_Slots, default_players=2, steers=STEERS)
