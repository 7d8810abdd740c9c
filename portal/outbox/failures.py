"""Failure codes of an outbox: why an entry did not arrive, as a stable code and its
parameters, stored as compact JSON in `fout`. Each outbox names its own codes and their
English (`FailureCodes`); the API words a stored failure in English, the portal in the
user's language (`portal/problems.py`, under the outbox's prefix)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

DETAIL_MAX = 200  # a parameter from elsewhere (an exception's text) is cut to this
GIVEN_UP = "given_up"  # the code of an entry given up after its last attempt: {attempts, last}


class FailureCodes:
    """One outbox's failure vocabulary: `english` maps each code to its English (with
    {param} places). `name` names the outbox in errors, `prefix` its codes in
    `portal/problems.py`. `free_text`: stored text that is no code (rows written before
    codes existed) reads as ("text", {"text": ...}) and is shown as it is; without it, such
    text reads as no failure. `reword(code, params)` may change the parameters before the
    portal words them."""

    def __init__(
        self,
        english: dict[str, str],
        *,
        name: str,
        prefix: str,
        free_text: bool = False,
        reword: Callable[[str, dict], dict] | None = None,
    ) -> None:
        self.texts = english
        self.name = name
        self.prefix = prefix
        self.free_text = free_text
        self.reword = reword

    def failure(self, code: str, **params: Any) -> str:
        """The stored form of a failure: {"code": ..., params}. given_up's `last` is the
        stored form of the last attempt's failure, kept whole."""
        if code not in self.texts:
            raise ValueError(f"unknown {self.name} failure code {code!r}")
        clean = {
            name: (value[:DETAIL_MAX] if isinstance(value, str) and name != "last" else value)
            for name, value in params.items()
        }
        return json.dumps({"code": code, **clean}, separators=(",", ":"), ensure_ascii=False)

    def read(self, stored: str | None) -> tuple[str, dict] | None:
        """(code, params) of a stored failure, or None."""
        if not stored:
            return None
        try:
            doc = json.loads(stored)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and doc.get("code") in self.texts:
            return doc["code"], {k: v for k, v in doc.items() if k != "code"}
        return ("text", {"text": stored}) if self.free_text else None

    def code_of(self, stored: str | None) -> str | None:
        """The stable code of a stored failure (None when there is none or it is free text)."""
        found = self.read(stored)
        return found[0] if found and found[0] != "text" else None

    def english(self, stored: str | None) -> str | None:
        """A stored failure in English, for the API."""
        found = self.read(stored)
        if found is None:
            return None
        code, params = found
        if code == "text":
            return params["text"]
        if code == GIVEN_UP:
            params = {**params, "last": self.english(params.get("last")) or ""}
        return self.texts[code].format_map(_Blank(params))

    def worded(self, stored: str | None) -> str:
        """A stored failure in the user's language, for the portal."""
        from portal import problems

        found = self.read(stored)
        if found is None:
            return ""
        code, params = found
        if code == "text":
            return params["text"]
        if code == GIVEN_UP:
            params = {**params, "last": self.worded(params.get("last"))}
        if self.reword is not None:
            params = self.reword(code, params)
        return problems.say(f"{self.prefix}{code}", params, self.english(stored) or "")


class _Blank(dict):
    """format_map that leaves a missing parameter empty instead of failing."""

    def __missing__(self, key: str) -> str:
        return ""
