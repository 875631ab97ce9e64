// How a deprecated operation announces itself (docs/api-conventions.md "Compatibility and
// deprecation"): `deprecated: true` in the OpenAPI document, and on every answer the
// `Deprecation` header (RFC 9745: `@` and the Unix seconds it took effect), the `Sunset` header
// (RFC 8594: the HTTP-date after which it may be removed) and a `Link` to what replaces it.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.ts";

export interface Deprecation {
  /** When the operation was deprecated. */
  since: Date;
  /** When it may be removed: at least six months after `since` within /api/v1. */
  sunset: Date;
  /** Where the replacement is documented (a URL or a path of this gateway). */
  link: string;
}

/** The three headers of a deprecated operation's answers. */
export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(deprecation.since.getTime() / 1000)}`,
    Sunset: deprecation.sunset.toUTCString(),
    Link: `<${deprecation.link}>; rel="deprecation"`,
  };
}

/** Sets the headers on every answer the operation gives (its scope, validation and quota refusals too). */
export function announceDeprecation(deprecation: Deprecation): MiddlewareHandler<AppEnv> {
  const headers = deprecationHeaders(deprecation);
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}

/** The sentence the operation's description gains in the document. */
export function deprecationNote(deprecation: Deprecation): string {
  return `**Deprecated** since ${deprecation.since.toISOString().slice(0, 10)}; it may be removed after ${deprecation.sunset.toISOString().slice(0, 10)} (see ${deprecation.link}). Its answers carry \`Deprecation\`, \`Sunset\` and \`Link\` headers.`;
}
