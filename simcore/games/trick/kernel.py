"""Trick-taking games from a rules file: the one play loop that plays them all (compiled).

A rules file is data (the arrays of ``rules.make_setup``), so every file runs on this loop as it
is compiled once per machine: a new or edited rules file compiles nothing.

Entry points, sharing one round loop (``play_round``):

    run_chunk       one thread's share of a chunk of games, one output row each
    play_logged     one game of a run with its trick-by-trick log (replay, differential tests)
    play_scripted   one round from a given deal with scripted decisions (scenarios, and the
                    deal-for-deal check against OpenSpiel: tools/check_peers.py)

Chance (the dealer when random, the shuffle, a random pass direction) comes from the game's DEAL
stream, which no strategy is handed; seat s's strategy is handed ``seat_streams[s]``.
"""
import numpy as np

from simcore.bits import bit, kth_set_bit, lowest_index, popcount
from simcore.registry import strategies_of
from simcore.games.trick.rules import (
    C_BIDS, C_CAPPED, C_EXACT_BIDS, C_LEADS_WON, C_MOONS, C_REVERSED, C_ROUNDS, C_SUIT, C_TRICKS, C_TRUMPED, I_BID, I_DEALER, I_PASSED, I_PASS_OFFSET,
    I_TRUMP, I_TRUMP_CARD, K_CARD, K_LEADER, K_WINNER, LEAD_BID_WINNER, LEAD_DEALER, LEAD_HOLDER, LOG_WIDTH, L_CARD,
    L_LEADER, L_POINTS, L_ROUND, L_TRICK, L_WINNER, MAX_PASS, MAX_PLAYERS, M_BREAKING, M_POINTS,
    M_REVERSING, N_COUNTERS, RECORD_WIDTH, ROUND_WIDTH, R_BIDDING, R_DECK, R_FIRST_DEALER, R_FIRST_LEAD_CARD, R_HAND,
    R_LEAD, R_LOWEST_WINS, R_MOON, R_PASS_CARDS, R_PASS_N, R_PASS_OFFSET, R_PASS_RANDOM, R_PLAYERS, R_RANDOM_DEALER,
    R_REVEALED, R_ROUNDS, R_ROUNDS_ALIKE, R_TARGET, R_TARGET_ON, R_TRUMP_CHOICES, R_TRUMP_KIND, R_TRUMP_SUIT, R_UNBROKEN, R_WITHHELD,
    SCORE_LIMIT, TABLE_WIDTH, TRUMP_BID_WINNER, TRUMP_FIXED, TRUMP_TURNED_UP, T_BID, T_BROKEN, T_DEALER, T_LEADER,
    T_NPLAYED, T_PASS_OFFSET, T_PLAY, T_POINTS, T_RECORD, T_ROUND, T_TOTAL, T_TRICK, T_TRUMP, T_TRUMP_CARD, T_VOID,
    N_RULES, T_WON, bid_winner, keep_scores, legal_bids, legal_plays, match_shares, partners_agree, round_scores,
    C_HOOK_EVENTS, count_no_events, dealt_as_keyed, printed_suit, rules_of_round, team_scores, trick_points, winner_leads,
    AT_AFTER_CARD, AT_AFTER_TRICK, AT_BEFORE_BIDDING, AT_BEFORE_PLAY, I_CHOSEN, L_DECIDED, MAX_DECISIONS, R_DECISIONS, R_DECISION_AT,
    R_DECISION_WHO, SEAT_COUNTERS, T_COUNTER, N_TABLE_COUNTERS, T_NEXT_LEADER, T_SEAT_COUNTER, decision_seat,
    no_effect, no_options,
    winner_of_trick, HANDS_WIDTH, H_STOCK, T_HELD, R_UPCARD, T_KNOWN, T_OUT, UPCARD_SET_ASIDE, WHO_CHANCE, next_in_play,
    players_in_trick,
)
from simcore.jit import kernel
from simcore.play import FINISHED, SCRIPT_CURSOR, STRATEGY_BROKE_RULES, scripted, withhold
from simcore.rng import DEAL, N_STREAMS, below, rotate_seats, seed_game, seed_seats, seed_streams, shuffle

strategy = globals().get("__strategies__") or strategies_of(__name__)  # the registry's players
choose_pass = strategy.choose_pass
choose_bid = strategy.choose_bid
choose_play = strategy.choose_play
choose_trump = strategy.choose_trump
RANDOM = strategy.RANDOM
random_card_of_seat = strategy.random_card_of_seat

# a rules file's hooks (simcore/games/trick/game.py builds a copy of this module with them): the
# designer's compiled functions in place of the rules' own, checked as they are called
hooks = globals().get("__hooks__") or {}
HOOKED = bool(hooks)
legal_plays = hooks.get("legal", legal_plays)
winner_of_trick = hooks.get("trick_winner", winner_of_trick)
trick_points = hooks.get("trick_points", trick_points)
# a hook's answer is impossible, by hook: `legal` gave no card or a card not held, `trick_winner` no
# such position, a round's score (the keys' and score_round's) past what the engine keeps
# (partners left two scores), `legal_bids` no bid
# `next_leader` (or a decision's T_NEXT_LEADER) no seat, `decision_options` an option the decision lacks
HOOK_LEGAL_BROKE, HOOK_WINNER_BROKE, HOOK_SCORE_BROKE, HOOK_BIDS_BROKE, HOOK_LEADER_BROKE = -4, -5, -6, -7, -8
HOOK_OPTIONS_BROKE = -9
HOOK_SIZE_BROKE = -10  # `hand_size` dealt no card, or more than the round's deal.hand_size

