"""What the shipper's proof of delivery says: the planned moment apart from when the plan was
made, and what a consignment note shows (who delivered by first name or initials, vehicle,
times, evidence, answers), without the office's remarks or its staff's names."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest
from factories import create_driver, in_carrier

from portal.accounts import service as accounts
from portal.audit.service import Actor
from portal.extensions import db
from portal.proof import service
from portal.tasks import lifecycle
from portal.types import replay

from .helpers import completed_task
from .test_bundle import pdf_text
from .test_views import share, text_of

PLANNER = Actor("user", None, "Petra Plansma")
REMARK = "Klant betaalt laat, eerst bellen"


def _reopened_by_the_office(app, carrier, task) -> None:
    """A planner reopens the task and completes it again: the trail names the planner."""

    def run():
        for to, at in (("gestart", 15), ("afgerond", 16)):
            with replay(datetime(2026, 11, 20, at, 0, tzinfo=UTC)):
                lifecycle.move_task(
                    carrier_id=carrier.id, task_id=task.id, to=to, actor=PLANNER, office=True
                )
                db.session.flush()

    in_carrier(app, carrier.id, run)


def _proof_form(app, carrier, form: str) -> None:
    def run():
        accounts.get_carrier(carrier_id=carrier.id).bewijs_chauffeur = form

    in_carrier(app, carrier.id, run)


@pytest.fixture
def shared(app, carrier):
    """A completed task of Jan de Vries-Hoekstra with a planner's remark, reopened and
    completed again by a planner, and a share link to it."""
    driver = create_driver(app, carrier, naam="Jan de Vries-Hoekstra")
    task = completed_task(app, carrier, driver, opmerkingen=REMARK)
    _reopened_by_the_office(app, carrier, task)
    return share(app, carrier, task)


def _everything(client, token: str, language: str = "nl") -> dict[str, str]:
    """The shipper's page, PDF and facts part behind the link, as text."""
    headers = {"Accept-Language": language}
    facts = client.get(f"/bewijs/{token}/bestand/bewijs.json", headers=headers)
    assert facts.status_code == 200
    return {
        "page": text_of(client.get(f"/bewijs/{token}", headers=headers)),
        "pdf": pdf_text(client.get(f"/bewijs/{token}.pdf", headers=headers).data),
        "facts": orjson.dumps(orjson.loads(facts.data)).decode(),
    }


def test_the_planned_moment_and_when_it_was_planned_have_names_of_their_own(client, shared):
    # Planned for Fri 20 Nov 09:00 (Amsterdam); the plan was made on Thu 19 Nov 10:00.
    for name, text in _everything(client, shared).items():
        if name == "facts":
            continue
        assert "Gepland voor vr 20 nov 2026 09:00" in text, name
        assert "Ingepland op do 19 nov 2026 10:00" in text, name
        assert "Gepland op" not in text, name
    english = _everything(client, shared, "en")
    for name in ("page", "pdf"):
        assert "Planned for Fri 20 Nov 2026 09:00" in english[name], name
        assert "Plan made on Thu 19 Nov 2026 10:00" in english[name], name


def test_the_shipper_sees_no_remarks_nor_staff_names(client, shared):
    for name, text in _everything(client, shared).items():
        assert REMARK not in text, name
        assert "Petra" not in text and "Plansma" not in text, name
        assert "Vries-Hoekstra" not in text and "Jan Jansen" not in text, name
    seen = _everything(client, shared)
    # What a consignment note shows: who delivered by first name, the vehicle, the times,
    # the evidence and the answers.
    assert "Chauffeur Jan Voertuig BX-12-KL" in seen["page"]
    assert "Afgerond op vr 20 nov 2026 17:00" in seen["page"]
    assert "Getekend door Henk de Vries" in seen["page"] and "Geleverd 12,5 ton" in seen["page"]
    assert '"chauffeur":"Jan"' in seen["facts"]
    # In English the known units read English too (the facts keep the stored word).
    english = _everything(client, shared, "en")
    assert "Geleverd 12,5 tonnes" in english["page"] and "12,5 ton " not in english["page"]
    assert '"eenheid":"ton"' in english["facts"]


def test_the_carrier_chooses_initials_for_the_driver(app, client, carrier, shared):
    _proof_form(app, carrier, "initialen")
    seen = _everything(client, shared)
    assert "Chauffeur J.d.V. Voertuig BX-12-KL" in seen["page"]
    assert "J.d.V." in seen["pdf"] and '"chauffeur":"J.d.V."' in seen["facts"]
    assert "Jan" not in seen["page"].split("Chauffeur", 1)[1].split("Voertuig", 1)[0]


def test_the_admin_sets_how_the_proof_names_drivers(app, client, carrier):
    from factories import create_user, csrf_from, login

    login(client, create_user(app, carrier, "admin"))
    page = client.get("/beheer/instellingen").get_data(as_text=True)
    assert "Chauffeur op het bewijs van aflevering" in page and "Initialen (J.d.V.)" in page

    def settings_form(client, **changes):
        data = {
            "csrf_token": csrf_from(page),
            "naam": "Van der Berg Agrotransport",
            "tijdzone": "Europe/Amsterdam",
            "thuisbasis_land": "NL",
        }
        return client.post("/beheer/instellingen", data={**data, **changes})

    assert settings_form(client, bewijs_chauffeur="initialen").status_code == 303
    assert (
        in_carrier(
            app,
            carrier.id,
            lambda: accounts.get_carrier(carrier_id=carrier.id).bewijs_chauffeur,
        )
        == "initialen"
    )
    history = text_of(client.get("/beheer/instellingen"))
    assert "Chauffeur op het bewijs van aflevering" in history and "Initialen (J.d.V.)" in history
    assert settings_form(client, bewijs_chauffeur="volledig").status_code == 422


def test_the_bundle_keeps_no_internal_data(app, carrier, driver):
    task = completed_task(app, carrier, driver, opmerkingen=REMARK)
    facts = in_carrier(
        app, carrier.id, lambda: service.build_bundle(carrier_id=carrier.id, task_id=task.id)
    ).facts
    assert "opmerkingen" not in facts["taak"]
    assert all(set(item) <= {"status", "van", "op", "heropend"} for item in facts["statussen"])


def test_the_task_page_names_the_planned_moment_as_the_proof_does(app, client, carrier, driver):
    from factories import create_user, login

    task = completed_task(app, carrier, driver)
    login(client, create_user(app, carrier, "planner"))
    text = text_of(client.get(f"/taken/{task.id}", headers={"Accept-Language": "nl"}))
    assert "Gepland voor vr 20 nov 2026 09:00" in text and "Gepland op" not in text
