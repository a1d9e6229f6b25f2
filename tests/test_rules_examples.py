"""The rulebook's own examples, played on the engine."""
from scenario import Table, only

# seats: 0 Angelika, 1 Sabine, 2 Hedwig, 3 Nicole (clockwise)


def test_rulebook_yellow_trick_example():
    # "Angelika starts the trick with the yellow 7. Sabine follows with the yellow 3, Hedwig
    # follows with the yellow 10, and Nicole sheds a blue 2. Hedwig catches the trick."
    t = Table(players=4, round=1, leader=0, hands={
        0: ["yellow 7", "blue 9"], 1: ["yellow 3", "blue 8"], 2: ["yellow 10", "blue 7"],
        3: ["blue 2", "blue 6"]},
        prefer={0: ["yellow 7"], 1: ["blue 8", "yellow 3"], 2: ["yellow 10"], 3: ["blue 2"]})
    ev = t.play_trick()
    assert [e["card"] for e in only(ev, "play")] == ["yellow 7", "yellow 3", "yellow 10", "blue 2"]
    res = only(ev, "trick_result")[0]
    assert res["highest_player"] == 2 and res["highest_card"] == "yellow 10"
    assert res["weakest_card"] == "blue 2"  # the shed card is the weakest
    assert t.fisher(2) == sorted(["yellow 7", "yellow 3", "yellow 10", "blue 2"])
    assert t.leader == 2  # Hedwig starts the next trick


def test_rulebook_round2_drawing_example():
    # "Angelika draws 9 of the 16 cards on her boat. Hedwig and Nicole have only 8 cards on
    # their boats and Sabine only 4 cards ... Sabine is short 5 cards, so she draws 5 from the
    # ocean stack, followed by Nicole, then Hedwig each drawing 1 card from that stack."
    # Nicole draws before Hedwig: she played earlier in the previous round's final trick.
    blue = [f"blue {v}" for v in range(3, 21)]
    yellow = [f"yellow {v}" for v in range(3, 21)]
    boats = {0: blue[:16], 1: yellow[:4], 2: yellow[4:12], 3: blue[16:] + yellow[12:18]}
    ocean = [f"red {v}" for v in range(1, 13)]
    t = Table(players=4, round=1, leader=3, boats=boats, ocean=ocean,
              last_order=[3, 0, 1, 2], points={0: 16, 1: 4, 2: 8, 3: 8})
    ok, ev = t.start_next_round()
    assert ok
    ocean_draws = [(e["player"], e["card"]) for e in only(ev, "draw") if e["source"] == "ocean"]
    assert ocean_draws == [(1, "red 1"), (1, "red 2"), (1, "red 3"), (1, "red 4"), (1, "red 5"),
                           (3, "red 6"), (2, "red 7")]
    assert [len(t.hand(p)) for p in range(4)] == [9, 9, 9, 9]
    assert len(t.boat(0)) == 7  # Angelika keeps the rest of her boat for later rounds
    assert t.boat(0) == blue[9:16]
    assert t.ocean() == ocean[7:]
    # Sabine has the fewest points: she starts the first trick, after choosing the trump
    assert t.leader == 1
