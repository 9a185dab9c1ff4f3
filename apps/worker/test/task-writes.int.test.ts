import { randomUUID } from "node:crypto";
import { createTestDatabase } from "@crs/db/testing";
import { issueSandboxKey, runWrite, systemActor } from "@crs/services";
import { createMatter } from "@crs/services/matters/create-matter";
import type { Task } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/runner";
import { createTestServiceDeps, deferred, startTestWorker, waitUntil, within } from "./helpers";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createTestServiceDeps>;
let worker: RunningWorker;
const followUps = new Map<string, ReturnType<typeof deferred<Record<string, unknown>>>>();

interface ProbePayload {
  organization_id: string;
  run: string;
  fail: boolean;
}

/**
 * A task that does what jobs and webhooks will: a domain write with its event, and a follow-up job,
 * through runWrite: both commit with the write or neither does.
 */
const writeThenFollowUp: Task = async (raw) => {
  const payload = raw as ProbePayload;
  const actor = systemActor(
    { organizationId: payload.organization_id, environment: "sandbox" },
    "test.write_then_follow_up",
    `req_${payload.run}`,
  );
  await runWrite(deps, actor, async (write) => {
    await createMatter(write, { params: {}, body: { name: `Task ${payload.run}`, mode: "recovery" } });
    await write.enqueue("test.follow_up", { run: payload.run });
    if (payload.fail) throw new Error("the task failed after its write");
  });
};

const followUp: Task = async (raw) => {
  const { run } = raw as { run: string };
  followUps.get(run)?.resolve({ run });
};

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createTestServiceDeps(database.url);
  worker = await startTestWorker(database.url, deps, {
    concurrency: 2,
    taskList: { "test.write_then_follow_up": writeThenFollowUp, "test.follow_up": followUp },
  });
});

afterAll(async () => {
  await worker?.stop();
  await deps?.close();
  await database?.drop();
});

async function enqueueProbe(payload: ProbePayload) {
  await deps.sql`select graphile_worker.add_job('test.write_then_follow_up', ${JSON.stringify(payload)}::json, max_attempts => 1)`;
}

async function eventsOfRun(organizationId: string, run: string) {
  return deps.sql<{ type: string; audit_ref: string }[]>`
    select type, audit_ref from events where organization_id = ${organizationId} and audit_ref = ${`req_${run}`}`;
}

describe("a worker task writes through the one write path", () => {
  it("appends its event and enqueues its follow-up job in one transaction", async () => {
    const organization = await issueSandboxKey(deps);
    const run = randomUUID().replaceAll("-", "");
    const heard = deferred<Record<string, unknown>>();
    followUps.set(run, heard);
    await enqueueProbe({ organization_id: organization.organization_id, run, fail: false });

    expect(await within(heard.promise, 30_000, "the follow-up job to run")).toEqual({ run });
    expect(await eventsOfRun(organization.organization_id, run)).toEqual([
      { type: "matter.created", audit_ref: `req_${run}` },
    ]);
    const [verification] = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from matters where organization_id = ${organization.organization_id}`;
    expect(verification?.n).toBe(1);
  });

  it("leaves neither the event nor the follow-up job when the task fails after writing", async () => {
    const organization = await issueSandboxKey(deps);
    const run = randomUUID().replaceAll("-", "");
    await enqueueProbe({ organization_id: organization.organization_id, run, fail: true });

    // The probe fails once (max_attempts 1) and is kept, failed, with its error.
    await waitUntil(async () => {
      const [job] = await deps.sql<{ attempts: number }[]>`
        select attempts from graphile_worker._private_jobs j
          join graphile_worker._private_tasks t on t.id = j.task_id
         where t.identifier = 'test.write_then_follow_up' and j.last_error like '%failed after its write%'`;
      return job?.attempts === 1;
    }, "the failing probe to be recorded as failed");
    expect(await eventsOfRun(organization.organization_id, run)).toEqual([]);
    const followUpJobs = await deps.sql`
      select j.id from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
       where t.identifier = 'test.follow_up' and j.payload->>'run' = ${run}`;
    expect(followUpJobs).toEqual([]);
    const [matters] = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from matters where organization_id = ${organization.organization_id}`;
    expect(matters?.n).toBe(0);
  });
});
