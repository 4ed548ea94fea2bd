"""TriATri: the round loop that asks the strategies (compiled).

The game's side of the one contract (simcore/play.py): its scratch ``State``, ``play_game`` on it
(rounds played by ``play_rounds``, or by its all-random build ``play_rounds_random``, compiled
into it), what a chunk's row and a logged game keep, a scripted position (``balance play``) and
the first deal; the entry points are the shared ones.  Chance comes from the game's DEAL stream
(``state.streams``) in the order
documented in simcore/games/triatri/reference.py; the strategy at seat s is handed
``seat_streams[s]``, its own PLAY stream (simcore/rng.py), never ``streams``.  When every seat
plays ``random``, play_game uses play_rounds' build without strategies (about three times as
fast; same draws, same games).
"""

from collections import namedtuple

import numpy as np

from simcore.bits import bit, has, ix
from simcore.games.triatri.rules import (
    C_DOUBLED, C_END, C_FAKE_WINS, C_FAKES, C_OWN_OFFERS, C_REDEALS, C_ROUNDS, C_SWAPS, C_TRICKS,
    CLASS_COLOURLESS, D_BIDS, D_HANDS, D_ROUND, D_START, DEAL_LOG_WIDTH, END_INSTANT, END_ROUNDS,
    FAKE, GOES_ON, HAND_SIZE, L_DOUBLED, L_GEM, L_HELD, L_PLAYS, L_ROUND, L_START, L_TRICK, L_VALUE,
    L_VICTIM, L_WINNER, LOG_WIDTH, MAX_PLAYERS, N_COUNTERS, NOT_PLAYED, R_DECK, R_GEMS, R_LATEST_WINS_THREE_WAY,
    R_PLAYERS, R_ROUNDS, R_WITHHELD,
    T_BID, T_GEM, T_GEMS, T_HELD, T_ORDER, T_PLAYED, T_ROUND, T_SEEN, T_START, T_SUPPLY, T_TRICK, T_VALUE,
    T_VOID, TABLE_WIDTH, card_facts, final_standing, game_end, gem_options, land, lay_card, lead_entry,
    legal_cards, resolve_bid, swap_untied, take_gem,
)
from simcore.registry import strategies_of
from simcore.jit import kernel
from simcore.play import FINISHED, STRATEGY_BROKE_RULES, UNFINISHED, SCRIPT_CURSOR, entry_points, scripted, withhold
from simcore.replays import UNWRITTEN  # a log cell not written
from simcore.rng import DEAL, N_STREAMS, PLAY, rotate_seats, seed_game, seed_seats, seed_streams, shuffle

strategy = globals().get("__strategies__") or strategies_of(__name__)  # the registry's players
choose_bid = strategy.choose_bid
choose_gem = strategy.choose_gem
choose_play = strategy.choose_play
random_pick = strategy.random_pick
RANDOM = strategy.RANDOM
# True in the random build (simcore/builds.py), where every seat is random: Numba then drops the
# play loop's branch for other players before it inlines play_game (a constant global condition)
RANDOM_ONLY = getattr(strategy, "RANDOM_ONLY", False)

# slots of the per-thread ``work`` array; slot 0 is the script cursor (simcore/play.py)
W_DEAL_CURSOR, W_BIDS = SCRIPT_CURSOR + 1, SCRIPT_CURSOR + 2
WORK_WIDTH = W_BIDS + MAX_PLAYERS
NO_SCRIPT = np.empty(0, dtype=np.int64)  # a run's games: no scripted decisions ...
NO_DEALS = np.empty((0, MAX_PLAYERS), dtype=np.int64)  # ... nor deals

# One game's scratch arrays, made once a thread (``new_state``) and played on game after game;
# ``facts``: card_facts of the deck in force; ``log`` (a row a trick) and ``deal_log`` (a row a
# deal) have rows only in a state made for logs.
State = namedtuple("State", "streams seat_streams table hands order counters scores shares work facts log deal_log")


