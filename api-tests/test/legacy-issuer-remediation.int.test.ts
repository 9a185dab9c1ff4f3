import { createHash } from "node:crypto";
import { DestinationWalletCertificate, issuerRemediationOperations, Packet, Remediation, SCOPES } from "@crs/contract";
import { canonicalize, SANDBOX_SANCTIONS_LIST } from "@crs/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countEvents, countRows, expectError, ValidationDetails, withoutAuditRef } from "./support/expectations";
import { type Case, createCase } from "./support/fixtures";
import { eventTypesOf as sharedEventTypesOf, packetEffects as sharedPacketEffects } from "./support/legacy";
import { describeSecuritySuite } from "./support/security-suite";
import { OPEN_LEGACY_WINDOW, type TestApp, type TestKey, useTestApp } from "./support/test-app";

// so an operator (live keys only) can try to approve a clear and a listed certificate.
const app = useTestApp({
  legacyWindow: OPEN_LEGACY_WINDOW,
  liveSanctionsList: { entries: SANDBOX_SANCTIONS_LIST, source: "test list" },
});
const operator = () => app().keyWithScopes([...SCOPES, "operator:write"]);

/** The fixtures, sent to the legacy listener. */
const legacyApp = (): TestApp => ({ ...app(), request: app().legacyRequest });

const LISTED_WALLET = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "address")?.value ?? "";
const LISTED_NAME = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "name")?.value ?? "";
const DEBTOR_WALLET = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
const DESTINATION = "0x1f9090aaE28b8a3dCeaDf281B0F12828e676c326";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const FREEZE = "/v1/issuer-remediation/freeze-packet";
const BURN = "/v1/issuer-remediation/burn-reissue-packet";
const CERTIFICATE = "/v1/issuer-remediation/destination-wallet-certificate";

/** A case on the legacy listener; `ready` validates its judgment, which grants the matter authority. */
async function legacyCase(owner: TestKey, ready = true): Promise<Case> {
  const record = await createCase(legacyApp(), owner);
  if (ready) {
    const response = await app().legacyRequest("POST", `/v1/judgments/${record.judgment.id}/validate`, {
      key: owner.key,
      body: { consumer_debt: false },
    });
    expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
  }
  return record;
}

async function post(owner: TestKey, path: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  return app().legacyRequest("POST", path, { key: owner.key, body, ...(headers ? { headers } : {}) });
}

async function created<T extends z.ZodType>(
  schema: T,
  response: Awaited<ReturnType<typeof post>>,
): Promise<z.output<T>> {
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return schema.parse(response.json);
}

async function certificate(owner: TestKey, matterId: string, body: Record<string, unknown> = {}) {
  return created(
    DestinationWalletCertificate,
    await post(owner, CERTIFICATE, {
      matter_id: matterId,
      wallet_address: DESTINATION,
      network: "ethereum",
      purpose: "reissue destination",
      owner: "Acme Holdings LLC",
      custodian: "Example Qualified Custodian LLC",
      signer_model: "2-of-3 multisig",
      allowed_assets: ["USDX"],
      ...body,
    }),
  );
}

async function legacyPacket(owner: TestKey, packetId: string) {
  const response = await app().legacyRequest("GET", `/v1/packets/${packetId}`, { key: owner.key });
  expect(response.status).toBe(200);
  return Packet.parse(response.json);
}

const eventTypesOf = (owner: TestKey, requestId: string | null) => sharedEventTypesOf(app(), owner, requestId);

const packetEffects = (owner: TestKey) => sharedPacketEffects(app(), owner);

/** The idempotency check of a remediation write: one packet and one packet.created per write. */
const createsOnePacket = (changedBody: Record<string, unknown> = {}) => ({
  effects: packetEffects,
  perWrite: { packets: 1, events: 1 },
  changedBody: { matter_id: "matter_00000000000000000000000000", ...changedBody },
});

const remediationBadBody = (wrongType: string) => ({
  body: {
    packet_type: wrongType,
    wallets: [""],
    source_refs: [{ title: "no id" }],
    authorized_sender: 5,
    notes: 7,
    issuer: " ",
  },
  missing: ["matter_id", "source_refs.0.source_id"],
  invalid: ["packet_type", "wallets.0", "authorized_sender", "notes", "issuer"],
});

