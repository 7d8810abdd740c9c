"""One unit of work per portal write: what a view changed is kept exactly when its answer
says the change happened, on both databases."""

from __future__ import annotations

import pytest
from factories import csrf_from, in_carrier, login
from flask import make_response, redirect

from portal.drivers import service as drivers
from portal.extensions import db
from portal.tenancy import carrier_scope
from portal.unit_of_work import after_commit, after_rollback, kept, portal_write, refused


def _names(app, carrier) -> list[str]:
    return in_carrier(
        app,
        carrier.id,
        lambda: drivers.list_drivers(carrier_id=carrier.id, active_only=False),
        lambda rows: sorted(d.naam for d in rows),
    )


def _run(app, carrier, answer):
    """A portal write that adds a driver and then answers `answer()`."""

    @portal_write
    def view():
        drivers.create_driver(carrier_id=carrier.id, naam="Piet")
        return answer()

    with app.test_request_context("/", method="POST"), carrier_scope(db.session, carrier.id):
        return view()


@pytest.mark.parametrize(
    ("answer", "kept_it"),
    [
        (lambda: redirect("/chauffeurs", code=303), True),
        (lambda: ("<p>opgeslagen</p>", 200), True),
        (lambda: ("<p>fout bij het veld</p>", 422), False),
        (lambda: ("<p>gewijzigd</p>", 409), False),
        (lambda: refused(redirect("/chauffeurs", code=303)), False),
        (lambda: kept(make_response("<p>mislukte poging telt</p>", 401)), True),
    ],
    ids=["redirect", "ok", "422", "409", "refused-redirect", "kept-401"],
)
def test_the_change_is_kept_exactly_when_the_answer_says_so(app, carrier, answer, kept_it):
    response = _run(app, carrier, answer)
    assert response.status_code in (200, 303, 401, 409, 422)
    assert _names(app, carrier) == (["Piet"] if kept_it else [])


def test_a_view_that_raises_keeps_nothing(app, carrier):
    def boom():
        raise RuntimeError("the page could not be built")

    with pytest.raises(RuntimeError):
        _run(app, carrier, boom)
    assert _names(app, carrier) == []


def test_a_portal_form_keeps_what_it_saved_and_nothing_it_refused(app, carrier, client, planner):
    """Through the portal: the accepted driver is stored, the refused one is not."""
    login(client, planner)

    def add(naam: str, email: str):
        token = csrf_from(client.get("/chauffeurs/nieuw").get_data(as_text=True))
        form = {"csrf_token": token, "naam": naam, "email": email, "taal": "nl"}
        return client.post("/chauffeurs/nieuw", data=form).status_code

    assert add("Kees", "kees@example.nl") == 303
    assert add("Kees twee", "KEES@example.nl") == 422  # the address is Kees's already
    assert _names(app, carrier) == ["Kees"]


def _run_noting(app, carrier, answer, *, fail_commit=False, monkeypatch=None):
    """A portal write that notes what ran after it: commit or rollback callbacks."""
    ran: list[str] = []

    @portal_write
    def view():
        after_commit(lambda: ran.append("after commit"))
        after_rollback(lambda: ran.append("after rollback"))
        return answer()

    if fail_commit:

        def refuse():
            raise RuntimeError("the database went away at the commit")

        monkeypatch.setattr(db.session, "commit", refuse)
    with app.test_request_context("/", method="POST"), carrier_scope(db.session, carrier.id):
        try:
            view()
        except RuntimeError:
            ran.append("raised")
    return ran


def test_after_commit_runs_only_once_the_change_is_committed(app, carrier, monkeypatch):
    assert _run_noting(app, carrier, lambda: ("ok", 200)) == ["after commit"]
    assert _run_noting(app, carrier, lambda: ("fout", 422)) == ["after rollback"]
    refused_redirect = lambda: refused(redirect("/", code=303))  # noqa: E731
    assert _run_noting(app, carrier, refused_redirect) == ["after rollback"]
    # A commit that fails rolls back, frees what the rollback callbacks free, and raises.
    failed = _run_noting(
        app, carrier, lambda: ("ok", 200), fail_commit=True, monkeypatch=monkeypatch
    )
    assert failed == ["after rollback", "raised"]
