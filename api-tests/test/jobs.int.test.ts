/**
 * Jobs and asset maps over REST and tRPC, without a worker: what dispatch writes (the row, its event
 * and its graphile-worker job in one transaction), listing, retrieval and cancel of queued jobs. What
 * a worker does with them (runs, retries, cancel while running, a killed worker) is tested in
 * apps/worker/test/jobs.int.test.ts.
 */
import { readFileSync } from "node:fs";
import { AssetMap, AssetMapLegacy, cryptoOperations, Job, jobOperations } from "@crs/contract";
import { JOB_TYPES } from "@crs/core";
import { LIST_PAGE_MAX_BYTES } from "@crs/services";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countEvents, expectError, record, ValidationDetails } from "./support/expectations";
import { allEvents, createMatter } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import type { TestKey } from "./support/test-app";
import { useTestApp } from "./support/test-app";

const app = useTestApp();

/** A planted address of the sandbox chain would do; any well-formed address is a valid request. */
const WALLET = "0x5eed000000070000000000000000000000000011";

async function createJob(owner: TestKey, body: Record<string, unknown> = {}) {
  const response = await app().request("POST", "/v1/jobs", {
    key: owner.key,
    body: { type: "crypto.trace", input: { wallets: [WALLET] }, ...body },
  });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return Job.parse(response.json);
}

async function graphileJobsKeyed(key: string) {
  return app().sql<{ key: string; identifier: string; payload: Record<string, unknown>; max_attempts: number }[]>`
    select j.key, t.identifier, j.payload, j.max_attempts
      from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where j.key = ${key}`;
}

async function countJobs(organizationId: string, status?: string) {
  const [row] = await app().sql<{ n: number }[]>`
    select count(*)::int as n from jobs
     where organization_id = ${organizationId} and (${status ?? null}::text is null or status = ${status ?? null})`;
  return row?.n ?? 0;
}

describeSecuritySuite(jobOperations.create, {
  app,
  request: async () => ({ body: { type: "crypto.trace", input: { wallets: [WALLET], max_hops: 3 } } }),
  badBody: {
    body: { type: "crypto.fly", input: { wallets: ["not-an-address"], max_hops: 9 } },
    missing: [],
    invalid: ["type", "input.wallets.0", "input.max_hops"],
  },
  idempotency: {
    effects: async (owner) => ({
      jobs: await countJobs(owner.organizationId),
      created_events: await countEvents(app().sql, owner.organizationId, "job.created"),
    }),
    perWrite: { jobs: 1, created_events: 1 },
    changedBody: { type: "crypto.trace", input: { wallets: [WALLET], max_hops: 4 } },
  },
});

describeSecuritySuite(jobOperations.list, { app, request: async () => ({ query: { status: "queued" } }) });

describeSecuritySuite(jobOperations.get, {
  app,
  request: async (owner) => ({ params: { job_id: (await createJob(owner)).id } }),
});

describeSecuritySuite(jobOperations.cancel, {
  app,
  request: async (owner) => ({ params: { job_id: (await createJob(owner)).id } }),
});

describeSecuritySuite(cryptoOperations.createAssetMap, {
  app,
  request: async (owner) => ({ body: { matter_id: (await createMatter(app(), owner)).matter.id, wallets: [WALLET] } }),
  badBody: {
    body: { wallets: [], chains: ["synthetic:eth", "ethereum"], include_stablecoins: "yes" },
    missing: ["matter_id"],
    invalid: ["wallets", "chains", "include_stablecoins"],
  },
  idempotency: {
    effects: async (owner) => ({
      maps:
        (
          await app().sql<
            { n: number }[]
          >`select count(*)::int as n from asset_maps where organization_id = ${owner.organizationId}`
        )[0]?.n ?? 0,
      jobs: await countJobs(owner.organizationId),
    }),
    perWrite: { maps: 1, jobs: 1 },
    changedBody: { matter_id: "matter_00000000000000000000000000", wallets: [WALLET], include_exchanges: false },
  },
});

describeSecuritySuite(cryptoOperations.getAssetMap, {
  app,
  request: async (owner) => {
    const { matter } = await createMatter(app(), owner);
    const created = await app().request("POST", "/v1/crypto/asset-map", {
      key: owner.key,
      body: { matter_id: matter.id, wallets: [WALLET] },
    });
    return { params: { map_id: AssetMap.parse(created.json).map_id } };
  },
});

