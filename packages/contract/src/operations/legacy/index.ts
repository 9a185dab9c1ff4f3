import { listOperations } from "../../operation";
import { actionOperations } from "./actions";
import { clawOperations } from "./claw";
import { legacyCryptoOperations } from "./crypto";
import { debtorOperations } from "./debtors";
import { issuerRemediationOperations } from "./issuer-remediation";
import { monitoringOperations } from "./monitoring";
import { networkAttributionOperations } from "./network-attribution";
import { sanctionsOperations } from "./sanctions";

/**
 * The 2026-06-11 version's own groups, served only on the legacy listener (REST, inside its window).
 * Services bind a function to each, as for the current surface.
 */
export const LEGACY_OPERATION_GROUPS = {
  claw: clawOperations,
  debtors: debtorOperations,
  actions: actionOperations,
  networkAttribution: networkAttributionOperations,
  legacyCrypto: legacyCryptoOperations,
  monitoring: monitoringOperations,
  issuerRemediation: issuerRemediationOperations,
  sanctions: sanctionsOperations,
};
export type LegacyOperationGroups = typeof LEGACY_OPERATION_GROUPS;

export const LEGACY_OPERATIONS = listOperations(LEGACY_OPERATION_GROUPS, "legacy");

export * from "./actions";
export * from "./claw";
export * from "./crypto";
export * from "./debtors";
export * from "./issuer-remediation";
export * from "./monitoring";
export * from "./network-attribution";
export * from "./sanctions";
