"""The client: one `requests` session, the token, retries of reads, an `Idempotency-Key` on writes."""

import re
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, overload
from urllib.parse import quote

import requests

from .errors import GatewayError
from .models import Envelope, FolioRange, RateLimit, UfValue, Usage, parse_datetime

T = TypeVar("T")
Json = dict[str, Any]

# The writes whose operation documents `Idempotency-Key` (the POSTs that change state at the SII).
# tests/test_client.py checks this list and the next against the served /openapi.json.
IDEMPOTENT_WRITES = (
    "/api/v1/sii/dte/caf/solicitar/{}/{}/{}",
    "/api/v1/sii/dte/caf/anular/{}/{}/{}/{}",
    "/api/v1/sii/bhe/emitidas/email/{}",
    "/api/v1/platform/dte/documentos/generar",
    "/api/v1/sii/rcv/compras/set_tipo_transaccion/{}/{}",
    "/api/v1/sii/rcv/ventas/set_resumen/{}/{}",
    "/api/v1/sii/rcv/ventas/delete_resumen/{}/{}",
    "/api/v1/sii/rcv/ventas/set_boletas_diarias/{}/{}/{}",
    "/api/v1/sii/certificacion/facturas/postular/{}",
    "/api/v1/sii/certificacion/facturas/solicitar_set/{}",
    "/api/v1/sii/certificacion/boletas/solicitar_set/{}",
    "/api/v1/platform/dte/envios/enviar",
    "/api/v1/platform/dte/intercambios/respuesta_sii",
)

# The POSTs that only read (their scope is `sii:read`): retried like a GET.
POST_READS = (
    "/api/v1/sii/dte/contribuyentes/datos/{}",
    "/api/v1/sii/bte/emitidas/resumen/{}",
    "/api/v1/sii/vehiculos/tasacion/buscar",
    "/api/v1/platform/dte/formatos/json",
    "/api/v1/platform/dte/documentos/escpos",
    "/api/v1/platform/dte/documentos/pdf",
    "/api/v1/sii/rcv/compras/resumen/{}/{}/{}",
    "/api/v1/sii/rcv/ventas/resumen/{}/{}",
    "/api/v1/sii/rcv/compras/detalle/{}/{}/{}/{}",
    "/api/v1/sii/rcv/ventas/detalle/{}/{}/{}",
    "/api/v1/sii/rcv/compras/detalle/documento/{}/{}/{}/{}",
    "/api/v1/sii/rcv/compras/async/solicitar/{}/{}/{}/{}",
    "/api/v1/sii/rcv/compras/async/estado/{}/{}/{}/{}/{}",
    "/api/v1/sii/rcv/compras/async/detalle/{}/{}/{}/{}/{}",
    "/api/v1/sii/rcv/ventas/async/solicitar/{}/{}/{}",
    "/api/v1/sii/rcv/ventas/async/estado/{}/{}/{}/{}",
    "/api/v1/sii/rcv/ventas/async/detalle/{}/{}/{}/{}",
    "/api/v1/sii/rcv/ventas/get_detalle_resumen/{}/{}",
    "/api/v1/sii/certificacion/postulacion/avance/{}",
    "/api/v1/sii/certificacion/contribuyentes/datos/{}",
    "/api/v1/platform/dte/envios/estado/{}/{}",
    "/api/v1/platform/dte/envios/verificar",
    "/api/v1/platform/dte/intercambios/cesion/{}/{}/{}",
    "/api/v1/platform/dte/intercambios/eventos/{}/{}/{}",
    "/api/v1/platform/dte/intercambios/recepcion_sii/{}/{}/{}",
    # Safe to send again: a second creation answers the live job, a second resume is a 409 JOB_STATE.
    "/api/v1/jobs",
    "/api/v1/jobs/{}/resume",
)
# Cancelling a job twice is a 409 JOB_STATE the second time: safe to send again.
DELETE_READS = ("/api/v1/jobs/{}",)


def _matcher(templates: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(t).replace(r"\{\}", "[^/]+") for t in templates))


_IDEMPOTENT = _matcher(IDEMPOTENT_WRITES)
_POST_READ = _matcher(POST_READS)
_DELETE_READ = _matcher(DELETE_READS)


def takes_idempotency_key(method: str, path: str) -> bool:
    """Whether the operation documents `Idempotency-Key` (a fresh one is sent unless given)."""
    return method.upper() == "POST" and _IDEMPOTENT.fullmatch(path) is not None