describeSecuritySuite(issuerRemediationOperations.freezePacket, {
  app,
  request: async (owner) => ({ body: { matter_id: (await legacyCase(owner)).matter.id, issuer: "Issuer Inc." } }),
  badBody: remediationBadBody("burn_reissue"),
  idempotency: createsOnePacket(),
});

describeSecuritySuite(issuerRemediationOperations.burnReissuePacket, {
  app,
  request: async (owner) => ({ body: { matter_id: (await legacyCase(owner)).matter.id, asset: "USDX" } }),
  badBody: remediationBadBody("issuer_freeze"),
  idempotency: createsOnePacket(),
});

describeSecuritySuite(issuerRemediationOperations.destinationWalletCertificate, {
  app,
  request: async (owner) => ({
    body: { matter_id: (await legacyCase(owner)).matter.id, wallet_address: DESTINATION, network: "ethereum" },
  }),
  badBody: {
    body: { wallet_address: "  ", owner: 5, allowed_assets: ["USDX", "USDX"] },
    missing: ["matter_id"],
    invalid: ["wallet_address", "owner", "allowed_assets"],
  },
  idempotency: createsOnePacket({ wallet_address: DESTINATION }),
});

describeSecuritySuite(issuerRemediationOperations.get, {
  app,
  request: async (owner) => {
    const record = await legacyCase(owner);
    const remediation = await created(Remediation, await post(owner, FREEZE, { matter_id: record.matter.id }));
    return { params: { remediation_id: remediation.remediation_id } };
  },
});

