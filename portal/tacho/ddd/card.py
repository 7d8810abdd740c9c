"""Reading a driver card download (Appendix 7 "card downloading"): a row of TLV records,
each an EF of the card (file id, appendix byte, 2-byte length, value).

The parts that matter for driving times (identification and the activity buffer) must hold
together or the file is refused with DamagedFile naming where it broke; vehicles, places and
GNSS places that do not fit their layout are left out with a warning. Unknown records are
skipped. Signatures are not checked (handtekening "niet_geverifieerd").
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from portal.tacho.ddd import codes
from portal.tacho.ddd.card_activity import activity_days
from portal.tacho.ddd.card_records import (
    EF_ACTIVITY,
    EF_APPLICATION,
    EF_APPLICATION_V2,
    EF_CARD_DOWNLOAD,
    EF_CURRENT_USAGE,
    EF_GNSS_PLACES,
    EF_ICC,
    EF_IDENTIFICATION,
    EF_PLACES,
    EF_VEHICLES,
    Ef,
    looks_like_card,
    records,
)
from portal.tacho.ddd.card_usage import current_use, gnss_places, guarded, places, vehicles
from portal.tacho.ddd.detect import CARD_TYPES
from portal.tacho.ddd.model import CardDay, CardDownload, DamagedFile
from portal.tacho.ddd.recorded_text import coded, ia5
from portal.tacho.segments import Change, last_change_at, midnight

# A vendor's file name: C_YYYYMMDD_HHMM_... (the moment of the download).
FILENAME_TIME = re.compile(r"(?:^|[\\/])C_(\d{8})_(\d{4})", re.IGNORECASE)


def parse_card(
    data: bytes, *, filename: str | None = None, received_at: datetime | None = None
) -> CardDownload:
    """A driver card download read in one pass: its records, the identification, the
    activity buffer, the vehicles and places used, and the moment of the download."""
    found, warnings = records(data)
    efs = _data_efs(found)
    _check_driver_card(efs)
    generatie = _generation(found, efs)
    identity = _identification(efs.get(EF_IDENTIFICATION))
    activity = efs.get(EF_ACTIVITY)
    days = activity_days(activity, warnings) if activity is not None else []

    second = lambda ef: ef is not None and ef.kind == 2  # noqa: E731
    vehicles_ef = efs.get(EF_VEHICLES)
    voertuigen = guarded(warnings, vehicles_ef, vehicles, second(vehicles_ef))
    places_ef = efs.get(EF_PLACES)
    plaatsen = guarded(warnings, places_ef, places, second(places_ef))
    gnss = guarded(warnings, efs.get(EF_GNSS_PLACES), gnss_places, True)

    huidig_gebruik = current_use(efs.get(EF_CURRENT_USAGE))
    card_download = _card_download(efs.get(EF_CARD_DOWNLOAD))
    gedownload_op = _download_moment(days, filename, card_download, received_at)
    if days and gedownload_op is None:
        warnings.append("open_tail")
    return CardDownload(
        generatie=generatie,
        gedownload_op=gedownload_op,
        dagen=days,
        voertuigen=voertuigen,
        plaatsen=plaatsen,
        gnss=gnss,
        huidig_gebruik=huidig_gebruik,
        waarschuwingen=warnings,
        **identity,
    )


def _data_efs(found: list[Ef]) -> dict[int, Ef]:
    """Data EFs only (appendix 0 or 2); with both, the second generation's one is read."""
    efs: dict[int, Ef] = {}
    for ef in found:
        if ef.kind in (0, 2) and (ef.fid not in efs or ef.kind >= efs[ef.fid].kind):
            efs[ef.fid] = ef
    return efs


def _check_driver_card(efs: dict[int, Ef]) -> None:
    """A card download with an identification, of a driver card (else DamagedFile)."""
    if not efs.keys() & {EF_ICC, EF_IDENTIFICATION, EF_APPLICATION, EF_APPLICATION_V2}:
        raise DamagedFile(
            "card_structure",
            "the card file holds no card identification (EF_ICC, EF_Identification or "
            "EF_Application_Identification)",
        )
    application = efs.get(EF_APPLICATION)
    if application is not None and application.value:
        card_type = CARD_TYPES.get(application.value[0])
        if card_type is not None and card_type != "driver":
            raise DamagedFile(
                "other_card",
                f"this is a {card_type} card download, not a driver card",
                where=application.where(),
                card_type=card_type,
            )


