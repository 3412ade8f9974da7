"""The Leviathan expansion on the fast path: the Border and its arrivals, the attacks, fights and
kills, the Leviathan Monster tokens, Martial Law and the expansion's Lord powers (the reference:
`games.abyss.engine.rules.leviathan`)."""

from __future__ import annotations

from games.abyss.engine import policies as P
from games.abyss.engine import state as S
from games.abyss.engine.kernel import base as B
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.kernel.fork import fork_reseed, record_fork, switch_rule
from sim.core.jit import njit, njit_ints


@njit(cache=True)
def deal_crabs(s):
    """The plain Crab 1s by (expansion, id), one into each player's hand, in seat order; their
    number (the base game's setup keeps them out of the exploration deck)."""
    n = 0
    for expansion in range(2):
        for a in range(s[T.N_ALLIES]):
            if (
                s[T.ALLY_RACE + a] == K.RACE_CRAB
                and s[T.ALLY_VALUE + a] == 1
                and s[T.ALLY_EFFECT + a] == K.FX_NONE
                and s[T.ALLY_EXPANSION + a] == expansion
                and n < s[S.N_PLAYERS]
            ):
                K.push(s, K.pbase(n) + S.P_HAND, a)
                n += 1
    return n


@njit(cache=True)
def setup_leviathan(s):
    for i in range(s[T.N_LEVIATHANS]):
        K.push(s, S.LEV_DECK, i)
    B.shuffle_stack(s, S.LEV_DECK, K.ST_LEV_DECK)
    for i in range(s[T.N_LEV_TOKENS]):
        K.push(s, S.LEV_TOKENS, i)
    B.shuffle_stack(s, S.LEV_TOKENS, K.ST_LEV_TOKENS)
    s[S.SCOURGE] = -1
    add_leviathan(s, -1)


@njit_ints
def leviathan_attack(s, seat, leviathan):
    b = K.pbase(seat)
    kind = s[T.LEV_PENALTY + leviathan]
    n = s[T.LEV_PENALTY_N + leviathan]
    s[S.N_LEV_ATTACKS] += 1
    if kind == K.PEN_WOUNDS:
        s[b + S.P_WOUNDS] += n
    elif kind == K.PEN_PEARLS:
        B.pay_treasury(s, seat, n)
    elif kind == K.PEN_ALLIES:
        hand = b + S.P_HAND
        if s[hand] <= n:
            while s[hand] > 0:
                B.discard_ally_from_hand(s, seat, s[hand + 1])
        else:
            for _ in range(n):
                B.choose_discard(s, seat)
    else:
        for _ in range(n):
            m = B.free_lords_options(s, seat, -1)
            if m == 0:
                break
            B.discard_lord(s, seat, B.choose(s, seat, P.D_LOSE_LORD, m))


@njit_ints
def add_leviathan(s, seat):
    """A new Leviathan lands on the zone of a 2d6 roll; a resident attacks `seat` (-1: nobody)."""
    if s[S.LEV_DECK] == 0:
        return
    new = K.pop(s, S.LEV_DECK)
    d1 = B.die(s)
    d2 = B.die(s)
    zone = s[T.ZONE_OF_SUM + d1 + d2]
    resident = s[S.BORDER + zone]
    if resident >= 0:
        if seat >= 0:
            leviathan_attack(s, seat, resident)
        K.push(s, S.LEV_DISCARD, resident)
    s[S.BORDER + zone] = new
    s[S.LIFE + zone] = 0


@njit(cache=True)
def kill(s, seat, zone):
    leviathan = s[S.BORDER + zone]
    s[S.BORDER + zone] = -1
    killed = K.pbase(seat) + S.P_KILLED
    K.push(s, killed, leviathan)
    s[S.N_KILLS] += 1
    holder = s[S.SCOURGE]
    if holder < 0 or (holder != seat and s[killed] >= s[K.pbase(holder) + S.P_KILLED]):
        s[S.SCOURGE] = seat
    if K.border_count(s) == 0:
        add_leviathan(s, -1)


@njit(cache=True)
def reveal_token(s, seat, index):
    token = K.pop_at(s, K.pbase(seat) + S.P_HELD, index)
    K.push(s, S.LEV_TOKEN_DISCARD, token)
    kind = s[T.LEV_TOKEN_KIND + token]
    amount = s[T.LEV_TOKEN_AMOUNT + token]
    if kind == K.TOK_PEARLS:
        B.gain_pearls(s, seat, amount)
    elif kind == K.TOK_KEY:
        B.gain_keys(s, seat, amount)
    else:
        for _ in range(amount):
            n = B.council_options(s)
            if n > 0:
                B.take_council_stack(s, seat, B.choose(s, seat, P.D_COUNCIL_STACK, n))


