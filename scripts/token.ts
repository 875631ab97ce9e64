// `npm run token -- <command>`: issue and manage API tokens through the admin API of a running
// gateway (local `npm run dev` / `npm start`, or a deployed one).
//   create --name erp --account acme --scopes sii:read,sii:write [--daily 1000] [--monthly 20000]
//   list | show <id> | block <id> | unblock <id> | revoke <id>
// Options: --url (or GATEWAY_URL; default http://127.0.0.1:8787), --admin-token (or ADMIN_TOKEN), --json.
import { parseArgs } from "node:util";

const usage = `usage: npm run token -- <create|list|show|block|unblock|revoke> [id] [options]
  create --name NAME --account ACCOUNT --scopes sii:read,sii:write [--daily N] [--monthly N]
  options: --url URL (GATEWAY_URL), --admin-token TOKEN (ADMIN_TOKEN), --json`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: "string", default: process.env.GATEWAY_URL ?? "http://127.0.0.1:8787" },
    "admin-token": { type: "string", default: process.env.ADMIN_TOKEN },
    name: { type: "string" },
    account: { type: "string" },
    scopes: { type: "string" },
    daily: { type: "string" },
    monthly: { type: "string" },
    json: { type: "boolean", default: false },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

interface TokenView {
  id: string;
  name: string;
  account: string;
  scopes: string[];
  plan: { daily_units: number; monthly_units: number };
  blocked: boolean;
  created_at: string;
  hint: string;
  token?: string;
  usage?: { daily: { used: number; limit: number }; monthly: { used: number; limit: number } };
}

async function call(method: string, path: string, body?: unknown): Promise<{ data: unknown; message: string }> {
  const adminToken = values["admin-token"];
  if (!adminToken) fail("Set the admin token: --admin-token or ADMIN_TOKEN (npm run dev prints a development one).");
  let res: Response;
  try {
    res = await fetch(new URL(path, values.url), {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (err) {
    fail(`Cannot reach the gateway at ${values.url}: ${(err as Error).message}`);
  }
  const payload = (await res.json().catch(() => ({}))) as {
    data?: unknown;
    message?: string;
    errors?: { path: string; message: string }[];
  };
  if (!res.ok) {
    const fields = (payload.errors ?? []).map((e) => `\n  ${e.path}: ${e.message}`).join("");
    fail(`${res.status} ${payload.message ?? res.statusText}${fields}`);
  }
  return { data: payload.data, message: payload.message ?? "" };
}

function line(t: TokenView): string {
  const state = t.blocked ? "blocked" : "active";
  return `${t.id}  ${t.account}  ${t.name}  [${t.scopes.join(",")}]  ${t.plan.daily_units}/day ${t.plan.monthly_units}/month  ${state}  …${t.hint}`;
}

const [command, id] = positionals;
const needId = () => id ?? fail(`${command} needs a token id\n${usage}`);
let result: { data: unknown; message: string };
switch (command) {
  case "create": {
    if (!values.name || !values.account || !values.scopes) fail(`create needs --name, --account and --scopes\n${usage}`);
    const plan =
      values.daily || values.monthly
        ? { daily_units: Number(values.daily ?? 1000), monthly_units: Number(values.monthly ?? 20000) }
        : undefined;
    result = await call("POST", "/admin/v1/tokens", { name: values.name, account: values.account, scopes: values.scopes.split(","), plan });
    break;
  }
  case "list":
    result = await call("GET", "/admin/v1/tokens");
    break;
  case "show":
    result = await call("GET", `/admin/v1/tokens/${encodeURIComponent(needId())}`);
    break;
  case "block":
  case "unblock":
    result = await call("POST", `/admin/v1/tokens/${encodeURIComponent(needId())}/${command}`);
    break;
  case "revoke":
    result = await call("DELETE", `/admin/v1/tokens/${encodeURIComponent(needId())}`);
    break;
  default:
    fail(usage);
}

if (values.json) {
  console.log(JSON.stringify(result.data, null, 2));
} else if (command === "list") {
  const tokens = (result.data as { tokens: TokenView[] }).tokens;
  console.log(tokens.length ? tokens.map(line).join("\n") : "no tokens");
} else {
  const token = result.data as TokenView;
  console.log(`${result.message}\n${line(token)}`);
  if (token.usage)
    console.log(
      `usage: ${token.usage.daily.used}/${token.usage.daily.limit} today, ${token.usage.monthly.used}/${token.usage.monthly.limit} this month`,
    );
  if (token.token) console.log(`API token: ${token.token}`);
}
