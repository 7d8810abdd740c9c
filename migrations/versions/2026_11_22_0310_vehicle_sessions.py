"""Vehicles get a kind, capacity, kooiaap, remarks, a QR sticker version and an ETag version;
plates are stored as painted (with the sidecode's dashes); vehicle sessions (voertuig_sessies,
RLS) with at most one active session per vehicle and per driver.

Revision ID: b5d1c0de0310
Revises: b5d1c0de0300
Create Date: 2026-11-22 03:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b5d1c0de0310'
down_revision = 'b5d1c0de0300'
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
SOORTEN = ("vrachtwagen", "trekker", "oplegger", "aanhanger", "landbouwtrekker", "bestelbus", "overig")
EENHEDEN = ("ton", "m3", "liter", "pallets", "stuks")
# The Dutch sidecodes (L letter, D digit), as painted; a copy, so this migration never changes.
SIDECODES = (
    "LL-DD-DD", "DD-DD-LL", "DD-LL-DD", "LL-DD-LL", "LL-LL-DD", "DD-LL-LL", "DD-LLL-D",
    "D-LLL-DD", "LL-DDD-L", "L-DDD-LL", "LLL-DD-L", "L-DD-LLL", "D-LL-DDD", "DDD-LL-D",
)


def _in(column, values):
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _painted(plate):
    """The plate with its sidecode's dashes, or None when it fits no sidecode."""
    compact = "".join(c for c in plate if c.isalnum()).upper()
    shape = "".join("D" if c.isdigit() else "L" for c in compact)
    for pattern in SIDECODES:
        if pattern.replace("-", "") == shape:
            parts, i = [], 0
            for part in pattern.split("-"):
                parts.append(compact[i : i + len(part)])
                i += len(part)
            return "-".join(parts)
    return None


def _repaint_plates(to_painted):
    """Rewrite stored plates: painted (with dashes) or back to compact. Runs as the tables'
    owner; FORCE is lifted for the moment so the owner sees every carrier's rows."""
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    if postgres:
        op.execute("ALTER TABLE voertuigen NO FORCE ROW LEVEL SECURITY")
    rows = bind.execute(sa.text("SELECT transporteur_id, id, kenteken FROM voertuigen")).fetchall()
    for carrier, vehicle, plate in rows:
        new = _painted(plate) if to_painted else plate.replace("-", "")
        if new and new != plate:
            bind.execute(
                sa.text(
                    "UPDATE voertuigen SET kenteken = :new "
                    "WHERE transporteur_id = :carrier AND id = :vehicle"
                ),
                {"new": new, "carrier": carrier, "vehicle": vehicle},
            )
    if postgres:
        op.execute("ALTER TABLE voertuigen FORCE ROW LEVEL SECURITY")


