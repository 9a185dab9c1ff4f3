/**
 * Pages of `GET /v1/jobs` and `GET /v1/events` bounded by bytes as well as by count: a job's result (and
 * the job.completed event that carries the job) may be a trace map of up to 128 MiB, and a page is
 * answered as one JSON string. The app runs with a page budget of BUDGET bytes instead of 32 MiB, so
 * results of a few kilobytes show the cut; the default is checked in jobs.int.test.ts.
 */
import { Job, TraceJobResult } from "@crs/contract";
import { claimJobRun, DEFAULT_JOB_RUN_SETTINGS, recordJobSuccess } from "@crs/services";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectAuditRef, expectStandardHeaders } from "./support/expectations";
import { EventList } from "./support/fixtures";
import { type TestKey, useTestApp } from "./support/test-app";

const BUDGET = 10_000;
const app = useTestApp({ listPageMaxBytes: BUDGET });

const WALLET = "0x5eed000000070000000000000000000000000011";

const JobList = z.object({ object: z.literal("list"), data: z.array(Job), has_more: z.boolean(), url: z.string() });

/** A well-formed trace result whose JSON is exactly `bytes` long (its taint model's description pads it). */
function traceResultOfBytes(bytes: number): TraceJobResult {
  const result: TraceJobResult = {
    object: "crypto_asset_map",
    map_id: null,
    matter_id: null,
    chain: "synthetic:eth",
    source: "synthetic",
    provider: null,
    traced_at: null,
    hops: 0,
    max_hops: 5,
    subjects: [WALLET],
    wallets: [],
    edges: [],
    flows: [],
    terminals: [],
    edge_count: 0,
    node_count: 0,
    exchange_hypotheses: [],
    token_exposures: [],
    stablecoin_exposure: [],
    totals: [],
    truncated: false,
    truncation: [],
    block_range: null,
    source_manifest: [],
    taint_model: { name: "fifo", subject_taint: "all_holdings", amounts: "conserved", description: "" },
  };
  const padding = bytes - Buffer.byteLength(JSON.stringify(result));
  if (padding < 0) throw new Error(`a trace result takes more than ${bytes} bytes`);
  result.taint_model.description = "x".repeat(padding);
  return TraceJobResult.parse(result);
}

async function createJob(owner: TestKey): Promise<string> {
  const response = await app().request("POST", "/v1/jobs", {
    key: owner.key,
    body: { type: "crypto.trace", input: { wallets: [WALLET] } },
  });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return Job.parse(response.json).id;
}

/** A job run to success by the job runner's own steps (claim, record) with a result of `bytes` bytes of JSON. */
async function succeededJob(owner: TestKey, bytes: number): Promise<string> {
  const jobId = await createJob(owner);
  const { deps } = app();
  const ref = { organizationId: owner.organizationId, environment: owner.environment, jobId };
  const run = await claimJobRun(deps, ref, DEFAULT_JOB_RUN_SETTINGS);
  if (!run) throw new Error("the job could not be claimed");
  expect(await recordJobSuccess(deps, run, traceResultOfBytes(bytes))).toBe("succeeded");
  return jobId;
}

/**
 * Six succeeded jobs and one still queued, oldest first: j1, j2, j3 of 4,000 bytes of result, j4 of 12,000
 * (over the budget alone), j5 and j6 of 3,000, j7 queued (no result).
 */
async function plantJobs(owner: TestKey) {
  const ids: string[] = [];
  for (const bytes of [4_000, 4_000, 4_000, 12_000, 3_000, 3_000]) ids.push(await succeededJob(owner, bytes));
  ids.push(await createJob(owner));
  const [j1, j2, j3, j4, j5, j6, j7] = ids as [string, string, string, string, string, string, string];
  return { j1, j2, j3, j4, j5, j6, j7 };
}

interface Page {
  ids: string[];
  has_more: boolean;
}

async function listPage<List extends z.ZodType<{ data: { id: string }[]; has_more: boolean }>>(
  owner: TestKey,
  path: string,
  schema: List,
): Promise<z.infer<List>> {
  const response = await app().request("GET", path, { key: owner.key });
  expectStandardHeaders(response);
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
  expectAuditRef(response);
  return schema.parse(response.json);
}

/**
 * Every page from the start (`starting_after` the last id of each page) or, given `endingBefore`, from
 * that object towards the newest (`ending_before` the first id of each page), until has_more is false.
 */
