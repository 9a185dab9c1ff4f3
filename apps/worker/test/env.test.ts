import { describe, expect, it } from "vitest";
import { parseWorkerEnv } from "../src/env";

const url = "postgres://postgres@127.0.0.1:5432/app";

describe("parseWorkerEnv", () => {
  it("requires DATABASE_URL and defaults concurrency to 5 with migrations on", () => {
    expect(parseWorkerEnv({ DATABASE_URL: url })).toMatchObject({
      DATABASE_URL: url,
      WORKER_CONCURRENCY: 5,
      SKIP_MIGRATIONS: "0",
    });
    expect(() => parseWorkerEnv({})).toThrow(/DATABASE_URL/);
    expect(() => parseWorkerEnv({ DATABASE_URL: "" })).toThrow(/DATABASE_URL/);
  });

  it("reads WORKER_CONCURRENCY and SKIP_MIGRATIONS, treating empty as unset", () => {
    expect(parseWorkerEnv({ DATABASE_URL: url, WORKER_CONCURRENCY: "12", SKIP_MIGRATIONS: "1" })).toMatchObject({
      WORKER_CONCURRENCY: 12,
      SKIP_MIGRATIONS: "1",
    });
    expect(parseWorkerEnv({ DATABASE_URL: url, WORKER_CONCURRENCY: "", SKIP_MIGRATIONS: "" })).toMatchObject({
      WORKER_CONCURRENCY: 5,
      SKIP_MIGRATIONS: "0",
    });
  });

  it("rejects a concurrency that is not a positive integer and an unknown SKIP_MIGRATIONS value", () => {
    for (const value of ["0", "-1", "2.5", "many"]) {
      expect(() => parseWorkerEnv({ DATABASE_URL: url, WORKER_CONCURRENCY: value })).toThrow(/WORKER_CONCURRENCY/);
    }
    expect(() => parseWorkerEnv({ DATABASE_URL: url, SKIP_MIGRATIONS: "yes" })).toThrow(/SKIP_MIGRATIONS/);
  });

  it("reads the same secrets as the apps, so its tasks sign events with the same key", () => {
    const seed = "ab".repeat(32);
    expect(parseWorkerEnv({ DATABASE_URL: url, EVENT_SIGNING_SEED: seed })).toMatchObject({ EVENT_SIGNING_SEED: seed });
    expect(() => parseWorkerEnv({ DATABASE_URL: url, EVENT_SIGNING_SEED: "not-hex" })).toThrow(/EVENT_SIGNING_SEED/);
  });
});
