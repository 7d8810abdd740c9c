"""Tachograph days: what a download says per driver card per day, the card number on the
driver, and the download moment of a file

Revision ID: c0d1c0de0140
Revises: c0d1c0de0130
Create Date: 2026-11-26 07:00:00

tacho_dagen holds one row per card per UTC day (the newest download that holds the day
wins), with row-level security like every carrier table. chauffeurs.kaartnummer is unique
per carrier where set. tacho_bestanden.gelezen says a file has been read in full; files
stored before are read again by `flask tacho-reread`.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c0d1c0de0140'
down_revision = 'c0d1c0de0130'
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"


def upgrade():
    with op.batch_alter_table('chauffeurs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('kaartnummer', sa.String(length=20), nullable=True))
        batch_op.create_index('uq_chauffeurs_transporteur_id_kaartnummer', ['transporteur_id', 'kaartnummer'], unique=True, postgresql_where=sa.text('kaartnummer IS NOT NULL'), sqlite_where=sa.text('kaartnummer IS NOT NULL'))
    with op.batch_alter_table('tacho_bestanden', schema=None) as batch_op:
        batch_op.add_column(sa.Column('gedownload_op', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('gelezen', sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_table('tacho_dagen',
    sa.Column('transporteur_id', sa.Uuid(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('kaartnummer', sa.String(length=20), nullable=False),
    sa.Column('chauffeur_id', sa.Uuid(), nullable=True),
    sa.Column('datum', sa.Date(), nullable=False),
    sa.Column('tacho_bestand_id', sa.Uuid(), nullable=False),
    sa.Column('bron', sa.String(length=10), nullable=False),
    sa.Column('gedownload_op', sa.DateTime(timezone=True), nullable=True),
    sa.Column('tot', sa.DateTime(timezone=True), nullable=True),
    sa.Column('aanwezigheid', sa.Integer(), nullable=True),
    sa.Column('afstand_km', sa.Integer(), nullable=True),
    sa.Column('rijden_min', sa.Integer(), nullable=False),
    sa.Column('werk_min', sa.Integer(), nullable=False),
    sa.Column('beschikbaar_min', sa.Integer(), nullable=False),
    sa.Column('rust_min', sa.Integer(), nullable=False),
    sa.Column('onbekend_min', sa.Integer(), nullable=False),
    sa.Column('wijzigingen', sa.JSON(), nullable=False),
    sa.Column('voertuigen', sa.JSON(), nullable=False),
    sa.CheckConstraint("bron IN ('kaart', 'voertuig')", name=op.f('ck_tacho_dagen_bron')),
    sa.ForeignKeyConstraint(['transporteur_id', 'chauffeur_id'], ['chauffeurs.transporteur_id', 'chauffeurs.id'], name=op.f('fk_tacho_dagen_chauffeurs')),
    sa.ForeignKeyConstraint(['transporteur_id', 'tacho_bestand_id'], ['tacho_bestanden.transporteur_id', 'tacho_bestanden.id'], name=op.f('fk_tacho_dagen_tacho_bestanden')),
    sa.ForeignKeyConstraint(['transporteur_id'], ['transporteurs.id'], name=op.f('fk_tacho_dagen_transporteurs')),
    sa.PrimaryKeyConstraint('transporteur_id', 'id', name=op.f('pk_tacho_dagen')),
    sa.UniqueConstraint('transporteur_id', 'kaartnummer', 'datum', name=op.f('uq_tacho_dagen_transporteur_id_kaartnummer_datum'))
    )
    with op.batch_alter_table('tacho_dagen', schema=None) as batch_op:
        batch_op.create_index('ix_tacho_dagen_bestand', ['transporteur_id', 'tacho_bestand_id', 'datum'], unique=False)
        batch_op.create_index('ix_tacho_dagen_chauffeur', ['transporteur_id', 'chauffeur_id', 'datum'], unique=False)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE tacho_dagen ENABLE ROW LEVEL SECURITY")
        op.execute("ALTER TABLE tacho_dagen FORCE ROW LEVEL SECURITY")
        op.execute(
            "CREATE POLICY carrier_isolation ON tacho_dagen "
            f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
        )


def downgrade():
    with op.batch_alter_table('tacho_dagen', schema=None) as batch_op:
        batch_op.drop_index('ix_tacho_dagen_chauffeur')
        batch_op.drop_index('ix_tacho_dagen_bestand')
    op.drop_table('tacho_dagen')
    with op.batch_alter_table('tacho_bestanden', schema=None) as batch_op:
        batch_op.drop_column('gelezen')
        batch_op.drop_column('gedownload_op')
    with op.batch_alter_table('chauffeurs', schema=None) as batch_op:
        batch_op.drop_index('uq_chauffeurs_transporteur_id_kaartnummer')
        batch_op.drop_column('kaartnummer')
