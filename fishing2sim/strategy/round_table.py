"""The learned end-of-round value's table (search/round_value.py, docs/search.md): its
layout, its file and reading it. Read when this module is imported; the search kernels
freeze the coefficients, and a search bot asking for horizon 2 without a usable table is
refused (strategy.search_bots.search_params_problem)."""
import zipfile
from pathlib import Path

import numpy as np

from fishing2sim.engine.constants import MAX_PLAYERS

N_RV = 12  # features of a round's end (round_end_features)
RV_NAMES = ("bias", "margin", "margin_ahead", "boat", "short", "hand_strength",
            "hand_greens", "hand_other", "leads_next", "ocean_slack", "margin_tight",
            "boat_rest")
N_RV_RULESETS = 2
N_RV_PLAYERS = MAX_PLAYERS + 1  # index = player count
N_RV_LEFT = 8  # index = rounds still to play (1 .. 7)
RV_SHAPE = (N_RV_RULESETS, N_RV_PLAYERS, N_RV_LEFT, N_RV)  # the coefficient table
RV_FILE = Path(__file__).resolve().parent.parent / "data" / "round_value.npz"
RV_VERSION = 1


def load_coefficients(path: Path = RV_FILE) -> np.ndarray | None:
    """The coefficient table [ruleset, players, rounds left, N_RV], or None if the file is
    missing, unreadable or of another version or layout."""
    table = np.zeros(RV_SHAPE, np.float64)
    try:
        with np.load(path) as z:
            if int(z["version"]) != RV_VERSION or z["coef"].shape != table.shape \
                    or not np.isfinite(z["coef"]).all():
                return None
            table[:] = z["coef"]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    return table


_loaded = load_coefficients()
# without a usable table the kernels see zeros
RV_OK = _loaded is not None
RV_COEF = _loaded if RV_OK else np.zeros(RV_SHAPE)
