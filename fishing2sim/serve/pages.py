"""The server's HTML pages (every value escaped) and the checks of their forms."""
from __future__ import annotations

from html import escape

from starlette.responses import HTMLResponse

from fishing2sim.errors import InputError
from fishing2sim.report.viewer import embed_json

RULESETS = {"fishing2": "Fishing 2", "fishing": "Fishing"}
DEFAULT_BOTS = ["greedy", "weights", "skilled", "counter", "random"]


def _page(title: str, body: str, status: int = 200, head: str = "") -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{escape(title)} · fishing2sim</title>"
        f"<link rel='stylesheet' href='/static/style.css'>{head}</head><body>"
        "<nav><a href='/'>fishing2sim serve</a> · <a href='/reports'>reports</a></nav>"
        f"<main><h1>{escape(title)}</h1>{body}</main></body></html>", status)


def error(status: int, title: str, message: str) -> HTMLResponse:
    return _page(title, f"<p class='error' role='alert'>{escape(message)}</p>"
                 "<p><a href='/'>Back to the start page</a></p>", status)


def _deck_select(offer) -> str:
    names = ["standard", *offer.decks]
    return ("<label>deck <select name='deck'>"
            + "".join(f"<option>{escape(n)}</option>" for n in names) + "</select></label> ")


def home(reports: list[str], offer) -> HTMLResponse:
    bots = list(offer.bots)
    seats = "".join(
        f"<label>seat {p} <select name='bot{p}'>"
        + "".join(f"<option{' selected' if b == DEFAULT_BOTS[p] else ''}>{escape(b)}</option>"
                  for b in bots) + "</select></label> " for p in range(5))
    rulesets = "".join(f"<option value='{k}'>{v}</option>" for k, v in RULESETS.items())
    body = (
        "<section><h2>Play a seat</h2><form method='post' action='/new' id='new'>"
        f"<label>ruleset <select name='ruleset'>{rulesets}</select></label> "
        "<label>players <select name='players'><option>3</option><option selected>4"
        "</option><option>5</option></select></label> "
        "<label>your seat <input name='seat' type='number' min='0' max='4' value='0'>"
        "</label> <label>seed <input name='seed' type='number' min='0' value='1'></label> "
        f"{_deck_select(offer)}<fieldset><legend>the bots (your seat's is ignored; seats past the player count "
        f"too)</legend>{seats}</fieldset>"
        "<button type='submit'>Start the game</button></form></section>"
        "<section><h2>Replay a game</h2><form method='get' action='/replay'>"
        f"<label>ruleset <select name='ruleset'>{rulesets}</select></label> "
        "<label>players <input name='players' type='number' min='3' max='5' value='4'>"
        "</label> <label>seed <input name='seed' type='number' min='0' value='1'></label> "
        f"{_deck_select(offer)}<label>bots <input name='bots' value='greedy,weights,skilled,counter' size='32'>"
        "</label> <button type='submit'>Replay</button></form></section>"
        + _report_list(reports))
    return _page("Fishing 2 at the table", body)


def _report_list(reports: list[str]) -> str:
    if not reports:
        return "<section><h2>Reports</h2><p>No report folders in the served folder.</p>" \
               "</section>"
    items = "".join(
        f"<li><a href='/reports/{escape(r)}/report.html'>{escape(r)}</a> · <form "
        f"method='get' action='/replay/{escape(r)}' class='inline'>replay condition "
        "<input name='condition' type='number' min='0' value='0' aria-label='condition'> "
        "game <input name='game' type='number' min='0' value='0' aria-label='game'> "
        "<button type='submit'>Replay</button></form> · <form method='post' "
        f"action='/play/{escape(r)}' class='inline'>play condition "
        "<input name='condition' type='number' min='0' value='0' aria-label='condition'> "
        "game <input name='game' type='number' min='0' value='0' aria-label='game'> "
        "in seat <input name='seat' type='number' min='0' value='0' aria-label='seat'> "
        "<button type='submit'>Play</button></form></li>" for r in reports)
    return f"<section><h2>Reports</h2><ul id='reports'>{items}</ul></section>"