describe("POST /v1/jobs", () => {
  it("queues the job, appends job.created and adds its graphile-worker job in the same transaction", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    const job = await createJob(owner, {
      matter_id: matter.id,
      input: { wallets: [WALLET.toUpperCase().replace("0X", "0x")], max_hops: 3 },
    });
    expect(job).toMatchObject({
      object: "job",
      type: "crypto.trace",
      status: "queued",
      attempts: 0,
      result: null,
      error: null,
      matter_id: matter.id,
      livemode: false,
      input: {
        kind: "trace",
        wallets: [{ address: WALLET, incident_block: 0 }],
        chains: ["synthetic:eth"],
        max_hops: 3,
        direction: "outflow",
        matter_id: matter.id,
      },
    });
    const events = (await allEvents(app(), owner, matter.id)).filter((event) => event.type === "job.created");
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ job_id: job.id, status: "queued", matter_id: matter.id });
    const queued = await graphileJobsKeyed(job.id);
    expect(queued).toEqual([
      {
        key: job.id,
        identifier: "job.run",
        payload: { organization_id: owner.organizationId, environment: "sandbox", job_id: job.id },
        max_attempts: 1,
      },
    ]);
  });

  it("refuses an unknown type with 422 listing the allowed types, writing nothing", async () => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/jobs", {
      key: owner.key,
      body: { type: "claw.campaign", input: { wallets: [WALLET] } },
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toBe("type");
    expect(ValidationDetails.parse(envelope.error.details).allowed).toEqual([...JOB_TYPES]);
    expect(await countJobs(owner.organizationId)).toBe(0);
  });

  it("refuses a chain the environment cannot trace, a repeated wallet and another organization's matter", async () => {
    const owner = await app().mintKey();
    const chain = await app().request("POST", "/v1/jobs", {
      key: owner.key,
      body: { type: "crypto.trace", input: { wallets: [WALLET], chains: ["ethereum"] } },
    });
    expect(expectError(chain, 422, "invalid_request").error.param).toBe("input.chains.0");
    const twice = await app().request("POST", "/v1/jobs", {
      key: owner.key,
      body: {
        type: "crypto.trace",
        input: { wallets: [WALLET, { address: WALLET.toUpperCase().replace("0X", "0x") }] },
      },
    });
    expect(expectError(twice, 422, "invalid_request").error.param).toBe("input.wallets.1");
    const burned = await app().request("POST", "/v1/jobs", {
      key: owner.key,
      body: { type: "crypto.trace", input: { wallets: [WALLET, `0x${"0".repeat(40)}`] } },
    });
    const zero = expectError(burned, 422, "invalid_request").error;
    expect(zero.message).toContain("zero address");
    const other = await app().mintKey();
    const { matter } = await createMatter(app(), other);
    const foreign = await app().request("POST", "/v1/jobs", {
      key: owner.key,
      body: { type: "crypto.trace", matter_id: matter.id, input: { wallets: [WALLET] } },
    });
    expectError(foreign, 404, "not_found");
    expect(await countJobs(owner.organizationId)).toBe(0);
  });

  it("refuses a source_id given twice or in the form of the trace's own ids, and a block no trace can start at, writing nothing", async () => {
    const owner = await app().mintKey();
    const refused = async (input: Record<string, unknown>, param: string, message: RegExp) => {
      const rest = await app().request("POST", "/v1/jobs", {
        key: owner.key,
        body: { type: "crypto.trace", input: { wallets: [WALLET], ...input } },
      });
      const error = expectError(rest, 422, "invalid_request").error;
      expect(error.param).toBe(param);
      expect(error.message).toMatch(message);
      const { matter } = await createMatter(app(), owner);
      const map = await app().request("POST", "/v1/crypto/asset-map", {
        key: owner.key,
        body: { matter_id: matter.id, wallets: [WALLET], ...input },
      });
      expect(expectError(map, 422, "invalid_request").error.param).toBe(param.replace(/^input\./, ""));
    };
    const exhibit = { source_id: "exhibit-4", title: "Exhibit 4" };
    await refused(
      { source_refs: [exhibit, { ...exhibit, title: "Exhibit 4, amended" }] },
      "input.source_refs.1.source_id",
      /already listed/,
    );
    await refused(
      { source_refs: [{ source_id: "src_00b784f014e869b27bd3", title: "Not the trace's" }] },
      "input.source_refs.0.source_id",
      /trace gives its own sources/,
    );
    for (const block of [4_294_967_296, 2 ** 53]) {
      await refused(
        { wallets: [{ address: WALLET, incident_block: block }] },
        "input.wallets.0.incident_block",
        /at most 4294967295/,
      );
    }
    await refused({ direction: "inflow" }, "input.direction", /outflow/);
    expect(await countJobs(owner.organizationId)).toBe(0);
    expect(await countEvents(app().sql, owner.organizationId, "job.created")).toBe(0);
  });
});