def upgrade():
    op.create_table('voertuig_sessies',
    sa.Column('transporteur_id', sa.Uuid(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('chauffeur_id', sa.Uuid(), nullable=False),
    sa.Column('vehicle_id', sa.Uuid(), nullable=True),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('verloopt_op', sa.DateTime(timezone=True), nullable=False),
    sa.Column('gestart_op', sa.DateTime(timezone=True), nullable=True),
    sa.Column('beeindigd_op', sa.DateTime(timezone=True), nullable=True),
    sa.Column('beeindigd_door', sa.String(length=254), nullable=True),
    sa.Column('einde_reden', sa.String(length=30), nullable=True),
    sa.Column('qr_versie', sa.Integer(), nullable=True),
    sa.CheckConstraint("status <> 'active' OR (vehicle_id IS NOT NULL AND gestart_op IS NOT NULL)", name=op.f('ck_voertuig_sessies_active_started')),
    sa.CheckConstraint("status IN ('pending', 'active', 'ended')", name=op.f('ck_voertuig_sessies_status')),
    sa.ForeignKeyConstraint(['transporteur_id', 'chauffeur_id'], ['chauffeurs.transporteur_id', 'chauffeurs.id'], name=op.f('fk_voertuig_sessies_chauffeurs')),
    sa.ForeignKeyConstraint(['transporteur_id', 'vehicle_id'], ['voertuigen.transporteur_id', 'voertuigen.id'], name=op.f('fk_voertuig_sessies_voertuigen')),
    sa.ForeignKeyConstraint(['transporteur_id'], ['transporteurs.id'], name=op.f('fk_voertuig_sessies_transporteurs')),
    sa.PrimaryKeyConstraint('transporteur_id', 'id', name=op.f('pk_voertuig_sessies'))
    )
    with op.batch_alter_table('voertuig_sessies', schema=None) as batch_op:
        batch_op.create_index('ix_voertuig_sessies_created', ['transporteur_id', 'created_at'], unique=False)
        batch_op.create_index('ix_voertuig_sessies_driver', ['transporteur_id', 'chauffeur_id', 'created_at'], unique=False)
        batch_op.create_index('ix_voertuig_sessies_vehicle', ['transporteur_id', 'vehicle_id', 'created_at'], unique=False)
        # The database's guard: one active session per vehicle and per driver.
        batch_op.create_index('uq_voertuig_sessies_active_driver', ['transporteur_id', 'chauffeur_id'], unique=True, postgresql_where=sa.text("status = 'active'"), sqlite_where=sa.text("status = 'active'"))
        batch_op.create_index('uq_voertuig_sessies_active_vehicle', ['transporteur_id', 'vehicle_id'], unique=True, postgresql_where=sa.text("status = 'active'"), sqlite_where=sa.text("status = 'active'"))

    with op.batch_alter_table('voertuigen', schema=None) as batch_op:
        batch_op.add_column(sa.Column('soort', sa.String(length=20), server_default='vrachtwagen', nullable=False))
        batch_op.add_column(sa.Column('capaciteit', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('capaciteit_eenheid', sa.String(length=10), nullable=True))
        batch_op.add_column(sa.Column('kooiaap', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column('opmerkingen', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('qr_versie', sa.Integer(), server_default=sa.text('1'), nullable=False))
        batch_op.add_column(sa.Column('versie', sa.Integer(), server_default=sa.text('1'), nullable=False))
        batch_op.add_column(sa.Column('updated_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_check_constraint(op.f('ck_voertuigen_soort'), _in('soort', SOORTEN))
        batch_op.create_check_constraint(
            op.f('ck_voertuigen_capaciteit_eenheid'), 'capaciteit_eenheid IS NULL OR ' + _in('capaciteit_eenheid', EENHEDEN)
        )
        batch_op.create_check_constraint(op.f('ck_voertuigen_capaciteit'), 'capaciteit IS NULL OR capaciteit > 0')

    _repaint_plates(to_painted=True)

    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE voertuig_sessies ENABLE ROW LEVEL SECURITY")
        op.execute("ALTER TABLE voertuig_sessies FORCE ROW LEVEL SECURITY")
        op.execute(
            "CREATE POLICY carrier_isolation ON voertuig_sessies "
            f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
        )


def downgrade():
    _repaint_plates(to_painted=False)
    with op.batch_alter_table('voertuigen', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_voertuigen_capaciteit'), type_='check')
        batch_op.drop_constraint(op.f('ck_voertuigen_capaciteit_eenheid'), type_='check')
        batch_op.drop_constraint(op.f('ck_voertuigen_soort'), type_='check')
        batch_op.drop_column('updated_at')
        batch_op.drop_column('versie')
        batch_op.drop_column('qr_versie')
        batch_op.drop_column('opmerkingen')
        batch_op.drop_column('kooiaap')
        batch_op.drop_column('capaciteit_eenheid')
        batch_op.drop_column('capaciteit')
        batch_op.drop_column('soort')

    with op.batch_alter_table('voertuig_sessies', schema=None) as batch_op:
        batch_op.drop_index('uq_voertuig_sessies_active_vehicle', postgresql_where=sa.text("status = 'active'"), sqlite_where=sa.text("status = 'active'"))
        batch_op.drop_index('uq_voertuig_sessies_active_driver', postgresql_where=sa.text("status = 'active'"), sqlite_where=sa.text("status = 'active'"))
        batch_op.drop_index('ix_voertuig_sessies_vehicle')
        batch_op.drop_index('ix_voertuig_sessies_driver')
        batch_op.drop_index('ix_voertuig_sessies_created')

    op.drop_table('voertuig_sessies')