describe("issuer remediations are packets", () => {
  it("prepares an issuer_freeze packet binding the remediation content, the same packet /v1/packets shows", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const response = await post(owner, FREEZE, {
      matter_id: record.matter.id,
      judgment_id: record.judgment.id,
      wallets: [{ address: DEBTOR_WALLET, network: "ethereum" }],
      packet_type: "issuer_freeze",
      authorized_sender: "Jane Counsel, Counsel & Co LLP",
      legal_authority_id: "writ-2024-117",
      source_refs: [{ source_id: "src-1", title: "Trace of 2024-05-01" }],
      notes: "Freeze pending turnover order.",
      issuer: "Example Stablecoin Issuer Inc.",
      asset: "USDX",
    });
    const remediation = await created(Remediation.strict().extend({ audit_ref: z.string() }), response);
    expect(remediation).toMatchObject({
      object: "issuer_remediation",
      id: remediation.remediation_id,
      packet_id: remediation.remediation_id,
      packet_type: "issuer_freeze",
      matter_id: record.matter.id,
      judgment_id: record.judgment.id,
      issuer: "Example Stablecoin Issuer Inc.",
      asset: "USDX",
      network: "ethereum",
      action_type: "freeze_only",
      status: "freeze",
      packet_status: "assembled",
      destination_wallet_certificate_id: null,
      notes: "Freeze pending turnover order.",
      review_state: { review_required: true, review_status: "pending" },
    });
    expect(remediation.remediation_id).toMatch(/^pkt_/);
    expect(await eventTypesOf(owner, response.headers.get("svc-request-id"))).toEqual(["packet.created"]);

    // The same packet on the same listener; its details are bound content, covered by content_hash.
    const packet = await legacyPacket(owner, remediation.remediation_id);
    expect(packet).toMatchObject({
      type: "issuer_freeze",
      status: "assembled",
      legal_authority_id: "writ-2024-117",
      authorized_sender: "Jane Counsel, Counsel & Co LLP",
      content_hash: remediation.content_hash,
    });
    expect(packet.manifest.details).toEqual({
      issuer: "Example Stablecoin Issuer Inc.",
      asset: "USDX",
      network: null,
      notes: "Freeze pending turnover order.",
      destination_wallet_certificate_id: null,
    });
    expect(sha256(canonicalize(packet.manifest))).toBe(packet.content_hash);

    const read = await app().legacyRequest("GET", `/v1/issuer-remediation/${remediation.remediation_id}`, {
      key: owner.key,
    });
    expect(read.status).toBe(200);
    expect(Remediation.parse(read.json)).toEqual(withoutAuditRef(remediation));
  });

  it("prepares a burn_reissue packet naming a certificate of the same matter, and refuses one of another", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const cert = await certificate(owner, record.matter.id);
    const remediation = await created(
      Remediation,
      await post(owner, BURN, {
        matter_id: record.matter.id,
        asset: "USDX",
        destination_wallet_certificate_id: cert.destination_wallet_id,
      }),
    );
    expect(remediation).toMatchObject({
      packet_type: "burn_reissue",
      action_type: "burn_reissue",
      status: "burn",
      destination_wallet_certificate_id: cert.destination_wallet_id,
      // no wallets sent: the matter's debtors' wallets, as for /v1/packets (this debtor has none)
      wallets: [],
    });
    expect((await legacyPacket(owner, remediation.remediation_id)).type).toBe("burn_reissue");

    const other = await legacyCase(owner);
    const before = await packetEffects(owner);
    for (const id of [cert.destination_wallet_id, remediation.remediation_id, "pkt_00000000000000000000000000"]) {
      const refused = expectError(
        await post(owner, BURN, { matter_id: other.matter.id, destination_wallet_certificate_id: id }),
        404,
        "not_found",
      );
      expect(refused.error.param).toBe("destination_wallet_certificate_id");
    }
    expect(await packetEffects(owner)).toEqual(before);
  });

  it("refuses 409 a remediation naming a blocked or a rejected certificate, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const blocked = await certificate(owner, record.matter.id, { wallet_address: LISTED_WALLET });
    expect(blocked.approval_status).toBe("blocked");
    const rejected = await certificate(owner, record.matter.id);
    // A reviewer rejected it (operator.reviewPacket takes a live key, which this listener refuses).
    await app().sql`
      update packets set review_status = 'rejected'
       where organization_id = ${owner.organizationId} and id = ${rejected.destination_wallet_id}`;
    const pending = await certificate(owner, record.matter.id);

    const before = await packetEffects(owner);
    for (const [path, id, reason] of [
      [BURN, blocked.destination_wallet_id, "certificate_blocked"],
      [BURN, rejected.destination_wallet_id, "certificate_rejected"],
      [FREEZE, blocked.destination_wallet_id, "certificate_blocked"],
    ] as const) {
      const refused = expectError(
        await post(owner, path, { matter_id: record.matter.id, destination_wallet_certificate_id: id }),
        409,
        "conflict",
      );
      expect(refused.error.param).toBe("destination_wallet_certificate_id");
      expect(refused.error.details).toMatchObject({ reason });
    }
    expect(await packetEffects(owner)).toEqual(before);
    await created(
      Remediation,
      await post(owner, BURN, {
        matter_id: record.matter.id,
        destination_wallet_certificate_id: pending.destination_wallet_id,
      }),
    );
  });

  it("a certificate of no wallet is never a complete screen, so never approvable", async () => {
    const owner = await operator();
    const record = await createCase(app(), owner);
    const response = await app().request("POST", "/v1/packets", {
      key: owner.key,
      body: { matter_id: record.matter.id, type: "destination_wallet_certificate", wallets: [] },
    });
    expect(response.status).toBe(201);
    const packet = Packet.parse(response.json);
    expect(packet.manifest.details).toMatchObject({ sanctions_screen: { complete: false, matches: [] } });
    const refused = expectError(
      await app().rpc("mutation", "operator.reviewPacket", {
        key: owner.key,
        input: { packet_id: packet.id, review_status: "approved" },
      }),
      409,
      "conflict",
    );
    expect(refused.error.details).toEqual({ reason: "screen_incomplete" });
  });

  it("refuses a packet_type other than the operation's, naming it", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const envelope = expectError(
      await post(owner, FREEZE, { matter_id: record.matter.id, packet_type: "burn_reissue" }),
      422,
      "invalid_request",
    );
    expect(ValidationDetails.parse(envelope.error.details).invalid?.map((field) => field.param)).toEqual([
      "packet_type",
    ]);
    expect(await countRows(app().sql, "packets", owner.organizationId)).toBe(0);
  });

  it("answers 403 authority_required on a matter without granted authority, for all three, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner, false);
    const before = { ...(await packetEffects(owner)), all: await countEvents(app().sql, owner.organizationId) };
    for (const [path, body] of [
      [FREEZE, { matter_id: record.matter.id, judgment_id: record.judgment.id }],
      [BURN, { matter_id: record.matter.id }],
      [CERTIFICATE, { matter_id: record.matter.id, wallet_address: DESTINATION }],
    ] as const) {
      const envelope = expectError(await post(owner, path, body), 403, "authority_required");
      expect(envelope.error.param).toBe("matter_id");
    }
    expect({ ...(await packetEffects(owner)), all: await countEvents(app().sql, owner.organizationId) }).toEqual(
      before,
    );
  });

  it("answers 403 sanctions_gate while a sanctions hit on the matter awaits review, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const hit = await app().legacyRequest("POST", "/v1/parties", {
      key: owner.key,
      body: { matter_id: record.matter.id, role: "debtor", name: "Listed Wallet Holder", wallets: [LISTED_WALLET] },
    });
    expect(hit.status).toBe(201);
    const before = { ...(await packetEffects(owner)), all: await countEvents(app().sql, owner.organizationId) };
    for (const [path, body] of [
      [FREEZE, { matter_id: record.matter.id }],
      [BURN, { matter_id: record.matter.id }],
      [CERTIFICATE, { matter_id: record.matter.id, wallet_address: DESTINATION }],
    ] as const) {
      expectError(await post(owner, path, body), 403, "sanctions_gate");
    }
    expect({ ...(await packetEffects(owner)), all: await countEvents(app().sql, owner.organizationId) }).toEqual(
      before,
    );
  });

  it("a packet and a sanctions hit racing on one matter: a packet exists only if it committed before the hold", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const [packetResponse, partyResponse] = await Promise.all([
      post(owner, FREEZE, { matter_id: record.matter.id, wallets: [DEBTOR_WALLET] }),
      app().legacyRequest("POST", "/v1/parties", {
        key: owner.key,
        body: { matter_id: record.matter.id, role: "debtor", name: "Listed Wallet Holder", wallets: [LISTED_WALLET] },
      }),
    ]);
    expect(partyResponse.status).toBe(201);
    const sequences = await app().sql<{ type: string; sequence: string }[]>`
      select type, sequence::text from events
       where organization_id = ${owner.organizationId} and data->>'matter_id' = ${record.matter.id}
         and (type = 'packet.created' or (type = 'matter.updated' and data ? 'sanctions_hits'))
       order by sequence`;
    const held = sequences.find((event) => event.type === "matter.updated");
    expect(held).toBeDefined();
    if (packetResponse.status === 201) {
      const packetEvent = sequences.find((event) => event.type === "packet.created");
      expect(Number(packetEvent?.sequence)).toBeLessThan(Number(held?.sequence));
    } else {
      expectError(packetResponse, 403, "sanctions_gate");
      expect(sequences.filter((event) => event.type === "packet.created")).toEqual([]);
    }
  });

  it("concurrent requests with one Idempotency-Key prepare one packet", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const headers = { "idempotency-key": `idem-${record.matter.id}` };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => post(owner, FREEZE, { matter_id: record.matter.id }, headers)),
    );
    const ids = new Set(
      answers.filter((answer) => answer.status === 201).map((answer) => Remediation.parse(answer.json).remediation_id),
    );
    expect(ids.size).toBe(1);
    for (const answer of answers.filter((answer) => answer.status !== 201)) expectError(answer, 409, "conflict");
    expect(await packetEffects(owner)).toEqual({ packets: 1, events: 1 });
  });

  it("GET answers 404 for another organization's remediation, a packet of another type, and a wrong prefix", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const remediation = await created(Remediation, await post(owner, FREEZE, { matter_id: record.matter.id }));
    const cert = await certificate(owner, record.matter.id);
    const stranger = await app().mintLegacyKey();
    expectError(
      await app().legacyRequest("GET", `/v1/issuer-remediation/${remediation.remediation_id}`, { key: stranger.key }),
      404,
      "not_found",
    );
    expectError(
      await app().legacyRequest("GET", `/v1/packets/${remediation.remediation_id}`, { key: stranger.key }),
      404,
      "not_found",
    );
    for (const id of [cert.destination_wallet_id, `rmd_${remediation.remediation_id.slice(4)}`]) {
      expectError(
        await app().legacyRequest("GET", `/v1/issuer-remediation/${id}`, { key: owner.key }),
        404,
        "not_found",
      );
    }
    // Nor can another organization's certificate be named by a remediation.
    const theirs = await legacyCase(stranger);
    expectError(
      await post(stranger, BURN, { matter_id: theirs.matter.id, destination_wallet_certificate_id: cert.packet_id }),
      404,
      "not_found",
    );
  });

  it("shows a freeze prepared through /v1/packets as a remediation with no remediation content", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const response = await app().legacyRequest("POST", "/v1/packets", {
      key: owner.key,
      body: {
        matter_id: record.matter.id,
        type: "issuer_freeze",
        wallets: [{ address: DEBTOR_WALLET, network: "tron" }],
      },
    });
    const packet = Packet.parse(response.json);
    expect(packet.manifest.details).toBeUndefined();
    const read = await app().legacyRequest("GET", `/v1/issuer-remediation/${packet.id}`, { key: owner.key });
    expect(Remediation.parse(read.json)).toMatchObject({
      remediation_id: packet.id,
      issuer: null,
      asset: null,
      network: "tron",
      notes: null,
      action_type: "freeze_only",
      status: "freeze",
      content_hash: packet.content_hash,
    });
  });
});