def reports(names: list[str]) -> HTMLResponse:
    return _page("Reports", _report_list(names))


def play(game: str) -> HTMLResponse:
    body = (
        f"<div id='app' data-game='{escape(game)}'>"
        "<p id='status' aria-live='polite'>Loading…</p>"
        "<section id='table'></section>"
        "<section><h2 id='prompt'></h2><p id='note'></p>"
        "<div id='options' role='group' aria-labelledby='prompt'></div>"
        "<p id='message' role='alert'></p>"
        "<button id='hint-button' type='button'>Hint (search + skilled)</button>"
        "<div id='hint'></div></section>"
        "<section id='end' hidden></section>"
        "<details open><summary>What happened</summary><ol id='log'></ol></details></div>"
        "<script src='/static/play.js'></script>")
    return _page("At the table", body)


def whole(form: dict, key: str, lo: int, hi: int) -> int:
    v = str(form.get(key, "")).strip()
    if not v.isdigit() or not lo <= int(v) <= hi:
        raise InputError(f"{key} must be a whole number from {lo} to {hi}, got {v!r}")
    return int(v)


def _ruleset(form: dict) -> str:
    r = form.get("ruleset", "fishing2")
    if r not in RULESETS:
        raise InputError(f"unknown ruleset {r!r}: choose fishing2 or fishing")
    return r


def table_args(form: dict, offer) -> dict:
    """The new game's arguments from the start page's form (checked against ``offer``,
    serve/offer.py: a form names offered bots and decks, never a path)."""
    players = whole(form, "players", 3, 5)
    seat = whole(form, "seat", 0, players - 1)
    bots = [offer.bot(str(form.get(f"bot{p}", "random")), f"seat {p}") if p != seat
            else "random" for p in range(players)]
    ruleset = _ruleset(form)
    return {"ruleset": ruleset, "players": players, "seat": seat, "bots": bots,
            "seed": whole(form, "seed", 0, 2**63 - 1),
            "deck_spec": offer.deck(str(form.get("deck", "standard")), ruleset)}


def replay_args(query: dict, offer) -> dict:
    players = whole(query, "players", 3, 5)
    bots = [b.strip() for b in str(query.get("bots", "random")).split(",") if b.strip()]
    if len(bots) == 1:
        bots = bots * players
    if len(bots) != players:
        raise InputError(f"bots: name one bot, or one for each of the {players} seats "
                         f"(comma-separated), got {len(bots)}")
    ruleset = _ruleset(query)
    return {"ruleset": ruleset, "players": players,
            "seed": whole(query, "seed", 0, 2**63 - 1),
            "bots": [offer.bot(b, "bots") for b in bots],
            "deck": offer.deck(str(query.get("deck", "standard")), ruleset)}


def replay(r: dict) -> HTMLResponse:
    """A replayed game in the report's viewer (report/templates/viewer.js): the same
    trick-by-trick view, every hand, the boats and the ocean, the bots' reasons."""
    end = r.get("end") or {}
    where = f"{r['source']}: " if r.get("source") else ""
    e = lambda x: escape(str(x))  # noqa: E731  (a stored example's values are untrusted)
    body = (f"<p>{e(where)}{e(r.get('title'))}, {e(r.get('players'))} players, seed "
            f"{e(r.get('seed'))}{'' if where else ', game ' + e(r.get('game'))}: final "
            f"points {e(end.get('points'))}, winners {e(end.get('winners'))} "
            f"({e(end.get('reason'))}).</p>"
            "<div class='f2-game' id='game-replay' data-key='replay' data-fixed></div>"
            "<script type='application/json' id='f2-games'>"
            f"{embed_json({'games': {'replay': r}})}</script>"
            "<script src='/static/viewer.js'></script>")
    return _page("Replay", body, head="<link rel='stylesheet' href='/static/viewer.css'>")
