"""The SQL archive of finished games and ended tournaments (docs/archive.md).

``database``: URL, engine and migrations; ``schema``: the tables; ``codec``: a game's
compact record and the replay that rebuilds its log; ``archive``: reads and writes;
``archiver``: the outbox-to-SQL mover every replica runs."""
