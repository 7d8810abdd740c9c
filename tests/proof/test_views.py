"""The planner's proof pages and the shipper's share link (no account)."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

import pytest
from factories import create_driver, create_task, create_user, csrf_from, in_carrier, login

from portal.audit.service import Actor
from portal.proof import service

from .helpers import completed_task

OFFICE = Actor("user", None, "Petra Planner")


def text_of(response) -> str:
    body = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return " ".join(html.unescape(body).split())


def links(app, carrier, task) -> list[tuple]:
    """The task's links as (id, verloopt_op), newest first."""
    return in_carrier(
        app,
        carrier.id,
        lambda: service.links_for(carrier_id=carrier.id, task_id=task.id),
        lambda rows: [(row.id, row.verloopt_op) for row in rows],
    )


def share(app, carrier, task, **kwargs) -> str:
    return in_carrier(
        app,
        carrier.id,
        lambda: service.create_link(carrier_id=carrier.id, task_id=task.id, actor=OFFICE, **kwargs),
    )


def test_a_share_link_opens_without_signing_in(app, client, carrier, driver):
    task = completed_task(app, carrier, driver)
    token = share(app, carrier, task)
    assert service.public_path(token) == f"/bewijs/{token}"

    page = client.get(service.public_path(token), headers={"Accept-Language": "nl"})
    assert page.status_code == 200
    text = text_of(page)
    assert "Bewijs van aflevering" in text and "Voer leveren Hengelo" in text
    assert "Getekend door Henk de Vries" in text and "BX-12-KL" in text
    assert 'src="data:image/jpeg;base64,' in page.get_data(as_text=True)
    assert page.headers["Cache-Control"] == "private, no-store"
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert page.headers["X-Robots-Tag"].startswith("noindex")

    pdf = client.get(f"/bewijs/{token}.pdf")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    assert pdf.data.startswith(b"%PDF-") and pdf.headers["Cache-Control"] == "private, no-store"
    assert client.get(f"/bewijs/{token}.pdf").data == pdf.data

    scan = client.get(f"/bewijs/{token}/bestand/scan-01.pdf")
    assert scan.status_code == 200 and "attachment" in scan.headers["Content-Disposition"]
    assert client.get(f"/bewijs/{token}/bestand/nope.jpg").status_code == 404
    manifest = client.get(f"/bewijs/{token}/manifest.json").get_json()
    assert manifest["bundel_sha256"] == pdf.headers["X-Bundle-SHA256"]


def test_the_shared_page_speaks_english_when_the_browser_asks(app, client, carrier, driver):
    task = completed_task(app, carrier, driver)
    token = share(app, carrier, task)
    text = text_of(client.get(f"/bewijs/{token}", headers={"Accept-Language": "en"}))
    assert "Proof of delivery" in text and "Signed by Henk de Vries" in text


def test_revoked_and_expired_links_are_gone(app, client, carrier, driver):
    task = completed_task(app, carrier, driver)
    revoked = share(app, carrier, task)
    expired = share(app, carrier, task, days=1, now=datetime.now(UTC) - timedelta(days=2))
    [(link_id, _), _] = links(app, carrier, task)  # newest first: the expired one is older
    in_carrier(
        app,
        carrier.id,
        lambda: service.revoke_link(
            carrier_id=carrier.id, task_id=task.id, link_id=link_id, actor=OFFICE
        ),
    )
    for token in (revoked, expired):
        for path in (f"/bewijs/{token}", f"/bewijs/{token}.pdf", f"/bewijs/{token}/manifest.json"):
            response = client.get(path)
            assert response.status_code == 410, path
            assert "Henk" not in response.get_data(as_text=True)
            assert response.headers["Cache-Control"] == "private, no-store"
    # A token no link has is not found.
    assert client.get("/bewijs/" + "A" * 43).status_code == 404