@kernel(globals())
def new_state(given, logged):
    """A fresh state for the rules in force ``given`` (``logged``: with room for a whole game's log)."""
    rules, cards = given[0], given[1]
    rounds = rules[R_ROUNDS] if logged else 0
    return State(np.empty(N_STREAMS, dtype=np.uint64), np.empty((rules[R_PLAYERS], N_STREAMS), dtype=np.uint64),
                 np.zeros(TABLE_WIDTH, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.uint64),
                 np.empty(rules[R_DECK], dtype=np.int64), np.zeros(N_COUNTERS, dtype=np.int64),
                 np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.float64),
                 np.zeros(WORK_WIDTH, dtype=np.int64), card_facts(rules, cards),
                 np.full((rounds * (HAND_SIZE - 1), LOG_WIDTH), UNWRITTEN, dtype=np.int64),
                 np.full((8 * rounds, DEAL_LOG_WIDTH), UNWRITTEN, dtype=np.int64))


@kernel(globals(), inline="always")
def deal(state, rules, deal_script):
    """Six cards each: the next scripted deal, or a Fisher-Yates shuffle of ids 0..D-1 from DEAL
    (seat s gets positions 6s..6s+5)."""
    hands, streams, order, work = state.hands, state.streams, state.order, state.work
    n_players = rules[R_PLAYERS]
    if work[W_DEAL_CURSOR] < deal_script.shape[0]:
        for s in range(n_players):
            hands[s] = np.uint64(deal_script[work[W_DEAL_CURSOR], s])
        work[W_DEAL_CURSOR] += 1
        return
    n = rules[R_DECK]
    for i in range(n):
        order[i] = i
    shuffle(order, 0, n, streams, DEAL)
    for s in range(n_players):
        hand = np.uint64(0)
        for k in range(HAND_SIZE):
            hand |= bit(order[s * HAND_SIZE + k])
        hands[s] = hand
    rotate_seats(hands, n_players, streams)  # a duplicate deal's turn of the table (simcore/rng.py)


@kernel(globals(), inline="always")
def pick_in(seat_streams, seat, mask):
    """``random_pick`` for ``seat`` straight on its PLAY state in ``seat_streams`` (the
    all-random loop).  A load and a store per draw: the four states once kept in locals cost
    more, because LLVM chose among them with branches on the seat, which the CPU mispredicts
    (the seat a trick starts at is the last winner): 948k -> 1,005k games/s (BENCHMARKS.md)."""
    state, card = random_pick(seat_streams[ix(seat), PLAY], mask)
    seat_streams[ix(seat), PLAY] = state
    return card


