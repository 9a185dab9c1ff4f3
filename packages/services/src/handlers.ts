import {
  CURRENT_OPERATIONS,
  LEGACY_OPERATIONS,
  type LegacyOperationGroups,
  type ListedOperation,
  type OperationDefinition,
  type OperationGroups,
} from "@crs/contract";
import { cryptoHandlers } from "./crypto";
import { eventHandlers } from "./events";
import { jobHandlers } from "./jobs";
import { judgmentHandlers } from "./judgments";
import { ledgerHandlers } from "./ledger";
import { actionHandlers } from "./legacy/actions";
import { clawHandlers } from "./legacy/claw";
import { legacyCryptoHandlers } from "./legacy/crypto";
import { debtorHandlers } from "./legacy/debtors";
import { issuerRemediationHandlers } from "./legacy/issuer-remediation";
import { monitoringHandlers } from "./legacy/monitoring";
import { networkAttributionHandlers } from "./legacy/network-attribution";
import { sanctionsHandlers } from "./legacy/sanctions";
import { matterHandlers } from "./matters";
import type { SurfaceHandlers } from "./operations/handler-types";
import type { ErasedHandler } from "./operations/run-operation";
import { operatorHandlers } from "./operator";
import { packetHandlers } from "./packets";
import { partyHandlers } from "./parties";
import { platformHandlers } from "./platform";
import { waterfallHandlers } from "./waterfall";
import { webhookEndpointHandlers } from "./webhooks";

/** Every operation of the current surface bound to its service function: one line per resource group. */
export const HANDLERS = {
  platform: platformHandlers,
  matters: matterHandlers,
  parties: partyHandlers,
  judgments: judgmentHandlers,
  packets: packetHandlers,
  ledger: ledgerHandlers,
  waterfall: waterfallHandlers,
  events: eventHandlers,
  jobs: jobHandlers,
  crypto: cryptoHandlers,
  webhookEndpoints: webhookEndpointHandlers,
  operator: operatorHandlers,
} satisfies SurfaceHandlers<OperationGroups>;

export interface BoundOperation {
  /** the tRPC procedure path, `<group>.<name>` */
  procedure: string;
  definition: OperationDefinition;
  handler: ErasedHandler;
}

/** The 2026-06-11 version's own groups, bound as the current ones are; served on the legacy listener only. */
export const LEGACY_HANDLERS = {
  claw: clawHandlers,
  debtors: debtorHandlers,
  actions: actionHandlers,
  networkAttribution: networkAttributionHandlers,
  legacyCrypto: legacyCryptoHandlers,
  monitoring: monitoringHandlers,
  issuerRemediation: issuerRemediationHandlers,
  sanctions: sanctionsHandlers,
} satisfies SurfaceHandlers<LegacyOperationGroups>;

function bind(listed: readonly ListedOperation[], handlers: Record<string, Record<string, ErasedHandler>>) {
  return listed.map(({ procedure, definition }): BoundOperation => {
    const [group, name] = procedure.split(".") as [string, string];
    const handler = handlers[group]?.[name];
    if (!handler) throw new Error(`no service function bound to ${procedure}`);
    return { procedure, definition, handler };
  });
}

/** The current surface as the apps serve it: each operation with its service function. */
export function boundOperations(): BoundOperation[] {
  return bind(CURRENT_OPERATIONS, HANDLERS as unknown as Record<string, Record<string, ErasedHandler>>);
}

/** The legacy listener's own operations, each with its service function. */
export function boundLegacyOperations(): BoundOperation[] {
  return bind(LEGACY_OPERATIONS, LEGACY_HANDLERS as unknown as Record<string, Record<string, ErasedHandler>>);
}
