"""How serious an infringement is: the severity classes of Commission Regulation (EU)
2016/403 (with Directive 2006/22/EC and Regulation (EC) 1071/2009), by table row and measured
minutes."""

from __future__ import annotations

from portal.tacho.rules.limits import H

LICHT, ERNSTIG, ZEER_ERNSTIG, ZEER_ERNSTIG_MAX = (
    "licht",
    "ernstig",
    "zeer_ernstig",
    "zeer_ernstig_max",
)

MI, SI, VSI, MSI = LICHT, ERNSTIG, ZEER_ERNSTIG, ZEER_ERNSTIG_MAX

# Severity classes of Commission Regulation (EU) 2016/403, Annex I, part 1 (Regulation
# 561/2006; serious, very serious), with the minor class of Directive 2006/22/EC Annex III as
# amended by that Regulation, and the most serious class of Regulation (EC) 1071/2009
# Annex IV (point 1: exceeding the 6-day or fortnightly driving limits by 25 % or more, the
# daily limit by 50 % or more). The 2022/694 amendment adds rows for rules we do not check.
# Figures in minutes. Rows marked APPROX were not confirmed against the Official Journal text
# while writing (the source text was not at hand) and follow the commonly published table;
# they need a check before anyone relies on them.
#
# "Too much" rows: (from value inclusive, class), most severe first; the measured value is
# the driving time.
SEVERITY_TOO_MUCH: dict[str, tuple[tuple[int, str], ...]] = {
    # B1 daily driving 9 h, extension not allowed: 9 h < x < 10 h MI (Annex III),
    # 10 h <= x < 11 h SI, 11 h <= x VSI, 13 h 30 (9 h + 50 %) <= x MSI.
    "B1": ((13 * H + 30, MSI), (11 * H, VSI), (10 * H, SI), (9 * H + 1, MI)),
    # B2 daily driving 10 h, extension allowed: 10 h < x < 11 h MI, 11 h <= x < 12 h SI,
    # 12 h <= x VSI, 15 h (10 h + 50 %) <= x MSI.
    "B2": ((15 * H, MSI), (12 * H, VSI), (11 * H, SI), (10 * H + 1, MI)),
    # B3 weekly driving 56 h: 56 h < x < 60 h MI, 60 h <= x < 65 h SI, 65 h <= x < 70 h VSI,
    # 70 h (56 h + 25 %) <= x MSI (the MSI threshold APPROX: from 1071/2009 Annex IV).
    "B3": ((70 * H, MSI), (65 * H, VSI), (60 * H, SI), (56 * H + 1, MI)),
    # B4 two-week driving 90 h: 90 h < x < 100 h MI, 100 h <= x < 105 h SI,
    # 105 h <= x < 112 h 30 VSI, 112 h 30 (90 h + 25 %) <= x MSI. APPROX (SI/VSI bounds).
    "B4": ((112 * H + 30, MSI), (105 * H, VSI), (100 * H, SI), (90 * H + 1, MI)),
    # C1 driving before a break 4 h 30: 4 h 30 < x < 5 h MI, 5 h <= x < 6 h SI, 6 h <= x VSI.
    "C1": ((6 * H, VSI), (5 * H, SI), (4 * H + 31, MI)),
    # D7 weekly rest started later than 6 x 24 h after the previous; value: minutes late.
    # Up to 3 h MI, 3 h < x < 12 h SI, 12 h <= x VSI. APPROX.
    "D7": ((12 * H, VSI), (3 * H + 1, SI), (1, MI)),
}
# "Too little" rows: (below value exclusive, class), most severe first; the measured value
# is the rest taken.
SEVERITY_TOO_LITTLE: dict[str, tuple[tuple[int, str], ...]] = {
    # D1 daily rest < 11 h where a reduced rest is not allowed:
    # 10 h <= x < 11 h MI, 8 h 30 <= x < 10 h SI, x < 8 h 30 VSI.
    "D1": ((8 * H + 30, VSI), (10 * H, SI), (11 * H, MI)),
    # D2 reduced daily rest < 9 h where allowed: 8 h <= x < 9 h MI, 7 h <= x < 8 h SI,
    # x < 7 h VSI.
    "D2": ((7 * H, VSI), (8 * H, SI), (9 * H, MI)),
    # D3 split daily rest < 3 h + 9 h (the second part): 3 h + [8 h <= x < 9 h] MI,
    # 3 h + [7 h <= x < 8 h] SI, 3 h + [x < 7 h] VSI.
    "D3": ((7 * H, VSI), (8 * H, SI), (9 * H, MI)),
    # D4 multi-manning daily rest < 9 h: 8 h <= x < 9 h MI, 7 h <= x < 8 h SI, x < 7 h VSI.
    "D4": ((7 * H, VSI), (8 * H, SI), (9 * H, MI)),
    # D5 reduced weekly rest < 24 h: 22 h <= x < 24 h MI, 20 h <= x < 22 h SI, x < 20 h VSI.
    "D5": ((20 * H, VSI), (22 * H, SI), (24 * H, MI)),
    # D6 weekly rest < 45 h where a reduced one is not allowed: 42 h <= x < 45 h MI,
    # 36 h <= x < 42 h SI, x < 36 h VSI.
    "D6": ((36 * H, VSI), (42 * H, SI), (45 * H, MI)),
}
# A reduced weekly rest not compensated in time (Art. 8(6) second subparagraph): no row
# found; classed as serious. APPROX.
SEVERITY_COMPENSATION = SI


def severity(row: str, value: int) -> str | None:
    """The class of an infringement of table row `row` at measured `value` (minutes)."""
    if row in SEVERITY_TOO_MUCH:
        for threshold, klass in SEVERITY_TOO_MUCH[row]:
            if value >= threshold:
                return klass
        return None
    for threshold, klass in SEVERITY_TOO_LITTLE[row]:
        if value < threshold:
            return klass
    return None
