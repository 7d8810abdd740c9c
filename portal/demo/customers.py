"""Demo customers: a farm and a feed mill with their loading and unloading places."""

from __future__ import annotations

from portal.audit.service import Actor
from portal.customers import service as customers

CUSTOMERS = [
    {
        "naam": "Maatschap Ter Horst",
        "debiteurnummer": "10023",
        "btw_nummer": "NL812345678B01",
        "kvk_nummer": "08123456",
        "factuur_email": "administratie@terhorst-enter.nl",
        "factuur_adres": "Hengelosestraat 112",
        "factuur_postcode": "7468 RN",
        "factuur_plaats": "Enter",
        "factuur_land": "NL",
        "opmerkingen": "Melkveebedrijf; mest gaat naar de vergister in Hengelo.",
        "places": [
            {
                "naam": "Erf Enter",
                "soort": "beide",
                "adres": "Hengelosestraat 112",
                "postcode": "7468 RN",
                "stad": "Enter",
                "locatie_lat": 52.2936,
                "locatie_lng": 6.5714,
                "openingstijden": "ma-za 6:00-20:00",
                "contactpersoon": "Gerrit ter Horst",
                "telefoon": "06-12345678",
                "opmerkingen": "Via de achterste inrit; niet over het erf bij de kalveren.",
            },
            {
                "naam": "Mestsilo Zuidkamp",
                "soort": "laden",
                "adres": "Zuidkampweg 4",
                "postcode": "7468 PC",
                "stad": "Enter",
                "locatie_lat": 52.2851,
                "locatie_lng": 6.5802,
                "opmerkingen": "Sleutel van het hek in de meterkast bij de silo.",
            },
            {
                "naam": "Vergister Hengelo",
                "soort": "lossen",
                "adres": "Twekkelerweg 300",
                "postcode": "7553 LZ",
                "stad": "Hengelo",
                "locatie_lat": 52.2556,
                "locatie_lng": 6.8285,
                "openingstijden": "ma-vr 7:00-16:30",
                "opmerkingen": "Wegen bij binnenkomst en vertrek; bon mee naar kantoor.",
            },
        ],
    },
    {
        "naam": "Mengvoederfabriek De Twentse Molen",
        "debiteurnummer": "10041",
        "btw_nummer": "NL009876543B02",
        "kvk_nummer": "06054321",
        "factuur_email": "crediteuren@twentsemolen.nl",
        "factuur_adres": "Postbus 40",
        "factuur_postcode": "7640 AA",
        "factuur_plaats": "Wierden",
        "factuur_land": "NL",
        "places": [
            {
                "naam": "Mengvoederfabriek",
                "soort": "laden",
                "adres": "Industrieweg 21",
                "postcode": "7641 AD",
                "stad": "Wierden",
                "locatie_lat": 52.3573,
                "locatie_lng": 6.5869,
                "openingstijden": "ma-vr 5:30-17:00, za 6:00-12:00",
                "contactpersoon": "Expeditie",
                "telefoon": "0546-581234",
                "opmerkingen": "Eerst melden en wegen bij de weegbrug, dan silo 3 of 4.",
            }
        ],
    },
    {
        # A business in Belgium: transport for it is reverse charged (btw verlegd), and it
        # takes e-invoices over Peppol under its enterprise number.
        "naam": "Biogas Vlaanderen NV",
        "debiteurnummer": "10077",
        "btw_nummer": "BE0123456749",
        "peppol_id": "0208:0123456749",
        "factuur_email": "facturen@biogas-vlaanderen.example",
        "factuur_adres": "Kanaalweg 8",
        "factuur_postcode": "2300",
        "factuur_plaats": "Turnhout",
        "factuur_land": "BE",
        "btw_categorie": "AE",
        "places": [
            {
                "naam": "Vergister Turnhout",
                "soort": "lossen",
                "adres": "Kanaalweg 8",
                "postcode": "2300",
                "stad": "Turnhout",
                "land": "BE",
                "locatie_lat": 51.3305,
                "locatie_lng": 4.9403,
                "openingstijden": "ma-vr 7:00-17:00",
                "opmerkingen": "Weegbrug links bij de ingang; CMR afgeven bij de portier.",
            }
        ],
    },
]


def seed_customers(carrier_id, planner) -> None:
    """The carrier's customers and their places, as the planner entered them."""
    actor = Actor("user", planner.id, planner.naam)
    for spec in CUSTOMERS:
        data = {key: value for key, value in spec.items() if key != "places"}
        customer = customers.create_customer(carrier_id=carrier_id, data=data, actor=actor)
        for place in spec["places"]:
            customers.add_place(
                carrier_id=carrier_id, customer_id=customer.id, data=place, actor=actor
            )
