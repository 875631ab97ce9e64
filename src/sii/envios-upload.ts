// The envios upload of a DTE envelope, DTEUpload (docs/sii-services.md §8.1): the envelope as a
// multipart form in the SII's field order, the DTE token as a cookie and a User-Agent with
// `PROG 1.0` (without it the SII answers an HTML error). Irreversible: never retried. The answer's
// STATUS becomes the gateway's error or the track id.

import { ApiError } from "../lib/api-error.ts";
import { concatBytes } from "../lib/encoding.ts";
import { encodeLatin1 } from "../lib/latin1.ts";
import { elementText } from "../lib/xml.ts";
import { type Ambiente, siiHosts } from "./hosts.ts";
import { pageText, type SiiContext, siiFetch } from "./http.ts";
import { TokenRejected } from "./token.ts";

export const UPLOAD_USER_AGENT = "Mozilla/4.0 (compatible; PROG 1.0; Windows NT 5.0; YComp 5.0.2.4)";

export interface Upload {
  sender: string;
  company: string;
  fileName: string;
  /** The envelope's bytes, ISO-8859-1 as the SII wants them. */
  file: Uint8Array<ArrayBuffer>;
}

export interface Received {
  track_id: string;
  /** `YYYY-MM-DD HH:MM:SS` as the SII wrote it (Chile time). */
  timestamp: string | null;
  archivo: string;
}

/** The multipart body, parts in the order the SII reads them. */
export function multipart(upload: Upload, boundary: string): Uint8Array<ArrayBuffer> {
  const [rutSender = "", dvSender = ""] = upload.sender.split("-");
  const [rutCompany = "", dvCompany = ""] = upload.company.split("-");
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head =
    field("rutSender", rutSender) +
    field("dvSender", dvSender) +
    field("rutCompany", rutCompany) +
    field("dvCompany", dvCompany) +
    `--${boundary}\r\nContent-Disposition: form-data; name="archivo"; filename="${upload.fileName}"\r\nContent-Type: text/xml\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  return concatBytes([encodeLatin1(head), upload.file, encodeLatin1(tail)]);
}

const STATUS_TEXT: Record<string, string> = {
  "1": "the sender has no permission to send for this company",
  "2": "the file is too large",
  "3": "the file arrived truncated",
  "6": "the company is not authorized to send electronic documents",
  "7": "the SII refused the file's schema",
  "8": "the SII refused the file's signature",
  "9": "the SII had an internal error",
};

export async function uploadEnvelope(ctx: SiiContext, ambiente: Ambiente, token: string, upload: Upload): Promise<Received> {
  const boundary = `----SiiGateway${crypto.randomUUID().replaceAll("-", "")}`;
  const request = new Request(`https://${siiHosts(ambiente).dte}/cgi_dte/UPL/DTEUpload`, {
    method: "POST",
    headers: {
      "content-type": `multipart/form-data; boundary=${boundary}`,
      "user-agent": UPLOAD_USER_AGENT,
      accept: "*/*",
      cookie: `TOKEN=${token}`,
    },
    body: multipart(upload, boundary),
  });
  const answer = await siiFetch(ctx, request, { service: "dte_upload", read: false });
  const status = elementText(answer.text, "STATUS")?.trim();
  const detail = elementText(answer.text, "ERROR") ?? (pageText(answer.text.replace(/^[\s\S]*<\/STATUS>/, "")) || null);
  if (status === undefined) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII did not take the upload (no RECEPCIONDTE answer)", {
      details: { service: "dte_upload", sii_status: answer.status, sii_message: pageText(answer.text) },
    });
  }
  if (status === "0") {
    const trackId = elementText(answer.text, "TRACKID")?.trim();
    if (!trackId)
      throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII accepted the upload but gave no track id", {
        details: { service: "dte_upload" },
      });
    return {
      track_id: trackId,
      timestamp: elementText(answer.text, "TIMESTAMP"),
      archivo: elementText(answer.text, "FILE") ?? upload.fileName,
    };
  }
  if (status === "5") throw new TokenRejected("DTEUpload STATUS 5 (not authenticated)");
  const details = { service: "dte_upload", sii_status_code: status, sii_message: detail };
  if (status === "99") {
    const earlier = /Trackid\s+(\d+)/i.exec(detail ?? "")?.[1] ?? null;
    throw new ApiError(409, "ALREADY_SUBMITTED", "The SII already received this file", { details: { ...details, track_id: earlier } });
  }
  if (status === "1" || status === "6")
    throw new ApiError(403, "AUTH_ERROR", `The SII refused the upload: ${STATUS_TEXT[status]}`, { details });
  throw new ApiError(502, "SII_GATEWAY_ERROR", `The SII refused the upload: ${STATUS_TEXT[status] ?? `STATUS ${status}`}`, { details });
}
