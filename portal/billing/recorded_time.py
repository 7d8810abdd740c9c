"""The time a task's own records give it, for tariffs per hour: the minutes the driver's
activities on the task record when there are any, else the time from its start to its
completion (status times). Nothing recorded: None, and an hourly line is held (no_duration).

The activities are the hours domain's, which stands above billing (it reads tasks, and tasks
bill through this domain): billing asks it through the Provider `task_minutes`, which
`portal/wiring.py` connects, so billing imports nothing of it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

from portal.hooks import Provider

Source = Literal["activiteiten", "status"]

task_minutes = Provider(
    "billing.task_minutes",
    """task_minutes(carrier_id=, task=) -> the working minutes the driver's activities on the
    task record, or None when it has none. Answered by hours.""",
)
# The name the wiring used before the Provider: connect the answer with it.


@dataclass(frozen=True)
class Recorded:
    minuten: int
    bron: Source  # activiteiten (the driver's hours) or status (started to completed)


def of_task(*, carrier_id: uuid.UUID, task) -> Recorded | None:
    """The minutes the task's own records give it, and where they come from; None when
    neither activities nor a start before the completion are recorded."""
    minutes = task_minutes(carrier_id=carrier_id, task=task)
    if minutes:
        return Recorded(int(minutes), "activiteiten")
    if task.gestart_op is not None and task.afgerond_op is not None:
        # Whole minutes, as a clock shows them; started and completed in one go (on the
        # board, say) records no time.
        minutes = int((task.afgerond_op - task.gestart_op).total_seconds() // 60)
        if minutes > 0:
            return Recorded(minutes, "status")
    return None
