"""The findings of the driving and rest rules over a driver's time: `check` walks both
readings (portal.tacho.rules.articles) and judges what they found.

A finding in both readings (same rule, overlapping period) is an infringement
(`overtreding`) with the optimistic figures; a finding in only one is `onvolledig` (the
check depends on the unknown time); adjoining incomplete findings of one rule are joined.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from portal.tacho.rules.articles import readings
from portal.tacho.rules.limits import ONVOLLEDIG, OVERTREDING
from portal.tacho.rules.walk import Raw, base, minute, moment
from portal.tacho.segments import APP, KAART, Segment


@dataclass(frozen=True, slots=True)
class Finding:
    soort: str  # OVERTREDING, ONVOLLEDIG or VRIJGESTELD (rules/scope.py)
    regel: str
    artikel: str
    ernst: str | None  # None for ONVOLLEDIG
    begin: datetime
    eind: datetime
    overschrijding_min: int | None
    bron: str  # "kaart" or "app"
    gemeten_min: int | None = None
    grens_min: int | None = None
    # The article of Reg. 561/2006 that puts the finding's time out of scope (soort
    # vrijgesteld, rules/scope.py), e.g. "3(b)"; None otherwise.
    vrijstelling: str | None = None

    @property
    def key(self) -> str:
        return f"{self.regel}:{self.begin.isoformat()}"


def _overlap(a: Raw, b: Raw) -> bool:
    return a.begin <= b.eind and b.begin <= a.eind


def check(
    segments: Sequence[Segment], *, van: datetime | None = None, tot: datetime | None = None
) -> list[Finding]:
    """The infringements and incomplete checks whose period overlaps [van, tot), in order of
    their begin (the keywords are the API's and the tests' names of a period). Pass segments
    from well before `van` (e.g. four weeks) so that shifts, weeks and weekly rests that
    began earlier are judged whole."""
    row, app, first, last = base(segments)
    if not row:
        return []
    both = readings(row, first, last)
    optimistic = both[0].raw
    pessimistic = both[1].raw if len(both) > 1 else None
    out: list[tuple[str, Raw]] = []
    if pessimistic is None:
        out = [(OVERTREDING, raw) for raw in optimistic]
    else:
        matched_p: set[int] = set()
        incomplete: list[Raw] = []
        for raw in optimistic:
            hit = [
                i for i, p in enumerate(pessimistic) if p.regel == raw.regel and _overlap(raw, p)
            ]
            if hit:
                matched_p.update(hit)
                out.append((OVERTREDING, raw))
            else:
                incomplete.append(raw)
        incomplete += [p for i, p in enumerate(pessimistic) if i not in matched_p]
        out += [(ONVOLLEDIG, raw) for raw in _join(incomplete)]
    lo = minute(van) if van is not None else None
    hi = minute(tot) if tot is not None else None
    app_starts = [a[0] for a in app]
    findings: dict[str, Finding] = {}
    for soort, raw in sorted(out, key=lambda x: (x[1].begin, x[0] != OVERTREDING)):
        if lo is not None and raw.eind <= lo and not raw.begin == raw.eind == lo:
            continue
        if hi is not None and raw.begin >= hi:
            continue
        found = _finding(soort, raw, _has_app(app, app_starts, raw.begin, raw.eind))
        findings.setdefault(found.key, found)
    return sorted(findings.values(), key=lambda f: (f.begin, f.regel))


def _join(raws: list[Raw]) -> list[Raw]:
    """Incomplete findings of one rule that touch or overlap, joined."""
    out: list[Raw] = []
    for raw in sorted(raws, key=lambda r: (r.regel, r.begin)):
        last = out[-1] if out else None
        if last is not None and last.regel == raw.regel and raw.begin <= last.eind:
            out[-1] = replace(last, eind=max(last.eind, raw.eind))
        else:
            out.append(raw)
    return out


def _has_app(app, app_starts, a: int, b: int) -> bool:
    i = bisect.bisect_left(app_starts, max(b, a + 1)) - 1
    return i >= 0 and app[i][1] > a


def _finding(soort: str, raw: Raw, app: bool) -> Finding:
    full = soort == OVERTREDING
    return Finding(
        soort=soort,
        regel=raw.regel,
        artikel=raw.artikel,
        ernst=raw.ernst if full else None,
        begin=moment(raw.begin),
        eind=moment(raw.eind),
        overschrijding_min=raw.over if full else None,
        bron=APP if app else KAART,
        gemeten_min=raw.gemeten if full else None,
        grens_min=raw.grens,
    )
