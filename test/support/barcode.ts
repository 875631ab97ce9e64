// A barcode reader for tests: zxing-wasm with its WebAssembly read from node_modules (it would
// otherwise fetch it from a CDN).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { prepareZXingModule } from "zxing-wasm/reader";

export { readBarcodes } from "zxing-wasm/reader";

export function prepareBarcodeReader(): void {
  const wasm = readFileSync(join(import.meta.dirname, "..", "..", "node_modules", "zxing-wasm", "dist", "reader", "zxing_reader.wasm"));
  prepareZXingModule({
    overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) },
    fireImmediately: true,
  });
}
