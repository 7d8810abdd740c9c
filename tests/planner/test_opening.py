"""Opening hours read from a place's free text."""

from __future__ import annotations

from datetime import datetime

import pytest

from portal.planner.opening import parse

MONDAY_8 = datetime(2026, 12, 7, 8, 0)
SATURDAY_9 = datetime(2026, 12, 12, 9, 0)


@pytest.mark.parametrize(
    ("text", "monday_8", "saturday_9"),
    [
        ("ma-vr 07:00-17:00", True, False),
        ("ma-vr 07:00-17:00; za 08:00-12:00", True, True),
        ("ma t/m vr 9:00-17:00, za 8.00-12.00", False, True),
        ("ma, wo, vr 06:30-16:00", True, False),
        ("dagelijks 06:00-22:00", True, True),
        ("ma-vr 07:00-12:00 en 13:00-17:00\nza gesloten", True, False),
        ("24/7", True, True),
    ],
)
def test_clear_forms_are_read(text, monday_8, saturday_9):
    opening = parse(text)
    assert opening.known
    assert opening.admits(MONDAY_8) is monday_8
    assert opening.admits(SATURDAY_9) is saturday_9


@pytest.mark.parametrize("text", ["op afspraak", "ma-vr 07:00-17:00 behalve feestdagen", "ma-vr"])
def test_anything_else_is_unknown(text):
    opening = parse(text)
    assert not opening.known
    assert opening.admits(MONDAY_8) is None


def test_no_text_means_nothing_to_keep():
    assert parse(None) is None
    assert parse("  ") is None
