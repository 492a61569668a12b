"""Bot turns run by the service: which bot is to move and its job (``bot_turns``), the
sweep that claims and commits turns (``bot_runner``), the local process pool (``bot_pool``)
and move hints, which run the same search (``hints``)."""
