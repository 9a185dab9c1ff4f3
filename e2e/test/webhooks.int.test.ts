/**
 * Webhooks end to end, with the real processes: the REST app and the worker run as `pnpm start` runs
 * them (node + tsx, their own environment, production delivery settings), and a receiver on 127.0.0.1
 * verifies every delivery with our helper and, independently, with the stripe package. Then the worker
 * is killed with SIGKILL in the middle of a delivery and started again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyWebhookSignature } from "@crs/client";
import type { CreatedWebhookEndpoint, Event, SandboxKey, WebhookDelivery } from "@crs/contract";
import { createTestDatabase } from "@crs/db/testing";
import postgres from "postgres";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  childEnv,
  describeOutput,
  exitWithin,
  freePorts,
  HOST,
  httpOk,
  killTree,
  type RunningProcess,
  repoRoot,
  startNode,
  TEST_SECRETS_ENV,
  waitUntil,
} from "./support/processes";

const stripe = new Stripe("sk_test_not_used_no_request_is_made");

interface Received {
  eventId: string;
  eventType: string;
  body: string;
  /** both verifiers accepted the signature */
  verified: boolean;
  /** the status answered, or null when the connection closed before an answer (the worker died) */
  answered: number | null;
}

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let sql: postgres.Sql | undefined;
let dataDir = "";
let restUrl = "";
let rest: RunningProcess | undefined;
let worker: RunningProcess | undefined;
const workers: RunningProcess[] = [];
let receiverServer: http.Server | undefined;
let receiverUrl = "";
let signingSecret = "";
/** the fallback URL's secret, printed by the operator command */
let fallbackSecret = "";
const received: Received[] = [];
/** event types whose first delivery the receiver holds open without answering */
const holdFirst = new Set<string>();
/** every API answer the test read, as text, to search for the secret */
const answers: string[] = [];

function startWorker(): RunningProcess {
  const proc = startNode(
    `worker #${workers.length + 1}`,
    ["--import", "tsx", join(repoRoot, "apps", "worker", "src", "main.ts")],
    childEnv({
      DATABASE_URL: database?.url ?? "",
      DATA_DIR: dataDir,
      SKIP_MIGRATIONS: "1",
      APP_ENV: "development",
      WORKER_CONCURRENCY: "4",
      ...TEST_SECRETS_ENV,
    }),
  );
  workers.push(proc);
  return proc;
}

async function call<T>(
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${restUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, body: JSON.parse(text) as T };
}

async function startReceiver(): Promise<void> {
  receiverServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const header = req.headers["svc-signature"] as string | undefined;
      const secret = req.url === "/fallback" ? fallbackSecret : signingSecret;
      let verified = false;
      try {
        verifyWebhookSignature(body, header, secret);
        stripe.webhooks.constructEvent(body, header ?? "", secret);
        verified = true;
      } catch {
        verified = false;
      }
      const entry: Received = {
        eventId: String(req.headers["svc-event-id"]),
        eventType: String(req.headers["svc-event-type"]),
        body,
        verified,
        answered: null,
      };
      received.push(entry);
      if (holdFirst.delete(entry.eventType)) return; // held open: the worker dies with this request in flight
      entry.answered = verified ? 200 : 400;
      res.writeHead(entry.answered).end();
    });
  });
  await new Promise<void>((resolve) => receiverServer?.listen(0, HOST, resolve));
  receiverUrl = `http://${HOST}:${(receiverServer.address() as AddressInfo).port}/hooks`;
}

beforeAll(async () => {
  database = await createTestDatabase();
  sql = postgres(database.url, { max: 2, onnotice: () => {} });
  dataDir = mkdtempSync(join(tmpdir(), "crs-e2e-webhooks-"));
  await startReceiver();
  const [port] = await freePorts(1);
  restUrl = `http://${HOST}:${port}`;
  rest = startNode(
    "rest",
    ["--import", "tsx", join(repoRoot, "apps", "rest", "src", "main.ts")],
    childEnv({
      DATABASE_URL: database.url,
      REST_PORT: String(port),
      LEGACY_PORT: "0",
      HOST,
      DATA_DIR: dataDir,
      SKIP_MIGRATIONS: "1",
      LOG_LEVEL: "info",
      APP_ENV: "development",
      ...TEST_SECRETS_ENV,
    }),
  );
  worker = startWorker();
  await waitUntil("REST to answer GET /v1/health", () => httpOk(`${restUrl}/v1/health`), [rest]);
  await waitUntil("the worker to run", async () => worker?.output().includes("worker running") ?? false, [worker]);
});

