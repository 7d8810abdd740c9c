"""The tariff operations of the API: CRUD with a key under the portal's rules, amounts as exact
decimal strings, filters and pages, problems naming the field with a code, another carrier's
tariff 404, drivers and keys without the scope refused."""

from __future__ import annotations

import uuid
from datetime import date

import pytest
from factories import bearer, create_api_key, driver_token, in_carrier

from portal.audit.service import SYSTEM

API = "/api/v1"
MEST = {
    "activity_type": "mest_laden",
    "geldig_vanaf": "2026-01-01",
    "grondslag": "eenheid",
    "eenheid": "ton",
    "prijs": "4.35",
}


def customer(app, carrier, naam: str = "Maatschap Kamphuis") -> str:
    from portal.customers import service as customers

    return in_carrier(
        app,
        carrier.id,
        lambda: customers.create_customer(carrier_id=carrier.id, data={"naam": naam}, actor=SYSTEM),
        lambda c: str(c.id),
    )


def key_with(app, carrier, scopes: str) -> dict:
    from portal.accounts.service import create_api_key as create

    return bearer(
        in_carrier(
            app,
            carrier.id,
            lambda: create(carrier_id=carrier.id, naam=scopes, scopes=scopes)[1],
        )
    )


def post(client, headers, **fields):
    return client.post(f"{API}/tarieven", json={**MEST, **fields}, headers=headers)


def field_codes(response) -> set[tuple[str, str | None]]:
    assert response.status_code == 422, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    return {(e["field"], e.get("code")) for e in response.get_json()["errors"]}


def test_an_integration_manages_a_tariff(app, client, carrier, api_key):
    headers = bearer(api_key.key)
    klant = customer(app, carrier)
    created = post(
        client,
        headers,
        klant_id=klant,
        minimum="75.50",
        wachttijd_vrij_minuten=30,
        wachttijd_per_uur="45",
        weekend_toeslag_procent="25",
    )
    assert created.status_code == 201, created.get_json()
    tariff = created.get_json()
    url = f"{API}/tarieven/{tariff['id']}"
    assert created.headers["Location"] == url
    assert {k: tariff[k] for k in ("klant_id", "transporteur_id", "geldig_vanaf")} == {
        "klant_id": klant,
        "transporteur_id": str(carrier.id),
        "geldig_vanaf": "2026-01-01",
    }
    assert (tariff["prijs"], tariff["minimum"], tariff["wachttijd_per_uur"]) == (
        "4.3500",
        "75.50",
        "45.00",
    )
    assert (tariff["weekend_toeslag_procent"], tariff["btw_procent"]) == ("25.00", "21.00")
    assert client.get(url, headers=headers).get_json() == tariff

    changed = client.patch(url, json={"prijs": "4.6", "minimum": None}, headers=headers)
    assert changed.status_code == 200, changed.get_json()
    assert (changed.get_json()["prijs"], changed.get_json()["minimum"]) == ("4.6000", None)
    assert changed.get_json()["wachttijd_vrij_minuten"] == 30  # not sent: kept

    listed = client.get(f"{API}/tarieven", headers=headers)
    assert listed.headers["X-Total-Count"] == "1"
    assert [t["id"] for t in listed.get_json()] == [tariff["id"]]

    assert client.delete(url, headers=headers).status_code == 204
    assert client.get(url, headers=headers).status_code == 404
    assert client.delete(url, headers=headers).status_code == 404


def test_amounts_round_trip_exactly_as_decimal_strings(app, client, carrier, api_key):
    headers = bearer(api_key.key)
    created = post(
        client,
        headers,
        eenheid="kg",
        prijs="0.0450",
        minimum="12.50",
        wachttijd_per_uur="0.01",
        weekend_toeslag_procent="12.5",
        btw_procent="9",
    )
    assert created.status_code == 201, created.get_json()
    big = post(client, headers, geldig_vanaf="2026-02-01", prijs="99999999.9999")
    assert big.status_code == 422  # the service's upper bound is 99999999
    top = post(client, headers, geldig_vanaf="2026-02-01", prijs="99999998.9999", minimum="0")
    assert top.status_code == 201, top.get_json()

    read = client.get(f"{API}/tarieven/{created.get_json()['id']}", headers=headers).get_json()
    assert read["prijs"] == "0.0450"
    assert read["minimum"] == "12.50"
    assert read["wachttijd_per_uur"] == "0.01"
    assert read["weekend_toeslag_procent"] == "12.50"
    assert read["btw_procent"] == "9.00"
    top_read = client.get(f"{API}/tarieven/{top.get_json()['id']}", headers=headers).get_json()
    assert (top_read["prijs"], top_read["minimum"]) == ("99999998.9999", "0.00")

    # What pricing reads is the same exact Decimal.
    from decimal import Decimal

    from portal.billing import tariffs

    holding = in_carrier(
        app,
        carrier.id,
        lambda: tariffs.holding(
            carrier_id=carrier.id, activity_type="mest_laden", klant_id=None, dag=date(2026, 1, 5)
        ),
    )
    assert holding.prijs == Decimal("0.0450") and holding.minimum == Decimal("12.50")


