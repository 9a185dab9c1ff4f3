import { Capabilities, ChainCheckpoint, ChainVerification, Event, eventOperations } from "@crs/contract";
import { createChainVerifier, GENESIS_PREV_HASH, publicKeyFromHex, verifyCheckpointSignature } from "@crs/core";
import { runWrite, systemActor } from "@crs/services";
import { createMatter as createMatterInService } from "@crs/services/matters/create-matter";
import type postgres from "postgres";
import { describe, expect, it } from "vitest";
import { expectAuditRef, expectError, expectStandardHeaders } from "./support/expectations";
import { allEvents, createMatter, EventList } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { type TestKey, type TestResponse, useTestApp } from "./support/test-app";

const app = useTestApp();

/** The query that hands verify-chain a kept checkpoint. */
function checkpointQuery(checkpoint: ChainCheckpoint, since = false): string {
  const query = new URLSearchParams({
    checkpoint_sequence: String(checkpoint.sequence),
    checkpoint_hash: checkpoint.hash,
    checkpoint_issued_at: checkpoint.issued_at,
    checkpoint_signature: checkpoint.signature,
    ...(since ? { since_checkpoint: "true" } : {}),
  });
  return `?${query}`;
}

async function verifyChain(owner: TestKey, query = ""): Promise<ChainVerification> {
  const response = await app().request("GET", `/v1/events/verify-chain${query}`, { key: owner.key });
  expectStandardHeaders(response);
  expect(response.status).toBe(200);
  expectAuditRef(response);
  return ChainVerification.parse(response.json);
}

async function takeCheckpoint(owner: TestKey): Promise<ChainCheckpoint> {
  const response = await app().request("GET", "/v1/events/checkpoint", { key: owner.key });
  expectStandardHeaders(response);
  expect(response.status).toBe(200);
  return ChainCheckpoint.parse(response.json);
}

async function listEvents(owner: TestKey, query = "") {
  const response = await app().request("GET", `/v1/events${query}`, { key: owner.key });
  expectStandardHeaders(response);
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
  expectAuditRef(response);
  return EventList.parse(response.json);
}

interface ChainRow {
  id: string;
  sequence: number;
  hash: string;
}

async function chainRows(organizationId: string): Promise<ChainRow[]> {
  return app().sql<ChainRow[]>`
    select id, sequence::int as sequence, hash from events
     where organization_id = ${organizationId} order by sequence`;
}

/** Edits the log behind the service's back, with the append-only trigger off for this transaction only. */
async function tamper(edit: (sql: postgres.TransactionSql) => Promise<unknown>): Promise<void> {
  await app().sql.begin(async (tx) => {
    await tx`alter table events disable trigger events_append_only`;
    await edit(tx);
    await tx`alter table events enable trigger events_append_only`;
  });
}

/** A fresh organization with three events (sequences 1..3). */
async function organizationWithThreeEvents() {
  const owner = await app().mintKey();
  for (const name of ["One", "Two", "Three"]) await createMatter(app(), owner, { name });
  const rows = await chainRows(owner.organizationId);
  expect(rows.map((r) => r.sequence)).toEqual([1, 2, 3]);
  expect((await verifyChain(owner)).valid).toBe(true);
  const [first, second, third] = rows as [ChainRow, ChainRow, ChainRow];
  return { owner, first, second, third };
}

describeSecuritySuite(eventOperations.list, { app, request: async () => ({ query: { limit: "10" } }) });
describeSecuritySuite(eventOperations.verifyChain, { app, request: async () => ({}) });
describeSecuritySuite(eventOperations.checkpoint, { app, request: async () => ({}) });
describeSecuritySuite(eventOperations.get, {
  app,
  request: async (owner) => {
    await createMatter(app(), owner);
    const [row] = await chainRows(owner.organizationId);
    if (!row) throw new Error("the create appended no event");
    return { params: { event_id: row.id } };
  },
});

