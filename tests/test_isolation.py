"""Carrier isolation: row-level security on PostgreSQL, and a sweep of every route.

The RLS proofs connect as the app role (neither superuser nor owner, no BYPASSRLS) and run
raw SQL without any carrier filter: only the policies stand between carriers.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from factories import (
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_task,
    create_user,
    create_vehicle,
    in_carrier,
    login,
    publish_questionnaire,
    questionnaire_doc,
)
from psycopg.types.json import Json
from sqlalchemy import select, text

from portal.extensions import db
from portal.models import TENANT_TABLES

EXPECTED_TENANT_TABLES = {
    "gebruikers",
    "chauffeurs",
    "chauffeur_locaties",
    "rijbewijscategorieen",
    "rijtijden_vrijstellingen",
    "voertuigen",
    "voertuig_sessies",
    "kenmerken",
    "voertuig_kenmerken",
    "activiteit_kenmerken",
    "koppelingen",
    "planvoorstellen",
    "planvoorstel_regels",
    "api_keys",
    "refresh_tokens",
    "activation_codes",
    "activity_questionnaires",
    "taken",
    "taak_sjablonen",
    "taak_reeksen",
    "reeks_voorkomens",
    "answer_sessions",
    "answers",
    "questionnaire_drafts",
    "idempotency_records",
    "audit_log",
    "bestanden",
    "taak_bewijzen",
    "facturatie_exports",
    "facturatieregels",
    "tacho_bestanden",
    "tacho_dagen",
    "berichten",
    "push_abonnementen",
    "bericht_pogingen",
    "werkdagen",
    "activiteiten",
    "week_goedkeuringen",
    "bewijs_links",
    "webhook_endpoints",
    "webhook_gebeurtenissen",
    "webhook_leveringen",
    "webhook_pogingen",
    "klanten",
    "klant_locaties",
    "tarieven",
    "facturen",
    "factuur_regels",
    "cao_regelsets",
    "uren_correcties",
    "loon_exports",
    "loon_export_weken",
}


def populate(app, client, name: str) -> dict:
    """A carrier with at least one row in every tenant table."""
    from portal.drivers.pairing import create_activation_code
    from portal.idempotency.models import IdempotencyRecord
    from portal.questionnaires.models import Answer, AnswerSession

    carrier = create_carrier(app, name)
    user = create_user(app, carrier)
    driver = create_driver(app, carrier)
    vehicle = create_vehicle(app, carrier)
    key = create_api_key(app, carrier)
    # Each carrier's questionnaire has its own id, so the sweep can aim at the other one's.
    questionnaire_id = "mest-laden-" + name.lower().replace(" ", "-")
    revision = publish_questionnaire(
        app, carrier, questionnaire_doc(questionnaire_id=questionnaire_id)
    )
    task = create_task(app, carrier, driver)  # also writes the audit log
    client.post(
        "/api/v1/auth/token",
        json={
            "grant_type": "password",
            "username": driver.email,
            "password": "correct-horse-battery",
        },
    )
    now = datetime.now(UTC)

    answer_session_id = uuid.uuid4()

    message_ids: list = []
    tacho_ids: list = []
    hours_ids: dict = {}

    def extra():
        import io

        from portal.audit.service import SYSTEM
        from portal.billing.models import BillingExport, BillingLine
        from portal.files.service import store_file
        from portal.questionnaires.models import QuestionnaireDraft
        from portal.tasks.models import TaskEvidence

        db.session.add(
            QuestionnaireDraft(
                transporteur_id=carrier.id, questionnaire_id=questionnaire_id, definition="{}"
            )
        )

        create_activation_code(carrier_id=carrier.id, user_token=driver.user_token)
        from portal.drivers.licences import set_licences
        from portal.tacho.scope import set_exemption

        licences = {"B": None, "C": None, "CE": None}
        set_licences(carrier_id=carrier.id, driver_id=driver.id, categorieen=licences, actor=SYSTEM)
        set_exemption(carrier_id=carrier.id, activiteit="mest_laden", artikel="13(1)(b)",
                      actor=SYSTEM)  # fmt: skip
        from tacho.samples import card_file

        from portal.tacho import service as tacho

        tacho_ids.append(
            tacho.upload(
                carrier_id=carrier.id,
                stream=io.BytesIO(card_file()),
                filename="kaart.ddd",
                actor=SYSTEM,
                driver_id=driver.id,
            ).file.id
        )
        from portal.messages import service as messages
        from portal.messages.models import DeliveryAttempt

        (message,) = messages.send_message(
            carrier_id=carrier.id, driver_ids=[driver.id], titel="t", tekst="x", actor=SYSTEM
        )
        message_ids.append(message.id)
        messages.subscribe(
            carrier_id=carrier.id,
            driver_id=driver.id,
            endpoint=f"https://push.example.net/{carrier.id}",
            p256dh="B" + "A" * 86,
            auth="A" * 22,
        )
        db.session.add(
            DeliveryAttempt(
                transporteur_id=carrier.id, bericht_id=message.id, poging=1, resultaat="sent"
            )
        )
        from portal.drivers.locations import Point, record_locations

        record_locations(
            carrier_id=carrier.id,
            driver_id=driver.id,
            points=[Point(lat=52.22, lng=6.89, recorded_at=now - timedelta(minutes=5))],
        )
        from factories import png_bytes

        png = png_bytes()
        stored = store_file(
            carrier_id=carrier.id,
            stream=io.BytesIO(png),
            filename="f.png",
            soort="photo",
            actor=SYSTEM,
        )
        db.session.add(
            TaskEvidence(
                transporteur_id=carrier.id, taak_id=task.id, bestand_id=stored.id, soort="photo"
            )
        )
        export_id = uuid.uuid4()
        db.session.add(
            BillingExport(
                id=export_id,
                transporteur_id=carrier.id,
                van=now.date(),
                tot=now.date(),
                regels=1,
                gemaakt_door="test",
            )
        )
        db.session.flush()
        db.session.add(
            BillingLine(
                transporteur_id=carrier.id, taak_id=task.id, afgerond_op=now, export_id=export_id
            )
        )
        session_id = answer_session_id
        db.session.add(
            AnswerSession(
                id=session_id,
                transporteur_id=carrier.id,
                activity_questionnaire_id=revision.id,
                activity_type="mest_laden",
                taak_id=task.id,
                chauffeur_id=driver.id,
            )
        )
        db.session.flush()
        db.session.add(
            Answer(
                transporteur_id=carrier.id,
                answer_session_id=session_id,
                question_id="gewicht",
                waarde="1200",
            )
        )
        db.session.add(
            IdempotencyRecord(
                transporteur_id=carrier.id,
                caller="x",
                key="k",
                request_hash="h",
                verloopt_op=now + timedelta(days=7),
            )
        )
        from portal.fleet.models import VehicleSession

        vehicle_session_id = uuid.uuid4()
        db.session.add(
            VehicleSession(
                id=vehicle_session_id,
                transporteur_id=carrier.id,
                chauffeur_id=driver.id,
                vehicle_id=vehicle.id,
                status="active",
                verloopt_op=now,
                gestart_op=now,
            )
        )
        from portal.fleet.coupling_models import Coupling
        from portal.fleet.models import Vehicle

        trailer = Vehicle(transporteur_id=carrier.id, kenteken="WX-12-BC", soort="aanhangwagen")
        db.session.add(trailer)
        db.session.flush()
        coupling = Coupling(
            transporteur_id=carrier.id,
            id=uuid.uuid4(),
            trekkend_id=vehicle.id,
            getrokken_id=trailer.id,
            datum=now.date(),
            taak_id=None,
            bron="planner",
            gekoppeld_door="test",
        )
        db.session.add(coupling)
        customer_ids.update(koppeling_id=coupling.id)
        from portal.hours import service as hours
        from portal.hours import weeks
        from portal.hours.days import activities
        from portal.hours.totals import IsoWeek

        day_start = datetime(2026, 11, 16, 5, 0, tzinfo=UTC)
        work_day = hours.start_work_day(
            carrier_id=carrier.id,
            driver_id=driver.id,
            actor=SYSTEM,
            gestart_op=day_start,
            beeindigd_op=day_start + timedelta(hours=8),
        )
        activity = activities.add_activity(
            carrier_id=carrier.id,
            work_day_id=work_day.id,
            actor=SYSTEM,
            data={"soort": "rijden", "begin": day_start, "einde": day_start + timedelta(hours=1)},
        )
        hours_ids.update(work_day_id=work_day.id, activity_id=activity.id)
        weeks.approve_week(
            carrier_id=carrier.id, driver_id=driver.id, week=IsoWeek(2026, 47), actor=SYSTEM
        )
        from portal.proof.models import ProofLink

        proof_link_id = uuid.uuid4()
        db.session.add(
            ProofLink(
                id=proof_link_id,
                transporteur_id=carrier.id,
                taak_id=task.id,
                token_hash=uuid.uuid4().hex * 2,
                verloopt_op=now + timedelta(days=30),
                aangemaakt_door="test",
            )
        )
        from portal.webhooks import resending
        from portal.webhooks import service as webhooks

        endpoint, _secret = webhooks.create_endpoint(
            carrier_id=carrier.id,
            data=webhooks.EndpointIn(
                url="https://tms.example.com/in", gebeurtenissen=["taak.afgerond"]
            ),
            actor=SYSTEM,
        )
        resending.send_test(carrier_id=carrier.id, endpoint_id=endpoint.id, actor=SYSTEM)
        from datetime import date
        from decimal import Decimal

        from portal.billing import tariffs

        tariff = tariffs.create_tariff(
            carrier_id=carrier.id,
            data=tariffs.TariffIn(
                activity_type="mest_laden",
                geldig_vanaf=date(2026, 1, 1),
                grondslag="vracht",
                prijs=Decimal("85"),
            ),
            actor=SYSTEM,
        )
        hours_ids["tariff_id"] = tariff.id
        from portal.customers import service as customers

        customer = customers.create_customer(
            carrier_id=carrier.id, data={"naam": f"Klant van {name}"}, actor=SYSTEM
        )
        place = customers.add_place(
            carrier_id=carrier.id, customer_id=customer.id, data={"naam": "Erf"}, actor=SYSTEM
        )
        from portal.billing.models import Invoice, InvoiceLine

        invoice = Invoice(
            transporteur_id=carrier.id,
            id=uuid.uuid4(),
            export_id=export_id,
            klant_id=customer.id,
            nummer="2026-00001",
            datum=date(2026, 11, 2),
            vervaldatum=date(2026, 12, 2),
            regels=1,
            bedrag=Decimal("85.00"),
            btw_bedrag=Decimal("17.85"),
        )
        db.session.add(invoice)
        db.session.flush()
        db.session.add(
            InvoiceLine(
                transporteur_id=carrier.id,
                id=uuid.uuid4(),
                factuur_id=invoice.id,
                volgnummer=1,
                naam="Rit",
                bedrag=Decimal("85.00"),
                btw_categorie="S",
                btw_procent=Decimal("21"),
                datum=date(2026, 11, 2),
            )
        )
        from portal.hours import cao
        from portal.hours.pay_models import (
            HoursCorrection,
            PayrollExport,
            PayrollExportWeek,
            RuleSet,
        )

        rule_set = RuleSet(
            transporteur_id=carrier.id,
            id=uuid.uuid4(),
            geldig_vanaf=date(2026, 1, 5),
            regels=cao.pay_rules_to_json(cao.cao_preset(date(2026, 1, 5))),
            gemaakt_door="system",
        )
        db.session.add(rule_set)
        activity_state = {"soort": "rijden", "begin": "2026-11-02T07:00:00+00:00", "einde": None}
        correction_id = uuid.uuid4()
        db.session.add(
            HoursCorrection(
                transporteur_id=carrier.id,
                id=correction_id,
                chauffeur_id=driver.id,
                jaar=2026,
                week=45,
                activiteit_id=hours_ids["activity_id"],
                oud=activity_state,
                nieuw=activity_state,
                reden="test",
                door="system",
            )
        )
        payroll = PayrollExport(
            transporteur_id=carrier.id,
            id=uuid.uuid4(),
            van=date(2026, 11, 2),
            tot=date(2026, 11, 2),
            weken=1,
            kolommen={},
            gemaakt_door="system",
        )
        db.session.add(payroll)
        db.session.flush()
        db.session.add(
            PayrollExportWeek(
                transporteur_id=carrier.id,
                id=uuid.uuid4(),
                export_id=payroll.id,
                chauffeur_id=driver.id,
                jaar=2026,
                week=45,
                cijfers={},
            )
        )
        db.session.flush()
        customer_ids.update(
            rule_set_id=rule_set.id, payroll_export_id=payroll.id, correction_id=correction_id
        )
        customer_ids.update(klant_id=customer.id, locatie_id=place.id, invoice_id=invoice.id)
        return stored.id, export_id, vehicle_session_id, proof_link_id, endpoint.id

    customer_ids: dict = {}
    file_id, export_id, vehicle_session_id, proof_link_id, endpoint_id = in_carrier(
        app, carrier.id, extra
    )
    delivery_id = in_carrier(app, carrier.id, lambda: first_delivery(carrier.id))
    customer_ids.update(series_rows(app, carrier, customer_ids["klant_id"]))
    customer_ids.update(voorstel_id=planning_proposal(app, carrier))
    customer_ids.update(kenmerk_code=capability_rows(app, carrier, vehicle, name))
    return {
        "carrier": carrier,
        "driver": driver,
        "task": task,
        "file_id": file_id,
        "export_id": export_id,
        "import_token": csv_upload(app, carrier),
        "questionnaire_id": questionnaire_id,
        "answer_session_id": answer_session_id,
        "vehicle_id": vehicle.id,
        "vehicle_session_id": vehicle_session_id,
        "notification_id": message_ids[0],
        "tacho_file_id": tacho_ids[0],
        "work_day_id": hours_ids["work_day_id"],
        "activity_id": hours_ids["activity_id"],
        "tariff_id": hours_ids["tariff_id"],
        "user_id": user.id,
        "api_key_id": key.id,
        "key": key,
        "proof_link_id": proof_link_id,
        "endpoint_id": endpoint_id,
        "delivery_id": delivery_id,
        **customer_ids,
    }


def first_delivery(carrier_id):
    """The webhook delivery a test event made (with its event, its attempt to come)."""
    from sqlalchemy import select

    from portal.webhooks.models import WebhookAttempt, WebhookDelivery

    delivery_id = db.session.scalar(
        select(WebhookDelivery.id).where(WebhookDelivery.transporteur_id == carrier_id)
    )
    db.session.add(
        WebhookAttempt(
            transporteur_id=carrier_id,
            levering_id=delivery_id,
            poging=1,
            at=datetime.now(UTC),
            resultaat="retry",
            http_status=503,
            duur_ms=12,
        )
    )
    return delivery_id


def csv_upload(app, carrier) -> str:
    """The token of a CSV import preview made by one of the carrier's planners."""
    import io

    from factories import csrf_from

    planner = create_user(app, carrier, "planner")
    browser = app.test_client()
    login(browser, planner)
    token = csrf_from(browser.get("/taken/import").get_data(as_text=True))
    response = browser.post(
        "/taken/import",
        data={
            "csrf_token": token,
            "bestand": (io.BytesIO(b"naam;type\nRit;mest_laden\n"), "taken.csv"),
        },
        content_type="multipart/form-data",
    )
    assert response.status_code == 303, response.status_code
    return response.headers["Location"].rstrip("/").rsplit("/", 1)[-1]


