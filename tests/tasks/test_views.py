"""The portal's task list."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from conftest import create_carrier, create_driver, create_task, create_vehicle, login


def test_the_list_shows_the_carriers_tasks_only(app, client, carrier, planner, driver):
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    create_task(
        app,
        carrier,
        driver,
        naam="Mest laden Enter",
        vehicle_id=vehicle.id,
        stad="Enter",
        vdm_nummer="VDM77",
        gepland_op=datetime.now(UTC),
    )
    other = create_carrier(app, "Ander")
    create_task(app, other, create_driver(app, other), naam="Geheime rit")
    login(client, planner)

    html = client.get("/taken").get_data(as_text=True)

    assert "Mest laden Enter" in html
    assert "Jan Chauffeur" in html and "BX12AB" in html and "VDM77" in html
    assert "Geheime rit" not in html
    assert "1 taak" in html


def test_the_list_pages_by_fifty(app, client, carrier, planner, driver):
    start = datetime.now(UTC)
    for n in range(55):
        create_task(
            app, carrier, driver, naam=f"Rit {n:02d}", gepland_op=start + timedelta(hours=n)
        )
    login(client, planner)
    first = client.get("/taken").get_data(as_text=True)
    assert "Rit 00" in first and "Rit 49" in first and "Rit 50" not in first
    assert "Pagina 1 van 2" in first
    second = client.get("/taken?pagina=2").get_data(as_text=True)
    assert "Rit 50" in second and "Rit 54" in second and "Rit 49" not in second


def test_filter_by_status_and_search(app, client, carrier, planner, driver):
    create_task(app, carrier, driver, naam="Voer Schijndel", stad="Schijndel")
    create_task(app, carrier, driver, naam="Mest Enter", stad="Enter", status="afgerond")
    login(client, planner)
    by_status = client.get("/taken?status=afgerond").get_data(as_text=True)
    assert "Mest Enter" in by_status and "Voer Schijndel" not in by_status
    by_text = client.get("/taken?q=schijn").get_data(as_text=True)
    assert "Voer Schijndel" in by_text and "Mest Enter" not in by_text


def test_an_htmx_request_gets_only_the_table(client, planner):
    login(client, planner)
    response = client.get("/taken", headers={"HX-Request": "true"})
    html = response.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="task-table"')
    assert "<html" not in html
    assert "HX-Request" in response.headers["Vary"]


def test_empty_states_say_what_to_do(client, planner):
    login(client, planner)
    assert "Er zijn nog geen taken." in client.get("/taken").get_data(as_text=True)
    filtered = client.get("/taken?q=niets").get_data(as_text=True)
    assert "Geen taken gevonden met deze filters." in filtered


def test_bad_filter_values_do_not_break_the_page(client, planner):
    login(client, planner)
    for query in ("pagina=abc", "pagina=-4", "status=klaar", "q=" + "x" * 500):
        assert client.get(f"/taken?{query}").status_code == 200, query


def test_the_list_runs_a_fixed_number_of_queries(app, client, carrier, planner, count_queries):
    drivers = [create_driver(app, carrier, f"Chauffeur {n}") for n in range(3)]
    login(client, planner)
    create_task(app, carrier, drivers[0], vehicle_id=create_vehicle(app, carrier).id)
    with count_queries() as few:
        client.get("/taken")
    for n in range(20):
        create_task(app, carrier, drivers[n % 3], vehicle_id=create_vehicle(app, carrier).id)
    with count_queries() as many:
        client.get("/taken")
    assert many.count == few.count
