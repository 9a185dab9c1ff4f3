/**
 * The job plane with a real worker on a real database: a sandbox asset map traced end to end, retries
 * then failure, a live organization without a chain provider, cancel while running (signalled, result
 * discarded), and a worker killed with SIGKILL mid-run then restarted (the job completes once).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type AssetMap, type Job, TraceJobResult } from "@crs/contract";
import { createTestDatabase } from "@crs/db/testing";
import {
  issueLiveKey,
  issueSandboxKey,
  type JobExecutor,
  runWrite,
  sandboxSyntheticChain,
  systemActor,
} from "@crs/services";
import { createAssetMap } from "@crs/services/crypto/create-asset-map";
import { retrieveAssetMap } from "@crs/services/crypto/retrieve-asset-map";
import { cancelJob } from "@crs/services/jobs/cancel-job";
import { createJob } from "@crs/services/jobs/create-job";
import { retrieveJob } from "@crs/services/jobs/retrieve-job";
import { closeMatter } from "@crs/services/matters/close-matter";
import { createMatter } from "@crs/services/matters/create-matter";
import { retrieveMatterDashboard } from "@crs/services/matters/retrieve-matter-dashboard";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/runner";
import { createTestServiceDeps, deferred, startTestWorker, waitUntil, within } from "./helpers";

const appDir = fileURLToPath(new URL("..", import.meta.url));

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createTestServiceDeps>;
let worker: RunningWorker;

/** What the test executor of each job does, by job id; jobs not listed run the real trace. */
const behaviours = new Map<string, JobExecutor>();
let realTrace: JobExecutor;
const attemptsSeen = new Map<string, number[]>();

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createTestServiceDeps(database.url, { poolSize: 6 });
  realTrace = (await import("@crs/services")).JOB_EXECUTORS["crypto.trace"];
  worker = await startTestWorker(database.url, deps, {
    concurrency: 3,
    jobRuns: { leaseMs: 3_000, retryBaseMs: 100 },
    jobExecutors: {
      "crypto.trace": async (row, context) => {
        attemptsSeen.set(row.id, [...(attemptsSeen.get(row.id) ?? []), row.attempts]);
        const behaviour = behaviours.get(row.id) ?? realTrace;
        return behaviour(row, context);
      },
    },
  });
});

afterAll(async () => {
  await worker?.stop();
  await deps?.close();
  await database?.drop();
});

type Tenant = { organizationId: string; environment: "sandbox" | "live" };

async function sandboxTenant(): Promise<Tenant> {
  const minted = await issueSandboxKey(deps);
  return { organizationId: minted.organization_id, environment: "sandbox" };
}

function actor(tenant: Tenant) {
  return systemActor(tenant, "test", deps.newId("request"));
}

async function newMatter(tenant: Tenant): Promise<string> {
  const matter = await runWrite(deps, actor(tenant), (write) =>
    createMatter(write, { params: {}, body: { name: "Acme v. Doe", mode: "recovery" } }),
  );
  return matter.id;
}

async function dispatch(tenant: Tenant, wallet = "0x5eed000000070000000000000000000000000011"): Promise<Job> {
  return runWrite(deps, actor(tenant), (write) =>
    createJob(write, { params: {}, body: { type: "crypto.trace", input: { wallets: [wallet] } } }),
  );
}

async function jobOf(tenant: Tenant, id: string): Promise<Job> {
  return retrieveJob({ ...deps, actor: actor(tenant) }, { params: { job_id: id } });
}

async function waitForStatus(tenant: Tenant, id: string, status: Job["status"], ms = 30_000): Promise<Job> {
  let job: Job | undefined;
  await waitUntil(
    async () => {
      job = await jobOf(tenant, id);
      return job.status === status;
    },
    `job ${id} to be ${status}`,
    ms,
  );
  return job as Job;
}

async function eventTypes(tenant: Tenant, jobId: string): Promise<string[]> {
  const rows = await deps.sql<{ type: string }[]>`
    select type from events where organization_id = ${tenant.organizationId} and data->>'job_id' = ${jobId}
     order by sequence`;
  return rows.map((row) => row.type);
}

/** The sandbox chain's planted peel chain into an exchange's deposit address. */
function peelChain() {
  const scenario = sandboxSyntheticChain().scenarios.find((s) => s.id === "peel_to_exchange-1");
  if (!scenario?.terminal || !scenario.deposit) throw new Error("the sandbox chain lacks its planted peel chain");
  return { ...scenario, terminal: scenario.terminal, deposit: scenario.deposit };
}

