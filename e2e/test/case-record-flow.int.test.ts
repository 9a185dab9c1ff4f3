/**
 * The full canonical flow, against the real processes `pnpm start` runs: create a matter, add a debtor
 * and two claimants (0.6 / 0.4), intake the judgment, validate it (ready), set the enforcement posture,
 * record a recovery event, assemble an exchange_freeze packet, export it as a PDF and download it,
 * calculate the waterfall, read the dashboard and verify the event chain.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInternalClient, withIdempotencyKey } from "@crs/client";
import {
  type ChainVerification,
  EnforcementPosture,
  type Event,
  Judgment,
  JudgmentValidation,
  Matter,
  MatterDashboard,
  Packet,
  PacketExport,
  Party,
  RecoveryEvent,
  type SandboxKey,
  Waterfall,
} from "@crs/contract";
import { canonicalize } from "@crs/core";
import { createTestDatabase } from "@crs/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, withoutAuditRef } from "./support/http";
import {
  descendantsOf,
  describeOutput,
  exitWithin,
  killTree,
  type RunningProcess,
  startPnpmStart,
} from "./support/processes";

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let dataDir: string | undefined;
let start: RunningProcess | undefined;
const spawnedPids = new Set<number>();
let restUrl = "";
let trpcUrl = "";

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), "crs-e2e-case-"));
  ({ restUrl, trpcUrl } = await startPnpmStart({ databaseUrl: database.url, dataDir }, (launcher) => {
    start = launcher;
    for (const pid of descendantsOf(launcher.pid)) spawnedPids.add(pid);
  }));
});

afterAll(async () => {
  await killTree(start, spawnedPids);
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

type Body<T> = T & { audit_ref: string };

describe("pnpm start: the full canonical flow", () => {
  let key = "";
  let matter: Matter | undefined;
  let judgment: Judgment | undefined;
  let recoveryEvent: RecoveryEvent | undefined;
  let packet: Packet | undefined;
  const claimantIds: string[] = [];
  const auditRefs: string[] = [];

  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} was not created by an earlier step`);
    return value;
  };

  it("mints a sandbox key and creates a matter", async () => {
    const minted = await api<Body<SandboxKey>>(`${restUrl}/api/sandbox-key`, { method: "POST", body: {} });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    key = minted.body.key;
    const created = await api<Body<Matter>>(`${restUrl}/v1/matters`, {
      method: "POST",
      key,
      body: { name: "Acme Holdings v. Doe Trading", lead_counsel: "Jane Counsel" },
      headers: { "Idempotency-Key": "e2e-case-matter" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    matter = Matter.parse(created.body);
    auditRefs.push(created.body.audit_ref);
  });

  it("adds a debtor and two claimants, 0.6 and 0.4, and refuses a third share", async () => {
    const matterId = need(matter, "the matter").id;
    const add = (body: Record<string, unknown>) =>
      api<Body<Party>>(`${restUrl}/v1/parties`, { method: "POST", key, body: { matter_id: matterId, ...body } });
    const debtor = await add({ role: "debtor", name: "Doe Trading", legal_name: "Doe Trading Ltd", type: "entity" });
    const first = await add({ role: "claimant", name: "Acme Holdings", legal_name: "Acme Holdings LLC", share: 0.6 });
    const second = await add({ role: "claimant", name: "Beta Fund", share: 0.4, wallets: ["bc1qexampleclaimant"] });
    for (const created of [debtor, first, second]) {
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      auditRefs.push(created.body.audit_ref);
    }
    claimantIds.push(first.body.id, second.body.id);
    expect(Party.parse(second.body).wallets).toEqual([{ address: "bc1qexampleclaimant", network: null, label: null }]);
    const third = await add({ role: "claimant", name: "Latecomer", share: 0.01 });
    expect(third.status).toBe(422);

    const listed = await api<{ data: Party[] }>(`${restUrl}/v1/matters/${matterId}/parties?role=claimant`, { key });
    expect(listed.body.data.map((party) => party.share).sort()).toEqual([0.4, 0.6]);
  });

  it("takes the judgment in with all eight fields, with its computed deadlines", async () => {
    const matterId = need(matter, "the matter").id;
    const response = await api<Body<Judgment>>(`${restUrl}/v1/judgments/intake`, {
      method: "POST",
      key,
      body: {
        matter_id: matterId,
        court: "Superior Court of California, County of Los Angeles",
        case_number: "23STCV01234",
        jurisdiction: "US-CA",
        creditor: "Acme Holdings LLC",
        debtor: "Doe Trading Ltd",
        amount: 250000,
        date_entered: "2024-03-15",
      },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    judgment = Judgment.parse(response.body);
    auditRefs.push(response.body.audit_ref);
    expect(judgment).toMatchObject({ amount: 250000, currency: "USD", status: "active" });
    expect(judgment.deadlines.find((deadline) => deadline.type === "renewal")).toMatchObject({
      date: "2034-03-15",
      owner: "Jane Counsel",
      status: "open",
    });
  });

  it("validates it as ready over tRPC, and reads the legacy shape over REST", async () => {
    const judgmentId = need(judgment, "the judgment").id;
    const client = createInternalClient({ url: trpcUrl, apiKey: key });
    const validation = await client.judgments.validate.mutate(
      { judgment_id: judgmentId, consumer_debt: false },
      withIdempotencyKey("e2e-validate"),
    );
    expect(JudgmentValidation.parse(validation)).toMatchObject({
      ready: true,
      enforcement_ready: true,
      missing_items: [],
    });

    const legacy = await api<{ enforcement_ready: boolean; gates: { gate: string; status: string }[] }>(
      `${restUrl}/v1/judgments/${judgmentId}/validate`,
      { method: "POST", key, body: { consumer_debt: false }, headers: { "Svc-Version": "2026-06-11" } },
    );
    expect(legacy.status).toBe(200);
    expect(legacy.body.enforcement_ready).toBe(true);
    expect(legacy.body.gates).toHaveLength(10);
    expect(legacy.body.gates.every((gate) => gate.status !== "fail")).toBe(true);
  });

  it("sets the enforcement posture, under review", async () => {
    const judgmentId = need(judgment, "the judgment").id;
    const response = await api<Body<EnforcementPosture>>(`${restUrl}/v1/judgments/${judgmentId}/enforcement`, {
      method: "POST",
      key,
      body: { strategy: "Freeze exchange balances, then turnover", venues: ["Coinbase"] },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(EnforcementPosture.parse(response.body)).toMatchObject({ review_required: true, review_status: "pending" });
    auditRefs.push(response.body.audit_ref);
    const read = await api<Body<Judgment>>(`${restUrl}/v1/judgments/${judgmentId}`, { key });
    expect(withoutAuditRef(read.body).enforcement).toEqual(withoutAuditRef(response.body));
  });

  it("records a recovery event: defaults filled, usd_value mirrors gross_amount", async () => {
    const matterId = need(matter, "the matter").id;
    const response = await api<Body<RecoveryEvent>>(`${restUrl}/v1/ledger/recovery-events`, {
      method: "POST",
      key,
      body: {
        matter_id: matterId,
        gross_amount: 125000.5,
        asset: "USDC",
        network: "ethereum",
        event_type: "turned_over",
      },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    recoveryEvent = RecoveryEvent.parse(response.body);
    expect(recoveryEvent).toMatchObject({ gross_amount: 125000.5, usd_value: 125000.5, status: "recorded" });
    auditRefs.push(response.body.audit_ref);
  });

  it("assembles an exchange_freeze packet whose content_hash recomputes from its manifest", async () => {
    const matterId = need(matter, "the matter").id;
    const response = await api<Body<Packet>>(`${restUrl}/v1/packets`, {
      method: "POST",
      key,
      body: {
        matter_id: matterId,
        type: "exchange_freeze",
        judgment_id: need(judgment, "the judgment").id,
        wallets: ["0x8ba1f109551bD432803012645Ac136ddd64DBA72"],
        recovery_event_ids: [need(recoveryEvent, "the recovery event").id],
        authorized_sender: "Jane Counsel",
        target_venue: "Coinbase compliance",
      },
      headers: { "Idempotency-Key": "e2e-packet" },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    packet = Packet.parse(response.body);
    expect(packet.freeze_targets).toEqual(packet.wallets);
    expect(createHash("sha256").update(canonicalize(packet.manifest)).digest("hex")).toBe(packet.content_hash);
    auditRefs.push(response.body.audit_ref);
  });

  it("exports the packet as a PDF and downloads the recorded bytes", async () => {
    const packetId = need(packet, "the packet").id;
    const response = await api<Body<PacketExport>>(`${restUrl}/v1/packets/${packetId}/export`, {
      method: "POST",
      key,
      body: { format: "pdf", include_chain_of_custody: true },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const exported = PacketExport.parse(response.body);
    auditRefs.push(response.body.audit_ref);
    expect(exported.download_url).toBe(`${restUrl}/v1/exports/${exported.id}.pdf`);
    const file = await fetch(exported.download_url, { headers: { authorization: `Bearer ${key}` } });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(exported.artifact_sha256);
  });

  it("calculates the waterfall: the parts sum to the gross to the cent", async () => {
    const matterId = need(matter, "the matter").id;
    const response = await api<Body<Waterfall>>(`${restUrl}/v1/waterfall/calculate`, {
      method: "POST",
      key,
      body: { matter_id: matterId, costs: { filing_fees: 1250 }, platform_percentage: 5 },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const waterfall = Waterfall.parse(response.body);
    auditRefs.push(response.body.audit_ref);
    // 125,000.50 - 1,250.00 = 123,750.50; platform 5 % = 6,187.52; 117,562.98 split 0.6 / 0.4
    expect(waterfall.platform_economics.amount).toBe(6187.52);
    expect(waterfall.claimant_distributions).toEqual([
      { claimant_id: claimantIds[0], share: 0.6, amount: 70537.79 },
      { claimant_id: claimantIds[1], share: 0.4, amount: 47025.19 },
    ]);
    const current = await api<Body<Waterfall>>(`${restUrl}/v1/waterfall/matters/${matterId}`, { key });
    expect(withoutAuditRef(current.body)).toEqual(withoutAuditRef(response.body));
  });

  it("reads the dashboard: judgment value, review, packet, recovery, platform economics and phase", async () => {
    const matterId = need(matter, "the matter").id;
    const response = await api<Body<MatterDashboard>>(`${restUrl}/v1/matters/${matterId}/dashboard`, { key });
    expect(response.status).toBe(200);
    expect(MatterDashboard.parse(response.body)).toMatchObject({
      judgment_value: { amount: 250000, currency: "USD" },
      // the posture's pending review, and the packet's response deadline (30 days out)
      open_actions: 2,
      alerts: 0,
      open_packets: 1,
      packets: 1,
      recovery_events: 1,
      remittances: 0,
      platform_economics: { amount: 6187.52, currency: "USD" },
      recovery_phase: "dispatched",
    });
  });

  it("verifies the chain: every write's events, in order, valid", async () => {
    const events = await api<{ data: Event[] }>(`${restUrl}/v1/events?limit=100`, { key });
    const types = events.body.data.map((event) => event.type).reverse();
    expect(types).toEqual([
      "matter.created",
      "party.created",
      "party.created",
      "party.created",
      "judgment.created",
      "judgment.validated",
      "judgment.validated",
      "judgment.enforcement_set",
      "recovery_event.created",
      "packet.created",
      "packet.exported",
      "waterfall.calculated",
    ]);
    for (const ref of auditRefs) expect(events.body.data.some((event) => event.audit_ref === ref)).toBe(true);
    const verification = await api<Body<ChainVerification>>(`${restUrl}/v1/events/verify-chain`, { key });
    expect(verification.body).toMatchObject({ valid: true, events_checked: types.length, first_break: null });
  });

  it("stops on SIGINT with exit code 0", async () => {
    const launcher = need(start, "pnpm start");
    launcher.child.kill("SIGINT");
    expect(await exitWithin(launcher, 45_000), describeOutput(launcher)).toEqual({ code: 0, signal: null });
  });
});
