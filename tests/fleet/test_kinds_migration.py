"""Migration c0d1c0de0330: existing tractor units and trailers take their new kinds, a
vehicle's kooiaap flag becomes its kooiaap capability, and the downgrade turns both back;
also as an owner held by row-level security, as in production."""

from __future__ import annotations

import uuid

import pytest
from conftest import PG_AVAILABLE, base_config
from flask_migrate import downgrade, upgrade
from sqlalchemy import text
from test_migrations import owner_database

from portal import create_app
from portal.extensions import db

SCOPE = "SELECT set_config('app.transporteur_id', :c, true)"


def _vehicles(conn) -> dict:
    return dict(conn.execute(text("SELECT kenteken, soort FROM voertuigen")).all())


def _run(url: str, tmp_path) -> None:
    app = create_app({**base_config(tmp_path), "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        upgrade(revision="c0d1c0de0320")
        postgres = db.engine.dialect.name == "postgresql"
        # Ids as the app stores them (SQLite: 32 hex digits).
        carrier = str(uuid.uuid4()) if postgres else uuid.uuid4().hex
        with db.engine.begin() as conn:
            if postgres:
                conn.execute(text(SCOPE), {"c": carrier})
            conn.execute(
                text(
                    "INSERT INTO transporteurs (id, naam, tijdzone, created_at) "
                    "VALUES (:c, 'T', 'Europe/Amsterdam', CURRENT_TIMESTAMP)"
                ),
                {"c": carrier},
            )
            for plate, soort, kooiaap in (
                ("BX-12-AB", "trekker", False),
                ("BX-34-CD", "vrachtwagen", True),
                ("OT-48-KX", "aanhanger", False),
            ):
                conn.execute(
                    text(
                        "INSERT INTO voertuigen (transporteur_id, id, kenteken, soort, kooiaap, "
                        "actief, created_at) VALUES (:c, :id, :k, :s, :a, :t, CURRENT_TIMESTAMP)"
                    ),
                    {
                        "c": carrier,
                        "id": str(uuid.uuid4()) if postgres else uuid.uuid4().hex,
                        "k": plate,
                        "s": soort,
                        "a": kooiaap,
                        "t": True,
                    },
                )
        upgrade(revision="c0d1c0de0330")
        with db.engine.begin() as conn:
            if postgres:
                conn.execute(text(SCOPE), {"c": carrier})
            assert _vehicles(conn) == {
                "BX-12-AB": "opleggertrekker",
                "BX-34-CD": "vrachtwagen",
                "OT-48-KX": "aanhangwagen",
            }
            caps = conn.execute(
                text(
                    "SELECT v.kenteken, k.code FROM voertuig_kenmerken k JOIN voertuigen v "
                    "ON v.transporteur_id = k.transporteur_id AND v.id = k.vehicle_id"
                )
            ).all()
            assert [tuple(row) for row in caps] == [("BX-34-CD", "kooiaap")]
        downgrade(revision="c0d1c0de0320")
        with db.engine.begin() as conn:
            if postgres:
                conn.execute(text(SCOPE), {"c": carrier})
            assert _vehicles(conn)["BX-12-AB"] == "trekker"
            kooiaap = (
                conn.execute(
                    text("SELECT kenteken FROM voertuigen WHERE kooiaap = :y"), {"y": True}
                )
                .scalars()
                .all()
            )
            assert kooiaap == ["BX-34-CD"]
        db.session.remove()
        db.engine.dispose()


def test_kinds_and_kooiaap_carried_over(tmp_path):
    _run(f"sqlite:///{tmp_path / 'old.sqlite'}", tmp_path)


@pytest.mark.skipif(not PG_AVAILABLE, reason="PostgreSQL does not answer")
def test_kinds_and_kooiaap_carried_over_by_an_owner_held_by_row_level_security(tmp_path):
    with owner_database() as url:
        _run(url, tmp_path)
