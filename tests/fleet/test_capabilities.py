"""Capabilities: the defaults a new carrier has without doing anything, its own, renamed and
switched off; a vehicle's capabilities with their parameters (errors at the field, in Dutch
and English); what an activity type needs; an agricultural trailer known by its fleet
number; the API's kenmerken, the kooiaap flag kept, and old kinds refused by name."""

from __future__ import annotations

import re

import pytest
from factories import bearer, csrf_from, in_carrier, login

API = "/api/v1"


@pytest.fixture
def browser(client, planner):
    login(client, planner)
    return client


def post_form(browser, path: str, data: dict, form_path: str | None = None):
    token = csrf_from(browser.get(form_path or path).get_data(as_text=True))
    return browser.post(path, data={"csrf_token": token, **data})


def field_error(html: str, field: str) -> str:
    match = re.search(rf'id="{field}-error"[^>]*>([^<]+)<', html)
    return match.group(1) if match else ""


def run(app, carrier, fn):
    return in_carrier(app, carrier.id, fn)


# --- the catalogue and the needs -----------------------------------------------------------


def test_a_new_carrier_has_the_defaults_and_what_activities_need(app, carrier):
    from portal.fleet import catalogue, service

    codes = run(app, carrier, lambda: [i.code for i in catalogue.catalogue(carrier_id=carrier.id)])
    assert codes == [
        "mesttank",
        "vee",
        "koeling",
        "walking_floor",
        "kipper",
        "adr",
        "kraan",
        "kooiaap",
    ]
    needs = run(app, carrier, lambda: service.needed_capabilities(carrier_id=carrier.id))
    assert needs["mest_laden"] == {"mesttank"} and needs["vee_transport"] == {"vee"}
    names = run(app, carrier, lambda: service.capability_names(carrier_id=carrier.id))
    assert names["mesttank"] == "Mesttank"


def test_own_renamed_and_switched_off_capabilities(app, carrier):
    from portal.audit.service import SYSTEM
    from portal.errors import ValidationFailed
    from portal.fleet import catalogue, service

    def change():
        catalogue.add_capability(carrier_id=carrier.id, naam="Balenklem", actor=SYSTEM)
        catalogue.change_capability(
            carrier_id=carrier.id, code="mesttank", naam="Giertank", actor=SYSTEM
        )
        catalogue.change_capability(carrier_id=carrier.id, code="vee", actief=False, actor=SYSTEM)

    run(app, carrier, change)
    items = run(
        app, carrier, lambda: {i.code: i for i in catalogue.catalogue(carrier_id=carrier.id)}
    )
    assert items["balenklem"].naam == "Balenklem" and not items["balenklem"].default
    assert items["mesttank"].naam == "Giertank" and items["vee"].actief is False
    # A switched-off capability is no longer needed.
    needs = run(
        app,
        carrier,
        lambda: service.needed_capabilities(
            carrier_id=carrier.id, activity_types=["vee_transport", "mest_laden", "onbekend"]
        ),
    )
    assert needs == {"vee_transport": set(), "mest_laden": {"mesttank"}, "onbekend": set()}
    with pytest.raises(ValidationFailed) as refused:
        run(
            app,
            carrier,
            lambda: catalogue.add_capability(carrier_id=carrier.id, naam="balenklem", actor=SYSTEM),
        )
    assert refused.value.errors[0]["code"] == "capability_exists"


def test_an_activity_type_needs_what_the_carrier_chose(app, carrier):
    from portal.audit.service import SYSTEM
    from portal.fleet import catalogue, service

    run(
        app,
        carrier,
        lambda: catalogue.set_needs(
            carrier_id=carrier.id,
            activity_type="mest_laden",
            kenmerken=["mesttank", "kooiaap"],
            actor=SYSTEM,
        ),
    )
    run(
        app,
        carrier,
        lambda: catalogue.set_needs(
            carrier_id=carrier.id, activity_type="koel_transport", kenmerken=[], actor=SYSTEM
        ),
    )
    needs = run(app, carrier, lambda: service.needed_capabilities(carrier_id=carrier.id))
    assert needs["mest_laden"] == {"mesttank", "kooiaap"} and "koel_transport" not in needs