describe("GET /v1/jobs", () => {
  it("lists most recent first and filters by status", async () => {
    const owner = await app().mintKey();
    const first = await createJob(owner);
    const second = await createJob(owner);
    const third = await createJob(owner);
    await app().request("POST", `/v1/jobs/${second.id}/cancel`, { key: owner.key });
    const all = await app().request("GET", "/v1/jobs", { key: owner.key });
    expect(all.status).toBe(200);
    expect(
      z
        .array(Job)
        .parse(record(all.json).data)
        .map((job) => job.id),
    ).toEqual([third.id, second.id, first.id]);
    const queued = await app().request("GET", "/v1/jobs?status=queued&limit=1", { key: owner.key });
    expect(record(queued.json)).toMatchObject({ has_more: true, data: [{ id: third.id, status: "queued" }] });
    const canceled = await app().rpc("query", "jobs.list", { key: owner.key, input: { status: "canceled" } });
    expect(
      z
        .array(Job)
        .parse(record(canceled.json).data)
        .map((job) => job.id),
    ).toEqual([second.id]);
    const bad = await app().request("GET", "/v1/jobs?status=done", { key: owner.key });
    expect(expectError(bad, 400, "invalid_request").error.param).toBe("status");
  });
});

describe("GET /v1/jobs, bounded by bytes by default", () => {
  it("stops a page once its results would pass 32 MiB, the figure the pagination doc gives", async () => {
    expect(app().deps.listPageMaxBytes).toBeUndefined();
    expect(LIST_PAGE_MAX_BYTES).toBe(32 * 2 ** 20);
    const guide = readFileSync(new URL("../../docs/api/pagination.md", import.meta.url), "utf8");
    expect(guide).toMatch(/more than 32 MiB/);
    const owner = await app().mintKey();
    const oldest = await createJob(owner);
    const middle = await createJob(owner);
    const newest = await createJob(owner);
    // A page is weighed by the sizes recorded with the jobs, set by hand here: 32 MiB of results would only slow the test.
    for (const [job, bytes] of [
      [oldest, 1],
      [middle, 16 * 2 ** 20],
      [newest, 16 * 2 ** 20],
    ] as const) {
      await app()
        .sql`update jobs set result_bytes = ${bytes} where organization_id = ${owner.organizationId} and id = ${job.id}`;
    }
    const first = await app().request("GET", "/v1/jobs", { key: owner.key });
    expect(record(first.json)).toMatchObject({ has_more: true, data: [{ id: newest.id }, { id: middle.id }] });
    expect(record(first.json).data).toHaveLength(2);
    const next = await app().request("GET", `/v1/jobs?starting_after=${middle.id}`, { key: owner.key });
    expect(record(next.json)).toMatchObject({ has_more: false, data: [{ id: oldest.id }] });
  });
});

