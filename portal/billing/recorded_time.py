"""The time a task's own records give it, for tariffs per hour: the minutes the driver's
activities on the task record when there are any, else the time from its start to its
completion (status times). Nothing recorded: None, and an hourly line is held (no_duration).

The activities are the hours domain's, which stands above billing (it reads tasks, and tasks
bill through this domain): it registers its reader here (`on_task_minutes`, wired in
`portal/__init__.py`), so billing imports nothing of it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Source = Literal["activiteiten", "status"]

# task_minutes(carrier_id=, task=) -> the working minutes of the task's activities, or None
# when it has none.
TaskMinutes = Callable[..., int | None]
_readers: list[TaskMinutes] = []


def on_task_minutes(reader: TaskMinutes) -> TaskMinutes:
    """Register reader(carrier_id=, task=) -> the minutes the activities on the task record
    (None: none recorded)."""
    if reader not in _readers:
        _readers.append(reader)
    return reader


@dataclass(frozen=True)
class Recorded:
    minuten: int
    bron: Source  # activiteiten (the driver's hours) or status (started to completed)


def of_task(*, carrier_id: uuid.UUID, task) -> Recorded | None:
    """The minutes the task's own records give it, and where they come from; None when
    neither activities nor a start before the completion are recorded."""
    for reader in _readers:
        minutes = reader(carrier_id=carrier_id, task=task)
        if minutes:
            return Recorded(int(minutes), "activiteiten")
    if task.gestart_op is not None and task.afgerond_op is not None:
        # Whole minutes, as a clock shows them; started and completed in one go (on the
        # board, say) records no time.
        minutes = int((task.afgerond_op - task.gestart_op).total_seconds() // 60)
        if minutes > 0:
            return Recorded(minutes, "status")
    return None
