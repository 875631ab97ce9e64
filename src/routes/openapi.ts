// GET /openapi.json (no auth): OpenAPI 3.1 generated from the route schemas, with what every
// operation shares added (X-Request-Id, public security, the RCV download links, tags described).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../platform/context.ts";
import { headerRefs, IDEMPOTENCY_KEY_PARAMETER, RESPONSE_HEADERS, type ResponseHeaderName } from "../platform/schemas.ts";
import { closeRequestBodies } from "./openapi-closed-bodies.ts";
import { requestDefaultsInWords } from "./openapi-defaults.ts";
import { API_INFO, TAG_DESCRIPTIONS } from "./openapi-info.ts";

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
  closeRequestBodies(doc.paths ?? {}, doc.components?.schemas ?? {});
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
