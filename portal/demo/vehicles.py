"""Demo vehicles: per carrier its trucks and tractors first (they drive the demo's tasks), then
its trailers, each with its capabilities; an agricultural manure tanker on its tractor's
repeat plate, known by its fleet number only."""

from __future__ import annotations

from portal.fleet import service as fleet

FLEETS = {
    "vdberg": [
        {"kenteken": "BX-12-AB", "soort": "opleggertrekker", "omschrijving": "DAF XF 480 FT",
         "max_snelheid_kmh": 90},
        {"kenteken": "BX-34-CD", "soort": "vrachtwagen", "omschrijving": "Scania R450 voerwagen",
         "capaciteit": 24.0, "capaciteit_eenheid": "ton", "max_snelheid_kmh": 90,
         "kenmerken": {"kooiaap": {}, "kipper": {}},
         "opmerkingen": "Kooiaap Palfinger Crayler; APK vervalt in maart."},
        {"kenteken": "VZH-56-E", "soort": "opleggertrekker", "omschrijving": "Volvo FH 500",
         "max_snelheid_kmh": 90},
        {"kenteken": "VZL-21-K", "soort": "landbouwtrekker", "omschrijving": "Fendt 942 Vario",
         "max_snelheid_kmh": 40},
        {"kenteken": "OT-48-KX", "soort": "oplegger", "omschrijving": "Kaweco mesttank met AGR-GPS",
         "capaciteit": 30.0, "capaciteit_eenheid": "m3",
         "kenmerken": {"mesttank": {"volume_m3": 30.0}}},
        {"kenteken": "OV-17-LP", "soort": "oplegger", "omschrijving": "Veeoplegger, drie dekken",
         "capaciteit": 160.0, "capaciteit_eenheid": "stuks",
         "kenmerken": {"vee": {"nvwa_nummer": "NL-TRV-204518"}}},
        {"kenteken": "OW-72-FF", "soort": "oplegger", "omschrijving": "Knapen walking floor",
         "capaciteit": 92.0, "capaciteit_eenheid": "m3", "kenmerken": {"walking_floor": {}}},
        {"kenteken": None, "vlootnummer": "MT-07", "soort": "landbouwaanhanger",
         "omschrijving": "Joskin mesttank op het herhalingskenteken van de trekker",
         "capaciteit": 20.0, "capaciteit_eenheid": "m3",
         "kenmerken": {"mesttank": {"volume_m3": 20.0}}},
    ],
    "kuipers": [
        {"kenteken": "12-BLK-3", "soort": "vrachtwagen", "omschrijving": "Veewagen, drie dekken",
         "capaciteit": 180.0, "capaciteit_eenheid": "stuks",
         "kenmerken": {"vee": {"nvwa_nummer": "NL-TRV-301177"}}},
        {"kenteken": "45-BLK-6", "soort": "opleggertrekker", "omschrijving": "MAN TGX 18.510"},
    ],
}  # fmt: skip


def seed_vehicles(carrier_id, slug: str) -> list:
    """The carrier's demo vehicles, motorised ones first."""
    return [fleet.create_vehicle(carrier_id=carrier_id, **spec) for spec in FLEETS.get(slug, [])]