describe("events: behaviour", () => {
  it("lists events most recent first, filters by matter_id and type, and pages by cursor", async () => {
    const owner = await app().mintKey();
    const { matter: a } = await createMatter(app(), owner, { name: "A" });
    await app().request("PATCH", `/v1/matters/${a.id}`, { key: owner.key, body: { status: "on_hold" } });
    const { matter: b } = await createMatter(app(), owner, { name: "B" });
    await app().request("POST", `/v1/matters/${a.id}/close`, { key: owner.key, body: { reason: "paid" } });

    const all = await listEvents(owner);
    expect(all.url).toBe("/v1/events");
    expect(all.has_more).toBe(false);
    expect(all.data.map((e) => [e.sequence, e.type, e.data.matter_id])).toEqual([
      [4, "matter.closed", a.id],
      [3, "matter.created", b.id],
      [2, "matter.updated", a.id],
      [1, "matter.created", a.id],
    ]);

    const ofA = await listEvents(owner, `?matter_id=${a.id}`);
    expect(ofA.data.map((e) => e.type)).toEqual(["matter.closed", "matter.updated", "matter.created"]);
    const created = await listEvents(owner, "?type=matter.created");
    expect(created.data.map((e) => e.data.matter_id)).toEqual([b.id, a.id]);

    const [e4, e3, e2, e1] = all.data as [Event, Event, Event, Event];
    const firstPage = await listEvents(owner, "?limit=2");
    expect({ ids: firstPage.data.map((e) => e.id), more: firstPage.has_more }).toEqual({
      ids: [e4.id, e3.id],
      more: true,
    });
    const nextPage = await listEvents(owner, `?limit=2&starting_after=${e3.id}`);
    expect({ ids: nextPage.data.map((e) => e.id), more: nextPage.has_more }).toEqual({
      ids: [e2.id, e1.id],
      more: false,
    });
    const newer = await listEvents(owner, `?limit=2&ending_before=${e1.id}`);
    expect({ ids: newer.data.map((e) => e.id), more: newer.has_more }).toEqual({ ids: [e3.id, e2.id], more: true });
  });

  it("retrieves an event exactly as it was listed and signed", async () => {
    const owner = await app().mintKey();
    const { response: created, matter } = await createMatter(app(), owner);
    const [listed] = (await listEvents(owner)).data;
    if (!listed) throw new Error("no event listed");
    const response = await app().request("GET", `/v1/events/${listed.id}`, { key: owner.key });
    expectStandardHeaders(response);
    expect(response.status).toBe(200);
    const event = Event.parse(response.json);
    expect(event).toEqual(listed);
    expect(event).toMatchObject({
      object: "event",
      type: "matter.created",
      livemode: false,
      sequence: 1,
      prev_hash: GENESIS_PREV_HASH,
      audit_ref: created.headers.get("svc-request-id"),
    });
    expect(event.id).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(event.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(event.signature).toMatch(/^[0-9a-f]{128}$/);
    expect(event.data.matter_id).toBe(matter.id);
  });

  it.each([
    ["an unknown event id", "evt_00000000000000000000000000"],
    ["an id of another kind", "matter_00000000000000000000000000"],
    ["a malformed id", "evt_nope"],
  ])("returns 404 for %s", async (_label, id) => {
    const owner = await app().mintKey();
    expectError(await app().request("GET", `/v1/events/${id}`, { key: owner.key }), 404, "not_found");
  });

  it("returns 400 for an invalid type filter or bad cursors, and ignores unknown filters", async () => {
    const owner = await app().mintKey();
    await createMatter(app(), owner);
    const badType = await app().request("GET", "/v1/events?type=matter.exploded", { key: owner.key });
    expect(expectError(badType, 400, "invalid_request").error.param).toBe("type");
    const badLimit = await app().request("GET", "/v1/events?limit=101", { key: owner.key });
    expect(expectError(badLimit, 400, "invalid_request").error.param).toBe("limit");
    const [row] = await chainRows(owner.organizationId);
    const both = await app().request("GET", `/v1/events?starting_after=${row?.id}&ending_before=${row?.id}`, {
      key: owner.key,
    });
    expectError(both, 400, "invalid_request");
    const ignored = await listEvents(owner, "?colour=blue");
    expect(ignored.data).toHaveLength(1);
  });

  it("verifies an empty log as valid with nothing checked", async () => {
    const owner = await app().mintKey();
    expect(await verifyChain(owner)).toMatchObject({
      object: "chain_verification",
      valid: true,
      events_checked: 0,
      first_break: null,
      head: { sequence: 0, hash: GENESIS_PREV_HASH },
    });
  });

  it("keeps one gapless chain per organization under 50 concurrent writes, beside another organization's", async () => {
    const busy = await app().keyWithScopes(["matters:write", "matters:read", "events:read"], {
      organizationName: "Busy",
    });
    const neighbour = await app().mintKey();
    const requests: Promise<TestResponse>[] = [];
    for (let i = 0; i < 50; i++) {
      requests.push(app().request("POST", "/v1/matters", { key: busy.key, body: { name: `Busy ${i}` } }));
      if (i % 5 === 0 || i % 5 === 2) {
        requests.push(app().request("POST", "/v1/matters", { key: neighbour.key, body: { name: `Neighbour ${i}` } }));
      }
    }
    const responses = await Promise.all(requests);
    expect(responses.map((r) => r.status)).toEqual(Array(70).fill(201));

    for (const [owner, count, livemode] of [
      [busy, 50, true],
      [neighbour, 20, false],
    ] as const) {
      const rows = await app().sql<
        { sequence: number; organization_id: string; object_org: string; livemode: boolean }[]
      >`
        select sequence::int as sequence, organization_id, data->'object'->>'organization_id' as object_org, livemode
          from events where organization_id = ${owner.organizationId} order by sequence`;
      expect(rows.map((r) => r.sequence)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      expect(new Set(rows.map((r) => r.object_org))).toEqual(new Set([owner.organizationId]));
      expect(new Set(rows.map((r) => r.livemode))).toEqual(new Set([livemode]));

      const verification = await verifyChain(owner);
      const last = (await chainRows(owner.organizationId)).at(-1);
      expect(verification).toMatchObject({
        valid: true,
        events_checked: count,
        first_break: null,
        head: { sequence: count, hash: last?.hash },
      });

      // Most recent first is chain order, whatever order the concurrent writers minted their ids in.
      const listed = await allEvents(app(), owner);
      expect(listed.map((e) => e.sequence)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      const matterIds = responses
        .filter((r) => (r.json as { organization_id?: string }).organization_id === owner.organizationId)
        .map((r) => (r.json as { id: string }).id)
        .sort();
      expect(listed.map((e) => String(e.data.matter_id)).sort()).toEqual(matterIds);
    }
  });

  it("holds the chain only while a write appends: one that recorded its event and is still working blocks no other", async () => {
    const owner = await app().mintKey();
    const actor = systemActor(owner, "test.slow-write", "req_slowwriteprobe000000000000");
    let finishSlowWrite = () => {};
    let slowWriteRecorded = () => {};
    const recorded = new Promise<void>((resolve) => {
      slowWriteRecorded = resolve;
    });
    const slow = runWrite(app().deps, actor, async (write) => {
      const matter = await createMatterInService(write, {
        params: {},
        body: { name: "Slow v. Doe", mode: "recovery" },
      });
      slowWriteRecorded();
      // Still inside its transaction, after its event was recorded.
      await new Promise<void>((resolve) => {
        finishSlowWrite = resolve;
      });
      return matter;
    });
    await recorded;
    // Another write of the same organization commits while the first is still open.
    const quick = await app().request("POST", "/v1/matters", { key: owner.key, body: { name: "Quick v. Doe" } });
    expect(quick.status).toBe(201);
    finishSlowWrite();
    const slowMatter = await slow;
    const rows = await chainRows(owner.organizationId);
    expect(rows.map((row) => row.sequence)).toEqual([1, 2]);
    expect(await verifyChain(owner)).toMatchObject({ valid: true, events_checked: 2 });
    const listed = await allEvents(app(), owner);
    // The quick write committed first, so it holds sequence 1.
    expect(listed.map((event) => event.data.matter_id)).toEqual([(quick.json as { id: string }).id, slowMatter.id]);
  });

  it("lets anyone holding the events verify them offline with the published public key", async () => {
    const owner = await app().mintKey();
    for (const name of ["One", "Two", "Three"]) await createMatter(app(), owner, { name });
    const capabilities = Capabilities.parse((await app().request("GET", "/v1/capabilities", { key: owner.key })).json);
    const verifier = createChainVerifier(publicKeyFromHex(capabilities.event_signing_key.public_key));
    const events = await allEvents(app(), owner);
    expect(events).toHaveLength(3);
    for (const event of events) expect(verifier.check(event)).toBeNull();
    expect(verifier.head).toEqual({ sequence: 3, hash: events[2]?.hash });

    // The same events under a different public key do not verify.
    const stranger = createChainVerifier(publicKeyFromHex("11".repeat(32)));
    expect(events[0] && stranger.check(events[0])).toMatchObject({ reason: "signature_invalid", sequence: 1 });
  });

  describe("verify-chain names the first broken link", () => {
    it("reports hash_mismatch when an event's data was changed", async () => {
      const { owner, second } = await organizationWithThreeEvents();
      await tamper(
        (tx) => tx`update events set data = jsonb_set(data, '{object,name}', '"Tampered"')
                    where organization_id = ${owner.organizationId} and sequence = 2`,
      );
      expect(await verifyChain(owner)).toMatchObject({
        valid: false,
        first_break: { sequence: 2, event_id: second.id, reason: "hash_mismatch" },
      });
    });

    it("reports prev_hash_mismatch when an event's prev_hash was changed", async () => {
      const { owner, second } = await organizationWithThreeEvents();
      await tamper(
        (tx) => tx`update events set prev_hash = repeat('f', 64)
                    where organization_id = ${owner.organizationId} and sequence = 2`,
      );
      expect(await verifyChain(owner)).toMatchObject({
        valid: false,
        first_break: { sequence: 2, event_id: second.id, reason: "prev_hash_mismatch" },
      });
    });

    it("reports signature_invalid when an event's signature was changed", async () => {
      const { owner, second } = await organizationWithThreeEvents();
      await tamper(
        (tx) => tx`update events
                      set signature = (case when left(signature, 1) = '0' then '1' else '0' end) || substr(signature, 2)
                    where organization_id = ${owner.organizationId} and sequence = 2`,
      );
      const [changed] = await app().sql<{ signature: string }[]>`
        select signature from events where organization_id = ${owner.organizationId} and sequence = 2`;
      expect(changed?.signature).toMatch(/^[0-9a-f]{128}$/);
      expect(await verifyChain(owner)).toMatchObject({
        valid: false,
        first_break: { sequence: 2, event_id: second.id, reason: "signature_invalid" },
      });
    });

    it("reports sequence_gap at the next sequence when a middle event was deleted", async () => {
      const { owner, third } = await organizationWithThreeEvents();
      await tamper((tx) => tx`delete from events where organization_id = ${owner.organizationId} and sequence = 2`);
      expect(await verifyChain(owner)).toMatchObject({
        valid: false,
        first_break: { sequence: 3, event_id: third.id, reason: "sequence_gap" },
      });
    });

    it("leaves other organizations' chains valid", async () => {
      const { owner: bystander } = await organizationWithThreeEvents();
      const { owner: victim } = await organizationWithThreeEvents();
      await tamper(
        (tx) => tx`update events set data = jsonb_set(data, '{status}', '"closed"')
                    where organization_id = ${victim.organizationId} and sequence = 1`,
      );
      expect((await verifyChain(victim)).valid).toBe(false);
      expect(await verifyChain(bystander)).toMatchObject({ valid: true, events_checked: 3, first_break: null });
    });
  });

  describe("the tail of the log, checkpoints and rollback", () => {
    it("signs the current head as a checkpoint anyone can verify with the published key", async () => {
      const owner = await app().mintKey();
      const empty = await takeCheckpoint(owner);
      expect(empty).toMatchObject({
        object: "chain_checkpoint",
        livemode: false,
        sequence: 0,
        hash: GENESIS_PREV_HASH,
      });
      const { third } = await organizationWithThreeEvents().then(async (org) => {
        const checkpoint = await takeCheckpoint(org.owner);
        expect(checkpoint).toMatchObject({ sequence: 3, hash: org.third.hash });
        const capabilities = Capabilities.parse(
          (await app().request("GET", "/v1/capabilities", { key: org.owner.key })).json,
        );
        const publicKey = publicKeyFromHex(capabilities.event_signing_key.public_key);
        expect(verifyCheckpointSignature(checkpoint, publicKey)).toBe(true);
        expect(verifyCheckpointSignature({ ...checkpoint, sequence: 2 }, publicKey)).toBe(false);
        expect(verifyCheckpointSignature({ ...checkpoint, issued_at: "2020-01-01T00:00:00.000Z" }, publicKey)).toBe(
          false,
        );
        expect(verifyCheckpointSignature({ ...checkpoint, livemode: true }, publicKey)).toBe(false);
        return org;
      });
      expect(third.sequence).toBe(3);
    });

    it("reports truncated at the first missing sequence when the last events were deleted", async () => {
      const { owner } = await organizationWithThreeEvents();
      await tamper((tx) => tx`delete from events where organization_id = ${owner.organizationId} and sequence = 3`);
      expect(await verifyChain(owner)).toMatchObject({
        valid: false,
        events_checked: 2,
        first_break: { sequence: 3, event_id: null, reason: "truncated" },
      });
      await tamper((tx) => tx`delete from events where organization_id = ${owner.organizationId} and sequence >= 1`);
      expect(await verifyChain(owner)).toMatchObject({
        valid: false,
        events_checked: 0,
        first_break: { sequence: 1, event_id: null, reason: "truncated" },
      });
    });

    it("reports an older copy of the events table as truncated, and of the whole database as rollback", async () => {
      const { owner, third } = await organizationWithThreeEvents();
      const org = owner.organizationId;
      const backup = `events_backup_${org.slice(-12)}`;
      await app().sql`create table ${app().sql(backup)} as select * from events where organization_id = ${org}`;
      await createMatter(app(), owner, { name: "Four" });
      const atFour = await takeCheckpoint(owner);
      await createMatter(app(), owner, { name: "Five" });
      const atFive = await takeCheckpoint(owner);
      expect([atFour.sequence, atFive.sequence]).toEqual([4, 5]);
      expect(await verifyChain(owner, checkpointQuery(atFive))).toMatchObject({ valid: true, events_checked: 5 });

      // The events table goes back to the copy of three events; the chain head row still says five.
      await tamper(async (tx) => {
        await tx`delete from events where organization_id = ${org}`;
        await tx`insert into events select * from ${tx(backup)}`;
      });
      expect(await verifyChain(owner)).toMatchObject({
        valid: false,
        events_checked: 3,
        first_break: { sequence: 4, event_id: null, reason: "truncated" },
      });
      // The service's own head still counts events 4 and 5: the first missing one is the break, a kept checkpoint or not.
      expect(await verifyChain(owner, checkpointQuery(atFive))).toMatchObject({
        valid: false,
        first_break: { sequence: 4, event_id: null, reason: "truncated" },
      });

      // The whole database goes back (the head row too): only a kept checkpoint still tells.
      await app()
        .sql`update chain_heads set head_sequence = 3, head_hash = ${third.hash} where organization_id = ${org}`;
      expect(await verifyChain(owner)).toMatchObject({ valid: true, events_checked: 3, first_break: null });
      expect(await verifyChain(owner, checkpointQuery(atFive))).toMatchObject({
        valid: false,
        events_checked: 3,
        first_break: { sequence: 5, event_id: null, reason: "rollback" },
      });

      // Writes after the rollback sign a different event 4: the kept checkpoint at 4 names it.
      await createMatter(app(), owner, { name: "Four again" });
      const [forked] = await app().sql<{ id: string }[]>`
        select id from events where organization_id = ${org} and sequence = 4`;
      expect(await verifyChain(owner, checkpointQuery(atFour))).toMatchObject({
        valid: false,
        first_break: { sequence: 4, event_id: forked?.id, reason: "rollback" },
      });
      expect(await verifyChain(owner, checkpointQuery(atFour, true))).toMatchObject({
        valid: false,
        events_checked: 1,
        first_break: { sequence: 4, event_id: forked?.id, reason: "rollback" },
      });
      await app().sql`drop table ${app().sql(backup)}`;
    });

    it("starts from a kept checkpoint and checks only what came after it", async () => {
      const { owner } = await organizationWithThreeEvents();
      const atThree = await takeCheckpoint(owner);
      for (const name of ["Four", "Five"]) await createMatter(app(), owner, { name });
      const rows = await chainRows(owner.organizationId);
      const since = await verifyChain(owner, checkpointQuery(atThree, true));
      expect(since).toMatchObject({
        valid: true,
        events_checked: 3,
        first_break: null,
        head: { sequence: 5, hash: rows[4]?.hash },
        started_from: { sequence: 3, hash: atThree.hash },
      });
      expect((await verifyChain(owner)).started_from).toBeNull();

      // An edit before the checkpoint is outside an incremental check, and inside a full one.
      await tamper(
        (tx) => tx`update events set data = jsonb_set(data, '{status}', '"closed"')
                    where organization_id = ${owner.organizationId} and sequence = 1`,
      );
      expect((await verifyChain(owner, checkpointQuery(atThree, true))).valid).toBe(true);
      expect((await verifyChain(owner)).first_break).toMatchObject({ sequence: 1, reason: "hash_mismatch" });
      // The checkpoint's own event and everything after it are checked.
      for (const sequence of [3, 5]) {
        await tamper(
          (tx) => tx`update events set data = jsonb_set(data, '{status}', '"closed"')
                      where organization_id = ${owner.organizationId} and sequence = ${sequence}`,
        );
      }
      expect((await verifyChain(owner, checkpointQuery(atThree, true))).first_break).toMatchObject({
        sequence: 3,
        event_id: rows[2]?.id,
        reason: "hash_mismatch",
      });
    });

    it("refuses a checkpoint the service did not sign, or one with a field missing (400 naming it)", async () => {
      const { owner } = await organizationWithThreeEvents();
      const checkpoint = await takeCheckpoint(owner);
      const forged = await app().request(
        "GET",
        `/v1/events/verify-chain${checkpointQuery({ ...checkpoint, sequence: 2 })}`,
        { key: owner.key },
      );
      expect(expectError(forged, 400, "invalid_request").error.param).toBe("checkpoint_signature");
      const partial = await app().request(
        "GET",
        `/v1/events/verify-chain?checkpoint_sequence=3&checkpoint_signature=${checkpoint.signature}`,
        { key: owner.key },
      );
      expect(expectError(partial, 400, "invalid_request").error.param).toBe("checkpoint_hash");
      const badSequence = await app().request(
        "GET",
        `/v1/events/verify-chain${checkpointQuery(checkpoint).replace("checkpoint_sequence=3", "checkpoint_sequence=-1")}`,
        { key: owner.key },
      );
      expect(expectError(badSequence, 400, "invalid_request").error.param).toBe("checkpoint_sequence");
      // Another organization's checkpoint is signed by the same key but names another chain.
      const { owner: other } = await organizationWithThreeEvents();
      expect((await verifyChain(other, checkpointQuery(checkpoint))).first_break).toMatchObject({
        sequence: 3,
        reason: "rollback",
      });
    });
  });

  it("refuses UPDATE, DELETE and TRUNCATE on events in the database itself", async () => {
    const { owner } = await organizationWithThreeEvents();
    await expect(
      app()
        .sql`update events set type = 'matter.updated' where organization_id = ${owner.organizationId} and sequence = 1`,
    ).rejects.toThrow(/append-only/);
    await expect(
      app().sql`delete from events where organization_id = ${owner.organizationId} and sequence = 3`,
    ).rejects.toThrow(/append-only/);
    await expect(app().sql`truncate events`).rejects.toThrow(/append-only/);
    expect((await chainRows(owner.organizationId)).map((r) => r.sequence)).toEqual([1, 2, 3]);
    expect((await verifyChain(owner)).valid).toBe(true);
  });
});
