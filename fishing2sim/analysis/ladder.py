"""The strength ladder: every pair of bots plays seat-rotated 4-player games, and one rating
per bot is fitted to the results (docs/rules.md E, "Ladder"; docs/experiments.md, "Ladder").

**Pairing.** Each pair of bots (A, B) is one condition with the lineup [A, A, B, B], rotated:
every deal is played four times, each bot sitting in every seat twice, so neither has the
seats' or the cards' luck. (The lineup [A, B, A, B] would repeat each deal's games twice:
its rotations 0 and 2 are the same lineup, hence the same games.) A game's result for A is
A's *score*: 1 if one of A's seats has the most points, 0 if one of B's has, a shared win
split by the number of tied winners; A's and B's scores add up to 1.

**Model.** Bradley-Terry: A's expected score against B is 1 / (1 + exp(-(t_A - t_B))). The
strengths t are fitted by maximum likelihood to the pairs' scores (a shared win counts as a
fraction, as a draw does in chess), with the anchor's strength fixed at 0, and reported on
the Elo scale: rating = t x 400 / ln(10), so a 100-point gap means the stronger side scores
0.64 against the weaker.

**Each pair counts once.** The pairs do not play the same number of games (a pair with a
search bot plays far fewer), and an unweighted likelihood would let the pairs with many
games decide the ratings. So each pair's log-likelihood term is weighted by
w = (mean games per pair) / (the pair's games): the fit is the maximum-likelihood fit to the
pairs' mean scores, each pair with the same weight, and doubling one pair's games at the
same mean score leaves every rating unchanged (``weighting="game"``: the plain likelihood).
A bot's ``score`` is likewise the mean over its pairs of its win share in the pair.

**CIs.** The Fisher information of the model would treat every game as an independent coin
flip; the four games of a deal are not independent (the same cards, each side holding them
in turn), and shared wins make a game's score less variable than a coin. So the covariance
of the fitted strengths is the sandwich H^-1 J H^-1: H = sum over pairs of w n p (1 - p)
x x^T, J = sum over pairs of w^2 Var(S) x x^T with Var(S) the variance of the pair's total
score as measured over its deals (x = e_A - e_B). The 95% CI of a rating is its estimate
+- 1.96 standard errors: a CI of its difference to the anchor, whose own rating is exactly
0; the CI of the difference of any two ratings comes from the same covariance
(:meth:`Fit.diff`), so two bots are compared directly, not through two CIs against the
anchor.

**Fit.** :func:`fit_quality`: each pair's standardized residual z = (observed - predicted
share) / SE of the observed share, chi^2 = sum of z^2 on (pairs - (bots - 1)) degrees of
freedom, and the least chi^2 any set of ratings reaches (the minimum-chi^2 fit), whose
p-value is the test of "one rating per bot describes the pairs".

Everything is a closed-form function of the run's integer totals: deterministic, and the
same for any number of workers.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from fishing2sim.errors import Fishing2simError
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fishing2sim.analysis.stats import WIN_UNIT, Z, chi2_sf
from fishing2sim.analysis.common import rotation_unit

ELO = 400.0 / math.log(10.0)  # Elo points per unit of Bradley-Terry strength
LADDER_SEATS = (0, 0, 1, 1)  # the lineup of a pair (A, B): [A, A, B, B]
LADDER_PLAYERS = 4


class LadderError(Fishing2simError, ValueError):
    """Pair results that cannot be fitted (a bot without a pair, an unknown anchor)."""


@dataclass(frozen=True)
class PairResult:
    """The games of one pair of bots: ``a`` against ``b`` (indexes into the bot list)."""

    a: int
    b: int
    games: int  # games played
    units: int  # independent units (deals: a rotation block of 4 games)
    score: float  # a's score summed over the games (b's is games - score)
    score_sq: float  # sum over units of (a's score in the unit) ** 2

    @property
    def share(self) -> float:
        return self.score / self.games

    def score_var(self) -> float:
        """The variance of the total score, from the spread of the units' scores (nan with
        fewer than 2 units)."""
        u = self.units
        if u < 2:
            return math.nan
        s2 = max(0.0, (self.score_sq - self.score * self.score / u) / (u - 1))
        return u * s2


@dataclass
class Fit:
    """Fitted ratings (Elo scale, the anchor at 0) with their 95% CIs."""

    names: list
    anchor: int
    elo: np.ndarray  # rating per bot
    se: np.ndarray  # standard error of each rating (0 for the anchor)
    games: np.ndarray  # games per bot
    score: np.ndarray  # mean over the bot's pairs of its win share in the pair
    score_se: np.ndarray
    cov: np.ndarray = field(repr=False)  # covariance of the ratings (Elo^2)
    finite: bool = True
    why: str = ""  # why no finite fit exists
    iterations: int = 0
    weights: np.ndarray = field(default=None, repr=False)  # per pair: its likelihood weight

    @property
    def ci_low(self) -> np.ndarray:
        return self.elo - Z * self.se

    @property
    def ci_high(self) -> np.ndarray:
        return self.elo + Z * self.se

    def expected(self, a: int, b: int) -> float:
        """a's expected score against b under the fitted ratings."""
        return expected_score(self.elo[a] - self.elo[b])

    def diff(self, a: int, b: int) -> tuple[float, float]:
        """(rating of a - rating of b, its standard error) from the covariance."""
        var = self.cov[a, a] + self.cov[b, b] - 2.0 * self.cov[a, b]
        return float(self.elo[a] - self.elo[b]), math.sqrt(max(float(var), 0.0))

    def diff_ci(self, a: int, b: int) -> tuple[float, float, float]:
        """(difference, 95% CI low, high) of the ratings of a and b."""
        d, se = self.diff(a, b)
        return d, d - Z * se, d + Z * se


