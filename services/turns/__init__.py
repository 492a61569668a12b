"""One turn over a stored game: a step and its commit (``steps``), the per-seat clock
(``clock``) and who controls a seat (``seat_control``)."""
