"""An independent reading of a driver card's activity, written from the regulation's words
alone (it imports nothing of portal/), to hold the portal's reading against.

Sources, Annex IC (Implementing Reg. (EU) 2016/799) Appendix 1, the data dictionary, as the
Gen1 Annex IB (Reg. (EC) 1360/2002) also has them:

- 2.17 CardDriverActivity: "activityPointerOldestDayRecord is the specification of the begin
  of the storage place (number of bytes from the beginning of the string) of the oldest
  complete day record"; activityPointerNewestRecord likewise of "the most recent day record";
  the string "is cyclically filled with records of CardActivityDailyRecord ... When the string
  is full, storing continues at the first byte of the string independently of a break being
  inside a data element."
- 2.9 CardActivityDailyRecord: activityPreviousRecordLength (2 bytes), activityRecordLength
  ("the total length in bytes of this record", 2), activityRecordDate (TimeReal, 4),
  activityDailyPresenceCounter (BCD, 2), activityDayDistance (2), then activityChangeInfo,
  "the set of ActivityChangeInfo data for the driver this day ... This set always includes the
  activityChangeInfo coding the driver status at 00:00."
- 2.1 ActivityChangeInfo, 'scpaattttttttttt'B, for driver card recordings: s slot (0 driver,
  1 co-driver); c driving status when p = 0 (0 single, 1 crew), "following activity status"
  when p = 1 (0 unknown, 1 known = manually entered); p card status (0 inserted, 1 not
  inserted); aa activity (00 break/rest, 01 availability, 10 work, 11 driving; "not relevant
  when p = 1 and c = 0"); t "number of minutes since 00h00 on the given day".
- 2.162 TimeReal: seconds since 1970-01-01 00:00 UTC.

How long a change lasts is not a field: it lasts until the next change as recorded (issue 29
part 8: max(0, next minute - its minute), the records being in the order the card made them),
and the last change of a day until the next day's status at 00:00, i.e. 24:00, except on the
day of the download, whose data end at the moment of the download. Where a next minute is
smaller, the card was moved to a vehicle unit whose clock was that many minutes behind.

This walks the ring FORWARD from the oldest record by each record's own length (the portal
walks back from the newest by the previous record's length), so the two agree only when both
read the buffer right.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime

ACTIVITY_NAMES = {0b00: "rest", 0b01: "availability", 0b10: "work", 0b11: "driving"}
KINDS = ("driving", "work", "availability", "rest", "unknown")


@dataclass
class Word:
    slot: int
    c: int
    p: int
    aa: int
    minute: int

    @property
    def kind(self) -> str:
        """What the minutes after this word count as."""
        if self.p == 1 and self.c == 0:
            return "unknown"  # card not inserted, the following activity not known
        return ACTIVITY_NAMES[self.aa]  # inserted, or not inserted and entered by hand


@dataclass
class Day:
    date: date
    presence: int
    distance: int
    words: list[Word]
    # (minute, kind, minutes it lasted), in recorded order
    spans: list[tuple[int, str, int]] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    # (minute of the change before the step back, minute after it, minutes behind)
    steps_back: list[tuple[int, int, int]] = field(default_factory=list)


def word(value: int) -> Word:
    return Word(
        slot=(value >> 15) & 1,
        c=(value >> 14) & 1,
        p=(value >> 13) & 1,
        aa=(value >> 11) & 0b11,
        minute=value & 0b111_1111_1111,
    )


def bcd(raw: bytes) -> int:
    return int(raw.hex())


def days(ef_value: bytes, *, downloaded: datetime | None = None) -> list[Day]:
    """Every day record of an EF_Driver_Activity_Data value, oldest first, with what each
    change lasted; `downloaded` ends the download day's data."""
    oldest = int.from_bytes(ef_value[0:2], "big")
    newest = int.from_bytes(ef_value[2:4], "big")
    ring = ef_value[4:]

    def read(at: int, size: int) -> bytes:
        return bytes(ring[(at + i) % len(ring)] for i in range(size))

    out = []
    at = oldest
    while True:
        length = int.from_bytes(read(at + 2, 2), "big")
        record = read(at, length)
        when = datetime.fromtimestamp(int.from_bytes(record[4:8], "big"), UTC)
        words = [word(int.from_bytes(record[i : i + 2], "big")) for i in range(12, length, 2)]
        out.append(
            Day(
                date=when.date(),
                presence=bcd(record[8:10]),
                distance=int.from_bytes(record[10:12], "big"),
                words=words,
            )
        )
        if at == newest:
            break
        at = (at + length) % len(ring)
        assert len(out) <= 366, "the chain never reached the newest record"
    for day in out:
        end = 24 * 60
        if downloaded is not None and downloaded.date() == day.date:
            end = downloaded.hour * 60 + downloaded.minute
        _spans(day, end)
    return out


def _spans(day: Day, end: int) -> None:
    day.totals = dict.fromkeys(KINDS, 0)
    for i, w in enumerate(day.words):
        following = day.words[i + 1].minute if i + 1 < len(day.words) else 24 * 60
        if following < w.minute:
            day.steps_back.append((w.minute, following, w.minute - following))
        if w.minute >= end:
            continue
        lasted = max(0, min(following, end) - w.minute)
        day.spans.append((w.minute, w.kind, lasted))
        day.totals[w.kind] += lasted
