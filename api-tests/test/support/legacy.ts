import { Debtor, Matter } from "@crs/contract";
import {
  claimJobRun,
  createTraceProviders,
  DEFAULT_JOB_RUN_SETTINGS,
  JOB_EXECUTORS,
  recordJobSuccess,
} from "@crs/services";
import { expect } from "vitest";
import { countEvents, countRows } from "./expectations";
import type { TestApp, TestKey } from "./test-app";

/** POST /v1/matters on the legacy listener; fails the test unless it answers 201. */
export async function legacyMatter(app: TestApp, owner: TestKey, name = "Acme Holdings v. Roe"): Promise<Matter> {
  const response = await app.legacyRequest("POST", "/v1/matters", { key: owner.key, body: { name } });
  expect(response.status).toBe(201);
  return Matter.parse(response.json);
}

/** POST /v1/debtors on the legacy listener, on a new matter; fails the test unless it answers 201. */
export async function legacyDebtor(app: TestApp, owner: TestKey, body: Record<string, unknown> = {}): Promise<Debtor> {
  const matter = await legacyMatter(app, owner);
  const response = await app.legacyRequest("POST", "/v1/debtors", {
    key: owner.key,
    body: { matter_id: matter.id, legal_name: "Jane Roe", type: "individual", ...body },
  });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return Debtor.parse(response.json);
}

/**
 * Runs an asset map's queued crypto.trace job to success by the job runner's own steps
 * (claim, execute, record), as the worker would; fails the test unless it is recorded as succeeded.
 */
export async function runTraceJob(app: TestApp, owner: TestKey, jobId: string): Promise<void> {
  const { deps } = app;
  const run = await claimJobRun(
    deps,
    { organizationId: owner.organizationId, environment: owner.environment, jobId },
    DEFAULT_JOB_RUN_SETTINGS,
  );
  if (!run) throw new Error("the asset map's job could not be claimed");
  const result = await JOB_EXECUTORS["crypto.trace"](run.row, {
    providers: createTraceProviders(null),
    tracedAt: deps.clock(),
    signal: new AbortController().signal,
  });
  expect(await recordJobSuccess(deps, run, result)).toBe("succeeded");
}

/** The types of the events one request appended, read from the log itself. */
export async function eventTypesOf(app: TestApp, owner: TestKey, requestId: string | null): Promise<string[]> {
  const rows = await app.sql<{ type: string }[]>`
    select type from events where organization_id = ${owner.organizationId} and audit_ref = ${requestId ?? ""}
     order by sequence`;
  return rows.map((row) => row.type);
}

/** What a packet write adds: its packets and its packet.created events. */
export async function packetEffects(app: TestApp, owner: TestKey) {
  return {
    packets: await countRows(app.sql, "packets", owner.organizationId),
    events: await countEvents(app.sql, owner.organizationId, "packet.created"),
  };
}
