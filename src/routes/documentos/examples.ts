// The documents' examples live in the routes' shared module (src/routes/example-documents.ts): the
// submissions and the folio ledger use them too. Re-exported for this group's files and the tests.
export * from "../example-documents.ts";
