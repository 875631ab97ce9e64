// A webhook receiver on 127.0.0.1 (allowed in sandbox mode): it answers the statuses given in turn (then 200)
// and keeps every request it got, headers and raw body, for the tests to verify.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** `delayMs`: how long each answer waits (a slow receiver keeps a step's deliveries in flight longer). */
export async function loopbackReceiver(statuses: number[] = [], delayMs: () => number = () => 0) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      const status = statuses.shift() ?? 200;
      setTimeout(() => res.writeHead(status).end(), delayMs());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { received, statuses, url, close: () => new Promise((resolve) => server.close(resolve)) };
}
