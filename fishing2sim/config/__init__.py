"""Reading what the user asks for: the experiment file (experiment.py) and the deck files and
deck edits (deck.py), checked before any game is played."""
