"""A readable account of one game, from its event log (docs/events.md)."""
from __future__ import annotations


def _seat(p) -> str:
    return f"seat {p}"


GAME_NAMES = {"fishing2": "Fishing 2", "fishing": "Fishing (the original Fischen)"}


def render_game(events: list[dict]) -> str:
    out: list[str] = []
    w = out.append
    draws: dict[int, dict[str, list[str]]] = {}
    caught: dict[tuple[int, str], list[str]] = {}

    def flush_draws():
        if not draws:
            return
        parts = []
        for p in sorted(draws):
            d = draws[p]
            s = []
            if d["boat"]:
                s.append(f"{len(d['boat'])} from boat")
            if d["ocean"]:
                s.append(f"{len(d['ocean'])} from ocean ({', '.join(d['ocean'])})")
            parts.append(f"{_seat(p)}: {', '.join(s)}")
        w("  draws: " + "; ".join(parts))
        draws.clear()

    def flush_caught():
        for (p, by), cards in caught.items():
            how = " (blowfish, as weakest)" if by == "weakest" else ""
            w(f"    {_seat(p)} catches {', '.join(cards)}{how}")
        caught.clear()

    def flush_catch_all():
        for p, cards in catch_all.items():
            w(f"      catch-all-others: {_seat(p)} catches {', '.join(cards)}")
        catch_all.clear()

    def flush_passes():
        if passes:
            w("      pass-1-left: " + "; ".join(
                f"{_seat(p)} passes {c} to {_seat(to)}" for p, c, to in passes))
            passes.clear()

    catch_all: dict[int, list[str]] = {}
    passes: list[tuple[int, str, int]] = []
    fishing = False

    ocean_n = 0
    for e in events:
        k = e["event"]
        if k != "draw" or e["cause"] != "round":
            flush_draws()
        minus3 = k == "bonus" and e["points"] < 0  # follows the card it is about
        if minus3 and (caught or catch_all):
            group = caught if caught else catch_all
            cards = group[next(reversed(group))]
            cards[-1] += " (-3 points at once)"
            continue
        if k != "caught":
            flush_caught()
        if k != "catch_all_others":
            flush_catch_all()
        if k != "pass_1_left":
            flush_passes()
        if k == "setup":
            lead = "random" if e["first_leader"] is None else _seat(e["first_leader"])
            fishing = e["ruleset"] == "fishing"
            w(f"{GAME_NAMES.get(e['ruleset'], e['ruleset'])} — {e['players']} players, "
              f"seed {e['seed']}, game {e['game']} "
              f"(round-1 leader: {lead}); hand sizes by round: {e['hand_sizes']}")
            if e.get("condition") is not None:
                w(f"Condition {e['condition']}: {e.get('condition_name') or ''}".rstrip())
            if e.get("strategies"):
                w("Seats: " + ", ".join(f"{_seat(i)} {n}"
                                        for i, n in enumerate(e["strategies"])))
            if fishing:
                w("Green is always trump.")
        elif k == "ocean":
            ocean_n += 1
        elif k == "round_start":
            if e["round"] == 1:
                w(f"Ocean: {ocean_n} cards, tier 1 on top")
            w("")
            w(f"== Round {e['round']}: {e['hand_size']} cards in hand ==")
        elif k == "draw":
            if e["cause"] == "round":
                draws.setdefault(e["player"], {"boat": [], "ocean": []})[e["source"]].append(e["card"])
            else:
                w(f"      {_seat(e['player'])} draws {e['card']} from the {e['source']}")
        elif k == "leader":
            w(f"  leader: {_seat(e['player'])}")
        elif k == "trump_choice":
            w(f"  {_seat(e['player'])} chooses {e['shade']} green as trump")
        elif k == "trick_start":
            if fishing:
                extra = ""
                if e.get("suit"):
                    extra += (f", {e['suit']} named by {_seat(e['named_by'])} (everyone "
                              f"must follow it)")
                if e.get("lowest_wins"):
                    extra += ", the LOWEST card wins"
                w(f"  Trick {e['trick']} — {_seat(e['leader'])} leads{extra}")
            else:
                trump = f"trump {e['trump']} green" if e["trump"] else "no trump"
                w(f"  Trick {e['trick']} — {_seat(e['leader'])} leads, {trump}")
        elif k == "play":
            w(f"    {_seat(e['player'])} plays {e['card']}")
        elif k == "bonus":
            why = " (minus-3)" if minus3 else ""
            w(f"      {_seat(e['player'])} scores {e['points']:+d} points at once{why}")
        elif k == "trick_result":
            hi = e["highest_card"] or "the first buoy"
            if fishing and e["highest_card"] is None:
                hi = "no card of the named suit or trump, or only buoys"
            s = f"    {'catching card' if fishing else 'highest'}: {hi} " \
                f"({_seat(e['highest_player'])})"
            if e["weakest_card"]:
                s += f"; weakest: {e['weakest_card']} ({_seat(e['weakest_player'])})"
            w(s)
        elif k == "catch_1_other":
            w(f"      catch-1-other: {_seat(e['player'])} catches {e['card']}")
        elif k == "determine_trump":
            if e["shade"]:
                w(f"      determine-trump: {_seat(e['player'])} sets {e['shade']} green for the next trick")
            else:
                w(f"      determine-trump: forfeited (no next trick this round)")
        elif k == "draw_1_card":
            w(f"      draw-1-card: every player draws 1 card; one more trick this round")
        elif k == "catch_1_card":
            w(f"      catch-1-card: {_seat(e['player'])} moves {e['card']} from hand to fisher")
        elif k == "exchange_1_card":
            w(f"      exchange-1-card: {_seat(e['player'])} takes {e['taken']}, "
              f"puts {e['given']} face down")
        elif k == "zero_catch":
            w(f"      {e['zero']}: {_seat(e['player'])} catches {e['card']}")
        elif k == "catch_all_others":
            catch_all.setdefault(e["player"], []).append(e["card"])
        elif k == "pass_1_left":
            passes.append((e["player"], e["card"], e["to"]))
        elif k == "play_first":
            if e["forfeited"]:
                w("      play-first: forfeited (no next trick this round)")
            else:
                w(f"      play-first: {_seat(e['player'])} leads the next trick")
        elif k == "determine_colour":
            if e["suit"]:
                w(f"      determine-colour: {_seat(e['player'])} names {e['suit']} for the "
                  "next trick")
            else:
                w("      determine-colour: forfeited (no next trick this round)")
        elif k == "lowest_wins":
            if e["forfeited"]:
                w("      lowest-wins: forfeited (no next trick this round)")
            else:
                w("      lowest-wins: the lowest card wins the next trick")
        elif k == "caught":
            caught.setdefault((e["player"], e["by"]), []).append(e["card"])
        elif k == "trump":
            pass
        elif k == "round_score":
            w(f"  {_seat(e['player'])}: {e['caught']} cards caught -> {e['points']} points")
        elif k == "overfished":
            w("")
            w(f"OVERFISHING: {e['needed']} cards needed from the ocean, {e['ocean']} left "
              f"({'draw-1-card' if e['cause'] == 'draw-1-card' else 'start of a round'})")
        elif k == "game_end":
            pts = ", ".join(f"{_seat(p)} {v}" for p, v in enumerate(e.get("points", [])))
            wins = " and ".join(_seat(p) for p in e["winners"])
            w("")
            w(f"Game over ({e['reason']}, round {e['round']}). Points: {pts}. "
              f"Winner{'s' if len(e['winners']) > 1 else ''}: {wins}")
    flush_draws()
    flush_caught()
    flush_catch_all()
    flush_passes()
    return "\n".join(out)
