"""Playing an experiment: the plan of chunks (chunks.py), the per-chunk totals (totals.py),
local worker processes, checkpoints and stopping rules (runner.py), and the Dask cluster
(dask.py)."""
