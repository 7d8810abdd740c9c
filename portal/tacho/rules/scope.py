"""Time out of the scope of EU 561/2006 (docs/eu561-scope.md): driving in a vehicle the
regulation does not cover (Art. 3, e.g. (b) a maximum authorised speed of 40 km/h or less)
or under a national exemption (Art. 13(1)) counts as other work for the rules (Art. 6(5),
9(3)): still working time, never driving. A finding over such time, with no driving in scope
in its period, is exempt (`vrijgesteld`), never an infringement. Pure: no Flask, no
database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from portal.tacho.rules.findings import Finding
from portal.tacho.rules.limits import VRIJGESTELD
from portal.tacho.segments import RIJDEN, WERK, Segment

# The article of a vehicle out of scope by its speed (Reg. 561/2006 Art. 3(b)).
ART_3_B = "3(b)"
MAX_SPEED_OUT_OF_SCOPE = 40  # km/h: "not exceeding 40 km/h"


@dataclass(frozen=True, slots=True)
class ExemptPeriod:
    """Time the regulation does not cover, and the article that says so."""

    begin: datetime
    eind: datetime
    grond: str  # e.g. "3(b)", "13(1)(c)"


@dataclass(frozen=True, slots=True)
class VehicleUse:
    """A card's time in a vehicle, by its registration as the card recorded it."""

    begin: datetime
    eind: datetime
    kenteken: str


def exempt_periods(
    uses: Iterable[VehicleUse], out_of_scope: Mapping[str, str], compact
) -> list[ExemptPeriod]:
    """The periods in a vehicle out of scope (`out_of_scope`: compact plate -> article),
    less any time the card was in a vehicle in scope then (its own record wins: it may not
    be counted away), oldest first."""
    exempt, inside = [], []
    for use in uses:
        if use.eind <= use.begin:
            continue
        grond = out_of_scope.get(compact(use.kenteken))
        if grond is None:
            inside.append(use)
        else:
            exempt.append(ExemptPeriod(use.begin, use.eind, grond))
    out = []
    for period in exempt:
        pieces = [period]
        for use in inside:
            pieces = [p for piece in pieces for p in _minus(piece, use.begin, use.eind)]
        out.extend(pieces)
    return sorted(out, key=lambda p: p.begin)


def _minus(period: ExemptPeriod, begin: datetime, eind: datetime) -> list[ExemptPeriod]:
    if eind <= period.begin or begin >= period.eind:
        return [period]
    out = []
    if begin > period.begin:
        out.append(replace(period, eind=begin))
    if eind < period.eind:
        out.append(replace(period, begin=eind))
    return out


def as_other_work(segments: Sequence[Segment], periods: Sequence[ExemptPeriod]) -> list[Segment]:
    """The segments with driving inside an exempt period counted as other work (Art. 6(5):
    driving a vehicle out of scope is recorded as other work); everything else unchanged."""
    if not periods:
        return list(segments)
    out: list[Segment] = []
    for segment in segments:
        if segment.activiteit != RIJDEN:
            out.append(segment)
            continue
        cursor = segment.begin
        for period in periods:
            if period.eind <= cursor or period.begin >= segment.eind:
                continue
            start, stop = max(period.begin, cursor), min(period.eind, segment.eind)
            if start > cursor:
                out.append(replace(segment, begin=cursor, eind=start))
            out.append(replace(segment, begin=start, eind=stop, activiteit=WERK))
            cursor = stop
        if cursor < segment.eind:
            out.append(replace(segment, begin=cursor))
    return _joined(out)


def _joined(segments: list[Segment]) -> list[Segment]:
    out: list[Segment] = []
    for s in segments:
        last = out[-1] if out else None
        if (
            last is not None
            and last.eind == s.begin
            and (last.activiteit, last.bron, last.bemanning) == (s.activiteit, s.bron, s.bemanning)
        ):
            out[-1] = replace(last, eind=s.eind)
        else:
            out.append(s)
    return out


def mark_exempt(
    findings: Iterable[Finding],
    segments: Sequence[Segment],
    periods: Sequence[ExemptPeriod],
) -> list[Finding]:
    """Findings over exempt time with no driving in scope in their period (`segments` as
    as_other_work gives them) marked `vrijgesteld` with the article; the others unchanged."""
    out = []
    for finding in findings:
        grond = _exempt_ground(finding, segments, periods)
        if grond is None:
            out.append(finding)
        else:
            out.append(
                replace(
                    finding,
                    soort=VRIJGESTELD,
                    ernst=None,
                    overschrijding_min=None,
                    vrijstelling=grond,
                )
            )
    return out


def _exempt_ground(finding, segments, periods) -> str | None:
    lo, hi = finding.begin, max(finding.eind, finding.begin)
    # Overlap, not mere touch: a rest found short right after a tractor run is not exempt
    # for that alone. A finding at one moment counts when that moment lies inside.
    ground = next(
        (
            p.grond
            for p in periods
            if (p.begin <= lo < p.eind if lo == hi else p.begin < hi and p.eind > lo)
        ),
        None,
    )
    if ground is None:
        return None
    driving_in_scope = any(
        s.activiteit == RIJDEN and s.begin < hi and s.eind > lo for s in segments
    )
    return None if driving_in_scope else ground