def test_every_table_with_a_carrier_column_is_a_tenant_table():
    assert set(TENANT_TABLES) == EXPECTED_TENANT_TABLES


# --- PostgreSQL row-level security ----------------------------------------------------


@pytest.fixture
def pg(app):
    """The app's database URL for psycopg (the tests that use it are postgres_only)."""
    url = app.config["SQLALCHEMY_DATABASE_URI"].replace("postgresql+psycopg://", "postgresql://")
    return url


def scoped(conn, carrier_id) -> None:
    conn.execute(
        "SELECT set_config('app.transporteur_id', %s, true)",
        (str(carrier_id) if carrier_id else "",),
    )


@pytest.mark.postgres_only  # row-level security exists on PostgreSQL only
def test_the_app_role_can_not_bypass_row_level_security(pg):
    with psycopg.connect(pg) as conn:
        row = conn.execute(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
        ).fetchone()
        assert row == (False, False)
        owned = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' "
            "AND tableowner = current_user"
        ).fetchone()[0]
        assert owned == 0


@pytest.mark.postgres_only  # row-level security exists on PostgreSQL only
def test_row_level_security_is_enabled_and_forced_on_every_tenant_table(pg):
    with psycopg.connect(pg) as conn:
        rows = conn.execute(
            "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' "
            "AND c.relkind = 'r' AND c.relname IN (SELECT table_name FROM "
            "information_schema.columns WHERE column_name = 'transporteur_id' "
            "AND table_schema = 'public')"
        ).fetchall()
    assert {name for name, *_ in rows} == EXPECTED_TENANT_TABLES
    assert all(enabled and forced for _, enabled, forced in rows), rows


