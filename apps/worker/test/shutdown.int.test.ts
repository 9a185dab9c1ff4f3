import { EventEmitter } from "node:events";
import { connectDatabase } from "@crs/db";
import { createTestDatabase } from "@crs/db/testing";
import { issueSandboxKey, runWrite, systemActor } from "@crs/services";
import { createJob } from "@crs/services/jobs/create-job";
import { retrieveJob } from "@crs/services/jobs/retrieve-job";
import { makeWorkerUtils, type Task, type WorkerEvents, type WorkerUtils } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, toGraphileLogger } from "../src/logger";
import { createCapturingLogger, createTestServiceDeps, deferred, startTestWorker, waitUntil, within } from "./helpers";

async function apiJob(tenant: { organizationId: string; environment: "sandbox" }, id: string) {
  return retrieveJob(
    { ...deps, actor: systemActor(tenant, "test", deps.newId("request")) },
    { params: { job_id: id } },
  );
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let connection: ReturnType<typeof connectDatabase>;
let deps: ReturnType<typeof createTestServiceDeps>;
let utils: WorkerUtils;

beforeAll(async () => {
  database = await createTestDatabase();
  connection = connectDatabase(database.url, { max: 2 });
  deps = createTestServiceDeps(database.url);
  utils = await makeWorkerUtils({ connectionString: database.url, logger: toGraphileLogger(silentLogger) });
});

afterAll(async () => {
  await deps?.close();
  await utils?.release();
  await connection?.close();
  await database?.drop();
});

/** Raw row (timestamps come back as text: drizzle swaps the postgres.js parsers of this client). */
interface JobRow {
  id: string;
  locked_at: string | null;
  locked_by: string | null;
  attempts: number;
  last_error: string | null;
}

async function jobRow(id: string): Promise<JobRow | undefined> {
  const rows = await connection.client<JobRow[]>`
    select id::text, locked_at, locked_by, attempts, last_error from graphile_worker._private_jobs where id = ${id}`;
  return rows[0];
}

/**
 * True once the worker's LISTEN connection (opened after `since`) has run its UNLISTEN: the last
 * database step of graphile-worker's pool deactivation, after which shutdown only waits for the
 * running jobs and then ends its pg pool.
 */
async function listenerReleased(since: Date): Promise<boolean> {
  const rows = await connection.client`
    select pid from pg_stat_activity
    where datname = current_database() and backend_start >= ${since}
      and state = 'idle' and query like 'UNLISTEN "jobs:insert"%'`;
  return rows.length > 0;
}

/**
 * Starts the real worker with one probe task that blocks until released, enqueues it, and once it
 * runs calls stop(). The probe is released only when graphile-worker's shutdown has got as far as
 * waiting for running jobs (its listener is released), so the job's outcome is recorded while
 * stop() is in progress and right before the pool ends: the window where the default
 * configuration (batch delays -1) loses the completion and leaves the row locked.
 */
async function finishJobDuringStop(outcome: "complete" | "fail") {
  const identifier = `test.slow_${outcome}`;
  const started = deferred();
  const release = deferred();
  let finished = false;
  const probe: Task = async () => {
    started.resolve();
    await release.promise;
    finished = true;
    if (outcome === "fail") throw new Error("failed while the worker was stopping");
  };
  const events = new EventEmitter() as WorkerEvents;
  const shutdownBegan = new Promise<void>((resolve) => events.once("pool:gracefulShutdown", () => resolve()));
  const logger = createCapturingLogger();
  const [clock] = await connection.client<{ now: Date }[]>`select now() as now`;
  const since = clock?.now ?? new Date(0);
  const worker = await startTestWorker(database.url, deps, {
    logger,
    taskList: { [identifier]: probe },
    events,
  });
  const job = await utils.addJob(identifier, {});
  await within(started.promise, 30_000, "the probe job to start");

  const stopping = worker.stop();
  await within(shutdownBegan, 30_000, "graceful shutdown to begin");
  await waitUntil(() => listenerReleased(since), "the worker to release its LISTEN connection");
  expect(finished).toBe(false);
  release.resolve();
  await within(stopping, 30_000, "stop() to resolve");

  expect(finished).toBe(true);
  return { jobId: job.id, logger };
}

describe("worker shutdown", () => {
  it("records the completion of a job that finishes during stop(), leaving no locked row", async () => {
    const { jobId, logger } = await finishJobDuringStop("complete");

    // Completed jobs are deleted. A lost completion leaves the row locked with attempts = 1.
    expect(await jobRow(jobId)).toBeUndefined();
    expect(await connection.client`select id from graphile_worker.jobs where id = ${jobId}`).toHaveLength(0);
    expect(logger.problems()).toEqual([]);
  });

  it("records the failure of a job that fails during stop(), unlocked so it is retried", async () => {
    const { jobId } = await finishJobDuringStop("fail");

    const row = await jobRow(jobId);
    expect(row).toMatchObject({ locked_at: null, locked_by: null, attempts: 1 });
    expect(row?.last_error).toContain("failed while the worker was stopping");
  });

  it("hands a job back at each shutdown until its last run, which fails it with worker_stopped and one job.failed", async () => {
    const minted = await issueSandboxKey(deps);
    const tenant = { organizationId: minted.organization_id, environment: "sandbox" as const };
    const job = await runWrite(deps, systemActor(tenant, "test", deps.newId("request")), (write) =>
      createJob(write, {
        params: {},
        body: { type: "crypto.trace", input: { wallets: ["0x5eed000000070000000000000000000000000011"] } },
      }),
    );
    const runsSeen: number[] = [];
    // Each worker runs the job until its shutdown aborts it, as a long trace would at every deploy.
    const stopDuringRun = async () => {
      const started = deferred();
      const worker = await startTestWorker(database.url, deps, {
        jobExecutors: {
          "crypto.trace": async (row, context) => {
            runsSeen.push(row.attempts);
            started.resolve();
            await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
            throw context.signal.reason;
          },
        },
      });
      await within(started.promise, 30_000, "the job's run to start");
      await worker.stop();
    };
    await stopDuringRun();
    await stopDuringRun();
    expect(await apiJob(tenant, job.id)).toMatchObject({ status: "queued", attempts: 2, error: null });
    await stopDuringRun();

    expect(runsSeen).toEqual([1, 2, 3]);
    const failed = await apiJob(tenant, job.id);
    expect(failed).toMatchObject({ status: "failed", attempts: 3, result: null });
    expect(failed.error).toMatchObject({ code: "worker_stopped", retryable: true });
    expect(failed.error?.message).toContain("all 3 of its runs");
    const events = await connection.client<{ type: string }[]>`
      select type from events where organization_id = ${tenant.organizationId} and data->>'job_id' = ${job.id}
       order by sequence`;
    expect(events.map((event) => event.type)).toEqual(["job.created", "job.failed"]);
    // Nothing of it is left to run.
    expect(await connection.client`select 1 from graphile_worker.jobs where key = ${job.id}`).toHaveLength(0);
  }, 120_000);

  it("can be stopped twice", async () => {
    const worker = await startTestWorker(database.url, deps);
    await Promise.all([worker.stop(), worker.stop()]);
    await worker.stop();
    await expect(worker.done).resolves.toBeUndefined();
  });
});
