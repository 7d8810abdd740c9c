"""Pricing a billing line: the tariff that holds on the task's day, each basis, minimums,
surcharges, VAT, and rounding to the cent per part, in Decimal throughout."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal as D

import pytest

from portal.billing.pricing import (
    Tariff,
    Unpriced,
    Work,
    billed_minutes,
    cents,
    decimal,
    price,
    select_tariff,
    shown_hours,
    vat_problem,
)

FARMER = uuid.uuid4()
MONDAY, SATURDAY = date(2026, 11, 23), date(2026, 11, 28)


def tariff(**fields) -> Tariff:
    return Tariff(
        **{
            "activity_type": "mest_laden",
            "geldig_vanaf": date(2026, 1, 1),
            "grondslag": "eenheid",
            "eenheid": "ton",
            "prijs": D("4.35"),
            **fields,
        }
    )


# --- which tariff holds -------------------------------------------------------------------


def test_the_customers_own_tariff_wins_over_the_default():
    default = tariff(prijs=D("5.00"))
    own = tariff(klant_id=FARMER, prijs=D("4.35"))
    assert (
        select_tariff([default, own], activity_type="mest_laden", klant_id=FARMER, dag=MONDAY)
        is own
    )
    other = uuid.uuid4()
    assert (
        select_tariff([default, own], activity_type="mest_laden", klant_id=other, dag=MONDAY)
        is default
    )
    assert (
        select_tariff([default, own], activity_type="mest_laden", klant_id=None, dag=MONDAY)
        is default
    )


def test_the_tariff_valid_on_the_tasks_day_holds():
    old = tariff(klant_id=FARMER, geldig_vanaf=date(2026, 1, 1), prijs=D("4.00"))
    new = tariff(klant_id=FARMER, geldig_vanaf=date(2026, 11, 24), prijs=D("4.50"))

    def pick(day):
        return select_tariff([new, old], activity_type="mest_laden", klant_id=FARMER, dag=day)

    assert pick(date(2026, 11, 23)) is old
    assert pick(date(2026, 11, 24)) is new  # valid from that day on
    assert pick(date(2025, 12, 31)) is None  # before any tariff


def test_a_customers_tariff_not_yet_valid_falls_back_to_the_default():
    default = tariff(prijs=D("5.00"))
    future = tariff(klant_id=FARMER, geldig_vanaf=date(2027, 1, 1))
    assert (
        select_tariff([future, default], activity_type="mest_laden", klant_id=FARMER, dag=MONDAY)
        is default
    )


def test_another_activity_types_tariff_does_not_hold():
    assert (
        select_tariff([tariff()], activity_type="voer_leveren", klant_id=None, dag=MONDAY) is None
    )


# --- what the work costs ------------------------------------------------------------------


def test_per_ton_with_vat():
    priced = price(tariff(), Work(dag=MONDAY, hoeveelheid=D("28.5"), eenheid="ton"))
    assert priced.netto == D("123.98")  # 28.5 x 4.35 = 123.975, half up
    assert priced.btw == D("26.04")  # 21 % of 123.98 = 26.0358
    assert priced.bruto == D("150.02")
    assert [p.code for p in priced.parts] == ["base"]


def test_units_are_compared_loosely_but_another_unit_is_not_priced():
    per_m3 = tariff(eenheid="m³", prijs=D("3.10"))
    assert price(per_m3, Work(dag=MONDAY, hoeveelheid=D("30"), eenheid="M3")).netto == D("93.00")
    refused = price(per_m3, Work(dag=MONDAY, hoeveelheid=D("30"), eenheid="ton"))
    assert refused == Unpriced("other_unit", {"tarief": "m³", "regel": "ton"})


@pytest.mark.parametrize(
    "basis, work, expected",
    [
        ("vracht", Work(dag=MONDAY), D("85.00")),
        ("uur", Work(dag=MONDAY, minuten=100), D("141.67")),  # 1 h 40 x 85 = 141.666…
        ("km", Work(dag=MONDAY, kilometers=D("42.3")), D("3595.50")),
    ],
)
def test_per_load_per_hour_and_per_kilometre(basis, work, expected):
    assert price(tariff(grondslag=basis, eenheid=None, prijs=D("85")), work).netto == expected


@pytest.mark.parametrize(
    "basis, work, code",
    [
        ("eenheid", Work(dag=MONDAY), "no_quantity"),
        ("uur", Work(dag=MONDAY), "no_duration"),
        ("km", Work(dag=MONDAY), "no_kilometres"),
    ],
)
def test_what_is_missing_is_said(basis, work, code):
    assert price(tariff(grondslag=basis), work) == Unpriced(code)


def test_no_tariff_is_said():
    assert price(None, Work(dag=MONDAY, hoeveelheid=D(1))) == Unpriced("no_tariff")


def test_a_minimum_tops_the_line_up():
    small = price(tariff(minimum=D("75")), Work(dag=MONDAY, hoeveelheid=D("8"), eenheid="ton"))
    assert [(p.code, p.bedrag) for p in small.parts] == [
        ("base", D("34.80")),
        ("minimum", D("40.20")),
    ]
    assert small.netto == D("75.00")
    large = price(tariff(minimum=D("75")), Work(dag=MONDAY, hoeveelheid=D("30"), eenheid="ton"))
    assert [p.code for p in large.parts] == ["base"] and large.netto == D("130.50")


def test_waiting_beyond_the_free_minutes_is_charged_per_hour():
    rate = tariff(wachttijd_vrij_minuten=30, wachttijd_per_uur=D("55"))
    within = price(rate, Work(dag=MONDAY, hoeveelheid=D("10"), eenheid="ton", wachttijd_minuten=30))
    assert [p.code for p in within.parts] == ["base"]
    beyond = price(rate, Work(dag=MONDAY, hoeveelheid=D("10"), eenheid="ton", wachttijd_minuten=75))
    waiting = beyond.parts[1]
    assert waiting.code == "waiting" and waiting.params["minuten"] == 45
    assert waiting.bedrag == D("41.25")  # 0.75 h x 55
    assert beyond.netto == D("43.50") + D("41.25")


def test_a_weekend_surcharge_is_a_percentage_of_the_base():
    rate = tariff(weekend_toeslag_procent=D("25"))
    weekday = price(rate, Work(dag=MONDAY, hoeveelheid=D("10"), eenheid="ton"))
    saturday = price(rate, Work(dag=SATURDAY, hoeveelheid=D("10"), eenheid="ton"))
    assert weekday.netto == D("43.50")
    assert [(p.code, p.bedrag) for p in saturday.parts] == [
        ("base", D("43.50")),
        ("weekend", D("10.88")),
    ]
    assert saturday.netto == D("54.38")


def test_surcharges_count_toward_the_minimum():
    rate = tariff(minimum=D("50"), weekend_toeslag_procent=D("25"))
    saturday = price(rate, Work(dag=SATURDAY, hoeveelheid=D("10"), eenheid="ton"))
    assert saturday.netto == D("54.38") and "minimum" not in [p.code for p in saturday.parts]


def test_each_part_is_rounded_and_the_line_is_their_sum():
    rate = tariff(prijs=D("0.125"), weekend_toeslag_procent=D("10"), btw_procent=D("9"))
    priced = price(rate, Work(dag=SATURDAY, hoeveelheid=D("3"), eenheid="ton"))
    assert [p.bedrag for p in priced.parts] == [D("0.38"), D("0.04")]  # 0.375 -> 0.38
    assert priced.netto == D("0.42") == sum(p.bedrag for p in priced.parts)
    assert priced.btw == D("0.04")  # 9 % of 0.42 = 0.0378


def test_rounding_is_half_up_not_to_even():
    assert cents(D("0.125")) == D("0.13")
    assert cents(D("2.345")) == D("2.35")
    assert cents(D("-2.345")) == D("-2.35")


def test_stored_floats_become_decimals_without_binary_noise():
    assert decimal(28.1) == D("28.1")
    assert decimal(0.1) + decimal(0.2) == D("0.3")
    assert decimal(None) is None


# --- per hour: the recorded time, rounded as the tariff says -----------------------------


@pytest.mark.parametrize(
    "minutes, unit, least, billed",
    [
        (127, 15, 0, 135),  # 2 h 07 per quarter hour, rounded up: 2 h 15
        (120, 15, 0, 120),  # on the unit: as it is
        (121, 15, 0, 135),  # one minute over: the next quarter
        (127, 1, 0, 127),  # per minute: not rounded
        (127, 6, 0, 132),  # per 6 minutes (0.1 h): 2.2 h
        (127, 60, 0, 180),
        (20, 15, 60, 60),  # the minimum first
        (50, 15, 55, 60),  # a minimum off the unit is rounded up too
        (61, 30, 60, 90),
    ],
)
def test_recorded_minutes_are_billed_at_least_the_minimum_and_rounded_up(
    minutes, unit, least, billed
):
    assert billed_minutes(minutes, unit=unit, minimum=least) == billed


def test_an_hourly_line_is_priced_from_its_billed_hours():
    rate = tariff(grondslag="uur", eenheid=None, prijs=D("85"), afronding_minuten=15)
    priced = price(rate, Work(dag=MONDAY, minuten=127))
    assert priced.uren == D("2.25")  # 2 h 07 -> 2 h 15
    base = priced.parts[0]
    assert (base.params["aantal"], base.params["minuten"], base.params["gefactureerd"]) == (
        D("2.25"),
        127,
        135,
    )
    assert priced.netto == D("191.25") == priced.uren * D("85")


def test_hours_to_the_minute_keep_four_decimals_and_the_amount_follows_them():
    rate = tariff(grondslag="uur", eenheid=None, prijs=D("85"))
    priced = price(rate, Work(dag=MONDAY, minuten=100))
    assert priced.uren == D("1.6667")
    assert priced.netto == cents(priced.uren * D("85")) == D("141.67")


def test_a_minimum_of_minutes_bills_a_short_job_as_the_minimum():
    rate = tariff(
        grondslag="uur", eenheid=None, prijs=D("60"), afronding_minuten=15, minimum_minuten=60
    )
    assert price(rate, Work(dag=MONDAY, minuten=20)).uren == D("1.00")
    assert price(rate, Work(dag=MONDAY, minuten=20)).netto == D("60.00")


def test_an_hourly_tariff_without_recorded_time_is_held():
    rate = tariff(grondslag="uur", eenheid=None, prijs=D("85"), minimum_minuten=60)
    assert price(rate, Work(dag=MONDAY, minuten=None)) == Unpriced("no_duration")


def test_shown_hours_drop_the_trailing_zeros_of_a_whole_quarter():
    assert shown_hours(D("2.2500")) == D("2.25")
    assert str(shown_hours(D("3.0000"))) == "3.00"
    assert shown_hours(D("1.6667")) == D("1.6667")


# --- a line never bills 0.00 without saying so --------------------------------------------


def test_nothing_under_a_tariff_with_a_price_is_held_with_what_it_would_be():
    held = price(tariff(), Work(dag=MONDAY, hoeveelheid=D("0"), eenheid="ton"))
    assert isinstance(held, Unpriced) and held.code == "zero_amount"
    assert held.params == {"prijs": D("4.35")}
    assert held.held.netto == D("0.00") and held.held.btw_procent == D(21)


def test_a_quantity_too_small_for_a_cent_is_held_too():
    held = price(tariff(prijs=D("0.0040")), Work(dag=MONDAY, hoeveelheid=D("1"), eenheid="ton"))
    assert held.code == "zero_amount"


def test_a_tariff_that_charges_nothing_prices_zero_without_holding():
    free = price(tariff(prijs=D("0")), Work(dag=MONDAY, hoeveelheid=D("10"), eenheid="ton"))
    assert free.netto == D("0.00") and not isinstance(free, Unpriced)


def test_a_minimum_keeps_a_zero_quantity_from_being_held():
    priced = price(tariff(minimum=D("75")), Work(dag=MONDAY, hoeveelheid=D("0"), eenheid="ton"))
    assert priced.netto == D("75.00")


# --- VAT category: the tariff's, or the customer's --------------------------------------


def test_a_line_carries_its_tariffs_vat_category():
    priced = price(tariff(), Work(dag=MONDAY, hoeveelheid=D("10"), eenheid="ton"))
    assert (priced.btw_categorie, priced.btw_vrijstellingsreden, priced.btw_procent) == (
        "S",
        None,
        D(21),
    )
    export = tariff(btw_procent=D("0"), btw_categorie="Z")
    zero = price(export, Work(dag=MONDAY, hoeveelheid=D("10"), eenheid="ton"))
    assert (zero.btw_categorie, zero.btw, zero.bruto) == ("Z", D("0.00"), D("43.50"))


def test_the_customers_category_overrides_the_tariffs():
    work = Work(dag=MONDAY, hoeveelheid=D("10"), eenheid="ton")
    reverse = price(tariff(), work, klant_categorie=("AE", "Btw verlegd"))
    assert (reverse.btw_categorie, reverse.btw_vrijstellingsreden) == ("AE", "Btw verlegd")
    assert (reverse.btw_procent, reverse.btw, reverse.netto) == (D(0), D("0.00"), D("43.50"))
    outside = price(tariff(), work, klant_categorie=("O", "Niet onderworpen aan btw"))
    assert (outside.btw_categorie, outside.btw) == ("O", D("0.00"))


def test_a_customer_at_the_standard_rate_follows_its_tariff():
    export = tariff(btw_procent=D("0"), btw_categorie="Z")
    work = Work(dag=MONDAY, hoeveelheid=D("10"), eenheid="ton")
    assert price(export, work, klant_categorie=("S", None)).btw_categorie == "Z"
    assert price(tariff(), work, klant_categorie=("S", None)).btw_procent == D(21)


@pytest.mark.parametrize("override", [("AE", None), ("AE", "  "), ("X", None)])
def test_a_customer_category_without_its_reason_or_unknown_is_a_programming_error(override):
    with pytest.raises(ValueError):
        price(
            tariff(), Work(dag=MONDAY, hoeveelheid=D("1"), eenheid="ton"), klant_categorie=override
        )


@pytest.mark.parametrize(
    "categorie, rate, problem",
    [
        ("S", D("21"), None),
        ("S", D("0"), "above 0 with category S"),
        ("Z", D("0"), None),
        ("Z", D("9"), "0 with category Z"),
        ("AE", D("21"), "0 with category AE"),
        ("E", D("0"), None),
        ("O", D("0.01"), "0 with category O"),
    ],
)
def test_the_rate_fits_the_category_as_en16931_has_it(categorie, rate, problem):
    assert vat_problem(categorie, rate) == problem
