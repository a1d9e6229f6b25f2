"""`fishing2sim serve`: the web app (docs/serve.md). Starlette routes over the tables in
memory; every request passes the guard first (the Host header, then the start's token)."""
from __future__ import annotations

import secrets
import sys
from collections import OrderedDict
from importlib.resources import files
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from fishing2sim.errors import Fishing2simError, InputError
from fishing2sim.safe_files import read_regular
from fishing2sim.serve import pages
from fishing2sim.report.viewer import asset, game_key, read_examples
from fishing2sim.serve.offer import Offer, make_offer
from fishing2sim.serve.reports import report_file, report_folders
from fishing2sim.serve.hints import hint, review
from fishing2sim.serve.reports import report_game
from fishing2sim.serve.table import Table
from fishing2sim.serve.view import replay, table_view

MAX_TABLES = 64  # games kept in memory; the oldest is dropped past it
STATIC = {"play.js": "text/javascript", "style.css": "text/css"}
VIEWER = {"viewer.js": "text/javascript", "viewer.css": "text/css"}  # the report's viewer


class Guard:
    """ASGI middleware: a request whose Host header is not one of ``hosts`` is refused
    (400: a page of another site reaching this server by DNS rebinding); one without the
    token (in the query, which sets the cookie, or in the cookie) is refused (403)."""

    def __init__(self, app, token: str, hosts: set[str], cookie: str):
        self.app, self.token, self.hosts, self.cookie = app, token, hosts, cookie

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if host not in self.hosts:
            resp = pages.error(400, "Unknown host", f"This server answers to "
                               f"{' or '.join(sorted(self.hosts))} only, not to "
                               f"{host or 'a request without a Host header'}.")
            return await resp(scope, receive, send)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
        given = dict(query).get("token")
        if given is not None and secrets.compare_digest(given, self.token):
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            resp = RedirectResponse(scope["path"] + ("?" + rest if rest else ""), 303)
            resp.set_cookie(self.cookie, self.token, httponly=True, samesite="strict")
            return await resp(scope, receive, send)
        cookies = Request(scope).cookies
        if not secrets.compare_digest(cookies.get(self.cookie, ""), self.token):
            resp = pages.error(403, "Token needed", "Open the address the server printed "
                               "when it started (it ends in ?token=...).")
            return await resp(scope, receive, send)
        return await self.app(scope, receive, send)


def _guarded(fn):
    """A route whose user errors are a clear page (or JSON under /api), never a
    traceback; an unexpected error is a 500 page naming it."""
    async def route(request: Request):
        api = request.url.path.startswith("/api/")
        try:
            form = {}
            if request.method == "POST":
                body = await request.body()
                if len(body) > 65536:
                    raise InputError("the request's body is over 64 KiB")
                form = dict(parse_qsl(body.decode("utf-8", "replace")))
            return await run_in_threadpool(fn, request, form)
        except Fishing2simError as exc:
            return JSONResponse({"error": str(exc)}, 400) if api else \
                pages.error(400, "Bad request", str(exc))
        except LookupError as exc:
            msg = exc.args[0] if exc.args else "not found"
            return JSONResponse({"error": msg}, 404) if api else \
                pages.error(404, "Not found", msg)
        except Exception as exc:  # noqa: BLE001  (a bug: one line on the console, a page)
            print(f"fishing2sim serve: {request.url.path}: {type(exc).__name__}: {exc}",
                  file=sys.stderr)
            return JSONResponse({"error": f"internal error: {exc}"}, 500) if api else \
                pages.error(500, "Internal error", f"{type(exc).__name__}: {exc}")
    route.__name__ = fn.__name__
    return route


