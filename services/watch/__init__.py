"""What watchers see: the events a game writes (``events``) and their live fan-out to
subscribers (``hub``)."""
