"""Couplings in the portal: the vehicle page couples a trailer for a day (a refusal worded
at the field), shows it and its history, and uncouples after a confirmation; the task page
chooses another trailer for the task, or the day's coupling again."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from factories import Ref, create_task, csrf_from, in_carrier, login

from portal.extensions import db


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch):
    """The vehicle page's today (what is current), whatever the wall clock."""
    from portal.fleet.pages import couplings

    monkeypatch.setattr(couplings, "_today", lambda: datetime(2026, 12, 7).date())


def vehicle(app, carrier, kenteken, soort):
    from portal.fleet.models import Vehicle

    def make():
        row = Vehicle(transporteur_id=carrier.id, kenteken=kenteken, soort=soort)
        db.session.add(row)
        db.session.flush()
        return row

    return in_carrier(app, carrier.id, make, lambda v: Ref(v.id, carrier.id, naam=kenteken))


@pytest.fixture
def fleet(app, carrier):
    return {
        "tractor": vehicle(app, carrier, "VZH-56-E", "landbouwtrekker"),
        "truck": vehicle(app, carrier, "BX-14-LP", "vrachtwagen"),
        "tanker": vehicle(app, carrier, "WX-12-BC", "aanhangwagen"),
        "cart": vehicle(app, carrier, "WX-13-BC", "aanhangwagen"),
    }


def test_a_planner_couples_a_tanker_and_uncouples_it_after_a_confirmation(client, planner, fleet):
    login(client, planner)
    url = f"/voertuigen/{fleet['tractor'].id}/koppelen"
    form = client.get(url).get_data(as_text=True)
    assert "WX-12-BC" in form and "BX-14-LP" not in form  # only what fits

    made = client.post(
        url,
        data={
            "ander_id": str(fleet["tanker"].id),
            "datum": "2026-12-07",
            "csrf_token": csrf_from(form),
        },
    )
    assert made.status_code == 303
    page = client.get(f"/voertuigen/{fleet['tractor'].id}").get_data(as_text=True)
    assert "VZH-56-E en WX-12-BC zijn gekoppeld op 07-12-2026." in page
    assert "Koppelingen" in page and "op 07-12-2026" in page
    assert "Loskoppelen…" in page

    # The same tanker behind the truck that day: refused, worded at the field.
    other = f"/voertuigen/{fleet['truck'].id}/koppelen"
    refused = client.post(
        other,
        data={
            "ander_id": str(fleet["tanker"].id),
            "datum": "2026-12-07",
            "csrf_token": csrf_from(form),
        },
    )
    assert refused.status_code == 422
    assert "WX-12-BC is dan al gekoppeld aan VZH-56-E." in refused.get_data(as_text=True)

    link = page.split('href="/voertuigen/')[1:]
    uncouple = next("/voertuigen/" + h.split('"')[0] for h in link if "ontkoppelen" in h)
    question = client.get(uncouple).get_data(as_text=True)
    assert "WX-12-BC loskoppelen van VZH-56-E?" in question
    done = client.post(uncouple, data={"csrf_token": csrf_from(question)})
    assert done.status_code == 303
    after = client.get(f"/voertuigen/{fleet['tractor'].id}").get_data(as_text=True)
    assert "WX-12-BC is losgekoppeld van VZH-56-E." in after
    assert "Vandaag en later niet gekoppeld." in after or "Geschiedenis" in after


def test_the_task_page_chooses_a_trailer_for_the_task(app, client, carrier, planner, fleet):
    from portal.audit.service import SYSTEM
    from portal.fleet import couplings

    task = create_task(
        app,
        carrier,
        None,
        vehicle_id=fleet["tractor"].id,
        gepland_op=datetime(2026, 12, 7, 8, tzinfo=UTC),
    )
    in_carrier(
        app,
        carrier.id,
        lambda: couplings.couple(
            carrier_id=carrier.id,
            motor_id=fleet["tractor"].id,
            towed_id=fleet["tanker"].id,
            day=datetime(2026, 12, 7).date(),
            actor=SYSTEM,
        ),
    )
    login(client, planner)
    page = client.get(f"/taken/{task.id}").get_data(as_text=True)
    assert "WX-12-BC" in page and "koppeling van de dag" in page

    chosen = client.post(
        f"/taken/{task.id}/aanhanger",
        data={"getrokken_id": str(fleet["cart"].id), "csrf_token": csrf_from(page)},
    )
    assert chosen.status_code == 303
    page = client.get(f"/taken/{task.id}").get_data(as_text=True)
    assert "gekozen voor deze taak" in page
    assert '<span class="plate plate-towed">WX-13-BC</span>' in page

    back = client.post(
        f"/taken/{task.id}/aanhanger", data={"getrokken_id": "", "csrf_token": csrf_from(page)}
    )
    assert back.status_code == 303
    page = client.get(f"/taken/{task.id}").get_data(as_text=True)
    assert '<span class="plate plate-towed">WX-12-BC</span>' in page


def test_another_carriers_coupling_is_404(app, client, carrier, other_carrier, planner, fleet):
    from factories import bearer, create_api_key

    from portal.audit.service import SYSTEM
    from portal.fleet import couplings

    theirs = {
        name: vehicle(app, other_carrier, plate, soort)
        for name, plate, soort in (
            ("tractor", "VZH-57-E", "landbouwtrekker"),
            ("tanker", "WX-22-BC", "aanhangwagen"),
        )
    }
    coupling_id = in_carrier(
        app,
        other_carrier.id,
        lambda: couplings.couple(
            carrier_id=other_carrier.id,
            motor_id=theirs["tractor"].id,
            towed_id=theirs["tanker"].id,
            day=datetime(2026, 12, 7).date(),
            actor=SYSTEM,
        ),
        lambda c: c.id,
    )
    key = create_api_key(app, carrier)
    api = f"/api/v1/transporteurs/{carrier.id}/koppelingen/{coupling_id}"
    assert client.get(api, headers=bearer(key.key)).status_code == 404
    assert client.delete(api, headers=bearer(key.key)).status_code == 404
    foreign = f"/api/v1/transporteurs/{other_carrier.id}/koppelingen"
    assert client.get(foreign, headers=bearer(key.key)).status_code == 404
    login(client, planner)
    page = f"/voertuigen/{fleet['tractor'].id}/koppelingen/{coupling_id}/ontkoppelen"
    assert client.get(page).status_code == 404
    assert client.post(page).status_code == 404


def test_the_task_form_chooses_the_trailer_and_words_a_refusal_at_the_field(
    app, client, carrier, planner, fleet
):
    semi = vehicle(app, carrier, "OA-12-BC", "oplegger")
    login(client, planner)
    page = client.get("/taken/nieuw").get_data(as_text=True)
    assert 'name="getrokken_id"' in page and "Koppeling van de dag" in page
    data = {
        "csrf_token": csrf_from(page),
        "type": "voer_leveren",
        "naam": "Voer Epe",
        "land": "NL",
        "gepland_datum": "2026-12-07",
        "gepland_tijd": "09:00",
        "vehicle_id": str(fleet["tractor"].id),
    }
    refused = client.post("/taken/nieuw", data={**data, "getrokken_id": str(semi.id)})
    assert refused.status_code == 422
    assert "Een oplegger koppel je alleen aan een opleggertrekker." in refused.get_data(
        as_text=True
    )

    saved = client.post("/taken/nieuw", data={**data, "getrokken_id": str(fleet["cart"].id)})
    assert saved.status_code == 303
    board = client.get("/taken?datum=2026-12-07").get_data(as_text=True)
    assert '<span class="plate plate-towed" title="Aanhanger of oplegger">WX-13-BC</span>' in board
