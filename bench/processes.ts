// One of bench/server.ts's servers in a process of its own (so its CPU time and memory are its
// alone), and the IPC questions it answers: "cpu", "heap-start", "heap-stop", "stop".
import { type ChildProcess, fork } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

export interface BenchServer {
  child: ChildProcess;
  port: number;
  token: string;
  /** Sends `message` and resolves with field `key` of the answer. */
  ask<T>(message: string, key: string): Promise<T>;
}

export async function startServer(mode: string, nodeFlags: string[] = []): Promise<BenchServer> {
  const child = fork(join(root, "bench", "server.ts"), [mode], {
    // As `npm start` runs the gateway: AsyncLocalStorage on async context frames (Node 24's default),
    // so the operation wrapper's call counting does not put promise hooks on every promise.
    execArgv: ["--experimental-strip-types", "--experimental-async-context-frame", "--no-warnings", ...nodeFlags],
    cwd: root,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await new Promise<{ ready: number; token: string }>((resolve, reject) => {
    child.once("message", (m) => resolve(m as { ready: number; token: string }));
    child.once("exit", (code) => reject(new Error(`${mode} server exited (${code})`)));
  });
  const ask = <T>(message: string, key: string) =>
    new Promise<T>((resolve) => {
      child.once("message", (m) => resolve((m as Record<string, T>)[key] as T));
      child.send(message);
    });
  return { child, port: ready.ready, token: ready.token, ask };
}
