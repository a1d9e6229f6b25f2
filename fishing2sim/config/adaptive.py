"""The stopping rules of an experiment: precision targets, an SPRT and the cap on games.

Their values are the schema's (config/file_schema.py: precision, sprt, max_games); what is
checked here needs the built conditions (their baselines, rulesets, lineups and games)."""
from __future__ import annotations

from fishing2sim.config.messages import KeyProblem
from fishing2sim.config.seats import sprt_bots

__all__ = ["stopping"]


def stopping(bots, cfg, top, conditions) -> tuple[tuple, dict | None, int | None]:
    """(precision targets, the SPRT, max_games) of a validated file and its conditions."""
    precision = top.precision
    for fig, _, _ in precision:
        _reachable(f"precision.{fig}", fig, conditions)
    sprt = sprt_bots(bots, cfg["sprt"], conditions) if top.sprt is not None else None
    if sprt is not None:
        fixed = [c.index for c in conditions if not c.rotate]
        if fixed:
            raise KeyProblem("sprt", "needs rotate: true (without seat rotation the two "
                             "strategies sit in different seats and the seat, not the "
                             "strategy, can decide the test); "
                             f"condition{'s' if len(fixed) > 1 else ''} "
                             f"{', '.join(map(str, fixed[:5]))} "
                             f"{'do' if len(fixed) > 1 else 'does'} not rotate")
    max_games = top.max_games
    if precision or sprt:
        most = max(c.games for c in conditions)
        if max_games is None:
            max_games = 10 * most
        if max_games < most:
            raise KeyProblem("max_games", f"{max_games:,} is below games ({most:,})")
    return precision, sprt, max_games


def _reachable(at: str, fig: str, conditions) -> None:
    """A target the conditions can measure: a contrast needs a baseline; the trump value
    a ruleset with a trump choice."""
    orig = [c.index for c in conditions if c.deck.ruleset == "fishing"]
    if fig.startswith("contrast.") and not any(c.baseline is not None for c in conditions):
        why = ("a precision target on a contrast needs a baseline (no condition has one: see "
               "'Names and baselines')")
    elif fig.removeprefix("contrast.") == "trump_value" and orig:
        why = ("the original Fishing has no trump choice (green is always trump), so its "
               "trump value cannot reach a precision: "
               f"condition{'s' if len(orig) > 1 else ''} {', '.join(map(str, orig))} "
               f"play{'s' if len(orig) == 1 else ''} ruleset fishing")
    else:
        return
    raise KeyProblem(at, why)
