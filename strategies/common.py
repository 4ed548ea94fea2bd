"""What the players of several card games share: the random player's draw of one card."""
from simcore.bits import kth_set_bit, popcount
from simcore.jit import kernel
from simcore.rng import PLAY, below, below_in_row


@kernel(globals(), inline="always")
def random_card(mask, streams):
    """A uniform pick among the set bits of ``mask``: one draw from the seat's PLAY stream."""
    return kth_set_bit(mask, below(streams, PLAY, popcount(mask)))


@kernel(globals(), inline="always")
def random_card_of_seat(mask, seat_streams, seat):
    """``random_card(mask, seat_streams[seat])``, the same draw, for the play loop: it reads the
    seat's row in place instead of making it a view (simcore/rng.py, ``below_in_row``)."""
    return kth_set_bit(mask, below_in_row(seat_streams, seat, PLAY, popcount(mask)))
