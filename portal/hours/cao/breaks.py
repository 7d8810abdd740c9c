"""The break rules of EU directive 2002/15 art. 5 (Arbeidstijdenbesluit vervoer), checked
per work day on its working time (`ARBEIDSTIJD`, availability and breaks excluded) and
shown on the day it started: `pauze_te_kort` when more than 6 hours of working time have
less than 30 minutes of break, or more than 9 hours less than 45;
`langer_dan_6_uur_zonder_pauze` when more than 6 hours of working time follow one another
without a break. A break is a `pauze` activity or time without any activity, of at least 15
minutes (shorter parts do not count), between two stretches of work. Availability is
neither work nor break."""

from __future__ import annotations

from datetime import date

from portal.hours.cao.clock import Clock, Shift
from portal.hours.cao.result import Day

# Working time as portal.hours.models.WERKTIJD_SOORTEN has it (a test keeps them equal).
ARBEIDSTIJD = ("rijden", "laden", "lossen", "wachten", "overig_werk")
PAUZE_DEEL_MIN = 15
PAUZE_EISEN = ((9 * 60, 45), (6 * 60, 30))  # more working time than this: at least so much break
MAX_ZONDER_PAUZE = 6 * 60


def check_breaks(shift: Shift, per_dag: dict[date, Day], clock: Clock) -> None:
    """The break rules of directive 2002/15 over one work day, on the day it started."""
    dag = per_dag.get(clock.step(shift.begin)[0])
    if dag is None:
        return
    # The work day as runs of work ("w"), break ("p": pauze or no activity) and other time.
    runs: list[list] = []
    cursor = shift.begin
    for soort, begin, einde in shift.activiteiten:
        kind_run = "w" if soort in ARBEIDSTIJD else "p" if soort == "pauze" else "b"
        for kind, minuten in (("p", begin - cursor), (kind_run, einde - begin)):
            if minuten and runs and runs[-1][0] == kind:
                runs[-1][1] += minuten
            elif minuten:
                runs.append([kind, minuten])
        cursor = einde
    work = [i for i, (kind, _) in enumerate(runs) if kind == "w"]
    pauze, series, longest = 0, 0, 0
    for i, (kind, minuten) in enumerate(runs):
        if kind == "w":
            series += minuten
            longest = max(longest, series)
        elif kind == "p" and minuten >= PAUZE_DEEL_MIN and work and work[0] < i < work[-1]:
            pauze += minuten
            series = 0
    werk_min = sum(runs[i][1] for i in work)
    needed = next((requirement for grens, requirement in PAUZE_EISEN if werk_min > grens), 0)
    if pauze < needed and "pauze_te_kort" not in dag.waarschuwingen:
        dag.waarschuwingen.append("pauze_te_kort")
    if longest > MAX_ZONDER_PAUZE and "langer_dan_6_uur_zonder_pauze" not in dag.waarschuwingen:
        dag.waarschuwingen.append("langer_dan_6_uur_zonder_pauze")