describe("POST /v1/jobs/{job_id}/cancel", () => {
  it("cancels a queued job, removes its graphile-worker job, appends job.canceled; a repeat returns it unchanged", async () => {
    const owner = await app().mintKey();
    const job = await createJob(owner);
    expect(await graphileJobsKeyed(job.id)).toHaveLength(1);
    const canceled = await app().request("POST", `/v1/jobs/${job.id}/cancel`, { key: owner.key });
    expect(canceled.status).toBe(200);
    const body = Job.parse(canceled.json);
    expect(body).toMatchObject({ id: job.id, status: "canceled", attempts: 0 });
    expect(body.finished_at).not.toBeNull();
    expect(await graphileJobsKeyed(job.id)).toEqual([]);
    expect(await countEvents(app().sql, owner.organizationId, "job.canceled")).toBe(1);

    const again = await app().rpc("mutation", "jobs.cancel", { key: owner.key, input: { job_id: job.id } });
    expect(again.status).toBe(200);
    expect(Job.parse(again.json)).toEqual(body);
    expect(await countEvents(app().sql, owner.organizationId, "job.canceled")).toBe(1);
  });

  it("refuses a body that is not a JSON object (422), not JSON (415) or too large (413), leaving the job queued", async () => {
    const owner = await app().mintKey();
    const job = await createJob(owner);
    const refused = await app().request("POST", `/v1/jobs/${job.id}/cancel`, { key: owner.key, body: [] });
    expect(expectError(refused, 422, "invalid_request").error.param).toBe("body");
    const notJson = await app().request("POST", `/v1/jobs/${job.id}/cancel`, {
      key: owner.key,
      body: "cancel it",
      headers: { "content-type": "text/plain" },
    });
    expect(notJson.status).toBe(415);
    const huge = await app().request("POST", `/v1/jobs/${job.id}/cancel`, {
      key: owner.key,
      body: { note: "x".repeat(2 * 2 ** 20) },
    });
    expect(huge.status).toBe(413);
    expect(await countJobs(owner.organizationId, "queued")).toBe(1);
  });

  it("ignores an Idempotency-Key, as documented: a repeat is answered afresh, and the key cancels another job too", async () => {
    const owner = await app().mintKey();
    const [job, other] = [await createJob(owner), await createJob(owner)];
    const storedAnswers = async () =>
      (
        await app().sql<{ n: number }[]>`
          select count(*)::int as n from idempotency_records where organization_id = ${owner.organizationId}`
      )[0]?.n;
    const storedBefore = await storedAnswers();
    const headers = { "Idempotency-Key": `cancel-${job.id}` };
    const first = await app().request("POST", `/v1/jobs/${job.id}/cancel`, { key: owner.key, headers });
    const again = await app().request("POST", `/v1/jobs/${job.id}/cancel`, { key: owner.key, headers });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(Job.parse(again.json)).toEqual(Job.parse(first.json));
    const elsewhere = await app().request("POST", `/v1/jobs/${other.id}/cancel`, { key: owner.key, headers });
    expect(Job.parse(elsewhere.json)).toMatchObject({ id: other.id, status: "canceled" });
    expect(await countEvents(app().sql, owner.organizationId, "job.canceled")).toBe(2);
    expect(await storedAnswers()).toBe(storedBefore);
  });

  it("ten concurrent cancels of one job: one transition, one job.canceled (the row lock)", async () => {
    const owner = await app().mintKey();
    const job = await createJob(owner);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => app().request("POST", `/v1/jobs/${job.id}/cancel`, { key: owner.key })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((answer) => Job.parse(answer.json).status))).toEqual(new Set(["canceled"]));
    expect(await countEvents(app().sql, owner.organizationId, "job.canceled")).toBe(1);
  });

  it("does not see another organization's job (404) and leaves it queued", async () => {
    const owner = await app().mintKey();
    const other = await app().mintKey();
    const job = await createJob(other);
    expectError(await app().request("POST", `/v1/jobs/${job.id}/cancel`, { key: owner.key }), 404, "not_found");
    expectError(await app().request("GET", `/v1/jobs/${job.id}`, { key: owner.key }), 404, "not_found");
    expect(await countJobs(other.organizationId, "queued")).toBe(1);
  });
});

