"""The portal's answer pages: filled-in questionnaires per driver, task, activity and period."""

from __future__ import annotations

import re

from factories import (
    create_carrier,
    create_driver,
    create_task,
    create_user,
    in_carrier,
    login,
    publish_questionnaire,
    questionnaire_doc,
)


def answer(app, carrier, driver, revision, answers: dict, *, task=None, submit=True):
    """A driver's answers saved through the answering service; the session's id."""
    from portal.questionnaires import answering

    def run():
        return answering.save(
            carrier_id=carrier.id,
            driver_id=driver.id,
            revision_id=revision.id,
            answers=answers,
            submit=submit,
            task=answering.TaskRef(task.id, revision.id) if task else None,
        ).session.id

    return in_carrier(app, carrier.id, run)


def text_of(response) -> str:
    html = response.get_data(as_text=True)
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def check_doc(label: str = "Bandenspanning in orde") -> dict:
    doc = questionnaire_doc("voertuigcontrole", title="Voertuigcontrole")
    doc["questions"] = [
        {"id": "banden", "type": "boolean", "label": label, "required": True},
        {"id": "km", "type": "integer", "label": "Kilometerstand", "unit": "km"},
    ]
    return doc


def test_the_list_shows_each_session_with_labels_values_and_units(
    app, client, carrier, planner, driver
):
    revision = publish_questionnaire(app, carrier)
    task = create_task(app, carrier, driver, naam="Mest laden Enter")
    answer(app, carrier, driver, revision, {"gewicht": 1250.5}, task=task)
    login(client, planner)

    response = client.get("/antwoorden")
    page = text_of(response)

    assert response.status_code == 200
    assert "1 ingevulde vragenlijst" in page
    assert "Mest laden revisie 1" in page and "ingediend" in page
    assert "Gewicht 1.250,5 kg" in page
    assert driver.naam in page
    assert f'href="/taken/{task.id}"' in response.get_data(as_text=True)


def test_filters_narrow_the_list_per_driver_status_and_activity(
    app, client, carrier, planner, driver
):
    loading = publish_questionnaire(app, carrier)
    check = publish_questionnaire(app, carrier, check_doc())
    colleague = create_driver(app, carrier, naam="Piet Post", email="piet@example.nl")
    answer(app, carrier, driver, loading, {"gewicht": 10}, task=create_task(app, carrier, driver))
    answer(app, carrier, colleague, check, {"banden": True, "km": 120500}, submit=False)
    login(client, planner)

    by_driver = text_of(client.get(f"/antwoorden?chauffeur={colleague.user_token}"))
    open_only = text_of(client.get("/antwoorden?status=open"))
    by_type = text_of(client.get("/antwoorden?activity_type=mest_laden"))

    assert "Piet Post" in by_driver and "Kilometerstand 120.500 km" in by_driver
    assert "Gewicht" not in by_driver and "zonder taak" in by_driver
    assert "1 ingevulde vragenlijst" in open_only and "nog open" in open_only
    assert "Gewicht 10 kg" in by_type and "Kilometerstand" not in by_type


def test_a_task_filter_shows_one_tasks_questionnaires(app, client, carrier, planner, driver):
    revision = publish_questionnaire(app, carrier)
    one = create_task(app, carrier, driver)
    other = create_task(app, carrier, driver)
    answer(app, carrier, driver, revision, {"gewicht": 11}, task=one)
    answer(app, carrier, driver, revision, {"gewicht": 22}, task=other)
    login(client, planner)

    page = text_of(client.get(f"/antwoorden?taak={one.id}"))

    assert "Gewicht 11 kg" in page and "Gewicht 22 kg" not in page
    assert "Alleen de vragenlijsten van één taak" in page


def test_a_bad_period_is_shown_at_the_field(app, client, carrier, planner):
    login(client, planner)

    response = client.get("/antwoorden?van=2026-13-40&tot=2026-01-01")
    wrong_order = client.get("/antwoorden?van=2026-02-01&tot=2026-01-01")
    unknown_driver = client.get("/antwoorden?chauffeur=niemand")

    assert response.status_code == 422
    assert "Geen geldige datum" in text_of(response)
    assert wrong_order.status_code == 422
    assert "De einddatum ligt voor de begindatum" in text_of(wrong_order)
    assert unknown_driver.status_code == 422
    assert "Deze chauffeur kennen we niet" in text_of(unknown_driver)


