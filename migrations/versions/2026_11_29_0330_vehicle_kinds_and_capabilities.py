"""Vehicle kinds, fleet numbers and capabilities

Revision ID: c0d1c0de0330
Revises: c0d1c0de0320
Create Date: 2026-11-29 01:00:00

Vehicle kinds as the planner's combinations need them: `trekker` becomes `opleggertrekker`
(a tractor unit), `aanhanger` becomes `aanhangwagen` (a drawbar trailer), and there is an
agricultural trailer (`landbouwaanhanger`), the only kind that may lack a plate of its own: it
is then known by its fleet number (`vlootnummer`, unique within the carrier when set). The
database holds that every vehicle has a plate or a fleet number. A vehicle's maximum speed by
design (`max_snelheid_kmh`) says whether EU 561/2006 applies.

Capabilities: the carrier's changes to its catalogue (`kenmerken`; the defaults live in the
code), each vehicle's capabilities with their parameters (`voertuig_kenmerken`), and what an
activity type needs (`activiteit_kenmerken`). The `kooiaap` flag of a vehicle becomes its
`kooiaap` capability. The downgrade turns the kinds, the flag and missing plates back
(a vehicle without a plate gets its fleet number as plate).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0330"
down_revision = "c0d1c0de0320"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
TABLES = ("kenmerken", "voertuig_kenmerken", "activiteit_kenmerken")
OLD = ("vrachtwagen", "trekker", "oplegger", "aanhanger", "landbouwtrekker", "bestelbus", "overig")
NEW = (
    "vrachtwagen",
    "opleggertrekker",
    "landbouwtrekker",
    "bestelbus",
    "aanhangwagen",
    "oplegger",
    "landbouwaanhanger",
    "overig",
)
RENAMED = {"trekker": "opleggertrekker", "aanhanger": "aanhangwagen"}


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _stamp() -> list:
    return [
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    ]


def _carrier_columns(table: str) -> list:
    return [
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f(f"fk_{table}_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f(f"pk_{table}")),
    ]


def _create_tables() -> None:
    op.create_table(
        "kenmerken",
        *_carrier_columns("kenmerken"),
        sa.Column("code", sa.String(length=40), nullable=False),
        sa.Column("naam", sa.String(length=100), nullable=False),
        sa.Column("actief", sa.Boolean(), nullable=False),
        *_stamp(),
        sa.UniqueConstraint(
            "transporteur_id", "code", name=op.f("uq_kenmerken_transporteur_id_code")
        ),
    )
    op.create_table(
        "voertuig_kenmerken",
        *_carrier_columns("voertuig_kenmerken"),
        sa.Column("vehicle_id", sa.Uuid(), nullable=False),
        sa.Column("code", sa.String(length=40), nullable=False),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "vehicle_id"],
            ["voertuigen.transporteur_id", "voertuigen.id"],
            name=op.f("fk_voertuig_kenmerken_voertuigen"),
        ),
        sa.UniqueConstraint(
            "transporteur_id",
            "vehicle_id",
            "code",
            name=op.f("uq_voertuig_kenmerken_transporteur_id_vehicle_id_code"),
        ),
    )
    op.create_table(
        "activiteit_kenmerken",
        *_carrier_columns("activiteit_kenmerken"),
        sa.Column("activity_type", sa.String(length=64), nullable=False),
        sa.Column("kenmerken", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint(
            "transporteur_id",
            "activity_type",
            name=op.f("uq_activiteit_kenmerken_transporteur_id_activity_type"),
        ),
    )


def _kooiaap_to_capability() -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.text("SELECT transporteur_id, id FROM voertuigen WHERE kooiaap = :yes"), {"yes": True}
    ).all()
    postgres = bind.dialect.name == "postgresql"
    insert = sa.text(
        "INSERT INTO voertuig_kenmerken (transporteur_id, id, vehicle_id, code, parameters, "
        "created_at) VALUES (:carrier, :id, :vehicle, 'kooiaap', '{}', :now)"
    )
    now = datetime.now(UTC)
    for carrier_id, vehicle_id in rows:
        # The ids as they were read; a new one as the app stores it (SQLite: 32 hex digits).
        new_id = uuid.uuid4()
        bind.execute(
            insert,
            {
                "carrier": carrier_id,
                "id": new_id if postgres else new_id.hex,
                "vehicle": vehicle_id,
                "now": now,
            },
        )


def _owner_sees_all(see: bool) -> None:
    """Data steps run as the tables' owner; FORCE is lifted for the moment so the owner sees
    every carrier's vehicles (as the vehicle sessions' migration did)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"ALTER TABLE voertuigen {'NO ' if see else ''}FORCE ROW LEVEL SECURITY")


