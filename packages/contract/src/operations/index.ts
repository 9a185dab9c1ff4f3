import { listOperations } from "../operation";
import { cryptoOperations } from "./crypto";
import { eventOperations } from "./events";
import { jobOperations } from "./jobs";
import { judgmentOperations } from "./judgments";
import { ledgerOperations } from "./ledger";
import { matterOperations } from "./matters";
import { operatorOperations } from "./operator";
import { packetOperations } from "./packets";
import { partyOperations } from "./parties";
import { platformOperations } from "./platform";
import { waterfallOperations } from "./waterfall";
import { webhookEndpointOperations } from "./webhook-endpoints";

/**
 * The current surface: one line per resource group. A group's key is the first part of its tRPC
 * procedures' names (`matters.create`); services must bind a function to every operation here.
 */
export const OPERATION_GROUPS = {
  platform: platformOperations,
  matters: matterOperations,
  parties: partyOperations,
  judgments: judgmentOperations,
  packets: packetOperations,
  ledger: ledgerOperations,
  waterfall: waterfallOperations,
  events: eventOperations,
  jobs: jobOperations,
  crypto: cryptoOperations,
  webhookEndpoints: webhookEndpointOperations,
  operator: operatorOperations,
};
export type OperationGroups = typeof OPERATION_GROUPS;

export const CURRENT_OPERATIONS = listOperations(OPERATION_GROUPS, "current");

export * from "./crypto";
export * from "./events";
export * from "./jobs";
export * from "./judgments";
export * from "./ledger";
export * from "./legacy/index";
export * from "./matters";
export * from "./operator";
export * from "./packets";
export * from "./parties";
export * from "./platform";
export * from "./waterfall";
export * from "./webhook-endpoints";
