"""A bad ladder bot: it answers every act with bytes that are not UTF-8 text."""

import sys

for line in sys.stdin:
    if '"type":"act"' in line:
        sys.stdout.buffer.write(b'\xff\xfe{"id": 0}\n')
        sys.stdout.buffer.flush()
