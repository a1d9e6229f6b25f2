"""From totals to tables: the per-analysis tables (tables.py), the headline figures and
contrasts (contrasts.py), the statistics they use (stats.py), the ladder's rating fit
(ladder.py) and the SPRT (sprt.py). No kernel, no file I/O."""
