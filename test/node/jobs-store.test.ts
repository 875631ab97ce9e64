// The job store's contract (test/support/job-store-contract.ts), the webhook deliveries' property
// (test/support/webhook-delivery-property.ts) and the RCV download's (test/support/rcv-download-property.ts)
// on the Node SQLite file and in memory.
import { describe } from "vitest";
import { memoryJobStore } from "../../src/adapters/memory/jobs.ts";
import { openDatabase } from "../../src/adapters/node/sqlite-database.ts";
import { sqliteJobStore } from "../../src/adapters/node/sqlite-jobs.ts";
import { jobStoreContract } from "../support/job-store-contract.ts";
import { rcvDownloadProperty } from "../support/rcv-download-property.ts";
import { webhookDeliveryProperty } from "../support/webhook-delivery-property.ts";

describe("jobs on SQLite", () => jobStoreContract(() => sqliteJobStore(openDatabase(":memory:"))));
describe("jobs in memory", () => jobStoreContract(() => memoryJobStore()));
describe("webhook deliveries on SQLite", () => webhookDeliveryProperty(() => sqliteJobStore(openDatabase(":memory:"))));
describe("webhook deliveries in memory", () => webhookDeliveryProperty(() => memoryJobStore()));
describe("RCV downloads on SQLite", () => rcvDownloadProperty(() => sqliteJobStore(openDatabase(":memory:"))));
describe("RCV downloads in memory", () => rcvDownloadProperty(() => memoryJobStore()));
