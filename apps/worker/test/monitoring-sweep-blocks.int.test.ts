import { type ChainProvider, SyntheticChainProvider, SyntheticChainWriter } from "@crs/core";
import { createTestDatabase } from "@crs/db/testing";
import { issueSandboxKey, MONITORING_SWEEP_TASK, type TraceProviders } from "@crs/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/runner";
import { createTestServiceDeps, startTestWorker, waitUntil } from "./helpers";
import { createWatchedMatter } from "./watched-matter";

/** A watched address that is new to the watchlist (cursor null) on a chain whose finalized head is 250,000. */
const WATCHED = "0x00000000000000000000000000000000000b10c5";
const FUNDER = "0x00000000000000000000000000000000000f00d5";
const HEAD = 250_000;
/** One payment to WATCHED in each of these blocks: either side of each 100,000-block boundary, and at the head. */
const PAID_IN = [5, 99_999, 100_000, 150_000, 199_999, 200_000, HEAD];

/**
 * A synthetic chain (the sandbox provider's own implementation) holding only those payments, so its
 * finalized head is the last of them.
 */
function farChain() {
  const writer = new SyntheticChainWriter(
    "synthetic:eth",
    [{ kind: "native", contract: null, decimals: 18, symbol: "sETH" }],
    12,
    1_767_225_600,
  );
  const funder = writer.node(FUNDER);
  const watched = writer.node(WATCHED);
  writer.allocate(funder, 0, 100n * 10n ** 18n);
  for (const block of PAID_IN) writer.transfer(funder, watched, 0, 10n ** 18n, block);
  return writer.finish("monitoring-sweep-blocks");
}

const chain = new SyntheticChainProvider(farChain());
/** Every transfers query the sweep made, as [address, fromBlock, toBlock, cursor]. */
const reads: [string, string, string, string | null][] = [];
/** The synthetic chain's provider behind a thin wrapper that records the ranges it is asked for. */
const recording: ChainProvider = {
  network: chain.network,
  kind: chain.kind,
  name: chain.name,
  head: (signal) => chain.head(signal),
  transfers: (query) => {
    reads.push([query.address, query.fromBlock.toString(), query.toBlock.toString(), query.cursor]);
    return chain.transfers(query);
  },
};
const providers: TraceProviders = { sandbox: () => ({ provider: recording }), live: null };

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createTestServiceDeps>;
let worker: RunningWorker;

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createTestServiceDeps(database.url);
  // No schedule: the test queues each sweep itself, as the cron item would.
  worker = await startTestWorker(database.url, deps, {
    traceProviders: providers,
  });
});

afterAll(async () => {
  await worker?.stop();
  await deps?.close();
  await database?.drop();
});

/** Queues one monitoring.sweep job and waits for the worker to end it; fails if the job failed. */
async function sweepOnce(): Promise<void> {
  await deps.sql`select graphile_worker.add_job(${MONITORING_SWEEP_TASK}, '{}'::json, max_attempts => 1)`;
  // A completed job's row is gone; a failed one stays with its error.
  const jobs = () => deps.sql<{ last_error: string | null }[]>`
    select j.last_error from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = ${MONITORING_SWEEP_TASK}`;
  await waitUntil(async () => (await jobs()).every((job) => job.last_error !== null), "the sweep job to end");
  expect(await jobs()).toEqual([]);
}

describe("the monitoring.sweep task on an address far behind the chain's head", () => {
  it("reads at most 100,000 blocks per sweep, catching up over successive sweeps", async () => {
    expect(await chain.head()).toEqual({ number: BigInt(HEAD), finalized: BigInt(HEAD) });
    const organization = await issueSandboxKey(deps, { kind: "legacy_sandbox" });
    const watchlist = await createWatchedMatter(deps, organization.organization_id, WATCHED);
    const cursor = async () => {
      const rows = await deps.sql<{ swept_to_block: string | null }[]>`
        select swept_to_block::text from watchlist_addresses
         where organization_id = ${organization.organization_id} and watchlist_id = ${watchlist.id}`;
      return rows.map((row) => row.swept_to_block);
    };
    /** The block of each alert raised so far (the payments' wallet movements), in block order. */
    const alertedBlocks = async () => {
      const rows = await deps.sql<{ type: string; block: string | null }[]>`
        select type, fact->>'block' as block from alerts where organization_id = ${organization.organization_id}`;
      return rows
        .map((row) => `${row.type}@${row.block}`)
        .sort((a, b) => Number(a.split("@")[1]) - Number(b.split("@")[1]));
    };
    const movements = (...blocks: number[]) => blocks.map((block) => `wallet_movement@${block}`);
    expect(await cursor()).toEqual([null]);

    // First sweep: from genesis, blocks [0, 99,999] only; the payments in 100,000 and after raise nothing yet.
    await sweepOnce();
    expect(reads.splice(0)).toEqual([[WATCHED, "0", "99999", null]]);
    expect(await cursor()).toEqual(["99999"]);
    expect(await alertedBlocks()).toEqual(movements(5, 99_999));

    // Second sweep: the next 100,000 blocks, [100,000, 199,999]; the payment in 150,000 is alerted now.
    await sweepOnce();
    expect(reads.splice(0)).toEqual([[WATCHED, "100000", "199999", null]]);
    expect(await cursor()).toEqual(["199999"]);
    expect(await alertedBlocks()).toEqual(movements(5, 99_999, 100_000, 150_000, 199_999));

    // Third sweep: the rest, up to the finalized head.
    await sweepOnce();
    expect(reads.splice(0)).toEqual([[WATCHED, "200000", String(HEAD), null]]);
    expect(await cursor()).toEqual([String(HEAD)]);
    expect(await alertedBlocks()).toEqual(movements(...PAID_IN));

    // Caught up: a fourth sweep has nothing past the cursor to read.
    await sweepOnce();
    expect(reads).toEqual([]);
    expect(await cursor()).toEqual([String(HEAD)]);
    expect(await alertedBlocks()).toEqual(movements(...PAID_IN));
  });
});