def expected_score(elo_diff: float) -> float:
    """The expected score of the side rated ``elo_diff`` above the other."""
    return 1.0 / (1.0 + math.exp(-elo_diff / ELO))


def _closed_group(n: int, pairs: list) -> list:
    """[] if every split of the bots into two groups has each group scoring against the
    other (the condition for a finite maximum: Zermelo 1929, Ford 1957), else a group of
    bots that never scored against the rest."""
    scored = np.zeros((n, n), bool)  # scored[i, j]: i took some score from j
    for p in pairs:
        if p.score > 0:
            scored[p.a, p.b] = True
        if p.games - p.score > 0:
            scored[p.b, p.a] = True
    reach = scored | np.eye(n, dtype=bool)
    for k in range(n):  # transitive closure (Floyd-Warshall)
        reach |= reach[:, [k]] & reach[[k], :]
    for i in range(n):  # i reaches a group that never scores against the bots outside it
        if not reach[i].all():
            return [int(j) for j in np.flatnonzero(reach[i])]
    return []


def _pair_var(p: PairResult) -> float:
    """Var of a pair's total score over its deals; one unit: the largest binomial variance."""
    v = p.score_var()
    return p.games * 0.25 if math.isnan(v) else v


def pair_weights(pairs: list, weighting: str = "pair") -> np.ndarray:
    """Each pair's likelihood weight: ``pair`` (mean games per pair / the pair's games: every
    pair counts once) or ``game`` (1: every game counts once)."""
    n_g = np.array([p.games for p in pairs], float)
    if weighting == "pair":
        return n_g.mean() / n_g
    if weighting == "game":
        return np.ones_like(n_g)
    raise LadderError(f"weighting must be 'pair' or 'game', got {weighting!r}")


def _check_pairs(names: list, pairs: list, anchor: int) -> None:
    n = len(names)
    if n < 2:
        raise LadderError(f"a ladder needs at least 2 bots, got {n}")
    if not 0 <= anchor < n:
        raise LadderError(f"anchor {anchor} is not one of the {n} bots")
    played = np.zeros(n, bool)
    for p in pairs:
        if p.a == p.b or not (0 <= p.a < n and 0 <= p.b < n):
            raise LadderError(f"pair ({p.a}, {p.b}) is not a pair of two of the {n} bots")
        if p.games <= 0 or not 0 <= p.score <= p.games:
            raise LadderError(f"pair ({names[p.a]}, {names[p.b]}): score {p.score} of "
                              f"{p.games} games")
        played[p.a] = played[p.b] = True
    if not played.all():
        missing = [names[i] for i in np.flatnonzero(~played)]
        raise LadderError(f"no games for {', '.join(missing)}")


