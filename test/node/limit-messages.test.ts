// A body or path that breaks a count, length or range is refused with a message naming the field,
// the limit and what was sent (not zod's "Invalid input"): one over-limit value per constrained
// field of the documents operations.
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { MAX_CHARS } from "../../src/platform/params.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const pedro = SANDBOX_TAXPAYER_CERTS["22222222-2"];
const cert = { "pfx-data": pedro.modernPfxBase64, passphrase: pedro.passphrase };
const doc = () => ({
  Encabezado: { IdDoc: { TipoDTE: 33, Folio: 1 }, Emisor: { RUTEmisor: "76192083-9" }, Receptor: { RUTRecep: "66666666-6" } },
});
const many = (n: number) => Array.from({ length: n }, () => ({}));
const chars = (n: number) => "A".repeat(n);
const xmlOf = (text: string) => bytesToBase64(new TextEncoder().encode(text));

const GENERAR = "/api/v1/platform/dte/documentos/generar";
const PDF = "/api/v1/platform/dte/documentos/pdf";
const ESCPOS = "/api/v1/platform/dte/documentos/escpos";
const FORMATOS = "/api/v1/platform/dte/formatos/json";
const VERIFICAR = "/api/v1/platform/dte/envios/verificar";
const SOLICITAR = "/api/v1/sii/dte/caf/solicitar";

const generar = (patch: Record<string, unknown>) => ({
  auth: { cert },
  dte: doc(),
  caf: "<AUTORIZACION/>",
  resolucion: { fecha: "2026-01-01", numero: 0 },
  ...patch,
});
const withDoc = (patch: (d: ReturnType<typeof doc>) => void) => {
  const d = doc();
  patch(d);
  return d;
};