@pytest.mark.parametrize("value", [4.35, 4, 0, True, [], {"bedrag": "4.35"}])
def test_an_amount_sent_as_a_json_number_or_other_type_is_refused(client, api_key, value):
    response = post(client, bearer(api_key.key), prijs=value)
    assert field_codes(response) == {("prijs", None)}
    assert "decimal string" in response.get_json()["errors"][0]["message"]


@pytest.mark.parametrize("value", ["4,35", "€4.35", "1e3", "NaN", "Infinity", ".5", "5.", "", "x"])
def test_an_amount_that_is_no_decimal_string_is_refused(client, api_key, value):
    response = post(client, bearer(api_key.key), minimum=value)
    assert field_codes(response) == {("minimum", None)}
    assert 'e.g. "4.35"' in response.get_json()["errors"][0]["message"]


@pytest.mark.parametrize(
    "fields, field, code",
    [
        ({"prijs": "-1"}, "prijs", "out_of_range"),
        ({"prijs": "100000000"}, "prijs", "out_of_range"),
        ({"prijs": "4.12345"}, "prijs", "too_many_decimals"),
        ({"minimum": "10.005"}, "minimum", "too_many_decimals"),
        ({"wachttijd_per_uur": "-0.01"}, "wachttijd_per_uur", "out_of_range"),
        ({"btw_procent": "121"}, "btw_procent", "out_of_range"),
        # Numeric(5, 2): 1000 % would overflow the column on PostgreSQL.
        ({"weekend_toeslag_procent": "1000"}, "weekend_toeslag_procent", "out_of_range"),
        ({"eenheid": None}, "eenheid", "required"),
        ({"eenheid": "  "}, "eenheid", "required"),
        ({"klant_id": str(uuid.uuid4())}, "klant_id", "unknown"),
    ],
)
def test_values_the_rules_refuse_name_the_field_and_code(client, api_key, fields, field, code):
    response = post(client, bearer(api_key.key), **fields)
    assert field_codes(response) == {(field, code)}
    assert response.get_json()["type"].endswith("/validation-failed")
    if code == "too_many_decimals":
        assert response.get_json()["errors"][0]["params"] == {
            "places": 4 if field == "prijs" else 2
        }


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"grondslag": "per_dag"}, "grondslag"),
        ({"activity_type": "Mest laden"}, "activity_type"),
        ({"activity_type": "a" * 41}, "activity_type"),
        ({"activity_type": ""}, "activity_type"),
        ({"eenheid": "t" * 21}, "eenheid"),
        ({"geldig_vanaf": "2026-13-01"}, "geldig_vanaf"),
        ({"geldig_vanaf": "0001-01-01"}, "geldig_vanaf"),
        ({"wachttijd_vrij_minuten": 1441}, "wachttijd_vrij_minuten"),
        ({"wachttijd_vrij_minuten": -1}, "wachttijd_vrij_minuten"),
        ({"klant_id": "kamphuis"}, "klant_id"),
        ({"kleur": "rood"}, "kleur"),
    ],
)
def test_malformed_fields_are_refused_at_the_field(client, api_key, fields, field):
    assert field_codes(post(client, bearer(api_key.key), **fields)) == {(field, None)}


def test_required_fields_are_named(client, api_key):
    response = client.post(f"{API}/tarieven", json={}, headers=bearer(api_key.key))
    assert {f for f, _ in field_codes(response)} == {
        "activity_type",
        "geldig_vanaf",
        "grondslag",
        "prijs",
    }


def test_an_activity_type_tasks_may_carry_gets_a_tariff_too(client, api_key):
    made = post(client, bearer(api_key.key), activity_type="kalveren_halen", grondslag="vracht")
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["eenheid"] is None  # only a price per unit names its unit


