"""Fixtures of the hours tests."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest
from factories import Ref

from hours.support import activity_ids, at, record_day


@dataclass(frozen=True)
class RecordedDay:
    day: Ref
    activity_id: uuid.UUID  # its one activity: the drive


@pytest.fixture
def monday(app, carrier, driver) -> RecordedDay:
    """The day most hours tests start from: the driver's work day on Monday 16 November 2026
    (week 2026-W47), 06:00 to 16:00, with two hours of driving from 06:00."""
    day = record_day(
        app,
        carrier,
        driver,
        at("2026-11-16", "06:00"),
        at("2026-11-16", "16:00"),
        [("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "08:00"))],
    )
    (activity_id,) = activity_ids(app, carrier, day)
    return RecordedDay(day, activity_id)
