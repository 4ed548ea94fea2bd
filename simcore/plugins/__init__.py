"""User strategies from a file (``--plugin my_strategy.py``), compiled into the kernel.

A plug-in file names its game and strategy and defines compiled decision functions with the
signatures of the built-ins (docs/strategies.md)::

    GAME = "bird-weather"
    NAME = "lowball"

    @njit
    def choose_play(params, seat, hand, legal, seen, table, number, follow, rules, streams): ...

A play loop that called the user's functions by name would be compiled again for every plug-in
and at every edit of one, since Numba links a callee's code into its caller.  Instead each game
has one plug-in build, and the package's modules are its four parts:

- ``loading``: the file loaded as a module, named by its contents (``load_plugin``);
- ``table``: this process's table of compiled decisions' addresses; a plug-in's functions are
  compiled alone, for the argument types the game declares (``PLUGIN_TYPES``), cached, and
  given a row (``plugin_row``), so an edit compiles only them;
- ``dispatch``: the game's ``plugin_*`` dispatchers, which call the decision at the address in
  a row, and the build of the play loop around them (``plugin_build``): copies of the game's
  strategy and play-loop files (``simcore.codegen``) in a folder of the compile cache named by a
  hash of the engine sources, so it is compiled once per machine, whatever the plug-ins;
- ``writes``: a plug-in is handed the game's live arrays, so before a run ``check_writes``
  plays a few games with the dispatchers in checking mode and refuses, in one line, a plug-in
  that writes anywhere but its own random stream and a declared scratch area
  (docs/strategies.md, "What a plug-in may write").

The stock modules and their cache are untouched.  Cost measured in docs/perf-notes/.
"""
