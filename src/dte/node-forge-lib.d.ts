// node-forge's single modules (node-forge/lib/*.js) have no type declarations of their own: each
// adds its part to the one forge object that lib/forge.js exports.
declare module "node-forge/lib/*" {
  const forge: unknown;
  export default forge;
}