# --- a vehicle's capabilities and its identity --------------------------------------------


def test_a_vehicle_keeps_its_capabilities_with_parameters(app, carrier, make_vehicle):
    from portal.fleet import service

    tank = make_vehicle(
        carrier,
        "OT-48-KX",
        soort="oplegger",
        kenmerken={"mesttank": {"volume_m3": 30}, "koeling": {}},
    )
    truck = make_vehicle(carrier, "BX-12-LP", kooiaap=True)
    caps = run(
        app,
        carrier,
        lambda: service.capabilities_of(carrier_id=carrier.id, vehicle_ids={tank.id, truck.id}),
    )
    assert caps == {
        tank.id: {"koeling": {}, "mesttank": {"volume_m3": 30.0}},
        truck.id: {"kooiaap": {}},
    }


@pytest.mark.parametrize(
    ("kenmerken", "field", "code"),
    [
        ({"mesttank": {"volume_m3": 0}}, "kenmerken.mesttank.volume_m3", "parameter_range"),
        ({"vee": {}}, "kenmerken.vee.nvwa_nummer", "required"),
        ({"koeling": {"temp_min": 8, "temp_max": 2}}, "kenmerken.koeling.temp_max", "range_order"),
        ({"raket": {}}, "kenmerken.raket", "unknown_capability"),
    ],
)
def test_bad_capabilities_are_refused_at_their_field(app, carrier, kenmerken, field, code):
    from portal.errors import ValidationFailed
    from portal.fleet import service

    with pytest.raises(ValidationFailed) as refused:
        run(
            app,
            carrier,
            lambda: service.create_vehicle(
                carrier_id=carrier.id, kenteken="OT-48-KX", soort="oplegger", kenmerken=kenmerken
            ),
        )
    assert (field, code) in [(e["field"], e["code"]) for e in refused.value.errors]


def test_only_an_agricultural_trailer_goes_without_a_plate(app, carrier, make_vehicle):
    from portal.errors import ValidationFailed
    from portal.fleet import service

    def create(**fields):
        return in_carrier(
            app,
            carrier.id,
            lambda: service.create_vehicle(carrier_id=carrier.id, **fields),
            lambda v: (v.id, v.label),
        )

    with pytest.raises(ValidationFailed) as truck:
        create(kenteken=None, vlootnummer="7", soort="vrachtwagen")
    assert truck.value.errors[0]["code"] == "plate_required"
    with pytest.raises(ValidationFailed) as nameless:
        create(kenteken="", soort="landbouwaanhanger")
    assert nameless.value.errors[0]["code"] == "fleet_number_required"
    trailer_id, label = create(kenteken=None, vlootnummer="MT-07", soort="landbouwaanhanger")
    assert label == "#MT-07"
    with pytest.raises(ValidationFailed) as twice:
        create(kenteken=None, vlootnummer="MT-07", soort="landbouwaanhanger")
    assert twice.value.errors[0]["code"] == "fleet_number_taken"
    make_vehicle(carrier, "BX-12-LP")
    listed = run(
        app, carrier, lambda: [v.label for v in service.list_vehicles(carrier_id=carrier.id)]
    )
    assert listed == ["BX-12-LP", "#MT-07"]
    plates = run(
        app, carrier, lambda: service.plates_by_id(carrier_id=carrier.id, vehicle_ids={trailer_id})
    )
    assert plates == {trailer_id: "#MT-07"}


# --- the API --------------------------------------------------------------------------------


