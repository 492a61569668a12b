"""Pool children (bot searches, SQL calls) that never outlive their replica."""

from __future__ import annotations

import os
import threading
import time


def exit_with(replica_pid: int) -> None:
    """Pool child: exit as soon as the replica that started us is gone (even by kill -9)."""

    def watch() -> None:
        while True:
            try:
                os.kill(replica_pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True, name="replica-watch").start()
