"""Dutch licence plates (kentekens): the RDW's sidecodes, validation and normalisation.

A plate is stored the way it is painted, with dashes where its sidecode puts them
("BX-12-LP", "VZH-56-E", "12-BLK-3"); plates compare without dashes ("BX12LP"). The letter
and digit pattern of a compact plate fixes its sidecode, so every compact form has exactly
one painted form and two spellings of one plate can never both be stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The sidecodes in use since 1951 (L = letter, D = digit), as painted.
SIDECODES: dict[int, str] = {
    1: "LL-DD-DD",
    2: "DD-DD-LL",
    3: "DD-LL-DD",
    4: "LL-DD-LL",
    5: "LL-LL-DD",
    6: "DD-LL-LL",
    7: "DD-LLL-D",
    8: "D-LLL-DD",
    9: "LL-DDD-L",
    10: "L-DDD-LL",
    11: "LLL-DD-L",
    12: "L-DD-LLL",
    13: "D-LL-DDD",
    14: "DDD-LL-D",
}
_BY_SHAPE = {pattern.replace("-", ""): (code, pattern) for code, pattern in SIDECODES.items()}
_SEPARATORS = re.compile(r"[\s\-.]+")
_ALLOWED = re.compile(r"^[A-Z0-9]+$")
EXAMPLE = "BX-12-LP"


class InvalidKenteken(ValueError):
    """Not a Dutch licence plate; `reason` says why, in plain words."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Kenteken:
    compact: str  # "BX12LP": how plates compare
    painted: str  # "BX-12-LP": how the plate is stored and shown
    sidecode: int


def compact(value: str) -> str:
    """A plate as it compares: no spaces, dashes or dots, upper case ('bx-12-lp' → 'BX12LP')."""
    return _SEPARATORS.sub("", value or "").upper()


def _shape(plate: str) -> str:
    return "".join("D" if c.isdigit() else "L" for c in plate)


def parse(value: str) -> Kenteken:
    """The Dutch plate in value, whatever its dashes, spaces or case; InvalidKenteken if none."""
    plate = compact(value)
    if not plate:
        raise InvalidKenteken("empty")
    if not _ALLOWED.match(plate):
        raise InvalidKenteken("characters")
    if len(plate) != 6:
        raise InvalidKenteken("length")
    found = _BY_SHAPE.get(_shape(plate))
    if found is None:
        raise InvalidKenteken("sidecode")
    code, pattern = found
    painted, i = [], 0
    for part in pattern.split("-"):
        painted.append(plate[i : i + len(part)])
        i += len(part)
    return Kenteken(compact=plate, painted="-".join(painted), sidecode=code)


def painted(value: str) -> str:
    """The plate with its sidecode's dashes ('bx12lp' → 'BX-12-LP'); InvalidKenteken if none."""
    return parse(value).painted


def is_valid(value: str) -> bool:
    try:
        parse(value)
    except InvalidKenteken:
        return False
    return True
