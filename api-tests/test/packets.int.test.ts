import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { MatterDashboard, operatorOperations, Packet, PacketExport, packetOperations, SCOPES } from "@crs/contract";
import { canonicalize, PACKET_TYPES, SANDBOX_SANCTIONS_LIST } from "@crs/core";
import { describe, expect, it } from "vitest";
import { countEvents, countRows, expectError, ValidationDetails } from "./support/expectations";
import { createCase, createParty, eventsOfRequest, recordRecovery, validate } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { PUBLIC_BASE_URL, type TestKey, useTestApp } from "./support/test-app";

const run = promisify(execFile);
const app = useTestApp();
const operator = () => app().keyWithScopes([...SCOPES, "operator:write"]);

const DEBTOR_WALLET = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** A case with a ready validation (so authority is granted) and one recovery event. */
async function readyCase(owner: TestKey) {
  const record = await createCase(app(), owner);
  await validate(app(), owner, record.judgment.id, { consumer_debt: false });
  const { recoveryEvent } = await recordRecovery(app(), owner, {
    matter_id: record.matter.id,
    gross_amount: 125_000.5,
    event_type: "turned_over",
    asset: "USDC",
    network: "ethereum",
  });
  return { ...record, recoveryEvent };
}

async function createPacket(owner: TestKey, body: Record<string, unknown>) {
  const response = await app().request("POST", "/v1/packets", { key: owner.key, body });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return { response, packet: Packet.parse(response.json) };
}

async function freezePacket(owner: TestKey) {
  const record = await readyCase(owner);
  const { packet, response } = await createPacket(owner, {
    matter_id: record.matter.id,
    type: "exchange_freeze",
    judgment_id: record.judgment.id,
    wallets: [{ address: DEBTOR_WALLET, network: "ethereum" }, "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"],
    recovery_event_ids: [record.recoveryEvent.id],
    source_refs: [
      { source_id: "src-1", source_type: "blockchain_trace", title: "Trace of 2024-05-01", hash: "ab".repeat(32) },
    ],
    legal_authority_id: "writ-2024-117",
    authorized_sender: "Jane Counsel, Counsel & Co LLP",
    target_venue: "Example Exchange Ltd, compliance desk",
  });
  return { record, packet, response };
}

async function exportPacket(owner: TestKey, packetId: string, body: Record<string, unknown>) {
  const response = await app().request("POST", `/v1/packets/${packetId}/export`, { key: owner.key, body });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return { response, packetExport: PacketExport.parse(response.json) };
}

/** download_url names the public origin; the test app listens elsewhere. */
const localUrl = (downloadUrl: string) => downloadUrl.replace(PUBLIC_BASE_URL, app().url);

async function download(owner: TestKey | null, downloadUrl: string) {
  const response = await fetch(localUrl(downloadUrl), {
    headers: owner ? { authorization: `Bearer ${owner.key}` } : {},
  });
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
}

describeSecuritySuite(packetOperations.create, {
  app,
  request: async (owner) => ({
    body: { matter_id: (await createCase(app(), owner)).matter.id, type: "sanctions_review" },
  }),
  badBody: {
    body: { type: "freeze_package", wallets: [""], source_refs: [{ title: "no id" }], authorized_sender: 5 },
    missing: ["matter_id", "source_refs.0.source_id"],
    invalid: ["type", "wallets.0", "authorized_sender"],
  },
  idempotency: {
    effects: async (owner) => ({
      rows: await countRows(app().sql, "packets", owner.organizationId),
      events: await countEvents(app().sql, owner.organizationId, "packet.created"),
    }),
    perWrite: { rows: 1, events: 1 },
    changedBody: { matter_id: "matter_00000000000000000000000000", type: "ofac_report" },
  },
});

describeSecuritySuite(packetOperations.list, {
  app,
  request: async () => ({ query: { type: "exchange_freeze", limit: "5" } }),
});

describeSecuritySuite(packetOperations.get, {
  app,
  request: async (owner) => ({ params: { packet_id: (await freezePacket(owner)).packet.id } }),
});

describeSecuritySuite(packetOperations.export, {
  app,
  request: async (owner) => ({
    params: { packet_id: (await freezePacket(owner)).packet.id },
    body: { format: "json" },
  }),
  badBody: {
    body: { format: "docx", redaction_profile: "secret", include_chain_of_custody: "yes" },
    missing: [],
    invalid: ["format", "redaction_profile", "include_chain_of_custody"],
  },
  idempotency: {
    effects: async (owner) => ({
      rows: await countRows(app().sql, "packet_exports", owner.organizationId),
      events: await countEvents(app().sql, owner.organizationId, "packet.exported"),
    }),
    perWrite: { rows: 1, events: 1 },
    changedBody: { format: "pdf" },
  },
});

