"""Switching an object off (or on again), audited: the one shape for drivers, portal users,
API keys and webhook endpoints.

`switch(target, kind=..., on=False, ...)`:
1. does nothing when the target already is in that state (idempotent: no entry either);
2. runs `check()` (refuses by raising, before anything changed: e.g. the last admin);
3. sets the state (`kind.set`);
4. runs `then()`: what else must happen, in the same transaction; usually a domain's
   `Hook` bound to its facts (`functools.partial(deactivated, carrier_id=..., ...)`);
5. writes one audit entry: `kind.off_action` or `kind.on_action`, with `{flag: [old, new]}`
   when the kind audits its flag.

A `Switchable` names one kind of object as the audit trail does. Its state is a boolean
column (`actief` by default); a kind whose state is something else (an API key is on while
it has no revocation time) subclasses it and overrides `is_on` and `set`.

This module imports no domain: every domain above audit may use it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from portal.audit import service as audit
from portal.audit.service import Actor


@dataclass(frozen=True)
class Switchable:
    """One kind of object that is switched off (and perhaps on again)."""

    entity: str  # as the audit trail names it: "driver", "user", "api_key", ...
    off_action: str = "deactivated"
    on_action: str = "reactivated"
    flag: str = "actief"  # the boolean column that says the object is on
    audit_flag: bool = True  # the entry holds {flag: [old, new]}

    def is_on(self, target: Any) -> bool:
        return bool(getattr(target, self.flag))

    def set(self, target: Any, on: bool) -> None:
        setattr(target, self.flag, on)


def switch(
    target: Any,
    *,
    kind: Switchable,
    on: bool,
    carrier_id: uuid.UUID,
    actor: Actor,
    check: Callable[[], object] | None = None,
    then: Callable[[], object] | None = None,
) -> bool:
    """Switch the target on or off (see the module's docstring); answers whether it changed."""
    if kind.is_on(target) == on:
        return False
    if check is not None:
        check()
    kind.set(target, on)
    if then is not None:
        then()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity=kind.entity,
        entity_id=target.id,
        action=kind.on_action if on else kind.off_action,
        changes={kind.flag: [not on, on]} if kind.audit_flag else None,
    )
    return True


def switch_off(target: Any, **how: Any) -> bool:
    """`switch(target, on=False, ...)`: deactivate, revoke, pause."""
    return switch(target, on=False, **how)


def switch_on(target: Any, **how: Any) -> bool:
    """`switch(target, on=True, ...)`: reactivate, resume."""
    return switch(target, on=True, **how)
