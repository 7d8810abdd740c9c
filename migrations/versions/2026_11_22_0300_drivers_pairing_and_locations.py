"""Drivers' reported positions (chauffeur_locaties, RLS) and each driver's last known position.

Revision ID: b5d1c0de0300
Revises: 8e3993ed50a6
Create Date: 2026-11-22 03:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b5d1c0de0300'
down_revision = '8e3993ed50a6'
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"


def upgrade():
    op.create_table('chauffeur_locaties',
    sa.Column('transporteur_id', sa.Uuid(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('chauffeur_id', sa.Uuid(), nullable=False),
    sa.Column('lat', sa.Float(), nullable=False),
    sa.Column('lng', sa.Float(), nullable=False),
    sa.Column('recorded_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('accuracy', sa.Float(), nullable=True),
    sa.Column('speed', sa.Float(), nullable=True),
    sa.Column('heading', sa.Float(), nullable=True),
    sa.Column('received_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('lat >= -90 AND lat <= 90', name=op.f('ck_chauffeur_locaties_lat')),
    sa.CheckConstraint('lng >= -180 AND lng <= 180', name=op.f('ck_chauffeur_locaties_lng')),
    sa.ForeignKeyConstraint(['transporteur_id', 'chauffeur_id'], ['chauffeurs.transporteur_id', 'chauffeurs.id'], name=op.f('fk_chauffeur_locaties_chauffeurs')),
    sa.ForeignKeyConstraint(['transporteur_id'], ['transporteurs.id'], name=op.f('fk_chauffeur_locaties_transporteurs')),
    sa.PrimaryKeyConstraint('transporteur_id', 'id', name=op.f('pk_chauffeur_locaties')),
    sa.UniqueConstraint('transporteur_id', 'chauffeur_id', 'recorded_at', name=op.f('uq_chauffeur_locaties_transporteur_id_chauffeur_id_recorded_at'))
    )
    with op.batch_alter_table('chauffeurs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('last_lat', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('last_lng', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('last_recorded_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('last_accuracy', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('last_speed', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('last_heading', sa.Float(), nullable=True))
        batch_op.create_index('ix_chauffeurs_naam', ['transporteur_id', 'naam'], unique=False)

    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE chauffeur_locaties ENABLE ROW LEVEL SECURITY")
        op.execute("ALTER TABLE chauffeur_locaties FORCE ROW LEVEL SECURITY")
        op.execute(
            "CREATE POLICY carrier_isolation ON chauffeur_locaties "
            f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
        )


def downgrade():
    with op.batch_alter_table('chauffeurs', schema=None) as batch_op:
        batch_op.drop_index('ix_chauffeurs_naam')
        batch_op.drop_column('last_heading')
        batch_op.drop_column('last_speed')
        batch_op.drop_column('last_accuracy')
        batch_op.drop_column('last_recorded_at')
        batch_op.drop_column('last_lng')
        batch_op.drop_column('last_lat')

    op.drop_table('chauffeur_locaties')
