"""Hours in English: no Dutch left where the product chose the words (the payroll file's
default headers, the pay rules' preset names); names the carrier typed stay as typed."""

from __future__ import annotations

import pytest
from factories import login

from hours.test_payroll import (
    W47,
    batches,
    download,
    export,
    rows_of,
    weeks,  # noqa: F401 (the fixture)
)

PAGE = "/uren/loonexport"


def in_english(client):
    with client.session_transaction() as session:
        session["taal"] = "en"


@pytest.mark.usefixtures("weeks")
def test_an_export_made_in_english_has_english_headers(app, client, carrier):
    in_english(client)
    assert export(client).status_code == 303
    ((export_id, _again, _count),) = batches(app, carrier)
    header, _row = rows_of(download(client, export_id))
    assert header[:9] == [
        "Payroll number",
        "Name",
        "Year",
        "Week",
        "Regular hours",
        "Extra hours 100%",
        "Overtime 130%",
        "Saturday 150%",
        "Sundays and public holidays 200%",
    ]
    assert header[-4:] == [
        "Night surcharge one-day trips",
        "Paid public holidays",
        "Top-up to contract hours",
        "Subsistence allowance",
    ]
    # The batch keeps the names it was made with: downloaded from a Dutch page, the same.
    with client.session_transaction() as session:
        session["taal"] = "nl"
    assert rows_of(download(client, export_id))[0] == header


@pytest.mark.usefixtures("weeks")
def test_the_preview_and_columns_pages_name_the_defaults_in_english(client):
    in_english(client)
    preview = client.get(PAGE, query_string={"van": W47, "tot": W47}).get_data(as_text=True)
    assert "Regular hours" in preview and "Overtime 130%" in preview
    assert "Uren normaal" not in preview and "Overuren 130%" not in preview
    columns = client.get(f"{PAGE}/kolommen").get_data(as_text=True)
    assert 'value="Regular hours"' in columns
    assert "Uren normaal" not in columns


@pytest.mark.usefixtures("weeks")
def test_default_names_saved_in_english_stay_defaults_and_own_names_stay_as_typed(
    app, client, carrier
):
    from hours.test_payroll import post_columns

    in_english(client)
    assert post_columns(client, names={"verblijfkosten": "Onkosten"}).status_code == 303
    with client.session_transaction() as session:
        session["taal"] = "nl"
    assert export(client).status_code == 303
    ((export_id, _again, _count),) = batches(app, carrier)
    header, _row = rows_of(download(client, export_id))
    assert header[4] == "Uren normaal"  # saved from the English page, still the default
    assert header[-1] == "Onkosten"  # the carrier's own name, as typed


def own_windows(app, carrier, *names):
    """The carrier's irregular-hours table: a 130% night window and the day, by these names."""
    import dataclasses
    from datetime import date

    from factories import in_carrier

    from portal.audit.service import SYSTEM
    from portal.hours import cao
    from portal.hours.payroll import rulesets

    night, day = names
    windows = (
        cao.Window(night, (1, 2, 3, 4, 5), "00:00", "06:00", 130),
        cao.Window(day, (1, 2, 3, 4, 5), "06:00", "24:00", 100),
    )
    rules = dataclasses.replace(cao.cao_preset(date(2026, 11, 2)), vensters=windows)
    in_carrier(
        app,
        carrier.id,
        lambda: rulesets.create_rule_set(carrier_id=carrier.id, rules=rules, actor=SYSTEM),
        lambda row: row.id,
    )


def early_monday(app, carrier, driver):
    from hours.support import at, record_day

    record_day(app, carrier, driver, at("2026-11-16", "04:00"), at("2026-11-16", "10:00"),
               [("rijden", at("2026-11-16", "04:00"), at("2026-11-16", "10:00"))])  # fmt: skip


@pytest.mark.parametrize(
    ("name", "english", "dutch"),
    [("nacht", "Night 130%", "Nacht 130%"), ("Ploeg B", "Ploeg B 130%", "Ploeg B 130%")],
)
def test_a_window_with_the_usual_name_reads_in_english_and_an_own_name_as_typed(
    app, client, carrier, driver, planner, name, english, dutch
):
    own_windows(app, carrier, name, "dag")
    early_monday(app, carrier, driver)
    login(client, planner)
    in_english(client)
    week = client.get(f"/uren/{driver.user_token}/2026-W47").get_data(as_text=True)
    assert f'<th scope="col" class="num">{english}</th>' in week
    if name == "nacht":
        assert "Nacht 130%" not in week
        columns = client.get(f"{PAGE}/kolommen").get_data(as_text=True)
        assert "Irregular hours: night" in columns and 'value="Irregular night 130%"' in columns
    with client.session_transaction() as session:
        session["taal"] = "nl"
    week = client.get(f"/uren/{driver.user_token}/2026-W47").get_data(as_text=True)
    assert f'<th scope="col" class="num">{dutch}</th>' in week


def test_the_preset_allowance_names_and_its_note_read_in_english(client, planner):
    login(client, planner)
    dutch = client.get("/uren/regels/nieuw").get_data(as_text=True)
    assert "per uur afwezig" in dutch and "Voorinstelling volgens de CAO" in dutch
    assert "Preset after" not in dutch
    in_english(client)
    english = client.get("/uren/regels/nieuw").get_data(as_text=True)
    assert "per hour away" in english and "evening, leaving before 14:00" in english
    assert "per uur afwezig" not in english and "dagbedrag" not in english
    assert "Preset after the CAO" in english
