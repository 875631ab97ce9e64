// What the jobs' kill -9 runner (job-kill-runner.ts) keeps as each step's result, so the parent
// (test/node/jobs-kill.test.ts) knows what every attempt's pieces must say.

/** Pieces per step's result: a kill falls between them too. */
export const PIECES = 4;

/** Piece `index` of the result `attempt` (the step's leased version) of job `id` wrote. */
export const pieceText = (id: string, attempt: number, index: number) => `${id}:${attempt}:${index}:${"x".repeat(1000)}`;
