"""A bad ladder bot: it answers every act with a line that is not {"id": N}."""

import sys

for line in sys.stdin:
    if '"type":"act"' in line:
        print("hello, ladder", flush=True)
