"""The records of a driver card download (Appendix 7 "card downloading"): a row of TLV
records, each an EF of the card (file id, appendix byte, 2-byte length, value)."""

from __future__ import annotations

from portal.tacho.ddd.detect import CARD_FILES
from portal.tacho.ddd.model import DamagedFile

EF_ICC = 0x0002
EF_APPLICATION = 0x0501
EF_ACTIVITY = 0x0504
EF_VEHICLES = 0x0505
EF_PLACES = 0x0506
EF_CURRENT_USAGE = 0x0507
EF_CARD_DOWNLOAD = 0x050E
EF_IDENTIFICATION = 0x0520
EF_GNSS_PLACES = 0x0524
EF_APPLICATION_V2 = 0x0525

EF_NAMES = {
    0x0002: "ICC",
    0x0005: "IC",
    0x0501: "Application_Identification",
    0x0502: "Events_Data",
    0x0503: "Faults_Data",
    0x0504: "Driver_Activity_Data",
    0x0505: "Vehicles_Used",
    0x0506: "Places",
    0x0507: "Current_Usage",
    0x0508: "Control_Activity_Data",
    0x050E: "Card_Download",
    0x0520: "Identification",
    0x0521: "Driving_Licence_Info",
    0x0522: "Specific_Conditions",
    0x0523: "VehicleUnits_Used",
    0x0524: "GNSS_Places",
    0x0525: "Application_Identification_V2",
}

# A card download holds some 30 to 80 records; far more is junk that happens to parse.
MAX_RECORDS = 512


class Ef:
    """One EF of the download: its value and where that value starts in the file."""

    __slots__ = ("fid", "kind", "offset", "value")

    def __init__(self, fid: int, kind: int, offset: int, value: bytes):
        self.fid, self.kind, self.offset, self.value = fid, kind, offset, value

    @property
    def name(self) -> str:
        return f"EF {self.fid:04X} {EF_NAMES.get(self.fid, 'unknown')}"

    def where(self, at: int = 0) -> str:
        return f"{self.name}, byte {self.offset + at}"


def looks_like_card(data: bytes) -> bool:
    return len(data) >= 5 and int.from_bytes(data[:2], "big") in CARD_FILES and data[2] <= 3


def records(data: bytes) -> tuple[list[Ef], list[str]]:
    """Every record of the file; unknown ones are kept out (with a warning), a record that
    runs past the end of the file is DamagedFile."""
    out: list[Ef] = []
    warnings: list[str] = []
    pos, size = 0, len(data)
    count = 0
    while pos < size:
        count += 1
        if count > MAX_RECORDS:
            raise DamagedFile(
                "card_structure",
                f"the card file holds more than {MAX_RECORDS} records; byte {pos} and on "
                "are no card data",
                where=f"record at byte {pos}",
            )
        if size - pos < 5:
            raise DamagedFile(
                "card_structure",
                f"the card file breaks off inside a record header at byte {pos}",
                where=f"record header at byte {pos}",
            )
        fid = (data[pos] << 8) | data[pos + 1]
        kind = data[pos + 2]
        length = (data[pos + 3] << 8) | data[pos + 4]
        if pos + 5 + length > size:
            raise DamagedFile(
                "card_structure",
                f"the card record {fid:04X}{kind:02X} at byte {pos} claims {length} bytes, "
                "but the file ends before that",
                where=f"record {fid:04X}{kind:02X} at byte {pos}",
            )
        if fid in CARD_FILES and kind <= 3:
            out.append(Ef(fid, kind, pos + 5, data[pos + 5 : pos + 5 + length]))
        elif "unknown_tag" not in warnings:
            warnings.append("unknown_tag")
        pos += 5 + length
    return out, warnings