afterAll(async () => {
  for (const proc of [...workers, rest]) await killTree(proc);
  await new Promise<void>((resolve) => (receiverServer ? receiverServer.close(() => resolve()) : resolve()));
  receiverServer?.closeAllConnections();
  await sql?.end();
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface DeliveryList {
  data: WebhookDelivery[];
  has_more: boolean;
}

let key = "";
let endpointId = "";

async function deliveries(): Promise<WebhookDelivery[]> {
  const page = await call<DeliveryList>("GET", `/v1/webhook_endpoints/${endpointId}/deliveries?limit=100`, key);
  expect(page.status).toBe(200);
  return page.body.data;
}

async function events(): Promise<Event[]> {
  const page = await call<{ data: Event[] }>("GET", "/v1/events?limit=100", key);
  expect(page.status).toBe(200);
  return page.body.data;
}

describe("webhooks over real HTTP, with the real processes", () => {
  it("delivers every event to the receiver, each one verified by our helper and by the stripe package", async () => {
    const mint = await fetch(`${restUrl}/api/sandbox-key`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    key = ((await mint.json()) as SandboxKey).key;

    const created = await call<CreatedWebhookEndpoint>("POST", "/v1/webhook_endpoints", key, { url: receiverUrl });
    expect(created.status).toBe(201);
    endpointId = created.body.id;
    signingSecret = created.body.signing_secret;

    const matter = await call<{ id: string }>("POST", "/v1/matters", key, { name: "Acme v. Doe" });
    expect(matter.status).toBe(201);
    expect((await call("PATCH", `/v1/matters/${matter.body.id}`, key, { notes: "Judgment entered." })).status).toBe(
      200,
    );
    expect((await call("POST", `/v1/matters/${matter.body.id}/close`, key, { reason: "paid" })).status).toBe(200);

    const all = await events();
    expect(all.map((e) => e.type).sort()).toEqual(
      ["matter.closed", "matter.created", "matter.updated", "webhook_endpoint.created"].sort(),
    );
    await waitUntil(
      "every event to be delivered",
      async () => (await deliveries()).filter((d) => d.status === "delivered").length === all.length,
      [rest as RunningProcess, worker as RunningProcess],
    );
    for (const event of all) {
      const copies = received.filter((r) => r.eventId === event.id);
      expect(copies).toHaveLength(1);
      expect(copies[0]).toMatchObject({ verified: true, answered: 200, eventType: event.type });
      // The body is the event exactly as GET /v1/events/{id} returns it.
      const single = await fetch(`${restUrl}/v1/events/${event.id}`, { headers: { authorization: `Bearer ${key}` } });
      expect(copies[0]?.body).toBe(await single.text());
    }
    for (const delivery of await deliveries()) {
      expect(delivery).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 200, last_error: null });
    }
  });

  it("completes a delivery whose worker was killed with SIGKILL mid-request, after a restart; nothing is lost", async () => {
    const running = worker as RunningProcess;
    holdFirst.add("matter.created");
    const matter = await call<{ id: string }>("POST", "/v1/matters", key, { name: "Killed mid-delivery v. Doe" });
    expect(matter.status).toBe(201);
    const createdEvent = (await events()).find(
      (e) => e.type === "matter.created" && e.data.matter_id === matter.body.id,
    );
    if (!createdEvent) throw new Error("no matter.created event");
    await waitUntil(
      "the delivery to reach the receiver",
      async () => received.some((r) => r.eventId === createdEvent.id),
      [running],
    );

    running.child.kill("SIGKILL");
    const exit = await running.exited;
    expect(exit.signal).toBe("SIGKILL");
    const inFlight = (await deliveries()).find((d) => d.event_id === createdEvent.id);
    expect(inFlight).toMatchObject({ status: "delivering", attempts: 1, delivered_at: null });

    // Events keep being written while no worker runs; their deliveries wait, queued.
    expect((await call("PATCH", `/v1/matters/${matter.body.id}`, key, { notes: "Written while down." })).status).toBe(
      200,
    );

    // Once the dead worker's lease has lapsed, a new worker's start-up sweep hands the delivery back.
    await waitUntil("the dead worker's lease to lapse", async () => {
      const [row] = await (sql as postgres.Sql)<{ lapsed: boolean }[]>`
          select lease_expires_at < now() as lapsed from webhook_deliveries
           where event_id = ${createdEvent.id} and webhook_endpoint_id = ${endpointId}`;
      return row?.lapsed === true;
    }, [rest as RunningProcess]);
    const restarted = startWorker();
    worker = restarted;
    await waitUntil(
      "every event to be delivered after the restart",
      async () => {
        const [all, list] = [await events(), await deliveries()];
        return all.length === list.length && list.every((d) => d.status === "delivered");
      },
      [rest as RunningProcess, restarted],
      60_000,
    );

    const recovered = (await deliveries()).find((d) => d.event_id === createdEvent.id);
    expect(recovered).toMatchObject({ status: "delivered", attempts: 2, last_status_code: 200 });
    // At least once: the receiver saw it twice, the first time cut off unanswered by the kill.
    expect(received.filter((r) => r.eventId === createdEvent.id).map((r) => r.answered)).toEqual([null, 200]);
    // No event lost, and none marked delivered without a 2xx answer to it.
    const all = await events();
    const list = await deliveries();
    expect(new Set(list.map((d) => d.event_id))).toEqual(new Set(all.map((e) => e.id)));
    for (const delivery of list) {
      expect(received.some((r) => r.eventId === delivery.event_id && r.answered === 200)).toBe(true);
    }
    for (const copy of received) expect(copy.verified).toBe(true);
  });

  it("lets an operator set a sandbox organization's fallback URL by command; every event then reaches it, signed", async () => {
    const runCommand = async (...args: string[]) => {
      const proc = startNode(
        "webhooks command",
        ["--import", "tsx", "scripts/webhooks.ts", ...args],
        childEnv({ DATABASE_URL: database?.url ?? "", DATA_DIR: dataDir, SKIP_MIGRATIONS: "1", ...TEST_SECRETS_ENV }),
      );
      const exit = await exitWithin(proc, 60_000);
      return { code: exit.code, output: proc.output() };
    };
    const help = await runCommand("--help");
    expect(help.code).toBe(0);
    expect(help.output).toContain("pnpm webhooks:fallback --org org_… --url <url>");

    const mint = await fetch(`${restUrl}/api/sandbox-key`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    const other = (await mint.json()) as SandboxKey;
    const fallbackUrl = receiverUrl.replace(/\/hooks$/, "/fallback");
    const set = await runCommand("fallback", "--org", other.organization_id, "--url", fallbackUrl);
    expect(set.code, set.output).toBe(0);
    const printed = JSON.parse(set.output.slice(set.output.indexOf("{"), set.output.lastIndexOf("}") + 1)) as {
      url: string;
      signing_secret: string;
      organization_id: string;
    };
    expect(printed).toMatchObject({ organization_id: other.organization_id, url: fallbackUrl });
    fallbackSecret = printed.signing_secret;
    const organization = await call<{ webhook_fallback_url: string }>("GET", "/v1/organization", other.key);
    expect(organization.body.webhook_fallback_url).toBe(fallbackUrl);

    const matter = await call<{ id: string }>("POST", "/v1/matters", other.key, { name: "Fallback v. Doe" });
    expect(matter.status).toBe(201);
    const [event] = (await call<{ data: Event[] }>("GET", "/v1/events?limit=1", other.key)).body.data;
    await waitUntil(
      "the fallback delivery",
      async () => received.some((r) => r.eventId === event?.id && r.answered === 200),
      [rest as RunningProcess, worker as RunningProcess],
    );
    expect(received.filter((r) => r.eventId === event?.id)).toEqual([
      expect.objectContaining({ verified: true, answered: 200, eventType: "matter.created" }),
    ]);

    const refused = await runCommand("fallback", "--org", other.organization_id, "--url", "ftp://127.0.0.1/x");
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("invalid_request");
    expect(refused.output).not.toContain(fallbackSecret);
  });

  it("shows the signing secret in the create answer only: not in any other answer, event, record or log line", async () => {
    expect(signingSecret).toMatch(/^whsec_/);
    const createAnswers = answers.filter((text) => text.includes('"signing_secret"'));
    expect(createAnswers).toHaveLength(1);
    const elsewhere = answers.filter((text) => !text.includes('"signing_secret"'));
    expect(elsewhere.length).toBeGreaterThan(10);
    for (const text of elsewhere) expect(text).not.toContain(signingSecret);

    const tables = await (sql as postgres.Sql)`
      select (select json_agg(e) from events e)::text as events,
             (select json_agg(d) from webhook_deliveries d)::text as deliveries,
             (select json_agg(w) from webhook_endpoints w)::text as endpoints,
             (select json_agg(i) from idempotency_records i)::text as idempotency,
             (select json_agg(j) from graphile_worker._private_jobs j)::text as jobs`;
    expect(fallbackSecret).toMatch(/^whsec_/);
    for (const secret of [signingSecret, fallbackSecret]) {
      expect(JSON.stringify(tables)).not.toContain(secret);
      for (const proc of [rest as RunningProcess, ...workers]) {
        expect(proc.output().length, describeOutput(proc)).toBeGreaterThan(0);
        expect(proc.output()).not.toContain(secret);
      }
      for (const copy of received) expect(copy.body).not.toContain(secret);
    }
    for (const text of answers) expect(text).not.toContain(fallbackSecret);
  });
});