@pytest.mark.postgres_only  # row-level security exists on PostgreSQL only
def test_an_unfiltered_select_sees_one_carrier_only(app, client, pg):
    a = populate(app, client, "A")["carrier"]
    b = populate(app, client, "B")["carrier"]
    with psycopg.connect(pg) as conn:
        scoped(conn, a.id)
        for table in sorted(EXPECTED_TENANT_TABLES):
            seen = {row[0] for row in conn.execute(f"SELECT transporteur_id FROM {table}")}
            assert seen == {a.id}, table
        carriers = {row[0] for row in conn.execute("SELECT id FROM transporteurs")}
        assert carriers == {a.id}
        assert b.id not in carriers


@pytest.mark.postgres_only  # row-level security exists on PostgreSQL only
def test_without_a_carrier_nothing_is_visible(app, client, pg):
    populate(app, client, "A")
    with psycopg.connect(pg) as conn:
        for table in sorted(EXPECTED_TENANT_TABLES | {"transporteurs"}):
            count = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            assert count == 0, table
        # After a commit the setting reads back as '' rather than NULL: still nothing.
        scoped(conn, uuid.uuid4())
        conn.commit()
        assert conn.execute("SELECT count(*) FROM taken").fetchone()[0] == 0


@pytest.mark.postgres_only  # row-level security exists on PostgreSQL only
def test_inserting_or_moving_a_row_into_another_carrier_fails(app, client, pg):
    a = populate(app, client, "A")
    b = populate(app, client, "B")["carrier"]
    admin = app.config["DATABASE_ADMIN_URL"].replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin) as owner:
        samples = {}
        for table in sorted(EXPECTED_TENANT_TABLES):
            cur = owner.execute(
                f"SELECT * FROM {table} WHERE transporteur_id = %s LIMIT 1", (a["carrier"].id,)
            )
            samples[table] = ([d.name for d in cur.description], cur.fetchone())
    with psycopg.connect(pg, autocommit=True) as conn:
        for table, (columns, row) in samples.items():
            values = dict(zip(columns, row, strict=True))
            values["transporteur_id"] = b.id
            values["id"] = uuid.uuid4() if table != "login_attempts" else values["id"]
            for name, value in values.items():  # json columns come back as lists and dicts
                if isinstance(value, list | dict):
                    values[name] = Json(value)
            for unique in ("key_hash", "token_hash", "code_hash", "user_token", "email", "key"):
                if unique in values and isinstance(values[unique], str):
                    values[unique] = (uuid.uuid4().hex * 2)[: len(values[unique])]
            names = ", ".join(values)
            marks = ", ".join(["%s"] * len(values))
            with conn.transaction():
                scoped(conn, a["carrier"].id)
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(
                        f"INSERT INTO {table} ({names}) VALUES ({marks})", list(values.values())
                    )
        with conn.transaction():
            scoped(conn, a["carrier"].id)
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("UPDATE voertuigen SET transporteur_id = %s", (b.id,))


