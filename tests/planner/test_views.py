"""The planner's pages: "Plan de week" starts a proposal, its page polls (htmx) until the
worker solved it, shows it as a diff and accepts the ticked tasks; the task form's panel
ranks the drivers with their reasons, a failing driver listed with why."""

from __future__ import annotations

from datetime import timedelta

from factories import create_driver, create_task, csrf_from, in_carrier, login
from planner.support import NOW, at, vehicle


def work(app):
    from portal.planner import worker

    with app.app_context():
        return worker.run_pass(10, clock=lambda: NOW + timedelta(days=30))


def test_plan_de_week_proposes_and_accepts_the_ticked_task(app, client, carrier, planner):
    create_driver(app, carrier, naam="Anna de Vries")
    vehicle(app, carrier, "BX-12-LP")
    first = create_task(app, carrier, None, type="voer_leveren", naam="Voer Enter",
                        gepland_op=at(0, 8), duur_min=90)  # fmt: skip
    second = create_task(app, carrier, None, type="voer_leveren", naam="Voer Rijssen",
                         gepland_op=at(1, 8), duur_min=90)  # fmt: skip
    login(client, planner)
    page = client.get("/planning/voorstellen")
    assert page.status_code == 200
    started = client.post(
        "/planning/voorstellen",
        data={"periode": "week", "datum": "2026-12-09", "seconden": "2",
              "csrf_token": csrf_from(page.get_data(as_text=True))},
    )  # fmt: skip
    assert started.status_code == 303
    address = started.headers["Location"]
    waiting = client.get(address).get_data(as_text=True)
    assert "In de wachtrij" in waiting and "hx-get" in waiting

    assert work(app) == {"done": 1}
    fragment = client.get(address, headers={"HX-Request": "true"})
    html = fragment.get_data(as_text=True)
    assert "Voer Enter" in html and "Anna de Vries" in html and "BX-12-LP" in html
    assert "hx-get" not in html  # solved: no more polling

    accepted = client.post(
        address + "/accepteren",
        data={"taken": [str(first.id)], "csrf_token": csrf_from(html)},
    )
    assert accepted.status_code == 303

    def drivers_of():
        from portal.tasks import service

        return [
            service.get_task(carrier_id=carrier.id, task_id=t.id).chauffeur_id is not None
            for t in (first, second)
        ]

    assert in_carrier(app, carrier.id, drivers_of) == [True, False]


def test_the_task_forms_panel_lists_every_driver_with_reasons(app, client, carrier, planner):
    create_driver(app, carrier, naam="Anna de Vries")
    busy = create_driver(app, carrier, naam="Bert Smit")
    vehicle(app, carrier, "BX-12-LP")
    vehicle(app, carrier, "BX-13-LP")
    create_task(app, carrier, busy, type="voer_leveren", gepland_op=at(0, 8), duur_min=120)
    task = create_task(app, carrier, None, type="voer_leveren", gepland_op=at(0, 9), duur_min=60)
    login(client, planner)

    form = client.get(f"/taken/{task.id}/bewerken").get_data(as_text=True)
    assert f"/taken/{task.id}/suggesties" in form
    panel = client.get(f"/taken/{task.id}/suggesties", headers={"HX-Request": "true"})
    html = panel.get_data(as_text=True)
    assert panel.status_code == 200
    assert html.index("Anna de Vries") < html.index("Bert Smit")  # the free driver first
    assert "overlapt met een andere taak" in html  # Bert is listed with why
    assert "geen kaart- of urengegevens" in html  # no card data: a warning, not met


def test_another_carriers_proposal_and_task_are_404(app, client, carrier, other_carrier, planner):
    from portal.audit.service import SYSTEM
    from portal.planner import service

    theirs = create_task(app, other_carrier, None, type="voer_leveren", gepland_op=at(0, 8))
    proposal_id = in_carrier(
        app, other_carrier.id,
        lambda: service.start_proposal(carrier_id=other_carrier.id, van=at(0, 0),
                                       tot=at(1, 0), actor=SYSTEM).id,
    )  # fmt: skip
    login(client, planner)
    assert client.get(f"/planning/voorstellen/{proposal_id}").status_code == 404
    assert client.post(f"/planning/voorstellen/{proposal_id}/accepteren").status_code == 404
    assert client.get(f"/taken/{theirs.id}/suggesties").status_code == 404
