"""Why a push did not reach a phone: a stable code and its parameters, stored as compact JSON
in `fout` (of a message and of each attempt). The API words it in English with the code, the
portal in the user's language (`portal/problems.py`), so no screen shows the worker's words.

Rows written before codes existed hold free text; it is shown as it is."""

from __future__ import annotations

import json
from typing import Any

ENGLISH = {
    "no_subscription": "no phone registered for push notifications; the message is in the app",
    "network_error": "network error reaching the push service ({error})",
    "endpoint_refused": "push service address refused ({detail})",
    "subscription_invalid": "invalid push subscription ({detail})",
    "subscription_gone": "the push subscription no longer exists (HTTP {http})",
    "service_unavailable": "push service temporarily unavailable (HTTP {http})",
    "service_refused": "the push service refused the message (HTTP {http})",
    "internal_error": "internal error in the push worker ({error})",
    "given_up": "given up after {attempts} attempts: {last}",
}
CODES = tuple(ENGLISH)
DETAIL_MAX = 200  # a parameter from elsewhere (an exception's text) is cut to this


def failure(code: str, **params: Any) -> str:
    """The stored form of a failure: {"code": ..., params}. given_up's `last` is the stored
    form of the last attempt's failure, kept whole."""
    if code not in ENGLISH:
        raise ValueError(f"unknown push failure code {code!r}")
    clean = {
        name: (value[:DETAIL_MAX] if isinstance(value, str) and name != "last" else value)
        for name, value in params.items()
    }
    return json.dumps({"code": code, **clean}, separators=(",", ":"), ensure_ascii=False)


def read(fout: str | None) -> tuple[str, dict] | None:
    """(code, params) of a stored failure; ("text", {"text": ...}) for free text of old rows."""
    if not fout:
        return None
    try:
        doc = json.loads(fout)
    except ValueError:
        doc = None
    if isinstance(doc, dict) and doc.get("code") in ENGLISH:
        params = {k: v for k, v in doc.items() if k != "code"}
        return doc["code"], params
    return "text", {"text": fout}


def code_of(fout: str | None) -> str | None:
    """The stable code of a stored failure (None when there is none or it is old free text)."""
    found = read(fout)
    return found[0] if found and found[0] != "text" else None


def english(fout: str | None) -> str | None:
    """A stored failure in English, for the API."""
    found = read(fout)
    if found is None:
        return None
    code, params = found
    if code == "text":
        return params["text"]
    if code == "given_up":
        params = {**params, "last": english(params.get("last")) or ""}
    return ENGLISH[code].format_map(_Blank(params))


def worded(fout: str | None) -> str:
    """A stored failure in the user's language, for the portal."""
    from portal import problems

    found = read(fout)
    if found is None:
        return ""
    code, params = found
    if code == "text":
        return params["text"]
    if code == "given_up":
        params = {**params, "last": worded(params.get("last"))}
    return problems.say(f"push_{code}", params, english(fout) or "")


class _Blank(dict):
    """format_map that leaves a missing parameter empty instead of failing."""

    def __missing__(self, key: str) -> str:
        return ""
