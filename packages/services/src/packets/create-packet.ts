import {
  AppError,
  type CreatePacketBody,
  notFound,
  type OperationInput,
  type Packet,
  type packetOperations,
} from "@crs/contract";
import {
  certificateApprovalStatusOf,
  certificateDetailsOf,
  computePacketContentHash,
  type DestinationWalletCertificateDetails,
  findPacketRefusal,
  formatTimestamp,
  type IssuerRemediationDetails,
  isStayInEffect,
  type PacketDetails,
  type PacketManifest,
  type PacketRefusal,
  type PacketWallet,
  screenSubjects,
} from "@crs/core";
import { schema, tenantScope } from "@crs/db";
import { and, asc, eq } from "drizzle-orm";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { loadJudgment } from "../judgments/load-judgment";
import { deriveAuthorityOfMatter } from "../judgments/matter-authority";
import { loadMatterRecoveryEventsById } from "../ledger/ledger-queries";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import { walletsOf } from "../parties/wallets-of";
import { loadPacketOfType } from "./load-packet";
import { type PacketRow, presentPacket } from "./present-packet";
import { normalizeSourceRefs } from "./source-refs";

const REFUSAL_MESSAGES: Record<PacketRefusal, (type: string) => string> = {
  sanctions_gate: (type) =>
    `The matter has a sanctions hit awaiting review: only sanctions_review and ofac_report packets may be created until a reviewer clears it (asked for ${type}).`,
  stay_in_effect: () =>
    "The bound judgment is stayed (appeal stay or automatic bankruptcy stay): no packet may bind it.",
  authority_required: (type) =>
    `A ${type} packet needs granted authority: a ready validation of one of the matter's judgments with no stay, or an operator's grant.`,
};

/**
 * Assembles a packet: binds the matter's judgment, wallets, recovery events (as they stand now), source
 * refs, legal authority, authorized sender and target venue into the manifest, hashes it, and checks
 * the gates (sanctions, stay, authority) under the matter row lock.
 */
export async function createPacket(
  write: WriteContext,
  { body }: OperationInput<typeof packetOperations.create>,
): Promise<Packet> {
  const row = await assemblePacket(write, { body });
  return presentPacket(row, [], write.publicBaseUrl);
}

/** What the 2026-06-11 issuer remediation operations add to a packet's assembly. */
export interface PacketAssembly {
  body: CreatePacketBody;
  /** an issuer remediation's type-specific content (its certificate id is checked to be the matter's) */
  remediation?: IssuerRemediationDetails;
  /** a certificate's type-specific content; its sanctions screen is run here, for every certificate */
  certificate?: Omit<DestinationWalletCertificateDetails, "sanctions_screen">;
  /**
   * Type-specific content read under the matter's row lock (after the matter is found, before the
   * gates): the wallets to bind and the details. A 404 it throws names the caller's field.
   */
  details?: (matterId: string) => Promise<{ wallets: PacketWallet[]; details: PacketDetails }>;
  /** ask for granted authority even when the type does not need it */
  authorityNeeded?: boolean;
  /** the field an authority refusal names (default `type`) */
  authorityParam?: string;
}

