import { listOperations } from "../../operation";
import { debtorOperations } from "./debtors";
import { issuerRemediationOperations } from "./issuer-remediation";
import { sanctionsOperations } from "./sanctions";

/**
 * The 2026-06-11 version's own groups, served only on the legacy listener (REST, inside its window).
 * Services bind a function to each, as for the current surface; a 2026-06-11 route with no definition
 * here is still listed in LEGACY_ROUTES.
 */
export const LEGACY_OPERATION_GROUPS = {
  debtors: debtorOperations,
  issuerRemediation: issuerRemediationOperations,
  sanctions: sanctionsOperations,
};
export type LegacyOperationGroups = typeof LEGACY_OPERATION_GROUPS;

export const LEGACY_OPERATIONS = listOperations(LEGACY_OPERATION_GROUPS);

export * from "./debtors";
export * from "./issuer-remediation";
export * from "./sanctions";
