"""Verifying the gateway's webhook deliveries (Standard Webhooks 1.0), with the standard library only.

The signature is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the bytes
the secret's base64 (after `whsec_`) encodes; during a rotation `webhook-signature` holds two, space-separated.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

SECRET_PREFIX = "whsec_"
#: How far a delivery's timestamp may be from this machine's clock, in seconds (the specification's 5 minutes).
TOLERANCE_SECONDS = 300


class WebhookVerificationError(Exception):
    """The delivery is not one the endpoint's secret signed, or it is too old or too new to accept."""


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    raise WebhookVerificationError(f"the {name} header is missing")


def verify_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: bytes | str,
    *,
    tolerance: int = TOLERANCE_SECONDS,
    now: float | None = None,
) -> dict[str, Any]:
    """The delivery's event (`id`, `type`, `timestamp`, `sequence`, `data`) once its signature and time check out.

    `body` is the raw request body, as received: verify before parsing. Raises `WebhookVerificationError`.
    """
    raw = body.encode("utf-8") if isinstance(body, str) else body
    if not secret.startswith(SECRET_PREFIX):
        raise WebhookVerificationError("the secret is not a whsec_ secret")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except binascii.Error as error:
        raise WebhookVerificationError("the secret is not base64 after whsec_") from error
    message_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    if not timestamp.isdigit():
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds")
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is too far from this clock")
    signed = f"{message_id}.{timestamp}.".encode() + raw
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for signature in _header(headers, "webhook-signature").split(" "):
        version, _, value = signature.partition(",")
        if version == "v1" and hmac.compare_digest(expected, value):
            event: dict[str, Any] = json.loads(raw)
            if event.get("id") != message_id:
                raise WebhookVerificationError("the body's id is not the webhook-id")
            return event
    raise WebhookVerificationError("no signature matches the secret")
