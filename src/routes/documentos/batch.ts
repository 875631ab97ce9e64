// The batch limits and charging live in the routes' shared module (src/routes/document-batch.ts):
// the submissions use them too. Re-exported for this group's files and the tests.
export * from "../document-batch.ts";
