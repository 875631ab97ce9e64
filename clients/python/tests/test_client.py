"""The client against a real gateway in sandbox mode (tests/gateway.py starts it once for the module)."""

import base64
import http.server
import json
import re
import threading
import time
import tomllib
import unittest
import uuid
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import requests

from sii_gateway import (
    Client,
    Envelope,
    FieldError,
    FolioRange,
    GatewayError,
    UfValue,
    Usage,
    WebhookVerificationError,
    is_read,
    takes_idempotency_key,
    verify_webhook,
)

from .gateway import ROOT, SandboxGateway

COMPANY = "76192083-9"
PERSON = "22222222-2"
gateway = SandboxGateway()


def setUpModule() -> None:
    gateway.start()


def tearDownModule() -> None:
    gateway.stop()


class Recorder:
    """A `sleep` that records the waits instead of sleeping them."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def sent_headers(session: requests.Session) -> list[requests.structures.CaseInsensitiveDict[str]]:
    """The headers of every request the session sends, as they went out."""
    seen: list[requests.structures.CaseInsensitiveDict[str]] = []
    session.hooks["response"].append(lambda response, *args, **kwargs: seen.append(response.request.headers))
    return seen


def control(method: str, path: str, body: Any = None) -> Any:
    """The sandbox's controls, open from loopback."""
    response = requests.request(method, gateway.base_url + path, json=body, timeout=30)
    response.raise_for_status()
    return response.json()["data"]


class GatewayCase(unittest.TestCase):
    client: Client
    credentials: dict[str, dict[str, Any]]

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = Client(gateway.base_url, gateway.dev_token)
        cls.credentials = {t["rut"]: t for t in cls.client.sandbox_credentials().data["taxpayers"]}

    def tearDown(self) -> None:
        control("DELETE", "/sandbox/v1/faults")

    def clave(self, rut: str) -> dict[str, Any]:
        return {"pass": {"rut": rut, "clave": self.credentials[rut]["clave"]}}

    def cert(self, rut: str) -> dict[str, Any]:
        return dict(self.credentials[rut]["cert"])


class PackageTest(unittest.TestCase):
    def test_version_is_the_gateways(self) -> None:
        pyproject = tomllib.loads((ROOT / "clients" / "python" / "pyproject.toml").read_text("utf-8"))
        package = json.loads((ROOT / "package.json").read_text("utf-8"))
        self.assertEqual(pyproject["project"]["version"], package["version"])
        self.assertEqual(pyproject["project"]["dependencies"], ["requests>=2.28"])
        self.assertTrue((Path(__file__).parents[1] / "sii_gateway" / "py.typed").exists())

    def test_operation_tables_follow_the_document(self) -> None:
        document = requests.get(gateway.base_url + "/openapi.json", timeout=30).json()
        wrong = []
        for path, operations in document["paths"].items():
            for method, operation in operations.items():
                if not isinstance(operation, dict) or "x-scope" not in operation:
                    continue
                concrete = re.sub(r"\{[^}]+\}", "x", path)
                scope = operation["x-scope"]
                reads = scope is None or scope.endswith(":read")
                keyed = any(p.get("$ref", "").endswith("/Idempotency-Key") or p.get("name") == "Idempotency-Key" for p in operation.get("parameters", []))
                if is_read(method, concrete) != reads:
                    wrong.append(f"{method.upper()} {path}: read {reads}")
                if takes_idempotency_key(method, concrete) != keyed:
                    wrong.append(f"{method.upper()} {path}: Idempotency-Key {keyed}")
        self.assertEqual(wrong, [])