def _scores(n: int, pairs: list):
    """Each bot's games, its score (the mean over its pairs of its win share) and the
    score's standard error."""
    games = np.zeros(n)
    m = np.zeros(n)  # pairs per bot
    share_sum = np.zeros(n)
    share_var = np.zeros(n)
    for p in pairs:
        v = _pair_var(p) / (p.games * p.games)  # variance of the pair's win share
        games[p.a] += p.games
        games[p.b] += p.games
        m[p.a] += 1
        m[p.b] += 1
        share_sum[p.a] += p.share
        share_sum[p.b] += 1.0 - p.share
        share_var[p.a] += v
        share_var[p.b] += v
    return games, share_sum / m, np.sqrt(share_var) / m


class _Design:
    """The Bradley-Terry model of the pairs: the free strengths (all but the anchor's), each
    pair's row of the design (+1 for a, -1 for b), games, score and weight."""

    def __init__(self, n: int, pairs: list, anchor: int, w: np.ndarray):
        self.n, self.pairs, self.w = n, pairs, w
        self.free = [i for i in range(n) if i != anchor]
        pos = {b: k for k, b in enumerate(self.free)}
        self.xs = []
        for p in pairs:
            x = np.zeros(n - 1)
            if p.a in pos:
                x[pos[p.a]] += 1.0
            if p.b in pos:
                x[pos[p.b]] -= 1.0
            self.xs.append(x)
        self.n_g = np.array([p.games for p in pairs], float)
        self.s = np.array([p.score for p in pairs], float)

    def strength(self, t):
        full = np.zeros(self.n)
        full[self.free] = t
        return full

    def loglik(self, t) -> float:
        th = self.strength(t)
        d = np.array([th[p.a] - th[p.b] for p in self.pairs])
        # w (s log p + (n - s) log(1 - p)), p = sigmoid(d), written stably
        return float(np.sum(self.w * (-self.s * np.logaddexp(0.0, -d)
                                      - (self.n_g - self.s) * np.logaddexp(0.0, d))))

    def _q(self, th, p) -> float:
        return 1.0 / (1.0 + math.exp(-(th[p.a] - th[p.b])))

    def newton(self, tol: float, max_iter: int):
        """The maximum-likelihood free strengths and the iterations it took (Newton with
        step halving: the log-likelihood never decreases)."""
        k = self.n - 1
        t = np.zeros(k)
        ll = self.loglik(t)
        it = 0
        for it in range(1, max_iter + 1):
            th = self.strength(t)
            g = np.zeros(k)
            H = np.zeros((k, k))
            for x, p, ng, sc, wk in zip(self.xs, self.pairs, self.n_g, self.s, self.w):
                q = self._q(th, p)
                g += wk * x * (sc - ng * q)
                H += np.outer(x, x) * wk * ng * q * (1.0 - q)
            step = np.linalg.solve(H, g)
            lam = 1.0
            while True:
                cand = t + lam * step
                ll_c = self.loglik(cand)
                if ll_c >= ll - 1e-12 * abs(ll) or lam < 1e-8:
                    break
                lam /= 2
            t, ll = cand, ll_c
            if np.max(np.abs(lam * step)) < tol:
                break
        return t, it

    def sandwich(self, th) -> np.ndarray:
        """The ratings' covariance on the Elo scale: H^-1 J H^-1, J from each pair's own
        variance of its score (the model's where a pair has one unit only)."""
        k = self.n - 1
        H = np.zeros((k, k))
        J = np.zeros((k, k))
        for x, p, ng, wk in zip(self.xs, self.pairs, self.n_g, self.w):
            q = self._q(th, p)
            H += np.outer(x, x) * wk * ng * q * (1.0 - q)
            v = p.score_var()
            if math.isnan(v):  # one unit only: the model's variance
                v = ng * q * (1.0 - q)
            J += np.outer(x, x) * wk * wk * v
        Hi = np.linalg.inv(H)
        cov = np.zeros((self.n, self.n))
        cov[np.ix_(self.free, self.free)] = (Hi @ J @ Hi) * ELO * ELO
        return cov


