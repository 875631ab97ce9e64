// The Worker entry as tests in workerd call it: a path on the gateway's host, and the admin
// token the vitest configuration binds.
import { exports } from "cloudflare:workers";

export const ADMIN_HEADERS = { authorization: "Bearer test-admin-token-of-at-least-32-characters", "content-type": "application/json" };

export const fetchWorker = (path: string, init?: RequestInit) => exports.default.fetch(new Request(`https://gateway.test${path}`, init));