describe("POST /v1/matters/{matter_id}/close, with jobs on the matter", () => {
  it("cancels its unfinished jobs and their maps in the same transaction, and leaves other matters' jobs alone", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    const { matter: other } = await createMatter(app(), owner);
    const map = AssetMap.parse(
      (
        await app().request("POST", "/v1/crypto/asset-map", {
          key: owner.key,
          body: { matter_id: matter.id, wallets: [WALLET] },
        })
      ).json,
    );
    const direct = await createJob(owner, { matter_id: matter.id });
    const finished = await createJob(owner, { matter_id: matter.id });
    await app().request("POST", `/v1/jobs/${finished.id}/cancel`, { key: owner.key });
    const elsewhere = await createJob(owner, { matter_id: other.id });

    const closed = await app().request("POST", `/v1/matters/${matter.id}/close`, {
      key: owner.key,
      body: { reason: "paid" },
    });
    expect({ status: closed.status, body: closed.json }).toMatchObject({ status: 200 });
    const statusOf = async (id: string) =>
      Job.parse((await app().request("GET", `/v1/jobs/${id}`, { key: owner.key })).json).status;
    expect(await statusOf(map.job_id!)).toBe("canceled");
    expect(await statusOf(direct.id)).toBe("canceled");
    expect(await statusOf(elsewhere.id)).toBe("queued");
    expect(await graphileJobsKeyed(map.job_id!)).toEqual([]);
    expect(await graphileJobsKeyed(direct.id)).toEqual([]);
    expect(await graphileJobsKeyed(elsewhere.id)).toHaveLength(1);
    const mapNow = await app().request("GET", `/v1/crypto/asset-map/${map.map_id}`, { key: owner.key });
    expect(AssetMap.parse(mapNow.json).status).toBe("canceled");
    // The two jobs canceled here, each once, after matter.closed; the one canceled before keeps its one.
    const chronological = (await allEvents(app(), owner)).map((event) => event.type);
    const closedAt = chronological.indexOf("matter.closed");
    expect(chronological.slice(closedAt + 1)).toEqual(["job.canceled", "job.canceled"]);
    expect(await countEvents(app().sql, owner.organizationId, "job.canceled")).toBe(3);
  });

  it("raced by asset maps on the matter: each is refused (409) or created and then canceled, none left to run", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    // Three maps surely created before the close, so the race always has something to cancel.
    for (let i = 0; i < 3; i++) {
      const early = await app().request("POST", "/v1/crypto/asset-map", {
        key: owner.key,
        body: { matter_id: matter.id, wallets: [WALLET] },
      });
      expect(early.status).toBe(202);
    }
    const creates = Array.from({ length: 8 }, () =>
      app().request("POST", "/v1/crypto/asset-map", {
        key: owner.key,
        body: { matter_id: matter.id, wallets: [WALLET] },
      }),
    );
    const close = app().request("POST", `/v1/matters/${matter.id}/close`, { key: owner.key, body: { reason: "paid" } });
    const [closed, ...answers] = await Promise.all([close, ...creates]);
    expect(closed!.status).toBe(200);
    for (const answer of answers) expect([202, 409]).toContain(answer.status);
    const created = 3 + answers.filter((answer) => answer.status === 202).length;
    expect(await countJobs(owner.organizationId)).toBe(created);
    expect(await countJobs(owner.organizationId, "canceled")).toBe(created);
    const [left] = await app().sql<{ n: number }[]>`
      select count(*)::int as n from asset_maps where organization_id = ${owner.organizationId} and status <> 'canceled'`;
    expect(left?.n).toBe(0);
    const [queued] = await app().sql<{ n: number }[]>`
      select count(*)::int as n from graphile_worker._private_jobs j
        join jobs on jobs.id = j.key where jobs.organization_id = ${owner.organizationId}`;
    expect(queued?.n).toBe(0);
  });
});

describe("POST /v1/crypto/asset-map", () => {
  it("answers 202 processing with its job id and empty collections; the job carries the map's request", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    const response = await app().request("POST", "/v1/crypto/asset-map", {
      key: owner.key,
      body: {
        matter_id: matter.id,
        wallets: [WALLET],
        chains: ["synthetic:eth"],
        include_stablecoins: true,
        include_exchanges: true,
        source_refs: [{ source_id: "exhibit-4", source_type: "court_record", title: "Exhibit 4" }],
      },
    });
    expect(response.status).toBe(202);
    const map = AssetMap.parse(response.json);
    expect(map).toMatchObject({
      object: "crypto_asset_map",
      matter_id: matter.id,
      status: "processing",
      chain: "synthetic:eth",
      wallets: [],
      token_exposures: [],
      exchange_hypotheses: [],
      stablecoin_exposure: [],
      taint_model: null,
      review_state: { review_required: true, review_status: "pending" },
      source_refs: [{ source_id: "exhibit-4", source_type: "court_record", title: "Exhibit 4" }],
    });
    const job = Job.parse((await app().request("GET", `/v1/jobs/${map.job_id}`, { key: owner.key })).json);
    expect(job).toMatchObject({
      status: "queued",
      matter_id: matter.id,
      input: { kind: "asset_map", map_id: map.map_id, max_hops: 5, direction: "outflow" },
    });
    const read = await app().request("GET", `/v1/crypto/asset-map/${map.map_id}`, { key: owner.key });
    expect(AssetMap.parse(read.json)).toEqual(map);
    const legacy = await app().request("GET", `/v1/crypto/asset-map/${map.map_id}`, {
      key: owner.key,
      headers: { "svc-version": "2026-06-11" },
    });
    expect(AssetMapLegacy.parse(legacy.json).status).toBe("processing");
  });

  it("refuses a closed matter with 409 and writes nothing", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    await app().request("POST", `/v1/matters/${matter.id}/close`, { key: owner.key, body: { reason: "paid" } });
    const response = await app().request("POST", "/v1/crypto/asset-map", {
      key: owner.key,
      body: { matter_id: matter.id, wallets: [WALLET] },
    });
    expectError(response, 409, "conflict");
    expect(await countJobs(owner.organizationId)).toBe(0);
  });
});