/** The one way a packet is written, for both surfaces: returns the row, after appending packet.created. */
export async function assemblePacket(write: WriteContext, assembly: PacketAssembly): Promise<PacketRow> {
  const { body } = assembly;
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);

  const judgmentId = body.judgment_id ?? null;
  const judgment = judgmentId === null ? null : await loadJudgment(tx, actor, judgmentId, "judgment_id");
  if (judgment && judgment.matterId !== matter.id)
    throw notFound("judgment on this matter", judgment.id, "judgment_id");
  const recoveryRows = await loadMatterRecoveryEventsById(
    tx,
    actor,
    matter.id,
    body.recovery_event_ids ?? [],
    "recovery_event_ids",
  );
  const certificateId = assembly.remediation?.destination_wallet_certificate_id ?? null;
  if (certificateId !== null) await assertCertificateUsable(write, matter.id, certificateId);

  const read = assembly.details ? await assembly.details(matter.id) : null;

  const authority = await deriveAuthorityOfMatter(tx, actor, matter.id);
  const refusal = findPacketRefusal({
    type: body.type,
    sanctions_hold: matter.sanctionsHold,
    judgment_stay_in_effect: judgment
      ? isStayInEffect({ appeal_stay_status: judgment.appealStayStatus, bankruptcy_status: judgment.bankruptcyStatus })
      : false,
    authority_granted: authority.granted,
    ...(assembly.authorityNeeded ? { authority_needed: true } : {}),
  });
  if (refusal) {
    throw new AppError(refusal, {
      message: REFUSAL_MESSAGES[refusal](body.type),
      param:
        refusal === "stay_in_effect"
          ? "judgment_id"
          : refusal === "sanctions_gate"
            ? "matter_id"
            : (assembly.authorityParam ?? "type"),
    });
  }

  const wallets: PacketWallet[] =
    read !== null
      ? read.wallets
      : body.wallets !== undefined
        ? walletsOf(body.wallets).map(({ address, network }) => ({ address, network }))
        : await debtorWallets(write, matter.id);
  const details = read !== null ? read.details : detailsOf(write, assembly, wallets);

  const manifest: PacketManifest = {
    type: body.type,
    matter_id: matter.id,
    judgment: judgment
      ? {
          judgment_id: judgment.id,
          court: judgment.court,
          case_number: judgment.caseNumber,
          jurisdiction: judgment.jurisdiction,
          creditor: judgment.creditor,
          debtor: judgment.debtor,
          amount: {
            amount: judgment.amount,
            currency: judgment.currency,
            valuation_time: judgment.valuationTime ? formatTimestamp(judgment.valuationTime) : null,
          },
          date_entered: judgment.dateEntered,
        }
      : null,
    wallets,
    recovery_events: recoveryRows.map((row) => ({
      recovery_event_id: row.id,
      event_type: row.eventType,
      asset: row.asset,
      gross_amount: row.grossAmount,
      network: row.network,
      source: row.source,
      description: row.description,
      status: row.status,
      created_at: formatTimestamp(row.createdAt),
    })),
    source_refs: normalizeSourceRefs(body.source_refs),
    legal_authority_id: body.legal_authority_id ?? null,
    authorized_sender: body.authorized_sender ?? "",
    target_venue: body.target_venue ?? null,
    ...(details ? { details } : {}),
  };

  const now = write.clock();
  const [row] = await tx
    .insert(schema.packets)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: write.newId("packet"),
      matterId: matter.id,
      type: body.type,
      status: "assembled",
      judgmentId: judgment?.id ?? null,
      recoveryEventIds: recoveryRows.map((r) => r.id),
      manifest,
      contentHash: computePacketContentHash(manifest),
      reviewStatus: "pending",
      reviewOwner: "",
      reviewNotes: "",
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("packet insert returned nothing");
  const packet = presentPacket(row, [], write.publicBaseUrl);
  write.recordEvent({ type: "packet.created", idField: "packet_id", object: packet, matterId: matter.id });
  return row;
}

/**
 * A remediation may name only a certificate of its own matter (404 otherwise) that could still be
 * approved: one whose screen matched (`blocked`) or that a reviewer rejected is refused (409).
 */
async function assertCertificateUsable(write: WriteContext, matterId: string, certificateId: string): Promise<void> {
  const param = "destination_wallet_certificate_id";
  const certificate = await loadPacketOfType(write.tx, write.actor, certificateId, {
    types: ["destination_wallet_certificate"],
    what: "destination wallet certificate of this matter",
    param,
    matterId,
  });
  const approval = certificateApprovalStatusOf(certificate.reviewStatus, certificateDetailsOf(certificate.manifest));
  if (approval === "blocked" || approval === "rejected") {
    throw new AppError("conflict", {
      message:
        approval === "blocked"
          ? `Destination wallet certificate '${certificate.id}' is blocked: its sanctions screen matched the sanctions list, so it can never be approved.`
          : `Destination wallet certificate '${certificate.id}' was rejected by a reviewer; assemble and certify another destination.`,
      param,
      details: { reason: `certificate_${approval}`, approval_status: approval },
    });
  }
}

/**
 * A certificate (from either surface) binds the sanctions screen of its wallets, owner and custodian,
 * run now against the environment's list; an issuer remediation binds what the caller said of it.
 */
function detailsOf(write: WriteContext, assembly: PacketAssembly, wallets: PacketWallet[]): PacketDetails | null {
  if (assembly.body.type === "destination_wallet_certificate") {
    const certificate = assembly.certificate ?? {
      purpose: null,
      owner: null,
      custodian: null,
      signer_model: null,
      allowed_assets: [],
    };
    const sanctions_screen = screenSubjects(
      [
        ...wallets.map((wallet) => ({ role: "wallet", wallet })),
        { role: "owner", name: certificate.owner },
        { role: "custodian", name: certificate.custodian },
      ],
      write.sanctionsList,
    );
    return { ...certificate, sanctions_screen };
  }
  return assembly.remediation ?? null;
}

/** With no `wallets` in the request, a packet binds the wallets of the matter's debtors, in creation order. */
async function debtorWallets(write: WriteContext, matterId: string): Promise<PacketWallet[]> {
  const p = schema.parties;
  const debtors = await write.tx
    .select({ wallets: p.wallets })
    .from(p)
    .where(and(tenantScope(p, write.actor), eq(p.matterId, matterId), eq(p.role, "debtor")))
    .orderBy(asc(p.id));
  return debtors.flatMap((debtor) => debtor.wallets.map(({ address, network }) => ({ address, network })));
}
