"""Key paths: ``deck.remove_from_tier.5``, ``seats[1].params``: where a sweep, an entry of
conditions or a tune space sets a value."""
from __future__ import annotations

import re

__all__ = ["parse_key_path", "overlap", "key_str"]


def parse_key_path(key: str) -> list:
    """``"deck.remove_from_tier.5"`` / ``"seats[1].params"`` -> components (str or int)."""
    out: list = []
    for part in key.split("."):
        m = re.fullmatch(r"([^\[\]]*)((?:\[\d+\])*)", part)
        if not m or (not m.group(1) and not m.group(2)):
            raise ValueError(part)
        if m.group(1):
            out.append(m.group(1))
        out.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return out


def overlap(a: list, b: list) -> bool:
    """Whether two key paths set the same place (one is the other or inside it)."""
    n = min(len(a), len(b))
    return [str(x) for x in a[:n]] == [str(x) for x in b[:n]]


def key_str(parts) -> str:
    s = ""
    for p in parts:
        s += f"[{p}]" if isinstance(p, int) else (f".{p}" if s else str(p))
    return s


