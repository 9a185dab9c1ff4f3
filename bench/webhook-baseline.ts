/**
 * The floor: a plain loop of signed HTTP POSTs to the same receiver, as a child of webhooks.bench.ts. Each
 * request is a real event body signed the same way (HMAC-SHA256 over "<t>.<body>"), on a new connection like
 * the worker's sender (no keep-alive), `BENCH_CONCURRENCY` at a time. No database, no queue, no claim.
 *
 * Protocol: forked with an IPC channel; sends `{ done: true, failures, cpu }` (the CPU it used from its first
 * request on, like the worker's, which is counted from its ready message) when every request has answered.
 */
import { createHmac } from "node:crypto";
import http from "node:http";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`webhook-baseline: ${name} is not set`);
  return value;
}

const url = new URL(required("BENCH_RECEIVER_URL"));
const count = Number(required("BENCH_COUNT"));
const concurrency = Number(required("BENCH_CONCURRENCY"));
const body = required("BENCH_BODY");
const secret = required("BENCH_SECRET");

function post(index: number): Promise<boolean> {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  const bytes = Buffer.from(body, "utf8");
  return new Promise((resolve) => {
    const request = http.request(
      {
        method: "POST",
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        agent: false,
        headers: {
          "content-type": "application/json; charset=utf-8",
          "content-length": bytes.length,
          "svc-signature": `t=${timestamp},v1=${signature}`,
          "svc-event-id": `baseline_${index}`,
          "svc-event-type": "matter.created",
          "x-sent-at": String(performance.timeOrigin + performance.now()),
        },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve((response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300));
      },
    );
    request.on("error", () => resolve(false));
    request.end(bytes);
  });
}

let next = 0;
let failures = 0;
async function lane(): Promise<void> {
  while (next < count) {
    const index = next++;
    if (!(await post(index))) failures++;
  }
}
const cpuAtStart = process.cpuUsage();
await Promise.all(Array.from({ length: concurrency }, lane));
process.send?.({ done: true, failures, cpu: process.cpuUsage(cpuAtStart) });
process.disconnect?.();
