"""The seed's field names (section 2), exactly: the API must answer every one."""

SEED_TASK_FIELDS = [
    "id", "vehicle_id", "transporteur_id", "type", "status", "naam", "omschrijving", "artikel",
    "hoeveelheid", "eenheid", "adres", "postcode", "stad", "land", "contactpersoon", "telefoon",
    "telefoon_mobiel", "gepland_op", "ontvangen_op", "gestart_op", "afgerond_op",
    "require_photos", "min_fotos", "max_fotos", "require_signature", "require_document_scan",
    "require_location", "photo_label", "opmerkingen", "vdm_nummer", "agr_verplicht",
    "required_desinfectie", "required_temperatuur", "kooiaap", "locatie_lat", "locatie_lng",
    "vragenpad", "created_at",
]  # fmt: skip
SEED_QUESTION_FIELDS = [
    "id", "type", "label", "required", "default_value", "readonly", "unit", "max_files",
    "options", "validation", "visible_if", "questions", "formula",
]  # fmt: skip
