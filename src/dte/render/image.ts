// A logo for the PDF, embedded without decoding it: a JPEG as it is (DCTDecode), a PNG's
// compressed data as it is (FlateDecode with the PNG predictors). PNGs with transparency or
// interlacing are refused: the PDF would need them decoded.
import { concatBytes } from "../../lib/encoding.ts";
import type { Image } from "./pdf.ts";

export class ImageRefused extends Error {}

const u16 = (b: Uint8Array, i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
const u32 = (b: Uint8Array, i: number) => (b[i] ?? 0) * 2 ** 24 + ((b[i + 1] ?? 0) << 16) + ((b[i + 2] ?? 0) << 8) + (b[i + 3] ?? 0);

function jpeg(bytes: Uint8Array): Image {
  for (let i = 2; i + 9 < bytes.length; ) {
    if (bytes[i] !== 0xff) throw new ImageRefused("the JPEG is damaged");
    const marker = bytes[i + 1] ?? 0;
    const length = u16(bytes, i + 2);
    // Start-of-frame markers (baseline, progressive…) carry the size and the components.
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      const components = bytes[i + 9] ?? 3;
      const space = components === 1 ? "/DeviceGray" : components === 4 ? "/DeviceCMYK /Decode [1 0 1 0 1 0 1 0]" : "/DeviceRGB";
      return {
        width: u16(bytes, i + 7),
        height: u16(bytes, i + 5),
        dictionary: `/ColorSpace ${space} /BitsPerComponent 8 /Filter /DCTDecode`,
        data: bytes,
      };
    }
    i += 2 + length;
  }
  throw new ImageRefused("the JPEG has no frame header");
}

function png(bytes: Uint8Array): Image {
  let width = 0;
  let height = 0;
  let colorType = -1;
  let palette: Uint8Array | null = null;
  const data: Uint8Array[] = [];
  for (let i = 8; i + 8 <= bytes.length; ) {
    const length = u32(bytes, i);
    const type = String.fromCharCode(...bytes.subarray(i + 4, i + 8));
    const chunk = bytes.subarray(i + 8, i + 8 + length);
    if (type === "IHDR") {
      width = u32(chunk, 0);
      height = u32(chunk, 4);
      if (chunk[8] !== 8) throw new ImageRefused("only 8-bit PNGs are accepted");
      colorType = chunk[9] ?? -1;
      if (chunk[12] !== 0) throw new ImageRefused("interlaced PNGs are not accepted");
    } else if (type === "PLTE") palette = chunk;
    else if (type === "IDAT") data.push(chunk);
    else if (type === "IEND") break;
    i += 12 + length;
  }
  if (colorType === 4 || colorType === 6)
    throw new ImageRefused("PNGs with transparency are not accepted; use one without an alpha channel, or a JPEG");
  const colors = colorType === 2 ? 3 : 1;
  const space =
    colorType === 3 && palette
      ? `[/Indexed /DeviceRGB ${palette.length / 3 - 1} <${[...palette].map((b) => b.toString(16).padStart(2, "0")).join("")}>]`
      : colorType === 0
        ? "/DeviceGray"
        : colorType === 2
          ? "/DeviceRGB"
          : null;
  if (!space || !width || !height || !data.length) throw new ImageRefused("the PNG is damaged or of an unsupported kind");
  return {
    width,
    height,
    dictionary: `/ColorSpace ${space} /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors ${colors} /BitsPerComponent 8 /Columns ${width} >>`,
    data: concatBytes(data),
  };
}

export function readImage(bytes: Uint8Array): Image {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return jpeg(bytes);
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return png(bytes);
  throw new ImageRefused("the logo must be a JPEG or a PNG");
}