def fit_ratings(names: list, pairs: list, anchor: int = 0, tol: float = 1e-12,
                max_iter: int = 200, weighting: str = "pair") -> Fit:
    """Maximum-likelihood Bradley-Terry ratings of ``names`` from ``pairs`` (PairResult),
    ``names[anchor]`` fixed at 0, each pair weighted equally (``weighting="pair"``, the
    default) or each game (``"game"``); Elo scale; sandwich 95% CIs (module docstring)."""
    _check_pairs(names, pairs, anchor)
    n = len(names)
    w = pair_weights(pairs, weighting)
    games, score, score_se = _scores(n, pairs)
    group = _closed_group(n, pairs)
    if group:
        nan = np.full(n, math.nan)
        who = ", ".join(names[i] for i in group)
        rest = "the other bots" if len(group) == 1 else "the bots outside this group"
        why = f"{who} lost every game against {rest}"
        return Fit(list(names), anchor, nan, nan.copy(), games, score, score_se,
                   np.full((n, n), math.nan), False, why, 0, w)
    d = _Design(n, pairs, anchor, w)
    t, it = d.newton(tol, max_iter)
    th = d.strength(t)
    cov = d.sandwich(th)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return Fit(list(names), anchor, th * ELO, se, games, score, score_se, cov, True, "", it, w)


@dataclass
class Quality:
    """How well one rating per bot describes the pairs (:func:`fit_quality`)."""

    chi2: float  # sum over pairs of z^2 at the fitted ratings
    df: int  # pairs used - (bots - 1)
    p_value: float  # chi2_sf(chi2, df): at most the minimum-chi^2 p (chi2 >= chi2_min)
    chi2_min: float  # the least sum of z^2 any ratings reach
    p_value_min: float  # chi2_sf(chi2_min, df): the goodness-of-fit test
    pairs_used: int  # pairs with a measured spread (SE > 0)
    z: np.ndarray  # per pair (from a's side): (observed - predicted share) / SE observed
    elo_residual: np.ndarray  # per pair: observed Elo gap (logit of the share) - fitted gap


def _share_se(p: PairResult) -> float:
    v = p.score_var()
    return math.sqrt(v) / p.games if not math.isnan(v) else math.nan


