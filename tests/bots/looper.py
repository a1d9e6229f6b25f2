"""looper: a test bot whose play decision never returns (a bug in a user's bot: a loop
that never ends, inside a compiled decision that Ctrl-C cannot interrupt from inside)."""
from fishing2sim.strategy.kit import decision, option

NAME = "looper"


@decision
def play(obs, params, rng):
    k = 0
    while params.size >= 0 and k >= 0:  # never false (and not folded away by the compiler)
        k = (k + 1) % 1000003
    return option(obs, 0)
