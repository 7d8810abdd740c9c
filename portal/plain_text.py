"""Control characters in text: refused wherever text comes in (the API's bodies, the portal's
forms, imported files), cleaned wherever stored text goes out to a spreadsheet.

A control character is never part of a name or a remark: it comes from a paste out of
another program or from someone probing. XML 1.0, and so every XLSX writer, cannot hold
most of them (openpyxl raises on the first one), and in a CSV they break the line a
spreadsheet shows. Tab and line breaks are text where a field holds more than one line."""

from __future__ import annotations

import re

# C0 controls except tab, line feed and carriage return; DEL and the C1 controls; lone
# surrogates (JSON can carry "\\ud800", UTF-8 cannot) and the two noncharacters XML forbids.
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
LINE_BREAK = re.compile("[\n\r]")
# What a separator-like control becomes when stored text is cleaned on its way out: a space
# keeps "Jan<VT>de Vries" readable as two words; every other control is dropped.
_AS_SPACE = {"\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85"}


def control_character(text: str, *, multiline: bool = True) -> str | None:
    """The first control character in text as U+XXXX, or None; a line break counts as one
    where the field holds a single line."""
    found = CONTROL.search(text) or (None if multiline else LINE_BREAK.search(text))
    return f"U+{ord(found.group()):04X}" if found else None


def clean(text: str) -> str:
    """Text without control characters (tab and line breaks kept): what an export writes of
    text stored before they were refused."""
    if not CONTROL.search(text):
        return text
    return CONTROL.sub(lambda m: " " if m.group() in _AS_SPACE else "", text)


def refusal(code_point: str) -> str:
    """The API's English message for a field holding a control character."""
    return f"Control characters are not allowed in text (found {code_point})."


def controls_in(doc, path: str = "") -> list[tuple[str, str]]:
    """Each text of a parsed JSON document (keys included) holding a control character, as
    (its path, dotted; the first control character as U+XXXX). Walks with a stack of its own,
    so a document nested thousands deep is read, not a RecursionError."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[object, str]] = [(doc, path)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, str):
            if code_point := control_character(item):
                found.append((at, code_point))
        elif isinstance(item, dict):
            for key, value in reversed(list(item.items())):
                inner = f"{at}.{key}" if at else str(key)
                stack += [(value, inner), (key, inner)]
        elif isinstance(item, list):
            for index in range(len(item) - 1, -1, -1):
                stack.append((item[index], f"{at}.{index}" if at else str(index)))
    return found