def test_one_tariff_per_owner_activity_and_day_the_second_is_409(app, client, carrier, api_key):
    headers = bearer(api_key.key)
    klant = customer(app, carrier)
    assert post(client, headers).status_code == 201
    assert post(client, headers, klant_id=klant).status_code == 201  # the customer's own
    later = post(client, headers, geldig_vanaf="2026-06-01")
    assert later.status_code == 201

    again = post(client, headers, prijs="9")
    assert again.status_code == 409
    assert again.mimetype == "application/problem+json"
    problem = again.get_json()
    assert (problem["code"], problem["type"]) == (
        "tariff_exists",
        "https://rijplan.nl/problems/conflict",
    )
    assert "already" in problem["detail"]
    assert post(client, headers, klant_id=klant, prijs="9").status_code == 409

    # A change onto a day that is taken: the same 409, and nothing changed.
    moved = client.patch(
        f"{API}/tarieven/{later.get_json()['id']}",
        json={"geldig_vanaf": "2026-01-01", "prijs": "5"},
        headers=headers,
    )
    assert moved.status_code == 409 and moved.get_json()["code"] == "tariff_exists"
    kept = client.get(f"{API}/tarieven/{later.get_json()['id']}", headers=headers).get_json()
    assert (kept["geldig_vanaf"], kept["prijs"]) == ("2026-06-01", "4.3500")
    assert client.get(f"{API}/tarieven", headers=headers).headers["X-Total-Count"] == "3"


def test_a_change_is_checked_whole_and_sends_only_what_changes(app, client, carrier, api_key):
    headers = bearer(api_key.key)
    klant = customer(app, carrier)
    made = post(client, headers, klant_id=klant).get_json()
    url = f"{API}/tarieven/{made['id']}"

    per_hour = client.patch(url, json={"grondslag": "uur", "prijs": "62.50"}, headers=headers)
    assert per_hour.status_code == 200, per_hour.get_json()
    assert (per_hour.get_json()["grondslag"], per_hour.get_json()["eenheid"]) == ("uur", None)

    # Back to a price per unit without naming the unit: refused as the portal refuses it.
    assert field_codes(client.patch(url, json={"grondslag": "eenheid"}, headers=headers)) == {
        ("eenheid", "required")
    }
    nulls = client.patch(url, json={"prijs": None, "geldig_vanaf": None}, headers=headers)
    assert field_codes(nulls) == {("prijs", None), ("geldig_vanaf", None)}
    assert field_codes(client.patch(url, json={"prijs": 62.5}, headers=headers)) == {
        ("prijs", None)
    }

    default = client.patch(url, json={"klant_id": None}, headers=headers)
    assert default.status_code == 200 and default.get_json()["klant_id"] is None
    assert client.patch(url, json={}, headers=headers).get_json() == default.get_json()

    from portal.audit import service as audit

    actions = in_carrier(
        app,
        carrier.id,
        lambda: [
            (e.action, e.actor_type)
            for e in audit.entries_for(
                carrier_id=carrier.id, entity="tarief", entity_id=uuid.UUID(made["id"])
            )
        ],
    )
    assert actions == [("created", "api_key"), ("updated", "api_key"), ("updated", "api_key")]


def test_an_if_match_naming_an_etag_changes_nothing_a_tariff_has_none(client, api_key):
    headers = bearer(api_key.key)
    made = post(client, headers).get_json()
    url = f"{API}/tarieven/{made['id']}"
    assert "ETag" not in client.get(url, headers=headers).headers
    stale = client.patch(url, json={"prijs": "9"}, headers={**headers, "If-Match": '"1"'})
    assert stale.status_code == 412 and stale.mimetype == "application/problem+json"
    gone = client.delete(url, headers={**headers, "If-Match": '"1"'})
    assert gone.status_code == 412
    assert client.get(url, headers=headers).get_json()["prijs"] == "4.3500"
    star = client.patch(url, json={"prijs": "9"}, headers={**headers, "If-Match": "*"})
    assert star.status_code == 200 and star.get_json()["prijs"] == "9.0000"
    missing = f"{API}/tarieven/{uuid.uuid4()}"
    assert client.delete(missing, headers={**headers, "If-Match": '"1"'}).status_code == 404


