"""Issued invoices keep their document and never change; credit notes; customers' invoice
address, identifiers and VAT treatment

Revision ID: c0d1c0de0300
Revises: c0d1c0de0290
Create Date: 2026-11-28 10:00:00

- `facturen` holds invoices and credit notes (`soort`). An issued one keeps its UBL bytes and
  their SHA-256, the seller and buyer as they were, its VAT breakdown and (reverse charge) the
  VIES answer; its lines go to the new `factuur_regels`. A concept has no number yet
  (`nummer` and `export_id` become nullable; the one-invoice-per-customer-and-batch unique
  goes: a customer's lines not subject to VAT get an invoice of their own).
- Triggers refuse to change an issued document's content or to delete it, on PostgreSQL
  and SQLite alike, and refuse any change to a stored line: corrections are credit notes.
- `klanten` gain an invoice address, a KvK number, a GLN, a Peppol participant id, their own
  VAT category and reason, and the last VIES check. Each existing customer's invoice address
  is its first place's address, which invoices used until now.
- Every existing invoice is issued as it stands, once: its document is made with the app's
  UBL writer (portal.billing.ubl, pure) from the rows as they are at the upgrade, and stored.
  An invoice that cannot be made (the carrier's invoicing details were never filled in)
  keeps its number as a concept and is issued from its batch's page once they are.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0300"
down_revision = "c0d1c0de0290"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
# Columns of an issued document that never change (uitgegeven_op included: issued stays so)
FROZEN = (
    "soort", "klant_id", "export_id", "nummer", "datum", "vervaldatum", "regels", "bedrag",
    "btw_bedrag", "valuta", "gecrediteerde_factuur_id", "reden", "uitgegeven_op", "document",
    "document_sha256", "pdf", "verkoper", "koper", "btw_uitsplitsing", "vies",
)  # fmt: skip
DATA_TABLES = (
    "transporteurs", "klanten", "klant_locaties", "facturen", "factuur_regels",
    "facturatieregels", "facturatie_exports", "taken", "tarieven",
)  # fmt: skip


def upgrade():
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    with op.batch_alter_table("klanten", schema=None) as batch_op:
        batch_op.add_column(sa.Column("factuur_adres", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("factuur_postcode", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("factuur_plaats", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("factuur_land", sa.String(length=2), nullable=True))
        batch_op.add_column(sa.Column("kvk_nummer", sa.String(length=8), nullable=True))
        batch_op.add_column(sa.Column("gln", sa.String(length=13), nullable=True))
        batch_op.add_column(sa.Column("peppol_id", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("btw_categorie", sa.String(length=2), nullable=True))
        batch_op.add_column(
            sa.Column("btw_vrijstellingsreden", sa.String(length=300), nullable=True)
        )
        batch_op.add_column(sa.Column("vies_btw_nummer", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("vies_status", sa.String(length=12), nullable=True))
        batch_op.add_column(sa.Column("vies_naam", sa.String(length=200), nullable=True))
        batch_op.add_column(
            sa.Column("vies_gecontroleerd_op", sa.DateTime(timezone=True), nullable=True)
        )
        batch_op.create_check_constraint(
            "btw_categorie",
            "btw_categorie IS NULL OR btw_categorie IN ('S', 'Z', 'E', 'AE', 'O')",
        )
        batch_op.create_check_constraint(
            "vies_status", "vies_status IS NULL OR vies_status IN ('geldig', 'ongeldig')"
        )

    with op.batch_alter_table("facturen", schema=None) as batch_op:
        batch_op.drop_constraint(
            "uq_facturen_transporteur_id_export_id_klant_id", type_="unique"
        )
        batch_op.alter_column("export_id", existing_type=sa.Uuid(), nullable=True)
        batch_op.alter_column("nummer", existing_type=sa.String(length=20), nullable=True)
        batch_op.add_column(
            sa.Column("soort", sa.String(length=12), server_default="factuur", nullable=False)
        )
        batch_op.add_column(
            sa.Column("valuta", sa.String(length=3), server_default="EUR", nullable=False)
        )
        batch_op.add_column(
            sa.Column("niet_belast", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.add_column(sa.Column("gecrediteerde_factuur_id", sa.Uuid(), nullable=True))
        batch_op.add_column(sa.Column("reden", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("uitgegeven_op", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("uitgegeven_door", sa.String(length=254), nullable=True))
        batch_op.add_column(sa.Column("document", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("document_sha256", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("pdf", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("verkoper", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("koper", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("btw_uitsplitsing", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("vies", sa.JSON(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_facturen_facturen"),
            "facturen",
            ["transporteur_id", "gecrediteerde_factuur_id"],
            ["transporteur_id", "id"],
        )
        batch_op.create_check_constraint("soort", "soort IN ('factuur', 'creditnota')")
        batch_op.create_check_constraint(
            "creditnota_factuur", "soort = 'factuur' OR gecrediteerde_factuur_id IS NOT NULL"
        )
        batch_op.create_index("ix_facturen_datum", ["transporteur_id", "datum"], unique=False)
        batch_op.create_index(
            "ix_facturen_export", ["transporteur_id", "export_id"], unique=False
        )
        batch_op.create_index(
            "ix_facturen_gecrediteerd",
            ["transporteur_id", "gecrediteerde_factuur_id"],
            unique=False,
        )

    op.create_table(
        "factuur_regels",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("factuur_id", sa.Uuid(), nullable=False),
        sa.Column("volgnummer", sa.Integer(), nullable=False),
        sa.Column("facturatieregel_id", sa.Uuid(), nullable=True),
        sa.Column("taak_id", sa.Uuid(), nullable=True),
        sa.Column("naam", sa.String(length=200), nullable=False),
        sa.Column("omschrijving", sa.Text(), nullable=True),
        sa.Column("notitie", sa.Text(), nullable=True),
        sa.Column("hoeveelheid", sa.Numeric(precision=16, scale=4), nullable=True),
        sa.Column("eenheid", sa.String(length=20), nullable=True),
        sa.Column("prijs", sa.Numeric(precision=14, scale=4), nullable=True),
        sa.Column("bedrag", sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column("btw_categorie", sa.String(length=2), nullable=False),
        sa.Column("btw_procent", sa.Numeric(precision=5, scale=2), nullable=True),
        sa.Column("btw_vrijstellingsreden", sa.String(length=300), nullable=True),
        sa.Column("datum", sa.Date(), nullable=False),
        sa.Column("gecrediteerde_regel_id", sa.Uuid(), nullable=True),
        sa.CheckConstraint(
            "btw_categorie IN ('S', 'Z', 'E', 'AE', 'O')",
            name=op.f("ck_factuur_regels_btw_categorie"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "factuur_id"],
            ["facturen.transporteur_id", "facturen.id"],
            name=op.f("fk_factuur_regels_facturen"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "gecrediteerde_regel_id"],
            ["factuur_regels.transporteur_id", "factuur_regels.id"],
            name=op.f("fk_factuur_regels_factuur_regels"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"],
            ["transporteurs.id"],
            name=op.f("fk_factuur_regels_transporteurs"),
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_factuur_regels")),
        sa.UniqueConstraint(
            "transporteur_id",
            "factuur_id",
            "volgnummer",
            name=op.f("uq_factuur_regels_transporteur_id_factuur_id_volgnummer"),
        ),
    )
    with op.batch_alter_table("factuur_regels", schema=None) as batch_op:
        batch_op.create_index(
            "ix_factuur_regels_gecrediteerd",
            ["transporteur_id", "gecrediteerde_regel_id"],
            unique=False,
        )

    if postgres:
        op.execute("ALTER TABLE factuur_regels ENABLE ROW LEVEL SECURITY")
        op.execute("ALTER TABLE factuur_regels FORCE ROW LEVEL SECURITY")
        op.execute(
            "CREATE POLICY carrier_isolation ON factuur_regels "
            f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
        )

    _carry_over(bind)

    # Only after the carry-over (which issues the existing invoices) do issued ones freeze.
    with op.batch_alter_table("facturen", schema=None) as batch_op:
        batch_op.create_check_constraint(
            "uitgegeven",
            "(uitgegeven_op IS NULL) = (document IS NULL) "
            "AND (uitgegeven_op IS NULL OR nummer IS NOT NULL)",
        )
    _create_triggers(postgres)


def _create_triggers(postgres: bool) -> None:
    # json has no equality operator in PostgreSQL: its columns compare as text
    json = {"verkoper", "koper", "btw_uitsplitsing", "vies"}
    changed = " OR ".join(
        f"NEW.{c}::text IS DISTINCT FROM OLD.{c}::text"
        if c in json
        else f"NEW.{c} IS DISTINCT FROM OLD.{c}"
        for c in FROZEN
    )
    if postgres:
        op.execute(
            """
            CREATE FUNCTION rijplan_factuur_onveranderlijk() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP = 'DELETE' THEN
                IF OLD.uitgegeven_op IS NOT NULL THEN
                  RAISE EXCEPTION 'issued document % cannot be deleted', OLD.nummer
                    USING ERRCODE = 'integrity_constraint_violation';
                END IF;
                RETURN OLD;
              END IF;
              IF OLD.uitgegeven_op IS NOT NULL AND (%s) THEN
                RAISE EXCEPTION 'issued document % cannot be changed', OLD.nummer
                  USING ERRCODE = 'integrity_constraint_violation';
              END IF;
              RETURN NEW;
            END $$
            """.replace("%s", changed, 1)
        )
        op.execute(
            "CREATE TRIGGER facturen_onveranderlijk BEFORE UPDATE OR DELETE ON facturen "
            "FOR EACH ROW EXECUTE FUNCTION rijplan_factuur_onveranderlijk()"
        )
        op.execute(
            """
            CREATE FUNCTION rijplan_factuurregel_onveranderlijk() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
              RAISE EXCEPTION 'a line of an issued document cannot be changed or deleted'
                USING ERRCODE = 'integrity_constraint_violation';
            END $$
            """
        )
        op.execute(
            "CREATE TRIGGER factuur_regels_onveranderlijk BEFORE UPDATE OR DELETE "
            "ON factuur_regels FOR EACH ROW "
            "EXECUTE FUNCTION rijplan_factuurregel_onveranderlijk()"
        )
        return
    sqlite_changed = " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in FROZEN)
    op.execute(
        "CREATE TRIGGER facturen_onveranderlijk BEFORE UPDATE ON facturen "
        f"WHEN OLD.uitgegeven_op IS NOT NULL AND ({sqlite_changed}) "
        "BEGIN SELECT RAISE(ABORT, 'issued document cannot be changed'); END"
    )
    op.execute(
        "CREATE TRIGGER facturen_niet_verwijderen BEFORE DELETE ON facturen "
        "WHEN OLD.uitgegeven_op IS NOT NULL "
        "BEGIN SELECT RAISE(ABORT, 'issued document cannot be deleted'); END"
    )
    for event in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER factuur_regels_{event.lower()} BEFORE {event} ON factuur_regels "
            "BEGIN SELECT RAISE(ABORT, 'a line of an issued document cannot change'); END"
        )


def _carry_over(bind) -> None:
    """Invoice addresses from the first place; every existing invoice issued as it stands."""
    postgres = bind.dialect.name == "postgresql"
    if postgres:  # the owner reads and writes every carrier's rows for this step only
        for table in DATA_TABLES:
            op.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
    bind.execute(
        sa.text(
            """
            UPDATE klanten SET
              factuur_adres = (SELECT p.adres FROM klant_locaties p
                WHERE p.transporteur_id = klanten.transporteur_id AND p.klant_id = klanten.id
                ORDER BY p.created_at, p.id LIMIT 1),
              factuur_postcode = (SELECT p.postcode FROM klant_locaties p
                WHERE p.transporteur_id = klanten.transporteur_id AND p.klant_id = klanten.id
                ORDER BY p.created_at, p.id LIMIT 1),
              factuur_plaats = (SELECT p.stad FROM klant_locaties p
                WHERE p.transporteur_id = klanten.transporteur_id AND p.klant_id = klanten.id
                ORDER BY p.created_at, p.id LIMIT 1),
              factuur_land = COALESCE((SELECT p.land FROM klant_locaties p
                WHERE p.transporteur_id = klanten.transporteur_id AND p.klant_id = klanten.id
                ORDER BY p.created_at, p.id LIMIT 1), 'NL')
            """
        )
    )
    invoices = bind.execute(
        sa.text("SELECT transporteur_id, id FROM facturen ORDER BY transporteur_id, nummer")
    ).all()
    for carrier_id, invoice_id in invoices:
        _issue_existing(bind, carrier_id, invoice_id)
    if postgres:
        for table in DATA_TABLES:
            op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")


def _issue_existing(bind, carrier_id, invoice_id) -> None:
    from zoneinfo import ZoneInfo

    from portal.billing import documents, invoice_pdf, ubl
    from flask_babel import force_locale

    from portal.labels import activity_label

    def _name(naam, kind):
        with force_locale("nl"):
            return f"{naam} ({activity_label(kind)})"[:200]

    def one(sql: str, **params):
        return bind.execute(sa.text(sql), params).mappings().first()

    def dec(value):
        from decimal import Decimal

        return None if value is None else Decimal(str(value))

    def day(value):
        return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])

    def moment(value):
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        return value if value.tzinfo else value.replace(tzinfo=UTC)

    invoice = one(
        "SELECT * FROM facturen WHERE transporteur_id = :c AND id = :i", c=carrier_id, i=invoice_id
    )
    carrier = one("SELECT * FROM transporteurs WHERE id = :c", c=carrier_id)
    customer = one(
        "SELECT * FROM klanten WHERE transporteur_id = :c AND id = :k",
        c=carrier_id,
        k=invoice["klant_id"],
    )
    batch = one(
        "SELECT * FROM facturatie_exports WHERE transporteur_id = :c AND id = :e",
        c=carrier_id,
        e=invoice["export_id"],
    )
    zone = ZoneInfo(carrier["tijdzone"] or "Europe/Amsterdam")
    rows = (
        bind.execute(
            sa.text(
                "SELECT r.*, t.naam AS taak_naam, t.type AS taak_type, t.gepland_op AS gepland "
                "FROM facturatieregels r JOIN taken t "
                "ON t.transporteur_id = r.transporteur_id AND t.id = r.taak_id "
                "WHERE r.transporteur_id = :c AND r.export_id = :e AND r.klant_id = :k "
                "ORDER BY r.afgerond_op, r.id"
            ),
            {"c": carrier_id, "e": invoice["export_id"], "k": invoice["klant_id"]},
        )
        .mappings()
        .all()
    )
    lines, sources = [], []
    for index, row in enumerate(rows, start=1):
        hourly = row["uren"] is not None
        lines.append(
            ubl.Line(
                id=str(index),
                naam=_name(row["taak_naam"], row["taak_type"]),
                omschrijving=row["opmerkingen"],
                hoeveelheid=dec(row["uren"] if hourly else row["hoeveelheid"]),
                eenheid="uur" if hourly else row["eenheid"],
                bedrag=dec(row["bedrag"]) or dec(0),
                btw_procent=dec(row["btw_procent"]),
                btw_categorie=row["btw_categorie"],
                btw_vrijstellingsreden=row["btw_vrijstellingsreden"],
                datum=moment(row["gepland"] or row["afgerond_op"]).astimezone(zone).date(),
            )
        )
        sources.append(documents.Source(row["id"], row["taak_id"]))
    buyer = ubl.Party(
        naam=customer["naam"],
        btw_nummer=customer["btw_nummer"],
        adres=customer["factuur_adres"],
        postcode=customer["factuur_postcode"],
        stad=customer["factuur_plaats"],
        land=customer["factuur_land"] or "NL",
        email=customer["factuur_email"],
    )
    days = [line.datum for line in lines]
    data = ubl.Invoice(
        nummer=invoice["nummer"],
        datum=day(invoice["datum"]),
        vervaldatum=day(invoice["vervaldatum"]),
        verkoper=documents.seller(_Row(carrier)),
        koper=buyer,
        regels=lines,
        koper_referentie=customer["debiteurnummer"] or invoice["nummer"],
        periode_van=min([day(batch["van"]), *days]),
        periode_tot=max([day(batch["tot"]), *days]),
        iban=carrier["iban"],
        betaalreferentie=invoice["nummer"],
    )
    if ubl.problems(data):
        return  # a numbered concept: issued from its batch's page once it can be
    body = ubl.document_xml(data)
    net, vat = ubl.totals(lines)
    bind.execute(
        sa.text(
            "UPDATE facturen SET document = :document, document_sha256 = :sha, pdf = :pdf, "
            "verkoper = :verkoper, koper = :koper, btw_uitsplitsing = :breakdown, "
            "uitgegeven_op = created_at, uitgegeven_door = 'migratie', regels = :regels, "
            "bedrag = :bedrag, btw_bedrag = :btw "
            "WHERE transporteur_id = :c AND id = :i"
        ).bindparams(
            sa.bindparam("document", type_=sa.LargeBinary()),
            sa.bindparam("pdf", type_=sa.LargeBinary()),
            sa.bindparam("verkoper", type_=sa.JSON()),
            sa.bindparam("koper", type_=sa.JSON()),
            sa.bindparam("breakdown", type_=sa.JSON()),
            sa.bindparam("bedrag", type_=sa.Numeric(12, 2)),
            sa.bindparam("btw", type_=sa.Numeric(12, 2)),
        ),
        {
            "document": body,
            "sha": documents.sha256(body),
            "pdf": invoice_pdf.render(data),
            "verkoper": documents.party_json(data.verkoper),
            "koper": documents.party_json(buyer),
            "breakdown": documents.breakdown_json(lines),
            "regels": len(lines),
            "bedrag": net,
            "btw": vat,
            "c": carrier_id,
            "i": invoice_id,
        },
    )
    table = sa.table(
        "factuur_regels",
        sa.column("transporteur_id", sa.Uuid()),
        sa.column("id", sa.Uuid()),
        sa.column("factuur_id", sa.Uuid()),
        sa.column("volgnummer", sa.Integer()),
        sa.column("facturatieregel_id", sa.Uuid()),
        sa.column("taak_id", sa.Uuid()),
        sa.column("gecrediteerde_regel_id", sa.Uuid()),
        sa.column("naam", sa.String()),
        sa.column("omschrijving", sa.Text()),
        sa.column("notitie", sa.Text()),
        sa.column("hoeveelheid", sa.Numeric(16, 4)),
        sa.column("eenheid", sa.String()),
        sa.column("prijs", sa.Numeric(14, 4)),
        sa.column("bedrag", sa.Numeric(12, 2)),
        sa.column("btw_categorie", sa.String()),
        sa.column("btw_procent", sa.Numeric(5, 2)),
        sa.column("btw_vrijstellingsreden", sa.String()),
        sa.column("datum", sa.Date()),
    )
    for line, source in zip(lines, sources, strict=True):
        values = documents.stored_line(line, source)
        for name in ("facturatieregel_id", "taak_id"):
            values[name] = _uuid(values[name])
        bind.execute(
            table.insert().values(
                transporteur_id=_uuid(carrier_id),
                id=uuid.uuid4(),
                factuur_id=_uuid(invoice_id),
                **values,
            )
        )


def _uuid(value):
    """An id as read by plain SQL (a UUID on PostgreSQL, 32 hex digits on SQLite) as a UUID."""
    return None if value is None else uuid.UUID(str(value))


class _Row:
    """A mapping row read as attributes, as documents.seller reads a carrier."""

    def __init__(self, row):
        self._row = row

    def __getattr__(self, name):
        return self._row[name]


def downgrade():
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    if postgres:
        op.execute("DROP TRIGGER IF EXISTS factuur_regels_onveranderlijk ON factuur_regels")
        op.execute("DROP TRIGGER IF EXISTS facturen_onveranderlijk ON facturen")
        op.execute("DROP FUNCTION IF EXISTS rijplan_factuurregel_onveranderlijk()")
        op.execute("DROP FUNCTION IF EXISTS rijplan_factuur_onveranderlijk()")
        op.execute("DROP POLICY IF EXISTS carrier_isolation ON factuur_regels")
    else:
        for name in (
            "facturen_onveranderlijk",
            "facturen_niet_verwijderen",
            "factuur_regels_update",
            "factuur_regels_delete",
        ):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_table("factuur_regels")
    # Credit notes and concepts without a number cannot stay in the old shape.
    op.execute("DELETE FROM facturen WHERE soort = 'creditnota' OR nummer IS NULL")
    with op.batch_alter_table("facturen", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_facturen_uitgegeven"), type_="check")
        batch_op.drop_constraint(batch_op.f("ck_facturen_creditnota_factuur"), type_="check")
        batch_op.drop_constraint(batch_op.f("ck_facturen_soort"), type_="check")
        batch_op.drop_constraint(batch_op.f("fk_facturen_facturen"), type_="foreignkey")
        batch_op.drop_index("ix_facturen_gecrediteerd")
        batch_op.drop_index("ix_facturen_export")
        batch_op.drop_index("ix_facturen_datum")
        for name in (
            "vies", "btw_uitsplitsing", "koper", "verkoper", "pdf", "document_sha256", "document",
            "uitgegeven_door", "uitgegeven_op", "reden", "gecrediteerde_factuur_id",
            "niet_belast", "valuta", "soort",
        ):  # fmt: skip
            batch_op.drop_column(name)
        batch_op.alter_column("nummer", existing_type=sa.String(length=20), nullable=False)
        batch_op.alter_column("export_id", existing_type=sa.Uuid(), nullable=False)
        batch_op.create_unique_constraint(
            "uq_facturen_transporteur_id_export_id_klant_id",
            ["transporteur_id", "export_id", "klant_id"],
        )
    with op.batch_alter_table("klanten", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_klanten_vies_status"), type_="check")
        batch_op.drop_constraint(batch_op.f("ck_klanten_btw_categorie"), type_="check")
        for name in (
            "vies_gecontroleerd_op", "vies_naam", "vies_status", "vies_btw_nummer",
            "btw_vrijstellingsreden", "btw_categorie", "peppol_id", "gln", "kvk_nummer",
            "factuur_land", "factuur_plaats", "factuur_postcode", "factuur_adres",
        ):  # fmt: skip
            batch_op.drop_column(name)
