/**
 * `pnpm bench:jobs`: the job plane's dispatch-to-start latency, beside bare graphile-worker.
 *
 * - ours: a job created through the real write path (createJob in runWrite: the jobs row, job.created
 *   with its hash-chain append, and graphile_worker.add_job in one transaction), run by the real worker
 *   (apps/worker runner; its job.run task claims the row under a lease, then calls the executor). The
 *   executor here only notes the time and returns, so the figure is the plane, not a trace.
 *   latency = the executor's start - the moment the creating transaction committed.
 * - bare graphile-worker: `add_job` alone in a transaction, a runner with the same settings whose task
 *   notes the time; latency = task start - commit.
 * Jobs are dispatched one at a time, `BENCH_GAP_MS` apart, so each measures an idle worker woken by
 * NOTIFY (no queueing). Same database, same process, the two runs one after the other.
 *
 * Then, recording a large result: a trace map of the busiest address of the 1M-event synthetic chain
 * (poison, default budget: tens of megabytes of JSON), recorded by the real `recordJobSuccess` for an
 * asset map's job (the job row, job.completed with the job as its object, the map), beside a bare
 * transaction writing the same JSON three times as jsonb with one plain SQL statement each. Meanwhile a
 * second process (chain-head-probe.ts) locks and releases the organization's chain head every few
 * milliseconds, as any other write of the organization would: its longest wait is how long the
 * recording held up those writes.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createIssuerRegistry, generateSyntheticChain, SyntheticChainProvider, traceOutflows } from "@crs/core";
import { createTestDatabase } from "@crs/db/testing";
import {
  assetMapFieldsOf,
  claimJobRun,
  createServiceDeps,
  DEFAULT_JOB_RUN_SETTINGS,
  issueSandboxKey,
  recordJobSuccess,
  runWrite,
  type ServiceDeps,
  systemActor,
} from "@crs/services";
import { createAssetMap } from "@crs/services/crypto/create-asset-map";
import { createJob } from "@crs/services/jobs/create-job";
import { createMatter } from "@crs/services/matters/create-matter";
import { Logger, run } from "graphile-worker";
import { z } from "zod";
import { silentLogger } from "../apps/worker/src/logger";
import { startWorker } from "../apps/worker/src/runner";

const setting = (fallback: number, min: number, max: number) =>
  z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.coerce.number().int().min(min).max(max).default(fallback),
  );
const config = z
  .object({ BENCH_JOBS: setting(300, 10, 10_000), BENCH_GAP_MS: setting(20, 0, 1000) })
  .parse(process.env);

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? Number.NaN, n: sorted.length };
}

async function main() {
  const database = await createTestDatabase();
  const deps = createServiceDeps({
    databaseUrl: database.url,
    secrets: {
      keySigningSecret: "bench-jobs-key-signing-secret-0123456789abc",
      eventSigningSeed: "5c".repeat(32),
      webhookSecretKey: "6d".repeat(32),
    },
    publicBaseUrl: "http://127.0.0.1:3000",
    poolSize: 6,
  });
  try {
    const minted = await issueSandboxKey(deps);
    const tenant = { organizationId: minted.organization_id, environment: "sandbox" as const };

    // ours
    const started = new Map<string, (at: number) => void>();
    const worker = await startWorker({
      databaseUrl: database.url,
      deps,
      concurrency: 4,
      logger: silentLogger,
      cronItems: [],
      jobExecutors: {
        "crypto.trace": async (row) => {
          started.get(row.id)?.(now());
          return {};
        },
      },
    });
    const ours: number[] = [];
    for (let i = 0; i < config.BENCH_JOBS; i++) {
      let startedAt: Promise<number> = Promise.resolve(0);
      const job = await runWrite(deps, systemActor(tenant, "bench", deps.newId("request")), async (write) => {
        const created = await createJob(write, {
          params: {},
          body: { type: "crypto.trace", input: { wallets: ["0x5eed000000070000000000000000000000000011"] } },
        });
        startedAt = new Promise<number>((resolve) => started.set(created.id, resolve));
        return created;
      });
      const committed = now();
      ours.push((await startedAt) - committed);
      started.delete(job.id);
      await sleep(config.BENCH_GAP_MS);
    }
    await worker.stop();

    // bare graphile-worker
    const bareStarted = new Map<number, (at: number) => void>();
    const runner = await run({
      connectionString: database.url,
      concurrency: 4,
      noHandleSignals: true,
      logger: new Logger(() => () => {}),
      taskList: {
        "bench.bare": async (payload) => {
          bareStarted.get((payload as { n: number }).n)?.(now());
        },
      },
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    });
    const bare: number[] = [];
    for (let i = 0; i < config.BENCH_JOBS; i++) {
      const startedAt = new Promise<number>((resolve) => bareStarted.set(i, resolve));
      await deps.sql.begin(
        (tx) => tx`select graphile_worker.add_job('bench.bare', json_build_object('n', ${i}::int), max_attempts => 1)`,
      );
      const committed = now();
      bare.push((await startedAt) - committed);
      bareStarted.delete(i);
      await sleep(config.BENCH_GAP_MS);
    }
    await runner.stop();

    const o = summary(ours);
    const b = summary(bare);
    const fmt = (v: number) => `${v.toFixed(2).padStart(7)} ms`;
    console.log(
      `job dispatch-to-start latency, ${config.BENCH_JOBS} jobs one at a time, ${config.BENCH_GAP_MS} ms apart`,
    );
    console.log(
      `  ours (jobs row + event + claim)  p50 ${fmt(o.p50)}  p90 ${fmt(o.p90)}  p99 ${fmt(o.p99)}  max ${fmt(o.max)}`,
    );
    console.log(
      `  bare graphile-worker             p50 ${fmt(b.p50)}  p90 ${fmt(b.p90)}  p99 ${fmt(b.p99)}  max ${fmt(b.max)}`,
    );
    console.log(
      `  ratio ours / bare                p50 ${(o.p50 / b.p50).toFixed(2)}x  p99 ${(o.p99 / b.p99).toFixed(2)}x`,
    );

    await largeResult(deps, database.url, tenant);
  } finally {
    await deps.close();
    await database.drop();
  }
}

/** Another writer of the organization in a child process (chain-head-probe.ts); `stop` gives its longest wait in ms. */
async function chainHeadProbe(databaseUrl: string, tenant: { organizationId: string; environment: string }) {
  const child = fork(fileURLToPath(new URL("./chain-head-probe.ts", import.meta.url)), [], {
    execArgv: process.execArgv,
    env: {
      ...process.env,
      PROBE_DATABASE_URL: databaseUrl,
      PROBE_ORGANIZATION_ID: tenant.organizationId,
      PROBE_ENVIRONMENT: tenant.environment,
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = () => new Promise<Record<string, number>>((resolve) => child.once("message", resolve));
  await next();
  return {
    async stop(): Promise<number> {
      const answer = next();
      child.send("stop");
      return (await answer).longestWaitMs!;
    },
  };
}

async function largeResult(
  deps: ServiceDeps,
  databaseUrl: string,
  tenant: { organizationId: string; environment: "sandbox" },
): Promise<void> {
  const chain = generateSyntheticChain({ seed: 42, users: 200_000, events: 1_000_000, scenarios: 2 });
  const trace = await traceOutflows(
    {
      network: chain.network,
      subjects: [{ address: chain.busiestUsers[0]!, incident_block: 1n, source_refs: [] }],
      taint_model: "poison",
      traced_at: "2026-07-05T12:00:00.000Z",
    },
    { provider: new SyntheticChainProvider(chain), graph: chain.graph, issuers: createIssuerRegistry(chain.issuers) },
  );
  const actor = () => systemActor(tenant, "bench", deps.newId("request"));
  const matter = await runWrite(deps, actor(), (write) =>
    createMatter(write, { params: {}, body: { name: "Bench v. Large", mode: "recovery" } }),
  );
  const map = await runWrite(deps, actor(), (write) =>
    createAssetMap(write, {
      params: {},
      body: { matter_id: matter.id, wallets: [{ address: chain.busiestUsers[0]!, incident_block: 1 }] },
    }),
  );
  const result = { object: "crypto_asset_map", map_id: map.map_id, matter_id: matter.id, ...assetMapFieldsOf(trace) };
  const json = JSON.stringify(result);

  const ref = { ...tenant, jobId: map.job_id };
  const run = await claimJobRun(deps, ref, DEFAULT_JOB_RUN_SETTINGS);
  if (!run) throw new Error("the bench could not claim its job");
  const ourProbe = await chainHeadProbe(databaseUrl, tenant);
  let start = performance.now();
  const outcome = await recordJobSuccess(deps, run, result);
  const oursMs = performance.now() - start;
  const oursWait = await ourProbe.stop();
  if (outcome !== "succeeded") throw new Error(`the bench's job ended ${outcome}`);

  await deps.sql`create table bench_results (id serial primary key, result jsonb not null)`;
  const bareProbe = await chainHeadProbe(databaseUrl, tenant);
  start = performance.now();
  await deps.sql.begin(async (tx) => {
    for (let i = 0; i < 3; i++) await tx`insert into bench_results (result) values (${json}::jsonb)`;
  });
  const bareMs = performance.now() - start;
  const bareWait = await bareProbe.stop();

  const mb = (json.length / 2 ** 20).toFixed(1);
  console.log(
    `\nrecording a large result: a trace map of ${trace.edge_count.toLocaleString("en")} edges, ${mb} MiB of JSON`,
  );
  console.log(
    `  ours (job row, job.completed event, asset map)  ${oursMs.toFixed(0).padStart(6)} ms  longest wait of another write of the organization ${oursWait.toFixed(0)} ms`,
  );
  console.log(
    `  bare (the JSON inserted three times as jsonb)   ${bareMs.toFixed(0).padStart(6)} ms  longest wait of another write of the organization ${bareWait.toFixed(0)} ms`,
  );
  console.log(`  ratio ours / bare ${(oursMs / bareMs).toFixed(2)}x`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
