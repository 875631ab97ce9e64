// dynalite ships no types; this is the part the tests use.
declare module "dynalite" {
  import type { Server } from "node:http";
  export default function dynalite(options?: { createTableMs?: number; deleteTableMs?: number; updateTableMs?: number }): Server;
}
