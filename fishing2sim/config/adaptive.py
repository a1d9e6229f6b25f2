"""The stopping rules of an experiment: precision targets, an SPRT and the cap on games.

A mixin of the loader (fishing2sim/config/experiment.py): these checks need the
conditions (their baselines, rulesets and lineups), so they run once the grid is built;
the SPRT's own values are the schema's (fishing2sim/config/schema.py: Sprt)."""
from __future__ import annotations

import re

from fishing2sim.config.keys import CONTRAST_ANALYSIS, PRECISION_FIGURES
from fishing2sim.config.messages import did_you_mean as _did_you_mean
from fishing2sim.config.messages import got as _got
from fishing2sim.strategy.identity import distinct_names

__all__ = ["AdaptiveMixin"]

_HALF_WIDTH = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*([A-Za-z%]*)\s*")


class AdaptiveMixin:
    def adaptive(self, cfg, analyses, conditions):
        """(precision targets, the SPRT, max_games) of a checked file."""
        precision = self.precision(cfg.get("precision"), analyses, conditions)
        sprt = self.sprt(cfg.get("sprt"), conditions) if cfg.get("sprt") is not None else None
        max_games = cfg.get("max_games")
        if max_games is not None and not (precision or sprt):
            self.fail("max_games", "only with precision or sprt (the run's cap on games per "
                      "condition)")
        if precision or sprt:
            most = max(c.games for c in conditions)
            if max_games is None:
                max_games = 10 * most
            self.whole("max_games", max_games, 1)
            self.games_limit("max_games", max_games)
            if max_games < most:
                self.fail("max_games", f"{max_games:,} is below games ({most:,})")
            self.size_check(len(conditions), len(conditions) * max_games)
        return precision, sprt, max_games

    def precision(self, raw, analyses, conditions) -> tuple:
        """((figure, target in the figure's unit, as written), ...) of ``precision:``."""
        if raw is None:
            return ()
        if not isinstance(raw, dict) or not raw:
            self.fail("precision", "expected a mapping figure -> wanted 95% CI half-width "
                      f"such as {{overfishing: 0.5pp}}, {_got(raw)}")
        known = [*PRECISION_FIGURES, *(f"contrast.{f}" for f in CONTRAST_ANALYSIS)]
        out = []
        for fig, want in raw.items():
            at = f"precision.{fig}"
            fig = str(fig)
            base_fig = fig.removeprefix("contrast.")
            if fig not in known:
                self.fail(at, f"unknown figure{_did_you_mean(fig, known)}; known: "
                          f"{', '.join(PRECISION_FIGURES)}, or contrast.<figure> for the "
                          "difference to the baseline")
            if fig != base_fig:
                self.contrast_target(at, base_fig, analyses, conditions)
            unit, scale = PRECISION_FIGURES[base_fig]
            m = _HALF_WIDTH.fullmatch(str(want)) if isinstance(want, (str, int, float)) \
                and not isinstance(want, bool) else None
            if m is None or m.group(2) not in (unit, unit.rstrip("s")) \
                    or float(m.group(1)) <= 0:
                self.fail(at, f"expected a 95% CI half-width in {unit} such as "
                          f"{'0.5pp' if unit == 'pp' else '0.1 ' + unit}, {_got(want)}")
            if base_fig == "trump_value":
                self.trump_target(at, analyses, conditions)
            if base_fig == "card_overfishing" and "cards" not in analyses:
                self.fail(at, "needs the cards analysis (add it to analyses)")
            out.append((fig, float(m.group(1)) * scale, f"{m.group(1)} {unit}"
                        if unit != "pp" else f"{m.group(1)}pp"))
        return tuple(out)

    def contrast_target(self, at, base_fig, analyses, conditions) -> None:
        if not any(c.baseline is not None for c in conditions):
            self.fail(at, "a precision target on a contrast needs a baseline (no condition "
                      "has one: see 'Names and baselines')")
        need = CONTRAST_ANALYSIS[base_fig]
        if need not in analyses:
            self.fail(at, f"the contrasts of {base_fig} come with the {need} analysis (add it "
                      "to analyses)")

    def trump_target(self, at, analyses, conditions) -> None:
        if "trump_value" not in analyses:
            self.fail(at, "needs the trump_value analysis (add it to analyses)")
        orig = [c.index for c in conditions if c.deck.ruleset == "fishing"]
        if orig:
            self.fail(at, "the original Fishing has no trump choice (green is always trump), "
                      "so its trump value cannot reach a precision: "
                      f"condition{'s' if len(orig) > 1 else ''} "
                      f"{', '.join(map(str, orig))} play{'s' if len(orig) == 1 else ''}"
                      " ruleset fishing")

    def sprt(self, raw: dict, conditions) -> dict:
        """The SPRT of ``sprt:`` (its values checked by the schema), its two bots named by
        their NAMEs (a bot may be given by its NAME or by its file)."""
        full = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
        full.update(raw)
        for k in ("better", "than"):
            word, name = full[k].strip(), None
            for c in conditions:
                found = self.named_bot(f"sprt.{k}", word, c.identities,
                                       f"the lineup of condition {c.index}")
                if found is None:
                    self.fail(f"sprt.{k}", f"strategy {word!r} is not in the lineup of "
                              f"condition {c.index} ({', '.join(distinct_names(c.identities))})")
                name = found.name
            full[k] = name
        if full["better"] == full["than"]:
            self.fail("sprt.than", f"compare two different strategies ({full['better']!r} "
                      "both times)")
        fixed = [c.index for c in conditions if not c.rotate]
        if fixed:
            self.fail("sprt", "needs rotate: true (without seat rotation the two strategies "
                      "sit in different seats and the seat, not the strategy, can decide the "
                      f"test); condition{'s' if len(fixed) > 1 else ''} "
                      f"{', '.join(map(str, fixed[:5]))} "
                      f"{'do' if len(fixed) > 1 else 'does'} not rotate")
        return {k: (float(v) if k not in ("better", "than") else v) for k, v in full.items()}
