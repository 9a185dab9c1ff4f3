import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { classifyAddress, type Environment } from "@crs/core";
import {
  issueSandboxKey,
  type ResolvedAddress,
  type ResolveHostname,
  runWrite,
  type ServiceDeps,
  systemActor,
} from "@crs/services";

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** the raw body, exactly as received */
  body: string;
  receivedAt: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** wait this long (or for this promise) before answering */
  delay?: number | Promise<void>;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** the answers sent, in order, with when each went out */
  answered: { status: number; at: number; eventId: string | undefined }[];
  /** TCP connections accepted so far */
  connections(): number;
  /** requests in progress right now, and the most there ever were at once */
  inFlight(): number;
  maxInFlight(): number;
  close(): Promise<void>;
}

/** An HTTP receiver on 127.0.0.1 that records every request and answers as `respond` says. */
export async function startReceiver(respond: (request: ReceivedRequest, index: number) => Answer): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const answered: Receiver["answered"] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const request: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      };
      received.push(request);
      const answer = respond(request, received.length - 1);
      if (typeof answer.delay === "number") await new Promise((resolve) => setTimeout(resolve, answer.delay as number));
      else if (answer.delay) await answer.delay;
      inFlight--;
      if (res.destroyed) return;
      answered.push({ status: answer.status, at: Date.now(), eventId: req.headers["svc-event-id"] as string });
      res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
      res.end("ok");
    });
  });
  server.on("connection", (socket: net.Socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    answered,
    connections: () => connections,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A resolver whose answers a test sets per name; an unknown name does not resolve. */
export function createSwitchableResolver(): ResolveHostname & { set(hostname: string, addresses: string[]): void } {
  const table = new Map<string, string[]>();
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    const addresses = table.get(hostname.toLowerCase());
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(resolve, {
    set: (hostname: string, addresses: string[]) => void table.set(hostname.toLowerCase(), addresses),
  });
}

interface ConnectTarget {
  host: string;
  port: number | undefined;
}

function connectTarget(args: unknown[]): ConnectTarget | null {
  const [first, second] = args;
  if (typeof first === "object" && first !== null) {
    const options = first as { host?: string; port?: number; path?: string };
    if (options.path !== undefined) return null;
    return { host: options.host ?? "localhost", port: options.port };
  }
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    return { host: typeof second === "string" ? second : "localhost", port: Number(first) };
  }
  return null;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || classifyAddress(host)?.class === "loopback";
}

/**
 * A safety net for this test process: every TCP connection to anything but the loopback range
 * (127.0.0.0/8, ::1) is refused before it is attempted, and recorded, so a test can assert that none was
 * even tried. The code under test is expected never to get here; the net only makes "never connects
 * outside this machine" hold even if it did.
 */
export function guardLoopbackOnly(): { refused: ConnectTarget[]; restore(): void } {
  const refused: ConnectTarget[] = [];
  const original = net.Socket.prototype.connect;
  const guarded = function (this: net.Socket, ...args: unknown[]) {
    const target = connectTarget(args);
    if (target && !isLoopback(target.host)) {
      refused.push(target);
      process.nextTick(() => this.destroy(new Error(`test network guard: no connection to ${target.host}`)));
      return this;
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  };
  net.Socket.prototype.connect = guarded as typeof net.Socket.prototype.connect;
  return {
    refused,
    restore: () => {
      net.Socket.prototype.connect = original;
    },
  };
}

/** A tenant of the webhook tests. */
export interface Org {
  organizationId: string;
  environment: Environment;
}

export async function mintSandboxOrg(deps: ServiceDeps): Promise<Org> {
  const minted = await issueSandboxKey(deps);
  return { organizationId: minted.organization_id, environment: "sandbox" };
}

/** Runs `run` as a write of the system actor in `org`, as the API would. */
export function writeAs<T>(deps: ServiceDeps, org: Org, run: Parameters<typeof runWrite<T>>[2]): Promise<T> {
  return runWrite(deps, systemActor(org, "test", deps.newId("request")), run);
}