class Routes:
    """The app's pages and API over its tables (in memory, the oldest dropped past
    MAX_TABLES) and the report folders under ``folder``."""

    def __init__(self, folder: Path, offer: Offer):
        self.folder = Path(folder)
        self.offer = offer
        self.tables: OrderedDict = OrderedDict()

    def table(self, request: Request):
        t = self.tables.get(request.path_params["game"])
        if t is None:
            raise LookupError("no such game (games live as long as the server: start a new "
                              "one)")
        return t

    def home(self, request: Request, form: dict):
        return pages.home(report_folders(self.folder), self.offer)

    def new_game(self, request: Request, form: dict):
        return self.keep(Table(**pages.table_args(form, self.offer)))

    def game_page(self, request: Request, form: dict):
        self.table(request)
        return pages.play(request.path_params["game"])

    def game_json(self, request: Request, form: dict):
        t = self.table(request)
        with t.lock:
            return JSONResponse(table_view(t))

    def answer(self, request: Request, form: dict):
        t = self.table(request)
        option = form.get("option", "")
        if not option.lstrip("-").isdigit():
            raise InputError(f"option must be a whole number, got {option!r}")
        with t.lock:
            t.answer(int(option))
            return JSONResponse(table_view(t))

    def hint(self, request: Request, form: dict):
        t = self.table(request)
        with t.lock:
            if t.over:
                raise InputError("the game is over: there is no decision to hint")
            return JSONResponse(hint(t))

    def review(self, request: Request, form: dict):
        t = self.table(request)
        with t.lock:
            if not t.over:
                raise InputError("the review comes when the game is over")
            return JSONResponse(review(t))

    def replay(self, request: Request, form: dict):
        return pages.replay(replay(**pages.replay_args(dict(request.query_params), self.offer)))

    def report_replay(self, request: Request, form: dict):
        q = dict(request.query_params)
        name = request.path_params["name"]
        condition = pages.whole(q, "condition", 0, 10**6)
        args = report_game(self.folder, name, condition, pages.whole(q, "game", 0, 2**63 - 1))
        stored = read_examples(self.folder / name, lambda message: None) or {"games": {}}
        r = stored["games"].get(game_key(condition, args["game"]))  # an example game
        if not isinstance(r, dict) or "end" not in r:
            r = replay(**args)
        r = {**r, "source": args["title_extra"]}
        return pages.replay(r)

    def report_play(self, request: Request, form: dict):
        args = report_game(self.folder, request.path_params["name"],
                           pages.whole(form, "condition", 0, 10**6),
                           pages.whole(form, "game", 0, 2**63 - 1))
        seat = pages.whole(form, "seat", 0, args["players"] - 1)
        t = Table(args["ruleset"], args["players"], seat, args["bots"], args["seed"],
                  args["game"], args["deck"], args["params"], args["first_leader"],
                  args["title_extra"])
        return self.keep(t)

    def keep(self, t) -> RedirectResponse:
        gid = secrets.token_urlsafe(9)
        self.tables[gid] = t
        while len(self.tables) > MAX_TABLES:
            self.tables.popitem(last=False)
        return RedirectResponse(f"/game/{gid}", 303)

    def reports(self, request: Request, form: dict):
        return pages.reports(report_folders(self.folder))

    def report(self, request: Request, form: dict):
        name = request.path_params["name"]
        path, media = report_file(self.folder, name,
                                  request.path_params.get("file", "report.html"))
        return Response(read_regular(path, within=path.parent), media_type=media)

    def static(self, request: Request, form: dict):
        name = request.path_params["name"]
        if name in VIEWER:
            return Response(asset(name), media_type=VIEWER[name])
        if name not in STATIC:
            raise LookupError(f"no such file: /static/{name}")
        return Response((files("fishing2sim.serve") / "static" / name).read_bytes(),
                        media_type=STATIC[name])


async def _not_found(request, exc):
    code = getattr(exc, "status_code", 404)
    return pages.error(code, "Not found" if code == 404 else "Bad request",
                       f"{request.url.path}: "
                       f"{'no such page' if code == 404 else 'not allowed here'}")


def make_app(folder: Path, token: str, hosts: set[str], cookie: str = "fishing2sim_token",
             offer: Offer | None = None):
    """The app serving the report folders under ``folder``, guarded by ``token`` and the
    allowed Host headers ``hosts``; the start page offers ``offer``'s bots and decks (by
    default the shipped bots and the standard deck)."""
    r = Routes(folder, offer if offer is not None else make_offer())
    post = ["POST"]
    routes = [
        Route("/", _guarded(r.home)),
        Route("/new", _guarded(r.new_game), methods=post),
        Route("/game/{game}", _guarded(r.game_page)),
        Route("/api/game/{game}", _guarded(r.game_json)),
        Route("/api/game/{game}/answer", _guarded(r.answer), methods=post),
        Route("/api/game/{game}/hint", _guarded(r.hint)),
        Route("/api/game/{game}/review", _guarded(r.review)),
        Route("/replay", _guarded(r.replay)),
        Route("/replay/{name}", _guarded(r.report_replay)),
        Route("/play/{name}", _guarded(r.report_play), methods=post),
        Route("/reports", _guarded(r.reports)),
        Route("/reports/{name}", _guarded(r.report)),
        Route("/reports/{name}/{file}", _guarded(r.report)),
        Route("/static/{name}", _guarded(r.static)),
    ]
    app = Starlette(routes=routes, exception_handlers={404: _not_found, 405: _not_found})
    return Guard(app, token, hosts, cookie)