describe("destination wallet certificates", () => {
  it("binds the certificate and the sanctions screen of its wallet, owner and custodian; pending approval", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const cert = await certificate(owner, record.matter.id);
    expect(cert).toMatchObject({
      object: "destination_wallet_certificate",
      id: cert.destination_wallet_id,
      matter_id: record.matter.id,
      wallet_address: DESTINATION,
      network: "ethereum",
      purpose: "reissue destination",
      owner: "Acme Holdings LLC",
      custodian: "Example Qualified Custodian LLC",
      signer_model: "2-of-3 multisig",
      allowed_assets: ["USDX"],
      sanctions_screen_complete: true,
      sanctions_screen: { complete: true, list_size: SANDBOX_SANCTIONS_LIST.length, matches: [] },
      approval_status: "pending",
    });
    const packet = await legacyPacket(owner, cert.destination_wallet_id);
    expect(packet).toMatchObject({
      type: "destination_wallet_certificate",
      wallets: [{ address: DESTINATION, network: "ethereum" }],
      content_hash: cert.content_hash,
    });
    expect(packet.manifest.details).toMatchObject({ owner: "Acme Holdings LLC", signer_model: "2-of-3 multisig" });
    expect(sha256(canonicalize(packet.manifest))).toBe(packet.content_hash);
  });

  it("records a listed wallet or owner as matches: the certificate is blocked, never approvable", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const byWallet = await certificate(owner, record.matter.id, { wallet_address: LISTED_WALLET });
    expect(byWallet).toMatchObject({ sanctions_screen_complete: true, approval_status: "blocked" });
    expect(byWallet.sanctions_screen.matches).toEqual([
      expect.objectContaining({ role: "wallet", matched: expect.objectContaining({ value: LISTED_WALLET }) }),
    ]);
    const byOwner = await certificate(owner, record.matter.id, { owner: LISTED_NAME.toUpperCase() });
    expect(byOwner.approval_status).toBe("blocked");
    expect(byOwner.sanctions_screen.matches.map((match) => match.role)).toEqual(["owner"]);
  });

  it("an operator approves a clear certificate, and is refused 409 for a listed one (either surface's)", async () => {
    const owner = await operator();
    const record = await createCase(app(), owner);
    const assemble = async (wallet: string) => {
      const response = await app().request("POST", "/v1/packets", {
        key: owner.key,
        body: { matter_id: record.matter.id, type: "destination_wallet_certificate", wallets: [wallet] },
      });
      expect(response.status).toBe(201);
      return Packet.parse(response.json);
    };
    const review = (packetId: string) =>
      app().rpc("mutation", "operator.reviewPacket", {
        key: owner.key,
        input: { packet_id: packetId, review_status: "approved" },
      });

    const clear = await assemble(DESTINATION);
    expect(clear.manifest.details).toMatchObject({ sanctions_screen: { complete: true, matches: [] }, owner: null });
    expect((await review(clear.id)).status).toBe(200);

    const listed = await assemble(LISTED_WALLET);
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    const refused = expectError(await review(listed.id), 409, "conflict");
    expect(refused.error.message).toContain("matched the sanctions list");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
    const after = await app().request("GET", `/v1/packets/${listed.id}`, { key: owner.key });
    expect(Packet.parse(after.json).review_state.review_status).toBe("pending");
  });
});
