"""English names of the product's Dutch codes, for the API's English messages: a message says
"planned", and the problem carries the code itself ("gepland") as a parameter. Any module may
import this (it needs no request and no database)."""

from __future__ import annotations

from collections.abc import Mapping

TASK_STATUS = {
    "gepland": "planned",
    "ontvangen": "received",
    "gestart": "started",
    "afgerond": "completed",
    "geannuleerd": "cancelled",
}
ACTIVITY_KIND = {
    "rijden": "driving",
    "laden": "loading",
    "lossen": "unloading",
    "wachten": "waiting",
    "pauze": "break",
    "overig_werk": "other work",
    "beschikbaarheid": "availability",
}
PLACE_KIND = {"laden": "loading", "lossen": "unloading", "beide": "loading and unloading"}


def english(names: Mapping[str, str], code: str | None) -> str:
    """The English name of a code, or the code itself when it has none."""
    return names.get(code or "", code or "")