def test_the_list_filters_and_pages(app, client, carrier, api_key):
    headers = bearer(api_key.key)
    kamphuis, ter_horst = customer(app, carrier), customer(app, carrier, "Ter Horst")
    for klant in (None, kamphuis, ter_horst):
        for day in ("2026-01-01", "2026-07-01"):
            assert post(client, headers, klant_id=klant, geldig_vanaf=day).status_code == 201
        made = post(client, headers, klant_id=klant, activity_type="voer_leveren", grondslag="km")
        assert made.status_code == 201

    def listed(query: str = "") -> tuple[int, list[dict]]:
        response = client.get(f"{API}/tarieven?{query}", headers=headers)
        assert response.status_code == 200, response.get_json()
        return int(response.headers["X-Total-Count"]), response.get_json()

    total, every = listed()
    assert total == len(every) == 9
    # The defaults first; per owner and type the newest first.
    assert [t["klant_id"] for t in every[:3]] == [None, None, None]
    assert [(t["activity_type"], t["geldig_vanaf"]) for t in every[:3]] == [
        ("mest_laden", "2026-07-01"),
        ("mest_laden", "2026-01-01"),
        ("voer_leveren", "2026-01-01"),
    ]

    total, defaults = listed("standaard=true")
    assert total == 3 and {t["klant_id"] for t in defaults} == {None}
    total, own = listed("standaard=false")
    assert total == 6 and None not in {t["klant_id"] for t in own}
    total, theirs = listed(f"klant_id={kamphuis}")
    assert total == 3 and {t["klant_id"] for t in theirs} == {kamphuis}
    total, feed = listed("activity_type=voer_leveren")
    assert total == 3 and {t["grondslag"] for t in feed} == {"km"}
    total, narrow = listed(f"klant_id={ter_horst}&activity_type=mest_laden")
    assert total == 2 and [t["geldig_vanaf"] for t in narrow] == ["2026-07-01", "2026-01-01"]
    assert listed(f"klant_id={kamphuis}&standaard=true") == (0, [])  # every filter narrows
    assert listed(f"klant_id={uuid.uuid4()}") == (0, [])

    pages = [listed(f"limit=4&offset={offset}") for offset in (0, 4, 8)]
    assert [total for total, _ in pages] == [9, 9, 9]
    assert [len(items) for _, items in pages] == [4, 4, 1]
    assert [t["id"] for _, items in pages for t in items] == [t["id"] for t in every]
    assert listed("offset=9") == (9, [])


@pytest.mark.parametrize(
    "query, field",
    [
        ("standaard=misschien", "standaard"),
        ("klant_id=kamphuis", "klant_id"),
        ("activity_type=Mest%20laden", "activity_type"),
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("offset=-1", "offset"),
        ("kleur=rood", "kleur"),
    ],
)
def test_a_bad_query_is_422_naming_the_parameter(client, api_key, query, field):
    response = client.get(f"{API}/tarieven?{query}", headers=bearer(api_key.key))
    assert field_codes(response) == {(field, None)}


def test_another_carriers_tariff_is_404(app, client, carrier, other_carrier, api_key):
    own = post(client, bearer(api_key.key)).get_json()
    foreign = bearer(create_api_key(app, other_carrier).key)
    url = f"{API}/tarieven/{own['id']}"
    assert client.get(url, headers=foreign).status_code == 404
    assert client.patch(url, json={"prijs": "1"}, headers=foreign).status_code == 404
    assert client.delete(url, headers=foreign).status_code == 404
    listed = client.get(f"{API}/tarieven", headers=foreign)
    assert listed.get_json() == [] and listed.headers["X-Total-Count"] == "0"
    missing = client.get(f"{API}/tarieven/{uuid.uuid4()}", headers=bearer(api_key.key))
    assert missing.status_code == 404 and missing.mimetype == "application/problem+json"

    # Another carrier's customer is no customer of this one.
    theirs = customer(app, other_carrier, "Kuipers")
    assert field_codes(post(client, bearer(api_key.key), klant_id=theirs)) == {
        ("klant_id", "unknown")
    }
    assert field_codes(
        client.patch(url, json={"klant_id": theirs}, headers=bearer(api_key.key))
    ) == {("klant_id", "unknown")}
    assert client.get(url, headers=bearer(api_key.key)).get_json()["prijs"] == "4.3500"


def test_drivers_are_refused(client, driver):
    token = bearer(driver_token(client, driver))
    assert client.get(f"{API}/tarieven", headers=token).status_code == 403
    assert post(client, token).status_code == 403


def test_a_key_needs_the_tariffs_scopes(app, client, carrier):
    reader = key_with(app, carrier, "tariffs:read")
    assert client.get(f"{API}/tarieven", headers=reader).status_code == 200
    refused = post(client, reader)
    assert refused.status_code == 403
    assert refused.get_json()["required_scope"] == "tariffs:write"
    assert refused.get_json()["type"].endswith("/insufficient-scope")

    customers_only = key_with(app, carrier, "customers:read customers:write")
    refused = client.get(f"{API}/tarieven", headers=customers_only)
    assert refused.status_code == 403 and refused.get_json()["required_scope"] == "tariffs:read"

    writer = key_with(app, carrier, "tariffs:write")  # includes tariffs:read
    made = post(client, writer)
    assert made.status_code == 201
    assert client.get(f"{API}/tarieven/{made.get_json()['id']}", headers=writer).status_code == 200


