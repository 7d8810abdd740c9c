"""The customers' rules: VAT numbers, debtor numbers unique per carrier, places' coordinates
both or neither and in range, search, deactivation and deletion."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from factories import in_carrier

from portal.audit.service import SYSTEM
from portal.customers import service
from portal.errors import Conflict, NotFound, ValidationFailed


def plain(value):
    """A model as its column values (tests hold no ORM objects after the commit)."""
    if hasattr(value, "__table__"):
        return SimpleNamespace(**{c.key: getattr(value, c.key) for c in value.__table__.columns})
    return value


def run(app, carrier, fn):
    return in_carrier(app, carrier.id, fn, plain)


def refused(app, carrier, fn) -> list[tuple[str, str]]:
    """The (field, code) pairs fn is refused with."""
    with pytest.raises(ValidationFailed) as caught:
        run(app, carrier, fn)
    return [(e["field"], e["code"]) for e in caught.value.errors]


def create(carrier, **data):
    return lambda: service.create_customer(carrier_id=carrier.id, data=data, actor=SYSTEM)


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("NL123456789B01", "NL123456789B01"),
        ("nl 1234.56.789.b01", "NL123456789B01"),
        ("DE123456789", "DE123456789"),
        ("BE0123456789", "BE0123456789"),
        ("ATU12345678", "ATU12345678"),
    ],
)
def test_a_vat_number_is_stored_compact(app, carrier, given, stored):
    customer = run(app, carrier, create(carrier, naam="Klant", btw_nummer=given))
    assert customer.btw_nummer == stored


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ("NL123456789", "vat_dutch"),  # no B01
        ("NL12345678B01", "vat_dutch"),  # 8 digits
        ("NL123456789X01", "vat_dutch"),
        ("123456789B01", "vat_format"),  # no country
        ("D1", "vat_format"),
        ("DE12345678901234", "vat_format"),  # 14 after the country
    ],
)
def test_a_wrong_vat_number_is_refused_at_its_field(app, carrier, given, code):
    assert refused(app, carrier, create(carrier, naam="Klant", btw_nummer=given)) == [
        ("btw_nummer", code)
    ]


def test_a_customer_needs_a_name_and_a_real_invoice_address(app, carrier):
    errors = refused(app, carrier, create(carrier, naam="  ", factuur_email="geen-adres"))
    assert errors == [("naam", "required"), ("factuur_email", "email")]


def test_a_debtor_number_is_unique_within_a_carrier_only(app, carrier, other_carrier):
    run(app, carrier, create(carrier, naam="Eerste", debiteurnummer="10023"))
    assert refused(app, carrier, create(carrier, naam="Tweede", debiteurnummer=" 10023 ")) == [
        ("debiteurnummer", "duplicate")
    ]
    # Another carrier may use the same number, and many customers may have none.
    run(app, other_carrier, create(other_carrier, naam="Ander", debiteurnummer="10023"))
    run(app, carrier, create(carrier, naam="Zonder 1"))
    run(app, carrier, create(carrier, naam="Zonder 2", debiteurnummer=""))


def test_changing_to_a_taken_debtor_number_is_refused(app, carrier):
    run(app, carrier, create(carrier, naam="Eerste", debiteurnummer="1"))
    second = run(app, carrier, create(carrier, naam="Tweede", debiteurnummer="2"))

    def change(number):
        return lambda: service.update_customer(
            carrier_id=carrier.id,
            customer_id=second.id,
            data={"debiteurnummer": number},
            actor=SYSTEM,
        )

    assert refused(app, carrier, change("1")) == [("debiteurnummer", "duplicate")]
    assert run(app, carrier, change("2")).debiteurnummer == "2"  # its own number: fine


def add(carrier, customer_id, **data):
    return lambda: service.add_place(
        carrier_id=carrier.id, customer_id=customer_id, data=data, actor=SYSTEM
    )


def test_a_place_has_both_coordinates_or_neither(app, carrier):
    customer = run(app, carrier, create(carrier, naam="Klant"))
    assert refused(app, carrier, add(carrier, customer.id, naam="Erf", locatie_lat=52.3)) == [
        ("locatie_lng", "coordinates_pair")
    ]
    assert refused(app, carrier, add(carrier, customer.id, naam="Erf", locatie_lng=6.5)) == [
        ("locatie_lat", "coordinates_pair")
    ]
    errors = refused(
        app, carrier, add(carrier, customer.id, naam="Erf", locatie_lat=91, locatie_lng=6.5)
    )
    assert ("locatie_lat", "range") in errors
    place = run(
        app,
        carrier,
        add(carrier, customer.id, naam="Erf Enter", locatie_lat=52.29, locatie_lng=6.57),
    )
    assert (place.locatie_lat, place.locatie_lng, place.soort, place.land) == (
        52.29,
        6.57,
        "beide",
        "NL",
    )

    def clear_one():
        return service.update_place(
            carrier_id=carrier.id,
            customer_id=customer.id,
            place_id=place.id,
            data={"locatie_lng": None},
            actor=SYSTEM,
        )

    assert refused(app, carrier, clear_one) == [("locatie_lng", "coordinates_pair")]


def test_a_place_checks_its_kind_and_country_and_writes_a_dutch_postcode(app, carrier):
    customer = run(app, carrier, create(carrier, naam="Klant"))
    errors = refused(app, carrier, add(carrier, customer.id, naam="Erf", soort="x", land="NLD"))
    assert errors == [("soort", "choice"), ("land", "country")]
    place = run(app, carrier, add(carrier, customer.id, naam="Erf", postcode="7468ab", land="nl"))
    assert (place.postcode, place.land) == ("7468 AB", "NL")
    german = run(app, carrier, add(carrier, customer.id, naam="Hof", postcode="48599", land="DE"))
    assert german.postcode == "48599"


def test_search_finds_by_name_debtor_number_and_city_of_a_place(app, carrier):
    horst = run(app, carrier, create(carrier, naam="Maatschap Ter Horst", debiteurnummer="10023"))
    run(app, carrier, add(carrier, horst.id, naam="Erf", stad="Enter"))
    heus = run(app, carrier, create(carrier, naam="De Heus Voeders"))
    run(app, carrier, add(carrier, heus.id, naam="Fabriek", stad="Ede"))

    def names(search):
        return run(
            app,
            carrier,
            lambda: [
                c.naam
                for c in service.find_customers(
                    carrier_id=carrier.id, filters=service.CustomerFilters(search=search)
                ).customers
            ],
        )

    assert names("horst") == ["Maatschap Ter Horst"]
    assert names("1002") == ["Maatschap Ter Horst"]
    assert names("ENTER") == ["Maatschap Ter Horst"]
    assert names("ede") == ["De Heus Voeders"]
    assert names("e") == ["De Heus Voeders", "Maatschap Ter Horst"]  # by name
    assert names("100%") == []  # a percent sign is text, not a wildcard


def test_a_deactivated_customer_is_left_out_of_the_active_list(app, carrier):
    customer = run(app, carrier, create(carrier, naam="Oud"))
    run(
        app,
        carrier,
        lambda: service.set_active(
            carrier_id=carrier.id, customer_id=customer.id, actief=False, actor=SYSTEM
        ),
    )
    page = run(
        app,
        carrier,
        lambda: service.find_customers(
            carrier_id=carrier.id, filters=service.CustomerFilters(actief=True)
        ),
    )
    assert page.total == 0


def test_deleting_takes_the_places_along_unless_the_customer_is_in_use(app, carrier):
    customer = run(app, carrier, create(carrier, naam="Weg"))
    run(app, carrier, add(carrier, customer.id, naam="Erf"))
    check = lambda carrier_id, customer_id: customer_id == customer.id  # noqa: E731
    service.usage_checks.connect(check)
    try:
        with pytest.raises(Conflict):
            run(
                app,
                carrier,
                lambda: service.delete_customer(
                    carrier_id=carrier.id, customer_id=customer.id, actor=SYSTEM
                ),
            )
    finally:
        service.usage_checks.disconnect(check)
    run(
        app,
        carrier,
        lambda: service.delete_customer(
            carrier_id=carrier.id, customer_id=customer.id, actor=SYSTEM
        ),
    )
    with pytest.raises(NotFound):
        run(
            app,
            carrier,
            lambda: service.list_places(carrier_id=carrier.id, customer_id=customer.id),
        )


def test_another_carriers_customer_and_place_are_not_found(app, carrier, other_carrier):
    customer = run(app, carrier, create(carrier, naam="Van ons"))
    place = run(app, carrier, add(carrier, customer.id, naam="Erf"))
    with pytest.raises(NotFound):
        run(
            app,
            other_carrier,
            lambda: service.get_customer(carrier_id=other_carrier.id, customer_id=customer.id),
        )
    with pytest.raises(NotFound):
        run(
            app,
            other_carrier,
            lambda: service.get_place(
                carrier_id=other_carrier.id, customer_id=customer.id, place_id=place.id
            ),
        )