class ReadTest(GatewayCase):
    def test_usage(self) -> None:
        answer = self.client.usage()
        self.assertIsInstance(answer, Envelope)
        self.assertIsInstance(answer.data, Usage)
        self.assertEqual(answer.data.token_id, "tok_development")
        self.assertIn("sii:write", answer.data.scopes)
        self.assertEqual(answer.data.daily.limit, answer.data.plan.daily_units)
        self.assertGreater(answer.data.daily.resets_at, datetime.now(timezone.utc))
        self.assertGreaterEqual(answer.data.monthly.resets_at, answer.data.daily.resets_at)
        self.assertIsNotNone(answer.rate_limit)
        assert answer.rate_limit is not None
        self.assertEqual(answer.rate_limit.units, 0)
        self.assertTrue(answer.request_id and answer.request_id.startswith("req_"))
        self.assertFalse(answer.replayed)

    def test_uf(self) -> None:
        answer = self.client.uf(2025, 3, 15)
        self.assertEqual(answer.data, UfValue(date(2025, 3, 15), answer.data.valor))
        self.assertGreater(answer.data.valor, 10_000)
        assert answer.rate_limit is not None
        self.assertGreaterEqual(answer.rate_limit.units, 1)

    def test_rcv_sales_summary_with_clave(self) -> None:
        data = self.client.rcv_ventas_resumen(COMPANY, "202401", self.clave(COMPANY)).data
        self.assertEqual((data["rut"], data["periodo"], data["operacion"]), (COMPANY, "202401", "VENTA"))
        self.assertGreater(data["total_documentos"], 0)
        self.assertEqual(data["total_documentos"], sum(row["documentos"] for row in data["resumen"]))

    def test_rcv_purchase_detail_with_clave(self) -> None:
        data = self.client.rcv_compras_detalle(COMPANY, "202401", 33, "REGISTRO", self.clave(COMPANY)).data
        self.assertEqual(data["operacion"], "COMPRA")
        self.assertGreater(data["registros"], 0)
        self.assertEqual(data["registros"], len(data["documentos"]))
        self.assertTrue(all(d["tipo_documento"] == 33 for d in data["documentos"]))

    def test_generic_request_and_bytes(self) -> None:
        brackets = self.client.request("GET", "/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2024/5")
        self.assertIsInstance(brackets.data, dict)
        path = f"/api/v1/sii/rcv/ventas/detalle/{COMPANY}/202401/33"
        csv = self.client.request_bytes("POST", path, json={"auth": self.clave(COMPANY)}, accept="text/csv").decode("latin-1")
        rows = csv.strip().splitlines()
        self.assertGreater(len(rows), 1)
        self.assertIn(";", rows[0])

    def test_sandbox_credentials(self) -> None:
        self.assertEqual(set(self.credentials), {COMPANY, "11111111-1", PERSON})
        self.assertIn("pfx-data", self.credentials[COMPANY]["pfx"])


class FolioTest(GatewayCase):
    def test_dry_run_is_free(self) -> None:
        answer = self.client.caf_solicitar(COMPANY, 33, 5, self.cert(COMPANY), dry_run=True)
        self.assertIsInstance(answer.data, FolioRange)
        self.assertEqual(answer.data.cantidad, 5)
        assert answer.rate_limit is not None
        self.assertEqual(answer.rate_limit.units, 0)

    def test_ledger(self) -> None:
        granted = self.client.caf_solicitar(PERSON, 34, 10, self.cert(PERSON), ledger=True).data
        self.assertEqual(granted.folio_final - granted.folio_inicial + 1, 10)
        self.assertIsNotNone(granted.ledger)
        ledger = self.client.folio_ledger(PERSON, 34).data
        self.assertEqual(ledger["disponibles"], 10)
        self.assertEqual(ledger["siguiente"], granted.folio_inicial)
        with self.assertRaises(GatewayError) as caught:
            self.client.folio_ledger(PERSON, 61)
        self.assertEqual((caught.exception.status, caught.exception.error_code), (404, "HTTP_404"))


