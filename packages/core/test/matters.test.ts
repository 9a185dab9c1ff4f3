import { describe, expect, it } from "vitest";
import {
  checkMatterWritable,
  completeMatterEconomics,
  DEFAULT_MATTER_ECONOMICS,
  deriveRecoveryPhase,
  MATTER_STATUSES,
  RECOVERY_PHASES,
  type RecoveryPhase,
  type RecoveryProgress,
} from "../src/matters";

describe("completeMatterEconomics", () => {
  it("defaults every field when nothing is given", () => {
    const expected = { currency: "USD", counsel_fee_percentage: 0, platform_percentage: 0, holdback_percentage: 0 };
    expect(completeMatterEconomics(undefined)).toEqual(expected);
    expect(completeMatterEconomics({})).toEqual(expected);
  });

  it("keeps every given field", () => {
    const given = { currency: "EUR", counsel_fee_percentage: 33.3, platform_percentage: 5, holdback_percentage: 10 };
    expect(completeMatterEconomics(given)).toEqual(given);
  });

  it("fills only the fields left out", () => {
    expect(completeMatterEconomics({ currency: "GBP", holdback_percentage: 12.5 })).toEqual({
      currency: "GBP",
      counsel_fee_percentage: 0,
      platform_percentage: 0,
      holdback_percentage: 12.5,
    });
  });

  it("keeps a given zero rather than treating it as missing", () => {
    expect(completeMatterEconomics({ counsel_fee_percentage: 0, currency: "USD" }).counsel_fee_percentage).toBe(0);
  });

  it("treats fields explicitly set to undefined as left out", () => {
    expect(completeMatterEconomics({ currency: undefined, platform_percentage: 7 })).toEqual({
      currency: "USD",
      counsel_fee_percentage: 0,
      platform_percentage: 7,
      holdback_percentage: 0,
    });
  });

  it("returns a fresh object and never mutates the defaults", () => {
    const result = completeMatterEconomics({ currency: "CAD" });
    result.platform_percentage = 99;
    expect(DEFAULT_MATTER_ECONOMICS).toEqual({
      currency: "USD",
      counsel_fee_percentage: 0,
      platform_percentage: 0,
      holdback_percentage: 0,
    });
    expect(completeMatterEconomics(undefined)).not.toBe(DEFAULT_MATTER_ECONOMICS);
  });
});

describe("checkMatterWritable", () => {
  it("refuses writes to a closed matter with reason matter_closed", () => {
    expect(checkMatterWritable("closed")).toEqual({ refused: true, reason: "matter_closed" });
  });

  it("allows writes to active and on_hold matters", () => {
    expect(checkMatterWritable("active")).toEqual({ refused: false });
    expect(checkMatterWritable("on_hold")).toEqual({ refused: false });
  });

  it("refuses exactly the closed status among all statuses", () => {
    const refused = MATTER_STATUSES.filter((status) => checkMatterWritable(status).refused);
    expect(refused).toEqual(["closed"]);
  });
});

describe("deriveRecoveryPhase", () => {
  const intake: RecoveryProgress = {
    status: "active",
    succeededTraces: 0,
    packets: 0,
    exportedPackets: 0,
    remittances: 0,
    settled: false,
  };

  const cases: ReadonlyArray<readonly [RecoveryPhase, RecoveryProgress]> = [
    ["intake", intake],
    ["traced", { ...intake, succeededTraces: 1 }],
    ["packaged", { ...intake, succeededTraces: 1, packets: 2 }],
    ["dispatched", { ...intake, succeededTraces: 1, packets: 2, exportedPackets: 1 }],
    ["remitting", { ...intake, succeededTraces: 1, packets: 2, exportedPackets: 1, remittances: 3 }],
    ["settled", { ...intake, succeededTraces: 1, packets: 2, exportedPackets: 1, remittances: 3, settled: true }],
    ["closed", { ...intake, status: "closed" }],
  ];

  it("lists the phases in their documented order", () => {
    expect(RECOVERY_PHASES).toEqual(["intake", "traced", "packaged", "dispatched", "remitting", "settled", "closed"]);
  });

  for (const [phase, progress] of cases) {
    it(`derives ${phase} with phase_index ${RECOVERY_PHASES.indexOf(phase)}`, () => {
      expect(deriveRecoveryPhase(progress)).toEqual({
        recovery_phase: phase,
        phase_index: RECOVERY_PHASES.indexOf(phase),
      });
    });
  }

  it("covers every phase and the phase indexes increase 0..6 along the phases", () => {
    const indexes = cases.map(([, progress]) => deriveRecoveryPhase(progress).phase_index);
    expect(indexes).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("reports the furthest phase the facts support, even when earlier facts are missing", () => {
    expect(deriveRecoveryPhase({ ...intake, remittances: 1 }).recovery_phase).toBe("remitting");
    expect(deriveRecoveryPhase({ ...intake, exportedPackets: 1 }).recovery_phase).toBe("dispatched");
    expect(deriveRecoveryPhase({ ...intake, settled: true }).recovery_phase).toBe("settled");
  });

  it("puts closed above every other fact", () => {
    const everything: RecoveryProgress = {
      status: "closed",
      succeededTraces: 5,
      packets: 5,
      exportedPackets: 5,
      remittances: 5,
      settled: true,
    };
    expect(deriveRecoveryPhase(everything)).toEqual({ recovery_phase: "closed", phase_index: 6 });
  });

  it("does not advance on an on_hold status alone", () => {
    expect(deriveRecoveryPhase({ ...intake, status: "on_hold" })).toEqual({ recovery_phase: "intake", phase_index: 0 });
    expect(deriveRecoveryPhase({ ...intake, status: "on_hold", packets: 1 }).recovery_phase).toBe("packaged");
  });
});
