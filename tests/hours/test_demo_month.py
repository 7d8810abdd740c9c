"""A month of demo hours, computed twice: by the payable-hours module and here, minute by
minute, straight from the rules as the CAO words them (each paid minute in time order; the
first contract minutes within the contract; Sunday and holidays 200, Saturday 150, beyond
the contract 130 unless a higher irregular-hours window; every other minute normal, and
irregular when its window is above 100). The two must agree on every week of every driver."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from portal.demo import CARRIERS, seed
from portal.demo.hours import WEEKS_BACK
from portal.extensions import db
from portal.hours import cao, payable, queries, rulesets
from portal.hours.totals import IsoWeek
from portal.tenancy import carrier_scope

AMS = ZoneInfo("Europe/Amsterdam")


@pytest.fixture
def seeded(app):
    with app.app_context():
        logins = seed()
        db.session.commit()
    return logins


def by_hand(activities, week: IsoWeek, rules: cao.Regelset, contract_min: int) -> dict:
    start = datetime.combine(week.monday, time(0), tzinfo=AMS)
    end = datetime.combine(week.monday + timedelta(days=7), time(0), tzinfo=AMS)
    minutes = []
    for activity in activities:
        if activity.soort not in rules.betaalde_soorten:
            continue
        moment = max(activity.begin, start)
        while moment < min(activity.einde, end):
            minutes.append(moment.astimezone(AMS))
            moment += timedelta(minutes=1)
    minutes.sort()
    free = {}
    for year in {week.monday.year, week.sunday.year}:
        free |= cao.feestdagen(year, rules.feestdagen, rules.extra_feestdagen)
    windows = {}
    for venster in rules.vensters:
        van = cao.rules.minuut_van_dag(venster.van)
        tot = cao.rules.minuut_van_dag(venster.tot, einde=True)
        for day in venster.dagen:
            windows.setdefault(day, []).append((van, tot, venster))
    out = {"gewerkt_min": len(minutes), "normaal_min": 0, "overuren_130_min": 0,
           "zaterdag_150_min": 0, "zondag_200_min": 0, "onregelmatig": {}}  # fmt: skip
    for index, minute in enumerate(minutes):
        beyond = index >= contract_min
        clock = minute.hour * 60 + minute.minute
        window = next(
            (v for van, tot, v in windows.get(minute.isoweekday(), []) if van <= clock < tot),
            None,
        )
        percent = window.procent if window else 100
        if minute.date() in free or minute.isoweekday() == 7:
            out["zondag_200_min"] += 1
        elif minute.isoweekday() == 6:
            out["zaterdag_150_min"] += 1
        elif beyond and (rules.samenloop == "hoogste" and rules.overuren_procent >= percent):
            out["overuren_130_min"] += 1
        else:
            out["normaal_min"] += 1
            if percent > 100:
                out["onregelmatig"][window.naam] = out["onregelmatig"].get(window.naam, 0) + 1
    out["aanvulling_min"] = max(0, contract_min - len(minutes))
    return out


def test_every_demo_week_adds_up_as_the_cao_words_it(app, seeded):
    from portal.drivers.models import Driver

    checked, allowances, contracts = 0, Decimal(0), set()
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
                    acts = [a for _, listed in days[driver.id] for a in listed]
                    for week in weeks:
                        rules = cao.regelset_voor_week(sets, week.monday)
                        uren = driver.contracturen or rules.contracturen
                        expected = by_hand(acts, week, rules, int(uren * 60))
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
                        allowances += total.verblijfkosten_eur
                        contracts.add(computed[driver.id, week].result.contract_min)
    # Every demo driver works most weeks of the month.
    assert checked >= 4 * 4
    # The demo's rule set pays allowances, and one driver has a 32-hour contract.
    assert allowances > 0
    assert contracts == {40 * 60, 32 * 60}
