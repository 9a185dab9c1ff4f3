import { describe, expect, it } from "vitest";
import {
  certificateApprovalStatusOf,
  certificateDetailsOf,
  findCertificateApprovalRefusal,
  REMEDIATION_STATUSES,
  remediationDetailsOf,
  remediationStatusOf,
} from "../src/issuer-remediation";
import { PACKET_STATUSES, type PacketManifest } from "../src/packets";
import type { ReviewStatus } from "../src/reviews";
import {
  analyzeBlockedProperty,
  SANDBOX_SANCTIONS_LIST,
  screenMatchKey,
  screenRequiredActions,
  screenSubjects,
} from "../src/sanctions";

const LISTED_WALLET = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "address")?.value ?? "";
const LISTED_NAME = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "name")?.value ?? "";
const CLEAN = "0x1f9090aaE28b8a3dCeaDf281B0F12828e676c326";

describe("remediationStatusOf", () => {
  const status = (
    type: "issuer_freeze" | "burn_reissue",
    packet: (typeof PACKET_STATUSES)[number],
    review: ReviewStatus = "pending",
  ) => remediationStatusOf({ type, status: packet, review_status: review });

  it("reads the documented table", () => {
    expect(PACKET_STATUSES.map((packet) => status("issuer_freeze", packet))).toEqual([
      "freeze", // assembled
      "freeze", // exported
      "freeze", // served
      "freeze", // acknowledged
      "reject", // contested
      "freeze", // complied
      "close", // closed
    ]);
    expect(PACKET_STATUSES.map((packet) => status("burn_reissue", packet))).toEqual([
      "burn",
      "burn",
      "burn",
      "reissue",
      "reject",
      "remit",
      "close",
    ]);
  });

  it("a rejected review is reject until the packet is closed", () => {
    expect(status("burn_reissue", "complied", "rejected")).toBe("reject");
    expect(status("issuer_freeze", "assembled", "rejected")).toBe("reject");
    expect(status("issuer_freeze", "closed", "rejected")).toBe("close");
  });

  it("reaches every legacy status", () => {
    const reached = new Set(
      (["issuer_freeze", "burn_reissue"] as const).flatMap((type) =>
        PACKET_STATUSES.map((packet) => status(type, packet)),
      ),
    );
    expect([...reached].sort()).toEqual([...REMEDIATION_STATUSES].sort());
  });
});

describe("screenSubjects", () => {
  it("matches wallets and names as parties are matched, and records the list size", () => {
    const screen = screenSubjects(
      [
        { role: "wallet", wallet: LISTED_WALLET.toUpperCase().replace("0X", "0x") },
        { role: "owner", name: ` ${LISTED_NAME.toLowerCase()} ` },
        { role: "custodian", name: null },
      ],
      SANDBOX_SANCTIONS_LIST,
    );
    expect(screen.complete).toBe(true);
    expect(screen.list_size).toBe(SANDBOX_SANCTIONS_LIST.length);
    expect(screen.matches.map((match) => [match.role, match.entry.value])).toEqual([
      ["wallet", LISTED_WALLET],
      ["owner", LISTED_NAME],
    ]);
  });

  it("is never complete against an empty list", () => {
    expect(screenSubjects([{ role: "wallet", wallet: CLEAN }], [])).toEqual({
      complete: false,
      list_size: 0,
      matches: [],
    });
  });

  it("is never complete without a wallet screened (a certificate of no wallet certifies nothing)", () => {
    const named = [
      { role: "owner", name: "Acme Holdings LLC" },
      { role: "custodian", name: null },
    ];
    expect(screenSubjects(named, SANDBOX_SANCTIONS_LIST).complete).toBe(false);
    expect(screenSubjects([...named, { role: "wallet", wallet: "  " }], SANDBOX_SANCTIONS_LIST).complete).toBe(false);
    expect(screenSubjects([...named, { role: "wallet", wallet: CLEAN }], SANDBOX_SANCTIONS_LIST).complete).toBe(true);
  });
});

