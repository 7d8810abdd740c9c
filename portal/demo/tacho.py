"""Demo tachograph downloads: the drivers' cards, recording the app's work days with a few
differences and infringements, and the tractors' vehicle units."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from portal.demo.hours import DAY_PLANS

# The card's activity for the app's kinds of work (portal.tacho.rules maps them alike).
CARD_ACTIVITY = {
    "rijden": "rijden",
    "laden": "werk",
    "lossen": "werk",
    "wachten": "werk",
    "overig_werk": "werk",
    "beschikbaarheid": "beschikbaar",
    "pauze": "rust",
}
# Where a demo card says something else than the app: the planner's reconciliation finds it.
CARD_EXTRA_DRIVING = timedelta(minutes=40)


def _card_timeline(index: int, app_days, first: date, until: datetime) -> list[tuple]:
    """A driver's card from `first` up to the download: the app's work days as the card
    records them, before the app's weeks the same shifts, weekends off; between shifts the
    card is out and the driver enters rest by hand. Deliberate differences: the first driver
    drove 40 minutes on after the app's last activity of one day; the second once drove 5 h 10
    without a break (and, see _truck_swap, changed trucks into one whose clock lags); the
    third left the card out one night without entering anything (unknown time) and moved the
    truck on a rest day without a work day in the app."""
    manual_rest = {"kaart_in": False, "handmatig": True}
    timeline: list[tuple] = [(datetime.combine(first, time(0), tzinfo=UTC), "rust", manual_rest)]
    recorded = {day.gestart_op.date(): (day, acts) for day, acts in app_days}
    earliest_app = min(recorded, default=until.date())
    clock, plan = DAY_PLANS[index % 2]
    hour, minute = (int(part) for part in clock.split(":"))
    day = first
    extra_done = gap_done = moved_done = False
    while day < until.date():
        if day in recorded:
            work_day, acts = recorded[day]
            for act in acts:
                timeline.append((act.begin, CARD_ACTIVITY[act.soort]))
            end = work_day.beeindigd_op
            if index == 0 and not extra_done and day.weekday() == 2:
                timeline.append((end, "rijden"))
                end += CARD_EXTRA_DRIVING
                extra_done = True
            if index == 2 and not gap_done:
                timeline.append((end, "onbekend", {"kaart_in": False}))
                gap_done = True
            else:
                timeline.append((end, "rust", manual_rest))
        elif index == 2 and not moved_done and earliest_app < day and day.weekday() == 2:
            # A rest day after a night shift: the card shows the truck moved, the app no
            # work day.
            begin = datetime.combine(day, time(13, 0), tzinfo=UTC)
            timeline += [
                (begin, "werk"),
                (begin + timedelta(minutes=10), "rijden"),
                (begin + timedelta(minutes=100), "werk"),
                (begin + timedelta(minutes=115), "rust", manual_rest),
            ]
            moved_done = True
        elif day < earliest_app and day.weekday() < 5:
            begin = datetime.combine(day, time(hour - 1, minute), tzinfo=UTC)
            steps = list(plan)
            if index == 1 and day.weekday() == 3 and (earliest_app - day).days < 9:
                # Five hours ten of driving before the first break.
                steps = [("rijden", 310), ("pauze", 45), ("rijden", 120), ("overig_werk", 20)]
            for soort, length in steps:
                timeline.append((begin, CARD_ACTIVITY[soort]))
                begin += timedelta(minutes=length)
            timeline.append((begin, "rust", manual_rest))
        day += timedelta(days=1)
    return [entry for entry in timeline if entry[0] < until]


# A truck whose tachograph's clock runs behind: the card records a step back in time.
LAGGING_CLOCK_MIN = 8


def _truck_swap(days: dict, before: date) -> None:
    """On the newest working day before `before`: at the first drive from 09:00 UTC the card
    goes to another truck whose tachograph's clock is LAGGING_CLOCK_MIN minutes behind, so
    the rest of the day is recorded that much earlier (the card keeps the order, the day
    view notes the clock)."""
    from portal.tacho.segments import Change

    for day in sorted((d for d in days if d < before), reverse=True):
        changes = days[day]
        at = next(
            (n for n, c in enumerate(changes) if c.activiteit == "rijden" and c.minuut >= 540),
            None,
        )
        if at is None:
            continue
        minute = changes[at].minuut
        later = [
            Change(c.minuut - LAGGING_CLOCK_MIN, c.activiteit, c.kaart_in, c.bemanning, c.handmatig)
            for c in changes[at:]
        ]
        days[day] = [*changes[:at], Change(minute, "onbekend", kaart_in=False), *later]
        return


def _card_vehicles(card_days: dict, trucks: list[str], index: int, until: datetime) -> list:
    """The truck a demo driver drove on each day the card shows driving: its first and last
    change of the day, and a plausible odometer (a card's EF_Vehicles_Used)."""
    from portal.tacho.ddd import VehicleUse
    from portal.tacho.segments import midnight

    if not trucks:
        return []
    plate = trucks[index % len(trucks)].replace("-", "")
    odometer = 412_000 + 37_000 * index
    used = []
    for day in sorted(card_days):
        changes = card_days[day]
        if not any(c.activiteit == "rijden" for c in changes):
            continue
        # From the first work of the day to the rest after the last.
        busy = [n for n, c in enumerate(changes) if c.activiteit in ("rijden", "werk")]
        after = busy[-1] + 1
        begin = midnight(day) + timedelta(minutes=changes[busy[0]].minuut)
        end_minute = changes[after].minuut if after < len(changes) else 24 * 60
        end = min(midnight(day) + timedelta(minutes=end_minute), until)
        km = 180 + 35 * ((day.toordinal() + index) % 5)
        used.append(VehicleUse(begin, end, odometer, odometer + km, plate, "NL"))
        odometer += km
    return used


def seed_tacho(carrier_id, driver_rows, vehicles, planner) -> None:
    """Tachograph downloads as a planner uploads them: each driver's card of the last four
    weeks, downloaded this morning (the first driver's also of the four weeks before, found
    again by its card number), and the vehicle units of the tractors (linked by the
    registration in the file). The cards hold the app's work days as a card records them,
    with a few differences and infringements for the checks to find."""
    import io

    from portal.audit.service import Actor
    from portal.tacho import service as tacho

    actor = Actor("user", planner.id, planner.naam)
    now = datetime.now(UTC)
    downloaded = _download_moment(now)
    uploads = _card_uploads(carrier_id, driver_rows, vehicles, downloaded)
    uploads += _vehicle_unit_uploads(carrier_id, vehicles, now.date())
    # Oldest first, as they came in: the older card download links the later one's driver.
    for moment, data, name, linked in sorted(uploads, key=lambda u: (u[0], u[2])):
        result = tacho.upload(
            carrier_id=carrier_id,
            stream=io.BytesIO(data),
            filename=name,
            actor=actor,
            driver_id=linked,
        )
        result.file.geupload_op = moment + timedelta(minutes=25)


def _download_moment(now: datetime) -> datetime:
    """This morning's download; before 07:00 UTC, last night's."""
    today = now.date()
    downloaded = datetime.combine(today, time(6, 30), tzinfo=UTC)
    if downloaded > now - timedelta(minutes=10):
        downloaded = datetime.combine(today - timedelta(days=1), time(21, 30), tzinfo=UTC)
    return downloaded


def _card_uploads(carrier_id, driver_rows, vehicles, downloaded: datetime) -> list[tuple]:
    """Each driver's card download(s): (moment, bytes, file name, driver id to link)."""
    from portal.hours import service as hours
    from portal.tacho.ddd.build import changes_from_timeline

    app = hours.work_days_of_drivers(
        carrier_id=carrier_id,
        driver_ids={d.id for d in driver_rows},
        van=downloaded - timedelta(days=60),
        tot=downloaded,
    )
    trucks = [v.kenteken for v in vehicles if v.soort == "opleggertrekker"]
    uploads = []
    for index, driver in enumerate(driver_rows):
        start = downloaded.date() - timedelta(days=56 if index == 0 else 28)
        timeline = _card_timeline(index, app[driver.id], start, downloaded)
        days = changes_from_timeline(timeline)
        if index == 1:
            _truck_swap(days, downloaded.date())
        periods = [(downloaded, days)]
        if index == 0:
            # An older download: the first four of those eight weeks, made back then.
            older = datetime.combine(start + timedelta(days=28), time(7, 15), tzinfo=UTC)
            older_days = changes_from_timeline([e for e in timeline if e[0] < older])
            periods = [
                (older, older_days),
                (
                    downloaded,
                    {d: c for d, c in days.items() if d >= older.date() - timedelta(days=27)},
                ),
            ]
        for moment, card_days in periods:
            # The first driver's newer download is linked through the older one's card.
            linked = None if index == 0 and moment == downloaded else driver.id
            data, name = _card_download(carrier_id, index, driver, card_days, trucks, moment)
            uploads.append((moment, data, name, linked))
    return uploads


def _card_download(carrier_id, index: int, driver, card_days, trucks, moment) -> tuple:
    """One driver card's download file and its name."""
    from portal.tacho.ddd.build import card_file

    first, *rest = driver.naam.split()
    number = f"NB{carrier_id.int % 10**6:06d}{index:06d}00"
    data = card_file(
        kaartnummer=number,
        achternaam=" ".join(rest).upper(),
        voornamen=first.upper(),
        dagen=card_days,
        download_time=moment,
        vehicles=_card_vehicles(card_days, trucks, index, moment),
    )
    return data, f"C_{moment:%Y%m%d_%H%M}_{first[0]}_{rest[-1]}_{number}.DDD"


def _vehicle_unit_uploads(carrier_id, vehicles, today: date) -> list[tuple]:
    """Each tractor's vehicle unit download of 30 days."""
    from portal.tacho import samples

    uploads = []
    for n, vehicle in enumerate(v for v in vehicles if v.soort == "opleggertrekker"):
        start = today - timedelta(days=31 + 14 * n)
        data = samples.vu_download(
            vin=f"XLRTEH4300G{carrier_id.int % 10**5:05d}{n}",
            kenteken=vehicle.kenteken,
            first_day=start,
            days=30,
            generation=2 if n == 0 else 1,
        )
        plate = vehicle.kenteken.replace("-", "")
        moment = datetime.combine(start + timedelta(days=30), time(8, 40), tzinfo=UTC)
        uploads.append((moment, data, f"M_{plate}_{start:%Y%m%d}.DDD", None))
    return uploads