describeSecuritySuite(packetOperations.getExport, {
  app,
  request: async (owner) => {
    const { packet } = await freezePacket(owner);
    const { packetExport } = await exportPacket(owner, packet.id, { format: "json" });
    return { params: { export_id: packetExport.id } };
  },
});

describeSecuritySuite(operatorOperations.setPacketStatus, {
  app,
  owner: operator,
  request: async (owner) => {
    const { packet } = await freezePacket(owner);
    await exportPacket(owner, packet.id, { format: "json" });
    return { body: { packet_id: packet.id, status: "served", notes: "Served by email." } };
  },
  badBody: { body: { status: "exported" }, missing: ["packet_id"], invalid: ["status"] },
  idempotency: {
    effects: async (owner) => ({ events: await countEvents(app().sql, owner.organizationId, "matter.updated") }),
    perWrite: { events: 1 },
    changedBody: { packet_id: "pkt_00000000000000000000000000", status: "closed" },
  },
});

describeSecuritySuite(operatorOperations.reviewPacket, {
  app,
  owner: operator,
  request: async (owner) => ({
    body: { packet_id: (await freezePacket(owner)).packet.id, review_status: "approved", review_owner: "Ops" },
  }),
  badBody: { body: { review_status: "maybe" }, missing: ["packet_id"], invalid: ["review_status"] },
  idempotency: {
    effects: async (owner) => ({ events: await countEvents(app().sql, owner.organizationId, "matter.updated") }),
    perWrite: { events: 1 },
    changedBody: { packet_id: "pkt_00000000000000000000000000", review_status: "rejected" },
  },
});