score_round = hooks.get("score_round", keep_scores)
SCORE_HOOKED = "score_round" in hooks
legal_bids = hooks.get("legal_bids", legal_bids)
count_events = hooks.get("count_events", count_no_events)
next_leader = hooks.get("next_leader", winner_leads)
hand_size_of = hooks.get("hand_size", dealt_as_keyed)  # a hand that depends on the game so far
suit_in_play = hooks.get("suit_of", printed_suit)  # the suit a card follows and wins as (a bower: trump)
SIZE_HOOKED = "hand_size" in hooks
decision_options = hooks.get("decision_options", no_options)  # the designer's decisions ([[decision]])
decision_apply = hooks.get("decision_apply", no_effect)
DECIDING = "decision_options" in hooks
choose_decision = strategy.choose_decision
RANDOM_ONLY = getattr(strategy, "RANDOM_ONLY", False)  # the random build (simcore/builds.py): no other player
EVENTS_HOOKED = "count_events" in hooks

def compiled_hooks(module, names) -> dict:
    """A rules file's hooks (``names`` of the hooks ``module`` defines) compiled for the play loop:
    every function the module defines becomes a Numba function, inlined where it is called, so
    that a hook may call the module's helpers (simcore/games/trick/game.py, ``hooked_build``).
    ``score_round`` and ``count_events``, called once a round, are compiled on their own with
    reference counting, so they may allocate arrays (the loop that calls them is compiled without:
    simcore/jit.py); the hooks called for every card are inlined and may not."""
    import inspect

    from numba import njit

    for name, value in list(vars(module).items()):  # its own functions and the card moves it imports
        if inspect.isfunction(value) and value.__module__ in (module.__name__, "simcore.games.trick.moves"):
            once_a_round = name in ("score_round", "count_events")
            setattr(module, name, njit(_nrt=True)(value) if once_a_round else njit(inline="always")(value))
    return {name: getattr(module, name) for name in names}


NO_SCRIPT = np.empty(0, dtype=np.int64)
# scratch slots of the per-thread ``work`` array
W_CURSOR = SCRIPT_CURSOR  # scripted decisions used
W_WON = 1  # + seat: the cards seat s has taken this round (a mask, as int64)
W_ROUND = W_WON + MAX_PLAYERS  # + seat: this round's scores
W_PASSED = W_ROUND + MAX_PLAYERS  # + seat: the cards seat s passes (a mask, as int64)
W_CHOSEN = W_PASSED + MAX_PLAYERS  # + d * MAX_PLAYERS + seat: the choices of the decisions just made
W_SEATS = W_CHOSEN + MAX_DECISIONS * MAX_PLAYERS  # + position: the seat that played the trick's card there
W_CARD_CHOICE = W_SEATS + MAX_PLAYERS  # + d: the last choice this trick in after-card decision d (the log's)
WORK_WIDTH = W_CARD_CHOICE + MAX_DECISIONS


@kernel(globals(), inline="always")
def deal_round(streams, rules, deck, hands, table):
    """Shuffle every card (Fisher–Yates on the DEAL stream) and deal hand_size each: seat s gets
    deck positions [s * hand_size, (s + 1) * hand_size); with a turned-up trump (or deal.upcard)
    the next card is turned up.  Returns the mask of the cards no seat was dealt (the turned-up
    card included)."""
    n_players = rules[R_PLAYERS]
    n_cards = rules[R_DECK]
    hand_size = rules[R_HAND]
    for i in range(n_cards):
        deck[i] = i
    aside = rules[R_UPCARD] - UPCARD_SET_ASIDE  # a card set aside face up before the shuffle (deal.upcard)
    if aside >= 0:
        deck[aside] = n_cards - 1
        deck[n_cards - 1] = aside
        shuffle(deck, 0, n_cards - 1, streams, DEAL)
    else:
        shuffle(deck, 0, n_cards, streams, DEAL)
    for s in range(n_players):
        h = np.uint64(0)
        for i in range(s * hand_size, (s + 1) * hand_size):
            h |= bit(deck[i])
        hands[s] = h
        hands[MAX_PLAYERS + s] = 0  # nothing put out of play yet (moves.py)
        table[T_HELD + s] = hand_size
    rotate_seats(hands, n_players, streams)  # a duplicate deal's turn of the table (simcore/rng.py)
    rest = np.uint64(0)
    for i in range(n_players * hand_size, n_cards):
        rest |= bit(deck[i])
    table[T_TRUMP_CARD] = -1
    if rules[R_TRUMP_KIND] == TRUMP_TURNED_UP or rules[R_UPCARD] != 0:
        table[T_TRUMP_CARD] = deck[n_players * hand_size] if aside < 0 else aside
    hands[H_STOCK] = rest & ~bit(table[T_TRUMP_CARD]) if table[T_TRUMP_CARD] >= 0 else rest
    return rest


