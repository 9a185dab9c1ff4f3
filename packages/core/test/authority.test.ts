import { describe, expect, it } from "vitest";
import {
  AUTHORITY_PACKET_TYPES,
  deriveMatterAuthority,
  findEnforcementPostureRefusal,
  findPacketRefusal,
  isSanctionsExemptPacket,
  type JudgmentAuthorityFacts,
  packetNeedsAuthority,
  SANCTIONS_EXEMPT_PACKET_TYPES,
} from "../src/authority";
import { PACKET_TYPES } from "../src/packets";

const ready: JudgmentAuthorityFacts = {
  judgment_id: "judgment_a",
  latest_validation_ready: true,
  stay_in_effect: false,
};
const stayed: JudgmentAuthorityFacts = {
  judgment_id: "judgment_b",
  latest_validation_ready: true,
  stay_in_effect: true,
};
const notReady: JudgmentAuthorityFacts = {
  judgment_id: "judgment_c",
  latest_validation_ready: false,
  stay_in_effect: false,
};
const neverValidated: JudgmentAuthorityFacts = {
  judgment_id: "judgment_d",
  latest_validation_ready: null,
  stay_in_effect: false,
};

describe("packet types", () => {
  it("lists the eleven documented types", () => {
    expect(PACKET_TYPES).toHaveLength(11);
    expect(new Set(PACKET_TYPES).size).toBe(11);
    expect(PACKET_TYPES).toContain("exchange_freeze");
    expect(PACKET_TYPES).not.toContain("freeze_package");
  });

  it("requires authority for exactly the six legal-process types", () => {
    expect(PACKET_TYPES.filter(packetNeedsAuthority)).toEqual([
      "vasp_legal_process",
      "exchange_freeze",
      "exchange_turnover",
      "turnover_workflow",
      "issuer_freeze",
      "burn_reissue",
    ]);
    expect(AUTHORITY_PACKET_TYPES).toHaveLength(6);
  });

  it("exempts exactly sanctions_review and ofac_report from the sanctions gate", () => {
    expect(PACKET_TYPES.filter(isSanctionsExemptPacket)).toEqual(["sanctions_review", "ofac_report"]);
    expect(SANCTIONS_EXEMPT_PACKET_TYPES).toEqual(["sanctions_review", "ofac_report"]);
  });
});

describe("deriveMatterAuthority", () => {
  it("grants authority through a judgment with a ready validation and no stay", () => {
    expect(deriveMatterAuthority({ judgments: [notReady, ready, stayed], operator: null })).toEqual({
      granted: true,
      basis: "ready_judgment",
      judgment_ids: ["judgment_a"],
    });
  });

  it("grants nothing when the only ready judgment is stayed, or none is ready", () => {
    expect(deriveMatterAuthority({ judgments: [stayed, notReady, neverValidated], operator: null })).toEqual({
      granted: false,
      basis: "none",
      judgment_ids: [],
    });
    expect(deriveMatterAuthority({ judgments: [], operator: null }).granted).toBe(false);
  });

  it("lets an operator revoke hold even over a ready, unstayed judgment", () => {
    expect(deriveMatterAuthority({ judgments: [ready], operator: "revoke" })).toEqual({
      granted: false,
      basis: "operator_revoke",
      judgment_ids: [],
    });
  });

  it("lets an operator grant authority without a ready validation", () => {
    expect(deriveMatterAuthority({ judgments: [notReady], operator: "grant" })).toEqual({
      granted: true,
      basis: "operator_grant",
      judgment_ids: [],
    });
  });
});

describe("findPacketRefusal", () => {
  const allowed = { sanctions_hold: false, judgment_stay_in_effect: false, authority_granted: true };

  it("allows every type when nothing stands in the way", () => {
    for (const type of PACKET_TYPES) expect(findPacketRefusal({ type, ...allowed }), type).toBeNull();
  });

  it("refuses a legal-process packet without authority, and only those", () => {
    const refused = PACKET_TYPES.filter(
      (type) => findPacketRefusal({ type, ...allowed, authority_granted: false }) === "authority_required",
    );
    expect(refused).toEqual([...AUTHORITY_PACKET_TYPES]);
  });

  it("refuses every packet under a sanctions hold except the sanctions packets", () => {
    const passing = PACKET_TYPES.filter(
      (type) => findPacketRefusal({ type, ...allowed, sanctions_hold: true }) === null,
    );
    expect(passing).toEqual(["sanctions_review", "ofac_report"]);
  });

  it("refuses every packet bound to a stayed judgment", () => {
    for (const type of PACKET_TYPES) {
      expect(findPacketRefusal({ type, ...allowed, judgment_stay_in_effect: true }), type).toBe("stay_in_effect");
    }
  });

  it("reports a sanctions hold first, then a stay, then missing authority", () => {
    const everything = { sanctions_hold: true, judgment_stay_in_effect: true, authority_granted: false };
    expect(findPacketRefusal({ type: "exchange_freeze", ...everything })).toBe("sanctions_gate");
    expect(findPacketRefusal({ type: "exchange_freeze", ...everything, sanctions_hold: false })).toBe("stay_in_effect");
    expect(findPacketRefusal({ type: "sanctions_review", ...everything })).toBe("stay_in_effect");
  });
});

describe("findEnforcementPostureRefusal", () => {
  it("refuses under a stay first, then without authority", () => {
    expect(findEnforcementPostureRefusal({ judgment_stay_in_effect: true, authority_granted: false })).toBe(
      "stay_in_effect",
    );
    expect(findEnforcementPostureRefusal({ judgment_stay_in_effect: false, authority_granted: false })).toBe(
      "authority_required",
    );
    expect(findEnforcementPostureRefusal({ judgment_stay_in_effect: false, authority_granted: true })).toBeNull();
  });
});
