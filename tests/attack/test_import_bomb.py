"""The XLSX import bomb: the worst workbooks we can build under the 5 MB upload limit (tests/
xlsx_bombs.py: millions of shared strings, a sheet claiming every column, a row of a million
cells, cells of 30 million characters, deflate bombs with honest and lying sizes, a billion
laughs, tens of thousands of zip members) uploaded to the customer import by a planner over
loopback on PostgreSQL. Each is refused with its reason (413, or 422 for a broken file), no
customer comes of it, and reading each costs less than 100 MB above idle, measured in a
fresh process (its peak resident memory while reading the file)."""

from __future__ import annotations

import re

import xlsx_bombs
from factories import create_carrier, create_user, csrf_from, in_carrier
from sqlalchemy import func, select

from attack.test_inputs import Browser, text_of
from portal.extensions import db

REASONS = ("Het Excel-bestand", "Een cel in het Excel-bestand", "Het bestand heeft meer dan")
WITHIN_BUDGET = {"1.5 million empty rows"}  # one customer in 27 MB of XML: read, within budget


def test_the_import_bomb_is_refused_within_its_memory_budget(live, tmp_path):
    from portal.customers.models import Customer

    app = live.app
    carrier = create_carrier(app, "Van der Berg Agrotransport")
    planner = Browser(live).sign_in(create_user(app, carrier, "planner"))
    files = {name: make() for name, make in xlsx_bombs.BOMBS.items()}
    outcomes, refused = {}, 0
    for name, raw in files.items():
        planner.token = csrf_from(planner.get("/klanten/import").body.decode())
        answer = planner.upload("/klanten/import", {}, {"bestand": ("klanten.xlsx", raw)})
        assert answer.status < 500, (name, answer.status)
        if name in WITHIN_BUDGET:
            assert answer.status == 303, (name, answer.status)
            outcomes[name] = "read within every budget (a preview, nothing imported)"
            continue
        assert answer.status in (413, 422), (name, answer.status)
        refused += 1
        page = text_of(answer)
        start = min(page.find(f) for f in REASONS if f in page)
        reason = re.match(r".*?\.(?=\s|$)", page[start:]).group()
        outcomes[name] = f"{answer.status} {reason.strip()}"

    leaked = in_carrier(
        app, carrier.id, lambda: db.session.scalar(select(func.count()).select_from(Customer))
    )
    measured = xlsx_bombs.peak_rss(files, tmp_path)
    worst = max(m["peak_mb"] - m["idle_mb"] for m in measured.values())
    print(
        f"\nimport bomb: {len(files)} tried, {refused} refused, leaked {leaked}; "
        f"worst memory above idle {worst} MB (budget 100 MB)"
    )
    for name, outcome in outcomes.items():
        figures = measured[name]
        print(
            f"  {name} ({len(files[name]) // 1024} KB): {outcome}; "
            f"+{figures['peak_mb'] - figures['idle_mb']} MB"
        )
    assert leaked == 0
    assert refused == len(files) - len(WITHIN_BUDGET)
    assert worst < 100
