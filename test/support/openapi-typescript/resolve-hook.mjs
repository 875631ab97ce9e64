// openapi-typescript builds its output with the TypeScript compiler API, which TypeScript 7 (the
// project's tsc, a native binary) no longer ships: its `typescript` import is served TypeScript 5
// (the `typescript5` alias in package.json). Nothing else is redirected.
export async function resolve(specifier, context, next) {
  const fromGenerator = context.parentURL?.includes("/node_modules/openapi-typescript/") ?? false;
  return next(specifier === "typescript" && fromGenerator ? "typescript5" : specifier, context);
}