CREDENTIAL_TABLES = ("gebruikers", "chauffeurs", "api_keys", "refresh_tokens", "activation_codes")


@pytest.mark.postgres_only  # row-level security exists on PostgreSQL only
def test_the_app_role_reads_no_credentials_without_a_carrier_whatever_it_sets(app, client, pg):
    """The settings that once opened the credential tables for sign-in are no key: the
    app role's own SQL sees no carrier's users, drivers, keys or tokens unscoped."""
    populate(app, client, "A")
    populate(app, client, "B")
    with psycopg.connect(pg) as conn:
        conn.execute("SELECT set_config('app.auth_lookup', 'on', true)")
        conn.execute("SELECT set_config('app.outbox_dispatch', 'on', true)")
        for table in (*CREDENTIAL_TABLES, "berichten"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table


@pytest.mark.postgres_only  # row-level security exists on PostgreSQL only
def test_the_sign_in_lookups_answer_an_exact_match_with_its_carrier_only(app, client, pg):
    from portal.accounts.service import sha256

    a = populate(app, client, "A")
    b = populate(app, client, "B")
    with psycopg.connect(pg) as conn:
        found = conn.execute(
            "SELECT * FROM rijplan_chauffeurs_met_email(%s)", (b["driver"].email,)
        ).fetchall()
        assert found == [(b["carrier"].id, b["driver"].id)]
        key = conn.execute("SELECT * FROM rijplan_api_key(%s)", (sha256(a["key"].key),))
        assert key.fetchall() == [(a["carrier"].id, a["api_key_id"])]
        assert conn.execute("SELECT * FROM rijplan_api_key(%s)", ("%",)).fetchall() == []
        assert (
            conn.execute("SELECT * FROM rijplan_chauffeurs_met_email(%s)", ("%",)).fetchall() == []
        )
        # Nothing else of the row comes with it (no hash, no name), and it changes nothing.
        columns = [
            c.name
            for c in conn.execute("SELECT * FROM rijplan_gebruikers_met_email('')").description
        ]
        assert columns == ["transporteur_id", "id"]
        assert conn.execute("UPDATE chauffeurs SET naam = 'x'").rowcount == 0


@pytest.mark.postgres_only  # row-level security exists on PostgreSQL only
def test_an_app_query_that_forgets_its_filter_still_sees_one_carrier(app, client, pg):
    from portal.tasks.models import Task
    from portal.tenancy import carrier_scope

    a = populate(app, client, "A")
    populate(app, client, "B")
    carrier_a = a["carrier"].id  # its tasks only, none of B's
    with app.app_context(), carrier_scope(db.session, a["carrier"].id):
        assert {t.transporteur_id for t in db.session.scalars(select(Task))} == {carrier_a}
        db.session.commit()
        # A new transaction after the commit gets the scope again from the after_begin hook.
        assert {t.transporteur_id for t in db.session.scalars(select(Task))} == {carrier_a}
        assert db.session.scalar(text("SELECT current_setting('app.transporteur_id')")) == str(
            a["carrier"].id
        )


# --- every route with an id answers 404 for another carrier's object -----------------


def series_rows(app, carrier, customer_id) -> dict:
    """A template, a series made from it and its occurrences (taak_sjablonen, taak_reeksen,
    reeks_voorkomens)."""
    from datetime import date, time

    from portal.audit.service import SYSTEM
    from portal.series import planning
    from portal.series import service as series

    def make():
        template = series.create_template(
            carrier_id=carrier.id,
            data={"naam": "Mest", "type": "mest_laden", "klant_id": customer_id},
            actor=SYSTEM,
        )
        made = series.create_series(
            carrier_id=carrier.id,
            data={"sjabloon_id": template.id, "naam": "Mest ma", "weekdagen": (0,),
                  "startdatum": date(2026, 11, 2), "tijd": time(7, 0)},
            actor=SYSTEM,
        )  # fmt: skip
        planning.plan(carrier_id=carrier.id, today=date(2026, 11, 2), weeks=1)
        return {"sjabloon_id": template.id, "reeks_id": made.id}

    return in_carrier(app, carrier.id, make)


def planning_proposal(app, carrier):
    """A solved planning proposal of the carrier (portal.planner), with a line for an
    unassigned task in its week."""
    from portal.audit.service import SYSTEM
    from portal.planner import service as planner

    van = datetime(2026, 12, 7, tzinfo=UTC)
    create_task(app, carrier, None, naam="Nog in te plannen", gepland_op=van + timedelta(hours=8))

    def make():
        proposal = planner.start_proposal(
            carrier_id=carrier.id, van=van, tot=van + timedelta(days=7), actor=SYSTEM
        )
        planner.solve_proposal(carrier_id=carrier.id, proposal_id=proposal.id, now=van)
        return proposal.id

    return in_carrier(app, carrier.id, make)


def capability_rows(app, carrier, vehicle, name: str) -> str:
    """A capability of the carrier's own (its code, named after the carrier), on its vehicle,
    and what an activity type needs: a row in each capability table."""
    from portal.audit.service import SYSTEM
    from portal.fleet import catalogue, service

    def make():
        item = catalogue.add_capability(carrier_id=carrier.id, naam=f"Klem {name}", actor=SYSTEM)
        service.update_vehicle(
            carrier_id=carrier.id,
            vehicle_id=vehicle.id,
            data={"kenmerken": {item.code: {}, "kipper": {}}},
            actor=SYSTEM,
        )
        catalogue.set_needs(
            carrier_id=carrier.id, activity_type="mest_laden", kenmerken=[item.code], actor=SYSTEM
        )
        return item.code

    return in_carrier(app, carrier.id, make)


def route_values(refs: dict) -> dict[str, str]:
    """A value for every argument of every route, from one carrier's populate(): its ids,
    and any valid value for the arguments that are no ids."""
    return {
        "user_token": refs["driver"].user_token,
        "id": str(refs["task"].id),
        "task_id": str(refs["task"].id),
        "driver_id": str(refs["driver"].id),
        "transporteur_id": str(refs["carrier"].id),
        "file_id": str(refs["file_id"]),
        "carrier_id": str(refs["carrier"].id),
        "export_id": str(refs["export_id"]),
        "fmt": "csv",  # not an id: any valid value
        "token": refs["import_token"],
        "questionnaire_id": refs["questionnaire_id"],
        "revisie": "1",  # of the carrier's questionnaire
        "answer_session_id": str(refs["answer_session_id"]),
        "vehicle_id": str(refs["vehicle_id"]),
        "session_id": str(refs["vehicle_session_id"]),
        "notification_id": str(refs["notification_id"]),
        "tacho_file_id": str(refs["tacho_file_id"]),
        "werkdag_id": str(refs["work_day_id"]),
        "activiteit_id": str(refs["activity_id"]),
        "week": "2026-W47",  # not an id: any valid week
        "datum": "2026-11-02",  # not an id: any valid day
        "user_id": str(refs["user_id"]),
        "key_id": str(refs["api_key_id"]),
        "link_id": str(refs["proof_link_id"]),
        "name": "bewijs.json",  # not an id: a part every bundle has
        "endpoint_id": str(refs["endpoint_id"]),
        "tariff_id": str(refs["tariff_id"]),
        "tarief_id": str(refs["tariff_id"]),
        "delivery_id": str(refs["delivery_id"]),
        "klant_id": str(refs["klant_id"]),
        "locatie_id": str(refs["locatie_id"]),
        "invoice_id": str(refs["invoice_id"]),
        "factuur_id": str(refs["invoice_id"]),
        "rule_set_id": str(refs["rule_set_id"]),
        "loon_export_id": str(refs["payroll_export_id"]),
        "correctie_id": str(refs["correction_id"]),
        "koppeling_id": str(refs["koppeling_id"]),
        "code": refs["kenmerk_code"],  # a capability of this carrier's own
        "sjabloon_id": str(refs["sjabloon_id"]),
        "reeks_id": str(refs["reeks_id"]),
        "voorstel_id": str(refs["voorstel_id"]),
    }


SWEEP_EXEMPT = {
    "static": "no ids",
    # Signed links: any request without a valid signature is 403 before anything is looked
    # up, so it tells nothing about what exists (tests/files cover it).
    "files.download": "signature first",
    # A share link's token is the permission and names no id: an unknown token is 404 and a
    # revoked or expired one 410 before anything is read (tests/proof cover them).
    "proof.shared": "token first",
    "proof.shared_pdf": "token first",
    "proof.shared_part": "token first",
    "proof.shared_manifest": "token first",
    # An activity type is no id: PUT sets what that type needs at the caller's own carrier.
    "api.set_needs": "names no object",
}


def test_every_route_with_an_id_is_404_for_another_carriers_object(app, client):
    own = populate(app, client, "Eigen")
    foreign = populate(app, client, "Vreemd")
    key = create_api_key(app, own["carrier"])
    admin = create_user(app, own["carrier"], "admin")
    foreign_values = route_values(foreign)
    login(client, admin)
    checked = 0
    for rule in app.url_map.iter_rules():
        if not rule.arguments or rule.endpoint in SWEEP_EXEMPT:
            continue
        unknown = rule.arguments - foreign_values.keys()
        assert not unknown, f"{rule}: add a foreign value for {unknown} to this sweep"
        path = rule.build(
            {name: foreign_values[name] for name in rule.arguments}, append_unknown=False
        )[1]
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            headers = bearer(key.key) if rule.rule.startswith("/api/") else {}
            response = client.open(path, method=method, headers=headers, json={})
            assert response.status_code == 404, f"{method} {path}: {response.status_code}"
            checked += 1
    assert checked >= 2