def test_the_planner_shares_lists_and_revokes_links(app, client, carrier, planner, driver):
    task = completed_task(app, carrier, driver)
    login(client, planner)
    detail = client.get(f"/taken/{task.id}")
    text = text_of(detail)
    assert "Bewijs van aflevering" in text and "Nog niet gedeeld." in text
    token = csrf_from(detail.get_data(as_text=True))

    made = client.post(f"/taken/{task.id}/bewijs/links", data={"dagen": "7", "csrf_token": token})
    assert made.status_code == 200
    url = re.search(r'id="proof-url" value="([^"]+)"', made.get_data(as_text=True)).group(1)
    assert re.fullmatch(r"http://localhost/bewijs/[A-Za-z0-9_-]{43}", url)
    assert (
        client.post(
            f"/taken/{task.id}/bewijs/links", data={"dagen": "0", "csrf_token": token}
        ).status_code
        == 422
    )

    [(link_id, expires)] = links(app, carrier, task)
    assert timedelta(days=6) < expires - datetime.now(UTC) <= timedelta(days=7)
    page = text_of(client.get(f"/taken/{task.id}"))
    assert "actief" in page and "Bewijs gedeeld" in page

    confirm = client.get(f"/taken/{task.id}/bewijs/links/{link_id}/intrekken")
    assert confirm.status_code == 200 and "Link intrekken?" in text_of(confirm)
    done = client.post(
        f"/taken/{task.id}/bewijs/links/{link_id}/intrekken", data={"csrf_token": token}
    )
    assert done.status_code == 303
    assert "ingetrokken op" in text_of(client.get(f"/taken/{task.id}"))
    client.post("/logout", data={"csrf_token": token})
    anonymous = app.test_client()
    assert anonymous.get(url.removeprefix("http://localhost")).status_code == 410


def test_the_planner_opens_and_downloads_the_bundle(app, client, carrier, planner, driver):
    task = completed_task(app, carrier, driver)
    login(client, planner)
    page = client.get(f"/taken/{task.id}/bewijs")
    assert page.status_code == 200 and "Henk de Vries" in text_of(page)
    pdf = client.get(f"/taken/{task.id}/bewijs.pdf")
    assert pdf.mimetype == "application/pdf" and "attachment" in pdf.headers["Content-Disposition"]
    assert client.get(f"/taken/{task.id}/bewijs/deel/foto-01.jpg").mimetype == "image/jpeg"


def test_other_carriers_tasks_and_links_are_404(app, client, carrier, other_carrier, driver):
    theirs_driver = create_driver(app, other_carrier)
    theirs = completed_task(app, other_carrier, theirs_driver)
    share(app, other_carrier, theirs)
    [(link_id, _)] = links(app, other_carrier, theirs)
    login(client, create_user(app, carrier, "planner"))
    token = csrf_from(client.get("/taken").get_data(as_text=True))
    for path in (
        f"/taken/{theirs.id}/bewijs",
        f"/taken/{theirs.id}/bewijs.pdf",
        f"/taken/{theirs.id}/bewijs/deel/bewijs.json",
        f"/taken/{theirs.id}/bewijs/links/{link_id}/intrekken",
    ):
        assert client.get(path).status_code == 404, path
    for path in (
        f"/taken/{theirs.id}/bewijs/links",
        f"/taken/{theirs.id}/bewijs/links/{link_id}/intrekken",
    ):
        assert client.post(path, data={"csrf_token": token, "dagen": "30"}).status_code == 404


def test_a_task_that_is_not_completed_is_refused(app, client, carrier, planner, driver):
    task = create_task(app, carrier, driver, status="gestart")
    login(client, planner)
    token = csrf_from(client.get(f"/taken/{task.id}").get_data(as_text=True))
    assert "Bewijs van aflevering" not in text_of(client.get(f"/taken/{task.id}"))
    assert client.get(f"/taken/{task.id}/bewijs").status_code == 409
    assert client.get(f"/taken/{task.id}/bewijs.pdf").status_code == 409
    made = client.post(f"/taken/{task.id}/bewijs/links", data={"dagen": "30", "csrf_token": token})
    assert made.status_code == 409


def test_drivers_and_authors_may_not(app, client, carrier, driver):
    task = completed_task(app, carrier, driver)
    login(client, create_user(app, carrier, "author"))
    assert client.get(f"/taken/{task.id}/bewijs").status_code == 403


@pytest.mark.postgres_only  # the owner's look-up function exists on PostgreSQL only
def test_the_owners_lookup_answers_an_exact_hash_only(app, carrier, driver):
    import hashlib

    from sqlalchemy import text

    from portal.extensions import db

    task = completed_task(app, carrier, driver)
    token = share(app, carrier, task)
    with app.app_context():
        [found] = db.session.execute(
            text("SELECT * FROM rijplan_bewijs_link(:h)"),
            {"h": hashlib.sha256(token.encode()).hexdigest()},
        ).all()
        assert found[0] == carrier.id
        for guess in ("%", "", token):
            rows = db.session.execute(text("SELECT * FROM rijplan_bewijs_link(:h)"), {"h": guess})
            assert rows.all() == []
        # As the app role, without a carrier in scope, the table shows nothing.
        assert db.session.execute(text("SELECT count(*) FROM bewijs_links")).scalar() == 0
