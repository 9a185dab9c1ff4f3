/** Matter rules: modes, statuses, economics, and what a closed matter refuses. */
export const MATTER_MODES = ["recovery", "small_judgment", "receivership", "monitoring"] as const;
export type MatterMode = (typeof MATTER_MODES)[number];

export const MATTER_STATUSES = ["active", "on_hold", "closed"] as const;
export type MatterStatus = (typeof MATTER_STATUSES)[number];

/** Statuses a PATCH may set; `closed` is reached only through the close operation. */
export const PATCHABLE_MATTER_STATUSES = ["active", "on_hold"] as const;

export const MATTER_CLOSE_REASONS = ["paid", "settled", "exhausted", "stayed", "administratively_closed"] as const;
export type MatterCloseReason = (typeof MATTER_CLOSE_REASONS)[number];

export interface MatterEconomics {
  currency: string;
  counsel_fee_percentage: number;
  platform_percentage: number;
  holdback_percentage: number;
}

export const DEFAULT_MATTER_ECONOMICS: MatterEconomics = {
  currency: "USD",
  counsel_fee_percentage: 0,
  platform_percentage: 0,
  holdback_percentage: 0,
};

/** Fills the economics fields a caller left out with their defaults. */
export function completeMatterEconomics(partial: Partial<MatterEconomics> | undefined): MatterEconomics {
  return { ...DEFAULT_MATTER_ECONOMICS, ...stripUndefined(partial ?? {}) };
}

/** A PATCH of economics changes only the fields it names. */
export function mergeMatterEconomics(
  current: MatterEconomics,
  patch: Partial<MatterEconomics> | undefined,
): MatterEconomics {
  return { ...current, ...stripUndefined(patch ?? {}) };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export type MatterWriteRefusal = { refused: true; reason: "matter_closed" } | { refused: false };

/** A closed matter refuses writes to itself and its children. */
export function checkMatterWritable(status: MatterStatus): MatterWriteRefusal {
  return status === "closed" ? { refused: true, reason: "matter_closed" } : { refused: false };
}

export const RECOVERY_PHASES = [
  "intake",
  "traced",
  "packaged",
  "dispatched",
  "remitting",
  "settled",
  "closed",
] as const;
export type RecoveryPhase = (typeof RECOVERY_PHASES)[number];

export interface RecoveryProgress {
  status: MatterStatus;
  succeededTraces: number;
  packets: number;
  exportedPackets: number;
  remittances: number;
  settled: boolean;
}

/** The furthest phase the matter's recorded facts support. */
export function deriveRecoveryPhase(progress: RecoveryProgress): {
  recovery_phase: RecoveryPhase;
  phase_index: number;
} {
  const phase: RecoveryPhase =
    progress.status === "closed"
      ? "closed"
      : progress.settled
        ? "settled"
        : progress.remittances > 0
          ? "remitting"
          : progress.exportedPackets > 0
            ? "dispatched"
            : progress.packets > 0
              ? "packaged"
              : progress.succeededTraces > 0
                ? "traced"
                : "intake";
  return { recovery_phase: phase, phase_index: RECOVERY_PHASES.indexOf(phase) };
}
