// What a token grants, as the ports type it: its scopes and its plan (units per day and month).

export type Scope = "sii:read" | "sii:write" | "settings:read" | "settings:write";
export const ALL_SCOPES = ["sii:read", "sii:write", "settings:read", "settings:write"] as const satisfies readonly Scope[];

export interface Plan {
  daily_units: number;
  monthly_units: number;
}
