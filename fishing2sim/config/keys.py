"""The keys of an experiment file, the sizes a run may have, and the key paths of a sweep.

What each key means is documented in docs/experiments.md; what each key's value may be is
the schema's (fishing2sim/config/schema.py)."""
from __future__ import annotations

ANALYSES = ("depletion", "overfishing", "trump_value", "strategies")  # the default set
LADDER = "ladder"  # the ladder analysis (and key): only in a file with a ladder: key
KNOWN_ANALYSES = ANALYSES + (LADDER, "arc", "cards", "decisions", "profile")  # arc: the
# game-arc figures, cards: the per-card figures, decisions: the decision stakes, profile: the
# behaviour profile (every skill panel has it), each asked for by name
PROFILE = "profile"
PROFILE_GAMES = 200  # the behaviour profile: the first games of a condition replayed with
# the log on (every game of a lineup with a search seat is read as it is played)
TOP_KEYS = ("name", "ruleset", "players", "games", "seed", "chunk", "first_leader", "seats",
            "rotate", "deck", "sweep", "analyses", "trump_value", "workers", "scheduler",
            "output", "strict", "tune", "paired", "precision", "max_games", "sprt",
            "conditions", "ladder", "multiplicity", "cards", "decisions",
            "play_levels", "examples")  # tune: read by `fishing2sim tune` only
# keys a ladder file cannot have: the ladder makes its own conditions
LADDER_EXCLUDES = ("seats", "sweep", "conditions", "paired", "precision", "sprt", "max_games",
                   "play_levels")
DECK_KEYS = ("file", "remove", "remove_from_tier", "add", "move", "hand_sizes", "rounds")
LABELLED_KEYS = ("value", "label", "baseline")  # a sweep value written {value:, label:, baseline:}
ENTRY_KEYS = ("label", "baseline")  # an entry of conditions: key paths, and these
CONDITIONS = "conditions"  # the explicit conditions, one more dimension of the grid
PLAY_LEVELS = "play_levels"  # the skill panel (config/levels.py): the grid's last dimension
LEVEL = "level"  # a panel condition's label key: its level's name
# precision: figure -> (its unit as written, the unit's scale to the figure's own unit)
PRECISION_FIGURES = {
    "overfishing": ("pp", 0.01),  # the overfished share, in percentage points
    "ocean_empty": ("pp", 0.01),  # share of games whose ocean is empty (or overfished) by the end
    "ocean_left": ("cards", 1.0),  # cards left after the last round's draws, over all games
    "trump_value": ("points", 1.0),  # the policy gain per trump choice, pooled over rounds
    "win_share": ("pp", 0.01),  # every strategy's win share
    "card_overfishing": ("pp", 0.01),  # analyses: [cards]: every card's overfishing effect
}
MULTIPLICITY = ("holm", "bh", "none")  # stats.MULTIPLICITY
# the analysis a contrast figure comes with (contrasts.FIGURE_INFO)
CONTRAST_ANALYSIS = {"overfishing": "overfishing", "ocean_empty": "depletion",
                     "ocean_left": "depletion", "trump_value": "trump_value",
                     "win_share": "strategies"}
# keys a sweep may vary (per condition); the others are experiment-wide
SWEEPABLE = ("players", "games", "first_leader", "seats", "rotate", "deck", "ruleset")
# keys the command line may override
OVERRIDE_KEYS = ("workers", "scheduler", "games", "output", "strict")
# keys that do not change any result: left out of config_hash (so --resume may reuse
# checkpoints after a change of workers, scheduler or output folder)
# not hashed: they change how a run plays or reports, never its games (multiplicity: the
# adjustment of the contrasts' verdict words)
EXECUTION_KEYS = ("workers", "scheduler", "output", "strict", "multiplicity")

# the decision stakes (analyses: [decisions], config/decisions.py): the share of the
# decisions with a choice that are replayed, card plays and every other kind
DECISION_RATE = 0.01
DECISION_PLAY_RATE = 0.00005

DEFAULT_GAMES = 100_000
# example games kept per condition and figure (run/examples.py): the default and the most
DEFAULT_EXAMPLES = 3
MAX_EXAMPLES = 20
DEFAULT_CHUNK = 10_000
CONDITION_SEED_OFFSET = 1_000_000
MAX_SEED = 2**63 - 1

# the size of a run, checked before anything is expanded or played (docs/experiments.md):
# above the soft limits a run needs --yes (load_experiment(..., yes=True)); the hard limits
# always hold
MAX_GAMES = 10**9  # games in all (games x conditions)
MAX_GAMES_HARD = 10**13  # int64 sums of squares stay exact far below this
MAX_CONDITIONS = 1_000  # sweep size (conditions)
MAX_CONDITIONS_HARD = 100_000
# the YAML itself
SUPPORTED_PLAYERS = (3, 4, 5)  # config.deck.SUPPORTED_PLAYERS
MAX_TIER = 5  # the ocean tiers are 1..MAX_TIER (0: the starting cards)
MAX_YAML_DEPTH = 64  # nesting levels
MAX_YAML_VALUES = 1_000_000  # values after expanding aliases (an "alias bomb" expands far more)
LOAD_PROGRESS_CONDITIONS = 200  # show a progress bar while expanding more conditions
