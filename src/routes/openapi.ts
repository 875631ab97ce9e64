// GET /openapi.json (no auth): OpenAPI 3.1 generated from the route schemas.
import type { OpenAPIHono } from "@hono/zod-openapi";
import packageJson from "../../package.json" with { type: "json" };
import type { AppEnv } from "../platform/context.ts";
import { headerRefs, IDEMPOTENCY_KEY_PARAMETER, RESPONSE_HEADERS, type ResponseHeaderName } from "../platform/schemas.ts";
import { requestDefaultsInWords } from "./openapi-defaults.ts";

/**
 * package.json decides licence and contact, so the document cannot drift from the project: with no
 * `license` there, npm's own word for "no licence granted" (UNLICENSED); with no `homepage`,
 * `bugs` or `author`, a contact by name only.
 */
const project = packageJson as { license?: string; homepage?: string; bugs?: string | { url?: string; email?: string }; author?: string };
const bugs = typeof project.bugs === "string" ? { url: project.bugs } : (project.bugs ?? {});

export const API_INFO = {
  title: "SII gateway",
  version: "1.0.0",
  description:
    "HTTP/JSON gateway to Chile's tax authority (SII). Every operation takes an API token in `X-API-Token`. " +
    "In sandbox mode every operation answers from the built-in SII simulator.",
  // An SPDX expression in package.json is the licence's identifier too (OpenAPI 3.1 License Object).
  license:
    project.license && project.license !== "UNLICENSED" && !/^SEE LICEN[CS]E IN /i.test(project.license)
      ? { name: project.license, identifier: project.license }
      : { name: project.license ?? "UNLICENSED" },
  contact: {
    name: project.author ?? "sii-gateway maintainers",
    ...((project.homepage ?? bugs.url) ? { url: project.homepage ?? bugs.url } : {}),
    ...(bugs.email ? { email: bugs.email } : {}),
  },
};

/** One entry per tag the operations use; a tag without a description here fails the document test. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Health: "The gateway's own state, for load balancers and uptime checks (no token)",
  Account: "Your token's quota use",
  Settings: "Per-account settings: the outbound proxy the gateway uses to reach the SII",
  Folios: "Folio ranges (CAF): request and annul them at the SII",
  Taxpayers: "Taxpayer data from the SII",
  BHE: "Boletas de honorarios electrónicas issued",
  BTE: "Boletas de terceros electrónicas issued",
  Indicators: "UF, monetary correction and second-category tax tables",
  Vehicles: "The SII's vehicle valuation catalogue",
  Documents: "Generate, sign and render DTEs locally (no SII call)",
  Submissions: "Send envelopes of DTEs to the SII and follow their state",
  Exchanges: "Receiver responses, events and assignments (cesión) of received documents",
  RCV: "Registro de Compras y Ventas: summaries, detail, asynchronous downloads and writes",
  Certification: "The SII's certification process for new issuers: applications, test sets, progress",
  Sandbox: "Controls of the built-in SII simulator (sandbox mode only)",
  Admin: "The operator's token administration (ADMIN_TOKEN)",
};

type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;
type Operation = {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  responses?: Record<string, { headers?: Record<string, unknown>; links?: Record<string, unknown> }>;
};

export function openApiDocument(app: OpenAPIHono<AppEnv>): Document {
  const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: API_INFO, servers: [{ url: "/" }] });
  const used = new Set<string>();
  const byId = new Map<string, { path: string; operation: Operation }>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      withRequestId(operation);
      // No security named: the operation is public, and says so (a document-wide default would not).
      operation.security ??= [];
      for (const tag of operation.tags ?? []) used.add(tag);
      if (operation.operationId) byId.set(operation.operationId, { path, operation });
    }
  }
  linkAsyncDownloads(byId);
  requestDefaultsInWords(doc.paths ?? {}, doc.components?.schemas ?? {});
  // In the order above (Swagger UI lists sections so); a tag missing there comes last, undescribed.
  const rank = (tag: string) => Object.keys(TAG_DESCRIPTIONS).indexOf(tag) >>> 0;
  doc.tags = [...used].sort((a, b) => rank(a) - rank(b)).map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? "" }));
  return doc;
}

/**
 * The RCV asynchronous flow as OpenAPI links: `solicitar` → `estado` → `detalle`, carrying
 * `data.solicitud_id` of the answer into the next path, the other path parameters and the body
 * (the same credentials) as sent.
 */
function linkAsyncDownloads(byId: Map<string, { path: string; operation: Operation }>): void {
  const next: Record<string, string[]> = { solicitar: ["estado", "detalle"], estado: ["detalle"] };
  for (const [id, { operation }] of byId) {
    const step = /_async_(solicitar|estado)$/.exec(id)?.[1];
    if (!step) continue;
    const links: Record<string, unknown> = {};
    for (const target of next[step] ?? []) {
      const targetId = id.replace(/_(solicitar|estado)$/, `_${target}`);
      const found = byId.get(targetId);
      if (!found) continue;
      const names = [...found.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
      links[target] = {
        operationId: targetId,
        description: target === "estado" ? "Poll the state of this download" : "Fetch the documents once the state is TERMINADO",
        parameters: Object.fromEntries(
          names.map((name) => [name, name === "solicitud_id" ? "$response.body#/data/solicitud_id" : `$request.path.${name}`]),
        ),
        requestBody: "$request.body",
      };
    }
    const ok = operation.responses?.["200"];
    if (ok && Object.keys(links).length) ok.links = links;
  }
}

/** Every answer carries X-Request-Id (platform/request.ts), whichever route gave it. */
function withRequestId(operation: Operation): void {
  for (const response of Object.values(operation.responses ?? {})) {
    response.headers = { ...headerRefs(["X-Request-Id"]), ...response.headers };
  }
}

export function registerOpenApi(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiToken", {
    type: "apiKey",
    in: "header",
    name: "X-API-Token",
    description: "API token. `Authorization: Bearer <token>` and `Authorization: Token <token>` are accepted too.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator's ADMIN_TOKEN secret",
  });
  for (const [name, header] of Object.entries(RESPONSE_HEADERS)) {
    app.openAPIRegistry.registerComponent("headers", name as ResponseHeaderName, header as never);
  }
  app.openAPIRegistry.registerComponent("parameters", IDEMPOTENCY_KEY_PARAMETER.name, IDEMPOTENCY_KEY_PARAMETER);
  let cached: string | undefined;
  app.get("/openapi.json", (c) => {
    cached ??= JSON.stringify(openApiDocument(app));
    return c.body(cached, 200, { "content-type": "application/json; charset=utf-8" });
  });
}
