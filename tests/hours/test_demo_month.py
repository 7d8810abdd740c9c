"""A month of demo hours, computed twice: by the payable-hours module and here, minute by
minute, straight from the rules as the CAO words them (docs/cao.md):

- each paid minute in time order; a paid holiday on a weekday not worked notes a fifth of
  the contract hours, at most 8 (art. 64, art. 8 lid 2a), counted first;
- the first contract minutes within the contract;
- overtime: weekday minutes beyond 40 hours (the CAO up to 2025, art. 27 lid 1) or beyond
  the contract hours when those are under 40 (the CAO 2026, art. 27 lid 1); a weekday
  minute beyond the contract that is not overtime is meeruren (100%);
- Sunday and holidays 200, Saturday 150, overtime 130 unless its irregular-hours window
  pays more or the rule set pays the window alone where they meet; every other minute
  normal or meeruren, and irregular when its window is above 100;
- a paid minute of a trip of at most 24 hours between 21:00 and 05:00 earns the night-trip
  surcharge besides (art. 37 lid 1 and 3), unless it earns a window's rate (lid 2).

The two must agree on every week of every driver."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from portal.demo import CARRIERS, seed
from portal.demo.hours import WEEKS_BACK
from portal.extensions import db
from portal.hours import cao
from portal.hours.days import queries
from portal.hours.payroll import payable, rulesets
from portal.hours.totals import IsoWeek
from portal.tenancy import carrier_scope

AMS = ZoneInfo("Europe/Amsterdam")


@pytest.fixture
def seeded(app):
    with app.app_context():
        logins = seed()
        db.session.commit()
    return logins


def overtime_from(rules: cao.PayRules, week: IsoWeek, contract_min: int) -> int:
    """Weekday minutes after which overtime starts, as art. 27 of the week's CAO says."""
    rule = rules.overuren_grens
    if rule == "cao":
        rule = "contract" if week.jaar >= 2026 else "week_40"
    assert rule in ("week_40", "contract")  # the demo has no on-call drivers
    return 40 * 60 if rule == "week_40" else min(contract_min, 40 * 60)


def by_hand(days, week: IsoWeek, rules: cao.PayRules, contract_min: int) -> dict:
    start = datetime.combine(week.monday, time(0), tzinfo=AMS)
    end = datetime.combine(week.monday + timedelta(days=7), time(0), tzinfo=AMS)
    minutes = []
    for day, activities in days:
        one_day = day.beeindigd_op - day.gestart_op <= timedelta(hours=24)
        for activity in activities:
            if activity.soort not in rules.betaalde_soorten:
                continue
            moment = max(activity.begin, start)
            while moment < min(activity.einde, end):
                minutes.append((moment.astimezone(AMS), one_day))
                moment += timedelta(minutes=1)
    minutes.sort()
    free = {}
    for year in {week.monday.year, week.sunday.year}:
        free |= cao.feestdagen(year, rules.feestdagen, rules.extra_feestdagen)
    windows = {}
    for venster in rules.vensters:
        van = cao.rules.minute_of_day(venster.van)
        tot = cao.rules.minute_of_day(venster.tot, einde=True)
        for day in venster.dagen:
            windows.setdefault(day, []).append((van, tot, venster))
    night_from = cao.rules.minute_of_day(rules.nachtrit_van)
    night_to = cao.rules.minute_of_day(rules.nachtrit_tot, einde=True)
    out = {"gewerkt_min": len(minutes), "normaal_min": 0, "meeruren_min": 0,
           "overuren_130_min": 0, "zaterdag_150_min": 0, "zondag_200_min": 0,
           "feestdag_min": 0, "nachttoeslag_min": 0, "onregelmatig": {}}  # fmt: skip
    worked = {minute.date() for minute, _ in minutes}
    for day in week.days()[:5]:
        if day in free and day not in worked:
            out["feestdag_min"] += min(8 * 60, contract_min // 5)
    over_from = overtime_from(rules, week, contract_min)
    counted = out["feestdag_min"]
    for minute, one_day in minutes:
        within = counted < contract_min
        over = minute.isoweekday() <= 5 and counted >= over_from
        counted += 1
        clock = minute.hour * 60 + minute.minute
        window = next(
            (v for van, tot, v in windows.get(minute.isoweekday(), []) if van <= clock < tot),
            None,
        )
        percent = window.procent if window else 100
        at_night = clock >= night_from or clock < night_to
        window_pays = percent > 100
        if minute.date() in free or minute.isoweekday() == 7:
            out["zondag_200_min"] += 1
            window_pays = False
        elif minute.isoweekday() == 6:
            out["zaterdag_150_min"] += 1
            window_pays = False
        elif over and not (
            window_pays and (rules.samenloop == "onregelmatig" or percent > rules.overuren_procent)
        ):
            out["overuren_130_min"] += 1
            window_pays = False
        else:
            out["normaal_min" if within else "meeruren_min"] += 1
            if window_pays:
                out["onregelmatig"][window.naam] = out["onregelmatig"].get(window.naam, 0) + 1
        if one_day and rules.nachtrit_procent and at_night and not window_pays:
            out["nachttoeslag_min"] += 1
    out["aanvulling_min"] = max(0, contract_min - len(minutes) - out["feestdag_min"])
    return out


def test_every_demo_week_adds_up_as_the_cao_words_it(app, seeded):
    from portal.drivers.models import Driver

    checked, allowances, contracts, nights = 0, Decimal(0), set(), 0
    with app.app_context():
        for carrier_id in (spec["id"] for spec in CARRIERS):
            with carrier_scope(db.session, carrier_id):
                drivers = db.session.query(Driver).filter_by(transporteur_id=carrier_id).all()
                sets = rulesets.rule_sets(carrier_id=carrier_id)
                this_week = IsoWeek.of(datetime.now(AMS).date())
                weeks = [this_week.shifted(-n) for n in range(WEEKS_BACK, -1, -1)]
                computed = payable.payable_weeks(
                    carrier_id=carrier_id, driver_ids={d.id for d in drivers}, weeks=weeks
                )
                days = queries.work_days_of_drivers(
                    carrier_id=carrier_id,
                    driver_ids={d.id for d in drivers},
                    van=datetime.combine(weeks[0].monday - timedelta(days=1), time(0), AMS),
                    tot=datetime.combine(this_week.monday + timedelta(days=7), time(0), AMS),
                )
                for driver in drivers:
                    for week in weeks:
                        rules = cao.pay_rules_for_week(sets, week.monday)
                        uren = driver.contracturen or rules.contracturen
                        expected = by_hand(days[driver.id], week, rules, int(uren * 60))
                        total = computed[driver.id, week].result.totaal
                        got = {
                            name: getattr(total, name)
                            for name in expected
                            if name != "onregelmatig"
                        }
                        got["onregelmatig"] = {
                            o.venster: o.min for o in total.onregelmatig if o.min
                        }
                        assert got == expected, (driver.naam, week.label)
                        checked += 1 if expected["gewerkt_min"] else 0
                        nights += total.nachttoeslag_min
                        allowances += total.verblijfkosten_eur
                        contracts.add(computed[driver.id, week].result.contract_min)
    # Every demo driver works most weeks of the month.
    assert checked >= 4 * 4
    # The demo's rule set pays allowances, the night shifts earn the night-trip surcharge,
    # and one driver has a 32-hour contract.
    assert allowances > 0
    assert nights > 0
    assert contracts == {40 * 60, 32 * 60}
