import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { signWebhookPayload } from "@crs/core";
import { afterEach, describe, expect, it } from "vitest";
import { type ResolvedAddress, type ResolveHostname, sendWebhook } from "../../src/webhooks/http-sender";

// Every server here listens on loopback, and every resolver answers loopback addresses only, so no test
// can open a connection beyond this machine even if the sender misbehaved.

const BODY = JSON.stringify({ id: "evt_01h00000000000000000000000", type: "matter.created", data: { note: "é" } });
const HEADERS = {
  "Content-Type": "application/json",
  "Svc-Signature": signWebhookPayload("whsec_test_only", 1_772_359_200, BODY),
  "Svc-Event-Id": "evt_01h00000000000000000000000",
  "Svc-Event-Type": "matter.created",
};

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface TestServer {
  port: number;
  host: string;
  connections: number;
  received: Received[];
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function track(server: net.Server, state: { connections: number }): Promise<number> {
  const sockets = new Set<net.Socket>();
  server.on("connection", (socket: net.Socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

/** An HTTP receiver on 127.0.0.1 that records each request, then lets `respond` answer it. */
async function startReceiver(
  respond: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<TestServer> {
  const state: TestServer = { port: 0, host: "127.0.0.1", connections: 0, received: [] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      state.received.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      respond(req, res);
    });
  });
  state.port = await track(server, state);
  return state;
}

/** A bare TCP listener that only counts connection attempts. */
async function startConnectionCounter(): Promise<TestServer> {
  const state: TestServer = { port: 0, host: "127.0.0.1", connections: 0, received: [] };
  state.port = await track(
    net.createServer((socket) => socket.destroy()),
    state,
  );
  return state;
}

function resolverAnswering(...addresses: string[]): ResolveHostname & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

const resolverThatMustNotBeCalled: ResolveHostname = async (hostname) => {
  throw new Error(`resolver called for ${hostname}`);
};

describe("sendWebhook over HTTP to a local receiver (sandbox rules)", () => {
  it("POSTs the exact body and headers and reports a 2xx as delivered", async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const result = await sendWebhook({
      url: `http://127.0.0.1:${receiver.port}/hooks/svc?tenant=7`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
      resolve: resolverThatMustNotBeCalled,
    });
    expect(result).toEqual({ ok: true, status: 204, error: null, failure: null, responseBody: "" });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request).toMatchObject({ method: "POST", url: "/hooks/svc?tenant=7", body: BODY });
    expect(request!.headers).toMatchObject({
      host: `127.0.0.1:${receiver.port}`,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(BODY)),
      "svc-signature": HEADERS["Svc-Signature"],
      "svc-event-id": "evt_01h00000000000000000000000",
      "svc-event-type": "matter.created",
    });
  });

  it("resolves a host name once, connects to the checked address and still sends the name as Host", async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end("thanks"));
    const resolve = resolverAnswering("127.0.0.1");
    const result = await sendWebhook({
      url: `http://hooks.example.test:${receiver.port}/in`,
      body: BODY,
      headers: { ...HEADERS, Host: "evil.example", "Content-Length": "1" },
      environment: "sandbox",
      resolve,
    });
    expect(result).toMatchObject({ ok: true, status: 200, responseBody: "thanks" });
    expect(resolve.calls).toEqual(["hooks.example.test"]);
    expect(receiver.received[0]!.headers.host).toBe(`hooks.example.test:${receiver.port}`);
    expect(receiver.received[0]!.body).toBe(BODY);
  });

  it("reaches a receiver on ::1", async () => {
    const state = { connections: 0 };
    const server = http.createServer((_req, res) => res.writeHead(202).end());
    const port = await new Promise<number>((resolve) => {
      server.listen(0, "::1", () => resolve((server.address() as AddressInfo).port));
      server.on("connection", () => state.connections++);
      closers.push(() => new Promise<void>((done) => server.close(() => done())));
    });
    const result = await sendWebhook({
      url: `http://[::1]:${port}/`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
    });
    expect(result).toMatchObject({ ok: true, status: 202 });
    expect(state.connections).toBe(1);
  });

  it("reports a 5xx as a failure carrying its status and the start of the body", async () => {
    const receiver = await startReceiver((_req, res) =>
      res.writeHead(503, { "Retry-After": "30" }).end("down for maintenance"),
    );
    const result = await sendWebhook({
      url: `http://127.0.0.1:${receiver.port}/`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
    });
    expect(result).toEqual({
      ok: false,
      status: 503,
      failure: "http_status",
      error: "the receiver answered 503",
      responseBody: "down for maintenance",
    });
  });

  it("does not follow a redirect, and reports it as a failure with its status", async () => {
    const elsewhere = await startReceiver((_req, res) => res.writeHead(200).end());
    const receiver = await startReceiver((_req, res) =>
      res.writeHead(307, { Location: `http://127.0.0.1:${elsewhere.port}/moved` }).end(),
    );
    const result = await sendWebhook({
      url: `http://127.0.0.1:${receiver.port}/`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
    });
    expect(result).toMatchObject({ ok: false, status: 307, failure: "redirect" });
    expect(receiver.received).toHaveLength(1);
    expect(elsewhere.connections).toBe(0);
  });

  it("gives up on a receiver that never answers once the deadline passes", async () => {
    const receiver = await startReceiver(() => {
      // Never answers.
    });
    const started = performance.now();
    const result = await sendWebhook({
      url: `http://127.0.0.1:${receiver.port}/`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
      timeoutMs: 300,
    });
    const elapsed = performance.now() - started;
    expect(result).toEqual({
      ok: false,
      status: null,
      failure: "timeout",
      error: "no response within 300 ms",
      responseBody: null,
    });
    expect(receiver.received).toHaveLength(1);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(5_000);
  });

  it("is not held past the deadline by a receiver that answers 200 and then stalls the body", async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.write("ok so far");
    });
    const result = await sendWebhook({
      url: `http://127.0.0.1:${receiver.port}/`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ ok: true, status: 200, responseBody: "ok so far" });
  });

  it("reads only a small prefix of a huge response body and closes the connection", async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    let closedEarly: Promise<boolean> = Promise.resolve(false);
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { "Content-Length": String(total) });
      closedEarly = new Promise((resolve) => res.on("close", () => resolve(written < total)));
      const chunk = Buffer.alloc(64 * 1024, "x");
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const result = await sendWebhook({
      url: `http://127.0.0.1:${receiver.port}/`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
      maxResponseBytes: 512,
    });
    expect(result).toMatchObject({ ok: true, status: 200, responseBody: "x".repeat(512) });
    expect(await closedEarly).toBe(true);
  });

  it("reports a refused connection as a failure instead of throwing", async () => {
    const closed = net.createServer();
    const port = await new Promise<number>((resolve) =>
      closed.listen(0, "127.0.0.1", () => resolve((closed.address() as AddressInfo).port)),
    );
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await sendWebhook({
      url: `http://127.0.0.1:${port}/`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
    });
    expect(result).toMatchObject({ ok: false, status: null, failure: "connection_failed" });
    expect(result.error).toContain("ECONNREFUSED");
  });

  it("reports a failed lookup and a lookup that outlives the deadline as failures", async () => {
    const failing: ResolveHostname = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND hooks.example.test"), { code: "ENOTFOUND" });
    };
    const base = { url: "http://hooks.example.test/", body: BODY, headers: HEADERS, environment: "sandbox" as const };
    expect(await sendWebhook({ ...base, resolve: failing })).toMatchObject({ ok: false, failure: "dns_failed" });
    const hanging: ResolveHostname = () => new Promise(() => {});
    expect(await sendWebhook({ ...base, resolve: hanging, timeoutMs: 100 })).toMatchObject({
      ok: false,
      failure: "timeout",
    });
    const throwsSynchronously = (() => {
      throw new Error("resolver bug");
    }) as unknown as ResolveHostname;
    expect(await sendWebhook({ ...base, resolve: throwsSynchronously })).toMatchObject({ failure: "dns_failed" });
  });

  it("stops when the caller's signal aborts", async () => {
    const receiver = await startReceiver(() => {});
    const controller = new AbortController();
    const pending = sendWebhook({
      url: `http://127.0.0.1:${receiver.port}/`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    expect(await pending).toMatchObject({ ok: false, failure: "aborted" });
  });
});

