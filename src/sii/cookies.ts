// A cookie jar across the SII's hosts: logins on zeusr/herculesr set `.sii.cl` cookies that
// the other SII applications read. Redirects are followed by hand so no cookie is lost.

interface Cookie {
  name: string;
  value: string;
  /** Lower-case domain without the leading dot. */
  domain: string;
  /** True when the cookie had no Domain attribute: only its own host gets it back. */
  hostOnly: boolean;
  path: string;
  expiresAt?: number;
}

export class CookieJar {
  private cookies: Cookie[] = [];
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Takes every Set-Cookie header of a response to `url`. */
  store(url: string, headers: Headers): void {
    const host = new URL(url).hostname.toLowerCase();
    for (const line of headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const cookie: Cookie = { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), domain: host, hostOnly: true, path: "/" };
      let foreign = false;
      for (const attribute of attributes) {
        const [rawKey = "", ...rest] = attribute.split("=");
        const key = rawKey.trim().toLowerCase();
        const value = rest.join("=").trim();
        if (key === "domain" && value) {
          const domain = value.replace(/^\./, "").toLowerCase();
          // A host may only set cookies for itself or a parent domain.
          foreign = host !== domain && !host.endsWith(`.${domain}`);
          cookie.domain = domain;
          cookie.hostOnly = false;
        } else if (key === "path" && value.startsWith("/")) cookie.path = value;
        else if (key === "max-age") cookie.expiresAt = this.now() + Number(value) * 1000;
        else if (key === "expires" && cookie.expiresAt === undefined) cookie.expiresAt = Date.parse(value);
      }
      if (foreign) continue;
      this.cookies = this.cookies.filter((c) => !(c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path));
      if (cookie.expiresAt === undefined || cookie.expiresAt > this.now()) this.cookies.push(cookie);
    }
  }

  /** The Cookie header for a request to `url`, or "" when none applies. */
  header(url: string): string {
    const { hostname, pathname } = new URL(url);
    const host = hostname.toLowerCase();
    return this.cookies
      .filter((c) => (c.expiresAt === undefined || c.expiresAt > this.now()) && pathname.startsWith(c.path))
      .filter((c) => (c.hostOnly ? host === c.domain : host === c.domain || host.endsWith(`.${c.domain}`)))
      .map((c) => `${c.name}=${c.value}`)
      .join("; ");
  }

  get(name: string): string | undefined {
    return this.cookies.find((c) => c.name === name)?.value;
  }

  toJSON(): Cookie[] {
    return this.cookies;
  }

  static fromJSON(cookies: Cookie[], now?: () => number): CookieJar {
    const jar = new CookieJar(now);
    jar.cookies = cookies;
    return jar;
  }
}
