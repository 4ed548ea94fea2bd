#!/usr/bin/env python3
"""Record random OpenSpiel games of hearts / oh_hell / spades / euchre as JSON lines.

Runs in OpenSpiel's own environment (stdlib + pyspiel only; nothing from this
repo is imported), e.g.

  .venv-peers/bin/python tools/openspiel_deals.py --game hearts \
      --deals 10000 --seed 1 --out /tmp/hearts.jsonl
  .venv-peers/bin/python tools/openspiel_deals.py --game oh_hell --players 3 \
      --deals 10000 --seed 1 --out /tmp/oh_hell3.jsonl
  .venv-peers/bin/python tools/openspiel_deals.py --game euchre \
      --deals 10000 --seed 1 --out /tmp/euchre.jsonl

Every game starts from the initial state; each chance node picks one of
`state.chance_outcomes()` uniformly, each decision node one of
`state.legal_actions()` uniformly, all from a single `random.Random(seed)`
(for oh_hell the number of tricks T is drawn from the same stream, before the
game, unless --tricks is given).  One JSON object per game is written; cards
are plain names: rank char from "23456789TJQKA" + suit char from "CDHS"
(euchre's 24-card deck uses the ranks "9TJQKA" only).

OpenSpiel card action ids (checked against action_to_string on every action
unless --no-verify):
  hearts : id = rank*4 + suit, suit order C=0 D=1 H=2 S=3 ("2C" = 0, "QS" = 43)
           action_to_string gives rank+suit ("QS").
  oh_hell: id = rank*num_suits + suit, suit order C=0 D=1 S=2 H=3 (!),
           action_to_string gives suit+rank ("SQ").  Bids are actions
           num_cards + bid.
  spades : id = suit*13 + rank, suit order C D H S; action_to_string gives
           suit+rank ("SQ"); bids are actions 52 + bid (0 = nil).
  euchre : id = rank*4 + suit, ranks 9 T J Q K A = 0..5, suit order
           C=0 D=1 H=2 S=3 ("9C" = 0, "JH" = 10, "AS" = 23); action_to_string
           gives suit+rank ("HJ").  The first chance action (0..3) is the
           dealer; 24 = pass, 25..28 = call C/D/H/S trump, 29 = alone,
           30 = partner; the dealer's discard is a card id.  A euchre record's
           "decisions" are [seat, what] with what "pass", "C".."S", the
           discarded card's name, "alone" or "partner"; its tricks also list
           the seat of each card ("seats"), as a lone maker's partner sits out.

Trick winners: for every trick except the last, the winner is OpenSpiel's own
next leader (state.current_player() after the trick's last card).  For the
last trick: oh_hell uses the "Tricks Won" counters of OpenSpiel's terminal
state string; hearts has no accessor, so the winner is computed with
OpenSpiel's rule (highest card of the led suit) -- the same rule is asserted
against OpenSpiel on every other trick, and the result is cross-checked
against OpenSpiel's point totals (and returns).  spades and euchre do the same
with their trump rules (euchre: the left bower is a trump, and right bower >
left bower > A K Q T 9); euchre's winners are also cross-checked against the
returns and, with verification on, against the binding's state.tricks().
"""

import argparse
import json
import random
import re
import sys
import time

import pyspiel

RANKS = "23456789TJQKA"
SUITS = "CDHS"            # output suit letters, and the sort order of hands
HEARTS_SUITS = "CDHS"     # OpenSpiel hearts suit index -> letter
OH_HELL_SUITS = "CDSH"    # OpenSpiel oh_hell suit index -> letter (S=2, H=3)

HEARTS_PLAYERS = 4
HEARTS_PASS = 3
HEARTS_SEAT_CHARS = "NESW"