/** An asset map of the planted peel chain on the matter, its job dispatched. */
function peelChainMap(
  tenant: Tenant,
  matterId: string,
  sourceRefs?: Array<{ source_id: string; source_type: string; title: string }>,
) {
  const scenario = peelChain();
  return runWrite(deps, actor(tenant), (write) =>
    createAssetMap(write, {
      params: {},
      body: {
        matter_id: matterId,
        wallets: [{ address: scenario.subject, incident_block: scenario.incident_block }],
        ...(sourceRefs ? { source_refs: sourceRefs } : {}),
      },
    }),
  );
}

describe("a sandbox asset map", () => {
  it("is traced on the synthetic chain: the planted peel chain ends at its exchange, with the deposit hypothesis", async () => {
    const tenant = await sandboxTenant();
    const matterId = await newMatter(tenant);
    const scenario = peelChain();
    const created = await peelChainMap(tenant, matterId, [
      { source_id: "exhibit-4", source_type: "court_record", title: "Exhibit 4" },
    ]);
    expect(created.status).toBe("processing");
    const job = await waitForStatus(tenant, created.job_id, "succeeded");
    expect(job).toMatchObject({
      attempts: 1,
      error: null,
      result: { object: "crypto_asset_map", map_id: created.map_id },
    });
    expect(await eventTypes(tenant, created.job_id)).toEqual(["job.created", "job.completed"]);
    // The result is exactly the documented TraceJobResult: no field missing, none undocumented.
    const result = TraceJobResult.strict().parse(job.result);
    expect(result).toMatchObject({ matter_id: matterId, taint_model: { name: "fifo" }, subjects: [scenario.subject] });

    const map: AssetMap = await retrieveAssetMap(
      { ...deps, actor: actor(tenant) },
      { params: { map_id: created.map_id } },
    );
    expect(map).toMatchObject({
      status: "succeeded",
      chain: "synthetic:eth",
      source: "synthetic",
      subjects: [scenario.subject],
      taint_model: { name: "fifo", amounts: "conserved" },
    });
    expect(map.edge_count).toBeGreaterThan(0);
    // The map holds its job's result field for field, and the job.completed event holds the job as it is read.
    const { object: _object, map_id: _mapId, matter_id: _matterId, ...traceFields } = result;
    expect(map).toMatchObject(traceFields);
    const [completed] = await deps.sql<{ data: { object: unknown } }[]>`
      select data from events where organization_id = ${tenant.organizationId} and type = 'job.completed'
         and data->>'job_id' = ${created.job_id}`;
    expect(completed?.data.object).toEqual(job);
    expect(map.terminals.map((t) => t.address)).toContain(scenario.terminal.address);
    const hypothesis = map.exchange_hypotheses.find((h) => h.wallet === scenario.deposit?.address);
    expect(hypothesis).toMatchObject({ exchange: scenario.deposit.exchange });
    // Every source a fact names is in the manifest, the case document among them.
    const manifest = new Set(map.source_manifest.map((source) => source.source_id));
    for (const edge of map.edges) for (const ref of edge.source_refs as string[]) expect(manifest).toContain(ref);
    expect(map.source_manifest.some((source) => source.source_type === "case_document")).toBe(true);

    // The stablecoin is worth 1 USD by the synthetic chain's definition: the dashboard shows the exposure, traced.
    const dashboard = await retrieveMatterDashboard(
      { ...deps, actor: actor(tenant) },
      { params: { matter_id: matterId } },
    );
    expect(dashboard.recovery_phase).toBe("traced");
    const exposures = map.token_exposures.map((e) => Number(e.usd_value ?? 0));
    expect(exposures.some((value) => value > 0)).toBe(true);
    expect(dashboard.known_crypto_exposure.amount).toBeCloseTo(
      exposures.reduce((a, b) => a + b, 0),
      2,
    );
  });
});

