"""Confirm pages opened as a page of their own (a middle-click, or no JavaScript): the button
posts the page's form as a plain form, and the action is done.

A page's form is read as a browser reads it: its action, its fields, and the htmx attributes a
browser with JavaScript would follow instead (a target that is not on the page makes htmx drop
the click, so the button would do nothing)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser

import pytest
from factories import (
    create_driver,
    create_task,
    create_user,
    in_carrier,
    login,
    questionnaire_doc,
)


class PageForms(HTMLParser):
    """The forms of a page (action, fields, htmx attributes) and the ids on it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[dict] = []
        self.ids: set[str] = set()
        self.targets: list[str] = []
        self._form: dict | None = None
        self._button: dict | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if attrs.get("hx-target"):
            self.targets.append(attrs["hx-target"])
        if tag == "form":
            self._form = {"attrs": attrs, "fields": {}, "buttons": []}
            self.forms.append(self._form)
        elif self._form is not None and tag in ("input", "textarea", "select"):
            if attrs.get("name") and attrs.get("type") not in ("submit", "checkbox", "radio"):
                self._form["fields"][attrs["name"]] = attrs.get("value") or ""
        elif self._form is not None and tag == "button" and attrs.get("type") != "button":
            self._button = {"attrs": attrs, "text": ""}
            self._form["buttons"].append(self._button)

    def handle_data(self, data):
        if self._button is not None:
            self._button["text"] += data

    def handle_endtag(self, tag):
        if tag == "button":
            self._button = None
        elif tag == "form":
            self._form = None


def read_page(html: str) -> PageForms:
    parser = PageForms()
    parser.feed(html)
    return parser


def press(client, url: str, button: str, **changes: str):
    """Open `url` as a page, change fields as a user would, and press its submit button
    `button` as a browser without JavaScript does (the same form a middle-click opens)."""
    page = client.get(url)
    assert page.status_code == 200
    forms = read_page(page.get_data(as_text=True))
    for target in forms.targets:
        # With JavaScript, htmx would send the form to a target that is not there: nothing.
        assert target.lstrip("#") in forms.ids, f"{url}: hx-target {target} is not on the page"
    for form in forms.forms:
        for pressed in form["buttons"]:
            if " ".join(pressed["text"].split()) == button:
                assert "hx-post" not in form["attrs"] or all(
                    t.lstrip("#") in forms.ids for t in forms.targets
                )
                data = {**form["fields"], **changes}
                if pressed["attrs"].get("name"):
                    data[pressed["attrs"]["name"]] = pressed["attrs"].get("value", "")
                assert form["attrs"].get("method", "get").lower() == "post"
                return client.post(form["attrs"]["action"], data=data)
    raise AssertionError(f"{url}: no button {button!r}")


def task_status(app, carrier, task_id) -> tuple[str, bool] | None:
    """The task's status and whether it is archived; None when it is gone."""
    from portal.extensions import db
    from portal.tasks.models import Task

    return in_carrier(
        app,
        carrier.id,
        lambda: db.session.get(Task, (carrier.id, task_id)),
        lambda t: (t.status, t.gearchiveerd_op is not None) if t else None,
    )


@pytest.fixture
def signed_in(client, planner):
    login(client, planner)
    return client


def planned(hours: int = 2) -> datetime:
    return datetime.now(UTC).replace(microsecond=0) + timedelta(hours=hours)


def test_cancel_from_its_own_page_cancels_the_task(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=planned())

    response = press(signed_in, f"/taken/{task.id}/annuleren?terug=/taken?q=mest",
                     "Ja, annuleer de taak")  # fmt: skip

    assert response.status_code == 303 and response.headers["Location"] == "/taken?q=mest"
    assert task_status(app, carrier, task.id) == ("geannuleerd", False)
    assert "Taak “Mest Enter” is geannuleerd." in signed_in.get("/taken").get_data(as_text=True)


def test_reopen_from_its_own_page_reopens_the_task(app, signed_in, carrier, driver):
    now = planned(-3)
    times = {"ontvangen_op": now, "gestart_op": now, "afgerond_op": now + timedelta(hours=1)}
    task = create_task(
        app, carrier, driver, naam="Voer Epe", gepland_op=now, status="afgerond", **times
    )

    response = press(signed_in, f"/taken/{task.id}/heropenen", "Ja, heropen de taak")

    assert response.status_code == 303
    assert task_status(app, carrier, task.id) == ("gestart", False)
    board = signed_in.get(response.headers["Location"]).get_data(as_text=True)
    assert "Taak “Voer Epe” is heropend en staat weer op gestart." in board


def test_delete_from_its_own_page_deletes_the_task(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, naam="Vergissing", gepland_op=planned())

    response = press(signed_in, f"/taken/{task.id}/verwijderen", "Ja, verwijder de taak")

    assert response.status_code == 303
    assert task_status(app, carrier, task.id) is None
    assert "Taak “Vergissing” is verwijderd." in signed_in.get("/taken").get_data(as_text=True)


def test_move_from_its_own_page_moves_the_task(app, signed_in, carrier, driver):
    other = create_driver(app, carrier, "Bram de Boer")
    task = create_task(app, carrier, driver, naam="Voer Laren", gepland_op=planned())

    response = press(signed_in, f"/taken/{task.id}/verplaats", "Verplaatsen",
                     chauffeur_id=str(other.id))  # fmt: skip

    assert response.status_code == 303

    def fetch():
        from portal.tasks import service

        return service.get_task(carrier_id=carrier.id, task_id=task.id)

    assert in_carrier(app, carrier.id, fetch, lambda t: t.chauffeur_id) == other.id
    board = signed_in.get(response.headers["Location"]).get_data(as_text=True)
    assert "“Voer Laren” verplaatst: Bram de Boer" in board


def test_the_dialog_still_posts_through_htmx(signed_in, app, carrier, driver):
    task = create_task(app, carrier, driver, naam="Mest Delden", gepland_op=planned())
    for action in ("annuleren", "verwijderen", "verplaats"):
        dialog = signed_in.get(f"/taken/{task.id}/{action}", headers={"HX-Request": "true"})
        html = dialog.get_data(as_text=True)
        assert 'hx-post="' in html and 'hx-target="#dialog-body"' in html, action


def test_removing_a_question_from_its_own_page_removes_it(app, client, carrier):
    from portal.audit.service import Actor
    from portal.questionnaires import service

    author = create_user(app, carrier, "author")
    doc = questionnaire_doc("kuikens_laden", "kuikens", "Kuikens laden")
    in_carrier(app, carrier.id, lambda: service.create_draft(
        carrier_id=carrier.id, doc=doc, user_id=author.id, actor=Actor("user", author.id, "A")
    ))  # fmt: skip
    login(client, author)
    removed = doc["questions"][0]["id"]

    response = press(client, "/vragenlijsten/kuikens/concept/vraag/verwijderen?pad=0",
                     "Ja, verwijderen")  # fmt: skip

    assert response.status_code == 303
    left = in_carrier(
        app,
        carrier.id,
        lambda: service.get_draft(carrier_id=carrier.id, questionnaire_id="kuikens"),
        lambda draft: [q["id"] for q in service.draft_document(draft)["questions"]],
    )
    assert removed not in left and len(left) == len(doc["questions"]) - 1
