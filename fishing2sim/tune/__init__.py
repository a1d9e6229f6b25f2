"""`fishing2sim tune`: the tune section, the study and its racing (tuner.py) and the tune
report (report.py)."""