def _rename_kinds(mapping: dict[str, str]) -> None:
    for old, new in mapping.items():
        op.execute(
            sa.text("UPDATE voertuigen SET soort = :new WHERE soort = :old").bindparams(
                new=new, old=old
            )
        )


def upgrade():
    _owner_sees_all(True)
    with op.batch_alter_table("voertuigen", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_voertuigen_soort"), type_="check")
    _rename_kinds(RENAMED)
    with op.batch_alter_table("voertuigen", schema=None) as batch_op:
        batch_op.add_column(sa.Column("vlootnummer", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("max_snelheid_kmh", sa.Integer(), nullable=True))
        batch_op.alter_column("kenteken", existing_type=sa.String(length=20), nullable=True)
        batch_op.create_check_constraint(op.f("ck_voertuigen_soort"), _in("soort", NEW))
        batch_op.create_unique_constraint(
            op.f("uq_voertuigen_transporteur_id_vlootnummer"), ["transporteur_id", "vlootnummer"]
        )
        batch_op.create_check_constraint(
            op.f("ck_voertuigen_kenteken_of_vlootnummer"),
            "kenteken IS NOT NULL OR vlootnummer IS NOT NULL",
        )
        batch_op.create_check_constraint(
            op.f("ck_voertuigen_zonder_kenteken"),
            "kenteken IS NOT NULL OR soort = 'landbouwaanhanger'",
        )
        batch_op.create_check_constraint(
            op.f("ck_voertuigen_max_snelheid"),
            "max_snelheid_kmh IS NULL OR max_snelheid_kmh BETWEEN 1 AND 200",
        )
    _create_tables()
    _kooiaap_to_capability()
    with op.batch_alter_table("voertuigen", schema=None) as batch_op:
        batch_op.drop_column("kooiaap")
    _owner_sees_all(False)

    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
            op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
            op.execute(
                f"CREATE POLICY carrier_isolation ON {table} "
                f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
            )


def downgrade():
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"DROP POLICY IF EXISTS carrier_isolation ON {table}")
            op.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
    _owner_sees_all(True)
    with op.batch_alter_table("voertuigen", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("kooiaap", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.execute(
        "UPDATE voertuigen SET kooiaap = "
        + ("true" if bind.dialect.name == "postgresql" else "1")
        + " WHERE EXISTS (SELECT 1 FROM voertuig_kenmerken k WHERE k.transporteur_id = "
        "voertuigen.transporteur_id AND k.vehicle_id = voertuigen.id AND k.code = 'kooiaap')"
    )
    op.drop_table("activiteit_kenmerken")
    op.drop_table("voertuig_kenmerken")
    op.drop_table("kenmerken")
    op.execute("UPDATE voertuigen SET kenteken = vlootnummer WHERE kenteken IS NULL")
    with op.batch_alter_table("voertuigen", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_voertuigen_max_snelheid"), type_="check")
        batch_op.drop_constraint(op.f("ck_voertuigen_zonder_kenteken"), type_="check")
        batch_op.drop_constraint(op.f("ck_voertuigen_kenteken_of_vlootnummer"), type_="check")
        batch_op.drop_constraint(op.f("uq_voertuigen_transporteur_id_vlootnummer"), type_="unique")
        batch_op.drop_constraint(op.f("ck_voertuigen_soort"), type_="check")
        batch_op.alter_column("kenteken", existing_type=sa.String(length=20), nullable=False)
        batch_op.drop_column("max_snelheid_kmh")
        batch_op.drop_column("vlootnummer")
    _rename_kinds({v: k for k, v in RENAMED.items()} | {"landbouwaanhanger": "aanhanger"})
    with op.batch_alter_table("voertuigen", schema=None) as batch_op:
        batch_op.create_check_constraint(op.f("ck_voertuigen_soort"), _in("soort", OLD))
    _owner_sees_all(False)
