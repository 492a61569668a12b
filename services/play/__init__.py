"""Games as clients see them: create, join, seat, submit and read (``host``), seat
changes (``seating``) and the sweep that deletes expired games (``expiry``)."""
