"""Why a webhook delivery did not arrive: a stable code and its parameters, stored as compact
JSON in `fout` (of a delivery, an attempt, and an endpoint's pause reason). The API words it
in English with the code; the portal in the user's language (`portal/problems.py`, codes
prefixed "webhook_")."""

from __future__ import annotations

import json
from typing import Any

ENGLISH = {
    "url_refused": "the endpoint's address is refused ({reason})",
    "network_error": "network error reaching the endpoint ({error})",
    "connection_refused": "the endpoint's server refused the connection",
    "timeout": "no answer within {seconds} seconds",
    "redirect": "the endpoint answered with a redirect (HTTP {http}), which is not followed",
    "unavailable": "the endpoint is temporarily unavailable (HTTP {http})",
    "refused": "the endpoint refused the event (HTTP {http})",
    "internal_error": "internal error in the webhook worker ({error})",
    "given_up": "given up after {attempts} attempts: {last}",
}
DETAIL_MAX = 200


def failure(code: str, **params: Any) -> str:
    """The stored form of a failure; given_up's `last` is the last attempt's, kept whole."""
    if code not in ENGLISH:
        raise ValueError(f"unknown webhook failure code {code!r}")
    clean = {
        name: (value[:DETAIL_MAX] if isinstance(value, str) and name != "last" else value)
        for name, value in params.items()
    }
    return json.dumps({"code": code, **clean}, separators=(",", ":"), ensure_ascii=False)


def read(fout: str | None) -> tuple[str, dict] | None:
    """(code, params) of a stored failure, or None."""
    if not fout:
        return None
    try:
        doc = json.loads(fout)
    except ValueError:
        return None
    if isinstance(doc, dict) and doc.get("code") in ENGLISH:
        return doc["code"], {k: v for k, v in doc.items() if k != "code"}
    return None


def code_of(fout: str | None) -> str | None:
    found = read(fout)
    return found[0] if found else None


def english(fout: str | None) -> str | None:
    """A stored failure in English, for the API."""
    found = read(fout)
    if found is None:
        return None
    code, params = found
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
    if code == "given_up":
        params = {**params, "last": worded(params.get("last"))}
    if code == "url_refused":
        params = {**params, "reason": problems.say(f"url_{params.get('reason')}", {})}
    return problems.say(f"webhook_{code}", params, english(fout) or "")


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return ""
