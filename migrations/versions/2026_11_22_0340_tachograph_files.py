"""Tachograph files (tacho_bestanden): driver card and vehicle unit downloads, stored once per
carrier (unique SHA-256), with row-level security

Revision ID: b6d1c0de0340
Revises: b6d1c0de0330
Create Date: 2026-11-22 03:10:00

The bytes live in `bestanden` (soort "tacho"); this table says what the file is, whom and
which days it covers. Links to the file, driver and vehicle are composite (carrier, id) keys.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b6d1c0de0340'
down_revision = 'b6d1c0de0330'
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"


def upgrade():
    op.create_table('tacho_bestanden',
    sa.Column('transporteur_id', sa.Uuid(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('bestand_id', sa.Uuid(), nullable=False),
    sa.Column('soort', sa.String(length=20), nullable=False),
    sa.Column('generatie', sa.String(length=5), nullable=False),
    sa.Column('bestandsnaam', sa.String(length=255), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('grootte', sa.BigInteger(), nullable=False),
    sa.Column('chauffeur_id', sa.Uuid(), nullable=True),
    sa.Column('vehicle_id', sa.Uuid(), nullable=True),
    sa.Column('periode_van', sa.DateTime(timezone=True), nullable=True),
    sa.Column('periode_tot', sa.DateTime(timezone=True), nullable=True),
    sa.Column('periode_uit_bestand', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.Column('kaartnummer', sa.String(length=20), nullable=True),
    sa.Column('houder', sa.String(length=100), nullable=True),
    sa.Column('vin', sa.String(length=17), nullable=True),
    sa.Column('kenteken', sa.String(length=20), nullable=True),
    sa.Column('geupload_op', sa.DateTime(timezone=True), nullable=False),
    sa.Column('geupload_door', sa.String(length=200), nullable=False),
    sa.Column('geupload_door_type', sa.String(length=16), nullable=False),
    sa.Column('geupload_door_id', sa.Uuid(), nullable=True),
    sa.CheckConstraint("soort IN ('bestuurderskaart', 'voertuigeenheid', 'onbekend')", name=op.f('ck_tacho_bestanden_soort')),
    sa.CheckConstraint('periode_van IS NULL OR periode_tot IS NULL OR periode_van <= periode_tot', name=op.f('ck_tacho_bestanden_periode')),
    sa.ForeignKeyConstraint(['transporteur_id', 'bestand_id'], ['bestanden.transporteur_id', 'bestanden.id'], name=op.f('fk_tacho_bestanden_bestanden')),
    sa.ForeignKeyConstraint(['transporteur_id', 'chauffeur_id'], ['chauffeurs.transporteur_id', 'chauffeurs.id'], name=op.f('fk_tacho_bestanden_chauffeurs')),
    sa.ForeignKeyConstraint(['transporteur_id', 'vehicle_id'], ['voertuigen.transporteur_id', 'voertuigen.id'], name=op.f('fk_tacho_bestanden_voertuigen')),
    sa.ForeignKeyConstraint(['transporteur_id'], ['transporteurs.id'], name=op.f('fk_tacho_bestanden_transporteurs')),
    sa.PrimaryKeyConstraint('transporteur_id', 'id', name=op.f('pk_tacho_bestanden')),
    sa.UniqueConstraint('transporteur_id', 'sha256', name=op.f('uq_tacho_bestanden_transporteur_id_sha256'))
    )
    with op.batch_alter_table('tacho_bestanden', schema=None) as batch_op:
        batch_op.create_index('ix_tacho_bestanden_chauffeur', ['transporteur_id', 'chauffeur_id', 'geupload_op'], unique=False)
        batch_op.create_index('ix_tacho_bestanden_geupload_op', ['transporteur_id', 'geupload_op'], unique=False)
        batch_op.create_index('ix_tacho_bestanden_kaartnummer', ['transporteur_id', 'kaartnummer'], unique=False)
        batch_op.create_index('ix_tacho_bestanden_vehicle', ['transporteur_id', 'vehicle_id', 'geupload_op'], unique=False)

    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE tacho_bestanden ENABLE ROW LEVEL SECURITY")
        op.execute("ALTER TABLE tacho_bestanden FORCE ROW LEVEL SECURITY")
        op.execute(
            "CREATE POLICY carrier_isolation ON tacho_bestanden "
            f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
        )


def downgrade():
    with op.batch_alter_table('tacho_bestanden', schema=None) as batch_op:
        batch_op.drop_index('ix_tacho_bestanden_vehicle')
        batch_op.drop_index('ix_tacho_bestanden_kaartnummer')
        batch_op.drop_index('ix_tacho_bestanden_geupload_op')
        batch_op.drop_index('ix_tacho_bestanden_chauffeur')

    op.drop_table('tacho_bestanden')