class IssuingTest(GatewayCase):
    """Folios, a signed invoice, its PDF both ways, the envelope sent and followed, an idempotent replay."""

    generar: dict[str, Any]
    generated: dict[str, Any]

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cert = cls.credentials[COMPANY]["cert"]
        caf = cls.client.caf_solicitar(COMPANY, 33, 2, cert).data
        cls.generar = {
            "auth": {"cert": cert},
            "caf": caf.caf_xml,
            "resolucion": {"fecha": "2014-08-22", "numero": 80},
            "dte": {
                "Encabezado": {
                    "IdDoc": {"TipoDTE": 33, "Folio": caf.folio_inicial},
                    "Emisor": {
                        "RUTEmisor": COMPANY,
                        "RznSoc": "Comercial Sandbox SpA",
                        "GiroEmis": "Comercio",
                        "Acteco": 479100,
                        "DirOrigen": "Av. Providencia 1234",
                        "CmnaOrigen": "Providencia",
                    },
                    "Receptor": {
                        "RUTRecep": PERSON,
                        "RznSocRecep": "Pedro Muñoz Rojas",
                        "GiroRecep": "Servicios",
                        "DirRecep": "Calle Uno 1",
                        "CmnaRecep": "Ñuñoa",
                    },
                },
                "Detalle": {"NmbItem": "Asesoría contable", "QtyItem": 2, "PrcItem": 50000},
            },
        }
        cls.generated = cls.client.documentos_generar(cls.generar).data

    def test_generated(self) -> None:
        self.assertEqual(self.generated["sobre"], "EnvioDTE")
        [document] = self.generated["documentos"]
        self.assertEqual((document["tipo"], document["folio"]), (33, self.generar["dte"]["Encabezado"]["IdDoc"]["Folio"]))

    def test_pdf_as_bytes_and_base64(self) -> None:
        xml = self.generated["documentos"][0]["dte_xml"]
        pdf = self.client.documentos_pdf({"xml": xml, "oficina_sii": "PROVIDENCIA"})
        self.assertTrue(pdf.startswith(b"%PDF-"))
        answer = self.client.documentos_pdf({"xml": xml, "oficina_sii": "PROVIDENCIA"}, as_base64=True)
        self.assertTrue(base64.b64decode(answer.data["pdf"]).startswith(b"%PDF-"))
        self.assertEqual(answer.data["documentos"], [{"tipo": 33, "folio": self.generated["documentos"][0]["folio"]}])

    def test_send_and_follow(self) -> None:
        cert = self.cert(COMPANY)
        sent = self.client.envios_enviar(cert, self.generated["envio_xml"]).data
        self.assertRegex(sent["track_id"], r"^\d+$")
        # The sandbox moves an envelope one step a second (REC ... EPR): poll, bounded.
        deadline = time.monotonic() + 60
        while True:
            status = self.client.envios_estado(COMPANY, sent["track_id"], cert, servicio=sent["servicio"]).data
            if status["resultado"] != "procesando" or time.monotonic() > deadline:
                break
            time.sleep(1)
        self.assertEqual((status["track_id"], status["resultado"]), (sent["track_id"], "aceptado"))

    def test_idempotent_replay(self) -> None:
        key = str(uuid.uuid4())
        first = self.client.documentos_generar(self.generar, idempotency_key=key)
        again = self.client.documentos_generar(self.generar, idempotency_key=key)
        self.assertFalse(first.replayed)
        self.assertTrue(again.replayed)
        self.assertEqual(again.data, first.data)
        assert again.rate_limit is not None
        self.assertEqual(again.rate_limit.units, 0)
        other = {**self.generar, "resolucion": {"fecha": "2014-08-22", "numero": 81}}
        with self.assertRaises(GatewayError) as caught:
            self.client.documentos_generar(other, idempotency_key=key)
        self.assertEqual((caught.exception.status, caught.exception.error_code), (409, "IDEMPOTENCY_CONFLICT"))

    def test_fresh_key_on_each_write_none_on_reads(self) -> None:
        session = requests.Session()
        seen = sent_headers(session)
        client = Client(gateway.base_url, gateway.dev_token, session=session)
        client.caf_solicitar(COMPANY, 33, 1, self.cert(COMPANY), dry_run=True)
        client.caf_solicitar(COMPANY, 33, 1, self.cert(COMPANY), dry_run=True)
        client.documentos_pdf({"xml": self.generated["documentos"][0]["dte_xml"], "oficina_sii": "PROVIDENCIA"})
        keys = [headers.get("Idempotency-Key") for headers in seen]
        self.assertEqual(len(keys), 3)
        self.assertEqual(uuid.UUID(keys[0] or "").version, 4)
        self.assertNotEqual(keys[0], keys[1])
        self.assertIsNone(keys[2])
        self.assertNotIn("X-API-Token", seen[0])
        self.assertEqual(seen[0]["Authorization"], f"Bearer {gateway.dev_token}")


class ErrorTest(GatewayCase):
    def test_401(self) -> None:
        with self.assertRaises(GatewayError) as caught:
            Client(gateway.base_url, "sii_not_a_token").usage()
        error = caught.exception
        self.assertEqual((error.status, error.error_code), (401, "HTTP_401"))
        self.assertTrue(error.request_id and error.request_id.startswith("req_"))
        self.assertTrue(error.message)
        self.assertEqual(error.errors, [])

    def test_422_names_the_field(self) -> None:
        with self.assertRaises(GatewayError) as caught:
            self.client.rcv_ventas_resumen(COMPANY, "202401", {"pass": {"rut": COMPANY}})
        error = caught.exception
        self.assertEqual((error.status, error.error_code), (422, "VALIDATION_ERROR"))
        self.assertIn("auth.pass.clave", [e.path for e in error.errors])
        self.assertTrue(all(isinstance(e, FieldError) and e.location == "body" for e in error.errors))

    def test_400_names_the_parameter(self) -> None:
        with self.assertRaises(GatewayError) as caught:
            self.client.uf(2025, 13, 1)
        error = caught.exception
        self.assertEqual((error.status, error.error_code), (400, "VALIDATION_ERROR"))
        self.assertEqual([(e.path, e.location) for e in error.errors], [("mes", "path")])

    def test_429_quota_with_a_tiny_plan(self) -> None:
        admin = Client(gateway.base_url, gateway.admin_token)
        # No units a day: every charged call is over the plan, whatever it costs.
        plan = {"daily_units": 0, "monthly_units": 100}
        issued = admin.request("POST", "/admin/v1/tokens", json={"name": "tiny", "account": "python-tiny", "scopes": ["sii:read"], "plan": plan})
        self.assertIsNone(issued.rate_limit)
        sleep = Recorder()
        tiny = Client(gateway.base_url, issued.data["token"], sleep=sleep)
        self.assertEqual(tiny.usage().data.daily.remaining, 0)
        with self.assertRaises(GatewayError) as caught:
            tiny.uf(2025, 3, 16)
        error = caught.exception
        self.assertEqual((error.status, error.error_code), (429, "QUOTA_EXCEEDED"))
        self.assertIsNotNone(error.retry_after)
        assert error.retry_after is not None
        # Until the UTC day's end: more than the client waits, so it is raised at once.
        self.assertGreater(error.retry_after, tiny.max_retry_wait)
        self.assertEqual(sleep.waits, [])


