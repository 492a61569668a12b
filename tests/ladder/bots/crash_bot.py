"""A bad ladder bot: it dies on the first act it reads (its runner starts it again)."""

import sys

for line in sys.stdin:
    if '"type":"act"' in line:
        sys.exit(3)
