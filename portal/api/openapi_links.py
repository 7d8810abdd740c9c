"""OpenAPI links: what a client can do next with an answer, as the target operation and the
values it takes from that answer. They make the life of a resource walkable (create, read,
change, move, complete, delete), for readers of the document and for stateful testing."""

from __future__ import annotations

from portal.api.core import OPERATIONS, Operation

ID = "$response.body#/id"
ETAG = "$response.header.ETag"
_TASK = {"task_id": ID}
_TASK_IF_MATCH = {"task_id": ID, "header.If-Match": ETAG}
TASK_NEXT = {
    "get_task": _TASK,
    "task_details": _TASK,
    "update_task": _TASK_IF_MATCH,
    "change_status": _TASK_IF_MATCH,
    "complete_for_billing": _TASK,
    "delete_task": _TASK,
}
# A list's first task leads on the same way (its other tasks' ids sit at /1/id, /2/id...).
_FIRST_TASK = {"task_id": "$response.body#/0/id"}
FIRST_TASK_NEXT = {
    "get_task": _FIRST_TASK,
    "task_details": _FIRST_TASK,
    "update_task": _FIRST_TASK,
    "change_status": _FIRST_TASK,
    "complete_for_billing": _FIRST_TASK,
}
_SESSION = {"session_id": ID}
_WORK_DAY = {"werkdag_id": ID}
_NOTIFICATION = {"notification_id": ID}
_TACHO_FILE = {"tacho_file_id": ID}
_DRIVER = {"user_token": "$response.body#/user_token"}
_CARRIER = {"transporteur_id": "$response.body#/transporteur_id"}
LINKS: dict[str, dict[str, dict[str, str]]] = {
    "user_profile": {
        "driver_tasks": _DRIVER,
        "create_driver_task": _DRIVER,
        "driver_work_days": _DRIVER,
        "start_work_day": _DRIVER,
        "driver_notifications": _DRIVER,
        "create_notification": _DRIVER,
        "driver_times": _DRIVER,
        "carrier_tasks": _CARRIER,
        "carrier_drivers": _CARRIER,
    },
    "driver_tasks": FIRST_TASK_NEXT,
    "list_tasks": FIRST_TASK_NEXT,
    "carrier_tasks": FIRST_TASK_NEXT,
    "create_driver_task": TASK_NEXT,
    "get_task": TASK_NEXT,
    "update_task": TASK_NEXT,
    "change_status": TASK_NEXT,
    "upload_file": {"get_file": {"file_id": ID}},
    "get_vehicle": {"update_vehicle": {"vehicle_id": ID, "header.If-Match": ETAG}},
    "update_vehicle": {"get_vehicle": {"vehicle_id": ID}},
    "start_session": {
        "get_session": _SESSION,
        "validate_session": _SESSION,
        "end_session": _SESSION,
    },
    "validate_session": {"get_session": _SESSION, "end_session": _SESSION},
    "start_work_day": {
        "update_work_day": {**_WORK_DAY, "header.If-Match": ETAG},
        "add_activity": _WORK_DAY,
    },
    "update_work_day": {"add_activity": _WORK_DAY},
    "add_activity": {"update_activity": {"activiteit_id": ID, "header.If-Match": ETAG}},
    "create_notification": {
        "get_notification": _NOTIFICATION,
        "mark_notification_read": _NOTIFICATION,
    },
    "save_answers": {"get_answer_session": {"answer_session_id": ID}},
    "upload_tacho_file": {"get_tacho_file": _TACHO_FILE, "tacho_file_activities": _TACHO_FILE},
}


def links_of(op: Operation) -> dict[str, dict]:
    """The OpenAPI links of op's success answer, named after the operations they lead to."""
    known = {o.endpoint for o in OPERATIONS}
    links = {}
    for target, parameters in LINKS.get(op.endpoint, {}).items():
        if target not in known:
            raise ValueError(f"link from {op.endpoint} to an unknown operation {target!r}")
        if "header.If-Match" in parameters and "ETag" not in op.headers:
            raise ValueError(f"{op.endpoint} answers no ETag for its link to {target}")
        links[target] = {"operationId": target, "parameters": parameters}
    return links
