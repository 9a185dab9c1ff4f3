/**
 * Appending events through the one write path: a large event's data is staged before the chain head is
 * taken and copied from the stage, and what is stored is what was recorded, hashed and signed; a write
 * that fails after staging leaves nothing, and the connection stages again at its next large write.
 */
import { createChainVerifier } from "@crs/core";
import { CHAIN_EVENT_TEXT_COLUMNS, type ChainEventTextRow, chainEventFromText } from "@crs/db";
import { createTestDatabase } from "@crs/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceDeps, issueSandboxKey, runWrite, systemActor } from "../src";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createServiceDeps>;
let tenant: { organizationId: string; environment: "sandbox" };

/** Services on one connection: every write runs in the same session, as the stage (a temporary table) does. */
function oneConnectionDeps() {
  return createServiceDeps({
    databaseUrl: database.url,
    secrets: {
      keySigningSecret: "event-append-test-key-signing-secret-0123",
      eventSigningSeed: "3a".repeat(32),
      webhookSecretKey: "4b".repeat(32),
    },
    publicBaseUrl: "http://127.0.0.1:3000",
    poolSize: 1,
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  deps = oneConnectionDeps();
  const minted = await issueSandboxKey(deps);
  tenant = { organizationId: minted.organization_id, environment: "sandbox" };
}, 60_000);

afterAll(async () => {
  await deps?.close();
  await database?.drop();
}, 60_000);

/** A matter-shaped object whose canonical JSON is over 256 Ki characters, with text JSON must escape. */
function largeObject(id: string) {
  const notes = Array.from({ length: 6_000 }, (_, i) => ({
    n: i,
    text: `note ${i}: "quoted" \\ é\n€ ${"x".repeat(20)}`,
  }));
  return { id, object: "matter", status: "open", notes };
}

function record(
  write: Parameters<Parameters<typeof runWrite>[2]>[0],
  object: { id: string } & Record<string, unknown>,
) {
  write.recordEvent({ type: "matter.updated", idField: "matter_id", object, matterId: object.id });
}

async function chain(): Promise<ReturnType<typeof chainEventFromText>[]> {
  const rows = await deps.sql.unsafe<ChainEventTextRow[]>(
    `select ${CHAIN_EVENT_TEXT_COLUMNS} from events where organization_id = $1 and environment = $2 order by events.sequence`,
    [tenant.organizationId, tenant.environment],
  );
  return rows.map(chainEventFromText);
}

describe("appending events", () => {
  it("stores a large event, staged, beside small ones in one write: as recorded, hashed and signed, the chain intact", async () => {
    const before = (await chain()).length;
    const large = largeObject("mat_large1");
    expect(JSON.stringify(large).length).toBeGreaterThan(256 * 1024);
    await runWrite(deps, systemActor(tenant, "test", deps.newId("request")), async (write) => {
      record(write, { id: "mat_small1", object: "matter", status: "open" });
      record(write, large);
      record(write, { id: "mat_small2", object: "matter", status: "open" });
    });
    const events = await chain();
    expect(events.length).toBe(before + 3);
    expect(events.slice(-3).map((event) => (event.data.object as { id: string }).id)).toEqual([
      "mat_small1",
      "mat_large1",
      "mat_small2",
    ]);
    expect(events.at(-2)?.data.object).toEqual(large);
    const verifier = createChainVerifier(deps.eventSigningKey);
    for (const event of events) expect(verifier.check(event)).toBeNull();
    // The stage is emptied at commit.
    expect(await deps.sql`select count(*)::int as n from event_data_stage`).toEqual([{ n: 0 }]);
  });

  it("leaves nothing of a write that fails after a staged append, and stages again on the same connection", async () => {
    // A new session: the failing write is the one that creates its stage, and rolling back removes it.
    const fresh = oneConnectionDeps();
    const before = await chain();
    const failing = runWrite(fresh, systemActor(tenant, "test", fresh.newId("request")), async (write) => {
      record(write, largeObject("mat_large2"));
      // Appended after the staged one, and refused by jsonb: the write rolls back after a staged append.
      record(write, { id: "mat_bad", object: "matter", name: "a NUL \u0000 here" });
    });
    await expect(failing).rejects.toThrow(/unsupported Unicode escape sequence/);
    expect(await chain()).toEqual(before);
    await expect(fresh.sql`select 1 from event_data_stage`).rejects.toThrow(/does not exist/);

    // The statement that copies from the stage was prepared against the dropped table; it must still work.
    const large = largeObject("mat_large3");
    await runWrite(fresh, systemActor(tenant, "test", fresh.newId("request")), async (write) => record(write, large));
    await fresh.close();
    const after = await chain();
    expect(after.length).toBe(before.length + 1);
    expect(after.at(-1)?.data.object).toEqual(large);
    const verifier = createChainVerifier(deps.eventSigningKey);
    for (const event of after) expect(verifier.check(event)).toBeNull();
  });

  it("stages a large event before it waits for the chain head, not under it", async () => {
    const fresh = oneConnectionDeps();
    const pid = (await fresh.sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
    const holder = oneConnectionDeps();
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held!: () => void;
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    // Another writer of the organization holds its chain head.
    const holderDone = holder.sql.begin(async (tx) => {
      await tx`select 1 from chain_heads where organization_id = ${tenant.organizationId}
                 and environment = ${tenant.environment} for update`;
      held();
      await released;
    });
    await holding;
    const large = largeObject("mat_large4");
    const writing = runWrite(fresh, systemActor(tenant, "test", fresh.newId("request")), async (write) =>
      record(write, large),
    );
    const waitingLocks = async () =>
      (await deps.sql<{ n: number }[]>`select count(*)::int as n from pg_locks where pid = ${pid} and not granted`)[0]!
        .n;
    for (let tries = 0; (await waitingLocks()) === 0; tries++) {
      if (tries > 200) throw new Error("the write never waited for the chain head");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // While it waits for the head, it already holds its stage: a relation no other session can see.
    const [stage] = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from pg_locks l
       where l.pid = ${pid} and l.locktype = 'relation' and l.granted
         and not exists (select 1 from pg_class c where c.oid = l.relation and c.relpersistence = 'p')`;
    expect(stage?.n).toBeGreaterThan(0);
    release();
    await holderDone;
    await writing;
    await Promise.all([fresh.close(), holder.close()]);
    expect((await chain()).at(-1)?.data.object).toEqual(large);
  });
});