def test_the_api_shows_and_changes_capabilities(client, carrier, api_key, make_vehicle):
    truck = make_vehicle(carrier, "BX-12-LP", kooiaap=True, max_snelheid_kmh=90)
    path = f"{API}/voertuigen/{truck.id}"
    shown = client.get(path, headers=bearer(api_key.key)).get_json()
    assert shown["kenmerken"] == {"kooiaap": {}} and shown["kooiaap"] is True
    assert shown["max_snelheid_kmh"] == 90 and shown["label"] == "BX-12-LP"
    changed = client.patch(
        path,
        json={"kenmerken": {"kipper": {}, "mesttank": {"volume_m3": 18}}},
        headers=bearer(api_key.key),
    )
    assert changed.status_code == 200, changed.get_json()
    body = changed.get_json()
    assert body["kenmerken"] == {"kipper": {}, "mesttank": {"volume_m3": 18.0}}
    assert body["kooiaap"] is False and body["versie"] == 2
    bad = client.patch(
        path, json={"kenmerken": {"mesttank": {"volume_m3": 500}}}, headers=bearer(api_key.key)
    )
    assert bad.status_code == 422
    assert bad.get_json()["errors"][0]["field"] == "kenmerken.mesttank.volume_m3"


def test_the_api_refuses_an_old_kind_naming_the_new_one(client, carrier, api_key, make_vehicle):
    truck = make_vehicle(carrier, "BX-12-LP")
    response = client.patch(
        f"{API}/voertuigen/{truck.id}", json={"soort": "trekker"}, headers=bearer(api_key.key)
    )
    assert response.status_code == 422
    assert "'trekker' is now 'opleggertrekker'" in response.get_json()["errors"][0]["message"]
    listed = client.get(
        f"{API}/voertuigen", query_string={"soort": "aanhanger"}, headers=bearer(api_key.key)
    )
    assert listed.status_code == 422 and "aanhangwagen" in listed.get_data(as_text=True)


def test_the_api_catalogue_is_read_and_changed_with_the_right_scope(client, carrier, api_key):
    read = client.get(f"{API}/voertuigkenmerken", headers=bearer(api_key.key)).get_json()
    mest = next(i for i in read if i["code"] == "mesttank")
    assert mest["standaard"] and mest["parameters"][0]["naam"] == "volume_m3"
    added = client.post(
        f"{API}/voertuigkenmerken", json={"naam": "Balenklem"}, headers=bearer(api_key.key)
    )
    assert added.status_code == 201 and added.get_json()["code"] == "balenklem"
    off = client.patch(
        f"{API}/voertuigkenmerken/kraan", json={"actief": False}, headers=bearer(api_key.key)
    )
    assert off.status_code == 200 and off.get_json()["actief"] is False
    put = client.put(
        f"{API}/activiteit_kenmerken/mest_laden",
        json={"kenmerken": ["mesttank", "balenklem"]},
        headers=bearer(api_key.key),
    )
    assert put.status_code == 200
    needs = client.get(f"{API}/activiteit_kenmerken", headers=bearer(api_key.key)).get_json()
    assert {"activity_type": "mest_laden", "kenmerken": ["balenklem", "mesttank"]} in needs
    assert (
        client.patch(
            f"{API}/voertuigkenmerken/raket", json={"actief": False}, headers=bearer(api_key.key)
        ).status_code
        == 404
    )


# --- the pages ------------------------------------------------------------------------------