async function walk(owner: TestKey, path: string, endingBefore?: string): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor = endingBefore ? `ending_before=${endingBefore}` : "";
  for (;;) {
    const separator = path.includes("?") ? "&" : "?";
    const url = cursor ? `${path}${separator}${cursor}` : path;
    const page = path.startsWith("/v1/jobs")
      ? await listPage(owner, url, JobList)
      : await listPage(owner, url, EventList);
    const ids = page.data.map((object) => object.id);
    pages.push({ ids, has_more: page.has_more });
    if (!page.has_more) return pages;
    expect(ids.length).toBeGreaterThan(0);
    cursor = endingBefore ? `ending_before=${ids[0]}` : `starting_after=${ids.at(-1)}`;
    expect(pages.length).toBeLessThan(50);
  }
}

/**
 * What a walk must show, given `ahead`, the objects it should meet in the order it meets them (most recent
 * first walking forwards, oldest first walking back from an `ending_before`): its pages hold each of them
 * exactly once, in that order, each page most recent first; a page holds at most `limit` objects and at
 * most BUDGET bytes of them, or a single object; has_more is true while objects remain; and a page that
 * stopped short of `limit` with more to come stopped because the next would have taken it past BUDGET.
 */
function expectBoundedWalk(
  pages: Page[],
  ahead: string[],
  sizeOf: Map<string, number>,
  limit: number,
  direction: "forwards" | "backwards" = "forwards",
) {
  const inWalkOrder = (ids: string[]) => (direction === "forwards" ? ids : ids.toReversed());
  expect(pages.flatMap((page) => inWalkOrder(page.ids))).toEqual(ahead);
  const size = (id: string) => sizeOf.get(id) ?? Number.NaN;
  let seen = 0;
  for (const page of pages) {
    const bytes = page.ids.reduce((sum, id) => sum + size(id), 0);
    expect(page.ids.length).toBeGreaterThan(0);
    expect(page.ids.length).toBeLessThanOrEqual(limit);
    if (page.ids.length > 1) expect(bytes).toBeLessThanOrEqual(BUDGET);
    seen += page.ids.length;
    const next = ahead[seen];
    expect(page.has_more).toBe(next !== undefined);
    if (next !== undefined && page.ids.length < limit) expect(bytes + size(next)).toBeGreaterThan(BUDGET);
  }
}

describe("GET /v1/jobs, pages bounded by bytes", () => {
  it("records each result's JSON size with the job", async () => {
    const owner = await app().mintKey();
    const { j1, j4, j7 } = await plantJobs(owner);
    const rows = await app().sql<{ id: string; result_bytes: number }[]>`
      select id, result_bytes from jobs where organization_id = ${owner.organizationId}`;
    const recorded = new Map(rows.map((row) => [row.id, row.result_bytes]));
    expect([recorded.get(j1), recorded.get(j4), recorded.get(j7)]).toEqual([4_000, 12_000, 0]);
    const page = await listPage(owner, `/v1/jobs?ending_before=${j1}&limit=1`, JobList);
    expect(Buffer.byteLength(JSON.stringify(page.data[0]?.result))).toBe(4_000);
  });

  it("stops a page once its results would pass the budget, with has_more, and the cursors visit every job once, in order, both ways", async () => {
    const owner = await app().mintKey();
    const { j1, j2, j3, j4, j5, j6, j7 } = await plantJobs(owner);

    const forwards = await walk(owner, "/v1/jobs");
    expect(forwards).toEqual([
      { ids: [j7, j6, j5], has_more: true },
      { ids: [j4], has_more: true },
      { ids: [j3, j2], has_more: true },
      { ids: [j1], has_more: false },
    ]);
    const backwards = await walk(owner, "/v1/jobs", j1);
    expect(backwards).toEqual([
      { ids: [j3, j2], has_more: true },
      { ids: [j4], has_more: true },
      { ids: [j7, j6, j5], has_more: false },
    ]);

    // The page's jobs are whole, and the limit and the filter hold as before.
    const first = await listPage(owner, "/v1/jobs", JobList);
    expect(first.data.map((job) => [job.status, job.result && Buffer.byteLength(JSON.stringify(job.result))])).toEqual([
      ["queued", null],
      ["succeeded", 3_000],
      ["succeeded", 3_000],
    ]);
    expect(await walk(owner, "/v1/jobs?limit=2")).toEqual([
      { ids: [j7, j6], has_more: true },
      { ids: [j5], has_more: true },
      { ids: [j4], has_more: true },
      { ids: [j3, j2], has_more: true },
      { ids: [j1], has_more: false },
    ]);
    expect(await walk(owner, "/v1/jobs?status=succeeded")).toEqual([
      { ids: [j6, j5], has_more: true },
      { ids: [j4], has_more: true },
      { ids: [j3, j2], has_more: true },
      { ids: [j1], has_more: false },
    ]);

    // tRPC serves the same pages.
    const rpc = await app().rpc("query", "jobs.list", { key: owner.key, input: { starting_after: j5 } });
    expect(rpc.status).toBe(200);
    const rpcPage = JobList.parse(rpc.json);
    expect({ ids: rpcPage.data.map((job) => job.id), has_more: rpcPage.has_more }).toEqual({
      ids: [j4],
      has_more: true,
    });
  });

  it("lists a job whose result alone is over the budget on a page of its own, the first page too", async () => {
    const owner = await app().mintKey();
    const small = await succeededJob(owner, 1_000);
    const large = await succeededJob(owner, 3 * BUDGET);
    expect(await walk(owner, "/v1/jobs")).toEqual([
      { ids: [large], has_more: true },
      { ids: [small], has_more: false },
    ]);
    const only = await listPage(owner, `/v1/jobs?ending_before=${small}`, JobList);
    expect({ ids: only.data.map((job) => job.id), has_more: only.has_more }).toEqual({ ids: [large], has_more: false });
    expect(Buffer.byteLength(JSON.stringify(only.data[0]?.result))).toBe(3 * BUDGET);
  });
});

