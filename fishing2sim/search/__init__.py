"""The search bots' kernels (docs/search.md): the seat's view of a position, sampled worlds,
PIMC and ISMCTS decisions, and the batches of games they play. Built on fishing2sim.engine."""
