"""What the series tests share: a customer, a template, a Monday-and-Friday manure run from
Monday 14 December 2026, and reading a series' tasks."""

from __future__ import annotations

from datetime import date, time
from types import SimpleNamespace

from factories import in_carrier

from portal.audit.service import SYSTEM

MONDAY = date(2026, 12, 14)


def plain(value):
    if hasattr(value, "__table__"):
        return SimpleNamespace(**{c.key: getattr(value, c.key) for c in value.__table__.columns})
    return value


def run(app, carrier, fn):
    return in_carrier(app, carrier.id, fn, plain)


def make_template(app, carrier, **data):
    from portal.customers import service as customers
    from portal.series import service

    def make():
        customer = customers.create_customer(
            carrier_id=carrier.id, data={"naam": "Maatschap Jansen"}, actor=SYSTEM
        )
        fields = {
            "naam": "Mest Jansen",
            "type": "mest_laden",
            "klant_id": customer.id,
            "duur_min": 90,
            "capaciteiten": ["mesttank"],
            "velden": {"laad_adres": "Hengelosestraat 12", "laad_stad": "Enter"},
            **data,
        }
        return service.create_template(carrier_id=carrier.id, data=fields, actor=SYSTEM)

    return run(app, carrier, make)


def make_series(app, carrier, template, **data):
    from portal.series import service

    fields = {
        "sjabloon_id": template.id,
        "naam": "Mest Jansen ma/vr",
        "patroon": "wekelijks",
        "weekdagen": (0, 4),
        "om_weken": 1,
        "startdatum": MONDAY,
        "tijd": time(7, 30),
        "feestdagen": "overslaan",
        **data,
    }
    return run(
        app,
        carrier,
        lambda: service.create_series(carrier_id=carrier.id, data=fields, actor=SYSTEM),
    )


def plan(app, carrier, today=MONDAY, weeks=4) -> int:
    from portal.series import planning

    return run(
        app,
        carrier,
        lambda: planning.plan(carrier_id=carrier.id, today=today, weeks=weeks, actor=SYSTEM),
    )


def series_tasks(app, carrier, series) -> list:
    """(planned date in Amsterdam, task) of the series' occurrences that have a task."""
    from zoneinfo import ZoneInfo

    from portal.series import planning
    from portal.tasks import service as tasks

    def read():
        found = []
        for occurrence in planning.occurrences_of(carrier_id=carrier.id, series_id=series.id):
            if occurrence.taak_id is None:
                continue
            task = tasks.get_task(carrier_id=carrier.id, task_id=occurrence.taak_id, archived=True)
            when = task.gepland_op.astimezone(ZoneInfo("Europe/Amsterdam"))
            found.append((when.date(), plain(task), plain(occurrence)))
        return found

    return run(app, carrier, read)
