"""What a customer import may cost: the worst workbooks we can build under the upload limit
are read within 100 MB of memory above idle and refused with a reason, and a file over the
CPU-time budget is refused, not read for as long as it takes."""

from __future__ import annotations

import dataclasses
import io

import pytest
import xlsx_bombs
from factories import create_carrier, create_user, csrf_from, login

from portal.customers import csv_import
from portal.customers.csv_import import reading


def test_the_worst_workbooks_are_refused_within_100_mb_above_idle(tmp_path):
    files = {name: make() for name, make in xlsx_bombs.BOMBS.items()}
    assert all(len(raw) <= csv_import.MAX_BYTES for raw in files.values())
    measured = xlsx_bombs.peak_rss(files, tmp_path)
    for name, figures in measured.items():
        assert figures["peak_mb"] - figures["idle_mb"] < 100, (name, figures)
    refused = {name: m["outcome"] for name, m in measured.items() if m["outcome"] != "read"}
    # Only the file of empty rows is a (one-customer) list within every budget.
    assert set(measured) - set(refused) == {"1.5 million empty rows"}
    wording = {
        "shared strings (1.8 million)": "te veel tekst",
        "a row of a million cells, dimension A1:XFD1048576": "te veel cellen",
        "1.9 million cells in rows of 1,900": "te veel cellen",
        "a cell of 30 million characters": "langer dan 32.767 tekens",
        "a shared string of 30 million characters": "langer dan 32.767 tekens",
        "deflate bomb (1 GB of spaces)": "te groot om te lezen",
        "deflate bomb with sizes that lie": "beschadigd",
        "billion laughs in the shared strings": "beschadigd",
        "40,000 zip members": "te groot om te lezen",
        "10,000 rows": "meer dan 5000 rijen",
    }
    for name, fragment in wording.items():
        assert fragment in refused[name], (name, refused[name])


@pytest.fixture
def planner_client(app, client):
    carrier = create_carrier(app, "Ter Horst Transport")
    login(client, create_user(app, carrier, "planner"))
    return client


def _upload(client, raw: bytes):
    token = csrf_from(client.get("/klanten/import").get_data(as_text=True))
    data = {"bestand": (io.BytesIO(raw), "klanten.xlsx"), "csrf_token": token}
    return client.post("/klanten/import", data=data, content_type="multipart/form-data")


def test_a_workbook_over_the_time_budget_is_refused_with_a_reason(planner_client, monkeypatch):
    # A budget spent before the first chunk: refused wherever the clock stands (no timing).
    budget = dataclasses.replace(reading.XLSX_BUDGET, seconds=-1.0)
    monkeypatch.setattr(reading, "XLSX_BUDGET", budget)
    response = _upload(planner_client, xlsx_bombs.many_rows())
    assert response.status_code == 413
    assert "kost te veel tijd om te lezen" in response.get_data(as_text=True)


def test_a_workbook_over_a_budget_is_refused_in_english_too(planner_client):
    with planner_client.session_transaction() as session:
        session["taal"] = "en"
    response = _upload(planner_client, xlsx_bombs.long_cell())
    assert response.status_code == 413
    assert "longer than 32,767 characters" in response.get_data(as_text=True)
