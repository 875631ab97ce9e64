// The Postman collection (docs/postman.json), written by `npm run schemas`: openapi-to-postmanv2's
// conversion of the OpenAPI document, made reproducible (seeded example values, no random ids, no
// example answers: the document is their reference) and pointed at the dev sandbox with a token variable.
import { createRequire } from "node:module";
import { seededRandom } from "../src/lib/seeded-random.ts";

type Json = Record<string, unknown>;
type Auth = Json & { type: string };
interface Item {
  id?: string;
  name: string;
  item?: Item[];
  request?: { method: string; url: { host?: string[]; path?: string[] }; header?: { key: string; value: string }[]; auth?: Auth | null };
  response?: unknown[];
}

export const POSTMAN_FILE = "docs/postman.json";
/** `npm run dev`'s address (scripts/dev.mjs). */
export const SANDBOX_BASE_URL = "http://127.0.0.1:8787";

const require = createRequire(import.meta.url);
const converter = require("openapi-to-postmanv2") as {
  convertV2(input: { type: "json"; data: Json }, options: Json, cb: (err: unknown, result: ConversionResult) => void): void;
};
// The converter's own copy of json-schema-faker (it fakes values the document gives no example of).
const faker = require("openapi-to-postmanv2/assets/json-schema-faker.js") as { option(options: Json): void };

interface ConversionResult {
  result: boolean;
  reason?: string;
  output: { type: string; data: Json & { item: Item[]; info: Json } }[];
}

function convert(doc: Json): Promise<ConversionResult["output"][number]["data"]> {
  faker.option({ random: seededRandom(1) });
  return new Promise((resolve, reject) => {
    // A deep copy: the converter rewrites its input.
    const data = JSON.parse(JSON.stringify(doc)) as Json;
    converter.convertV2({ type: "json", data }, { folderStrategy: "Tags", parametersResolution: "Example" }, (err, result) => {
      if (err) return reject(err);
      const collection = result.result ? result.output.find((o) => o.type === "collection")?.data : undefined;
      if (!collection) return reject(new Error(`openapi-to-postmanv2: ${result.reason ?? "no collection"}`));
      resolve(collection);
    });
  });
}

/**
 * The request's auth from its operation's security: the API token as its scheme names it, else the
 * admin token, else none. The sandbox controls' anonymous requirement holds on loopback only, so
 * they take the token too (the dev token opens them from elsewhere).
 */
function authOf(operation: Json, schemes: Record<string, Json>): Auth {
  const names = new Set(((operation.security ?? []) as Json[]).flatMap((requirement) => Object.keys(requirement)));
  const apiToken = schemes.ApiToken;
  if (names.has("ApiToken") && apiToken) {
    const apikey = [
      { key: "key", value: apiToken.name },
      { key: "value", value: "{{token}}" },
      { key: "in", value: apiToken.in },
    ];
    return { type: "apikey", apikey };
  }
  if (names.has("AdminToken")) return { type: "bearer", bearer: [{ key: "token", value: "{{adminToken}}" }] };
  return { type: "noauth" };
}

/** The document's operation a converted request stands for (Postman writes `{id}` as `:id`). */
function operationOf(doc: Json, method: string, path: string[]): Json {
  const route = `/${path.map((segment) => segment.replace(/^:(.+)$/, "{$1}")).join("/")}`;
  const operation = (doc.paths as Record<string, Record<string, Json>>)[route]?.[method.toLowerCase()];
  if (!operation) throw new Error(`the collection's ${method} ${route} is no operation of the document`);
  return operation;
}

function settle(items: Item[], doc: Json, schemes: Record<string, Json>): Item[] {
  return items.map(({ id: _id, ...item }) => {
    if (item.item) return { ...item, item: settle(item.item, doc, schemes) };
    if (!item.request) return item;
    const operation = operationOf(doc, item.request.method, item.request.url.path ?? []);
    // A fresh key per send, as the header's description asks, instead of a faked one replayed forever.
    const header = item.request.header?.map((h) => (h.key === "Idempotency-Key" ? { ...h, value: "{{$guid}}" } : h));
    return { ...item, request: { ...item.request, header, auth: authOf(operation, schemes) }, response: [] };
  });
}

/** docs/postman.json's text for the document `doc`. */
export async function postmanCollectionText(doc: Json): Promise<string> {
  const collection = await convert(doc);
  const schemes = ((doc.components as Json | undefined)?.securitySchemes ?? {}) as Record<string, Json>;
  const { _postman_id: _id, ...info } = collection.info;
  const settled = {
    ...collection,
    info,
    item: settle(collection.item, doc, schemes),
    variable: [
      { key: "baseUrl", value: SANDBOX_BASE_URL, type: "string" },
      { key: "token", value: "", type: "string", description: "An API token (`npm run dev` prints the development one)" },
      { key: "adminToken", value: "", type: "string", description: "The ADMIN_TOKEN, for /admin (`npm run dev` prints a development one)" },
    ],
  };
  return `${JSON.stringify(settled, null, 2)}\n`;
}
