"""Migrations: an empty database upgrades to the models with no drift, on both backends."""

from __future__ import annotations

import contextlib
import uuid

import psycopg
import pytest
from conftest import PG_ADMIN, PG_AVAILABLE, _url, base_config
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect

from portal import create_app
from portal.extensions import db


def drift(app) -> list:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    with db.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return compare_metadata(context, db.metadata)


def check_database(url: str, tmp_path) -> None:
    app = create_app({**base_config(tmp_path), "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        upgrade()
        assert drift(app) == []
        tables = set(inspect(db.engine).get_table_names())
        assert {"taken", "chauffeurs", "activity_questionnaires", "answer_sessions"} <= tables
        downgrade(revision="base")
        assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}
        upgrade()
        db.session.remove()
        db.engine.dispose()


def test_sqlite_upgrades_from_empty_without_drift(tmp_path):
    check_database(f"sqlite:///{tmp_path / 'empty.sqlite'}", tmp_path)


@pytest.mark.skipif(not PG_AVAILABLE, reason="PostgreSQL does not answer")
def test_postgresql_upgrades_from_empty_without_drift(tmp_path):
    name = f"rijplan_migrate_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        check_database(_url(name), tmp_path)
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


OLD_EVERY_SCOPE = (
    "tasks:read tasks:write vehicles:read vehicles:write messages:read messages:write "
    "tacho:read tacho:write hours:read hours:write"
)
# Every scope there was when scopes were enforced (c0d1c0de0100). Scopes added later
# (webhooks) are not granted to keys made before them: an admin ticks them.
EVERY_SCOPE_WHEN_ENFORCED = (
    "tasks:read tasks:write questionnaires:read drivers:read vehicles:read vehicles:write "
    "messages:read messages:write tacho:read tacho:write hours:read hours:write"
)


def _keys_after_upgrade(url: str, tmp_path) -> dict[str, str]:
    """Upgrade to the revision before scopes were enforced, store a key with every scope of
    then and a narrowed one, upgrade to head: the keys' scopes by name."""
    from sqlalchemy import text

    from portal.accounts.models import DEFAULT_SCOPES

    assert DEFAULT_SCOPES != OLD_EVERY_SCOPE
    app = create_app({**base_config(tmp_path), "SQLALCHEMY_DATABASE_URI": url})
    carrier = str(uuid.uuid4())
    scope = "SELECT set_config('app.transporteur_id', :c, true)"
    with app.app_context():
        upgrade(revision="b6d1c0de0340")
        postgres = db.engine.dialect.name == "postgresql"
        with db.engine.begin() as conn:
            if postgres:
                conn.execute(text(scope), {"c": carrier})
            conn.execute(
                text(
                    "INSERT INTO transporteurs (id, naam, tijdzone, created_at) "
                    "VALUES (:c, 'T', 'Europe/Amsterdam', CURRENT_TIMESTAMP)"
                ),
                {"c": carrier},
            )
            for naam, scopes in (("alles", OLD_EVERY_SCOPE), ("uren", "hours:read")):
                conn.execute(
                    text(
                        "INSERT INTO api_keys (transporteur_id, id, naam, prefix, key_hash, "
                        "scopes, created_at) VALUES (:c, :id, :naam, 'rpk_x', :h, :s, "
                        "CURRENT_TIMESTAMP)"
                    ),
                    {
                        "c": carrier,
                        "id": str(uuid.uuid4()),
                        "naam": naam,
                        "h": uuid.uuid4().hex,
                        "s": scopes,
                    },
                )
        upgrade()
        with db.engine.begin() as conn:
            if postgres:
                conn.execute(text(scope), {"c": carrier})
            rows = conn.execute(text("SELECT naam, scopes FROM api_keys")).all()
        db.engine.dispose()
    return dict(rows)


def test_a_key_with_every_scope_keeps_every_scope_when_scopes_are_enforced(tmp_path):
    keys = _keys_after_upgrade(f"sqlite:///{tmp_path / 'old.sqlite'}", tmp_path)
    assert keys == {"alles": EVERY_SCOPE_WHEN_ENFORCED, "uren": "hours:read"}


@contextlib.contextmanager
def owner_database():
    """The URL of a new empty database owned by a role that is no superuser, as in
    production, so FORCE'd row-level security holds the migrations too; dropped after."""
    name, owner = f"rijplan_migrate_{uuid.uuid4().hex[:8]}", "rijplan_owner_test"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (owner,)).fetchone():
            with contextlib.suppress(psycopg.errors.DuplicateObject):
                conn.execute(f"CREATE ROLE {owner} LOGIN NOSUPERUSER NOBYPASSRLS")
        conn.execute(f'CREATE DATABASE "{name}" OWNER {owner}')
    try:
        yield _url(name, owner)
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.skipif(not PG_AVAILABLE, reason="PostgreSQL does not answer")
def test_the_scope_upgrade_runs_as_an_owner_held_by_row_level_security(tmp_path):
    """In production the owner is no superuser: FORCE'd row-level security holds it too."""
    with owner_database() as url:
        keys = _keys_after_upgrade(url, tmp_path)
    assert keys == {"alles": EVERY_SCOPE_WHEN_ENFORCED, "uren": "hours:read"}