describe("certificate approval", () => {
  const certificate = (wallet: string, list = SANDBOX_SANCTIONS_LIST) => ({
    purpose: null,
    owner: null,
    custodian: null,
    signer_model: null,
    allowed_assets: [],
    sanctions_screen: screenSubjects([{ role: "wallet", wallet }], list),
  });

  it("needs a complete screen that matched nothing", () => {
    expect(findCertificateApprovalRefusal(certificate(CLEAN))).toBeNull();
    expect(findCertificateApprovalRefusal(certificate(LISTED_WALLET))).toBe("screen_matched");
    expect(findCertificateApprovalRefusal(certificate(CLEAN, []))).toBe("screen_incomplete");
    expect(findCertificateApprovalRefusal(null)).toBe("screen_incomplete");
  });

  it("is approved only when reviewed and screened clear; blocked whenever the screen matched", () => {
    expect(certificateApprovalStatusOf("pending", certificate(CLEAN))).toBe("pending");
    expect(certificateApprovalStatusOf("approved", certificate(CLEAN))).toBe("approved");
    expect(certificateApprovalStatusOf("cleared", certificate(CLEAN))).toBe("approved");
    expect(certificateApprovalStatusOf("rejected", certificate(CLEAN))).toBe("rejected");
    expect(certificateApprovalStatusOf("approved", certificate(CLEAN, []))).toBe("pending");
    expect(certificateApprovalStatusOf("approved", certificate(LISTED_WALLET))).toBe("blocked");
    expect(certificateApprovalStatusOf("rejected", certificate(LISTED_WALLET))).toBe("blocked");
  });
});

describe("details of a manifest", () => {
  const base: PacketManifest = {
    type: "issuer_freeze",
    matter_id: "matter_01",
    judgment: null,
    wallets: [],
    recovery_events: [],
    source_refs: [],
    legal_authority_id: null,
    authorized_sender: "",
    target_venue: null,
  };
  const remediation = { issuer: "I", asset: "A", network: null, notes: null, destination_wallet_certificate_id: null };

  it("reads the content of the packet's own type only", () => {
    expect(remediationDetailsOf({ ...base, details: remediation })).toEqual(remediation);
    expect(remediationDetailsOf(base)).toBeNull();
    expect(certificateDetailsOf({ ...base, details: remediation })).toBeNull();
    expect(remediationDetailsOf({ ...base, type: "exchange_freeze", details: remediation })).toBeNull();
  });
});

describe("the 2026-06-11 screen's rules", () => {
  const entry = SANDBOX_SANCTIONS_LIST[0] ?? SANDBOX_SANCTIONS_LIST[1];

  it("keys a match by subject, the matched value as the matcher compares it, and the entry", () => {
    const upper = screenSubjects(
      [{ role: "wallet", wallet: LISTED_WALLET.toUpperCase().replace("0X", "0x") }],
      SANDBOX_SANCTIONS_LIST,
    );
    const lower = screenSubjects([{ role: "wallet", wallet: LISTED_WALLET.toLowerCase() }], SANDBOX_SANCTIONS_LIST);
    const [a] = upper.matches;
    const [b] = lower.matches;
    expect(a && b && screenMatchKey(a)).toEqual(b && screenMatchKey(b));
    const asEntity = screenSubjects([{ role: "entity", name: LISTED_NAME }], SANDBOX_SANCTIONS_LIST).matches[0];
    const asCounterparty = screenSubjects([{ role: "counterparty", name: LISTED_NAME }], SANDBOX_SANCTIONS_LIST)
      .matches[0];
    expect(asEntity && screenMatchKey(asEntity)).not.toEqual(asCounterparty && screenMatchKey(asCounterparty));
  });

  it("asks for nothing when nothing matched, and says collection is paused exactly when the matter is held", () => {
    expect(screenRequiredActions({ matched: 0, open: 0, held: false })).toEqual([]);
    const open = screenRequiredActions({ matched: 2, open: 1, held: true });
    expect(open[0]).toMatch(/^Ordinary collection is paused/);
    expect(open.some((action) => action.includes("POST /v1/sanctions/review-packet"))).toBe(true);
    // every hit it matched was cleared and the matter released: nothing is paused, nothing to review
    const cleared = screenRequiredActions({ matched: 1, open: 0, held: false });
    expect(cleared.some((action) => action.includes("paused"))).toBe(false);
    expect(cleared.some((action) => action.includes("review-packet"))).toBe(false);
    expect(cleared).toHaveLength(1);
    // cleared, but the matter is still held by another open hit
    expect(screenRequiredActions({ matched: 1, open: 0, held: true })[0]).toMatch(/^Ordinary collection is paused/);
  });

  it("finds property blocked only while a reviewed hit is open", () => {
    if (!entry) throw new Error("the sandbox list is empty");
    const hit = (status: string, subject: string, value: string) => ({
      hit_id: `hit_${value}`,
      subject,
      status,
      matched_value: value,
      entry,
    });
    expect(
      analyzeBlockedProperty([
        hit("open", "wallet", "0xa"),
        hit("open", "entity", "X"),
        hit("cleared", "wallet", "0xb"),
      ]),
    ).toEqual({
      property_blocked: true,
      blocked_wallets: ["0xa"],
      blocked_persons: ["X"],
      programs: entry.program ? [entry.program] : [],
    });
    expect(analyzeBlockedProperty([hit("cleared", "wallet", "0xa")])).toEqual({
      property_blocked: false,
      blocked_wallets: [],
      blocked_persons: [],
      programs: [],
    });
  });
});
