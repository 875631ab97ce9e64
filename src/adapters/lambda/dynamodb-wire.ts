// DynamoDB's JSON API with SigV4 (aws4fetch), no SDK: the client, its errors and the attribute
// helpers every store of the Lambda adapter shares (dynamodb-stores.ts, dynamodb-idempotency.ts).
import { AwsClient } from "aws4fetch";

export interface DynamoConfig {
  table: string;
  region: string;
  /** Defaults to the region's public endpoint. */
  endpoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** An error answer from DynamoDB; `type` is the short name, e.g. "ConditionalCheckFailedException". */
export class DynamoError extends Error {
  readonly type: string;
  readonly status: number;

  constructor(type: string, message: string, status: number) {
    super(`DynamoDB ${type}: ${message || `HTTP ${status}`}`);
    this.name = "DynamoError";
    this.type = type;
    this.status = status;
  }
}

/** A conditional write whose condition did not hold: an expected outcome, not a failure. */
export function isConditionFailed(err: unknown): boolean {
  return err instanceof DynamoError && err.type === "ConditionalCheckFailedException";
}

export type Json = Record<string, unknown>;
/** `B`: base64 of the bytes, as the JSON API carries Binary. */
export type AttributeValue = { S: string } | { N: string } | { B: string };
export type Key = { pk: AttributeValue; sk: AttributeValue };
export type Call = (operation: string, body: Json) => Promise<Json>;

export const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

export const S = (value: string): AttributeValue => ({ S: value });
export const N = (value: number): AttributeValue => ({ N: String(value) });
export const key = (pk: string, sk: string): Key => ({ pk: S(pk), sk: S(sk) });

/** An item (or `Attributes`) from a response, if there is one. */
export function itemIn(response: Json, field: "Item" | "Attributes"): Json | undefined {
  const item = response[field];
  return isRecord(item) ? item : undefined;
}

export function text(item: Json | undefined, name: string): string | undefined {
  const value = item?.[name];
  return isRecord(value) && typeof value.S === "string" ? value.S : undefined;
}

/** A number attribute; a missing one counts as zero. */
export function count(item: Json | undefined, name: string): number {
  const value = item?.[name];
  return isRecord(value) && typeof value.N === "string" ? Number(value.N) : 0;
}

export function parseJson(source: string | undefined): unknown {
  if (source === undefined || source === "") return undefined;
  try {
    return JSON.parse(source);
  } catch {
    return undefined;
  }
}

export function dynamoClient(config: DynamoConfig): Call {
  const aws = new AwsClient({
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    sessionToken: config.sessionToken,
    region: config.region,
    service: "dynamodb",
  });
  const endpoint = config.endpoint ?? `https://dynamodb.${config.region}.amazonaws.com`;
  return async (operation, body) => {
    const response = await aws.fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": `DynamoDB_20120810.${operation}` },
      body: JSON.stringify(body),
    });
    const parsed = parseJson(await response.text());
    const payload = isRecord(parsed) ? parsed : {};
    if (!response.ok) {
      // "__type" looks like "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException".
      const type = typeof payload.__type === "string" ? payload.__type.slice(payload.__type.lastIndexOf("#") + 1) : "UnknownError";
      const message = payload.message ?? payload.Message;
      throw new DynamoError(type, typeof message === "string" ? message : "", response.status);
    }
    return payload;
  };
}

/** Runs a conditional write; false when its condition did not hold. */
export async function conditional(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (err) {
    if (isConditionFailed(err)) return false;
    throw err;
  }
}

export type GetItem = (k: Key) => Promise<Json | undefined>;
