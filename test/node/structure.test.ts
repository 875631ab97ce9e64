// The layers of src/ point one way and the simulator has no import cycle: the same check
// `npm run lint` runs, on the tree and on small made-up trees that break each rule.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { analyse, importsOf } from "../../scripts/check-structure.mjs";

const src = fileURLToPath(new URL("../../src", import.meta.url));

describe("structure of src/", () => {
  it("has no arrow pointing up and no import cycle", () => {
    const { up, cycles, perLayer } = analyse(src);
    expect(up).toEqual([]);
    expect(cycles).toEqual([]);
    expect(perLayer.other).toBeUndefined();
  });

  it("has no route group importing another, no Hono in services/, sii/, dte/ or certificates/, and no file breaking a rule of its own", () => {
    const { crossGroup, hono, rules } = analyse(src);
    expect(crossGroup).toEqual([]);
    expect(hono).toEqual([]);
    expect(rules).toEqual([]);
  });

  it("reports a route group importing another group, a shared module importing a group, and an unlisted shared module", () => {
    const { crossGroup } = analyse(src, {
      "routes/envios/verificar.ts": [
        'import { trustStoreFor } from "../documentos/trust-store.ts";',
        'import { XmlField } from "../uploaded-xml.ts";',
        'import { Local } from "./schema.ts";',
        'import { x } from "../helpers.ts";',
      ].join("\n"),
      "routes/uploaded-xml.ts": 'import { EXAMPLE } from "./documentos/examples.ts";',
      "routes/documentos/trust-store.ts": 'import { siiContext } from "../../services/sii-context.ts";',
    });
    expect(crossGroup).toEqual([
      "routes/envios/verificar.ts → routes/documentos/trust-store.ts: routes/documentos/trust-store.ts is another route group",
      "routes/envios/verificar.ts → routes/helpers.ts: routes/helpers.ts is no shared module (SHARED_ROUTE_MODULES)",
      "routes/uploaded-xml.ts → routes/documentos/examples.ts: routes/documentos/examples.ts is a route group; a shared module imports none",
    ]);
  });

  it("reports Hono imported by services/, sii/, dte/ or certificates/, and only there", () => {
    const { hono } = analyse(src, {
      "sii/excerpt.ts": 'import type { Context } from "hono";',
      "dte/x.ts": 'import { z } from "@hono/zod-openapi";\nimport { HTTPException } from "hono/http-exception";',
      "certificates/pem.ts": 'import { HTTPException } from "hono/http-exception";',
      "platform/failure.ts": 'import type { Context } from "hono";',
      "services/rcv.ts": 'import type { Context } from "hono";',
      "routes/rcv/detalle.ts": 'import { createRoute } from "@hono/zod-openapi";',
    });
    expect(hono).toEqual([
      "sii/excerpt.ts (sii) → hono",
      "dte/x.ts (dte) → @hono/zod-openapi",
      "dte/x.ts (dte) → hono/http-exception",
      "certificates/pem.ts (certificates) → hono/http-exception",
      "services/rcv.ts (services) → hono",
    ]);
  });

  it("reports a factory.ts, a route file over its lines (not a schema.ts), and a service writing or importing the envelope", () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `// ${i}`).join("\n");
    const { rules } = analyse(src, {
      "routes/rcv/factory.ts": "export const x = 1;",
      "routes/rcv/detalle.ts": lines(121),
      "routes/rcv/resumen.ts": lines(120),
      "routes/rcv/schema.ts": lines(300),
      "services/rcv.ts": 'const head = \'{"success":true,"data":\';\nimport { ok } from "../platform/envelope.ts";',
      "services/ok.ts": 'import { holdText } from "../platform/stream.ts";\nconst done = { success: false };',
    });
    expect(rules).toEqual([
      "routes/rcv/factory.ts is named factory.ts: name a file for what it holds",
      "routes/rcv/detalle.ts has 121 lines: a route file holds its contract, one service call and the answer (at most 120)",
      "services/rcv.ts writes the success envelope: a service returns data",
      "services/rcv.ts imports platform/envelope.ts: a service returns data, platform writes the envelope",
    ]);
  });

  it("sees static, re-exported, dynamic and type-position imports", () => {
    const text = [
      'import type { A } from "./a.ts";',
      'export { b } from "./b.ts";',
      'const c = await import("./c.ts");',
      'let d: import("./d.ts").D;',
      'import "./e.ts";',
      '// import { f } from "./f.ts";',
    ].join("\n");
    expect(importsOf(text)).toEqual(["./a.ts", "./b.ts", "./c.ts", "./d.ts", "./e.ts"]);
  });

  it("reports an upward import", () => {
    const { up } = analyse(src, {
      "dte/x.ts": 'import { ApiError } from "../platform/errors.ts";',
      "sii/transport.ts": 'import type { Sandbox } from "../sandbox/app.ts";',
      "routes/ok.ts": 'import { x } from "../sii/x.ts";',
      "certificates/credential-error.ts": 'import { DteError } from "../dte/errors.ts";',
      "certificates/pem.ts": 'import { latin1 } from "../lib/latin1.ts";',
      "sii/login.ts": 'import { x } from "../certificates/credentials.ts";',
      "dte/generate/caf.ts": 'import { x } from "../../certificates/private-key.ts";',
    });
    expect(up).toEqual([
      "dte/x.ts (dte) → platform/errors.ts (platform)",
      "sii/transport.ts (sii) → sandbox/app.ts (sandbox)",
      "certificates/credential-error.ts (certificates) → dte/errors.ts (dte)",
    ]);
  });

  it("puts every file of ports/ in the ports layer, which imports lib/ alone", () => {
    const { up, perLayer } = analyse(src, {
      "ports/deps.ts": 'import type { SiiTransport } from "./transport.ts";',
      "ports/stores.ts": 'import type { Clock } from "../platform/clock.ts";',
    });
    expect(perLayer.other).toBeUndefined();
    expect(up).toEqual(["ports/stores.ts (ports) → platform/clock.ts (platform)"]);
  });

  it("reports an import cycle, type-only imports included", () => {
    const { cycles } = analyse(src, {
      "sandbox/state.ts": 'readonly envios = new Map<string, import("./envios.ts").Envio>();',
      "sandbox/envios.ts": 'import { SandboxState } from "./state.ts";',
      "sandbox/pages.ts": 'import { latin1 } from "../lib/latin1.ts";',
    });
    expect(cycles).toEqual([["sandbox/envios.ts", "sandbox/state.ts"]]);
  });
});