/** [operation, body (or null: a path-only request), field, what the message must name: the limit, then the value sent]. */
const CASES: [string, unknown, string, string[]][] = [
  [GENERAR, generar({ dte: Array.from({ length: 2001 }, doc) }), "dte", ["at most 2000", "2001"]],
  [GENERAR, generar({ dte: [] }), "dte", ["at least 1 items", "got 0"]],
  [GENERAR, generar({ dte: withDoc((d) => Object.assign(d, { Detalle: many(1001) })) }), "dte.Detalle", ["1000", "got 1001"]],
  [GENERAR, generar({ dte: [withDoc((d) => Object.assign(d, { DscRcgGlobal: many(21) }))] }), "dte[0].DscRcgGlobal", ["20", "got 21"]],
  [GENERAR, generar({ dte: withDoc((d) => Object.assign(d, { Referencia: many(41) })) }), "dte.Referencia", ["40", "got 41"]],
  [
    GENERAR,
    generar({ dte: withDoc((d) => Object.assign(d.Encabezado.IdDoc, { TipoDTE: "1234" })) }),
    "dte.Encabezado.IdDoc.TipoDTE",
    ["at most 3 characters", "got 4"],
  ],
  [
    GENERAR,
    generar({ dte: withDoc((d) => Object.assign(d.Encabezado.IdDoc, { Folio: 10_000_000_000 })) }),
    "dte.Encabezado.IdDoc.Folio",
    ["9999999999", "got 10000000000"],
  ],
  [
    GENERAR,
    generar({ dte: withDoc((d) => Object.assign(d.Encabezado.IdDoc, { Folio: 0 })) }),
    "dte.Encabezado.IdDoc.Folio",
    ["positive", "got 0"],
  ],
  [
    GENERAR,
    generar({ dte: withDoc((d) => Object.assign(d.Encabezado.IdDoc, { Folio: "1".repeat(21) })) }),
    "dte.Encabezado.IdDoc.Folio",
    ["at most 20 characters", "got 21"],
  ],
  [
    GENERAR,
    generar({ dte: withDoc((d) => Object.assign(d.Encabezado.Emisor, { RUTEmisor: "1".repeat(13) })) }),
    "dte.Encabezado.Emisor.RUTEmisor",
    ["at most 12 characters", "got 13"],
  ],
  [GENERAR, generar({ caf: Array.from({ length: 41 }, () => "<AUTORIZACION/>") }), "caf", ["at most 40 items", "got 41"]],
  [GENERAR, generar({ caf: chars(MAX_CHARS.caf + 1) }), "caf", [`at most ${MAX_CHARS.caf} characters`, `got ${MAX_CHARS.caf + 1}`]],
  [GENERAR, generar({ resolucion: { fecha: "2026-01-01", numero: 1_000_000 } }), "resolucion.numero", ["at most 999999", "got 1000000"]],
  [GENERAR, generar({ resolucion: { fecha: "2026-01-01", numero: -1 } }), "resolucion.numero", ["at least 0", "got -1"]],
  [GENERAR, generar({ resolucion: { fecha: "2026-01-011", numero: 0 } }), "resolucion.fecha", ["at most 10 characters", "got 11"]],
  [GENERAR, generar({ receptor_envio: "1".repeat(13) }), "receptor_envio", ["at most 12 characters", "got 13"]],
  [
    GENERAR,
    generar({ auth: { cert: { ...cert, passphrase: chars(MAX_CHARS.passphrase + 1) } } }),
    "auth.cert.passphrase",
    [`at most ${MAX_CHARS.passphrase}`, `got ${MAX_CHARS.passphrase + 1}`],
  ],
  [GENERAR, generar({ dte: "33" }), "dte", ["must be an object or a list", "got a string"]],
  [PDF, { xml: "PA==", copias: 9 }, "copias", ["at most 5", "got 9"]],
  [PDF, { xml: "PA==", copias: 0 }, "copias", ["at least 1", "got 0"]],
  [PDF, { xml: "PA==", oficina_sii: chars(61) }, "oficina_sii", ["at most 60 characters", "got 61"]],
  [PDF, { xml: "PA==", papel: "a4" }, "papel", ["carta or 80mm", 'got "a4"']],
  [PDF, { xml: "PA==", logo: chars(MAX_CHARS.image + 1) }, "logo", [`at most ${MAX_CHARS.image} characters`, `got ${MAX_CHARS.image + 1}`]],
  [PDF, { xml: chars(MAX_CHARS.xml + 1) }, "xml", [`at most ${MAX_CHARS.xml} characters`, `got ${MAX_CHARS.xml + 1}`]],
  [PDF, { xml: "PA==", resolucion: { numero: -1, fecha: "2026-01-01" } }, "resolucion.numero", ["at least 0", "got -1"]],
  [ESCPOS, { xml: "PA==", papel: "100mm" }, "papel", ["80mm or 58mm", 'got "100mm"']],
  [ESCPOS, { xml: "PA==", codepage: "CP437" }, "codepage", ["WPC1252, PC850 or PC858", 'got "CP437"']],
  [ESCPOS, { xml: "PA==", resolucion: { numero: 0, fecha: "2026-01-0100" } }, "resolucion.fecha", ["at most 10 characters", "got 12"]],
  [ESCPOS, { xml: chars(MAX_CHARS.xml + 1) }, "xml", [`at most ${MAX_CHARS.xml} characters`, `got ${MAX_CHARS.xml + 1}`]],
  [FORMATOS, { dte: withDoc((d) => Object.assign(d, { Detalle: many(1001) })) }, "dte.Detalle", ["at most 1000 items", "got 1001"]],
  [FORMATOS, { dte: withDoc((d) => Object.assign(d, { DscRcgGlobal: many(21) })) }, "dte.DscRcgGlobal", ["at most 20 items", "got 21"]],
  [FORMATOS, { dte: withDoc((d) => Object.assign(d, { Referencia: many(41) })) }, "dte.Referencia", ["at most 40 items", "got 41"]],
  [
    FORMATOS,
    { dte: withDoc((d) => Object.assign(d.Encabezado.IdDoc, { TipoDTE: "0033" })) },
    "dte.Encabezado.IdDoc.TipoDTE",
    ["at most 3 characters", "got 4"],
  ],
  [FORMATOS, { xml: chars(MAX_CHARS.xml + 1) }, "xml", [`at most ${MAX_CHARS.xml} characters`, `got ${MAX_CHARS.xml + 1}`]],
  [VERIFICAR, { xml: chars(MAX_CHARS.xml + 1) }, "xml", [`at most ${MAX_CHARS.xml} characters`, `got ${MAX_CHARS.xml + 1}`]],
  [VERIFICAR, { xml: xmlOf(`<DTE><Documento>${"<Detalle/>".repeat(1001)}</Documento></DTE>`) }, "xml", ["at most 1000", "1001 Detalle"]],
  [
    VERIFICAR,
    { xml: xmlOf(`<EnvioDTE><SetDTE>${`<DTE><Documento>${"<Detalle/>".repeat(1000)}</Documento></DTE>`.repeat(61)}</SetDTE></EnvioDTE>`) },
    "xml",
    ["at most 60000", "61000 Detalle"],
  ],
  [
    VERIFICAR,
    { xml: "PA==", auth: { cert: { "pfx-data": chars(MAX_CHARS.pfx + 1), passphrase: "x" } } },
    "auth.cert.pfx-data",
    [`at most ${MAX_CHARS.pfx} characters`, `got ${MAX_CHARS.pfx + 1}`],
  ],
  [`${SOLICITAR}/22222222-2/33/10001`, null, "cantidad", ["from 1 to 10000", "got 10001"]],
  [`${SOLICITAR}/22222222-2/113/1`, null, "dte", ["from 33 to 112", "got 113"]],
  [`${SOLICITAR}/22222222-2/35/1`, null, "dte", ["one of (33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112)", "got 35"]],
  [`${SOLICITAR}/${"1".repeat(13)}/33/1`, null, "emisor", ["at most 12 characters", "got 13"]],
];

describe("messages that say why: the field, the limit and the value", () => {
  it.each(
    CASES.map(([path, body, field, names]) => ({ path, body, field, names, label: `${path.split("/").slice(4, 7).join("/")} ${field}` })),
  )("$label", async ({ path, body, field, names }) => {
    // Large enough for the xml fields' own limit to be what refuses them.
    const t = probeApp(undefined, { maxBodyBytes: MAX_CHARS.xml + 1024 * 1024 });
    const token = await tokenFor(t.deps, { plan: { daily_units: 10_000, monthly_units: 100_000 } });
    const res = await postJson(t.app, token.secret, path, body ?? { auth: { cert } });
    expect([400, 422], JSON.stringify(await res.clone().json()).slice(0, 300)).toContain(res.status);
    const answer = await errorOf(res);
    // The field's error that names the limit (a value may break a format too, listed beside it).
    const atField = (answer.errors ?? []).filter((e) => e.path === field);
    const error = atField.find((e) => names.every((name) => String(e.message).includes(name)));
    expect(error, JSON.stringify(atField)).toBeDefined();
    expect(error?.message).not.toMatch(/Invalid input|Too (big|small)/);
    // What was sent is measured, never echoed: a passphrase or a key stays out of the answer.
    expect(JSON.stringify(answer)).not.toContain(chars(61));
  });
});