def fit_quality(fit: Fit, pairs: list) -> Quality:
    """The goodness of fit of ``fit`` to ``pairs``: standardized residuals, chi^2 at the
    fitted ratings and at the minimum-chi^2 ratings, on pairs - (bots - 1) degrees of
    freedom (pairs without a measured spread, SE 0 or one deal, are left out of both)."""
    n = len(fit.names)
    k = len(pairs)
    obs = np.array([p.share for p in pairs])
    se = np.array([_share_se(p) for p in pairs])
    nan = np.full(k, math.nan)
    if not fit.finite:
        return Quality(math.nan, 0, math.nan, math.nan, math.nan, 0, nan, nan.copy())
    gap = np.array([fit.elo[p.a] - fit.elo[p.b] for p in pairs])
    pred = 1.0 / (1.0 + np.exp(-gap / ELO))
    ok = np.isfinite(se) & (se > 0)
    z = np.where(ok, (obs - pred) / np.where(ok, se, 1.0), math.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        obs_gap = ELO * np.log(obs / (1.0 - obs))
    elo_res = np.where((obs > 0) & (obs < 1), obs_gap - gap, math.nan)
    used = int(ok.sum())
    df = used - (n - 1)
    chi2 = float(np.sum(z[ok] ** 2))
    # the minimum-chi^2 fit: Gauss-Newton on sum ((obs - sigmoid(x t)) / se)^2, from the fit
    free = [i for i in range(n) if i != fit.anchor]
    X = np.zeros((k, n - 1))
    for r, p in enumerate(pairs):
        for b, sign in ((p.a, 1.0), (p.b, -1.0)):
            if b != fit.anchor:
                X[r, free.index(b)] += sign
    X, o, sd = X[ok], obs[ok], se[ok]
    t = fit.elo[free] / ELO
    chi2_min = chi2
    for _ in range(100):
        q = 1.0 / (1.0 + np.exp(-(X @ t)))
        r = (o - q) / sd
        Jm = (q * (1.0 - q) / sd)[:, None] * X
        step, *_ = np.linalg.lstsq(Jm, r, rcond=None)
        lam = 1.0
        while lam > 1e-8:
            cand = t + lam * step
            qc = 1.0 / (1.0 + np.exp(-(X @ cand)))
            c2 = float(np.sum(((o - qc) / sd) ** 2))
            if c2 <= chi2_min:
                break
            lam /= 2
        if lam <= 1e-8:
            break
        t, done = cand, chi2_min - c2 < 1e-12 * max(chi2_min, 1.0)
        chi2_min = c2
        if done:
            break
    p_value = chi2_sf(chi2, df) if df > 0 else math.nan
    p_min = chi2_sf(chi2_min, df) if df > 0 else math.nan
    return Quality(chi2, df, p_value, chi2_min, p_min, used, z, elo_res)


def pair_results(exp, totals: list) -> tuple[list, list]:
    """The ladder's bot names (in the file's order) and one PairResult per condition played
    (conditions without totals are left out)."""
    names = list(exp.ladder["bots"])
    pairs = []
    for cond, t in zip(exp.conditions, totals):
        if t is None:
            continue
        # the lineup is [A, A, B, B]: A is the condition's first strategy (its totals' slot 0)
        a, b = names.index(cond.identities[0].name), names.index(cond.identities[2].name)
        s, ss = (float(x) for x in t["strat_win"][0])
        pairs.append(PairResult(a, b, int(t["games"][0]), int(t["strat_units"][0]),
                                s / WIN_UNIT, ss / (WIN_UNIT * WIN_UNIT)))
    return names, pairs


# the kind column of ladder.csv: the cheater is labelled wherever it is shown
KIND_TEXT = {"heuristic": "heuristic", "search": "search",
             "cheater": "cheater (sees every hand: an upper bound, not a fair player)"}
HORIZONS = {0: "to the end of the round", 1: "to the end of the game",
            2: "to the end of the round, plus the learned rest of the game"}
OBJECTIVES = {0: "points margin", 1: "win share"}


def budget_text(budget: dict | None, words: bool = False) -> str:
    """A search bot's budget: ``worlds=24, rollouts=1, horizon=0, objective=0; rollouts by
    weights`` (``words``: the horizon and objective in words too); '' for a heuristic bot."""
    if not budget:
        return ""
    bits = []
    for k, v in budget["params"].items():
        text = f"{k}={v:g}"
        if words and k == "horizon" and int(v) in HORIZONS and v == int(v):
            text += f" ({HORIZONS[int(v)]})"
        if words and k == "objective" and int(v) in OBJECTIVES and v == int(v):
            text += f" ({OBJECTIVES[int(v)]})"
        bits.append(text)
    rollout = budget.get("rollout")
    return ", ".join(bits) + (f"; rollouts by {rollout}" if rollout else "")


def ladder_tables(exp, totals: list) -> dict[str, pd.DataFrame]:
    """``ladder`` (per bot: its rating with a 95% CI, and its score, the mean over its pairs
    of its win share, n = its games), ``ladder_pairs`` (per pair, both ways: the observed win
    share with a 95% CI over deals, the share the fitted ratings predict, the rating
    difference with its 95% CI from the covariance, the standardized and the Elo residual)
    and ``ladder_fit`` (the chi^2 of the fit: metrics chi2, df, p_value, chi2_min,
    p_value_min; n = the pairs used). ci_unit names what the CIs (the rating differences'
    too) take as one observation: the rotation block, a deal's seat-rotated games."""
    names, pairs = pair_results(exp, totals)
    lad = exp.ladder
    rows, prow, frow = [], [], []
    conds = [c for c, t in zip(exp.conditions, totals) if t is not None]
    unit = rotation_unit(conds[0]) if conds else ""
    fit = fit_ratings(names, pairs, names.index(lad["anchor"])) if pairs else None
    qual = fit_quality(fit, pairs) if fit is not None else None
    if fit is not None:
        order = sorted(range(len(names)),
                       key=lambda i: (-fit.elo[i] if fit.finite else -fit.score[i], i))
        for rank, i in enumerate(order, 1):
            base = {"rank": rank, "bot": names[i], "kind": KIND_TEXT[lad["kinds"][i]],
                    "budget": budget_text(lad["budgets"][i])}
            rows.append(dict(base, metric="rating", n=int(fit.games[i]),
                             estimate=float(fit.elo[i]), ci_low=float(fit.ci_low[i]),
                             ci_high=float(fit.ci_high[i]),
                             ci_unit=unit if fit.se[i] > 0 else ""))
            rows.append(dict(base, metric="score", n=int(fit.games[i]),
                             estimate=float(fit.score[i]),
                             ci_low=max(0.0, float(fit.score[i] - Z * fit.score_se[i])),
                             ci_high=min(1.0, float(fit.score[i] + Z * fit.score_se[i])),
                             ci_unit=unit if np.isfinite(fit.score_se[i]) else ""))
        for metric, value in (("chi2", qual.chi2), ("df", qual.df), ("p_value", qual.p_value),
                              ("chi2_min", qual.chi2_min), ("p_value_min", qual.p_value_min)):
            frow.append({"metric": metric, "n": qual.pairs_used, "estimate": float(value),
                         "ci_low": math.nan, "ci_high": math.nan, "ci_unit": ""})
    nan = math.nan
    for k, (cond, p) in enumerate(zip(conds, pairs)):
        v = p.score_var()
        hw = Z * math.sqrt(v) / p.games if not math.isnan(v) else math.nan
        for sign, me, them, share in ((1, p.a, p.b, p.share), (-1, p.b, p.a, 1.0 - p.share)):
            base = {"condition": cond.index, "bot": names[me], "opponent": names[them]}
            diff_ci = fit is not None and fit.finite  # (the rating difference's CI)
            if diff_ci:
                d, dlo, dhi = fit.diff_ci(me, them)
                base.update(rating_diff=d, rating_diff_ci_low=dlo, rating_diff_ci_high=dhi)
            else:
                base.update(rating_diff=nan, rating_diff_ci_low=nan, rating_diff_ci_high=nan)
            lo, hi = (max(0.0, share - hw), min(1.0, share + hw)) if hw == hw \
                else (math.nan, math.nan)  # one deal: no spread to measure
            prow.append(dict(base, metric="win_share", n=p.games, estimate=share,
                             ci_low=lo, ci_high=hi, ci_unit=rotation_unit(cond)
                             if hw == hw or diff_ci else "",
                             residual_z=sign * float(qual.z[k]) if qual else nan,
                             residual_elo=sign * float(qual.elo_residual[k]) if qual else nan))
            pred = fit.expected(me, them) if fit is not None and fit.finite else math.nan
            prow.append(dict(base, metric="predicted_win_share", n=p.games, estimate=pred,
                             ci_low=math.nan, ci_high=math.nan,
                             ci_unit=rotation_unit(cond) if diff_ci else "", residual_z=nan,
                             residual_elo=nan))
    cols = ["metric", "n", "estimate", "ci_low", "ci_high", "ci_unit"]
    tail = ["rating_diff", "rating_diff_ci_low", "rating_diff_ci_high", "residual_z",
            "residual_elo"]
    ladder = pd.DataFrame(rows, columns=["rank", "bot", "kind", "budget"] + cols)
    ladder["rank"] = ladder["rank"].astype("Int64")
    pairs_df = pd.DataFrame(prow, columns=["condition", "bot", "opponent"] + cols + tail)
    fit_df = pd.DataFrame(frow, columns=cols)
    return {"ladder": ladder, "ladder_pairs": pairs_df, "ladder_fit": fit_df}


RATINGS_COLUMNS = ("bot", "rating", "ci_low", "ci_high", "ci_unit", "games")
RATINGS_FILE = Path(__file__).resolve().parent.parent / "data" / "ladder_ratings.csv"


def ratings_csv(ladder_csv: str) -> str:
    """The ratings of a ladder report's ladder.csv text as a small CSV (RATINGS_COLUMNS,
    ranked as in the report; Elo to 0.1 point): fishing2sim/data/ladder_ratings.csv is
    this of docs/ladder-report/ladder.csv, for plotting figures against strength."""
    rows = [r for r in csv.DictReader(io.StringIO(ladder_csv)) if r["metric"] == "rating"]
    if not rows:
        raise ValueError("no rating rows in the ladder table")
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(RATINGS_COLUMNS)
    for r in rows:
        w.writerow([r["bot"]] + [f"{float(r[k]):.1f}" for k in ("estimate", "ci_low", "ci_high")]
                   + [r.get("ci_unit", ""), int(float(r["n"]))])
    return out.getvalue()


def load_ratings(path=None) -> dict:
    """The installed ladder ratings: {bot: {"rating", "ci_low", "ci_high", "games"}}."""
    text = Path(path or RATINGS_FILE).read_text()
    return {r["bot"]: {"rating": float(r["rating"]), "ci_low": float(r["ci_low"]),
                       "ci_high": float(r["ci_high"]), "games": int(r["games"])}
            for r in csv.DictReader(io.StringIO(text))}
