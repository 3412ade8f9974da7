"""A reference `Game` rebuilt from the state vector (`games.abyss.engine.state`): the bridge back
from the
fast path, so that a game stopped between two turns on either engine plays on identically on the
reference engine (the parity tests, the search's checks)."""

from __future__ import annotations

import numpy as np

from games.abyss.engine.state import (
    ACTIVE,
    BORDER,
    COUNCIL,
    COUNCIL_STRIDE,
    COURT,
    END_REASON,
    END_REASONS,
    EXP_DECK,
    EXP_DISCARD,
    EXTRA_TURN,
    FIGHT_ZONE,
    FINAL_ROUND,
    FINAL_TURNS,
    KEY_PILE,
    LEV_DECK,
    LEV_DISCARD,
    LEV_TOKEN_DISCARD,
    LEV_TOKENS,
    LEVIATHAN,
    LIFE,
    LOC_AVAILABLE,
    LOC_DECK,
    LOC_LORDS,
    LOC_LORDS_STRIDE,
    LORD_DECK,
    LORD_DISABLED,
    LORD_DISCARD,
    LORD_UNDER,
    MONSTER_TOKENS,
    N_CONTINUES,
    N_FIGHTS,
    N_KILLS,
    N_LEV_ATTACKS,
    N_PLAYERS,
    NEXT_SEAT,
    OVER,
    P_AFFILIATED,
    P_BOUGHT,
    P_HAND,
    P_HELD,
    P_KEYS,
    P_KILLED,
    P_LOCATIONS,
    P_LORDS,
    P_PEARLS,
    P_RECRUITED,
    P_STRIDE,
    P_TOKENS,
    P_USED_POWERS,
    P_WOUNDS,
    PEARLS_FROM,
    PEARLS_TO,
    PENDING_COST,
    PENDING_POWER,
    PENDING_REWARD_SPACE,
    PENDING_USED,
    PENDING_ZONE,
    PLAYERS,
    SCOURGE,
    THREAT,
    TRACK,
    TURN,
    stack_items,
)


def decode(s: np.ndarray, counters: np.ndarray, tables, policies, seed: int, game: int):
    """A reference `Game` in the state `s` (with RNG `counters`), ready to `play()` on."""
    from games.abyss.engine.cards.constants import AbyssRng
    from games.abyss.engine.rules.base import ONCE_PER_TURN, Player
    from games.abyss.engine.rules.game import Game

    g = Game.__new__(Game)
    n = int(s[N_PLAYERS])
    g.start(tables, policies, seed, game, False, AbyssRng(seed, game))
    g.n_players = n
    g.rng.counters[:] = counters
    g.rules, g.leviathan = tables.rules, bool(s[LEVIATHAN])
    g.turn, g.active = int(s[TURN]), int(s[ACTIVE])
    reason = END_REASONS[int(s[END_REASON])]
    g.end_reason = None if reason == "none" else reason
    g.over, g.extra_turn, g.threat = bool(s[OVER]), bool(s[EXTRA_TURN]), int(s[THREAT])
    g.scores, g.ranks = [], []
    g.n_fights, g.n_continues = int(s[N_FIGHTS]), int(s[N_CONTINUES])
    g.n_leviathan_attacks, g.n_kills = int(s[N_LEV_ATTACKS]), int(s[N_KILLS])
    g.pearls_from_treasury, g.pearls_to_treasury = int(s[PEARLS_FROM]), int(s[PEARLS_TO])
    g.next_seat = int(s[NEXT_SEAT])
    g.final_turns = stack_items(s, FINAL_TURNS) if s[FINAL_ROUND] else None
    g.pending_reward_space = int(s[PENDING_REWARD_SPACE])
    g.pending_payment = (int(s[PENDING_COST]), stack_items(s, PENDING_USED))
    g.pending_attack = (int(s[PENDING_ZONE]), int(s[PENDING_POWER]))
    g.fight_zone = int(s[FIGHT_ZONE])
    g.exploration_deck = stack_items(s, EXP_DECK)
    g.exploration_discard = stack_items(s, EXP_DISCARD)
    g.track = stack_items(s, TRACK)
    g.council = [stack_items(s, COUNCIL + r * COUNCIL_STRIDE) for r in range(5)]
    g.lord_deck, g.court = stack_items(s, LORD_DECK), stack_items(s, COURT)
    g.lord_discard = stack_items(s, LORD_DISCARD)
    g.location_deck, g.locations_available = stack_items(s, LOC_DECK), stack_items(s, LOC_AVAILABLE)
    g.monster_tokens = stack_items(s, MONSTER_TOKENS)
    g.key_pile = int(s[KEY_PILE])
    g.players = []
    for seat in range(n):
        base = PLAYERS + seat * P_STRIDE
        lords = stack_items(s, base + P_LORDS)
        locations = stack_items(s, base + P_LOCATIONS)
        bits = int(s[base + P_USED_POWERS])
        p = Player(seat=seat, pearls=int(s[base + P_PEARLS]), keys=int(s[base + P_KEYS]))
        p.hand, p.affiliated = stack_items(s, base + P_HAND), stack_items(s, base + P_AFFILIATED)
        p.lords, p.locations, p.tokens = lords, locations, stack_items(s, base + P_TOKENS)
        p.under = {lord for lord in lords if s[LORD_UNDER + lord]}
        p.disabled = {lord for lord in lords if s[LORD_DISABLED + lord]}
        p.location_lords = {
            loc: stack_items(s, LOC_LORDS + loc * LOC_LORDS_STRIDE) for loc in locations
        }
        p.wounds, p.bought_this_turn = int(s[base + P_WOUNDS]), bool(s[base + P_BOUGHT])
        p.killed, p.held_tokens = stack_items(s, base + P_KILLED), stack_items(s, base + P_HELD)
        p.recruited = stack_items(s, base + P_RECRUITED)
        p.used_powers = {int(pw) for k, pw in enumerate(ONCE_PER_TURN) if bits >> k & 1}
        g.players.append(p)
    if g.leviathan:
        zones = tables.n_border_zones
        g.border = [int(x) for x in s[BORDER : BORDER + zones]]
        g.life = [int(x) for x in s[LIFE : LIFE + zones]]
        g.leviathan_deck = stack_items(s, LEV_DECK)
        g.leviathan_discard = stack_items(s, LEV_DISCARD)
        g.leviathan_tokens = stack_items(s, LEV_TOKENS)
        g.leviathan_token_discard = stack_items(s, LEV_TOKEN_DISCARD)
        g.scourge = int(s[SCOURGE])
    return g
