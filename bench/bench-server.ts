/**
 * One server under test, run as a child process of matters.bench.ts so that autocannon (in the
 * parent) and the server do not share an event loop. `ours` is the real REST app; `baseline` is
 * bare node:http + postgres.js doing the same row read, and for POST the chained write at its
 * smallest: BEGIN; chain head FOR UPDATE; INSERT the matter; sha256; INSERT the event; UPDATE the
 * head; COMMIT (one chain per key, so the same contention as ours); for GET /v1/events the same keyset
 * page of an organization's events, shaped as the list envelope.
 *
 * Protocol: the parent forks this file with an IPC channel; once listening on 127.0.0.1 (port 0)
 * it sends `{ port }`; on the message "stop", on SIGTERM/SIGINT, or when the parent goes away it
 * closes the listener and its pool and exits.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { completeMatterEconomics } from "@crs/core";
import { newId } from "@crs/db";
import { createServiceDeps } from "@crs/services";
import postgres from "postgres";
import { buildRestApp } from "../apps/rest/src/app";

export interface BenchServerReady {
  port: number;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`bench-server: ${name} is not set`);
  return value;
}

const mode = process.argv[2];
const databaseUrl = required("BENCH_DATABASE_URL");
const poolSize = Number(required("BENCH_POOL_SIZE"));

let stopping = false;
async function serve(): Promise<{ port: number; close: () => Promise<void> }> {
  if (mode === "ours") {
    const secrets = JSON.parse(required("BENCH_SECRETS")) as {
      keySigningSecret: string;
      eventSigningSeed: string;
      webhookSecretKey: string;
    };
    const deps = createServiceDeps({ databaseUrl, secrets, publicBaseUrl: "http://127.0.0.1", poolSize });
    const app = await buildRestApp({ deps, logLevel: "silent" });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as AddressInfo;
    return {
      port,
      close: async () => {
        await app.close();
        await deps.close();
      },
    };
  }
  if (mode === "baseline") return serveBaseline();
  throw new Error(`bench-server: unknown mode ${String(mode)} (ours | baseline)`);
}

/** The floor: the same SELECT by (organization_id, id), and the chained INSERT, nothing else. */
async function serveBaseline(): Promise<{ port: number; close: () => Promise<void> }> {
  const organizationId = required("BENCH_ORGANIZATION_ID");
  const environment = required("BENCH_ENVIRONMENT");
  const sql = postgres(databaseUrl, { max: poolSize, onnotice: () => {} });

  const send = (response: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    response.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    response.end(text);
  };
  const readBody = (request: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      request.on("error", reject);
    });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    const matterPath = /^\/v1\/matters\/([^/]+)$/.exec(path);
    if (request.method === "GET" && matterPath?.[1]) {
      const [row] = await sql`
        select * from matters where organization_id = ${organizationId} and id = ${matterPath[1]}`;
      return row ? send(response, 200, row) : send(response, 404, { error: "not_found" });
    }
    if (request.method === "GET" && path === "/v1/events") {
      // The same keyset page as ours (newest first, one row more to know has_more), for the organization
      // named in the query: the floor has no keys.
      const query = new URLSearchParams((request.url ?? "").split("?")[1] ?? "");
      const limit = Number(query.get("limit") ?? 20);
      const rows = await sql`
        select * from events where organization_id = ${query.get("organization") ?? ""} and environment = ${environment}
         order by sequence desc limit ${limit + 1}`;
      const data = rows.slice(0, limit).map((row) => ({
        id: row.id,
        object: "event",
        type: row.type,
        created: (row.created as Date).toISOString(),
        livemode: row.livemode,
        api_version: row.api_version,
        data: row.data,
        audit_ref: row.audit_ref,
        sequence: Number(row.sequence),
        prev_hash: row.prev_hash,
        hash: row.hash,
        signature: row.signature,
      }));
      return send(response, 200, { object: "list", data, has_more: rows.length > limit, url: "/v1/events" });
    }
    if (request.method === "POST" && path === "/v1/matters") {
      const body = JSON.parse(await readBody(request)) as { name?: unknown; mode?: unknown };
      if (typeof body.name !== "string") return send(response, 422, { error: "name" });
      const now = new Date();
      const requestId = newId("request");
      const row = await sql.begin(async (tx) => {
        const [head] = await tx<{ head_sequence: string; head_hash: string }[]>`
          insert into chain_heads (organization_id, environment, head_sequence, head_hash)
          values (${organizationId}, ${environment}, 0, ${"0".repeat(64)})
          on conflict (organization_id, environment) do update set head_sequence = chain_heads.head_sequence
          returning head_sequence, head_hash`;
        const [matter] = await tx`
          insert into matters (organization_id, environment, id, name, mode, economics, status,
                               created_at, updated_at, last_request_id, last_actor_id)
          values (${organizationId}, ${environment}, ${newId("matter")}, ${body.name as string},
                  ${typeof body.mode === "string" ? body.mode : "recovery"},
                  ${sql.json({ ...completeMatterEconomics(undefined) })}, 'active',
                  ${now}, ${now}, ${requestId}, 'baseline')
          returning *`;
        const sequence = Number(head?.head_sequence) + 1;
        const prevHash = head?.head_hash ?? "";
        const event = { id: newId("event"), type: "matter.created", sequence, prev_hash: prevHash, data: matter };
        const hash = createHash("sha256")
          .update(`${prevHash}\n${JSON.stringify(event)}`)
          .digest("hex");
        await tx`
          insert into events (organization_id, environment, sequence, id, type, created, livemode, api_version,
                              data, audit_ref, matter_id, prev_hash, hash, signature)
          values (${organizationId}, ${environment}, ${sequence}, ${event.id}, 'matter.created', ${now}, false,
                  '2026-07-05', ${sql.json(event.data as postgres.JSONValue)}, ${requestId}, ${matter?.id as string},
                  ${prevHash}, ${hash}, '')`;
        await tx`
          update chain_heads set head_sequence = ${sequence}, head_hash = ${hash}
           where organization_id = ${organizationId} and environment = ${environment}`;
        return matter;
      });
      return send(response, 201, row);
    }
    return send(response, 404, { error: "not_found" });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: String(error) });
      else response.destroy();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sql.end({ timeout: 5 });
    },
  };
}

const running = await serve();
const stop = async () => {
  if (stopping) return;
  stopping = true;
  try {
    await running.close();
  } finally {
    process.exit(0);
  }
};
process.on("message", (message) => {
  if (message === "stop") void stop();
});
process.on("disconnect", () => void stop());
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
const ready: BenchServerReady = { port: running.port };
process.send?.(ready);