def is_read(method: str, path: str) -> bool:
    """Whether the operation only reads (or is safe to repeat), so a 429 or 503 may be retried."""
    method = method.upper()
    if method == "DELETE":
        return _DELETE_READ.fullmatch(path) is not None
    return method in ("GET", "HEAD") or (method == "POST" and _POST_READ.fullmatch(path) is not None)


def _segment(value: object) -> str:
    return quote(str(value), safe="")


def _query(**values: object) -> dict[str, str]:
    """The query parameters given (None left out), as the gateway spells them."""
    return {k: ("true" if v is True else str(v)) for k, v in values.items() if v is not None and v is not False}


class Client:
    """A client of the SII gateway's HTTP/JSON API.

    `retries` bounds how often a read answered 429 or 503 is sent again, each time after the
    answer's `Retry-After`; one that asks for more than `max_retry_wait` seconds (a spent daily
    quota, a maintenance window) is raised at once. Writes are never retried.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        session: requests.Session | None = None,
        retries: int = 2,
        *,
        max_retry_wait: float = 60.0,
        timeout: float = 120.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if retries < 0:
            raise ValueError("retries must be 0 or more")
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._session = session or requests.Session()
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        self.timeout = timeout
        self._sleep = sleep

    def __repr__(self) -> str:
        # The token stays out of logs and tracebacks.
        return f"Client({self.base_url!r})"

    # The generic calls

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Envelope[Any]:
        """Any operation answering the JSON envelope; `path` from the root (`/api/v1/...`)."""
        response = self._send(method, path, json=json, params=params, idempotency_key=idempotency_key, accept="application/json")
        return self._envelope(response, lambda data: data)

    def request_bytes(
        self,
        method: str,
        path: str,
        *,
        accept: str,
        json: Any = None,
        params: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> bytes:
        """Any operation's file answer (PDF, ESC/POS, CSV, the SII's pages) as bytes, chosen by `accept`."""
        return self._send(method, path, json=json, params=params, idempotency_key=idempotency_key, accept=accept).content

    # Account and sandbox

    def usage(self) -> Envelope[Usage]:
        """The token's quota: its plan and what is used of today's and this month's units (costs none)."""
        return self._envelope(self._send("GET", "/api/v1/usage"), Usage.from_json)

    def sandbox_credentials(self) -> Envelope[Json]:
        """The sandbox's test taxpayers with their clave and certificate (`cert`, `pfx`, `pfx_legacy`)."""
        return self._envelope(self._send("GET", "/sandbox/v1/credentials"), dict)

    # Indicators and RCV

    def uf(self, anio: int, mes: int, dia: int) -> Envelope[UfValue]:
        """The UF value of a date."""
        path = f"/api/v1/sii/indicadores/uf/anual/{anio:d}/{mes:d}/{dia:d}"
        return self._envelope(self._send("GET", path), UfValue.from_json)

    def rcv_ventas_resumen(self, emisor: str, periodo: str, auth: Mapping[str, Any], *, ambiente: int | None = None) -> Envelope[Json]:
        """The sales summary of a period (`periodo` `YYYYMM`); `auth` is `{"pass": {"rut", "clave"}}` or `{"cert": {...}}`."""
        path = f"/api/v1/sii/rcv/ventas/resumen/{_segment(emisor)}/{_segment(periodo)}"
        return self._envelope(self._send("POST", path, json={"auth": auth}, params=_query(ambiente=ambiente)), dict)

    def rcv_compras_detalle(
        self, receptor: str, periodo: str, dte: int, estado: str, auth: Mapping[str, Any], *, ambiente: int | None = None
    ) -> Envelope[Json]:
        """The purchase documents of a period, type and register state (`REGISTRO`, `PENDIENTE`, `NO_INCLUIR`, `RECLAMADO`)."""
        path = f"/api/v1/sii/rcv/compras/detalle/{_segment(receptor)}/{_segment(periodo)}/{dte:d}/{_segment(estado)}"
        return self._envelope(self._send("POST", path, json={"auth": auth}, params=_query(ambiente=ambiente)), dict)

    # Folios

    def caf_solicitar(
        self,
        emisor: str,
        dte: int,
        cantidad: int,
        cert: Mapping[str, Any],
        *,
        ledger: bool = False,
        dry_run: bool = False,
        ambiente: int | None = None,
        idempotency_key: str | None = None,
    ) -> Envelope[FolioRange]:
        """Stamp `cantidad` folios of type `dte` at the SII (irreversible; `dry_run` previews it for free)."""
        path = f"/api/v1/sii/dte/caf/solicitar/{_segment(emisor)}/{dte:d}/{cantidad:d}"
        body: Json = {"auth": {"cert": cert}}
        if ledger:
            body["ledger"] = True
        params = _query(ambiente=ambiente, dry_run=dry_run)
        return self._envelope(self._send("POST", path, json=body, params=params, idempotency_key=idempotency_key), FolioRange.from_json)

    def folio_ledger(self, emisor: str, dte: int) -> Envelope[Json]:
        """The account's folio ledger of an issuer and type: `disponibles`, `siguiente`, `rangos`."""
        return self._envelope(self._send("GET", f"/api/v1/platform/dte/folios/{_segment(emisor)}/{dte:d}"), dict)

    # Documents

    def documentos_generar(self, request: Mapping[str, Any], *, idempotency_key: str | None = None) -> Envelope[Json]:
        """Generate and sign documents and their envelope (`auth.cert`, `dte`, `resolucion`, and `caf` or the ledger)."""
        response = self._send("POST", "/api/v1/platform/dte/documentos/generar", json=request, idempotency_key=idempotency_key)
        return self._envelope(response, dict)

    @overload
    def documentos_pdf(self, request: Mapping[str, Any], *, as_base64: Literal[False] = False) -> bytes: ...

    @overload
    def documentos_pdf(self, request: Mapping[str, Any], *, as_base64: Literal[True]) -> Envelope[Json]: ...

    def documentos_pdf(self, request: Mapping[str, Any], *, as_base64: bool = False) -> bytes | Envelope[Json]:
        """A document's PDF (`request["xml"]`: a DTE or envelope, base64; `request["oficina_sii"]`: the issuer's SII
        office, which the printout needs): the bytes, or with `as_base64` the envelope whose `data["pdf"]` is base64
        and `data["documentos"]` names the documents."""
        path = "/api/v1/platform/dte/documentos/pdf"
        if as_base64:
            return self.request("POST", path, json=request)
        return self.request_bytes("POST", path, json=request, accept="application/pdf")

    # Submissions

    def envios_enviar(
        self,
        cert: Mapping[str, Any],
        xml: str,
        *,
        archivo: str | None = None,
        dry_run: bool = False,
        ambiente: int | None = None,
        idempotency_key: str | None = None,
    ) -> Envelope[Json]:
        """Send a signed envelope (`xml`, base64, as `documentos_generar` answers it) to the SII: `data["track_id"]`."""
        body: Json = {"auth": {"cert": cert}, "xml": xml}
        if archivo is not None:
            body["archivo"] = archivo
        params = _query(ambiente=ambiente, dry_run=dry_run)
        response = self._send("POST", "/api/v1/platform/dte/envios/enviar", json=body, params=params, idempotency_key=idempotency_key)
        return self._envelope(response, dict)

    def envios_estado(
        self,
        emisor: str,
        track_id: str,
        cert: Mapping[str, Any],
        *,
        servicio: Literal["dte", "boleta"] | None = None,
        ambiente: int | None = None,
    ) -> Envelope[Json]:
        """The processing state of a sent envelope: `data["estado"]`, `data["resultado"]`, counts per type."""
        path = f"/api/v1/platform/dte/envios/estado/{_segment(emisor)}/{_segment(track_id)}"
        params = _query(ambiente=ambiente, servicio=servicio)
        return self._envelope(self._send("POST", path, json={"auth": {"cert": cert}}, params=params), dict)

    # The transport

    def _send(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        accept: str = "application/json",
    ) -> requests.Response:
        headers = {"Authorization": f"Bearer {self._token}", "Accept": accept}
        route = path.split("?", 1)[0]
        if idempotency_key is not None or takes_idempotency_key(method, route):
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        read = is_read(method, route)
        attempt = 0
        while True:
            response = self._session.request(
                method, self.base_url + path, params=params, json=json, headers=headers, timeout=self.timeout
            )
            if response.status_code < 400:
                return response
            error = GatewayError.from_response(response)
            wait = error.retry_after if error.retry_after is not None else 2**attempt
            if not read or error.status not in (429, 503) or attempt >= self.retries or wait > self.max_retry_wait:
                raise error
            attempt += 1
            self._sleep(wait)

    @staticmethod
    def _envelope(response: requests.Response, read: Callable[[Any], T]) -> Envelope[T]:
        body = response.json()
        return Envelope(
            data=read(body["data"]),
            message=str(body.get("message", "")),
            timestamp=parse_datetime(body["timestamp"]),
            request_id=response.headers.get("X-Request-Id"),
            rate_limit=RateLimit.from_headers(response.headers),
            replayed=response.headers.get("Idempotent-Replayed") == "true",
        )
