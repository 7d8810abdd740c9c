"""The JSON API's plumbing, one module per job:

- `blueprint`: the blueprint and the errors that end a request with problem+json;
- `operations`: `@operation`, the registry from which the OpenAPI document is built;
- `auth_context`: who is asking (bearer tokens, API keys, scopes, `principal()`);
- `bodies`: request bodies and query strings parsed with pydantic;
- `answers`: JSON responses, lists, ETags and conditional requests;
- `writes`: `@write`, one commit per request and Idempotency-Key;
- `hooks`: what runs before and after every request.

Handlers import what they need from here (`from portal.api.core import operation, write`).
"""

# The request hooks register on the blueprint when imported.
from portal.api.core import hooks  # noqa: F401
from portal.api.core.answers import (
    ANSWERS,
    Listing,
    PreconditionFailed,
    etag_matches,
    etag_value,
    etags_name,
    fast_list,
    if_match_versions,
    json_response,
    list_response,
    public_origin,
)
from portal.api.core.auth_context import (
    INVALID_TOKEN,
    DriverRef,
    Principal,
    authenticate,
    bearer_token,
    chauffeur_filter,
    driver_access,
    fast_read,
    granted_scopes,
    integration_of,
    principal,
    require_scope,
    scope_problem,
    scopes_granting,
)
from portal.api.core.blueprint import ProblemResponse, bp
from portal.api.core.bodies import (
    JSON_BODY_LIMIT,
    TYPE_TAGS,
    adapter,
    json_body,
    parse_body,
    parse_query,
    validation_problem,
)
from portal.api.core.operations import OPERATION_BY_ENDPOINT, OPERATIONS, Operation, operation
from portal.api.core.writes import IDEMPOTENCY_KEY, REPLAYED_HEADERS, refused_but_kept, write
from portal.errors import problem, problem_from_domain

__all__ = [
    "ANSWERS",
    "IDEMPOTENCY_KEY",
    "INVALID_TOKEN",
    "JSON_BODY_LIMIT",
    "OPERATIONS",
    "OPERATION_BY_ENDPOINT",
    "REPLAYED_HEADERS",
    "TYPE_TAGS",
    "DriverRef",
    "Listing",
    "Operation",
    "PreconditionFailed",
    "Principal",
    "ProblemResponse",
    "adapter",
    "authenticate",
    "bearer_token",
    "bp",
    "chauffeur_filter",
    "driver_access",
    "etag_matches",
    "etag_value",
    "etags_name",
    "fast_list",
    "fast_read",
    "granted_scopes",
    "if_match_versions",
    "integration_of",
    "json_body",
    "json_response",
    "list_response",
    "operation",
    "parse_body",
    "parse_query",
    "principal",
    "problem",
    "problem_from_domain",
    "public_origin",
    "refused_but_kept",
    "require_scope",
    "scope_problem",
    "scopes_granting",
    "validation_problem",
    "write",
]