def hearts_card(a):
    return RANKS[a // 4] + HEARTS_SUITS[a % 4]


def oh_hell_card(a, num_suits=4):
    return RANKS[a // num_suits] + OH_HELL_SUITS[a % num_suits]


def sort_cards(cards):
    return sorted(cards, key=lambda c: (SUITS.index(c[1]), RANKS.index(c[0])))


def hearts_points_of(card, jd_bonus):
    if card[1] == "H":
        return 1
    if card == "QS":
        return 13
    if jd_bonus and card == "JD":
        return -10
    return 0


def winner_no_trump(leader, cards, players):
    """Hearts rule (hearts.cc Trick::Play): highest card of the led suit."""
    led = cards[0][1]
    best, best_rank = 0, RANKS.index(cards[0][0])
    for i, c in enumerate(cards[1:], 1):
        if c[1] == led and RANKS.index(c[0]) > best_rank:
            best, best_rank = i, RANKS.index(c[0])
    return (leader + best) % players


def winner_trump(leader, cards, trump, players):
    """oh_hell rule (oh_hell.cc Trick::Play): highest trump, else highest of led suit."""
    win_suit, win_rank, best = cards[0][1], RANKS.index(cards[0][0]), 0
    for i, c in enumerate(cards[1:], 1):
        r = RANKS.index(c[0])
        if c[1] == win_suit:
            if r > win_rank:
                win_rank, best = r, i
        elif c[1] == trump:
            win_suit, win_rank, best = trump, r, i
    return (leader + best) % players


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def trick_won(s, computed, deal_index):
    """A trick's winner: OpenSpiel's own (the next player) while the game goes on, checked against
    ``computed`` (the rule as the notes say it); after the last trick ``computed``, which each game
    checks against OpenSpiel's totals or returns."""
    if s.is_terminal():
        return computed
    check(s.current_player() == computed, "deal %d: rule/OpenSpiel winner mismatch" % deal_index)
    return s.current_player()


# ---------------------------------------------------------------- hearts ---

_H_HAND_ROW = re.compile(r"^\s{8}([CDHS]) ?([2-9TJQKA]*)\s*$")
_H_WE_ROW = re.compile(r"^([CDHS]) ?([2-9TJQKA]*)\s+([CDHS]) ?([2-9TJQKA]*)\s*$")


def parse_hearts_string(text):
    """Parse HeartsState::ToString() of a terminal state (hearts.cc:119-126)."""
    lines = text.split("\n")
    out = {"pass_direction": lines[0].split(": ", 1)[1]}
    hands = [[] for _ in range(4)]
    # Deal diagram: 4 rows North, 4 rows West|East, 4 rows South; suits S H D C.
    body = lines[2:14]
    for k, line in enumerate(body):
        if 4 <= k < 8:
            m = _H_WE_ROW.match(line)
            check(m, "cannot parse W/E row %r" % line)
            hands[3] += [r + m.group(1) for r in m.group(2)]
            hands[1] += [r + m.group(3) for r in m.group(4)]
        else:
            m = _H_HAND_ROW.match(line)
            check(m, "cannot parse N/S row %r" % line)
            seat = 0 if k < 4 else 2
            hands[seat] += [r + m.group(1) for r in m.group(2)]
    out["hands"] = [sort_cards(h) for h in hands]
    passes = [[] for _ in range(4)]
    tricks, points = [], [None] * 4
    section = None
    for line in lines[14:]:
        if line.startswith("Passed Cards:"):
            section = "pass"
        elif line.startswith("Received Cards:"):
            section = "recv"
        elif line.startswith("Tricks:"):
            section = "tricks"
        elif line.startswith("Points:"):
            section = "points"
        elif not line.strip():
            continue
        elif section == "pass":
            seat, cards = line.split(":", 1)
            passes[HEARTS_SEAT_CHARS.index(seat)] = cards.split()
        elif section == "tricks":
            if line.startswith("N  E  S  W"):
                continue
            indent = len(line) - len(line.lstrip(" "))
            tricks.append((indent // 3, line.split()))
        elif section == "points":
            seat, val = line.split(":", 1)
            points[HEARTS_SEAT_CHARS.index(seat)] = float(val)
    out["passes"] = passes
    out["tricks"] = tricks
    out["points"] = points
    return out


def play_hearts(game, rng, deal_index, verify):
    params = game.get_parameters()
    jd_bonus = bool(params.get("jd_bonus", False))
    s = game.new_initial_state()
    hands = [[] for _ in range(HEARTS_PLAYERS)]
    passes = [[] for _ in range(HEARTS_PLAYERS)]
    plays = []
    pass_dir = None
    pass_name = None
    legal = []
    n_dealt = 0
    trick = None
    while not s.is_terminal():
        if s.is_chance_node():
            a = rng.choice(s.chance_outcomes())[0]
            if pass_dir is None:
                pass_dir = a
                pass_name = s.action_to_string(pyspiel.PlayerId.CHANCE, a)
            else:
                c = hearts_card(a)
                if verify:
                    check(s.action_to_string(pyspiel.PlayerId.CHANCE, a) == c,
                          "card id mismatch %d" % a)
                hands[n_dealt % HEARTS_PLAYERS].append(c)   # hearts.cc:475
                n_dealt += 1
            s.apply_action(a)
            continue
        p = s.current_player()
        options = s.legal_actions()
        legal.append(sorted(hearts_card(x) for x in options))  # what this decision could have been
        a = rng.choice(options)
        c = hearts_card(a)
        if verify:
            check(s.action_to_string(p, a) == c, "card id mismatch %d" % a)
        if pass_dir != 0 and sum(map(len, passes)) < 4 * HEARTS_PASS:
            # Pass phase: seats 0,1,2,3 each pass 3 cards (hearts.cc:491-507)
            check(p == sum(map(len, passes)) // HEARTS_PASS, "pass order")
            passes[p].append(c)
            s.apply_action(a)
            continue
        if trick is None:
            trick = {"leader": p, "cards": []}
        else:
            check(p == (trick["leader"] + len(trick["cards"])) % 4, "order")
        trick["cards"].append(c)
        s.apply_action(a)
        if len(trick["cards"]) == HEARTS_PLAYERS:
            trick["winner"] = trick_won(s, winner_no_trump(trick["leader"], trick["cards"], 4), deal_index)
            plays.append(trick)
            trick = None

    returns = list(s.returns())
    points = [float(s.points(i)) for i in range(HEARTS_PLAYERS)]
    trick_points = [0] * HEARTS_PLAYERS
    for t in plays:
        trick_points[t["winner"]] += sum(hearts_points_of(c, jd_bonus)
                                         for c in t["cards"])
    # Moon: every trick with points != 0 and != -10 won by one player
    # (hearts.cc:545-567).
    point_winners = {t["winner"] for t in plays
                     if sum(hearts_points_of(c, jd_bonus) for c in t["cards"])
                     not in (0, -10)}
    shooter = next(iter(point_winners)) if len(point_winners) == 1 else None
    expect = list(trick_points)
    if shooter is not None:
        expect = [v - 26 if i == shooter else v + 26
                  for i, v in enumerate(expect)]
    if params.get("avoid_all_tricks_bonus", False) and shooter is None:
        won = [0] * 4
        for t in plays:
            won[t["winner"]] += 1
        expect = [v - 5 if won[i] == 0 else v for i, v in enumerate(expect)]
    check(expect == points, "deal %d: points %r != expected %r"
          % (deal_index, points, expect))
    check(returns == [26.0 - v for v in points], "returns formula")

    if verify:
        parsed = parse_hearts_string(str(s))
        check(parsed["pass_direction"] == pass_name, "pass dir string")
        check(parsed["hands"] == [sort_cards(h) for h in hands], "hands")
        if pass_dir != 0:
            check(parsed["passes"] == passes, "passes")
        check(parsed["tricks"] == [(t["leader"], t["cards"]) for t in plays],
              "tricks")
        check(parsed["points"] == points, "points string")

    return {
        "game": "hearts",
        "players": HEARTS_PLAYERS,
        "params": dict(sorted(params.items())),
        "deal": deal_index,
        "pass_direction": pass_name,
        "pass_direction_id": pass_dir,
        "hands": [sort_cards(h) for h in hands],
        "passes": passes if pass_dir != 0 else [],
        "plays": plays,
        "legal": legal,
        "trick_points": [float(v) for v in trick_points],
        "moon_shooter": shooter,
        "points": points,
        "returns": returns,
        "actions": list(s.history()),
    }


# --------------------------------------------------------------- oh_hell ---

def parse_oh_hell_string(text, players):
    """Parse OhHellState::ToString() of a terminal state (oh_hell.cc:130-141)."""
    out = {"hands": [[] for _ in range(players)], "tricks": []}
    seat = None
    in_tricks = False
    for line in text.split("\n"):
        if line.startswith("Num Total Tricks:"):
            out["tricks_n"] = int(line.split(":")[1])
        elif line.startswith("Dealer:"):
            out["dealer"] = int(line.split(":")[1])
        elif line.startswith("Player:"):
            seat = int(line.split(":")[1])
        elif line.startswith("    ") and seat is not None and ":" in line:
            suit, ranks = line.strip().split(":", 1)
            out["hands"][seat] += [r + suit for r in ranks.strip()]
        elif line.startswith("Trump:"):
            sr = line.split(":")[1].strip()          # suit + rank
            out["trump_card"] = sr[1] + sr[0]
            seat = None
        elif line.startswith("Tricks:"):
            in_tricks = True
        elif line.startswith("Bids:"):
            in_tricks = False
            out["bids"] = [int(x) for x in line.split(":")[1].split()]
        elif line.startswith("Tricks Won:"):
            out["tricks_won"] = [int(x) for x in line.split(":")[1].split()]
        elif line.startswith("Score:"):
            out["score"] = [float(x) for x in line.split(":")[1].split()]
        elif in_tricks and line.strip() and not line.startswith("0  "):
            indent = len(line) - len(line.lstrip(" "))
            cards = [sr[1] + sr[0] for sr in line.split()]
            out["tricks"].append((indent // 3, cards))
    out["hands"] = [sort_cards(h) for h in out["hands"]]
    return out


def play_oh_hell(game, rng, deal_index, verify):
    params = game.get_parameters()
    players = game.num_players()
    num_suits = params["num_suits"]
    num_cards = num_suits * params["num_cards_per_suit"]
    s = game.new_initial_state()
    n_chance = 0
    n_tricks = dealer = trump = None
    hands = [[] for _ in range(players)]
    bids = []
    plays = []
    legal = []
    trick = None
    while not s.is_terminal():
        if s.is_chance_node():
            a = rng.choice(s.chance_outcomes())[0]
            if n_chance == 0:
                n_tricks = a                       # oh_hell.cc:371-375
            elif n_chance == 1:
                dealer = a                         # oh_hell.cc:377-380
            else:
                c = oh_hell_card(a, num_suits)
                if verify:
                    sr = s.action_to_string(pyspiel.PlayerId.CHANCE, a)
                    check(sr[1] + sr[0] == c, "card id mismatch %d" % a)
                k = n_chance - 2
                if k < players * n_tricks:
                    hands[k % players].append(c)   # oh_hell.cc:385-388
                else:
                    trump = c                      # oh_hell.cc:389-393
            n_chance += 1
            s.apply_action(a)
            continue
        p = s.current_player()
        options = s.legal_actions()
        legal.append(sorted(x - num_cards if x >= num_cards else oh_hell_card(x, num_suits) for x in options))
        a = rng.choice(options)
        if a >= num_cards:                         # bid
            if verify:
                check(s.action_to_string(p, a) == str(a - num_cards), "bid")
            bids.append([p, a - num_cards])
            s.apply_action(a)
            continue
        c = oh_hell_card(a, num_suits)
        if verify:
            sr = s.action_to_string(p, a)
            check(sr[1] + sr[0] == c, "card id mismatch %d" % a)
        if trick is None:
            trick = {"leader": p, "cards": []}
        trick["cards"].append(c)
        s.apply_action(a)
        if len(trick["cards"]) == players:
            computed = winner_trump(trick["leader"], trick["cards"], trump[1],
                                    players)
            if not s.is_terminal():
                trick["winner"] = s.current_player()   # OpenSpiel's winner
                check(trick["winner"] == computed,
                      "deal %d: rule/OpenSpiel winner mismatch" % deal_index)
            else:
                trick["winner"] = None                  # from string below
                last_computed = computed
            plays.append(trick)
            trick = None

    parsed = parse_oh_hell_string(str(s), players)
    won_before = [0] * players
    for t in plays[:-1]:
        won_before[t["winner"]] += 1
    diff = [w - b for w, b in zip(parsed["tricks_won"], won_before)]
    check(sorted(diff) == [0] * (players - 1) + [1], "tricks won counters")
    plays[-1]["winner"] = diff.index(1)
    check(plays[-1]["winner"] == last_computed,
          "deal %d: last trick rule/OpenSpiel mismatch" % deal_index)
    tricks_won = parsed["tricks_won"]
    returns = list(s.returns())
    bid_of = [None] * players
    for seat, b in bids:
        bid_of[seat] = b
    ppt = params["points_per_trick"]
    for i in range(players):                       # oh_hell.cc:438-456
        made = tricks_won[i] == bid_of[i]
        if params["off_bid_penalty"]:
            exp = ppt * tricks_won[i] + 10 if made else \
                -ppt * abs(tricks_won[i] - bid_of[i])
        else:
            exp = ppt * tricks_won[i] + (10 if made else 0)
        check(returns[i] == exp, "returns formula")
    if verify:
        check(parsed["tricks_n"] == n_tricks and parsed["dealer"] == dealer,
              "header")
        check(parsed["hands"] == [sort_cards(h) for h in hands], "hands")
        check(parsed["trump_card"] == trump, "trump")
        check(parsed["bids"] == bid_of, "bids")
        check(parsed["tricks"] == [(t["leader"], t["cards"]) for t in plays],
              "tricks")
        check(parsed["score"] == returns, "score")

    return {
        "game": "oh_hell",
        "players": players,
        "params": dict(sorted(params.items())),
        "deal": deal_index,
        "tricks": n_tricks,
        "dealer": dealer,
        "hands": [sort_cards(h) for h in hands],
        "trump_card": trump,
        "trump_suit": trump[1],
        "bids": bids,
        "plays": plays,
        "legal": legal,
        "tricks_won": tricks_won,
        "returns": returns,
        "actions": list(s.history()),
    }


# ---------------------------------------------------------------- spades ---

SPADES_PLAYERS = 4
SPADES_BID_BASE = 52                       # spades.h kBiddingActionBase = kNumCards


def spades_card(a):
    """spades.cc:80-92: id = suit*13 + rank, suits C D H S; action_to_string is suit+rank ("SQ")."""
    return RANKS[a % 13] + SUITS[a // 13]


def play_spades(game, rng, deal_index, verify):
    s = game.new_initial_state()
    hands = [[] for _ in range(SPADES_PLAYERS)]
    bids, plays, legal = [], [], []
    n_dealt = 0
    trick = None
    while not s.is_terminal():
        if s.is_chance_node():
            a = rng.choice(s.chance_outcomes())[0]
            c = spades_card(a)
            if verify:
                sr = s.action_to_string(pyspiel.PlayerId.CHANCE, a)
                check(sr[1] + sr[0] == c, "card id mismatch %d" % a)
            hands[n_dealt % SPADES_PLAYERS].append(c)   # spades.cc ApplyDealAction
            n_dealt += 1
            s.apply_action(a)
            continue
        p = s.current_player()
        options = s.legal_actions()
        legal.append(sorted(x - SPADES_BID_BASE if x >= SPADES_BID_BASE else spades_card(x) for x in options))
        a = rng.choice(options)
        if a >= SPADES_BID_BASE:
            bids.append([p, a - SPADES_BID_BASE])
            s.apply_action(a)
            continue
        c = spades_card(a)
        if trick is None:
            trick = {"leader": p, "cards": []}
        else:
            check(p == (trick["leader"] + len(trick["cards"])) % SPADES_PLAYERS, "order")
        trick["cards"].append(c)
        s.apply_action(a)
        if len(trick["cards"]) == SPADES_PLAYERS:
            computed = winner_trump(trick["leader"], trick["cards"], "S", SPADES_PLAYERS)
            trick["winner"] = trick_won(s, computed, deal_index)  # the last: checked by the returns
            plays.append(trick)
            trick = None
    return {
        "game": "spades",
        "players": SPADES_PLAYERS,
        "params": dict(sorted(game.get_parameters().items())),
        "deal": deal_index,
        "hands": [sort_cards(h) for h in hands],
        "bids": bids,
        "plays": plays,
        "legal": legal,
        "returns": list(s.returns()),
        "actions": list(s.history()),
    }


# ---------------------------------------------------------------- euchre ---

EUCHRE_PLAYERS = 4
EUCHRE_RANKS = "9TJQKA"                    # euchre.h:88 kRankChar
EUCHRE_SUITS = "CDHS"                      # euchre.h:89 kSuitChar (suit index order)
EUCHRE_NUM_CARDS = 24
EUCHRE_DEALT = EUCHRE_PLAYERS * 5          # euchre.cc:539-548; the 21st card is the upcard
EUCHRE_PASS = 24                           # euchre.h:50-56
EUCHRE_CALL_BASE = 25                      # 25..28 = C D H S trump
EUCHRE_ALONE = 29
EUCHRE_PARTNER = 30
EUCHRE_ACTION_NAMES = {24: "pass", 25: "C", 26: "D", 27: "H", 28: "S",
                       29: "alone", 30: "partner"}
EUCHRE_ACTION_STRINGS = {24: "Pass", 25: "Clubs", 26: "Diamonds", 27: "Hearts",
                         28: "Spades", 29: "Alone", 30: "Partner"}  # euchre.cc:98-108
EUCHRE_SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}        # euchre.cc:63-65


def euchre_card(a):
    """euchre.h:80-100: id = rank*4 + suit, suits C D H S, ranks 9 T J Q K A;
    action_to_string is suit+rank ("HJ")."""
    return EUCHRE_RANKS[a // 4] + EUCHRE_SUITS[a % 4]


def euchre_name(a):
    return euchre_card(a) if a < EUCHRE_NUM_CARDS else EUCHRE_ACTION_NAMES[a]


def euchre_suit(card, trump):
    """euchre.cc:69-74: the jack of trump's colour partner (left bower) is trump."""
    if card[0] == "J" and EUCHRE_SAME_COLOUR[card[1]] == trump:
        return trump
    return card[1]


def euchre_rank(card, trump):
    """euchre.cc:77-85: right bower 100 > left bower 99 > A K Q T 9 by rank."""
    if card[0] == "J" and card[1] == trump:
        return 100
    if card[0] == "J" and euchre_suit(card, trump) == trump:
        return 99
    return EUCHRE_RANKS.index(card[0])


def winner_euchre(seats, cards, trump):
    """euchre.cc:714-749 (Trick::Play): highest trump (bowers first), else the
    highest card of the led effective suit.  `seats` are the players in order."""
    best = 0
    for i in range(1, len(cards)):
        c, w = cards[i], cards[best]
        cs, ws = euchre_suit(c, trump), euchre_suit(w, trump)
        if cs == trump:
            if ws != trump or euchre_rank(c, trump) > euchre_rank(w, trump):
                best = i
        elif ws != trump and cs == ws and \
                euchre_rank(c, trump) > euchre_rank(w, trump):
            best = i
    return seats[best]


def euchre_score(tricks_won_by_makers, alone, lone_defender=False):
    """euchre.cc:679-708: makers 0-2 tricks -2 (-4 with a lone defender);
    3-4 tricks 1; 5 tricks 2, or 4 alone."""
    if tricks_won_by_makers <= 2:
        return -4 if lone_defender else -2
    if tricks_won_by_makers <= 4:
        return 1
    return 4 if alone else 2


def play_euchre(game, rng, deal_index, verify):
    params = game.get_parameters()
    check(not params["allow_lone_defender"],
          "allow_lone_defender=True is not recorded")
    s = game.new_initial_state()
    dealer = upcard = trump = maker = discard = None
    alone = discard_pending = False
    hands = [[] for _ in range(EUCHRE_PLAYERS)]
    decisions, plays, legal = [], [], []
    n_dealt = 0
    n_calls = 0
    trick = None
    while not s.is_terminal():
        if s.is_chance_node():
            a = rng.choice(s.chance_outcomes())[0]
            if dealer is None:
                dealer = a                                # euchre.cc:532-536
                if verify:
                    check(s.action_to_string(pyspiel.PlayerId.CHANCE, a)
                          == "NESW"[a], "dealer string")
            else:
                c = euchre_card(a)
                if verify:
                    sr = s.action_to_string(pyspiel.PlayerId.CHANCE, a)
                    check(sr[1] + sr[0] == c, "card id mismatch %d" % a)
                if n_dealt < EUCHRE_DEALT:
                    hands[(dealer + n_dealt) % EUCHRE_PLAYERS].append(c)  # euchre.cc:546
                else:
                    upcard = c                            # euchre.cc:539-544
                n_dealt += 1
            s.apply_action(a)
            continue
        p = s.current_player()
        options = s.legal_actions()
        legal.append(sorted(euchre_name(x) for x in options))
        a = rng.choice(options)
        name = euchre_name(a)
        if verify:
            sr = s.action_to_string(p, a)
            if a < EUCHRE_NUM_CARDS:
                check(sr[1] + sr[0] == name, "card id mismatch %d" % a)
            else:
                check(sr == EUCHRE_ACTION_STRINGS[a], "action string %d" % a)
        if a >= EUCHRE_PASS:                              # call / alone choice
            if a <= EUCHRE_CALL_BASE + 3:
                check(p == (dealer + 1 + n_calls) % EUCHRE_PLAYERS, "call order")
                n_calls += 1
                if a != EUCHRE_PASS:
                    maker, trump = p, name
                    # ordered up in the first round: the dealer discards next
                    discard_pending = n_calls <= EUCHRE_PLAYERS
            else:
                check(p == maker, "alone choice by the maker")
                alone = a == EUCHRE_ALONE
            decisions.append([p, name])
            s.apply_action(a)
            continue
        if discard_pending:
            # The dealer's discard after the upcard was ordered up (euchre.cc:584-602)
            check(p == dealer and name != upcard, "discard")
            discard, discard_pending = name, False
            decisions.append([p, name])
            s.apply_action(a)
            continue
        if trick is None:
            trick = {"leader": p, "cards": [], "seats": []}
        trick["cards"].append(name)
        trick["seats"].append(p)
        s.apply_action(a)
        if len(trick["cards"]) == (3 if alone else 4):
            trick["winner"] = trick_won(s, winner_euchre(trick["seats"], trick["cards"], trump), deal_index)
            plays.append(trick)
            trick = None

    returns = list(s.returns())
    if maker is None:                                     # 8 passes: euchre.cc:554-556
        check(returns == [0.0] * 4 and not plays, "all passed")
    else:
        check(len(plays) == 5, "five tricks")
        won = sum(t["winner"] in (maker, (maker + 2) % 4) for t in plays)
        score = euchre_score(won, alone)
        expect = [float(score if (i - maker) % 2 == 0 else -score)
                  for i in range(EUCHRE_PLAYERS)]
        check(returns == expect, "deal %d: returns %r != expected %r"
              % (deal_index, returns, expect))
    if verify:
        check(s.dealer() == dealer, "dealer accessor")
        check(euchre_card(s.upcard()) == upcard, "upcard accessor")
        if maker is not None:
            check(s.declarer() == maker and s.declarer_go_alone() == alone,
                  "declarer accessors")
            check(EUCHRE_SUITS[s.trump_suit()] == trump, "trump accessor")
            ot = s.tricks()
            check([(t.leader(), [euchre_card(c) for c in t.cards()], t.winner())
                   for t in ot]
                  == [(t["leader"], t["cards"], t["winner"]) for t in plays],
                  "deal %d: tricks() accessor" % deal_index)
            check((euchre_card(s.discard()) if s.discard() >= 0 else None)
                  == discard, "discard accessor")

    return {
        "game": "euchre",
        "players": EUCHRE_PLAYERS,
        "params": dict(sorted(params.items())),
        "deal": deal_index,
        "dealer": dealer,
        "hands": [sort_cards(h) for h in hands],
        "upcard": upcard,
        "decisions": decisions,
        "plays": plays,
        "legal": legal,
        "returns": returns,
        "actions": list(s.history()),
    }


# ------------------------------------------------------------------ main ---

def validate_euchre(rec):
    """Structural checks of a euchre record, independent of OpenSpiel."""
    n = EUCHRE_PLAYERS
    hands = [list(h) for h in rec["hands"]]
    dealer, upcard, dec = rec["dealer"], rec["upcard"], rec["decisions"]
    check(n == rec["players"] and 0 <= dealer < n, "players / dealer")
    check(all(len(h) == 5 for h in hands), "five cards each")
    check(len(set(sum(hands, [upcard]))) == EUCHRE_DEALT + 1, "cards dealt twice")
    i = 0
    while i < len(dec) and dec[i][1] == "pass":
        check(dec[i][0] == (dealer + 1 + i) % n, "call order")
        i += 1
    if i == len(dec):                          # everybody passed twice
        check(i == 2 * n and not rec["params"]["stick_the_dealer"],
              "all passed")
        check(not rec["plays"] and rec["returns"] == [0.0] * n, "all passed")
        check(len(rec["legal"]) == 2 * n, "legal per decision")
        return
    maker, trump = dec[i]
    check(maker == (dealer + 1 + i) % n and trump in EUCHRE_SUITS, "call")
    if i < n:                                  # ordered up: dealer takes it
        check(trump == upcard[1], "first round calls the upcard's suit")
        check(dec[i + 1][0] == dealer, "dealer discards")
        discard = dec[i + 1][1]
        hands[dealer].append(upcard)
        check(discard != upcard and discard in hands[dealer], "discard")
        hands[dealer].remove(discard)
        j = i + 2
    else:
        check(trump != upcard[1], "second round may not name the upcard's suit")
        j = i + 1
    check(len(dec) == j + 1 and dec[j][0] == maker
          and dec[j][1] in ("alone", "partner"), "alone/partner choice")
    absent = (maker + 2) % n if dec[j][1] == "alone" else None
    active = [seat for seat in range(n) if seat != absent]
    leader = (dealer + 1) % n
    if leader == absent:
        leader = (leader + 1) % n
    played = [[] for _ in range(n)]
    check(len(rec["plays"]) == 5, "five tricks")
    for t in rec["plays"]:
        check(len(t["cards"]) == len(active) and len(t["seats"]) == len(active),
              "trick size")
        check(t["leader"] == leader and t["seats"][0] == leader,
              "leader != previous winner")
        k = active.index(leader)
        check(t["seats"] == [active[(k + m) % len(active)]
                             for m in range(len(active))], "seat order")
        for seat, c in zip(t["seats"], t["cards"]):
            played[seat].append(c)
        check(t["winner"] in t["seats"], "winner")
        leader = t["winner"]
    if absent is not None:
        check(not played[absent], "lone maker's partner played")
        hands[absent] = []
    check([sorted(x) for x in played] == [sorted(x) for x in hands],
          "played cards != held cards")
    check(len(rec["legal"]) == len(dec) + 5 * len(active), "legal per decision")
    check(rec["returns"][0] == rec["returns"][2] == -rec["returns"][1]
          == -rec["returns"][3], "partners score alike")


def validate_record(rec):
    """Structural checks, independent of OpenSpiel."""
    if rec["game"] == "euchre":
        return validate_euchre(rec)
    n = rec["players"]
    hands = [list(h) for h in rec["hands"]]
    if rec["game"] == "hearts" and rec["passes"]:
        d = rec["pass_direction_id"]
        for seat in range(n):
            for c in rec["passes"][seat]:
                hands[seat].remove(c)
        for seat in range(n):
            hands[(seat + d) % n] += rec["passes"][seat]
    played = [[] for _ in range(n)]
    prev_winner = None
    for t in rec["plays"]:
        check(len(t["cards"]) == n, "trick size")
        if prev_winner is not None:
            check(t["leader"] == prev_winner, "leader != previous winner")
        for i, c in enumerate(t["cards"]):
            played[(t["leader"] + i) % n].append(c)
        prev_winner = t["winner"]
    check([sorted(x) for x in played] == [sorted(x) for x in hands],
          "played cards != held cards")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", required=True,
                    choices=["hearts", "oh_hell", "spades", "euchre"])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, default=None,
                    help="oh_hell: 3..7 (OpenSpiel default 3); "
                    "hearts, spades, euchre: 4 only")
    ap.add_argument("--tricks", type=int, default=None,
                    help="oh_hell: fixed hand size (default: random per deal)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--no-verify", action="store_true",
                    help="skip per-action string checks against OpenSpiel")
    args = ap.parse_args(argv)

    rng = random.Random(args.seed)
    verify = not args.no_verify
    t0 = time.time()
    games = {}
    if args.game in ("hearts", "spades", "euchre"):
        if args.players not in (None, 4):
            ap.error("%s is 4 players only" % args.game)
        games[None] = pyspiel.load_game(args.game)
        max_tricks = None
    else:
        players = 3 if args.players is None else args.players
        if not 3 <= players <= 7:
            ap.error("oh_hell needs 3..7 players")
        # OpenSpiel's MaxNumTricks (oh_hell.h:255-258); the constructor check
        # at oh_hell.cc:93-95 is vacuous, larger values fail mid-deal.
        max_tricks = (52 - 1) // players
        if args.tricks is not None and not 1 <= args.tricks <= max_tricks:
            ap.error("--tricks must be in 1..%d for %d players"
                     % (max_tricks, players))

    with open(args.out, "w") as f:
        for d in range(args.deals):
            if args.game == "hearts":
                rec = play_hearts(games[None], rng, d, verify)
            elif args.game == "spades":
                rec = play_spades(games[None], rng, d, verify)
            elif args.game == "euchre":
                rec = play_euchre(games[None], rng, d, verify)
            else:
                t = args.tricks if args.tricks is not None else \
                    rng.randint(1, max_tricks)
                if t not in games:
                    games[t] = pyspiel.load_game(
                        "oh_hell", {"players": players, "num_tricks_fixed": t})
                rec = play_oh_hell(games[t], rng, d, verify)
            validate_record(rec)
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            if (d + 1) % 1000 == 0:
                print("%s: %d/%d deals, %.1fs" % (args.game, d + 1, args.deals,
                                                  time.time() - t0),
                      file=sys.stderr, flush=True)
    print("%s: wrote %d deals to %s in %.1fs (seed %d, pyspiel %s)"
          % (args.game, args.deals, args.out, time.time() - t0, args.seed,
             getattr(pyspiel, "__version__", "?")), file=sys.stderr)


if __name__ == "__main__":
    main()