class RetryTest(GatewayCase):
    def fault(self, service: str, count: int) -> None:
        control("POST", "/sandbox/v1/faults", {"service": service, "fault": "maintenance", "count": count})
        control("DELETE", "/sandbox/v1/calls")

    def calls(self, service: str) -> int:
        return int(control("GET", "/sandbox/v1/calls")["calls"].get(service, 0))

    def test_read_retried_after_503(self) -> None:
        self.fault("indicadores", 1)
        sleep = Recorder()
        client = Client(gateway.base_url, gateway.dev_token, max_retry_wait=300, sleep=sleep)
        answer = client.uf(2019, 6, 3)
        self.assertEqual(answer.data.fecha, date(2019, 6, 3))
        self.assertEqual(sleep.waits, [300])
        self.assertEqual(self.calls("indicadores"), 2)

    def test_retries_are_bounded(self) -> None:
        self.fault("indicadores", 3)
        sleep = Recorder()
        client = Client(gateway.base_url, gateway.dev_token, retries=2, max_retry_wait=300, sleep=sleep)
        with self.assertRaises(GatewayError) as caught:
            client.uf(2018, 6, 4)
        self.assertEqual((caught.exception.status, caught.exception.error_code), (503, "SII_UNAVAILABLE"))
        self.assertEqual(caught.exception.retry_after, 300)
        self.assertEqual(sleep.waits, [300, 300])
        self.assertEqual(self.calls("indicadores"), 3)

    def test_write_not_retried(self) -> None:
        self.fault("caf_request", 2)
        sleep = Recorder()
        client = Client(gateway.base_url, gateway.dev_token, max_retry_wait=300, sleep=sleep)
        with self.assertRaises(GatewayError) as caught:
            client.caf_solicitar(COMPANY, 33, 1, self.cert(COMPANY))
        self.assertEqual((caught.exception.status, caught.exception.error_code), (503, "SII_UNAVAILABLE"))
        self.assertEqual(sleep.waits, [])
        self.assertEqual(self.calls("caf_request"), 1)


class WebhookTest(GatewayCase):
    """A delivery the gateway signs, received on loopback (sandbox mode allows it) and verified here."""

    def test_a_test_event_verifies_and_a_tampered_one_does_not(self) -> None:
        received: list[tuple[dict[str, str], bytes]] = []

        class Receiver(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the handler's name is http.server's)
                body = self.rfile.read(int(self.headers["content-length"]))
                received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/hook"
            created = self.client.request("POST", "/api/v1/webhooks/endpoints", json={"url": url}).data
            secret, endpoint = created["secreto"], created["endpoint"]["id"]
            tested = self.client.request("POST", f"/api/v1/webhooks/endpoints/{endpoint}/test").data
            deadline = time.monotonic() + 30
            while not received and time.monotonic() < deadline:
                time.sleep(0.1)
            # At least once: a repeat carries the same webhook-id (the receiver's key to drop it).
            self.assertGreaterEqual(len(received), 1)
            self.assertEqual({h["webhook-id"] for h, _ in received}, {tested["event"]["id"]})
            headers, body = received[0]
            event = verify_webhook(secret, headers, body)
            self.assertEqual((event["id"], event["type"]), (tested["event"]["id"], "webhook.test"))
            self.assertEqual(headers["webhook-id"], event["id"])
            for tampered_body, tampered_headers, key in [
                (body.replace(b"webhook.test", b"webhook.tost"), headers, secret),
                (body, {**headers, "webhook-timestamp": str(int(headers["webhook-timestamp"]) + 1)}, secret),
                (body, headers, "whsec_" + base64.b64encode(b"another secret of 32 bytes......").decode()),
            ]:
                with self.assertRaises(WebhookVerificationError):
                    verify_webhook(key, tampered_headers, tampered_body)
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(secret, headers, body, now=int(headers["webhook-timestamp"]) + 301)
            self.client.request("DELETE", f"/api/v1/webhooks/endpoints/{endpoint}")
        finally:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    unittest.main()
