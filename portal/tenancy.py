"""The carrier scope: the current carrier, the CarrierScoped mixin and the RLS session hook.

Every tenant row carries `transporteur_id`. Services take the carrier explicitly and filter
on it; on PostgreSQL, row-level security backs that up. The policy reads the transaction
setting `app.transporteur_id`, which the `after_begin` hook below sets at the start of every
transaction (transaction-local, so nothing leaks through a connection pool).
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager

from flask import g, has_app_context
from sqlalchemy import ForeignKey, Uuid, event, select, text
from sqlalchemy.orm import Mapped, Session, mapped_column, scoped_session

from portal.types import new_id

SET_CARRIER_SQL = text("SELECT set_config('app.transporteur_id', :carrier, true)")


class CarrierScoped:
    """Mixin: primary key (transporteur_id, id), the carrier column leading every key."""

    transporteur_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("transporteurs.id"), primary_key=True, sort_order=-20
    )
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=new_id, sort_order=-19)


def current_carrier() -> uuid.UUID | None:
    """The carrier of the running request or command, if one is set."""
    if not has_app_context():
        return None
    return g.get("carrier_id")


def _real(session) -> Session:
    return session() if isinstance(session, scoped_session) else session


def _apply(connection, carrier_id: uuid.UUID | None) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(SET_CARRIER_SQL, {"carrier": str(carrier_id) if carrier_id else ""})


def activate(session: Session, carrier_id: uuid.UUID | None, *, flush: bool = True) -> None:
    """Make carrier_id the scope of this app context, including an already open transaction.

    Pending changes are flushed first, while their own carrier is still the scope: flushed
    later they would be written as the next carrier, which row-level security refuses
    (`new row violates row-level security policy`), or worse, on SQLite, lets through."""
    session = _real(session)
    if flush and session.is_active and (session.new or session.dirty or session.deleted):
        session.flush()
    g.carrier_id = carrier_id
    if session.in_transaction():
        _apply(session.connection(), carrier_id)


@contextmanager
def carrier_scope(session: Session, carrier_id: uuid.UUID | None):
    """Run a block (CLI command, job, test) as carrier_id; restores the previous scope.

    What the block added is flushed before the scope ends; after an error it is left to the
    caller's rollback."""
    previous = current_carrier()
    activate(session, carrier_id)
    try:
        yield
    except BaseException:
        activate(session, previous, flush=False)
        raise
    activate(session, previous)


@event.listens_for(Session, "after_begin")
def _set_carrier_on_begin(session, transaction, connection):
    _apply(connection, current_carrier())


def lookup(session: Session, function: str, fallback, **params) -> list[tuple]:
    """The rows of a look-up made before the carrier is known (signing in by email, a key
    or token by its hash; the carriers with messages due).

    On PostgreSQL the owner's SECURITY DEFINER function `function` answers (migration
    c0d1c0de0180): only the carrier and id of exact matches; the caller then reads the row
    itself as that carrier, under row-level security. The app role has no way to read
    another carrier's rows. Elsewhere (SQLite: no row-level security) `fallback`, the same
    selection as a statement, answers. `params` in the function's argument order."""
    if session.get_bind().dialect.name == "postgresql":
        arguments = ", ".join(f":{name}" for name in params)
        statement = text(f"SELECT * FROM {function}({arguments})")  # names of our own
        return [tuple(row) for row in session.execute(statement, params)]
    return [tuple(row) for row in session.execute(fallback)]


def found_row(session: Session, model, carrier_id: uuid.UUID, row_id: uuid.UUID):
    """A row that lookup() found, read as its carrier, who is the scope from then on."""
    activate(session, carrier_id)
    return session.scalar(
        select(model).where(model.transporteur_id == carrier_id, model.id == row_id)
    )


def found_by(session: Session, model, function: str, column, value: str):
    """The one row of model whose column equals value (a secret's hash, a token), found by
    the owner's function and read as its carrier, or None."""
    found = lookup(
        session, function, select(model.transporteur_id, model.id).where(column == value), v=value
    )
    return found_row(session, model, *found[0]) if found else None
