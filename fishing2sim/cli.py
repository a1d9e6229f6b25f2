"""The command line: a thin click group that parses, calls the API and turns every error
the user can cause (fishing2sim.errors.Fishing2simError) into one line with exit code 2."""
from __future__ import annotations

import errno
import json
import signal
import sys

import click

from fishing2sim import __version__
from fishing2sim.errors import Fishing2simError, InputError


class UserError(click.ClickException):
    """A mistake in the user's input: one line, exit code 2, no traceback."""

    exit_code = 2


class _Group(click.Group):
    """click's group with usage errors on one line: ``Error: <problem> (try '... --help')``
    and exit code 2 (click itself prints the usage first and the problem on line 3)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as exc:
            path = exc.ctx.command_path if exc.ctx is not None else "fishing2sim"
            click.echo(f"Error: {exc.format_message()} (try '{path} --help')", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except Fishing2simError as exc:
            shown = getattr(exc, "traceback", None)
            if shown:  # the debug mode (NUMBA_DISABLE_JIT=1): the strategy's own traceback
                sys.stderr.write(shown)
            UserError(str(exc)).show()
            sys.exit(UserError.exit_code)
        except click.exceptions.Abort as exc:
            if isinstance(exc.__context__, KeyboardInterrupt):  # Ctrl-C where no command
                # stops on its own (parsing the command line, say): the stop line, 130
                click.echo("interrupted", err=True)
                sys.exit(128 + getattr(exc.__context__, "signum", signal.SIGINT))
            click.echo("Aborted!", err=True)
            sys.exit(1)
        except OSError as exc:
            if exc.errno != errno.ENAMETOOLONG:
                raise
            # a path the user gave (a file, a folder, a name in a file) that the file system
            # cannot hold, met wherever it is first used: one line, not a traceback
            UserError(f"{exc.filename}: the file system cannot hold this name "
                      f"({exc.strerror}: 255 bytes a name at most)").show()
            sys.exit(UserError.exit_code)
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fishing2sim")
def main():
    """fishing2sim: Monte Carlo strategy analyser for Fishing 2 (and the original Fishing)."""


@main.command()
@click.option("--players", "-p", type=int, default=4, show_default=True,
              help="Number of players, 3 to 5.")
@click.option("--seed", "-s", type=int, default=0, show_default=True,
              help="The game's seed (0 .. 2**63-1).")
@click.option("--game", type=int, default=0, show_default=True,
              help="Game number within the seed (the runner's game index; with --experiment "
                   "the condition's game, as in examples.csv).")
@click.option("--ruleset", "-r", default="fishing2", show_default=True,
              help="fishing2 (Fishing 2) or fishing (the original Fishing / Fischen).")
@click.option("--strategy", "strategies", multiple=True,
              help="Strategy name or file; once for all seats or once per seat.")
@click.option("--leader", type=int, default=None, help="Fix the round-1 leader (a seat).")
@click.option("--deck", type=click.Path(dir_okay=False), default=None,
              help="A deck CSV file instead of the ruleset's own.")
@click.option("--json", "as_json", is_flag=True, help="Print the events as JSON lines.")
@click.option("--strict", is_flag=True,
              help="Strict mode: the strategies run with bounds checking.")
@click.option("--audit", is_flag=True,
              help="Strict mode, and the independent auditor checks the game's every rule.")
@click.option("--experiment", "experiment", default=None, metavar="FILE",
              help="Play a game of an experiment's condition (its players, deck edits, "
                   "seats and seed); with --condition.")
@click.option("--condition", type=int, default=None, metavar="N",
              help="The condition of --experiment (its index, as in the report).")
def play(players, seed, game, ruleset, strategies, leader, deck, as_json, strict, audit,
         experiment, condition):
    """Play one game and print what happened, trick by trick.

    The game plays in a child process: Ctrl-C (or SIGTERM) stops it at once, even inside a
    decision that never returns (exit code 130, 143 after SIGTERM)."""
    from fishing2sim import first_run
    from fishing2sim.render import render_game
    from fishing2sim.run.processes import call_in_child
    from fishing2sim.strategy.files import resolve_path

    if len(strategies) == 0:
        lineup = None
    elif len(strategies) == 1:
        lineup = strategies[0]
    else:
        lineup = list(strategies)
    params = None
    try:
        if not 0 <= game < 2**63:
            raise InputError(f"--game must be from 0 to 2**63-1, got {game}")
        if audit and deck is not None:
            raise InputError("--audit checks games of the shipped decks; leave out --deck")
        if (experiment is None) != (condition is None):
            raise InputError("--experiment FILE and --condition N go together")
        if experiment is not None:
            ctx = click.get_current_context()
            given = [f"--{n}" for n in ("players", "seed", "ruleset", "strategy", "leader",
                                         "deck")
                     if ctx.get_parameter_source(n if n != "strategy" else "strategies")
                     == click.core.ParameterSource.COMMANDLINE]
            if given:
                raise InputError(f"--experiment sets the game's {', '.join(given)} itself: "
                                 "leave them out")
            players, ruleset, lineup, params, leader, deck, seed, cname, game = \
                _condition_game(experiment, condition, game)
            from fishing2sim.config.deck import load_deck

            if audit and deck.sha256 != load_deck(None, ruleset=ruleset).sha256:
                raise InputError("--audit checks games of the shipped decks; this condition "
                                 "edits the deck")
        for spec in dict.fromkeys(strategies):  # a misspelt name, before any compile
            resolve_path(spec)
        # in a child process: Ctrl-C (or SIGTERM) stops a decision that never returns or a
        # search too long to finish (a compiled kernel cannot be interrupted from inside);
        # the compile notice on a terminal only (the output may be read by a program)
        with first_run.notice(first_run.is_terminal(sys.stderr)):
            first_run.before_compile()
            events, seats = call_in_child(
                _play_events, dict(players=players, seed=seed, ruleset=ruleset,
                                   strategies=lineup, params=params, first_leader=leader,
                                   deck=deck, game=game, strict=strict or audit))
    except KeyboardInterrupt as exc:
        click.echo("interrupted; the game was not finished", err=True)
        sys.exit(128 + getattr(exc, "signum", signal.SIGINT))
    if events and events[0].get("event") == "setup":
        events[0]["strategies"] = seats
        if experiment is not None:
            events[0]["condition"] = condition
            events[0]["condition_name"] = cname
    if as_json:
        for e in events:
            sys.stdout.write(json.dumps(e) + "\n")
    else:
        click.echo(render_game(events))
    if audit:
        from fishing2sim.audit import AuditError, audit_game

        try:
            summary = audit_game(events)
        except AuditError as exc:
            click.echo(f"audit: the game breaks a rule: {exc}", err=True)
            sys.exit(1)
        click.echo(f"audit: every rule checked, the game is legal ({len(events)} events; "
                   f"points {summary['points']})", err=as_json)


def _play_events(kwargs: dict) -> tuple[list, list]:
    """``play``'s game (in its child process): its events and the seats' strategy names."""
    from fishing2sim.api import play_game
    from fishing2sim.strategy.loading import load_strategy

    g = play_game(**kwargs)
    return g.events, _seat_names(kwargs["strategies"], kwargs["players"], load_strategy)


def _seat_names(lineup, players, load_strategy) -> list[str]:
    """The strategy in each seat, by name."""
    if lineup is None:
        specs = ["random"] * players
    elif isinstance(lineup, (list, tuple)):
        specs = list(lineup)
    else:
        specs = [lineup] * players
    return [load_strategy(s).name for s in specs]


def _condition_game(path, index, game):
    """(players, ruleset, lineup, params, leader, deck, seed, name, deal) of game ``game``
    of an experiment's condition (rotate: deal G // P in rotation G mod P, run/examples.py)."""
    from fishing2sim.config.experiment import ExperimentError, load_experiment, shipped_experiment

    exp = load_experiment(shipped_experiment(path))
    n = len(exp.conditions)
    if not 0 <= index < n:
        raise ExperimentError(f"{path}: --condition {index}: the experiment has {n} "
                              f"condition{'s' if n != 1 else ''} (0..{n - 1})")
    c = exp.conditions[index]
    P, games = c.players, max(c.games, getattr(c, "max_games", 0))  # precision: max_games
    games = -(-games // P) * P if c.rotate else games  # whole rotation blocks
    if game >= games:
        raise ExperimentError(f"{path}: --game {game}: condition {index} plays games "
                              f"0..{games - 1}")
    deal, rotation = divmod(game, P) if c.rotate else (game, 0)
    seats = [(p - rotation) % P for p in range(P)]  # seat p: entry (p - rotation) mod P
    params = [list(c.params[i]) if c.params[i] is not None else None for i in seats]
    return (P, c.deck.ruleset, [c.lineup[i] for i in seats], params,
            None if c.first_leader < 0 else c.first_leader, c.deck, c.seed, c.name, deal)


def _open_page(page) -> None:
    """Open a report page in the user's web browser; with none to open (no display, no
    browser installed), say so in one line on stderr: the page is written all the same,
    and the exit code stays 0."""
    import webbrowser

    try:
        opened = webbrowser.open(page.resolve().as_uri())
    except webbrowser.Error:
        opened = False
    if not opened:
        click.echo(f"no web browser to open the report; the page is at {page}", err=True)


_output = click.option(  # run's, tune's and train's
    "--output", type=click.Path(file_okay=False), default=None,
    help="Folder that receives <name>/ (default: the file's output, else reports).")


def _yes(verb: str, counted: str):  # run's, tune's and train's; ``counted``: the games in all
    return click.option("--yes", "-y", is_flag=True,
                        help=f"{verb} even above the size limits (10**9 games in all{counted}).")


def _dask(scheduler_help: str, local_help: str):  # run's chunks, train's labelling
    scheduler = click.option("--scheduler", default=None, metavar="ADDRESS", help=scheduler_help)
    local = click.option("--dask-local", type=int, default=None, metavar="N", help=local_help)
    return lambda command: scheduler(local(command))


@main.command()
@click.argument("experiment")
@click.option("--workers", "-w", type=int, default=None,
              help="Local processes (default: the file's workers, else all cores).")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted run from its finished chunks.")
@click.option("--games", type=int, default=None,
              help="Override the games per condition (on a skill panel: every level's games "
                   "scaled by N / the file's games).")
@_output
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@_dask("Run the chunks on a Dask cluster: its scheduler, e.g. tcp://host:8786.",
       "Start a local Dask cluster of N workers and run on it.")
@_yes("Run", ", 1,000 conditions")
@click.option("--strict", is_flag=True, default=None,
              help="Strict mode: the strategies run with bounds checking.")
@click.option("--open", "open_page", is_flag=True,
              help="Open the report (report.html) in a web browser when done.")
@click.option("--plan", "plan_only", is_flag=True,
              help="Print each level's games, the expected 95%% half-widths and the "
                   "expected time (from a short pilot), and play nothing more.")
@click.option("--quick", is_flag=True,
              help="Scale every level's games by one factor so that the whole file takes "
                   "about a minute; print the widths that gives first.")
def run(experiment, workers, resume, games, output, no_progress, scheduler, dask_local, yes,
        strict, open_page, plan_only, quick):
    """Run an experiment (a YAML file, or the name of a shipped one: fishing2sim
    experiments) and write its report (CSV tables, plots, summary.md).

    Ctrl-C (or SIGTERM) stops the run and its workers at once; the finished chunks are
    kept and --resume continues (exit code 130, 143 after SIGTERM)."""
    overrides = {k: v for k, v in (("games", games), ("output", output), ("workers", workers),
                                   ("strict", strict)) if v is not None}
    try:  # the imports too: Ctrl-C in the first second stops as later, with exit code 130
        from fishing2sim import first_run
        from fishing2sim.config.experiment import load_experiment, shipped_experiment
        from fishing2sim.study import run as run_experiment

        if workers is not None and workers < 0:
            raise InputError(f"--workers must be >= 0, got {workers}")
        if dask_local is not None and dask_local < 1:
            raise InputError(f"--dask-local must be a number of workers >= 1, got {dask_local}")
        if scheduler and dask_local:
            raise InputError("give either --scheduler or --dask-local, not both")
        if plan_only and quick:
            raise InputError("give either --plan or --quick, not both")
        if (plan_only or quick) and resume:
            raise InputError(f"--{'plan' if plan_only else 'quick'} plays a file anew: leave "
                             "out --resume")
        path = shipped_experiment(experiment)
        if path != experiment:  # say which file a name stands for
            click.echo(f"{experiment}: {path}", err=True)
        with first_run.notice(not no_progress):  # said before the first compile
            exp = load_experiment(path, overrides, yes=yes, progress=not no_progress)
            if plan_only or quick:
                exp = _plan(exp, path, overrides, workers, quick, yes, not no_progress)
                if exp is None:
                    return
            results = run_experiment(exp, workers=workers, resume=resume,
                                     progress=not no_progress, scheduler=scheduler,
                                     dask_local=dask_local, in_process=False, yes=yes,
                                     ignore_after_stop=True)
    except KeyboardInterrupt as exc:
        if hasattr(exc, "saved"):  # RunInterrupted: the progress bar has ended its line
            click.echo(str(exc), err=True)
            sys.exit(exc.exit_code)
        click.echo("\ninterrupted; nothing was played", err=True)  # before the run started
        sys.exit(128 + getattr(exc, "signum", signal.SIGINT))
    m = results.meta
    now = m.get("games_played_now", m["games"])  # --resume: the games/s are of these
    click.echo(f"{m['games']:,} games"
               + (f" ({now:,} played now)" if now != m["games"] else "")
               + f" in {m['elapsed_s']} s"
               + _compile_and_rate(m, now)
               + f" -> {exp.output_dir}")
    if open_page:
        _open_page(exp.output_dir / "report.html")


def _plan(exp, path, overrides: dict, workers, quick: bool, yes: bool, progress: bool):
    """--plan: print the plan and return None; --quick: print the plan of the scaled run and
    return that run's experiment (fishing2sim/plan.py)."""
    from fishing2sim.config.experiment import load_experiment
    from fishing2sim.plan import describe, make_plan, quick_factor
    from fishing2sim.run.processes import default_workers

    if exp.adaptive and quick:
        raise InputError(f"{path}: --quick needs a file of fixed games; this one stops by "
                         "its precision or SPRT rule (--plan gives the games it is expected "
                         "to play)")
    w = workers or exp.workers or default_workers()
    plan = make_plan(exp, w, echo=(lambda m: click.echo(m, err=True)) if progress else None)
    if not quick:
        for line in describe(plan):
            click.echo(line)
        return None
    f = quick_factor(plan)
    n = max(1, round(exp.games * f))
    for line in describe(plan, n / exp.games):
        click.echo(line, err=True)
    if n >= exp.games:
        return exp
    return load_experiment(path, {**overrides, "games": n}, yes=yes, progress=progress)


def _compile_and_rate(m: dict, played: int) -> str:
    """The run line's parenthesis: the compile's seconds apart from the play's (where
    something compiled), the games/s of the play alone, and the workers."""
    workers = (f"{m['workers']} {'Dask ' if m['backend'] == 'dask' else ''}"
               f"worker{'' if m['workers'] == 1 else 's'}")
    compile_s, play_s = m.get("compile_s") or 0.0, m.get("play_s") or m["elapsed_s"]
    rate = played / play_s if played and play_s > 0 else None
    bits = [f"compiling {compile_s:.0f} s, playing {play_s:.0f} s"] if compile_s >= 0.5 else []
    if rate:
        bits.append(f"{_rate(rate)} games/s{' of play' if bits else ''}")
    return f" ({', '.join(bits + [workers])})" if rate else ""


def _rate(per_second: float) -> str:
    """A games/s figure: whole numbers, with a decimal below 10 (a search run of a few games
    a second is not "0 games/s")."""
    return f"{per_second:,.0f}" if per_second >= 10 else f"{per_second:.2g}"


@main.command("report")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--open", "open_page", is_flag=True, help="Open report.html in a web browser.")
def report_command(folder, open_page):
    """Show a report folder's web page (report.html; written anew from the folder's files
    when it is missing or not a complete page) and open it with --open. Only PNG files in
    the folder itself are embedded; what cannot be used is skipped with a warning line."""
    import os
    from pathlib import Path

    from fishing2sim.report import render_html

    p = Path(folder)
    if not p.is_dir():
        raise UserError(f"{folder}: no such report folder")
    if not os.path.lexists(p / "summary.md"):
        raise UserError(f"{folder}: not a report folder (no summary.md; run "
                        "fishing2sim run FILE first)")
    from fishing2sim.safe_files import MARKER, is_ours

    if not is_ours(p):  # its report.html would be written anew: a folder of ours only
        raise UserError(f"{folder}: not a report folder made by fishing2sim (it has no "
                        f"{MARKER} file, nor only the files of an older version's report); "
                        "its files are left as they are")
    try:
        page = render_html(p, warn=lambda message: click.echo(f"warning: {message}",
                                                              err=True))
    except Fishing2simError:
        raise
    except OSError as exc:
        raise UserError(f"{folder}: cannot write report.html: {exc.strerror or exc}") from None
    click.echo(str(page))
    if open_page:
        _open_page(page)


@main.command("compare")
@click.argument("dir_a", type=click.Path())
@click.argument("dir_b", type=click.Path())
@click.option("--csv", "csv_file", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Also write the table to FILE (CSV; not inside either "
              "report folder).")
@click.option("--allow-different-setup", is_flag=True,
              help="Compare matched conditions of different player counts or rulesets.")
def compare_command(dir_a, dir_b, csv_file, allow_different_setup):
    """Contrast the headline figures two report folders share: A − B with 95% CIs
    (independent runs: Newcombe's interval for shares, the normal one for means).
    Conditions are matched by name (by position when each folder has one). Folders that
    played the same deals (the same seed, players and deck) are refused: run both as
    conditions of one experiment with paired: true. Matched conditions of different player
    counts or rulesets are refused unless --allow-different-setup is given."""
    from fishing2sim.compare import check_csv_path, compare, table_text
    from fishing2sim.safe_files import write_atomic

    try:
        if csv_file is not None:
            check_csv_path(csv_file, (dir_a, dir_b))
        df = compare(dir_a, dir_b, allow_different_setup)
        text = table_text(df)
        if csv_file is not None:
            write_atomic(csv_file, df.to_csv(index=False, float_format="%.10g",
                                             lineterminator="\n"))
    except Fishing2simError:
        raise
    except OSError as exc:
        raise UserError(f"{csv_file}: cannot write the table: {exc.strerror or exc}") from None
    click.echo(text)


@main.command("strategies")
def list_strategies():
    """List the shipped bots: name, what it does, its parameters (name=default)."""
    from fishing2sim.strategy.loading import describe_strategies

    bots = describe_strategies()
    width = max((len(d["name"]) for d in bots), default=0)
    for d in bots:  # markdown's ``code`` backticks mean nothing on a terminal
        click.echo(f"{d['name']:<{width}} {d['doc'].replace('`', '')}")
        if d["params"]:
            click.echo(" " * (width + 1) + "params: " + ", ".join(
                f"{n}={v:g}" for n, v in d["params"]))


@main.command("experiments")
def list_experiments():
    """List the shipped experiment files (run one by name: fishing2sim run NAME)."""
    import shutil
    import textwrap

    from fishing2sim.config.experiment import first_sentences, shipped_experiments

    shipped = shipped_experiments()
    width = max((len(name) for name, _, _ in shipped), default=0)
    columns = max(60, min(120, shutil.get_terminal_size((100, 24)).columns))
    for name, path, doc in shipped:  # whole sentences, wrapped under the name's column
        lines = textwrap.wrap(first_sentences(doc).replace("`", ""), columns - width - 1,
                              break_on_hyphens=False) or [""]
        click.echo(f"{name:<{width}} {lines[0]}")
        for line in lines[1:]:
            click.echo(" " * (width + 1) + line)
        click.echo(" " * (width + 1) + str(path))


@main.command()
@click.argument("experiment", type=click.Path(dir_okay=False))
@click.option("--workers", "-w", type=int, default=None,
              help="Local processes for each trial's games (default: the file's workers, "
                   "else all cores).")
@click.option("--resume", is_flag=True,
              help="Continue the study in <output>/<name>/study.db.")
@click.option("--trials", type=int, default=None, help="Override tune.budget.trials.")
@click.option("--time", "time_limit", default=None, metavar="DURATION",
              help="Override tune.budget.time (e.g. 90s, 25m, 1h).")
@_output
@click.option("--no-progress", is_flag=True, help="No line per trial.")
@_yes("Tune", ": trials, racing")
def tune(experiment, workers, resume, trials, time_limit, output, no_progress, yes):
    """Search the file's tune.space toward its tune.objective (Optuna); write a report.

    Ctrl-C (or SIGTERM) stops it at once (a trial's worker processes too); the finished
    trials are in the study and --resume continues (exit code 130, 143 after SIGTERM)."""
    from fishing2sim import first_run
    from fishing2sim.run.processes import StopSignals

    try:
        import optuna  # noqa: F401  (loaded only when tuning)
    except ImportError:
        raise UserError("fishing2sim tune needs Optuna: pip install 'fishing2sim[tune]'") \
            from None
    from fishing2sim.tune.tuner import load_tune, tune as tune_study, value_text

    try:
        if workers is not None and workers < 0:
            raise InputError(f"--workers must be >= 0, got {workers}")
        if trials is not None and trials < 1:
            raise InputError(f"--trials must be >= 1, got {trials}")
        with first_run.notice(not no_progress):  # said before the first compile
            spec = load_tune(experiment, {"workers": workers, "output": output,
                                          "trials": trials, "time": time_limit}, yes=yes)
            # SIGINT and SIGTERM stop the tune (a trial's workers at once); further ones
            # are ignored while it ends
            with StopSignals(ignore_after_stop=True):
                result = tune_study(spec, workers=workers, resume=resume,
                                    progress=not no_progress)
    except KeyboardInterrupt as exc:
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)
        click.echo("interrupted: the finished trials are in the study; run again with "
                   "--resume to continue", err=True)
        sys.exit(128 + getattr(exc, "signum", signal.SIGINT))
    w = result.winner
    line = f"{len(result.trials)} trials in {result.elapsed_s:,.0f} s"
    if w is not None:
        line += (f"; winner: trial {w['trial']}, value "
                 f"{value_text(result.spec, w['evaluation'].value)}")
        if result.verdict:
            line += f" ({result.verdict})"
    if result.front is not None:
        n = len(result.front.points)
        line += f"; Pareto front: {n} point{'' if n == 1 else 's'}"
    click.echo(line + f" -> {result.report_dir}")


@main.command()
@click.argument("training_file", type=click.Path(dir_okay=False))
@click.option("--workers", "-w", type=int, default=None,
              help="Local processes for the labelling (default: the file's workers).")
@_output
@click.option("--fresh", is_flag=True, help="Start over in a folder of another configuration.")
@_dask("Label on the Dask scheduler at ADDRESS (e.g. tcp://host:8786).",
       "Label on a local Dask cluster of N worker processes.")
@_yes("Train", ": labelled, evaluation, ES")
def train(training_file, workers, output, fresh, scheduler, dask_local, yes):
    """Train the student policy skilled by expert iteration (fishing2sim/train/run.py).

    Ctrl-C stops it; the finished iterations are kept and a second run resumes."""
    from fishing2sim.train.config import read_config
    config = read_config(training_file)  # a mistake in the file: one line, before the trainer loads
    from fishing2sim.train.run import train as run_training

    if workers is not None and workers < 1:
        raise UserError(f"--workers must be >= 1, got {workers}")
    if dask_local is not None and dask_local < 1:
        raise UserError(f"--dask-local needs a number of workers >= 1, got {dask_local}")
    from fishing2sim.run.processes import StopSignals

    try:  # Ctrl-C or SIGTERM stops it once; a second signal cannot cut its cleanup short
        with StopSignals(ignore_after_stop=True):
            out = run_training(training_file, workers, output, fresh,
                               progress=lambda m: click.echo(m, err=True),
                               scheduler=scheduler, dask_local=dask_local, yes=yes,
                               config=config)
    except KeyboardInterrupt as exc:
        click.echo("stopped: the finished iterations are kept; run again to resume", err=True)
        sys.exit(128 + getattr(exc, "signum", signal.SIGINT))
    click.echo(f"wrote {out}/summary.md (model: {out}/model.npz)")


@main.command()
@click.argument("folder", type=click.Path(file_okay=False), default=None, required=False)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Listen on this address (another than 127.0.0.1 opens it to the network).")
@click.option("--port", type=int, default=8765, show_default=True,
              help="Listen on this port (0: a free one).")
@click.option("--strategy", "strategy_files", multiple=True, metavar="FILE",
              help="Offer this strategy file as a bot on the start page (repeatable).")
@click.option("--deck", "deck_files", multiple=True, metavar="FILE",
              help="Offer this deck CSV file on the start page (repeatable).")
def serve(folder, host, port, strategy_files, deck_files):
    """Play a seat against the bots in the browser, with the search's hints; replays; the
    report folders under FOLDER (default: reports, if any). Needs the serve extra
    (docs/serve.md).

    It prints its address with a fresh token; Ctrl-C stops it (exit code 130)."""
    from fishing2sim.serve.server import serve as run_server

    try:
        run_server(folder or "reports", host, port, echo=lambda m: click.echo(m, err=True),
                   must_exist=folder is not None, strategy_files=strategy_files,
                   deck_files=deck_files)
    except KeyboardInterrupt:
        # the server writes no file: end at once, without the interpreter's teardown of
        # the compiled kernels (over a second), so Ctrl-C stops it within 2 s
        import os

        click.echo("stopped", err=True)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