@njit(cache=True)
def take_reward_token(s, seat):
    n = 0
    if s[S.MONSTER_TOKENS] > 0:
        s[W.OPT + n] = 0
        n += 1
    if s[S.LEV_TOKENS] > 0:
        s[W.OPT + n] = 1
        n += 1
    if n == 0:
        return
    if B.choose(s, seat, P.D_TOKEN_DECK, n) == 0:
        B.draw_monster_token(s, seat)
        return
    hold_token(s, seat, K.pop(s, S.LEV_TOKENS))


@njit(cache=True)
def hold_token(s, seat, token):
    """A Leviathan Monster token taken (a reward, or stolen by the Hunter): revealed now or
    held."""
    held = K.pbase(seat) + S.P_HELD
    K.push(s, held, token)
    s[W.OPT + 0] = 0
    s[W.OPT + 1] = s[held]
    if B.choose(s, seat, P.D_REVEAL_TOKEN, 2) != 0:
        reveal_token(s, seat, s[held] - 1)


@njit_ints
def remove_life(s, seat, zone, n):
    leviathan = s[S.BORDER + zone]
    for _ in range(n):
        space = s[S.LIFE + zone]
        n_tokens = s[T.LEV_REWARD + leviathan * T.MAX_SPACES + space]
        if K.has_power(s, seat, K.PW_ALTRUIST):
            n_tokens += 1
        if K.has_power(s, seat, K.PW_TAXIDERMIST):
            B.gain_pearls(s, seat, 2)
        for _ in range(n_tokens):
            take_reward_token(s, seat)
        s[S.LIFE + zone] = space + 1
        if s[S.LIFE + zone] >= s[T.LEV_N_SPACES + leviathan]:
            kill(s, seat, zone)
            return True
    return False


@njit(cache=True)
def leviathan_monster(s, seat, card):
    """A Monster revealed while exploring; True when the exploration ends (a fight)."""
    K.remove(s, S.TRACK, card)
    K.push(s, S.EXP_DISCARD, card)
    reason = s[S.END_REASON]
    if reason == S.END_LEVIATHAN_DECK or reason == S.END_TOKENS:
        return False
    s[W.OPT + 0] = P.M_CONTINUE
    n = 1
    if K.any_fightable(s, seat):
        s[W.OPT + n] = P.M_FIGHT
        n += 1
    if K.has_power(s, seat, K.PW_COWARD):
        s[W.OPT + n] = P.M_IGNORE
        n += 1
    choice = B.choose(s, seat, P.D_MONSTER_CHOICE, n)
    if n > 1 and s[W.OPT + 1] == P.M_FIGHT:  # a fight-or-explore decision point
        s[W.FORK_COUNT] += 1
        if s[W.FORK_COUNT] == s[W.FORK_AT]:  # a forked rollout (games.abyss.engine.fork)
            record_fork(s, seat, choice)
            if s[W.FORK_REKEY] == 1:
                fork_reseed(s)
            if s[W.FORK_N_SET] > 0:
                switch_rule(s, seat)
                choice = B.choose(s, seat, P.D_MONSTER_CHOICE, n)
            elif s[W.FORK_CHOICE] > 0:
                choice = s[W.FORK_CHOICE] - 1
    if choice == P.M_IGNORE:
        return False
    if choice == P.M_CONTINUE:
        s[S.N_CONTINUES] += 1
        add_leviathan(s, seat)
        return False
    s[S.N_FIGHTS] += 1
    fight(s, seat)
    return True


@njit(cache=True)
def fightable_options(s, seat):
    n = 0
    for z in range(s[T.N_ZONES]):
        if K.fightable(s, seat, z):
            s[W.OPT + n] = z
            n += 1
    return n


@njit(cache=True)
def fight(s, seat):
    max_kills = 2 if K.has_power(s, seat, K.PW_INTREPID) else 1
    kills = 0
    while True:
        n = fightable_options(s, seat)
        if n == 0:
            return
        zone = B.choose(s, seat, P.D_LEVIATHAN_TARGET, n)
        if not fight_one(s, seat, zone):
            return
        kills += 1
        if kills >= max_kills or not K.any_fightable(s, seat):
            return
        if B.choose_01(s, seat, P.D_FIGHT_ANOTHER) == 0:
            return


@njit(cache=True)
def fight_one(s, seat, zone):
    leviathan = s[S.BORDER + zone]
    s[S.FIGHT_ZONE] = zone
    killed = False
    while True:
        n = K.attack_allies(s, seat, leviathan, W.OPT, 0)
        ally = B.choose(s, seat, P.D_ATTACK_ALLY, n)
        if attack(s, seat, zone, ally):
            killed = True
            break
        if not K.has_attack_ally(s, seat, leviathan):
            break
        if B.choose_01(s, seat, P.D_ATTACK_AGAIN) == 0:
            break
    s[S.FIGHT_ZONE] = -1
    return killed


