"""The schema stays ready for Citus, distributed by carrier (`transporteur_id`).

Citus shards a distributed table by one column and can only enforce a primary key or a
unique constraint that includes it; a foreign key between two distributed tables must pair
their distribution columns, so a join stays on one node. Every tenant table (one with a
`transporteur_id` column, `portal.models.TENANT_TABLES`) would be distributed by it, and the
house rule is that it leads every key:

1. the primary key starts with `transporteur_id`;
2. so does every unique constraint and every unique index, with no exceptions: a secret
   found by its hash before the carrier is known (an API key, a refresh token, a share
   link) is unique per carrier, and a plain index on the hash serves the look-up;
3. a foreign key to another tenant table starts with `transporteur_id` and refers to the
   other table's `transporteur_id` first; one to `transporteurs` (a Citus reference table,
   copied to every node) is `transporteur_id` alone;
4. a table without `transporteur_id` is listed in GLOBAL_TABLES with why, so that a new
   global table is a decision and not an accident.

The models are checked, and the database the migrations build on each backend is checked
against the same rules and against the models (PostgreSQL through pg_catalog).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import (
    Column,
    Engine,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    create_engine,
    inspect,
    text,
)

from portal.models import TENANT_TABLES, Task

METADATA = Task.metadata
CARRIER = "transporteur_id"
CARRIERS = "transporteurs"

# Every table without a carrier column, and why it has none. A table missing here fails
# test_every_table_is_a_tenant_table_or_a_listed_global_one: give it `transporteur_id` (and
# row-level security), or add it with its reason.
GLOBAL_TABLES = {
    CARRIERS: "the tenants themselves; a Citus reference table that tenant rows refer to",
    "alembic_version": "Alembic's one-row record of the schema's revision, not app data",
    "login_attempts": "failed sign-ins for throttling, recorded before any carrier is known",
    "push_worker_status": "when the push worker, which serves every carrier, last polled",
}

PRIMARY_KEY = "primary key"
UNIQUE_CONSTRAINT = "unique constraint"
UNIQUE_INDEX = "unique index"


@dataclass(frozen=True)
class Key:
    """A primary key, unique constraint or unique index, with its columns in order."""

    table: str
    kind: str
    name: str | None
    columns: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.table}: {self.kind} {self.name} ({', '.join(self.columns)})"


def _name(expression) -> str:
    return expression.name if isinstance(expression, Column) else str(expression)


def _constraint_name(name) -> str | None:
    """A name the naming convention gave, as a plain string (None when there is none)."""
    return str(name) if isinstance(name, str) else None


def tenant_tables(metadata: MetaData) -> set[str]:
    return {table.name for table in metadata.sorted_tables if CARRIER in table.c}


def metadata_keys(metadata: MetaData) -> list[Key]:
    keys = []
    for table in metadata.sorted_tables:
        primary = table.primary_key
        columns = tuple(column.name for column in primary.columns)
        keys.append(Key(table.name, PRIMARY_KEY, _constraint_name(primary.name), columns))
        for constraint in table.constraints:
            if isinstance(constraint, UniqueConstraint):
                columns = tuple(column.name for column in constraint.columns)
                keys.append(
                    Key(table.name, UNIQUE_CONSTRAINT, _constraint_name(constraint.name), columns)
                )
        for index in table.indexes:
            if index.unique:
                columns = tuple(_name(expression) for expression in index.expressions)
                keys.append(Key(table.name, UNIQUE_INDEX, _constraint_name(index.name), columns))
    return keys


def table_problems(tables: dict[str, bool], listed: dict[str, str]) -> list[str]:
    """Rule 4: tables (name: whether it has the carrier column) against the listed global
    tables."""
    return [
        f"{name}: has no {CARRIER} and is not in GLOBAL_TABLES; give it {CARRIER} (and "
        "row-level security) or list it there with the reason it is global"
        for name, tenant in sorted(tables.items())
        if not tenant and name not in listed
    ] + [
        f"{name}: is in GLOBAL_TABLES but has {CARRIER}; take it out of the list"
        for name in sorted(listed)
        if tables.get(name)
    ]


def key_problems(keys: list[Key], tenants) -> list[str]:
    """Rules 1 and 2: each key of a tenant table leads with the carrier."""
    problems = []
    for key in keys:
        if key.table not in tenants or key.columns[:1] == (CARRIER,):
            continue
        if CARRIER in key.columns:
            why = f"has {CARRIER} but not first (the house rule: it leads every key)"
        else:
            why = f"lacks {CARRIER}: Citus can not enforce it across shards"
        problems.append(f"{key}: {why}")
    return sorted(problems)


def without_primary_key(keys: list[Key], tenants) -> list[str]:
    with_one = {key.table for key in keys if key.kind == PRIMARY_KEY and key.columns}
    return [
        f"{table}: has no primary key (Citus needs one that starts with {CARRIER})"
        for table in sorted(set(tenants) - with_one)
    ]


def foreign_key_problems(metadata: MetaData) -> list[str]:
    """Rule 3: tenant tables refer to each other through the carrier, to `transporteurs` by
    their own carrier alone, and global tables do not refer to tenant tables."""
    tenants = tenant_tables(metadata)
    problems = []
    for table in metadata.sorted_tables:
        for foreign_key in table.foreign_key_constraints:
            local = tuple(element.parent.name for element in foreign_key.elements)
            remote = tuple(element.column.name for element in foreign_key.elements)
            target = foreign_key.referred_table.name
            label = (
                f"{table.name}: foreign key {foreign_key.name} ({', '.join(local)}) -> "
                f"{target} ({', '.join(remote)})"
            )
            if table.name not in tenants:
                if target in tenants:
                    problems.append(
                        f"{label}: a global table can not refer to a tenant (distributed) "
                        "table in Citus"
                    )
            elif target == CARRIERS:
                if (local, remote) != ((CARRIER,), ("id",)):
                    problems.append(
                        f"{label}: a tenant row refers to {CARRIERS} by its own {CARRIER} "
                        "alone (another column would point at another carrier)"
                    )
            elif target in tenants:
                if local[:1] != (CARRIER,) or remote[:1] != (CARRIER,):
                    problems.append(
                        f"{label}: must start with {CARRIER} -> {target}.{CARRIER}, so the "
                        "join stays on one shard"
                    )
            else:
                problems.append(
                    f"{label}: refers to the global table {target}; only {CARRIERS} is a "
                    "reference table tenant rows may refer to"
                )
    return sorted(problems)


# --- the models ----------------------------------------------------------------------------


def test_every_table_is_a_tenant_table_or_a_listed_global_one():
    assert set(TENANT_TABLES) == tenant_tables(METADATA)
    tables = {table.name: CARRIER in table.c for table in METADATA.sorted_tables}
    problems = table_problems(tables, GLOBAL_TABLES)
    assert not problems, "\n".join(problems)


def test_every_tenant_primary_key_starts_with_the_carrier():
    keys = [key for key in metadata_keys(METADATA) if key.kind == PRIMARY_KEY]
    problems = without_primary_key(keys, TENANT_TABLES) + key_problems(keys, TENANT_TABLES)
    assert not problems, "\n".join(problems)


def test_every_unique_constraint_and_index_of_a_tenant_table_starts_with_the_carrier():
    keys = [key for key in metadata_keys(METADATA) if key.kind != PRIMARY_KEY]
    assert keys
    problems = key_problems(keys, TENANT_TABLES)
    assert not problems, "\n".join(problems)


def test_foreign_keys_between_tenant_tables_pair_their_carriers():
    problems = foreign_key_problems(METADATA)
    assert not problems, "\n".join(problems)


def test_the_checks_name_each_table_and_constraint_that_breaks_a_rule():
    """The checks above on a small schema that breaks each rule once (so they can fail)."""
    metadata = MetaData(naming_convention=METADATA.naming_convention)
    Table(CARRIERS, metadata, Column("id", Integer, primary_key=True))
    Table("good", metadata, Column(CARRIER, Integer, primary_key=True),
          Column("id", Integer, primary_key=True))  # fmt: skip
    bad = Table(
        "bad",
        metadata,
        Column("id", Integer, primary_key=True),
        Column(CARRIER, Integer, ForeignKey(f"{CARRIERS}.id"), primary_key=True),
        Column("code", String(10)),
        Column("good_id", Integer),
        Column("other_carrier", Integer, ForeignKey(f"{CARRIERS}.id", name="fk_other")),
        UniqueConstraint("code", name="uq_bad_code"),
        ForeignKeyConstraint(["good_id", CARRIER], ["good.id", f"good.{CARRIER}"], name="fk_bad"),
    )
    Index("uq_bad_code_carrier", bad.c.code, bad.c[CARRIER], unique=True)
    Table("stray", metadata, Column("id", Integer, primary_key=True),
          Column("good_id", Integer, ForeignKey("good.id")))  # fmt: skip

    assert table_problems(
        {name: CARRIER in table.c for name, table in metadata.tables.items()},
        {CARRIERS: "", "good": ""},
    ) == [
        f"stray: has no {CARRIER} and is not in GLOBAL_TABLES; give it {CARRIER} (and "
        "row-level security) or list it there with the reason it is global",
        f"good: is in GLOBAL_TABLES but has {CARRIER}; take it out of the list",
    ]
    assert key_problems(metadata_keys(metadata), tenant_tables(metadata)) == [
        f"bad: primary key pk_bad (id, {CARRIER}): has {CARRIER} but not first (the house "
        "rule: it leads every key)",
        f"bad: unique constraint uq_bad_code (code): lacks {CARRIER}: Citus can not enforce "
        "it across shards",
        f"bad: unique index uq_bad_code_carrier (code, {CARRIER}): has {CARRIER} but not "
        "first (the house rule: it leads every key)",
    ]
    assert foreign_key_problems(metadata) == [
        f"bad: foreign key fk_bad (good_id, {CARRIER}) -> good (id, {CARRIER}): must start "
        f"with {CARRIER} -> good.{CARRIER}, so the join stays on one shard",
        f"bad: foreign key fk_other (other_carrier) -> {CARRIERS} (id): a tenant row refers "
        f"to {CARRIERS} by its own {CARRIER} alone (another column would point at another "
        "carrier)",
        "stray: foreign key fk_stray_good (good_id) -> good (id): a global table can not "
        "refer to a tenant (distributed) table in Citus",
    ]


# --- the migrated database -------------------------------------------------------------------


@pytest.fixture
def migrated(backend, request):
    """An engine on a database migrated to head: the SQLite template (read only), or this
    worker's PostgreSQL database as its owner."""
    if backend == "sqlite":
        engine = create_engine(f"sqlite:///{request.getfixturevalue('sqlite_template')}")
        yield engine
        engine.dispose()
    else:
        yield request.getfixturevalue("pg_database")["engine"]