def test_without_answers_the_list_says_so(app, client, carrier, planner):
    login(client, planner)

    page = text_of(client.get("/antwoorden"))

    assert "Geen ingevulde vragenlijsten gevonden" in page


def test_the_list_pages_by_twenty_newest_first(app, client, carrier, planner, driver):
    check = publish_questionnaire(app, carrier, check_doc())
    for km in range(21):
        answer(app, carrier, driver, check, {"banden": True, "km": km})
    login(client, planner)

    first = text_of(client.get("/antwoorden"))
    second = text_of(client.get("/antwoorden?pagina=2"))

    assert "21 ingevulde vragenlijsten" in first and "Pagina 1 van 2" in first
    assert first.count("Kilometerstand") == 20 and second.count("Kilometerstand") == 1
    assert "Kilometerstand 0 km" in second  # the oldest comes last


def test_a_session_page_reads_against_its_own_revision(app, client, carrier, planner, driver):
    first = publish_questionnaire(app, carrier, check_doc())
    session_id = answer(app, carrier, driver, first, {"banden": False, "km": 7})
    publish_questionnaire(app, carrier, check_doc(label="Banden gecontroleerd"))
    login(client, planner)

    response = client.get(f"/antwoorden/{session_id}")
    page = text_of(response)

    assert response.status_code == 200
    assert "Voertuigcontrole revisie 1" in page
    assert "Bandenspanning in orde Nee" in page and "Banden gecontroleerd" not in page
    assert "Afdrukken" in page and "data-print" in response.get_data(as_text=True)


def test_the_task_page_links_each_session_to_its_printable_page(
    app, client, carrier, planner, driver
):
    revision = publish_questionnaire(app, carrier)
    task = create_task(app, carrier, driver)
    session_id = answer(app, carrier, driver, revision, {"gewicht": 3}, task=task)
    login(client, planner)

    body = client.get(f"/taken/{task.id}").get_data(as_text=True)

    assert f'href="/antwoorden/{session_id}"' in body


def test_another_carriers_session_is_404_and_pages_are_for_planners_and_authors(
    app, client, carrier, driver
):
    other = create_carrier(app, "Ander")
    stranger = create_driver(app, other, email="s@ander.example")
    foreign = answer(app, other, stranger, publish_questionnaire(app, other), {"gewicht": 1})
    author = create_user(app, carrier, "author")
    planner = create_user(app, carrier, "planner")

    login(client, planner)
    assert client.get(f"/antwoorden/{foreign}").status_code == 404
    assert "Geen ingevulde" in text_of(client.get("/antwoorden"))
    # Authors read the answers to their questionnaires (issue 10); a foreign one stays 404.
    author_client = app.test_client()
    login(author_client, author)
    assert author_client.get("/antwoorden").status_code == 200
    assert author_client.get(f"/antwoorden/{foreign}").status_code == 404


def test_the_list_runs_a_fixed_number_of_queries(
    app, client, carrier, planner, driver, count_queries
):
    revision = publish_questionnaire(app, carrier)
    answer(app, carrier, driver, revision, {"gewicht": 1}, task=create_task(app, carrier, driver))
    login(client, planner)
    with count_queries() as few:
        assert client.get("/antwoorden").status_code == 200
    check = publish_questionnaire(app, carrier, check_doc())
    for n in range(5):
        answer(app, carrier, driver, check, {"banden": True, "km": n})
        answer(
            app, carrier, driver, revision, {"gewicht": n}, task=create_task(app, carrier, driver)
        )
    with count_queries() as many:
        assert client.get("/antwoorden").status_code == 200

    assert many.count == few.count, many.statements


def test_an_author_reads_answers_without_links_to_task_pages_they_may_not_open(
    app, carrier, driver, planner
):
    revision = publish_questionnaire(app, carrier)
    task = create_task(app, carrier, driver)
    session_id = answer(app, carrier, driver, revision, {"gewicht": 1}, task=task)
    task_link = f'href="/taken/{task.id}"'

    author_client = app.test_client()
    login(author_client, create_user(app, carrier, "author"))
    for page in ("/antwoorden", f"/antwoorden/{session_id}", f"/antwoorden?taak={task.id}"):
        body = author_client.get(page).get_data(as_text=True)
        assert task_link not in body, page
    assert "bij een taak" in author_client.get("/antwoorden").get_data(as_text=True)

    planner_client = app.test_client()
    login(planner_client, planner)
    assert task_link in planner_client.get("/antwoorden").get_data(as_text=True)
    assert task_link in planner_client.get(f"/antwoorden/{session_id}").get_data(as_text=True)