describe("sendWebhook over HTTPS", () => {
  it("sends the registered host name as SNI and refuses a certificate it cannot verify", async () => {
    const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
    const serverNames: string[] = [];
    const server = https.createServer(
      {
        key: fixture("test-receiver.key.pem"),
        cert: fixture("test-receiver.cert.pem"),
        SNICallback: (name, done) => {
          serverNames.push(name);
          done(null);
        },
      },
      (_req, res) => res.writeHead(200).end(),
    );
    const state = { connections: 0 };
    const port = await track(server, state);
    const result = await sendWebhook({
      url: `https://hooks.example.test:${port}/in`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
      resolve: resolverAnswering("127.0.0.1"),
    });
    expect(serverNames).toEqual(["hooks.example.test"]);
    expect(result).toMatchObject({ ok: false, status: null, failure: "connection_failed" });
    expect(result.error).toMatch(/self[- ]signed/i);
  });
});

describe("sendWebhook under live rules", () => {
  it("refuses a name that resolves to loopback without opening any connection", async () => {
    const counter = await startConnectionCounter();
    for (const answer of [["127.0.0.1"], ["::1"], ["::ffff:127.0.0.1"], ["127.0.0.1", "::1"]]) {
      const resolve = resolverAnswering(...answer);
      const result = await sendWebhook({
        url: `https://hooks.example.test:${counter.port}/in`,
        body: BODY,
        headers: HEADERS,
        environment: "live",
        resolve,
      });
      expect(result).toMatchObject({ ok: false, status: null, failure: "target_refused" });
      expect(result.error).toMatch(/^hooks\.example\.test: webhook target address .* is loopback/);
      expect(resolve.calls).toEqual(["hooks.example.test"]);
    }
    expect(counter.connections).toBe(0);
  });

  it("refuses a loopback IP literal and plain http without resolving or connecting", async () => {
    const counter = await startConnectionCounter();
    for (const url of [
      `https://127.0.0.1:${counter.port}/`,
      `https://0x7f.1:${counter.port}/`,
      `https://[::ffff:127.0.0.1]:${counter.port}/`,
      `http://hooks.example.test:${counter.port}/`,
      `https://localhost:${counter.port}/`,
    ]) {
      const result = await sendWebhook({
        url,
        body: BODY,
        headers: HEADERS,
        environment: "live",
        resolve: resolverThatMustNotBeCalled,
      });
      expect(result).toMatchObject({ ok: false, failure: "target_refused" });
    }
    expect(counter.connections).toBe(0);
  });

  it("lets an explicit policy hold a sandbox to the live address rules", async () => {
    const counter = await startConnectionCounter();
    const result = await sendWebhook({
      url: `http://hooks.example.test:${counter.port}/`,
      body: BODY,
      headers: HEADERS,
      environment: "sandbox",
      policy: { protocols: ["http:", "https:"], addressClasses: ["public"], refuseLocalNames: true },
      resolve: resolverAnswering("127.0.0.1"),
    });
    expect(result).toMatchObject({ ok: false, failure: "target_refused" });
    expect(counter.connections).toBe(0);
  });
});