@njit(cache=True)
def attack(s, seat, zone, ally):
    b = K.pbase(seat)
    leviathan = s[S.BORDER + zone]
    K.remove(s, b + S.P_HAND, ally)
    K.push(s, S.EXP_DISCARD, ally)
    effect = s[T.ALLY_EFFECT + ally]
    roll = B.die(s)
    if effect == K.FX_TWO_DICE:
        roll = max(roll, B.die(s))
    power = roll + K.value(s, ally)
    if effect == K.FX_ADD_PEARLS and s[b + S.P_PEARLS] > 0:
        s[S.PENDING_ZONE] = zone
        s[S.PENDING_POWER] = power
        n = s[b + S.P_PEARLS] + 1
        for i in range(n):
            s[W.OPT + i] = i
        added = B.choose(s, seat, P.D_ADD_PEARLS, n)
        B.pay_treasury(s, seat, added)
        power += added
    removed = K.life_points_removed(s, leviathan, s[S.LIFE + zone], power)
    if removed == 0:
        B.gain_pearls(s, seat, 1)
        return False
    return remove_life(s, seat, zone, removed)


@njit(cache=True)
def reveal_held_tokens(s, seat):
    held = K.pbase(seat) + S.P_HELD
    while s[held] > 0:
        for i in range(s[held] + 1):
            s[W.OPT + i] = i
        k = B.choose(s, seat, P.D_REVEAL_TOKEN, s[held] + 1)
        if k == 0:
            return
        reveal_token(s, seat, k - 1)


@njit(cache=True)
def martial_law(s, seat):
    b = K.pbase(seat)
    limit = s[T.HAND_LIMIT]
    paid = 0
    while s[b + S.P_HAND] > limit + paid:
        s[W.OPT + 0] = 0
        s[W.OPT + 1] = 1
        n = 2 if s[b + S.P_PEARLS] > 0 else 1
        if B.choose(s, seat, P.D_MARTIAL_LAW, n) == 1:
            B.pay_treasury(s, seat, 1)
            paid += 1
        else:
            B.choose_discard(s, seat)


@njit(cache=True)
def leviathan_end_check(s):
    if s[T.LEV_END_TRIGGER] == 0:
        return
    if s[S.LEV_DECK] == 0:
        B.trigger_end(s, S.END_LEVIATHAN_DECK)
    elif s[S.MONSTER_TOKENS] == 0 or s[S.LEV_TOKENS] == 0:
        B.trigger_end(s, S.END_TOKENS)


@njit(cache=True)
def leviathan_lord_power(s, seat, power):
    if power == K.PW_BORDER_GUARD:
        n = B.military_targets(s, seat, W.OPT)
        if n > 0:
            add_leviathan(s, B.choose(s, seat, P.D_TARGET_OPPONENT, n))
    elif power == K.PW_ARMS_DEALER:
        B.gain_pearls(s, seat, K.border_count(s))
    elif power == K.PW_SORCERER:
        if K.any_fightable(s, seat) and B.choose_01(s, seat, P.D_USE_POWER) == 1:
            s[S.N_FIGHTS] += 1
            fight(s, seat)
    elif power == K.PW_REBEL:
        n = 0
        for z in range(s[T.N_ZONES]):
            if s[S.BORDER + z] >= 0:
                s[W.OPT + n] = z
                n += 1
        if n > 0:
            remove_life(s, seat, B.choose(s, seat, P.D_LEVIATHAN_TARGET, n), 1)
    elif power == K.PW_BREEDER:
        n = 0
        for z in range(s[T.N_ZONES]):
            if s[S.BORDER + z] < 0:
                s[W.OPT + n] = z
                n += 1
        if n > 0 and s[S.LEV_DECK] > 0:
            zone = B.choose(s, seat, P.D_BORDER_ZONE, n)
            s[S.BORDER + zone] = K.pop(s, S.LEV_DECK)
            s[S.LIFE + zone] = 0


@njit(cache=True)
def leviathan_phase(s, phase, seat, x):
    """The expansion's phase `phase` (`kernel.base.LV_*`) for `seat`, called apart by the base
    game's rules (`kernel.base.leviathan`): at setup, the plain Crab 1s into the players' hands
    (their number returned), then the Border; a turn's held tokens revealed, Martial Law and
    the end check; the Monster revealed (x: the card; 1 when the exploration ends); a Lord's
    power (x); a Leviathan Monster token taken (x)."""
    if phase == B.LV_CRABS:
        return deal_crabs(s)
    if phase == B.LV_SETUP:
        setup_leviathan(s)
    elif phase == B.LV_REVEAL_HELD:
        reveal_held_tokens(s, seat)
    elif phase == B.LV_END_OF_TURN:
        martial_law(s, seat)
        leviathan_end_check(s)
    elif phase == B.LV_MONSTER:
        return 1 if leviathan_monster(s, seat, x) else 0
    elif phase == B.LV_LORD_POWER:
        leviathan_lord_power(s, seat, x)
    elif phase == B.LV_HOLD_TOKEN:
        hold_token(s, seat, x)
    return 0
