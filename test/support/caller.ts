// A Caller for a service called without HTTP (as a job would): the deps given, an account, and the
// units it was charged (`charged`, each with why) and settled, kept for the test to read.
import type { Caller } from "../../src/platform/caller.ts";
import type { Deps } from "../../src/ports/deps.ts";

export type TestCaller = Caller & { charged: [number, string][]; settled: number[] };

export function testCaller(deps: Deps, account = "acct_service_test"): TestCaller {
  const charged: [number, string][] = [];
  const settled: number[] = [];
  return {
    deps,
    account: () => account,
    tokenId: () => "tok_service_test",
    request: {},
    charged,
    settled,
    charge: async (units, why) => {
      charged.push([units, why]);
    },
    settle: async (units) => {
      settled.push(units);
    },
  };
}
