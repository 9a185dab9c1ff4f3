import { createTestDatabase } from "@crs/db/testing";
import { issueSandboxKey, MONITORING_SWEEP_TASK } from "@crs/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/runner";
import { createTestServiceDeps, startTestWorker, waitUntil } from "./helpers";
import { createWatchedMatter } from "./watched-matter";

/** On the sandbox's synthetic chain: a user that deals with an exchange and holds the stablecoin. */
const EXCHANGE_USER = "0x5eed0000000700000000000000000000000000a8";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createTestServiceDeps>;
let worker: RunningWorker;

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createTestServiceDeps(database.url);
  // No schedule: the test queues the sweep itself, as the cron item would.
  worker = await startTestWorker(database.url, deps, { concurrency: 2 });
});

afterAll(async () => {
  await worker?.stop();
  await deps?.close();
  await database?.drop();
});

async function alertRows(organizationId: string) {
  return deps.sql<{ type: string; last_actor_id: string; last_request_id: string }[]>`
    select type, last_actor_id, last_request_id from alerts where organization_id = ${organizationId}`;
}

/** The sweep job's last error, if it ended failed; null while it runs or once it completed (its row gone). */
async function sweepJobError(): Promise<string | null> {
  const rows = await deps.sql<{ last_error: string | null }[]>`
    select j.last_error from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = ${MONITORING_SWEEP_TASK} and j.attempts >= j.max_attempts`;
  return rows[0]?.last_error ?? null;
}

async function sweepJobDone(): Promise<boolean> {
  const rows = await deps.sql`
    select 1 from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = ${MONITORING_SWEEP_TASK}`;
  return rows.length === 0;
}

describe("the monitoring.sweep task", () => {
  it("runs in the worker, raising the watchlist's alerts through the write path, and raises nothing on a second run", async () => {
    const organization = await issueSandboxKey(deps, { kind: "legacy_sandbox" });
    const watchlist = await createWatchedMatter(deps, organization.organization_id, EXCHANGE_USER);

    await deps.sql`select graphile_worker.add_job(${MONITORING_SWEEP_TASK}, '{}'::json, max_attempts => 1)`;
    await waitUntil(sweepJobDone, "the sweep job to complete");
    const alerts = await alertRows(organization.organization_id);
    const types = new Set(alerts.map((alert) => alert.type));
    expect([...types].sort()).toEqual(["exchange_proximity", "stablecoin_exposure", "wallet_movement"]);
    expect(alerts.every((alert) => alert.last_actor_id === `system:${MONITORING_SWEEP_TASK}`)).toBe(true);
    // Each alert's event was appended in the sweep's transaction, under its request id.
    const [events] = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from events
       where organization_id = ${organization.organization_id} and type = 'matter.updated'
         and data->>'monitoring_change' = 'alert.raised' and audit_ref = ${alerts[0]?.last_request_id ?? ""}`;
    expect(events?.n).toBe(alerts.length);
    const [address] = await deps.sql<{ swept_to_block: string | null }[]>`
      select swept_to_block::text from watchlist_addresses
       where organization_id = ${organization.organization_id} and watchlist_id = ${watchlist.id}`;
    expect(address?.swept_to_block).not.toBeNull();

    await deps.sql`select graphile_worker.add_job(${MONITORING_SWEEP_TASK}, '{}'::json, max_attempts => 1)`;
    await waitUntil(sweepJobDone, "the second sweep job to complete");
    expect(await alertRows(organization.organization_id)).toHaveLength(alerts.length);
    const [failed] = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from graphile_worker._private_jobs where last_error is not null`;
    expect(failed?.n).toBe(0);
  });

  it("sweeps every other watchlist when one watchlist's write fails, and the job completes", async () => {
    // Two organizations swept by one job, the first's watchlist made to fail deterministically on write.
    const poisonedOrg = await issueSandboxKey(deps, { kind: "legacy_sandbox" });
    const healthyOrg = await issueSandboxKey(deps, { kind: "legacy_sandbox" });
    const poisoned = await createWatchedMatter(deps, poisonedOrg.organization_id, EXCHANGE_USER);
    await createWatchedMatter(deps, healthyOrg.organization_id, EXCHANGE_USER);
    expect(poisonedOrg.organization_id < healthyOrg.organization_id).toBe(true);
    if (!/^wl_[0-9a-z]+$/.test(poisoned.id)) throw new Error(`unexpected watchlist id ${poisoned.id}`);
    await deps.sql.unsafe(`
      create function fail_poisoned_alert() returns trigger language plpgsql as $$
      begin
        if new.watchlist_id = '${poisoned.id}' then raise exception 'poisoned watchlist'; end if;
        return new;
      end $$;
      create trigger fail_poisoned_alert before insert on alerts
        for each row execute function fail_poisoned_alert();`);
    try {
      await deps.sql`select graphile_worker.add_job(${MONITORING_SWEEP_TASK}, '{}'::json, max_attempts => 1)`;
      await waitUntil(
        async () => (await sweepJobDone()) || (await sweepJobError()) !== null,
        "the sweep job to complete or fail",
      );
      expect(await sweepJobError()).toBeNull();
      expect(await alertRows(poisonedOrg.organization_id)).toEqual([]);
      expect((await alertRows(healthyOrg.organization_id)).length).toBeGreaterThan(0);
      const [cursor] = await deps.sql<{ swept_to_block: string | null }[]>`
        select swept_to_block::text from watchlist_addresses
         where organization_id = ${poisonedOrg.organization_id} and watchlist_id = ${poisoned.id}`;
      expect(cursor?.swept_to_block).toBeNull();
    } finally {
      await deps.sql.unsafe(
        "drop trigger fail_poisoned_alert on alerts; drop function fail_poisoned_alert(); delete from graphile_worker._private_jobs",
      );
    }
  });
});
