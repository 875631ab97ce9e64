// openapi-typescript and @hey-api/openapi-ts build their output with the TypeScript compiler API,
// which TypeScript 7 (the project's tsc, a native binary) no longer ships: their `typescript`
// import is served TypeScript 5 (the `typescript5` alias in package.json). Nothing else is redirected.
const GENERATORS = /\/node_modules\/(openapi-typescript|@hey-api\/[^/]+)\//;

export async function resolve(specifier, context, next) {
  const fromGenerator = GENERATORS.test(context.parentURL ?? "");
  return next(specifier === "typescript" && fromGenerator ? "typescript5" : specifier, context);
}