describe("failures", () => {
  it("retries a failing run with backoff, then fails after 3 attempts with the error, one job.failed", async () => {
    const tenant = await sandboxTenant();
    const job = await dispatch(tenant);
    behaviours.set(job.id, async () => {
      throw new Error("the node answered 502");
    });
    const failed = await waitForStatus(tenant, job.id, "failed");
    expect(failed).toMatchObject({
      attempts: 3,
      result: null,
      error: { code: "job_error", message: "the node answered 502", retryable: true },
    });
    expect(attemptsSeen.get(job.id)).toEqual([1, 2, 3]);
    expect(await eventTypes(tenant, job.id)).toEqual(["job.created", "job.failed"]);
  });

  it("succeeds on a later attempt after a failed one: one job.completed", async () => {
    const tenant = await sandboxTenant();
    const job = await dispatch(tenant);
    let runs = 0;
    behaviours.set(job.id, async () => {
      runs++;
      if (runs === 1) throw new Error("transient");
      return { answer: 42 };
    });
    const done = await waitForStatus(tenant, job.id, "succeeded");
    expect(done).toMatchObject({ attempts: 2, result: { answer: 42 }, error: null });
    expect(await eventTypes(tenant, job.id)).toEqual(["job.created", "job.completed"]);
  });

  it("fails a live trace at once when no chain provider is configured, with a clear error", async () => {
    const issued = await issueLiveKey(deps, { plan: "operator", scopes: "all", organizationName: "Live" });
    const tenant: Tenant = { organizationId: issued.organization_id, environment: "live" };
    const job = await runWrite(deps, actor(tenant), (write) =>
      createJob(write, {
        params: {},
        body: { type: "crypto.trace", input: { wallets: ["0x8ba1f109551bd432803012645ac136ddd64dba72"] } },
      }),
    );
    const failed = await waitForStatus(tenant, job.id, "failed");
    expect(failed.attempts).toBe(1);
    expect(failed.error).toMatchObject({ code: "chain_provider_not_configured", retryable: false });
    expect(failed.error?.message).toMatch(/CHAIN_RPC_URL/);
  });
});

describe("a map too large to keep", () => {
  /** An asset map of the planted peel chain whose job runs the real trace with `maxResultBytes`; its result's size as JSON when it ran whole. */
  async function mapWithLimit(tenant: Tenant, matterId: string, maxResultBytes: number | undefined) {
    const created = await peelChainMap(tenant, matterId);
    const measured = { bytes: 0 };
    behaviours.set(created.job_id, async (row, context) => {
      const result = await realTrace(row, maxResultBytes === undefined ? context : { ...context, maxResultBytes });
      measured.bytes = Buffer.byteLength(JSON.stringify(result));
      return result;
    });
    return { created, measured };
  }

  it("fails at once, naming its size, when its result is over the limit by one byte; at the limit it is kept", async () => {
    const tenant = await sandboxTenant();
    const matterId = await newMatter(tenant);
    const whole = await mapWithLimit(tenant, matterId, undefined);
    await waitForStatus(tenant, whole.created.job_id, "succeeded");
    const size = whole.measured.bytes;
    expect(size).toBeGreaterThan(1_000);

    const over = await mapWithLimit(tenant, matterId, size - 1);
    const failed = await waitForStatus(tenant, over.created.job_id, "failed");
    expect(failed).toMatchObject({
      attempts: 1,
      result: null,
      error: { code: "trace_result_too_large", retryable: false },
    });
    expect(failed.error?.message).toMatch(
      new RegExp(
        `^The trace's map is ${(size).toLocaleString("en")} bytes as JSON \\(\\d+ edges, \\d+ wallets and terminals\\), more than the ${(size - 1).toLocaleString("en")} bytes a job's result may hold\\. Trace fewer wallets or fewer hops \\(max_hops\\)\\.$`,
      ),
    );
    expect(attemptsSeen.get(over.created.job_id)).toEqual([1]);
    expect(await eventTypes(tenant, over.created.job_id)).toEqual(["job.created", "job.failed"]);
    const map = await retrieveAssetMap({ ...deps, actor: actor(tenant) }, { params: { map_id: over.created.map_id } });
    expect(map).toMatchObject({ status: "failed", edges: [], wallets: [] });

    const exact = await mapWithLimit(tenant, matterId, size);
    const kept = await waitForStatus(tenant, exact.created.job_id, "succeeded");
    expect(exact.measured.bytes).toBe(size);
    expect(kept.result).toMatchObject({ object: "crypto_asset_map", map_id: exact.created.map_id });
  });
});

