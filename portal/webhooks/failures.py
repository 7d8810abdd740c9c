"""Why a webhook delivery did not arrive: a stable code and its parameters, stored as compact
JSON in `fout` (of a delivery, an attempt, and an endpoint's pause reason). The API words it
in English with the code; the portal in the user's language (`portal/problems.py`, codes
prefixed "webhook_")."""

from __future__ import annotations

from portal.outbox.failures import FailureCodes

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


def _reword(code: str, params: dict) -> dict:
    """A refused address's reason in the user's language."""
    if code == "url_refused":
        from portal import problems

        return {**params, "reason": problems.say(f"url_{params.get('reason')}", {})}
    return params


WEBHOOK_FAILURES = FailureCodes(ENGLISH, name="webhook", prefix="webhook_", reword=_reword)

# The stored form of a failure (given_up's `last`: the last attempt's, kept whole); its
# (code, params) or None; its code; in English for the API; in the user's language for the
# portal.
failure = WEBHOOK_FAILURES.failure
read = WEBHOOK_FAILURES.read
code_of = WEBHOOK_FAILURES.code_of
english = WEBHOOK_FAILURES.english
worded = WEBHOOK_FAILURES.worded