@kernel(globals(), inline="always")
def set_trump(table, rules, cards):
    if rules[R_TRUMP_KIND] == TRUMP_TURNED_UP:
        table[T_TRUMP] = cards[C_SUIT, table[T_TRUMP_CARD]]
    elif rules[R_TRUMP_KIND] == TRUMP_FIXED:
        table[T_TRUMP] = rules[R_TRUMP_SUIT]
    else:
        table[T_TRUMP] = -1


@kernel(globals(), inline="always")
def start_round(table, rules, n_players, totals):
    for s in range(n_players):
        table[T_BID + s] = -1
        table[T_WON + s] = 0
        table[T_POINTS + s] = 0
        table[T_VOID + s] = 0
        table[T_TOTAL + s] = totals[s]
        table[T_KNOWN + s] = 0
    table[T_BROKEN] = 0
    table[T_OUT] = 0
    for i in range(MAX_PLAYERS):
        table[T_PLAY + i] = -1
    for k in range(N_TABLE_COUNTERS):  # the designer's counters of the round ([[decision]])
        table[T_COUNTER + k] = 0
    if HOOKED:  # the round's record of tricks (T_RECORD), for the hooks; rows past the hand size
        for i in range(T_RECORD, T_RECORD + rules[R_HAND] * RECORD_WIDTH):  # are never written: -1 as made
            table[i] = -1


@kernel(globals(), refcounts=False)
def decide(at, dealer, leader, winner, table, hands, seen, rules, cards, masks, strategies, params, streams,
           seat_streams, script, work, chosen):
    """Every decision of the designer's that arises ``at`` this point (AT_*): each seat asked in
    turn (decision_seat) whose decision_options hook offers it any option chooses one (the script's,
    the random player's draw, or its strategy's), and decision_apply carries it out on the table;
    ``chosen[d * MAX_PLAYERS + seat]`` records it.  Returns FINISHED, STRATEGY_BROKE_RULES, a hook's
    status or an illegal scripted decision's step."""
    n_players = rules[R_PLAYERS]
    for d in range(rules[R_DECISIONS]):
        if rules[R_DECISION_AT + d] != at:
            continue
        if rules[R_DECISION_WHO + d] == WHO_CHANCE:  # drawn from the deal's stream, no seat's choice
            legal = decision_options(d, -1, hands[H_STOCK], table, rules, cards, masks)  # handed the stock
            if legal == 0:
                continue
            choice = scripted(script, work)
            if choice >= 0:
                if choice > 63 or (legal >> np.uint64(choice)) & np.uint64(1) == 0:
                    return work[W_CURSOR] - 1
            elif legal & (legal - np.uint64(1)) == 0:
                choice = lowest_index(legal)  # one option: nothing is drawn
            else:
                choice = kth_set_bit(legal, below(streams, DEAL, popcount(legal)))
            decision_apply(d, -1, choice, hands, table, rules, cards, masks)
            chosen[d * MAX_PLAYERS] = choice  # kept as the first seat's
            continue
        for j in range(n_players):
            s = decision_seat(rules[R_DECISION_WHO + d], j, dealer, leader, winner, n_players)
            if s < 0:
                break
            if (table[T_OUT] >> s) & 1 != 0:
                continue  # sitting the round out
            legal = decision_options(d, s, hands[s], table, rules, cards, masks)
            if legal == 0:
                continue  # not asked
            choice = scripted(script, work)
            if choice >= 0:
                if choice > 63 or (legal >> np.uint64(choice)) & np.uint64(1) == 0:
                    return work[W_CURSOR] - 1
            elif RANDOM_ONLY or strategies[s] == RANDOM:  # a constant Numba prunes the other branch with
                choice = random_card_of_seat(legal, seat_streams, s)
            else:
                choice = choose_decision(strategies[s], params, d, at, s, hands[s], legal, seen | hands[MAX_PLAYERS + s],
                                         table, cards, masks, rules, seat_streams[s])
                if choice < 0 or choice > 63 or (legal >> np.uint64(choice)) & np.uint64(1) == 0:
                    return STRATEGY_BROKE_RULES
            decision_apply(d, s, choice, hands, table, rules, cards, masks)
            chosen[d * MAX_PLAYERS + s] = choice
    if table[T_NEXT_LEADER] >= n_players or table[T_NEXT_LEADER] < -1:
        return HOOK_LEADER_BROKE
    return FINISHED


@kernel(globals(), inline="always")
def decide_afresh(at, dealer, leader, winner, table, hands, seen, rules, cards, masks, strategies, params, streams,
                  seat_streams, script, work):
    """``decide`` for the decisions after a card or a trick, their choices kept in work[W_CHOSEN:]
    from none."""
    for k in range(MAX_DECISIONS * MAX_PLAYERS):
        work[W_CHOSEN + k] = -1
    return decide(at, dealer, leader, winner, table, hands, seen, rules, cards, masks, strategies, params, streams,
                  seat_streams, script, work, work[W_CHOSEN:W_CHOSEN + MAX_DECISIONS * MAX_PLAYERS])


