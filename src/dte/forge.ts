// node-forge's modules that the engine uses, loaded one by one: its index also loads TLS, SSH,
// Ed25519, PKCS#7 and logging, about 90 KiB of the Worker bundle that nothing here calls.
import type Forge from "node-forge";
import forgeCore from "node-forge/lib/forge.js";
import "node-forge/lib/pki.js";
import "node-forge/lib/pkcs12.js";
import "node-forge/lib/md.all.js";

const forge = forgeCore as typeof Forge;
export default forge;
