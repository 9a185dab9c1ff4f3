/**
 * Another writer of one organization, as a child of jobs.bench.ts: takes the organization's chain head
 * (as every write of it does to append its event) and releases it at once, in a loop, 5 ms apart.
 *
 * Protocol: forked with an IPC channel; sends `{ ready: true }` once connected, and on any message from
 * the parent stops and sends `{ longestWaitMs }`, the longest it took to take the head.
 */
import postgres from "postgres";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`chain-head-probe: ${name} is not set`);
  return value;
}

const sql = postgres(required("PROBE_DATABASE_URL"), { max: 1, onnotice: () => {} });
const organizationId = required("PROBE_ORGANIZATION_ID");
const environment = required("PROBE_ENVIRONMENT");
let running = true;
let longest = 0;
process.once("message", () => {
  running = false;
});
await sql`select 1`;
process.send?.({ ready: true });
while (running) {
  const start = performance.now();
  await sql.begin(
    (tx) =>
      tx`select 1 from chain_heads where organization_id = ${organizationId} and environment = ${environment} for update`,
  );
  longest = Math.max(longest, performance.now() - start);
  await new Promise((resolve) => setTimeout(resolve, 5));
}
await sql.end();
process.send?.({ longestWaitMs: longest }, () => process.exit(0));
