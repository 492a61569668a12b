"""The ladder (docs/ladder.md): bot accounts, the JSON-lines protocol's server side,
continuous matchmaking under a lease, and standings, all kept in the SQL archive.

``model``: names, statuses and the ladder's settings; ``accounts``: bot accounts
(keys stored hashed, faults, presence); ``lease``: the matchmaker's lease row;
``ledger``: ladder games, seats and ratings; ``pairing``: who plays whom (pure);
``protocol``: the lines a bot reads and the replies it writes (pure); ``matchmaker``:
the loop one replica runs under the lease; ``sessions``: a connected runner's stream
and its replies; ``service``: what the RPCs do."""
