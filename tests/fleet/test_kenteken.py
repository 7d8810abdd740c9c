"""Dutch licence plates: every sidecode is recognised and painted with its dashes."""

from __future__ import annotations

import pytest

from portal.fleet import kenteken

EXAMPLES = [
    ("AB-12-34", 1),
    ("12-34-AB", 2),
    ("12-AB-34", 3),
    ("AB-12-CD", 4),
    ("AB-CD-12", 5),
    ("12-AB-CD", 6),
    ("12-ABC-3", 7),
    ("1-ABC-23", 8),
    ("AB-123-C", 9),
    ("A-123-BC", 10),
    ("ABC-12-D", 11),
    ("A-12-BCD", 12),
    ("1-AB-234", 13),
    ("123-AB-4", 14),
]


@pytest.mark.parametrize(("plate", "sidecode"), EXAMPLES)
def test_every_sidecode_is_painted_with_its_dashes(plate, sidecode):
    parsed = kenteken.parse(plate.replace("-", "").lower())
    assert parsed.painted == plate
    assert parsed.sidecode == sidecode
    assert parsed.compact == plate.replace("-", "")


@pytest.mark.parametrize(
    "typed", ["bx12lp", "BX-12-LP", "bx 12 lp", " BX.12.LP ", "B-X12-LP", "bx-1-2-lp"]
)
def test_dashes_spaces_dots_and_case_do_not_matter(typed):
    assert kenteken.painted(typed) == "BX-12-LP"


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("", "empty"),
        ("  - ", "empty"),
        ("BX*12*LP", "characters"),
        ("BX-12-ŁP", "characters"),
        ("BX-12-L", "length"),
        ("BX-12-LPQ", "length"),
        ("DE-HH-1234", "length"),
        ("123456", "sidecode"),
        ("ABCDEF", "sidecode"),
        ("A1B2C3", "sidecode"),
        ("1A-B2-CD", "sidecode"),
    ],
)
def test_what_is_not_a_dutch_plate_says_why(typed, reason):
    with pytest.raises(kenteken.InvalidKenteken) as error:
        kenteken.parse(typed)
    assert error.value.reason == reason
    assert not kenteken.is_valid(typed)


def test_compact_is_how_plates_compare():
    assert kenteken.compact("bx-12-lp") == kenteken.compact("BX 12 LP") == "BX12LP"