def _play_rounds(state, given, strategies, params, scripts, first_round, limits):
    """Rounds from ``first_round`` until the game ends; returns (status, instant winner or -1).

    Scenarios pass ``scripts`` = (deals, then every decision in the order asked) and stop after
    ``limits`` = (rounds, tricks) (UNFINISHED); a run's games pass none.  The state's ``work``
    holds the script cursors and the parked bids (no allocation per game).

    ``strategies is None``: every seat plays ``random`` and nothing is scripted.  Numba compiles
    that case separately and drops the branches on ``strategies is None`` at compile time, so the
    all-random loop draws its picks directly from the deciding seat's PLAY state (``pick_in``),
    with no strategy dispatch, no legality checks (the draw is legal by construction) and none of
    the table slots that only strategies read; the draws are the same as ``random``'s (from
    ``seat_streams[seat]``)."""
    rules, cards, masks = given
    deal_script, script = scripts
    round_limit, trick_limit = limits
    seat_streams, table, hands, counters, work = state.seat_streams, state.table, state.hands, state.counters, \
        state.work
    facts, log, deal_log = state.facts, state.log, state.deal_log
    n_players = rules[R_PLAYERS]
    deck = rules[R_DECK]
    fakes = masks[FAKE]
    withheld = np.uint64(rules[R_WITHHELD])  # cards no seat plays to a trick while another is legal (`cards --cause`)
    latest_of_three = rules[R_LATEST_WINS_THREE_WAY]  # variant: three or more tied go to the latest (T5)
    work[SCRIPT_CURSOR] = 0
    work[W_DEAL_CURSOR] = 0
    deal_row = 0
    tricks_done = 0
    counters[C_END] = END_ROUNDS
    for rnd in range(first_round, rules[R_ROUNDS]):
        if rnd - first_round >= round_limit:
            return UNFINISHED, -1
        table[T_ROUND] = rnd
        counters[C_ROUNDS] += 1
        # スタートプレイヤーを決める: everyone bids at once; ties settle or force a redeal
        start = -1
        while start < 0:
            deal(state, rules, deal_script)
            if strategies is None:
                for s in range(n_players):
                    table[T_BID + s] = pick_in(seat_streams, s, hands[s])
            else:
                for s in range(n_players):
                    table[T_BID + s] = -1  # simultaneous: nobody sees another's bid
                    table[T_VOID + s] = 0  # a new hand: nothing shown yet
                for s in range(n_players):
                    card = scripted(script, work)
                    if card < 0:
                        card = choose_bid(strategies[s], params, s, hands[s], table, rules, cards, masks,
                                          seat_streams[s])
                    if card < 0 or card >= deck or not has(hands[s], card):
                        return STRATEGY_BROKE_RULES, -1
                    work[W_BIDS + s] = card  # parked until everyone has bid
                for s in range(n_players):
                    table[T_BID + s] = work[W_BIDS + s]
            start = resolve_bid(table, rules, cards)
            if deal_row < deal_log.shape[0]:
                deal_log[deal_row, D_ROUND] = rnd
                deal_log[deal_row, D_START] = start
                for s in range(n_players):
                    deal_log[deal_row, D_HANDS + s] = np.int64(hands[s])
                    deal_log[deal_row, D_BIDS + s] = table[T_BID + s]
            deal_row += 1
            if start < 0:
                counters[C_REDEALS] += 1
        seen = np.uint64(0)
        for s in range(n_players):
            hands[s] &= ~bit(table[T_BID + s])
            seen |= bit(table[T_BID + s])

        for trick in range(HAND_SIZE - 1):
            if tricks_done == trick_limit:
                return UNFINISHED, -1
            if strategies is not None:
                table[T_TRICK] = trick
                table[T_START] = start
                table[T_PLAYED] = 0
                table[T_SEEN] = np.int64(seen)
                table[T_GEM] = -1
            row = tricks_done if tricks_done < log.shape[0] else -1
            if strategies is not None or row >= 0:  # what strategies and the log read
                for s in range(n_players):
                    table[T_HELD + s] = NOT_PLAYED
                    table[T_VALUE + s] = 0
            # 宝石を選ぶ: a supply gem, or one of the start player's own
            options = gem_options(table, start)
            if strategies is None:
                option = pick_in(seat_streams, start, np.uint64(options))
            else:
                option = scripted(script, work)
                if option < 0:
                    option = choose_gem(strategies[start], params, start, options, hands[start], table, rules,
                                        cards, masks, seat_streams[start])
                if option < 0 or option > 5 or (options >> option) & 1 == 0:
                    return STRATEGY_BROKE_RULES, -1
                table[T_GEM] = option
            colour = option - 3 if option >= 3 else option
            counters[C_OWN_OFFERS] += option >= 3
            suit = masks[colour]
            fake_seat = np.uint64(0)
            # the leader so far (simcore/games/triatri/rules.py, "the play loop's own bookkeeping")
            best, tied, lasts = -1, 0, np.uint64(0)
            previous = CLASS_COLOURLESS  # the class of what the previous seat holds (doubling)
            # カードを出す: must follow the gem's colour; a fake may always be played
            for position in range(n_players):
                seat = start + position
                if seat >= n_players:
                    seat -= n_players
                hand = hands[ix(seat)]
                legal = withhold(legal_cards(hand, suit, fakes), withheld)
                if strategies is None:
                    card = pick_in(seat_streams, seat, legal)
                else:
                    card = scripted(script, work)
                    if card < 0:
                        card = choose_play(strategies[seat], params, seat, hand, legal, table, rules, cards, masks,
                                           seat_streams[seat])
                    if card < 0 or card >= deck or not has(legal, card):
                        return STRATEGY_BROKE_RULES, -1
                    table[T_ORDER + position] = seat
                fact = facts[ix(card)]
                # counted without branches (a random card's kind is unpredictable)
                is_fake = (fact & 3) == CLASS_COLOURLESS
                counters[C_FAKES] += is_fake
                fake_seat |= bit(seat) * np.uint64(is_fake)
                if strategies is not None:
                    if not is_fake and (fact & 3) != colour:  # did not follow: holds none of the colour
                        table[T_VOID + seat] |= np.int64(suit)
                cls, value, victim, doubled = lay_card(table, fact, seat, card, position, best, tied, lasts, previous,
                                                       strategies is not None or row >= 0, latest_of_three)
                best, tied, lasts = land(best, tied, lasts, seat, cls, value)
                tied -= swap_untied(victim, best)
                previous = cls
                counters[C_SWAPS] += victim >= 0
                counters[C_DOUBLED] += doubled
                hands[ix(seat)] = hand & ~bit(card)
                seen |= bit(card)
                if strategies is not None:
                    table[T_PLAYED] = position + 1
                    table[T_SEEN] = np.int64(seen)
                if row >= 0:
                    log[row, L_PLAYS + position] = card
                    log[row, L_VICTIM + position] = victim
                    log[row, L_DOUBLED + seat] = 1 if doubled else 0
            winner = lead_entry(tied, lasts, latest_of_three) & 15
            counters[C_FAKE_WINS] += has(fake_seat, winner)
            # 勝者が宝石を獲得する
            take_gem(table, option, start, winner)
            counters[C_TRICKS] += 1
            tricks_done += 1
            if row >= 0:
                log[row, L_ROUND] = rnd
                log[row, L_TRICK] = trick
                log[row, L_START] = start
                log[row, L_GEM] = option
                log[row, L_WINNER] = winner
                for s in range(MAX_PLAYERS):
                    log[row, L_HELD + s] = table[T_HELD + s] if s < n_players else -9
                    log[row, L_VALUE + s] = table[T_VALUE + s] if s < n_players else -9
            start = winner
            # ゲームの終了条件: two of every colour wins at once; an emptied supply colour ends it
            end = game_end(table, rules, option, winner)
            if end != GOES_ON:
                counters[C_END] = end
                return FINISHED, winner if end == END_INSTANT else -1
    return FINISHED, -1