def _invoices_after_upgrade(url: str, tmp_path) -> dict:
    """At the revision before issued invoices kept their document (c0d1c0de0290), store two
    invoices as the app made them then: one of a carrier with its invoicing details, one
    of a carrier without. Upgrade to head: what the two invoices and the customer hold."""
    from sqlalchemy import Uuid, bindparam, text

    app = create_app({**base_config(tmp_path), "SQLALCHEMY_DATABASE_URI": url})
    ready, bare = uuid.uuid4(), uuid.uuid4()
    ids = {}
    scope = "SELECT set_config('app.transporteur_id', :c, true)"
    with app.app_context():
        upgrade(revision="c0d1c0de0290")
        postgres = db.engine.dialect.name == "postgresql"
        for carrier, details in ((ready, True), (bare, False)):
            with db.engine.begin() as conn:
                if postgres:
                    conn.execute(text(scope), {"c": str(carrier)})

                def insert(table: str, **values):
                    # ids and amounts bound as the app binds them (SQLite: 32 hex digits)
                    names = ", ".join(values)
                    marks = ", ".join(f":{n}" for n in values)
                    typed = [
                        bindparam(n, type_=Uuid() if isinstance(v, uuid.UUID) else None)
                        for n, v in values.items()
                    ]
                    statement = text(f"INSERT INTO {table} ({names}) VALUES ({marks})")
                    conn.execute(statement.bindparams(*typed), values)

                now = "2026-11-20 10:00:00+00:00"
                invoicing = {
                    "btw_nummer": "NL001234567B01", "kvk_nummer": "12345678",
                    "iban": "NL91ABNA0417164300", "thuisbasis_straat": "Industrieweg 4",
                    "thuisbasis_postcode": "7461 AB", "thuisbasis_plaats": "Rijssen",
                    "thuisbasis_land": "NL",
                } if details else {}  # fmt: skip
                insert("transporteurs", id=carrier, naam="T", tijdzone="Europe/Amsterdam",
                       created_at=now, **invoicing)  # fmt: skip
                klant, task, batch, line, invoice = (uuid.uuid4() for _ in range(5))
                insert("klanten", transporteur_id=carrier, id=klant, naam="Ter Horst",
                       debiteurnummer="10023", btw_nummer="NL123456789B01",
                       created_at=now)  # fmt: skip
                insert("klant_locaties", transporteur_id=carrier, id=uuid.uuid4(),
                       klant_id=klant, naam="Erf", adres="Hengelosestraat 12",
                       postcode="7468 AB", stad="Enter", land="NL", created_at=now)  # fmt: skip
                insert("taken", transporteur_id=carrier, id=task, type="mest_laden",
                       status="afgerond", naam="Mest Ter Horst", require_photos=False,
                       require_signature=False, require_document_scan=False,
                       require_location=False, agr_verplicht=False, required_desinfectie=False,
                       kooiaap=False, created_at=now, updated_at=now, versie=1,
                       gepland_op=now, afgerond_op=now, klant_id=klant)  # fmt: skip
                insert("facturatie_exports", transporteur_id=carrier, id=batch,
                       van="2026-11-01", tot="2026-11-30", regels=1, gemaakt_door="planner",
                       created_at=now)  # fmt: skip
                insert("facturatieregels", transporteur_id=carrier, id=line, taak_id=task,
                       afgerond_op=now, hoeveelheid=30, eenheid="ton", export_id=batch,
                       bedrag="130.50", btw_procent="21.00", btw_bedrag="27.41",
                       btw_categorie="S", klant_id=klant, created_at=now)  # fmt: skip
                insert("facturen", transporteur_id=carrier, id=invoice, export_id=batch,
                       klant_id=klant, nummer="2026-00001", datum="2026-11-21",
                       vervaldatum="2026-12-21", regels=1, bedrag="130.50", btw_bedrag="27.41",
                       created_at=now)  # fmt: skip
                ids[carrier] = (invoice, klant)
        upgrade()
        found = {}
        for carrier in (ready, bare):
            invoice, klant = ids[carrier]
            one = {"i": invoice, "k": klant}
            typed = (bindparam("i", type_=Uuid()), bindparam("k", type_=Uuid()))
            with db.engine.begin() as conn:
                if postgres:
                    conn.execute(text(scope), {"c": str(carrier)})
                row = conn.execute(
                    text("SELECT nummer, document, document_sha256, uitgegeven_op, pdf "
                         "FROM facturen WHERE id = :i AND :k = :k").bindparams(*typed), one
                ).one()  # fmt: skip
                lines = conn.execute(
                    text("SELECT count(*) FROM factuur_regels WHERE factuur_id = :i AND :k = :k")
                    .bindparams(*typed), one
                ).scalar()  # fmt: skip
                address = conn.execute(
                    text("SELECT factuur_adres, factuur_plaats FROM klanten WHERE id = :k "
                         "AND :i = :i").bindparams(*typed), one
                ).one()  # fmt: skip
            found["ready" if carrier == ready else "bare"] = (row, lines, tuple(address))
        db.engine.dispose()
    return found


def _check_carried_over(found: dict) -> None:
    import hashlib

    from billing import en16931

    row, lines, address = found["ready"]
    nummer, document, sha, issued, pdf = row
    assert nummer == "2026-00001" and issued is not None and lines == 1
    assert hashlib.sha256(document).hexdigest() == sha and bytes(pdf).startswith(b"%PDF")
    en16931.assert_valid(bytes(document))
    assert address == ("Hengelosestraat 12", "Enter")  # from the first place
    row, lines, _address = found["bare"]
    assert row[0] == "2026-00001" and row[1] is None and row[3] is None and lines == 0


def test_existing_invoices_are_issued_once_as_they_stand(tmp_path):
    _check_carried_over(_invoices_after_upgrade(f"sqlite:///{tmp_path / 'old.sqlite'}", tmp_path))


@pytest.mark.skipif(not PG_AVAILABLE, reason="PostgreSQL does not answer")
def test_existing_invoices_are_issued_by_an_owner_held_by_row_level_security(tmp_path):
    with owner_database() as url:
        _check_carried_over(_invoices_after_upgrade(url, tmp_path))
