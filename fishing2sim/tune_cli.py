"""The body of ``fishing2sim tune`` (kept out of cli.py so optuna loads only when tuning)."""
from __future__ import annotations

import signal
import sys

import click


def tune_command(experiment, workers, resume, trials, time_limit, output, no_progress,
                 user_error, yes=False):
    from fishing2sim import first_run
    from fishing2sim.strategy.contract import StrategyFailure
    from fishing2sim.config.deck import DeckError
    from fishing2sim.config.experiment import ExperimentError
    from fishing2sim.run.runner import RunError, _StopSignals
    from fishing2sim.strategy.loading import StrategyError

    try:
        import optuna  # noqa: F401
    except ImportError:
        raise user_error("fishing2sim tune needs Optuna: pip install 'fishing2sim[tune]'") \
            from None
    from fishing2sim.tune.tuner import load_tune, tune, value_text

    try:
        if workers is not None and workers < 0:
            raise ValueError(f"--workers must be >= 0, got {workers}")
        if trials is not None and trials < 1:
            raise ValueError(f"--trials must be >= 1, got {trials}")
        with first_run.notice(not no_progress):  # said before the first compile
            spec = load_tune(experiment, {"workers": workers, "output": output,
                                          "trials": trials, "time": time_limit}, yes=yes)
            # SIGINT and SIGTERM stop the tune (a trial's workers at once); further ones
            # are ignored while it ends
            with _StopSignals(ignore_after_stop=True):
                result = tune(spec, workers=workers, resume=resume,
                              progress=not no_progress)
    except KeyboardInterrupt as exc:
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)
        click.echo("interrupted: the finished trials are in the study; run again with "
                   "--resume to continue", err=True)
        sys.exit(128 + getattr(exc, "signum", signal.SIGINT))
    except (ExperimentError, DeckError, StrategyError, RunError, StrategyFailure,
            ValueError) as exc:
        raise user_error(str(exc)) from None
    w = result.winner
    line = f"{len(result.trials)} trials in {result.elapsed_s:,.0f} s"
    if w is not None:
        line += (f"; winner: trial {w['trial']}, value "
                 f"{value_text(result.spec, w['evaluation'].value)}")
        if result.verdict:
            line += f" ({result.verdict})"
    click.echo(line + f" -> {result.report_dir}")