PG_TABLES = """
SELECT c.relname,
       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid
               AND a.attname = :carrier AND a.attnum > 0 AND NOT a.attisdropped)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
"""

# Each table's primary key and unique indexes (a unique constraint's index is named after
# it), with their key columns in order; an expression reads as pg_get_indexdef renders it.
PG_KEYS = """
SELECT t.relname, i.relname, x.indisprimary,
       EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid
               AND k.conrelid = x.indrelid AND k.contype IN ('p', 'u')),
       ARRAY(SELECT coalesce(a.attname::text, pg_get_indexdef(x.indexrelid, k.n::int, true))
             FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
             LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
                  AND k.attnum > 0
             WHERE k.n <= x.indnkeyatts ORDER BY k.n)
FROM pg_index x
JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE n.nspname = 'public' AND x.indisunique
"""


def database_tables(engine: Engine) -> dict[str, bool]:
    """Each table of the database, and whether it has a carrier column."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            return dict(conn.execute(text(PG_TABLES), {"carrier": CARRIER}).all())
    inspector = inspect(engine)
    return {
        name: CARRIER in {column["name"] for column in inspector.get_columns(name)}
        for name in inspector.get_table_names()
    }


def database_keys(engine: Engine) -> list[Key]:
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            rows = conn.execute(text(PG_KEYS)).all()
        return [
            Key(
                table,
                PRIMARY_KEY if primary else UNIQUE_CONSTRAINT if constraint else UNIQUE_INDEX,
                name,
                tuple(columns),
            )
            for table, name, primary, constraint, columns in rows
        ]
    # SQLite keeps a constraint's name only in its table's SQL, which the inspector reads.
    inspector = inspect(engine)
    keys = []
    for table in inspector.get_table_names():
        primary = inspector.get_pk_constraint(table)
        keys.append(Key(table, PRIMARY_KEY, primary["name"], tuple(primary["constrained_columns"])))
        keys += [
            Key(table, UNIQUE_CONSTRAINT, unique["name"], tuple(unique["column_names"]))
            for unique in inspector.get_unique_constraints(table)
        ]
        keys += [
            Key(
                table,
                UNIQUE_INDEX,
                index["name"],
                tuple(
                    column or expression
                    for column, expression in zip(
                        index["column_names"],
                        index.get("expressions", index["column_names"]),
                        strict=True,
                    )
                ),
            )
            for index in inspector.get_indexes(table)
            if index["unique"]
        ]
    return keys


def test_the_database_has_no_global_table_that_is_not_listed(migrated):
    tables = database_tables(migrated)
    tenants = {name for name, tenant in tables.items() if tenant}
    assert tenants == set(TENANT_TABLES), (
        f"with {CARRIER} in the database only: {sorted(tenants - set(TENANT_TABLES))}; "
        f"in the models only: {sorted(set(TENANT_TABLES) - tenants)}"
    )
    problems = table_problems(tables, GLOBAL_TABLES) + [
        f"{name}: is in GLOBAL_TABLES but the migrations make no such table; take it out"
        for name in sorted(GLOBAL_TABLES)
        if name not in tables
    ]
    assert not problems, "\n".join(problems)


def test_the_database_keys_of_every_tenant_table_start_with_the_carrier(migrated):
    keys = database_keys(migrated)
    problems = without_primary_key(keys, TENANT_TABLES) + key_problems(keys, TENANT_TABLES)
    assert not problems, "\n".join(problems)


def test_the_database_keys_of_every_tenant_table_are_the_models(migrated):
    found = {key for key in database_keys(migrated) if key.table in TENANT_TABLES}
    expected = {key for key in metadata_keys(METADATA) if key.table in TENANT_TABLES}
    assert len(expected) > len(TENANT_TABLES)  # a primary key each, and unique keys
    problems = [f"{key}: in the models, not in the database" for key in expected - found] + [
        f"{key}: in the database, not in the models" for key in found - expected
    ]
    assert not problems, "\n".join(sorted(problems))


def test_the_distribution_statements_name_every_tenant_table_after_those_it_refers_to(tmp_path):
    from portal import create_app

    app = create_app(
        {"TESTING": True, "SECRET_KEY": "x", "INSTANCE_PATH": str(tmp_path),
         "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}"}
    )  # fmt: skip
    result = app.test_cli_runner().invoke(args=["citus-sql"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:2] == [
        "SET citus.enable_unsafe_triggers = on;",
        "SELECT create_reference_table('transporteurs');",
    ]
    order = [line.split("'")[1] for line in lines[2:]]
    assert sorted(order) == sorted(TENANT_TABLES)
    for table in Task.metadata.sorted_tables:
        if table.name in TENANT_TABLES:
            for fk in table.foreign_keys:
                referred = fk.column.table.name
                if referred in TENANT_TABLES and referred != table.name:
                    assert order.index(referred) < order.index(table.name), (table.name, referred)