describe("cancel", () => {
  it("signals a running job: the run is aborted, the job canceled, its result discarded", async () => {
    const tenant = await sandboxTenant();
    const job = await dispatch(tenant);
    const started = deferred();
    const aborted = deferred<unknown>();
    behaviours.set(job.id, async (_row, context) => {
      started.resolve();
      await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
      aborted.resolve(context.signal.reason);
      return { should: "be discarded" };
    });
    await within(started.promise, 30_000, "the run to start");
    const canceled = await runWrite(deps, actor(tenant), (write) => cancelJob(write, { params: { job_id: job.id } }));
    expect(canceled.status).toBe("canceled");
    expect(String(await within(aborted.promise, 10_000, "the run to be signalled"))).toMatch(/canceled/);
    // The run has returned; its result was not recorded.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await jobOf(tenant, job.id)).toMatchObject({ status: "canceled", result: null, attempts: 1 });
    expect(await eventTypes(tenant, job.id)).toEqual(["job.created", "job.canceled"]);
  });

  it("discards the result of a run that ignores the signal and finishes after the cancel", async () => {
    const tenant = await sandboxTenant();
    const job = await dispatch(tenant);
    const started = deferred();
    const release = deferred();
    const finished = deferred();
    behaviours.set(job.id, async () => {
      started.resolve();
      await release.promise;
      finished.resolve();
      return { late: true };
    });
    await within(started.promise, 30_000, "the run to start");
    await runWrite(deps, actor(tenant), (write) => cancelJob(write, { params: { job_id: job.id } }));
    release.resolve();
    await finished.promise;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await jobOf(tenant, job.id)).toMatchObject({ status: "canceled", result: null });
    expect(await eventTypes(tenant, job.id)).toEqual(["job.created", "job.canceled"]);
  });

  it("comes with closing the matter: a running map's run is signalled, and nothing is written to the closed matter", async () => {
    const tenant = await sandboxTenant();
    const matterId = await newMatter(tenant);
    const map = await peelChainMap(tenant, matterId);
    const started = deferred();
    const aborted = deferred<unknown>();
    behaviours.set(map.job_id!, async (row, context) => {
      started.resolve();
      await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
      aborted.resolve(context.signal.reason);
      // A run that finishes anyway: its real result must not reach the closed matter.
      return realTrace(row, { ...context, signal: new AbortController().signal });
    });
    await within(started.promise, 30_000, "the run to start");
    await runWrite(deps, actor(tenant), (write) =>
      closeMatter(write, { params: { matter_id: matterId }, body: { reason: "paid" } }),
    );
    expect(String(await within(aborted.promise, 10_000, "the run to be signalled"))).toMatch(/canceled/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await jobOf(tenant, map.job_id!)).toMatchObject({ status: "canceled", result: null, attempts: 1 });
    expect(await eventTypes(tenant, map.job_id!)).toEqual(["job.created", "job.canceled"]);
    const after = await retrieveAssetMap({ ...deps, actor: actor(tenant) }, { params: { map_id: map.map_id } });
    expect(after).toMatchObject({ status: "canceled", wallets: [] });
  });
});

interface Child {
  child: ChildProcess;
  output: () => string;
  running: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startSlowWorker(runMs: number): Child {
  const child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/slow-job-worker.ts"], {
    cwd: appDir,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, JOB_RUN_MS: String(runMs) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const running = new Promise<void>((resolve) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("worker running")) resolve();
    });
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  return { child, output: () => output, running, exited };
}

describe("a worker killed with SIGKILL mid-run", () => {
  it("loses nothing: after a restart the job completes once, with one job.completed", async () => {
    // This file's worker must not take the job: stop it, so only the child processes run jobs.
    await worker.stop();
    const tenant = await sandboxTenant();
    const first = startSlowWorker(60_000);
    try {
      await within(first.running, 60_000, "the first worker to start");
      const job = await dispatch(tenant);
      await waitUntil(async () => first.output().includes(`run started ${job.id} 1`), "the first run to start", 30_000);
      expect((await jobOf(tenant, job.id)).status).toBe("running");
      first.child.kill("SIGKILL");
      expect(await first.exited).toMatchObject({ signal: "SIGKILL" });

      const second = startSlowWorker(200);
      try {
        await within(second.running, 60_000, "the second worker to start");
        const done = await waitForStatus(tenant, job.id, "succeeded", 60_000);
        expect(done).toMatchObject({ attempts: 2, result: { ran_in_pid: second.child.pid } });
        expect(second.output()).toContain(`run started ${job.id} 2`);
        // Nothing else runs it again, whatever graphile-worker still holds locked for the dead worker.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(await eventTypes(tenant, job.id)).toEqual(["job.created", "job.completed"]);
        expect((await jobOf(tenant, job.id)).attempts).toBe(2);
      } finally {
        second.child.kill("SIGTERM");
        await second.exited;
      }
    } finally {
      first.child.kill("SIGKILL");
    }
  }, 120_000);
});
