"""`fishing2sim serve` (docs/serve.md): a local web app to play a seat against the bots
with the search's hints, replays, and the report folders under a folder."""
