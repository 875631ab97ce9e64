"""The common shapes of the gateway's answers, as dataclasses.

Each `from_json` reads the fields it names and ignores the rest, so an answer that gains a field
(an additive change within /api/v1) still reads.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def parse_datetime(value: str) -> datetime:
    """An ISO 8601 date-time as the gateway writes it (`2026-01-15T12:00:00.000Z`)."""
    return datetime.fromisoformat(value)


def _int_header(headers: Mapping[str, str], name: str) -> int | None:
    value = headers.get(name)
    return int(value) if value is not None and value.strip().isdigit() else None


@dataclass(frozen=True)
class RateLimit:
    """The quota headers of an authenticated answer (`X-RateLimit-*`, `X-Quota-Units`)."""

    limit: int
    """Units of the binding window: the daily or monthly one with fewer units left."""
    remaining: int
    reset: datetime
    """When that window resets."""
    units: int
    """Units this call consumed."""

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> "RateLimit | None":
        limit = _int_header(headers, "X-RateLimit-Limit")
        remaining = _int_header(headers, "X-RateLimit-Remaining")
        reset = _int_header(headers, "X-RateLimit-Reset")
        if limit is None or remaining is None or reset is None:
            return None
        units = _int_header(headers, "X-Quota-Units") or 0
        return cls(limit, remaining, datetime.fromtimestamp(reset, timezone.utc), units)


@dataclass(frozen=True)
class Envelope(Generic[T]):
    """A success answer: the envelope's `data`, `message` and `timestamp`, and what its headers say."""

    data: T
    message: str
    timestamp: datetime
    request_id: str | None
    """`X-Request-Id`: quote it when asking the operator about a call."""
    rate_limit: RateLimit | None
    """None on answers without quota headers (`/healthz`, the sandbox's and the admin API's)."""
    replayed: bool
    """`Idempotent-Replayed: true`: the stored answer of an earlier call with the same `Idempotency-Key`."""


@dataclass(frozen=True)
class Plan:
    daily_units: int
    monthly_units: int

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "Plan":
        return cls(raw["daily_units"], raw["monthly_units"])


@dataclass(frozen=True)
class QuotaWindow:
    """One quota window of `GET /api/v1/usage`: a UTC day or a UTC month."""

    used: int
    limit: int
    remaining: int
    resets_at: datetime

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "QuotaWindow":
        return cls(raw["used"], raw["limit"], raw["remaining"], parse_datetime(raw["resets_at"]))


@dataclass(frozen=True)
class Usage:
    """`GET /api/v1/usage`: the calling token and its quota."""

    token_id: str
    account: str
    scopes: list[str]
    plan: Plan
    daily: QuotaWindow
    monthly: QuotaWindow

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "Usage":
        usage = raw["usage"]
        return cls(
            raw["token_id"],
            raw["account"],
            list(raw["scopes"]),
            Plan.from_json(raw["plan"]),
            QuotaWindow.from_json(usage["daily"]),
            QuotaWindow.from_json(usage["monthly"]),
        )


@dataclass(frozen=True)
class UfValue:
    """The UF of a date, in CLP."""

    fecha: date
    valor: float

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "UfValue":
        return cls(date.fromisoformat(raw["fecha"]), float(raw["valor"]))


@dataclass(frozen=True)
class FolioRange:
    """`caf/solicitar`: the folios granted and their CAF file."""

    folio_inicial: int
    folio_final: int
    fecha_autorizacion: date
    cantidad: int
    reobtenido: bool
    caf_xml: str
    """The CAF file (ISO-8859-1 XML), base64: the `caf` of `documentos/generar`."""
    ledger: dict[str, Any] | None
    """With `ledger=True`: the account's folio ledger after adding the range (None when it could not be added)."""

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "FolioRange":
        return cls(
            raw["folio_inicial"],
            raw["folio_final"],
            date.fromisoformat(raw["fecha_autorizacion"]),
            raw["cantidad"],
            raw["reobtenido"],
            raw["caf_xml"],
            raw.get("ledger"),
        )
