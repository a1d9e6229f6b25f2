"""Start the app (docs/serve.md): a socket bound on ``host`` (127.0.0.1 unless told),
a fresh random token per start, uvicorn serving until Ctrl-C."""
from __future__ import annotations

import secrets
import threading
import socket
from pathlib import Path

from fishing2sim.errors import InputError
from fishing2sim import first_run
from fishing2sim.serve.hints import hint
from fishing2sim.serve.offer import make_offer
from fishing2sim.serve.table import Table

LOCAL = ("127.0.0.1", "localhost", "::1")


def allowed_hosts(host: str, port: int) -> set[str]:
    """The Host headers the server answers to: the loopback names with the port, and the
    host it was told to listen on."""
    names = {"127.0.0.1", "localhost", "[::1]"}
    if host not in LOCAL:
        names.add(f"[{host}]" if ":" in host else host)
    return {f"{n}:{port}" for n in names}


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one), or an InputError."""
    if not 0 <= port <= 65535:
        raise InputError(f"--port must be from 0 to 65535, got {port}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def serve(folder: Path, host: str = "127.0.0.1", port: int = 8765, echo=print,
          must_exist: bool = True, strategy_files=(), deck_files=()) -> None:
    """Serve the app until Ctrl-C (KeyboardInterrupt is raised then, once the server has
    stopped). ``must_exist``: a missing ``folder`` is an error (else: no reports).
    ``strategy_files``, ``deck_files``: offered on the start page besides the shipped bots
    and the standard deck (read and checked now, serve/offer.py)."""
    try:
        import uvicorn

        # serve/app.py imports starlette, the serve extra: a missing one is named here
        from fishing2sim.serve.app import make_app
    except ImportError as exc:
        raise InputError(f"fishing2sim serve needs the serve extra ({exc.name} is missing): "
                         "pip install 'fishing2sim[serve]'") from None
    folder = Path(folder)
    if must_exist and not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    offer = make_offer(strategy_files, deck_files)
    sock = bind(host, port)
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(24)
    app = make_app(folder, token, allowed_hosts(host, port), cookie=f"fishing2sim_{port}",
                   offer=offer)
    shown = f"[{host}]" if ":" in host else host
    echo(f"fishing2sim serve: the reports under {folder.resolve()}"
         + ("" if folder.is_dir() else " (none yet: the folder does not exist)"))
    echo(f"open http://{shown}:{port}/?token={token}")
    echo("Ctrl-C stops it")
    threading.Thread(target=_warm, args=(echo,), daemon=True).start()
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=0.5,
                            timeout_keep_alive=2, lifespan="off", access_log=False)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    raise KeyboardInterrupt


def _warm(echo) -> None:
    """Load (on a cold cache: compile) the kernels, a bot, the hint's search and skilled
    while the start page is read, so that the first game does not wait for them."""
    if first_run.cold_cache():
        echo(f"{first_run.NOTICE}: the first game waits for it")
    try:
        hint(Table("fishing2", 4, 0, ["random", "greedy", "weights", "skilled"], 0))
    except Exception as exc:  # noqa: BLE001  (the first game then says what is wrong)
        echo(f"warming up failed: {type(exc).__name__}: {exc}")
