// Adding a CAF file to the caller's ledger, as POST folios and caf/solicitar (with `ledger: true`)
// do: read as generar reads it (the SII's signature over the one parsed DA), granted to this
// issuer for this type, sharing no folio with a range held; kept sealed.
import type { Context } from "hono";
import { CafError, cafVence, readCaf } from "../../dte/generate/caf.ts";
import { parseRut } from "../../lib/rut.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ApiError } from "../../platform/errors.ts";
import { trustedCafKeys } from "../../services/caf-keys.ts";
import { accountOf, ledgerView, sealCaf } from "./schema.ts";

const fieldError = (path: string, message: string) =>
  new ApiError(400, "VALIDATION_ERROR", `${path} ${message}`, { errors: [{ path, location: "body", message }] });

/** Adds `file` (base64 or raw XML) to the ledger of `emisor` and `dte`; answers the ledger and the range added. */
export async function addCaf(c: Context<AppEnv>, emisor: string, dte: number, file: string) {
  let caf: Awaited<ReturnType<typeof readCaf>>;
  try {
    caf = await readCaf(file, "caf", trustedCafKeys(c.get("deps")));
  } catch (error) {
    if (!(error instanceof CafError)) throw error;
    throw fieldError(error.problem.path, error.problem.message);
  }
  const granted = parseRut(caf.re);
  if (!granted.ok || granted.rut !== emisor)
    throw fieldError("caf.DA.RE", `is ${caf.re}: the CAF was granted to another issuer than ${emisor}`);
  if (caf.td !== dte) throw fieldError("caf.DA.TD", `is ${caf.td}: the CAF is for another document type than ${dte}`);
  const range = { desde: caf.desde, hasta: caf.hasta, autorizado: caf.fa, vence: cafVence(caf.td, caf.fa) };
  const added = await c.var.deps.folios.add(accountOf(c), emisor, dte, { ...range, caf: await sealCaf(c, file) });
  if (added.state === "overlap") {
    throw new ApiError(
      409,
      "FOLIOS_OVERLAP",
      `Folios ${caf.desde}–${caf.hasta} overlap the range ${added.desde}–${added.hasta} this account already holds for ${emisor}, type ${dte}`,
      { details: { desde: added.desde, hasta: added.hasta } },
    );
  }
  const umbral = await c.var.deps.folios.threshold(accountOf(c), emisor, dte);
  const view = ledgerView(added.rangos, c.var.deps.clock.now().toISOString().slice(0, 10), umbral);
  // Just added, so it is there.
  const rango = view.rangos.find((r) => r.desde === caf.desde) as (typeof view.rangos)[number];
  return { ...view, rango };
}
