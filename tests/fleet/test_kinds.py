"""Vehicle kinds: which couple to which (with the rule named when not), and the driving
licence a vehicle or a combination needs."""

from __future__ import annotations

import pytest

from portal.fleet.models import SOORTEN
from portal.fleet.rules import (
    COUPLING_RULES,
    LICENCE_UNKNOWN,
    MOTORISED,
    TOWED,
    coupling_problem,
    kind_problem,
    needed_licence,
)


def test_every_kind_is_motorised_towed_or_other():
    assert MOTORISED | TOWED | {"overig"} == set(SOORTEN)
    assert not MOTORISED & TOWED


@pytest.mark.parametrize(
    ("motor", "towed"),
    [
        ("opleggertrekker", "oplegger"),
        ("vrachtwagen", "aanhangwagen"),
        ("landbouwtrekker", "aanhangwagen"),
        ("landbouwtrekker", "landbouwaanhanger"),
    ],
)
def test_allowed_couplings(motor, towed):
    assert coupling_problem(motor, towed) is None


@pytest.mark.parametrize(
    ("motor", "towed", "code"),
    [
        ("vrachtwagen", "oplegger", "semi_trailer_needs_tractor_unit"),
        ("landbouwtrekker", "oplegger", "semi_trailer_needs_tractor_unit"),
        ("opleggertrekker", "aanhangwagen", "drawbar_trailer_needs_truck_or_tractor"),
        ("bestelbus", "aanhangwagen", "drawbar_trailer_needs_truck_or_tractor"),
        ("vrachtwagen", "landbouwaanhanger", "agricultural_trailer_needs_agricultural_tractor"),
        ("opleggertrekker", "landbouwaanhanger", "agricultural_trailer_needs_agricultural_tractor"),
        ("landbouwtrekker", "vrachtwagen", "two_motorised"),
        ("opleggertrekker", "opleggertrekker", "two_motorised"),
        ("oplegger", "aanhangwagen", "not_motorised"),
        ("overig", "aanhangwagen", "not_motorised"),
        ("vrachtwagen", "overig", "not_towed"),
    ],
)
def test_refused_couplings_name_their_rule(motor, towed, code):
    assert coupling_problem(motor, towed) == code
    assert code in COUPLING_RULES


def test_every_pair_of_kinds_is_decided():
    for motor in SOORTEN:
        for towed in SOORTEN:
            problem = coupling_problem(motor, towed)
            assert problem is None or problem in COUPLING_RULES


@pytest.mark.parametrize(
    ("motor", "towed", "licence"),
    [
        ("bestelbus", None, "B"),
        ("vrachtwagen", None, "C"),
        ("opleggertrekker", None, "C"),
        ("vrachtwagen", "aanhangwagen", "CE"),
        ("opleggertrekker", "oplegger", "CE"),
        ("landbouwtrekker", None, "T"),
        ("landbouwtrekker", "landbouwaanhanger", "T"),
        ("landbouwtrekker", "aanhangwagen", "T"),
        ("overig", None, LICENCE_UNKNOWN),
    ],
)
def test_needed_licence(motor, towed, licence):
    assert needed_licence(motor, towed) == licence


def test_an_old_kind_names_its_new_one():
    assert kind_problem("trekker")["params"] == {"old": "trekker", "new": "opleggertrekker"}
    assert kind_problem("aanhanger")["code"] == "kind_renamed"
    assert kind_problem("fiets")["code"] == "choice"
    assert kind_problem("oplegger") is None
