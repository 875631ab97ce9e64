"""A Python client of the SII gateway: `Client(base_url, token)`, answers as `Envelope`, refusals as `GatewayError`."""

from .client import Client, is_read, takes_idempotency_key
from .errors import FieldError, GatewayError
from .models import Envelope, FolioRange, Plan, QuotaWindow, RateLimit, UfValue, Usage
from .webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "Client",
    "Envelope",
    "FieldError",
    "FolioRange",
    "GatewayError",
    "Plan",
    "QuotaWindow",
    "RateLimit",
    "UfValue",
    "Usage",
    "WebhookVerificationError",
    "is_read",
    "takes_idempotency_key",
    "verify_webhook",
]
