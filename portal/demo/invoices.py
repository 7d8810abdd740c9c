"""Demo invoices: yesterday's export of the work up to the day before, which issued an
invoice per customer (a reverse-charged one to the Belgian customer among them), and a
credit note against the first for waiting time billed too much."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from portal.audit.service import Actor
from portal.billing import invoicing
from portal.billing import service as billing
from portal.customers import service as customers
from portal.demo import tasks as demo_tasks
from portal.extensions import db
from portal.tasks import service as tasks
from portal.types import replay

ZONE = ZoneInfo("Europe/Amsterdam")


def _belgian_work(carrier_id, driver, office, day) -> None:
    """Manure delivered to the Belgian digester on day: planned by the office, done by the
    driver as every demo task is (answers, evidence, the work reported), 28 ton at the
    default tariff, reverse charged because the customer is a business in Belgium."""
    names = {name: klant_id for klant_id, name in customers.names(carrier_id=carrier_id).items()}
    klant_id = names.get("Biogas Vlaanderen NV")
    if klant_id is None:
        return
    [place] = customers.list_places(carrier_id=carrier_id, customer_id=klant_id)
    planned = datetime.combine(day, time(6, 30), tzinfo=ZONE)
    now = datetime.now(ZONE)
    with replay(planned - timedelta(days=2)):
        task = tasks.create_task(
            carrier_id=carrier_id,
            driver_id=driver.id,
            data={
                "type": "mest_laden",
                "naam": "Mest naar Turnhout",
                "hoeveelheid": 28,
                "eenheid": "ton",
                "gepland_op": planned,
                "klant_id": klant_id,
                "loslocatie_id": place.id,
                "vdm_nummer": f"{day:%y%m%d}9001",
            },
            actor=office,
        )
        db.session.flush()
    demo_tasks.work(carrier_id, task, driver, office, "afgerond", 1, planned, now)


def seed_invoices(carrier_id, drivers, planner) -> None:
    """Export the demo's work up to the day before yesterday, yesterday at 17:00: each
    customer's invoice issued; then credit part of the first one."""
    actor = Actor("user", planner.id, planner.naam)
    now = datetime.now(ZONE)
    exported_at = datetime.combine(now.date() - timedelta(days=1), time(17), tzinfo=ZONE)
    if exported_at > now:
        return
    _belgian_work(carrier_id, drivers[0], actor, now.date() - timedelta(days=3))
    van, tot = now.date() - timedelta(days=40), now.date() - timedelta(days=2)
    with replay(exported_at):
        batch = billing.export(carrier_id=carrier_id, van=van, tot=tot, actor_label=planner.naam)
        db.session.flush()
    made, _missing = billing.invoices_of_batch(carrier_id=carrier_id, export_id=batch.id)
    issued = [invoice for invoice in made if invoice.uitgegeven]
    names = customers.names_by_id(carrier_id=carrier_id, customer_ids={i.klant_id for i in issued})
    first = next((i for i in issued if names.get(i.klant_id) == "Maatschap Ter Horst"), None)
    if first is None:
        return
    [line, *_rest] = invoicing.lines_of(carrier_id=carrier_id, invoice_ids={first.id})[first.id]
    with replay(exported_at + timedelta(hours=1)):
        invoicing.credit(
            carrier_id=carrier_id,
            invoice_id=first.id,
            reden="Wachttijd te veel berekend: 20 minuten in plaats van 40",
            bedragen={line.id: min(Decimal("18.33"), line.bedrag)},
            actor_label=planner.naam,
        )
        db.session.flush()
