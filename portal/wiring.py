"""Every hook, in one place: what a domain's moment makes higher domains do.

A lower domain never imports a higher one (docs/architecture.md, "Dependencies point one
way"). Where one of its moments needs a higher domain to act, or it needs an answer only a
higher domain has, it declares a `Hook` or a `Provider` (portal/hooks.py), and this module,
run once by `create_app`, connects them. Read a section to know what happens when: the
listeners of a hook run in the caller's transaction, in the order they are connected here.
"""

from __future__ import annotations

_connected = False


def connect() -> None:
    """Connect every hook (once per process: hooks are module state, shared by apps)."""
    global _connected
    if _connected:
        return
    _connected = True
    _events_for_carriers_systems()
    _drivers()
    _customers()
    _billing()
    _hours()
    _tasks()
    _series()
    _couplings()


def _events_for_carriers_systems() -> None:
    """Events (portal/events.py) are recorded by the webhooks domain, which knows who
    subscribed; each type's data has the shape the API gives (webhooks/shapes.py)."""
    from portal import events
    from portal.webhooks import recording, shapes

    events.subscriptions.connect(recording.subscriptions)
    events.recorder.connect(recording.record)
    events.register_shape("taak.aangemaakt", shapes.task_shape)
    events.register_shape("taak.gewijzigd", shapes.task_shape)
    events.register_shape("taak.status_gewijzigd", shapes.status_shape)
    events.register_shape("taak.afgerond", shapes.completed_shape)
    events.register_shape("voertuigsessie.actief", shapes.vehicle_session_shape)


def _drivers() -> None:
    """When a driver is deactivated: every token of theirs is refused, the vehicle they
    drove is free again (its session ended), and their phones get no more pushes; then
    drivers writes the audit entry. When the office signs a phone out: its tokens are
    refused (drivers), then the driver's push subscriptions are forgotten."""
    from portal.drivers import service as drivers
    from portal.drivers import tokens
    from portal.fleet import sessions
    from portal.messages import service as messages

    drivers.deactivated.connect(tokens.refuse_tokens)
    drivers.deactivated.connect(sessions.free_the_vehicle)
    drivers.deactivated.connect(messages.forget_phones)
    tokens.phone_signed_out.connect(messages.forget_phones)


def _customers() -> None:
    """What keeps a customer from being deleted, what a removed place lets go of, and what a
    changed VAT treatment prices again: the domains that refer to customers answer for
    their own tables."""
    from portal.billing import service as billing
    from portal.customers import service as customers
    from portal.tasks import route

    customers.usage_checks.connect(route.customer_in_use)
    customers.usage_checks.connect(billing.customer_in_use)
    customers.place_removal.connect(route.detach_place)
    customers.vat_changed.connect(billing.reprice_customer)


def _billing() -> None:
    """Hourly tariffs bill the time the driver's activities record on a task: hours (which
    stands above billing) answers for its activities."""
    from portal.billing import recorded_time
    from portal.hours import task_time

    recorded_time.task_minutes.connect(task_time.worked_minutes)


def _hours() -> None:
    """A week's review sets the driver's tachograph days beside the app's hours: tacho
    (which stands above hours) answers with its days and their differences."""
    from portal.hours.review import week
    from portal.tacho import driving

    week.driving_days.connect(driving.days)


def _tasks() -> None:
    """What a task's moments make the domains above tasks do (portal/tasks/hooks.py): a
    completion makes its billing line; a task with a billing line is archived, not deleted;
    the planning warns when the driver's driving and rest times (tacho) do not allow it,
    for work EU 561/2006 applies to (tacho's scope)."""
    from portal.billing import service as billing
    from portal.tacho import driving, scope
    from portal.tasks import hooks as tasks

    tasks.completed.connect(billing.line_for_completion)
    tasks.holds_work.connect(billing.has_line)
    tasks.driving_problems.connect(driving.planning_problems)
    tasks.out_of_scope.connect(scope.out_of_scope_work)


def _couplings() -> None:
    """A coupling for a task asks the tasks domain (above fleet) for the task's vehicle, day
    and window, and for those of the tasks its vehicles are coupled for (overlaps)."""
    from portal.fleet import couplings
    from portal.tasks import combinations

    couplings.task_slots.connect(combinations.task_slots)


def _series() -> None:
    """A series' occurrence changed by hand leaves the series (tasks.changed); a deleted one
    forgets its task and is not made again (tasks.deleting). A template keeps a customer
    from deletion, and a removed place leaves templates the address they copied."""
    from portal.customers import service as customers
    from portal.series import planning
    from portal.series import service as series
    from portal.tasks import hooks as tasks

    tasks.changed.connect(planning.task_changed)
    tasks.deleting.connect(planning.task_deleting)
    customers.usage_checks.connect(series.customer_in_use)
    customers.place_removal.connect(series.detach_place)
