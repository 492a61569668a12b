"""Quick play (docs/accounts.md, "Quick play"): accounts queue for a game and player
count, the matchmaker seats accounts of close rating together, fills what is still
empty after the wait with house levels, and the game is rated."""
