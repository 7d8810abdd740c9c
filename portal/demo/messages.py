"""Demo messages: what the planner sent, in every status, and the drivers' phones."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from portal.messages import service as messages
from portal.messages.failures import failure

# Messages the planner sent: (days back, time, title, text, recipients by index, outcomes).
MESSAGES = [
    (
        2,
        time(16, 10),
        "Omleiding Kanaaldijk",
        "De Kanaaldijk is tot vrijdag afgesloten voor vrachtverkeer. Rij via de N279 en "
        "meld je bij de weegbrug aan de achterkant.",
        (0, 1, 2),
        ("read", "read", "failed"),
    ),
    (
        1,
        time(7, 45),
        "Laadadres gewijzigd",
        "Mest laden bij fam. Jansen: gebruik de oprit aan de achterkant, de voorkant is "
        "afgezet voor de loonwerker.",
        (0,),
        ("sent",),
    ),
    (
        0,
        time(6, 30),
        "Weegbon fotograferen",
        "Vergeet vandaag niet de weegbon te fotograferen bij het lossen; zonder foto kunnen "
        "we de rit niet factureren.",
        (0, 1),
        ("read", "queued"),
    ),
]


def seed_messages(carrier_id, driver_rows, planner) -> None:
    """A few sent messages in every status, and a registered phone for all drivers but the
    last. The phones' push service is on the reserved .invalid domain: a worker started on
    the demo data retries them and never reaches the network."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from portal.audit.service import Actor
    from portal.messages import outbox
    from portal.messages.push import b64url

    for index, driver in enumerate(driver_rows[:-1]):
        point = (
            ec.generate_private_key(ec.SECP256R1())
            .public_key()
            .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        )
        messages.subscribe(
            carrier_id=carrier_id,
            driver_id=driver.id,
            endpoint=f"https://push.invalid/demo/{carrier_id.hex[-4:]}-{index}",
            p256dh=b64url(point),
            auth=b64url(bytes(range(16))),
        )
    zone = ZoneInfo("Europe/Amsterdam")
    today = datetime.now(zone).date()
    actor = Actor("user", planner.id, planner.naam)
    for days_back, at, titel, tekst, who, outcomes in MESSAGES:
        sent_at = datetime.combine(today - timedelta(days=days_back), at, tzinfo=zone)
        sent_at = min(sent_at.astimezone(UTC), datetime.now(UTC) - timedelta(minutes=20))
        recipients = [driver_rows[i] for i in who if i < len(driver_rows)]
        rows = messages.send_message(
            carrier_id=carrier_id,
            driver_ids=[d.id for d in recipients],
            titel=titel,
            tekst=tekst,
            actor=actor,
            user_id=planner.id,
            now=sent_at,
        )
        for n, (row, outcome) in enumerate(zip(rows, outcomes, strict=False)):
            row.pogingen = 1
            row.volgende_poging_op = None
            if outcome in ("sent", "read"):
                row.status = "sent"
                row.verzonden_op = sent_at + timedelta(seconds=4)
            if outcome == "read":
                row.status = "read"
                row.gelezen_op = sent_at + timedelta(minutes=3 + 11 * n)
            if outcome == "failed":
                row.status = "failed"
                row.fout = outbox.NO_SUBSCRIPTION
            if outcome == "queued":
                row.fout = failure("service_unavailable", http=503)
                row.volgende_poging_op = sent_at + timedelta(seconds=30)
