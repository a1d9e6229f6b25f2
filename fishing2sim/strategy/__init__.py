"""What a strategy is: the decision contract (contract.py), the kit a strategy file imports
(kit.py), the reference random strategy (reference.py, docs/rules.md C), loading a file into
a seat (loading.py) and the one identity of each seat's bot (identity.py)."""