describe("packets: assembly", () => {
  it("binds everything into a manifest whose JCS sha256 is content_hash; freeze_targets mirror the wallets", async () => {
    const owner = await app().mintKey();
    const { record, packet, response } = await freezePacket(owner);
    expect(packet).toMatchObject({
      object: "packet",
      type: "exchange_freeze",
      status: "assembled",
      judgment_id: record.judgment.id,
      authorized_sender: "Jane Counsel, Counsel & Co LLP",
      legal_authority_id: "writ-2024-117",
      target_venue: "Example Exchange Ltd, compliance desk",
      recovery_event_ids: [record.recoveryEvent.id],
      review_state: { review_required: true, review_status: "pending", review_owner: "", review_notes: "" },
      exports: [],
    });
    expect(packet.wallets).toEqual([
      { address: DEBTOR_WALLET, network: "ethereum" },
      { address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", network: null },
    ]);
    expect(packet.freeze_targets).toEqual(packet.wallets);
    expect(packet.manifest.judgment).toMatchObject({
      case_number: "23STCV01234",
      amount: { amount: "250000.00", currency: "USD" },
      date_entered: "2024-03-15",
    });
    expect(packet.manifest.recovery_events[0]).toMatchObject({ gross_amount: "125000.50", asset: "USDC" });
    // A recipient recomputes the hash from what GET returns, with any RFC 8785 implementation.
    const fetched = Packet.parse((await app().request("GET", `/v1/packets/${packet.id}`, { key: owner.key })).json);
    expect(sha256(canonicalize(fetched.manifest))).toBe(packet.content_hash);
    expect(packet.content_hash).toMatch(/^[0-9a-f]{64}$/);
    const events = await eventsOfRequest(app(), owner, response.headers.get("svc-request-id") ?? "");
    expect(events.map((event) => event.type)).toEqual(["packet.created"]);
  });

  it("defaults: no judgment, the debtor's wallets, empty sender and refs; freeze_targets empty for other types", async () => {
    const owner = await app().mintKey();
    const record = await createCase(app(), owner);
    await createParty(app(), owner, {
      matter_id: record.matter.id,
      role: "debtor",
      name: "Second Debtor",
      wallets: [{ address: DEBTOR_WALLET, network: "ethereum", label: "hot" }],
    });
    const { packet } = await createPacket(owner, { matter_id: record.matter.id, type: "law_enforcement_referral" });
    expect(packet).toMatchObject({
      judgment_id: null,
      authorized_sender: "",
      legal_authority_id: null,
      source_refs: [],
      recovery_event_ids: [],
      freeze_targets: [],
      wallets: [{ address: DEBTOR_WALLET, network: "ethereum" }],
    });
  });

  it("accepts each of the 11 types and refuses freeze_package with a 422 listing them", async () => {
    const owner = await app().mintKey();
    const record = await createCase(app(), owner);
    await validate(app(), owner, record.judgment.id, { consumer_debt: false });
    for (const type of PACKET_TYPES) await createPacket(owner, { matter_id: record.matter.id, type });
    const response = await app().request("POST", "/v1/packets", {
      key: owner.key,
      body: { matter_id: record.matter.id, type: "freeze_package" },
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toBe("type");
    expect(ValidationDetails.parse(envelope.error.details).allowed).toEqual([...PACKET_TYPES]);
    expect(PACKET_TYPES).toHaveLength(11);
  });

  it("gates: authority_required without a ready judgment, stay_in_effect on a stayed judgment, sanctions_gate on a hit", async () => {
    const owner = await app().mintKey();
    const record = await createCase(app(), owner);
    const noAuthority = await app().request("POST", "/v1/packets", {
      key: owner.key,
      body: { matter_id: record.matter.id, type: "exchange_freeze" },
    });
    expectError(noAuthority, 409, "authority_required");
    // types that need no authority pass
    await createPacket(owner, { matter_id: record.matter.id, type: "exchange_intercept" });

    await validate(app(), owner, record.judgment.id, { consumer_debt: false });
    const stay = await app().request("PATCH", `/v1/judgments/${record.judgment.id}`, {
      key: owner.key,
      body: { appeal_stay_status: "stayed" },
    });
    expect(stay.status).toBe(200);
    const stayed = await app().request("POST", "/v1/packets", {
      key: owner.key,
      body: { matter_id: record.matter.id, type: "exchange_intercept", judgment_id: record.judgment.id },
    });
    expect(expectError(stayed, 409, "stay_in_effect").error.param).toBe("judgment_id");

    const listed = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "address")?.value ?? "";
    await createParty(app(), owner, {
      matter_id: record.matter.id,
      role: "counterparty",
      name: "X",
      wallets: [listed],
    });
    const held = await app().request("POST", "/v1/packets", {
      key: owner.key,
      body: { matter_id: record.matter.id, type: "exchange_intercept" },
    });
    expectError(held, 409, "sanctions_gate");
    await createPacket(owner, { matter_id: record.matter.id, type: "sanctions_review" });
    await createPacket(owner, { matter_id: record.matter.id, type: "ofac_report" });
    expect(await countRows(app().sql, "packets", owner.organizationId)).toBe(3);
  });

  it("404s a judgment or a recovery event of another matter, naming the field", async () => {
    const owner = await app().mintKey();
    const one = await readyCase(owner);
    const two = await createCase(app(), owner);
    const judgment = await app().request("POST", "/v1/packets", {
      key: owner.key,
      body: { matter_id: two.matter.id, type: "sanctions_review", judgment_id: one.judgment.id },
    });
    expect(expectError(judgment, 404, "not_found").error.param).toBe("judgment_id");
    const recovery = await app().request("POST", "/v1/packets", {
      key: owner.key,
      body: { matter_id: two.matter.id, type: "sanctions_review", recovery_event_ids: [one.recoveryEvent.id] },
    });
    expect(expectError(recovery, 404, "not_found").error.param).toBe("recovery_event_ids.0");
  });
});

describe("packets: exports", () => {
  it("renders a PDF whose text shows the judgment, wallets and hashes; export_hash recomputes from published inputs", async () => {
    const owner = await app().mintKey();
    const { packet, record } = await freezePacket(owner);
    const { packetExport, response } = await exportPacket(owner, packet.id, {
      format: "pdf",
      include_chain_of_custody: true,
    });
    expect(packetExport).toMatchObject({
      object: "packet_export",
      object_type: "packet",
      object_id: packet.id,
      format: "pdf",
      status: "available",
      content_type: "application/pdf",
      packet_hash: packet.content_hash,
      redaction_profile: "none",
      include_chain_of_custody: true,
      download_url: `${PUBLIC_BASE_URL}/v1/exports/${packetExport.id}.pdf`,
      audit_id: response.headers.get("svc-request-id"),
    });
    expect(packetExport.id).toMatch(/^pex_[0-9a-z]{26}$/);
    const exportedOn = packetExport.created_at.slice(0, 10);
    const due = new Date(`${exportedOn}T00:00:00Z`);
    due.setUTCDate(due.getUTCDate() + 30);
    expect(packetExport.response_deadline).toBe(due.toISOString().slice(0, 10));

    const { response: file, bytes } = await download(owner, packetExport.download_url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    expect(sha256(bytes)).toBe(packetExport.artifact_sha256);
    expect(bytes.byteLength).toBe(packetExport.byte_size);
    expect(
      sha256(
        canonicalize({
          export_id: packetExport.export_id,
          format: packetExport.format,
          packet_content_hash: packetExport.packet_hash,
          artifact_sha256: sha256(bytes),
          created_at: packetExport.created_at,
        }),
      ),
    ).toBe(packetExport.export_hash);

    const dir = await mkdtemp(join(tmpdir(), "packet-pdf-"));
    const pdfPath = join(dir, "packet.pdf");
    await writeFile(pdfPath, bytes);
    const { stdout } = await run("pdftotext", ["-layout", pdfPath, "-"]);
    const text = stdout.replace(/\s+/g, " ");
    expect(text).toContain("23STCV01234");
    expect(text).toContain("Superior Court of California");
    expect(text).toContain(DEBTOR_WALLET);
    expect(text).toContain("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq");
    // long hashes may wrap: look for them with the whitespace taken out
    const compact = stdout.replace(/\s+/g, "");
    expect(compact).toContain(packet.content_hash);
    expect(compact).toContain(record.recoveryEvent.id);
    expect(text).toContain("Jane Counsel");

    const packetAfter = Packet.parse((await app().request("GET", `/v1/packets/${packet.id}`, { key: owner.key })).json);
    expect(packetAfter.status).toBe("exported");
    expect(packetAfter.exports).toEqual([
      {
        export_id: packetExport.id,
        format: "pdf",
        export_hash: packetExport.export_hash,
        download_url: packetExport.download_url,
        created_at: packetExport.created_at,
      },
    ]);
    const events = await eventsOfRequest(app(), owner, response.headers.get("svc-request-id") ?? "");
    expect(events.map((event) => event.type)).toEqual(["packet.exported"]);
  });

  it("zips packet.pdf, packet.json, chain-of-custody.json, manifest.json and SHA256SUMS that check", async () => {
    const owner = await app().mintKey();
    const { packet } = await freezePacket(owner);
    const { packetExport } = await exportPacket(owner, packet.id, { format: "zip", include_chain_of_custody: true });
    const { response, bytes } = await download(owner, packetExport.download_url);
    expect(response.headers.get("content-type")).toBe("application/zip");
    expect(sha256(bytes)).toBe(packetExport.artifact_sha256);
    const dir = await mkdtemp(join(tmpdir(), "packet-zip-"));
    await writeFile(join(dir, "export.zip"), bytes);
    await run("unzip", ["-q", "export.zip", "-d", "out"], { cwd: dir });
    const { stdout } = await run("sha256sum", ["-c", "SHA256SUMS"], { cwd: join(dir, "out") });
    expect(stdout.trim().split("\n")).toEqual([
      "packet.pdf: OK",
      "packet.json: OK",
      "chain-of-custody.json: OK",
      "manifest.json: OK",
    ]);
    const manifestBytes = await readFile(join(dir, "out", "manifest.json"));
    expect(sha256(manifestBytes)).toBe(packet.content_hash);
    const chain = JSON.parse(await readFile(join(dir, "out", "chain-of-custody.json"), "utf8")) as {
      included: boolean;
      verification: { valid: boolean };
      events: { type: string }[];
    };
    expect(chain.included).toBe(true);
    expect(chain.verification.valid).toBe(true);
    expect(chain.events.map((event) => event.type)).toContain("packet.created");
  });

  it("masks contact and identifiers under redaction_profile external in the json bundle", async () => {
    const owner = await app().mintKey();
    const { packet, record } = await freezePacket(owner);
    await app().request("PATCH", `/v1/parties/${record.debtor.id}`, {
      key: owner.key,
      body: { contact: { email: "ceo@doe.example" }, identifiers: { company_no: "12345678" } },
    });
    const plain = await exportPacket(owner, packet.id, { format: "json" });
    const masked = await exportPacket(owner, packet.id, { format: "json", redaction_profile: "external" });
    const plainText = new TextDecoder().decode((await download(owner, plain.packetExport.download_url)).bytes);
    const maskedText = new TextDecoder().decode((await download(owner, masked.packetExport.download_url)).bytes);
    expect(plainText).toContain("ceo@doe.example");
    expect(maskedText).not.toContain("ceo@doe.example");
    expect(maskedText).not.toContain("12345678");
    expect(maskedText).toContain("[redacted]");
    const bundle = JSON.parse(maskedText) as { object: string; integrity: { prior_exports: unknown[] } };
    expect(bundle.object).toBe("packet_export_bundle");
    expect(bundle.integrity.prior_exports).toHaveLength(1);
  });

  it("serves downloads to the same organization only: 404 for another organization, no key 401, wrong extension 404", async () => {
    const owner = await app().mintKey();
    const stranger = await app().mintKey();
    const { packet } = await freezePacket(owner);
    const { packetExport } = await exportPacket(owner, packet.id, { format: "json" });
    const { response: own } = await download(owner, packetExport.download_url);
    expect(own.status).toBe(200);
    expect(own.headers.get("content-type")).toBe("application/json");
    const other = await download(stranger, packetExport.download_url);
    expect(other.response.status).toBe(404);
    expect(new TextDecoder().decode(other.bytes)).not.toContain(packet.content_hash);
    expect((await download(null, packetExport.download_url)).response.status).toBe(401);
    const wrong = await download(owner, packetExport.download_url.replace(/\.json$/, ".pdf"));
    expect(wrong.response.status).toBe(404);
    const getOther = await app().request("GET", `/v1/packets/exports/${packetExport.id}`, { key: stranger.key });
    expectError(getOther, 404, "not_found");
  });

  it("gives identical bytes to two downloading processes under different TZ, matching the export's record", async () => {
    const owner = await app().mintKey();
    const { packet } = await freezePacket(owner);
    const { packetExport } = await exportPacket(owner, packet.id, { format: "zip" });
    const script = `
      const r = await fetch(process.argv[1], { headers: { authorization: "Bearer " + process.argv[2] } });
      const b = Buffer.from(await r.arrayBuffer());
      console.log(JSON.stringify({ status: r.status, tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
        sha256: (await import("node:crypto")).createHash("sha256").update(b).digest("hex") }));`;
    const results = await Promise.all(
      ["Pacific/Kiritimati", "America/Los_Angeles"].map(async (tz) => {
        const { stdout } = await run(
          process.execPath,
          ["--input-type=module", "-e", script, localUrl(packetExport.download_url), owner.key],
          { env: { ...process.env, TZ: tz } },
        );
        return JSON.parse(stdout) as { status: number; tz: string; sha256: string };
      }),
    );
    expect(results.map((r) => r.tz)).toEqual(["Pacific/Kiritimati", "America/Los_Angeles"]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(results[0]?.sha256).toBe(results[1]?.sha256);
    expect(results[0]?.sha256).toBe(packetExport.artifact_sha256);
  });
});

describe("packets: status and review through operator procedures", () => {
  it("advances exported → served → contested → complied, refuses a skipped step, and records the review", async () => {
    const owner = await operator();
    const { packet } = await freezePacket(owner);
    const rpc = (procedure: string, input: Record<string, unknown>) =>
      app().rpc("mutation", `operator.${procedure}`, { key: owner.key, input });

    const early = await rpc("setPacketStatus", { packet_id: packet.id, status: "served" });
    expect(early.status).toBe(409);
    await exportPacket(owner, packet.id, { format: "json" });
    for (const status of ["served", "contested", "complied"]) {
      const moved = await rpc("setPacketStatus", { packet_id: packet.id, status });
      expect(moved.status).toBe(200);
      expect(Packet.parse(moved.json).status).toBe(status);
    }
    const back = await rpc("setPacketStatus", { packet_id: packet.id, status: "served" });
    expect(back.status).toBe(409);
    const reviewed = await rpc("reviewPacket", {
      packet_id: packet.id,
      review_status: "approved",
      review_owner: "Ops Reviewer",
      review_notes: "Checked against the writ.",
    });
    expect(Packet.parse(reviewed.json).review_state).toEqual({
      review_required: false,
      review_status: "approved",
      review_owner: "Ops Reviewer",
      review_notes: "Checked against the writ.",
    });
    const sandbox = await app().mintKey();
    const refused = await app().rpc("mutation", "operator.reviewPacket", {
      key: sandbox.key,
      input: { packet_id: packet.id, review_status: "approved" },
    });
    expect(refused.status).toBe(403);
  });
});

describe("packets: a destination wallet certificate's review", () => {
  // This app configures no live list: a live certificate is screened against nothing.
  it("refuses 409 screen_incomplete to approve one screened against no list, or stored with no screen", async () => {
    const owner = await operator();
    const record = await readyCase(owner);
    const review = (packetId: string, review_status: string) =>
      app().rpc("mutation", "operator.reviewPacket", { key: owner.key, input: { packet_id: packetId, review_status } });
    const { packet: unlisted } = await createPacket(owner, {
      matter_id: record.matter.id,
      type: "destination_wallet_certificate",
      wallets: [DEBTOR_WALLET],
    });
    expect(unlisted.manifest.details).toMatchObject({ sanctions_screen: { complete: false, list_size: 0 } });
    // A certificate stored before certificates bound their screen in `details` has none.
    const { packet: older } = await createPacket(owner, {
      matter_id: record.matter.id,
      type: "destination_wallet_certificate",
      wallets: [DEBTOR_WALLET],
    });
    await app().sql`
      update packets set manifest = manifest - 'details'
       where organization_id = ${owner.organizationId} and id = ${older.id}`;
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    for (const id of [unlisted.id, older.id]) {
      for (const status of ["approved", "cleared"]) {
        const refused = expectError(await review(id, status), 409, "conflict");
        expect(refused.error.param).toBe("review_status");
        expect(refused.error.details).toEqual({ reason: "screen_incomplete" });
        expect(refused.error.message).toContain("assemble a new certificate");
      }
    }
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
    const after = await app().request("GET", `/v1/packets/${older.id}`, { key: owner.key });
    expect(Packet.parse(after.json).review_state.review_status).toBe("pending");
    // Rejecting is not refused: only an approval needs a complete screen.
    expect((await review(older.id, "rejected")).status).toBe(200);
  });
});

describe("packets and money on the dashboard and the deadlines", () => {
  it("counts packets, recovery events and remittances, shows the latest platform economics and the phase", async () => {
    const owner = await app().mintKey();
    const { packet, record } = await freezePacket(owner);
    const dashboard = async () => {
      const response = await app().request("GET", `/v1/matters/${record.matter.id}/dashboard`, { key: owner.key });
      expect(response.status).toBe(200);
      return MatterDashboard.parse(response.json);
    };
    expect(await dashboard()).toMatchObject({
      open_packets: 1,
      packets: 1,
      recovery_events: 1,
      remittances: 0,
      recovery_phase: "packaged",
      platform_economics: { amount: 0 },
    });

    const { packetExport } = await exportPacket(owner, packet.id, { format: "json" });
    expect((await dashboard()).recovery_phase).toBe("dispatched");
    const deadlines = await app().request("GET", `/v1/judgments/${record.judgment.id}/deadlines`, { key: owner.key });
    const packetDeadline = (
      deadlines.json as { data: { type: string; key: string; date: string; status: string }[] }
    ).data.find((deadline) => deadline.type === "packet");
    expect(packetDeadline).toMatchObject({
      key: `packet:${packetExport.id}`,
      date: packetExport.response_deadline,
      status: "open",
    });

    const calculated = await app().request("POST", "/v1/waterfall/calculate", {
      key: owner.key,
      body: { matter_id: record.matter.id, platform_percentage: 10 },
    });
    expect(calculated.status).toBe(200);
    const remitted = await app().request("POST", "/v1/ledger/remittance-events", {
      key: owner.key,
      body: { matter_id: record.matter.id, amount: 1000 },
    });
    expect(remitted.status).toBe(201);
    const after = await dashboard();
    // 10 % of 125,000.50 (no costs or counsel fee on this matter) = 12,500.05
    expect(after).toMatchObject({
      recovery_events: 1,
      remittances: 1,
      recovery_phase: "remitting",
      phase_index: 4,
      platform_economics: { amount: 12_500.05, currency: "USD" },
    });

    const closer = await operator();
    const { packet: closable, record: other } = await freezePacket(closer);
    const closed = await app().rpc("mutation", "operator.setPacketStatus", {
      key: closer.key,
      input: { packet_id: closable.id, status: "closed" },
    });
    expect(closed.status).toBe(200);
    const otherDashboard = await app().request("GET", `/v1/matters/${other.matter.id}/dashboard`, { key: closer.key });
    expect(MatterDashboard.parse(otherDashboard.json)).toMatchObject({ open_packets: 0, packets: 1 });
  });
});