play_rounds = kernel(globals(), refcounts=False)(_play_rounds)  # strategies and scenarios: one compiled function
# The all-random loop is compiled into its caller instead (play_game):
# each call of a compiled function takes and gives back a reference count for every array it is
# passed, seventeen here and six for each deal, and those cost a random game 40% of its time
# (BENCHMARKS.md, "Reference counts at every call").  Only this build is inlined: the strategies'
# loop compiled into the chunk loop too took TriATri's first compile from 38 s to 144 s (1695828).
play_rounds_random = kernel(globals(), inline="always")(_play_rounds)


@kernel(globals())
def all_random(strategies, n_players):
    """Every seat plays the built-in ``random``."""
    for s in range(n_players):
        if strategies[s] != RANDOM:
            return False
    return True


# Compiled into the entry points (the chunk loop calls it with no call of its own: passing a state
# of a dozen arrays, the game's inputs and the line-up costs more than a tenth of a random game),
# the all-random loop with it; the strategies' loop is a call (``play_rounds``)
@kernel(globals(), inline="always")
def play_game(state, run, index, given, lineup):
    """Game ``index`` of ``run`` = (seed, keys); returns its status (FINISHED or STRATEGY_BROKE_RULES)."""
    rules = given[0]
    strategies, params = lineup
    table = state.table
    seed_game(state.streams, state.seat_streams, run[0], run[1], index)
    for c in range(N_COUNTERS):
        state.counters[c] = 0
    for c in range(3):
        table[T_SUPPLY + c] = rules[R_GEMS]
        for s in range(MAX_PLAYERS):
            table[T_GEMS + 3 * s + c] = 0
    # int64, not literals: one play_rounds for this and play_position (a literal argument
    # compiles a version of its own)
    if RANDOM_ONLY or all_random(strategies, rules[R_PLAYERS]):  # the loop compiled without strategies
        status, instant = play_rounds_random(state, given, None, params, (NO_DEALS, NO_SCRIPT), np.int64(0),
                                             (np.int64(1 << 30), np.int64(-1)))
    else:
        status, instant = play_rounds(state, given, strategies, params, (NO_DEALS, NO_SCRIPT), np.int64(0),
                                      (np.int64(1 << 30), np.int64(-1)))
    final_standing(table, rules, instant, state.scores, state.shares)
    return status


