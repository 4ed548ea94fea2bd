"""Serving the studio: uvicorn on 127.0.0.1 (or ``--host`` with a warning), the address printed, a
browser opened where there is a screen, and a clean stop on Ctrl-C that leaves every saved
version intact (each is written atomically after every look; see ``balance.studio.store``)."""
from __future__ import annotations

import errno
import os
import socket
import sys
import threading

from simcore.errors import BalanceError

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def has_display() -> bool:
    """Whether opening a browser can show anything: a desktop session (macOS, Windows) or an X or
    Wayland display."""
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def check_port(host: str, port: int) -> None:
    """Refuse, in one line, a port that cannot be listened on, before anything is started."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise BalanceError(f"port {port} on {host} is in use (another studio?): give --port N") from None
            raise BalanceError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def serve(game: str, players: int, *, seed: int = 1, tier: str | None = None, cap: int, port: int,
          host: str = "127.0.0.1", browser: bool = True, folder=None, threads: int | None = None) -> None:
    import uvicorn

    from balance.studio.app import make_app
    from balance.studio.live import Studio

    check_port(host, port)
    studio = Studio(game, players, seed=seed, tier=tier, cap=cap, threads=threads, folder=folder)
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{port}/"
    if host not in LOOPBACK:
        print(f"balance studio: warning: listening on {host}: anyone who can reach this machine on port {port} "
              "can use the studio and change its versions", file=sys.stderr)
    print(f"balance studio: {studio.game.title}, {players} players, seed {seed}, at {address}", flush=True)
    print(f"balance studio: versions are kept in {studio.store.folder}; Ctrl-C stops the studio", flush=True)
    config = uvicorn.Config(make_app(studio), host=host, port=port, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    if browser and has_display():
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(address,)).start()
    try:
        server.run()
    finally:
        studio.close()
        print("balance studio: stopped; every version is kept", file=sys.stderr, flush=True)
