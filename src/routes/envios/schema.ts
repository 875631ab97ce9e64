// The submissions' schemas: what checking documents costs, and the verdict's check and signer (shared with the
// inbox of received documents, routes/verification-schema.ts).
import { z } from "@hono/zod-openapi";

export { CheckSchema, Firmante, VERIFY_WEIGHT } from "../verification-schema.ts";
