"""The moments of a task that higher domains act on, and the questions tasks asks them.

Tasks stands below billing and tacho, so it imports neither: it declares here what it lets
them do or asks them, and `portal/wiring.py` connects the answers.
"""

from __future__ import annotations

from portal.hooks import Hook, Provider

completed = Hook(
    "tasks.completed",
    """A task was completed: completed(carrier_id=, task=). Every completion passes here
    (the board, the driver's status move, POST afronding, a paper delivery note), in its
    transaction, with the task's row locked, its status and afgerond_op stamped and flushed,
    before the move is audited and its events are recorded. Billing makes the task's line.""",
)

holds_work = Hook(
    "tasks.holds_work",
    """Whether a higher domain holds work of the task: holds_work(carrier_id=, task_id=)
    -> bool per listener. A task that holds work is archived instead of deleted (billing:
    the task has a billing line).""",
)

driving_problems = Provider(
    "tasks.driving_problems",
    """For planned work [(driver_id, start, minutes)]: driving_problems(carrier_id=, plans=,
    now=) -> {plan: code} for the plans the driver cannot legally finish by the driving and
    rest rules (EU 561/2006; codes rijtijd_op, in_rust). Answered by tacho.""",
    default={},
)

out_of_scope = Provider(
    "tasks.out_of_scope",
    """Which planned work EU 561/2006 does not apply to: out_of_scope(carrier_id=, work=)
    with work [(activity_type, vehicle_id)] -> the set of those pairs out of scope (a
    vehicle of at most 40 km/h, an activity under a national exemption). Such work gets no
    driving-time warning. Answered by tacho; while nothing answers, all work is in scope.""",
    default=frozenset(),
)

changed = Hook(
    "tasks.changed",
    """A planner or integration changed a task's fields: changed(carrier_id=, task=,
    changes=) with changes {field: [old, new]}, after the change is flushed (update_task).
    A series lets a changed occurrence go: it no longer follows its series.""",
)

deleting = Hook(
    "tasks.deleting",
    """A task is about to be deleted or archived: deleting(carrier_id=, task_id=), before
    the row goes. A series forgets the task of its occurrence (the date stays made).""",
)
