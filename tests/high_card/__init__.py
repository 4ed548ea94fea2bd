"""High Card: a sixth game that lives only in the tests.  It is written exactly as
docs/architecture.md ("Adding a game") says a game is written, and registered only while a test
runs (``conftest.high_card_registered``), so it proves that path and gets the whole conformance
suite without any change to simcore/."""
