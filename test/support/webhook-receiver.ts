// A webhook receiver on 127.0.0.1 (allowed in sandbox mode): it answers the statuses given in turn (then 200)
// and keeps every request it got, headers and raw body, for the tests to verify.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export async function loopbackReceiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { received, statuses, url, close: () => new Promise((resolve) => server.close(resolve)) };
}
