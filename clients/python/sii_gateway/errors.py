"""Every refusal of the gateway as one exception, `GatewayError`."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import requests


@dataclass(frozen=True)
class FieldError:
    """One entry of a `VALIDATION_ERROR`'s `errors[]`."""

    path: str
    """The field, dotted with array indexes in brackets (`documentos[0].dte`, `auth.cert.cert-data`)."""
    location: str
    """`path`, `query`, `header` or `body`."""
    message: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "FieldError":
        return cls(str(raw.get("path", "")), str(raw.get("location", "")), str(raw.get("message", "")))


def _retry_after(response: requests.Response) -> int | None:
    value = response.headers.get("Retry-After", "").strip()
    return int(value) if value.isdigit() else None


class GatewayError(Exception):
    """An error answer: the envelope's fields, the HTTP status and `Retry-After` (seconds)."""

    status: int
    error_code: str
    message: str
    request_id: str | None
    errors: list[FieldError]
    details: dict[str, Any]
    retry_after: int | None

    def __init__(
        self,
        status: int,
        error_code: str,
        message: str,
        *,
        request_id: str | None = None,
        errors: list[FieldError] | None = None,
        details: dict[str, Any] | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(f"{status} {error_code}: {message}")
        self.status = status
        self.error_code = error_code
        self.message = message
        self.request_id = request_id
        self.errors = errors or []
        self.details = details or {}
        self.retry_after = retry_after

    @classmethod
    def from_response(cls, response: requests.Response) -> "GatewayError":
        """The error an answer carries; one that is not the gateway's envelope (a proxy's page) gets `HTTP_<status>`."""
        body: Any = None
        try:
            body = response.json()
        except ValueError:
            pass
        request_id = response.headers.get("X-Request-Id")
        if not isinstance(body, dict) or not isinstance(body.get("error_code"), str):
            text = response.text.strip()[:200] or response.reason or "no body"
            return cls(response.status_code, f"HTTP_{response.status_code}", text, request_id=request_id, retry_after=_retry_after(response))
        errors = body.get("errors")
        details = body.get("details")
        return cls(
            response.status_code,
            body["error_code"],
            str(body.get("message", "")),
            request_id=body.get("request_id") or request_id,
            errors=[FieldError.from_json(e) for e in errors if isinstance(e, dict)] if isinstance(errors, list) else [],
            details=details if isinstance(details, dict) else {},
            retry_after=_retry_after(response),
        )
