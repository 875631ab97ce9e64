// docs/postman.json is openapi-to-postmanv2's conversion of the document, written by `npm run schemas`:
// the committed file must be a fresh conversion byte for byte, hold one request per operation, aim
// at {{baseUrl}} and authenticate as each operation's security says, with the collection's variables.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { documentApp } from "../../scripts/document-app.ts";
import { POSTMAN_FILE, postmanCollectionText, SANDBOX_BASE_URL } from "../../scripts/postman.ts";
import { openApiDocument } from "../../src/routes/openapi.ts";

type Json = Record<string, unknown>;
interface Request {
  method: string;
  url: { host: string[]; path: string[] };
  header: { key: string; value: string }[];
  auth: Json & { type: string };
}
interface Item {
  name: string;
  item?: Item[];
  request?: Request;
  response?: unknown[];
}

const root = join(import.meta.dirname, "..", "..");
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];
const doc = openApiDocument(documentApp()) as unknown as {
  paths: Record<string, Record<string, Json>>;
  components: { securitySchemes: Record<string, Json> };
};
const committed = readFileSync(join(root, POSTMAN_FILE), "utf8");
const collection = JSON.parse(committed) as { item: Item[]; variable: { key: string; value: string }[]; info: Json };

function requests(items: Item[]): Request[] {
  return items.flatMap((item) => (item.item ? requests(item.item) : item.request ? [item.request] : []));
}

/** `METHOD /path` of a request, Postman's `:id` written back as `{id}`. */
function routeOf(request: Request): string {
  return `${request.method} /${request.url.path.map((s) => s.replace(/^:(.+)$/, "{$1}")).join("/")}`;
}

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  METHODS.filter((method) => item[method]).map((method) => ({ route: `${method.toUpperCase()} ${path}`, operation: item[method]! })),
);

describe("docs/postman.json", () => {
  let fresh: string;
  beforeAll(async () => {
    fresh = await postmanCollectionText(doc as unknown as Json);
  });

  it("is a fresh conversion of the document (run npm run schemas)", () => {
    expect(committed).toBe(fresh);
  });

  it("holds one request per operation of the document", () => {
    const routes = requests(collection.item).map(routeOf).sort();
    expect(operations.length).toBeGreaterThan(50);
    expect(routes).toEqual(operations.map((o) => o.route).sort());
  });

  it("carries no random ids and no faked example answers", () => {
    expect(committed).not.toMatch(/"(_postman_id|id)":/);
    const items = (list: Item[]): Item[] => list.flatMap((item) => (item.item ? items(item.item) : [item]));
    for (const item of items(collection.item)) expect(item.response ?? []).toEqual([]);
  });

  it("has the variables baseUrl (the dev sandbox), token and adminToken", () => {
    const variables = Object.fromEntries(collection.variable.map((v) => [v.key, v.value]));
    expect(variables.baseUrl).toBe("http://127.0.0.1:8787");
    expect(SANDBOX_BASE_URL).toBe("http://127.0.0.1:8787");
    expect(Object.keys(variables).sort()).toEqual(["adminToken", "baseUrl", "token"]);
  });

  it("aims every request at {{baseUrl}}", () => {
    for (const request of requests(collection.item)) expect(request.url.host, routeOf(request)).toEqual(["{{baseUrl}}"]);
  });

  it("authenticates as each operation's security says: the API token, else the admin token, else nothing", () => {
    const scheme = doc.components.securitySchemes.ApiToken!;
    expect(scheme).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Token" });
    const byRoute = new Map(requests(collection.item).map((r) => [routeOf(r), r]));
    const kinds = new Set<string>();
    for (const { route, operation } of operations) {
      const names = ((operation.security ?? []) as Json[]).flatMap((requirement) => Object.keys(requirement));
      const auth = byRoute.get(route)!.auth;
      if (names.includes("ApiToken")) {
        expect(auth, route).toEqual({
          type: "apikey",
          apikey: [
            { key: "key", value: scheme.name },
            { key: "value", value: "{{token}}" },
            { key: "in", value: "header" },
          ],
        });
      } else if (names.includes("AdminToken")) {
        expect(auth, route).toEqual({ type: "bearer", bearer: [{ key: "token", value: "{{adminToken}}" }] });
      } else {
        expect(auth, route).toEqual({ type: "noauth" });
      }
      kinds.add(auth.type);
    }
    expect([...kinds].sort()).toEqual(["apikey", "bearer", "noauth"]);
  });

  it("sends a fresh Idempotency-Key with every call that documents one", () => {
    const keyed = requests(collection.item).flatMap((r) => r.header.filter((h) => h.key === "Idempotency-Key"));
    expect(keyed.length).toBeGreaterThan(0);
    for (const header of keyed) expect(header.value).toBe("{{$guid}}");
  });
});