describe("GET /v1/events, pages bounded by bytes", () => {
  /** The organization's events, most recent first, with the size recorded for each and its data's JSON size. */
  async function eventSizes(owner: TestKey) {
    return app().sql<{ id: string; type: string; data_bytes: number; json_bytes: number }[]>`
      select id, type, data_bytes, octet_length(data::text) as json_bytes from events
       where organization_id = ${owner.organizationId} order by sequence desc`;
  }

  it("records each event's data size, stops a page once the events' data would pass the budget, and the cursors visit every event once, in order, both ways", async () => {
    const owner = await app().mintKey();
    await plantJobs(owner);
    const rows = await eventSizes(owner);
    // Seven job.created, and six job.completed that each carry their job, result and all.
    expect(rows.map((row) => row.type).sort()).toEqual([
      ...Array<string>(6).fill("job.completed"),
      ...Array<string>(7).fill("job.created"),
    ]);
    const sizes = new Map(rows.map((row) => [row.id, row.data_bytes]));
    const order = rows.map((row) => row.id);

    // The recorded size is that of the data's JSON as the API returns it (jsonb's own text, which spaces
    // its separators, runs a little over: what the migration filled older events with).
    for (const id of order) {
      const response = await app().request("GET", `/v1/events/${id}`, { key: owner.key });
      expect(sizes.get(id)).toBe(Buffer.byteLength(JSON.stringify((response.json as { data: unknown }).data)));
    }
    for (const row of rows) expect(row.data_bytes).toBeLessThanOrEqual(row.json_bytes);

    const forwards = await walk(owner, "/v1/events?limit=100");
    expectBoundedWalk(forwards, order, sizes, 100);
    expect(forwards.length).toBeGreaterThan(2);
    // j4's job.completed, over the budget alone, has a page of its own.
    const overBudget = rows.filter((row) => row.data_bytes > BUDGET).map((row) => row.id);
    expect(overBudget).toHaveLength(1);
    expect(forwards.map((page) => page.ids)).toContainEqual(overBudget);

    const oldest = order.at(-1) as string;
    const backwards = await walk(owner, "/v1/events", oldest);
    expectBoundedWalk(backwards, order.slice(0, -1).toReversed(), sizes, 20, "backwards");
    expect(backwards.length).toBeGreaterThan(2);

    // A filter applies before the page is weighed.
    const completed = rows.filter((row) => row.type === "job.completed").map((row) => row.id);
    expectBoundedWalk(await walk(owner, "/v1/events?type=job.completed&limit=3"), completed, sizes, 3);
    const completedBackwards = await walk(owner, "/v1/events?type=job.completed", completed.at(-1));
    expectBoundedWalk(completedBackwards, completed.slice(0, -1).toReversed(), sizes, 20, "backwards");
  });

  it("serves the same pages over tRPC", async () => {
    const owner = await app().mintKey();
    await plantJobs(owner);
    const rest = await listPage(owner, "/v1/events", EventList);
    const rpc = await app().rpc("query", "events.list", { key: owner.key, input: {} });
    expect(rpc.status).toBe(200);
    const rpcPage = EventList.omit({ audit_ref: true }).parse(rpc.json);
    expect({ ids: rpcPage.data.map((event) => event.id), has_more: rpcPage.has_more }).toEqual({
      ids: rest.data.map((event) => event.id),
      has_more: true,
    });
    expect(rest.data.length).toBeLessThan(20);
  });
});
