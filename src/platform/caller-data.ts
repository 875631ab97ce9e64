// The request's own view of what the caller owns, for the redaction of an SII excerpt
// (src/sii/excerpt.ts): reading the API's body and path stays here, so sii/ knows no HTTP framework.
import type { Context, HonoRequest } from "hono";
import type { CallerData } from "../sii/excerpt.ts";

const RUT_IN_PATH = /\d{1,2}\.?\d{3}\.?\d{3}-[\dkK]/g;

/** The caller's own secrets and RUTs, from the validated JSON body (`auth.pass`, `auth.cert`) and the path. */
export function callerData(c: Context): CallerData {
  const ownRuts: string[] = [...(c.req.path.match(RUT_IN_PATH) ?? [])];
  const secrets: string[] = [];
  // Any operation's request, seen as one whose validated JSON body has a shape not known here
  // (undefined when the operation takes no body or validation has not run).
  const request: HonoRequest<string, { json: unknown }> = c.req;
  const body = request.valid("json");
  const auth = (body as { auth?: { pass?: Record<string, unknown>; cert?: Record<string, unknown> } } | undefined)?.auth;
  const cert = auth?.cert;
  for (const value of [
    auth?.pass?.clave,
    cert?.passphrase,
    cert?.["pkey-data"],
    cert?.["pfx-data"],
    cert?.["file-pass"],
    cert?.["file-data"],
  ]) {
    if (typeof value === "string" && value !== "") secrets.push(value);
  }
  if (typeof auth?.pass?.rut === "string") ownRuts.push(auth.pass.rut);
  return { secrets, ownRuts };
}
