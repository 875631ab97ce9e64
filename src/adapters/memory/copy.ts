// What an in-memory store hands out or keeps: a copy, so no caller holds a live reference into it.

export const copy = <T>(value: T): T => structuredClone(value);
