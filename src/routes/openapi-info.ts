// The OpenAPI document's info (title, and version, licence and contact from package.json) and the
// description of each tag the operations use, in the order Swagger UI lists them.
import packageJson from "../../package.json" with { type: "json" };

/**
 * package.json decides licence and contact, so the document cannot drift from the project: with no
 * `license` there, npm's own word for "no licence granted" (UNLICENSED); with no `homepage`,
 * `bugs` or `author`, a contact by name only.
 */
const project = packageJson as {
  version: string;
  license?: string;
  homepage?: string;
  bugs?: string | { url?: string; email?: string };
  author?: string;
};
const terms = project.license ?? "UNLICENSED";
const spdx = terms !== "UNLICENSED" && !/^SEE LICEN[CS]E IN /i.test(terms);
const bugs = typeof project.bugs === "string" ? { url: project.bugs } : (project.bugs ?? {});

export const API_INFO = {
  title: "SII gateway",
  // The release's number, the one /healthz answers: package.json is its one source.
  version: project.version,
  description:
    "HTTP/JSON gateway to Chile's tax authority (SII). Every operation takes an API token in `X-API-Token`. " +
    "In sandbox mode every operation answers from the built-in SII simulator.",
  // An SPDX expression in package.json is the licence's identifier too (OpenAPI 3.1 License Object).
  // Without one (UNLICENSED), the terms of the LICENSE file under an SPDX user-defined reference:
  // validators (@apidevtools/swagger-parser, Redocly) want `identifier` or `url`, and an absolute
  // `url` (Spectral refuses a relative one) needs a public address the project does not have.
  license: spdx
    ? { name: terms, identifier: terms }
    : { name: terms === "UNLICENSED" ? "UNLICENSED: all rights reserved (the LICENSE file)" : terms, identifier: "LicenseRef-Proprietary" },
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
  "Jobs and events": "Work that outlives a request: jobs that ask the SII on a schedule, and the account's feed of what they learnt",
  Webhooks:
    "The feed pushed: endpoints that receive the account's events as signed POSTs (Standard Webhooks 1.0), retried for about three days; docs/webhooks.md shows how to verify them",
  Exchanges: "Receiver responses, events and assignments (cesión) of received documents",
  RCV: "Registro de Compras y Ventas: summaries, detail, asynchronous downloads and writes",
  Certification: "The SII's certification process for new issuers: applications, test sets, progress",
  Sandbox: "Controls of the built-in SII simulator (sandbox mode only)",
  Admin: "The operator's token administration (ADMIN_TOKEN)",
};