def test_a_tariff_made_in_the_api_shows_in_the_portal(app, client, carrier, api_key):
    from factories import create_user, login

    post(client, bearer(api_key.key), prijs="4.35")
    login(client, create_user(app, carrier, "planner"))
    page = client.get("/facturatie/tarieven")
    assert page.status_code == 200
    assert "4,35" in page.get_data(as_text=True)


def test_the_list_runs_a_fixed_number_of_queries(client, api_key, count_queries):
    headers = bearer(api_key.key)

    def run() -> int:
        with count_queries() as counter:
            assert client.get(f"{API}/tarieven", headers=headers).status_code == 200
        return counter.count

    post(client, headers)
    client.get(f"{API}/tarieven", headers=headers)
    few = run()
    for month in range(2, 12):
        post(client, headers, geldig_vanaf=f"2026-{month:02d}-01")
    assert run() == few


# --- per hour: rounding and minimum; the VAT category ------------------------------------


def test_an_hourly_tariff_carries_its_rounding_and_minimum(client, api_key):
    headers = bearer(api_key.key)
    made = post(
        client, headers, grondslag="uur", eenheid=None, prijs="85", afronding_minuten=15,
        minimum_minuten=60,
    )  # fmt: skip
    assert made.status_code == 201, made.get_json()
    tariff = made.get_json()
    assert (tariff["afronding_minuten"], tariff["minimum_minuten"]) == (15, 60)
    assert (tariff["btw_categorie"], tariff["btw_vrijstellingsreden"], tariff["btw_procent"]) == (
        "S",
        None,
        "21.00",
    )
    url = f"{API}/tarieven/{tariff['id']}"
    assert client.get(url, headers=headers).get_json() == tariff
    refused = client.patch(url, json={"afronding_minuten": 7}, headers=headers)
    assert field_codes(refused) == {("afronding_minuten", "not_allowed")}
    assert refused.get_json()["errors"][0]["params"] == {"allowed": [1, 5, 6, 10, 15, 30, 60]}
    assert field_codes(client.patch(url, json={"minimum_minuten": 1441}, headers=headers)) == {
        ("minimum_minuten", None)
    }
    # Another basis keeps no rounding of its own.
    per_load = client.patch(url, json={"grondslag": "vracht"}, headers=headers).get_json()
    assert (per_load["afronding_minuten"], per_load["minimum_minuten"]) == (1, 0)


def test_a_category_with_the_wrong_rate_or_without_its_reason_is_refused(client, api_key):
    headers = bearer(api_key.key)
    wrong = post(client, headers, btw_categorie="AE", btw_procent="21")
    assert field_codes(wrong) == {
        ("btw_procent", "vat_rate_category"),
        ("btw_vrijstellingsreden", "required"),
    }
    rate = next(e for e in wrong.get_json()["errors"] if e["field"] == "btw_procent")
    assert rate["params"] == {"categorie": "AE"}
    assert field_codes(post(client, headers, btw_categorie="S", btw_procent="0")) == {
        ("btw_procent", "vat_rate_category")
    }
    assert field_codes(post(client, headers, btw_categorie="Z", btw_procent="9")) == {
        ("btw_procent", "vat_rate_category"),
        ("btw_vrijstellingsreden", "required"),  # Z names its evidence
    }
    assert field_codes(post(client, headers, btw_categorie="XX")) == {("btw_categorie", None)}

    made = post(
        client, headers, btw_categorie="AE", btw_procent="0", btw_vrijstellingsreden="Btw verlegd"
    )
    assert made.status_code == 201, made.get_json()
    assert (made.get_json()["btw_categorie"], made.get_json()["btw_vrijstellingsreden"]) == (
        "AE",
        "Btw verlegd",
    )
    url = f"{API}/tarieven/{made.get_json()['id']}"
    # Back to standard rated: the rate must come along; the reason is dropped (BR-S-10).
    assert field_codes(client.patch(url, json={"btw_categorie": "S"}, headers=headers)) == {
        ("btw_procent", "vat_rate_category")
    }
    standard = client.patch(url, json={"btw_categorie": "S", "btw_procent": "21"}, headers=headers)
    assert standard.status_code == 200, standard.get_json()
    assert (
        standard.get_json()["btw_categorie"],
        standard.get_json()["btw_vrijstellingsreden"],
    ) == (
        "S",
        None,
    )
