"""Why a push did not reach a phone: a stable code and its parameters, stored as compact JSON
in `fout` (of a message and of each attempt). The API words it in English with the code, the
portal in the user's language (`portal/problems.py`), so no screen shows the worker's words.

Rows written before codes existed hold free text; it is shown as it is."""

from __future__ import annotations

from portal.outbox.failures import FailureCodes

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
PUSH_FAILURES = FailureCodes(ENGLISH, name="push", prefix="push_", free_text=True)

# The stored form of a failure (given_up's `last`: the last attempt's, kept whole); its
# (code, params), ("text", {"text": ...}) for old free text; its code; in English for the
# API; in the user's language for the portal.
failure = PUSH_FAILURES.failure
read = PUSH_FAILURES.read
code_of = PUSH_FAILURES.code_of
english = PUSH_FAILURES.english
worded = PUSH_FAILURES.worded
