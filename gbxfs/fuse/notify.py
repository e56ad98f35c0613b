"""systemd readiness notification (sd_notify), without a library: one
datagram to the unix socket named by $NOTIFY_SOCKET."""
from __future__ import annotations

import os
import socket


def sd_notify(message: str, env: dict | None = None) -> bool:
    """Send e.g. "READY=1"; False when not run by systemd (or the send failed)."""
    path = (env if env is not None else os.environ).get("NOTIFY_SOCKET")
    if not path:
        return False
    if path.startswith("@"):  # abstract namespace socket
        path = "\0" + path[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
            s.connect(path)
            s.sendall(message.encode())
        return True
    except OSError:
        return False
