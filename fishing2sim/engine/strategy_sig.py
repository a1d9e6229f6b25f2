"""The one decision hook every strategy implements (RULES.md C).

    decide(kind, obs, params, rng) -> choice

``kind`` is a D_* code, ``obs`` the observation (layout: O_* in constants.py; the options
are obs[O_OPTIONS : O_OPTIONS + obs[O_N_OPTIONS]]), ``params`` the seat's parameter vector,
``rng`` the seat's own one-cell random stream (use rng.rand_below(rng, 0, n)). It returns
one of the options (a card id, a shade, a suit). With this explicit signature the
functions are first-class values of one type, so a lineup is a tuple indexed by seat
inside the jitted loop and the driver compiles once for every lineup.
"""
DECIDE_SIGNATURE = "int64(int64, int64[::1], float64[::1], uint64[::1])"