def test_the_vehicle_form_ticks_capabilities_with_errors_at_the_field(browser, app, carrier):
    from portal.fleet import service

    bad = post_form(
        browser,
        "/voertuigen/nieuw",
        {
            "kenteken": "OT-48-KX",
            "soort": "oplegger",
            "kenmerk_mesttank": "y",
            "kenmerk_mesttank__volume_m3": "500",
            "kenmerk_vee": "y",
        },
    )
    assert bad.status_code == 422
    html = bad.get_data(as_text=True)
    assert field_error(html, "kenmerk_mesttank__volume_m3") == "Vul een getal van 0,1 tot 100 in."
    assert field_error(html, "kenmerk_vee__nvwa_nummer") == "Vul dit in."
    good = post_form(
        browser,
        "/voertuigen/nieuw",
        {
            "kenteken": "",
            "vlootnummer": "MT-07",
            "soort": "landbouwaanhanger",
            "max_snelheid_kmh": "40",
            "kenmerk_mesttank": "y",
            "kenmerk_mesttank__volume_m3": "20,5",
        },
    )
    assert good.status_code == 303
    page = browser.get(good.headers["Location"]).get_data(as_text=True)
    assert "Voertuig #MT-07 is toegevoegd" in page and "Mesttank 20,5 m³" in page
    vehicles = run(
        app,
        carrier,
        lambda: [
            (v.vlootnummer, v.max_snelheid_kmh)
            for v in service.list_vehicles(carrier_id=carrier.id)
        ],
    )
    assert vehicles == [("MT-07", 40)]
    sticker = browser.get("/voertuigen/qr").get_data(as_text=True)
    assert "Vlootnr.</small> MT-07" in sticker


def test_a_truck_without_a_plate_is_refused_in_english_too(browser):
    with browser.session_transaction() as session:
        session["taal"] = "en"
    response = post_form(browser, "/voertuigen/nieuw", {"kenteken": "", "soort": "vrachtwagen"})
    assert response.status_code == 422
    assert field_error(response.get_data(as_text=True), "kenteken") == (
        "Enter the licence plate. Only an agricultural trailer may go without (with a fleet "
        "number)."
    )


def test_the_catalogue_page_adds_renames_and_switches_off_after_a_confirmation(
    browser, app, carrier, make_vehicle
):
    from portal.fleet import catalogue

    make_vehicle(carrier, "BX-12-LP", kooiaap=True)
    page = browser.get("/voertuigen/kenmerken").get_data(as_text=True)
    assert 'value="Mesttank"' in page and "Walking floor" in page
    added = post_form(browser, "/voertuigen/kenmerken", {"nieuw-naam": "Balenklem"})
    assert added.status_code == 303
    twice = post_form(browser, "/voertuigen/kenmerken", {"nieuw-naam": "balenklem"})
    assert twice.status_code == 422
    assert "staat al in de lijst" in field_error(twice.get_data(as_text=True), "nieuw-naam")
    renamed = post_form(
        browser,
        "/voertuigen/kenmerken/kipper/naam",
        {"kipper-naam": "Kiepbak"},
        form_path="/voertuigen/kenmerken",
    )
    assert renamed.status_code == 303
    confirm = browser.get("/voertuigen/kenmerken/kooiaap/uitzetten").get_data(as_text=True)
    assert "1 voertuig heeft dit kenmerk en houdt het." in confirm
    off = post_form(browser, "/voertuigen/kenmerken/kooiaap/uitzetten", {})
    assert off.status_code == 303
    items = run(
        app,
        carrier,
        lambda: {i.code: (i.naam, i.actief) for i in catalogue.catalogue(carrier_id=carrier.id)},
    )
    assert items["kipper"] == ("Kiepbak", True) and items["kooiaap"][1] is False
    assert items["balenklem"] == ("Balenklem", True)


def test_the_needs_page_saves_what_an_activity_needs(browser, app, carrier):
    from portal.fleet import service

    page = browser.get("/voertuigen/kenmerken/activiteiten").get_data(as_text=True)
    assert "Mest laden" in page and "Veetransport" in page
    token = csrf_from(page)
    saved = browser.post(
        "/voertuigen/kenmerken/activiteiten",
        data={
            "csrf_token": token,
            "activity_type": "mest_laden",
            "kenmerk": ["mesttank", "kipper"],
        },
    )
    assert saved.status_code == 303
    needs = run(
        app,
        carrier,
        lambda: service.needed_capabilities(carrier_id=carrier.id, activity_types=["mest_laden"]),
    )
    assert needs == {"mest_laden": {"mesttank", "kipper"}}
