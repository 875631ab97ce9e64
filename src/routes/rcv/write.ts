// The RCV writes' registration: a write's contract (path, params, body, its payload's own checks)
// and one call of the RCV service (src/services/rcv.ts `writeRegister`), which validates, sends
// and answers the SII's confirmation; `dry_run` stops after validating.
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { isDryRun } from "../../platform/dry-run.ts";
import { ok } from "../../platform/envelope.ts";
import type { FieldError } from "../../platform/errors.ts";
import { type Access, registerOperation } from "../../platform/operation.ts";
import { previewNote } from "../../platform/preview.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { fieldPath } from "../../platform/validation.ts";
import { RCV_WRITE_PLACEHOLDERS, type RcvChange, writeRegister } from "../../services/rcv.ts";
import { loginOf } from "../credentials.ts";
import { type RcvAuth, WriteQuery, Written } from "./schema.ts";

/** monto_total must be what its parts add up to. */
export function checkTotals(
  rows: { monto_exento: number; monto_neto: number; monto_iva: number; monto_total: number }[],
  path: string,
): FieldError[] {
  return rows.flatMap((r, i) =>
    r.monto_exento + r.monto_neto + r.monto_iva === r.monto_total
      ? []
      : [
          {
            path: fieldPath(path, i, "monto_total"),
            location: "body" as const,
            message: `must be monto_exento + monto_neto + monto_iva (${r.monto_exento + r.monto_neto + r.monto_iva})`,
          },
        ],
  );
}

/**
 * A write: its payload is validated strictly (`check`) before anything is sent; `dry_run` stops
 * there. Typed by the schemas' outputs, so the route built from them types its handler's input.
 */
export interface WriteSpec<Params extends { periodo: string }, Body extends { auth: RcvAuth }> {
  path: string;
  access: Access;
  summary: string;
  /** How the SII-side call is known (the operation's description). */
  description?: string;
  params: z.ZodObject & z.ZodType<Params>;
  /** The taxpayer whose register is written. */
  rut: (params: Params) => string;
  body: z.ZodType<Body>;
  check?: (body: Body, params: Params) => FieldError[];
  /** What the body changes in the register. */
  change: (body: Body, params: Params) => RcvChange;
}

export function registerRcvWrite<Params extends { periodo: string }, Body extends { auth: RcvAuth }>(
  app: OpenAPIHono<AppEnv>,
  spec: WriteSpec<Params, Body>,
): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: spec.path,
      tags: ["RCV"],
      summary: spec.summary,
      description: `${
        spec.description ??
        "The SII-side call of this operation is inferred (not public); `dry_run` validates everything without contacting the SII."
      } ${previewNote(RCV_WRITE_PLACEHOLDERS)}`,
      request: { params: spec.params, query: WriteQuery, body: jsonBody(spec.body) },
      responses: { 200: jsonContent(Written, "The SII's confirmation"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    spec.access,
    async (c) => {
      const params = c.req.valid("param");
      const body = c.req.valid("json");
      // A dry run reads no certificate: nothing is sent, so it needs no login.
      const login = isDryRun(c) ? null : await loginOf(c, body.auth);
      const write = {
        rut: spec.rut(params),
        periodo: params.periodo,
        errors: spec.check?.(body, params) ?? [],
        change: spec.change(body, params),
      };
      const { data, message } = await writeRegister(callerOf(c), { ...write, login });
      return ok(c, data, message);
    },
  );
}