@kernel(globals(), refcounts=False)
def play_round(table, hands, seen, rules, cards, masks, strategies, params, streams, seat_streams, counters, script,
               work, log, log_row, infos, r):
    """Play one round from the deal in ``hands`` (dealer, trump and pass offset set in ``table``):
    passes, bids, tricks, and the round's scores into work[W_ROUND + s].  ``infos[r]`` (when
    ``infos`` has that row) receives the dealer, trump card, passes and bids; ``log`` one row per trick from
    ``log_row`` while it has rows.  Returns FINISHED, STRATEGY_BROKE_RULES or an illegal scripted
    decision's step."""
    n_players = rules[R_PLAYERS]
    hand_size = rules[R_HAND]
    dealer = table[T_DEALER]
    logging = r < infos.shape[0]
    if logging:
        infos[r, I_DEALER] = dealer
        infos[r, I_TRUMP_CARD] = table[T_TRUMP_CARD]
        infos[r, I_PASS_OFFSET] = table[T_PASS_OFFSET]

    # --- the pass: every seat chooses its cards one at a time, then they change hands
    offset = table[T_PASS_OFFSET]
    if offset != 0:
        for s in range(n_players):
            rest = hands[s]
            passed = np.uint64(0)
            for k in range(rules[R_PASS_CARDS]):
                card = scripted(script, work)
                if card >= 0:
                    if card >= rules[R_DECK] or (rest >> np.uint64(card)) & np.uint64(1) == 0:
                        return work[W_CURSOR] - 1
                elif strategies[s] == RANDOM:
                    card = random_card_of_seat(rest, seat_streams, s)
                else:
                    card = choose_pass(strategies[s], params, s, rest, table, cards, masks, rules, seat_streams[s])
                    if card < 0 or card >= rules[R_DECK] or (rest >> np.uint64(card)) & np.uint64(1) == 0:
                        return STRATEGY_BROKE_RULES
                rest &= ~bit(card)
                passed |= bit(card)
                if logging:
                    infos[r, I_PASSED + s * MAX_PASS + k] = card
            work[W_PASSED + s] = np.int64(passed)
        for s in range(n_players):
            hands[s] &= ~np.uint64(work[W_PASSED + s])
        for s in range(n_players):
            to = s + offset
            if to >= n_players:
                to -= n_players
            hands[to] |= np.uint64(work[W_PASSED + s])

    # --- the designer's decisions before the bidding (a declaration, a card taken up ...)
    phases = 0  # bit AT_*: the points at which the file has decisions
    for d in range(rules[R_DECISIONS]):
        phases |= 1 << rules[R_DECISION_AT + d]
    after_card = (phases >> AT_AFTER_CARD) & 1 != 0
    after_trick = (phases >> AT_AFTER_TRICK) & 1 != 0
    if DECIDING:
        for i in range(MAX_DECISIONS * MAX_PLAYERS):
            work[W_CHOSEN + i] = -1
        table[T_NEXT_LEADER] = -1
        if (phases >> AT_BEFORE_BIDDING) & 1 != 0:
            first = next_in_play(table, dealer + 1, n_players)  # the bidding's first seat
            table[T_TRICK] = 0
            table[T_LEADER] = first
            table[T_NPLAYED] = 0
            status = decide(AT_BEFORE_BIDDING, dealer, first, -1, table, hands, seen, rules, cards, masks, strategies,
                            params, streams, seat_streams, script, work,
                            work[W_CHOSEN:W_CHOSEN + MAX_DECISIONS * MAX_PLAYERS])
            if status != FINISHED:
                return status

    # --- bidding, from the dealer's left
    if rules[R_BIDDING] != 0:
        for j in range(n_players):
            s = (dealer + 1 + j) % n_players
            legal = legal_bids(rules, table, n_players, j, hand_size)
            if HOOKED and legal == 0:
                return HOOK_BIDS_BROKE
            bid = scripted(script, work)
            if bid >= 0:
                if bid > 63 or (legal >> np.uint64(bid)) & np.uint64(1) == 0:
                    return work[W_CURSOR] - 1
            elif strategies[s] == RANDOM:
                bid = random_card_of_seat(legal, seat_streams, s)
            else:
                bid = choose_bid(strategies[s], params, s, hands[s], legal, table, cards, masks, rules,
                                 seat_streams[s])
                if bid < 0 or bid > 63 or (legal >> np.uint64(bid)) & np.uint64(1) == 0:
                    return STRATEGY_BROKE_RULES
            table[T_BID + s] = bid
            if logging:
                infos[r, I_BID + s] = bid

    # --- the bid winner names trump: one of the file's suits
    if rules[R_TRUMP_KIND] == TRUMP_BID_WINNER:
        s = bid_winner(table, n_players, dealer)
        legal = bit(rules[R_TRUMP_CHOICES]) - np.uint64(1)
        suit = scripted(script, work)
        if suit >= 0:
            if suit >= rules[R_TRUMP_CHOICES]:
                return work[W_CURSOR] - 1
        elif strategies[s] == RANDOM:
            suit = random_card_of_seat(legal, seat_streams, s)
        else:
            suit = choose_trump(strategies[s], params, s, hands[s], legal, table, cards, masks, rules, seat_streams[s])
            if suit < 0 or suit >= rules[R_TRUMP_CHOICES]:
                return STRATEGY_BROKE_RULES
        table[T_TRUMP] = suit
        if logging:
            infos[r, I_TRUMP] = suit

    # --- who leads the first trick
    leader = (dealer + 1) % n_players
    if rules[R_LEAD] == LEAD_DEALER:
        leader = dealer
    elif rules[R_LEAD] == LEAD_HOLDER and rules[R_FIRST_LEAD_CARD] >= 0:
        for s in range(n_players):
            if (hands[s] >> np.uint64(rules[R_FIRST_LEAD_CARD])) & np.uint64(1) != 0:
                leader = s
    elif rules[R_LEAD] == LEAD_BID_WINNER:
        leader = bid_winner(table, n_players, dealer)

    # --- the designer's decisions before the play (calls, declarations ...)
    table[T_TRICK] = 0
    table[T_LEADER] = leader
    table[T_NPLAYED] = 0
    if not DECIDING:
        table[T_NEXT_LEADER] = -1
    if DECIDING:
        status = decide(AT_BEFORE_PLAY, dealer, leader, -1, table, hands, seen, rules, cards, masks, strategies,
                        params, streams, seat_streams, script, work,
                        work[W_CHOSEN:W_CHOSEN + MAX_DECISIONS * MAX_PLAYERS])
        if status != FINISHED:
            return status
        if logging:
            for i in range(MAX_DECISIONS * MAX_PLAYERS):
                infos[r, I_CHOSEN + i] = work[W_CHOSEN + i]
            infos[r, I_TRUMP] = table[T_TRUMP]  # as the decisions left it
        if table[T_NEXT_LEADER] >= 0:
            leader = table[T_NEXT_LEADER]
            table[T_NEXT_LEADER] = -1
        leader = next_in_play(table, leader, n_players)  # a seat sitting out leads no trick

    # --- the tricks
    withheld = np.uint64(rules[R_WITHHELD])
    unbroken = rules[R_UNBROKEN]
    for s in range(n_players):
        work[W_WON + s] = 0
    for trick in range(hand_size):
        table[T_TRICK] = trick
        table[T_LEADER] = leader
        trump = table[T_TRUMP]  # a decision may have changed it
        lead_suit = -1
        trick_cards = np.uint64(0)
        n_in = players_in_trick(table, n_players) if DECIDING else n_players  # a seat may sit out
        if DECIDING and after_card:
            for d in range(MAX_DECISIONS):
                work[W_CARD_CHOICE + d] = -1
        seat = leader
        for i in range(n_in):
            table[T_NPLAYED] = i
            if DECIDING:
                if i > 0:
                    seat = next_in_play(table, seat + 1, n_players)
                work[W_SEATS + i] = seat
            else:
                seat = leader + i
                if seat >= n_players:
                    seat -= n_players
            legal = legal_plays(hands[seat], table, rules, cards, masks, trick == 0)
            if HOOKED and (legal == 0 or legal & ~hands[seat] != 0):
                return HOOK_LEGAL_BROKE
            legal = withhold(legal, withheld)
            card = scripted(script, work)
            if card >= 0:
                if card >= rules[R_DECK] or (legal >> np.uint64(card)) & np.uint64(1) == 0:
                    return work[W_CURSOR] - 1
            elif strategies[seat] == RANDOM:
                card = random_card_of_seat(legal, seat_streams, seat)
            else:
                card = choose_play(strategies[seat], params, seat, hands[seat], legal,
                                   (seen | hands[MAX_PLAYERS + seat]) if DECIDING else seen, table, cards, masks,
                                   rules, seat_streams[seat])
                if card < 0 or card >= rules[R_DECK] or (legal >> np.uint64(card)) & np.uint64(1) == 0:
                    return STRATEGY_BROKE_RULES
            hands[seat] &= ~bit(card)
            table[T_HELD + seat] -= 1
            if DECIDING:
                table[T_KNOWN + seat] &= ~(np.int64(1) << np.int64(card))
            seen |= bit(card)
            trick_cards |= bit(card)
            table[T_PLAY + i] = card
            suit = suit_in_play(card, trump, cards)
            if i == 0:
                lead_suit = suit
            elif suit != lead_suit:
                table[T_VOID + seat] |= np.int64(1) << np.int64(lead_suit)
            if unbroken >= 0 and (suit == unbroken or (masks[M_BREAKING] >> np.uint64(card)) & np.uint64(1) != 0):
                table[T_BROKEN] = 1
            if DECIDING and after_card:  # the designer's decisions after a card (a card power)
                table[T_NPLAYED] = i + 1
                status = decide_afresh(AT_AFTER_CARD, dealer, leader, seat, table, hands, seen, rules, cards, masks,
                                       strategies, params, streams, seat_streams, script, work)
                if status != FINISHED:
                    return status
                for k in range(MAX_DECISIONS * MAX_PLAYERS):
                    if work[W_CHOSEN + k] >= 0:
                        work[W_CARD_CHOICE + k // MAX_PLAYERS] = work[W_CHOSEN + k]
        if DECIDING and after_card:
            trump = table[T_TRUMP]  # a card's power may have changed it
        table[T_NPLAYED] = n_in
        win_pos = winner_of_trick(table, n_in, -1, cards, masks, rules, trump)
        if HOOKED and (win_pos < 0 or win_pos >= n_in):
            return HOOK_WINNER_BROKE
        if DECIDING:
            winner = work[W_SEATS + win_pos]
        else:
            winner = leader + win_pos
            if winner >= n_players:
                winner -= n_players
        points = trick_points(table, n_in, cards, masks, rules)
        table[T_WON + winner] += 1
        table[T_POINTS + winner] += points
        work[W_WON + winner] |= np.int64(trick_cards)
        if HOOKED:  # the trick's record (T_RECORD), for the hooks
            at = T_RECORD + trick * RECORD_WIDTH
            table[at + K_LEADER] = leader
            table[at + K_WINNER] = winner
            for i in range(n_players):
                table[at + K_CARD + i] = table[T_PLAY + i]
        counters[C_LEADS_WON] += win_pos == 0
        counters[C_TRICKS] += 1
        counters[C_REVERSED] += trick_cards & masks[M_REVERSING] != 0
        counters[C_TRUMPED] += (trump >= 0 and suit_in_play(table[T_PLAY], trump, cards) != trump
                                and suit_in_play(table[T_PLAY + win_pos], trump, cards) == trump)
        last_row = -1  # the log row of this trick (logged games)
        if log_row < log.shape[0]:
            last_row = log_row
            row = log[log_row]
            row[L_ROUND] = table[T_ROUND]
            row[L_TRICK] = trick
            row[L_LEADER] = leader
            for i in range(MAX_PLAYERS):
                row[L_CARD + i] = table[T_PLAY + i] if i < n_players else -1
            if DECIDING and n_in < n_players:  # by seat from the leader: -1 for a seat sitting out
                for i in range(MAX_PLAYERS):
                    row[L_CARD + i] = -1
                for i in range(n_in):
                    at_seat = work[W_SEATS + i] - leader
                    row[L_CARD + (at_seat + n_players if at_seat < 0 else at_seat)] = table[T_PLAY + i]
            row[L_WINNER] = winner
            row[L_POINTS] = points
            if DECIDING and after_card:
                for d in range(MAX_DECISIONS):
                    if work[W_CARD_CHOICE + d] >= 0:
                        row[L_DECIDED + d] = work[W_CARD_CHOICE + d]
            log_row += 1
        leader = next_leader(table, winner, cards, masks, rules)  # the winner, unless a hook says who
        if HOOKED and (leader < 0 or leader >= n_players):
            return HOOK_LEADER_BROKE
        if DECIDING:
            leader = next_in_play(table, leader, n_players)
        if DECIDING and after_trick and trick + 1 < hand_size:  # the designer's decisions after a trick (a card power ...)
            status = decide_afresh(AT_AFTER_TRICK, dealer, leader, winner, table, hands, seen, rules, cards, masks,
                                   strategies, params, streams, seat_streams, script, work)
            if status != FINISHED:
                return status
            if last_row >= 0:
                for d in range(MAX_DECISIONS):
                    best = -1
                    for s in range(n_players):
                        if work[W_CHOSEN + d * MAX_PLAYERS + s] >= 0:
                            best = work[W_CHOSEN + d * MAX_PLAYERS + s]
                    if best >= 0:  # (an after-card decision's may be in the row already)
                        log[last_row, L_DECIDED + d] = best
        if DECIDING and table[T_NEXT_LEADER] >= 0:  # a decision after the trick or a card named who leads
            leader = next_in_play(table, table[T_NEXT_LEADER], n_players)
            table[T_NEXT_LEADER] = -1
        for i in range(n_players):
            table[T_PLAY + i] = -1

    # --- the round's scores
    moon_seat = -1
    if rules[R_MOON] != 0:
        played_points = np.uint64(0)  # the cards with points taken by anyone this round
        for s in range(n_players):
            played_points |= np.uint64(work[W_WON + s]) & masks[M_POINTS]
        for s in range(n_players):
            if played_points != 0 and np.uint64(work[W_WON + s]) & masks[M_POINTS] == played_points:
                moon_seat = s
        counters[C_MOONS] += moon_seat >= 0
    round_scores(table, rules, n_players, moon_seat, work, W_ROUND)
    team_scores(rules, n_players, work, W_ROUND)
    counters[C_ROUNDS] += 1
    if SCORE_HOOKED:
        score_round(table, hand_size, cards, masks, rules, work[W_ROUND:W_ROUND + n_players])
    if HOOKED:  # what a hook scored must fit the game's totals (int16, over every round)
        if not partners_agree(rules, n_players, work, W_ROUND):
            return HOOK_SCORE_BROKE
        for s in range(n_players):
            if abs(work[W_ROUND + s]) > SCORE_LIMIT // rules[R_ROUNDS]:
                return HOOK_SCORE_BROKE
    if rules[R_BIDDING] != 0:
        for s in range(n_players):
            counters[C_EXACT_BIDS] += table[T_BID + s] == table[T_WON + s]
            counters[C_BIDS] += 1
    if EVENTS_HOOKED:  # the designer's events (the hooks module's EVENTS)
        count_events(table, hand_size, cards, masks, rules, counters[C_HOOK_EVENTS:])
    return FINISHED


@kernel(globals(), inline="always")
def pass_offset_of(streams, rules, round_index):
    """This round's pass offset: the file's directions in turn, or one drawn from the DEAL stream."""
    if rules[R_PASS_CARDS] == 0:
        return 0
    k = below(streams, DEAL, rules[R_PASS_N]) if rules[R_PASS_RANDOM] != 0 else round_index % rules[R_PASS_N]
    return rules[R_PASS_OFFSET + k]


@kernel(globals(), refcounts=False)
def play_game(seed, keys, index, rules, cards, masks, strategies, params, streams, seat_streams, table, hands,
              deck, totals, counters, work, opening, opening_row, dealt, infos, log, round_rules):
    """One full game (game.rounds rounds) of run ``seed``; returns its status and fills ``totals``,
    ``counters``, ``opening[opening_row]`` (the first round's hands as dealt) and, where they have
    room (logged games), ``dealt`` and ``infos`` (round x ...) and the trick ``log``.  Each round
    plays the rules of that round (``round_rules``: its hand size, its trump or none)."""
    n_players = rules[R_PLAYERS]
    seed_game(streams, seat_streams, seed, keys, index)
    for s in range(n_players):
        totals[s] = 0
    for c in range(N_COUNTERS):
        counters[c] = 0
    work[W_CURSOR] = 0
    for k in range(MAX_PLAYERS * SEAT_COUNTERS):  # each seat's counters, kept through the game
        table[T_SEAT_COUNTER + k] = 0
    dealer = below(streams, DEAL, n_players) if rules[R_RANDOM_DEALER] != 0 else rules[R_FIRST_DEALER]
    log_row = 0
    alike = rules[R_ROUNDS_ALIKE] != 0 and not SIZE_HOOKED
    if alike:  # every round plays the game's rules as they are: one copy a game, not a round
        rules_of_round(rules, 0, round_rules)
    for r in range(rules[R_ROUNDS]):
        if not alike:
            rules_of_round(rules, r, round_rules)
        table[T_ROUND] = r
        table[T_DEALER] = dealer
        start_round(table, round_rules, n_players, totals)
        if SIZE_HOOKED:  # the designer's hand for this round: at most the room deal.hand_size keeps
            size = hand_size_of(r, totals, round_rules)
            if size < 1 or size > round_rules[R_HAND]:
                return HOOK_SIZE_BROKE
            round_rules[R_HAND] = size
        rest = deal_round(streams, round_rules, deck, hands, table)
        set_trump(table, round_rules, cards)
        seen = np.uint64(0)
        if table[T_TRUMP_CARD] >= 0:
            seen |= bit(table[T_TRUMP_CARD])
        if rules[R_REVEALED] != 0:
            seen |= rest
        for s in range(n_players):
            if r == 0:
                opening[opening_row, s] = hands[s]
            if r < dealt.shape[0]:
                dealt[r, s] = hands[s]
        table[T_PASS_OFFSET] = pass_offset_of(streams, round_rules, r)
        status = play_round(table, hands, seen, round_rules, cards, masks, strategies, params, streams, seat_streams,
                            counters, NO_SCRIPT, work, log, log_row, infos, r)
        log_row += round_rules[R_HAND]
        if status != FINISHED:
            return status
        reached = False
        for s in range(n_players):
            totals[s] += work[W_ROUND + s]
            reached = reached or totals[s] >= rules[R_TARGET]
        if rules[R_TARGET_ON] != 0 and reached:  # game.target: the game ends after this round
            break
        if rules[R_TARGET_ON] != 0 and r == rules[R_ROUNDS] - 1:  # game.rounds ran out first
            counters[C_CAPPED] = 1
        dealer = (dealer + 1) % n_players
    return FINISHED


@kernel(globals(), inline="always")
def game_buffers(rules):
    n_players = rules[R_PLAYERS]
    streams = np.empty(N_STREAMS, dtype=np.uint64)
    seat_streams = np.empty((n_players, N_STREAMS), dtype=np.uint64)
    table = np.full(TABLE_WIDTH, -1, dtype=np.int64)
    hands = np.zeros(HANDS_WIDTH, dtype=np.uint64)
    deck = np.empty(rules[R_DECK], dtype=np.int64)
    work = np.zeros(WORK_WIDTH, dtype=np.int64)
    round_rules = np.zeros(N_RULES, dtype=np.int64)
    return streams, seat_streams, table, hands, deck, work, round_rules


# One thread's loop, without the GIL: simcore/threads.py gives each of the run's threads a share of
# the chunk's games (and the writer threads compress the last chunk meanwhile).  Not a prange:
# Numba's parallel passes took about 7 s of the first compile's 26 (BENCHMARKS.md).
@kernel(globals(), nogil=True)
def run_chunk(seed, keys, start, first, last, rules, cards, masks, strategies, params,
              scores_out, shares_out, counters_out, hands_out, status_out):
    """Games start+first..start+last-1 of run ``seed`` into rows first..last-1; each game's
    randomness depends only on (seed, game index), so any split into threads or chunks gives the
    same rows."""
    n_players = rules[R_PLAYERS]
    streams, seat_streams, table, hands, deck, work, round_rules = game_buffers(rules)
    totals = np.zeros(MAX_PLAYERS, dtype=np.int64)
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    shares = np.zeros(MAX_PLAYERS, dtype=np.float64)
    dealt = np.empty((0, MAX_PLAYERS), dtype=np.uint64)
    infos = np.empty((0, ROUND_WIDTH), dtype=np.int64)
    log = np.empty((0, LOG_WIDTH), dtype=np.int64)
    for g in range(first, last):
        status_out[g] = play_game(seed, keys, start + g, rules, cards, masks, strategies, params, streams,
                                  seat_streams, table, hands, deck, totals, counters, work, hands_out, g,
                                  dealt, infos, log, round_rules)
        match_shares(totals, n_players, rules[R_LOWEST_WINS] != 0, shares)
        for s in range(n_players):
            scores_out[g, s] = totals[s]
            shares_out[g, s] = shares[s]
        for c in range(N_COUNTERS):
            counters_out[g, c] = counters[c]


@kernel(globals())
def play_logged(seed, keys, index, rules, cards, masks, strategies, params, log, dealt, infos, totals, counters):
    """Game ``index`` of run ``seed`` with its full log (what ``balance replay`` prints)."""
    streams, seat_streams, table, hands, deck, work, round_rules = game_buffers(rules)
    opening = np.zeros((1, MAX_PLAYERS), dtype=np.uint64)
    return play_game(seed, keys, index, rules, cards, masks, strategies, params, streams, seat_streams, table,
                     hands, deck, totals, counters, work, opening, np.int64(0), dealt, infos, log, round_rules)


@kernel(globals())
def play_many_logged(seed, keys, indices, rules, cards, masks, strategies, params, logs, dealt, infos, totals,
                     counters, status):
    """play_logged for many games at once: arrays gain a leading game axis."""
    for k in range(indices.shape[0]):
        status[k] = play_logged(seed, keys, indices[k], rules, cards, masks, strategies, params, logs[k], dealt[k],
                                infos[k], totals[k], counters[k])


@kernel(globals())
def play_scripted(dealt, dealer, trump_card, offset, rules, cards, masks, strategies, params, seed, keys, script,
                  log, infos, scores, counters):
    """One round from a given deal (``dealt``: each seat's hand before the pass; the dealer, the
    turned-up card or -1, the pass offset) with ``script``'s decisions used first (passes, bids,
    cards in order), the strategies deciding after it; the seats draw from game 0 of run ``seed``.
    Returns FINISHED, STRATEGY_BROKE_RULES or the illegal scripted step."""
    n_players = rules[R_PLAYERS]
    streams, seat_streams, table, hands, deck, work, round_rules = game_buffers(rules)
    rules_of_round(rules, 0, round_rules)  # the first round's
    seed_seats(seat_streams, keys, 0)
    seed_streams(streams, seed, 0, n_players)  # a chance decision past the script draws from game 0's deal
    totals = np.zeros(MAX_PLAYERS, dtype=np.int64)
    table[T_ROUND] = 0
    table[T_DEALER] = dealer
    start_round(table, round_rules, n_players, totals)
    if SIZE_HOOKED:  # the first round's hand as the hook deals it (the deal given must hold so many)
        size = hand_size_of(0, totals, round_rules)
        if size < 1 or size > round_rules[R_HAND]:
            return HOOK_SIZE_BROKE
        round_rules[R_HAND] = size
    seen = np.uint64(0)
    table[T_TRUMP_CARD] = trump_card
    if trump_card >= 0:
        seen |= bit(trump_card)
    set_trump(table, round_rules, cards)
    everything = (bit(rules[R_DECK]) - np.uint64(1)) if rules[R_DECK] < 64 else ~np.uint64(0)
    hands[H_STOCK] = everything & ~bit(trump_card) if trump_card >= 0 else everything
    for s in range(n_players):
        hands[s] = dealt[s]
        hands[MAX_PLAYERS + s] = 0
        hands[H_STOCK] &= ~dealt[s]
        table[T_HELD + s] = 0
        m = dealt[s]
        while m != 0:
            m &= m - np.uint64(1)
            table[T_HELD + s] += 1
    table[T_PASS_OFFSET] = offset
    work[W_CURSOR] = 0
    for k in range(MAX_PLAYERS * SEAT_COUNTERS):
        table[T_SEAT_COUNTER + k] = 0
    status = play_round(table, hands, seen, round_rules, cards, masks, strategies, params, streams, seat_streams,
                        counters, script, work, log, 0, infos, 0)
    for s in range(n_players):
        scores[s] = work[W_ROUND + s]
    return status


@kernel(globals())
def deal_openings(seed, games, rules, hands_out):
    """hands_out[k, s]: seat s's hand of the first round of game ``games[k]``, as dealt (before any
    pass), by the play loop's own draws."""
    streams = np.empty(N_STREAMS, dtype=np.uint64)
    deck = np.empty(rules[R_DECK], dtype=np.int64)
    hands = np.zeros(HANDS_WIDTH, dtype=np.uint64)
    table = np.full(TABLE_WIDTH, -1, dtype=np.int64)
    first = np.zeros(N_RULES, dtype=np.int64)
    rules_of_round(rules, 0, first)  # the first round's hand and trump
    if SIZE_HOOKED:  # the first round's hand as the hook deals it (no score yet)
        size = hand_size_of(0, np.zeros(MAX_PLAYERS, dtype=np.int64), first)
        if 1 <= size <= first[R_HAND]:
            first[R_HAND] = size
    for k in range(games.shape[0]):
        seed_streams(streams, seed, games[k], rules[R_PLAYERS])
        if rules[R_RANDOM_DEALER] != 0:
            below(streams, DEAL, rules[R_PLAYERS])
        deal_round(streams, first, deck, hands, table)
        for s in range(hands_out.shape[1]):
            hands_out[k, s] = hands[s]