def _card_download(ef: Ef | None) -> datetime | None:
    """EF_Card_Download: the card's last download (often the previous one)."""
    if ef is None or len(ef.value) < 4:
        return None
    return codes.moment(int.from_bytes(ef.value[:4], "big"))


def _generation(found: list[Ef], efs: dict[int, Ef]) -> str:
    if EF_APPLICATION_V2 in efs:
        return "2.2"
    application = efs.get(EF_APPLICATION)
    if application is not None and application.kind == 2 and application.value[1:3] == b"\x01\x01":
        return "2.2"  # cardStructureVersion 01 01: generation 2, version 2
    if any(ef.kind in (2, 3) for ef in found):
        return "2"
    return "1"


def _identification(ef: Ef | None) -> dict:
    empty = dict.fromkeys(
        (
            "kaartnummer",
            "achternaam",
            "voornamen",
            "houder",
            "land",
            "afgifte_instantie",
            "afgiftedatum",
            "vervaldatum",
            "geboortedatum",
        )
    )
    if ef is None:
        return empty
    v = ef.value
    if len(v) < 137:
        raise DamagedFile(
            "card_structure",
            f"EF_Identification holds {len(v)} bytes where a driver card has 143",
            where=ef.where(len(v)),
        )
    # CardIdentification: nation (1), card number (16), authority Name (36), issue,
    # validity begin and expiry TimeReal (3 x 4); holder: surname and first names (Name
    # each), birth date (Datef), preferred language.
    surname = coded(v[65], v[66:101])
    first = coded(v[101], v[102:137])
    expiry = codes.moment(int.from_bytes(v[61:65], "big"))
    issued = codes.moment(int.from_bytes(v[53:57], "big"))
    return {
        "kaartnummer": ia5(v[1:17]),
        "achternaam": surname,
        "voornamen": first,
        "houder": " ".join(part for part in (first, surname) if part) or None,
        "land": codes.nation(v[0]),
        "afgifte_instantie": coded(v[17], v[18:53]),
        "afgiftedatum": issued.date() if issued else None,
        "vervaldatum": expiry.date() if expiry else None,
        "geboortedatum": codes.datef(v[137:141]) if len(v) >= 141 else None,
    }


# --- the moment of the download ----------------------------------------------------------


def filename_moment(filename: str | None) -> datetime | None:
    """The moment in a vendor's file name C_YYYYMMDD_HHMM_..., taken as UTC."""
    if not filename:
        return None
    match = FILENAME_TIME.search(filename)
    if not match:
        return None
    try:
        when = datetime.strptime(match.group(1) + match.group(2), "%Y%m%d%H%M")
    except ValueError:
        return None
    return when.replace(tzinfo=UTC)


def _download_moment(
    days: list[CardDay],
    filename: str | None,
    card_download: datetime | None,
    received_at: datetime | None,
) -> datetime | None:
    """The best known moment of the download: the file name's, else EF_Card_Download's,
    else when the file was received; each only when it is not before the newest day's last
    change (a download cannot precede what it holds: EF_Card_Download often holds the
    previous download). When that last change has the card inserted, the card was read that
    same day (a card left in past midnight starts a new day's record, a withdrawal is a
    change): a moment on a later day, such as a file uploaded days after it was read, says
    nothing about when, and the time after the last change stays unknown (None)."""
    if received_at is not None and received_at.tzinfo is None:
        received_at = received_at.replace(tzinfo=UTC)
    earliest = latest = None
    if days:
        newest = days[-1]
        # The last change as recorded (not the largest minute: a lagging unit's clock can
        # record a later change at an earlier minute), where it lies on the timeline.
        last: Change | None = newest.wijzigingen[-1] if newest.wijzigingen else None
        earliest = last_change_at(newest.datum, newest.wijzigingen)
        if last is not None and last.kaart_in:
            latest = midnight(newest.datum) + timedelta(days=1)
    for candidate in (filename_moment(filename), card_download, received_at):
        if candidate is None:
            continue
        candidate = candidate.astimezone(UTC)
        if earliest is not None and candidate < earliest:
            continue
        if latest is not None and candidate >= latest:
            continue
        return candidate
    return None


__all__ = ["activity_days", "filename_moment", "looks_like_card", "parse_card", "records"]
