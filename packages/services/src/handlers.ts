import { CURRENT_OPERATIONS, type OperationDefinition, type OperationGroups } from "@crs/contract";
import { cryptoHandlers } from "./crypto";
import { eventHandlers } from "./events";
import { jobHandlers } from "./jobs";
import { judgmentHandlers } from "./judgments";
import { ledgerHandlers } from "./ledger";
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

/** The current surface as the apps serve it: each operation with its service function. */
export function boundOperations(): BoundOperation[] {
  return CURRENT_OPERATIONS.map(({ procedure, definition }) => {
    const [group, name] = procedure.split(".") as [keyof typeof HANDLERS, string];
    const handler = (HANDLERS[group] as Record<string, ErasedHandler>)[name];
    if (!handler) throw new Error(`no service function bound to ${procedure}`);
    return { procedure, definition, handler };
  });
}