@kernel(globals(), inline="always")
def pack_gems(table, seat):
    return table[T_GEMS + 3 * seat] | (table[T_GEMS + 3 * seat + 1] << 10) | (table[T_GEMS + 3 * seat + 2] << 20)


@kernel(globals(), inline="always")
def keep_row(state, given, outputs, g):
    """A played game's column ``g`` of a chunk (column-major outputs: each row is a Parquet
    column): scores, shares, counters, each seat's gems packed."""
    scores_out, shares_out, counters_out, gems_out = outputs[0], outputs[1], outputs[2], outputs[3]
    for s in range(given[0][R_PLAYERS]):
        scores_out[s, g] = state.scores[s]
        shares_out[s, g] = state.shares[s]
        gems_out[s, g] = pack_gems(state.table, s)
    for c in range(N_COUNTERS):
        counters_out[c, g] = state.counters[c]


@kernel(globals())
def keep_log(state, given, buffers, k):
    """A logged game into row ``k`` of the buffers (``Game.log_buffers``; ``gems[k, s, c]``), and
    the state's logs cleared for the next."""
    logs, deal_logs, scores, shares, counters, gems = buffers[0], buffers[1], buffers[2], buffers[3], buffers[4], \
        buffers[5]
    logs[k, :, :] = state.log
    deal_logs[k, :, :] = state.deal_log
    scores[k, :] = state.scores
    shares[k, :] = state.shares
    counters[k, :] = state.counters
    for s in range(given[0][R_PLAYERS]):
        for c in range(3):
            gems[k, s, c] = state.table[T_GEMS + 3 * s + c]
    state.log[:, :] = UNWRITTEN
    state.deal_log[:, :] = UNWRITTEN


@kernel(globals())
def play_position(state, run, position, given, lineup, scripts):
    """Scripted deals and decisions (``scripts``) from ``position`` = (start gems, first round,
    rounds, tricks): ``balance play``; returns the status.  Deals the script leaves open come from
    game 0 of ``run``, and a strategy asked draws from its seat's PLAY stream of that game."""
    rules = given[0]
    start_gems, first_round, round_limit, trick_limit = position
    table = state.table
    seed_streams(state.streams, run[0], 0, rules[R_PLAYERS])
    seed_seats(state.seat_streams, run[1], 0)
    for c in range(3):
        table[T_SUPPLY + c] = rules[R_GEMS]
        for s in range(rules[R_PLAYERS]):
            table[T_GEMS + 3 * s + c] = start_gems[s, c]
            table[T_SUPPLY + c] -= start_gems[s, c]
    status, instant = play_rounds(state, given, lineup[0], lineup[1], scripts, first_round, (round_limit, trick_limit))
    final_standing(table, rules, instant, state.scores, state.shares)
    return status


@kernel(globals(), inline="always")
def deal_first(state, run, index, given):
    """Seat s's hand of the first deal of game ``index`` (round 1, before any redeal), dealt by the
    play loop's own ``deal``: it is the first draw of the DEAL stream."""
    rules = given[0]
    seed_streams(state.streams, run[0], index, rules[R_PLAYERS])
    state.work[W_DEAL_CURSOR] = 0
    deal(state, rules, NO_DEALS)


# the entry points, written once for every game (simcore/play.py)
run_chunk, play_many_logged, play_scenario, deal_openings = entry_points(globals())
