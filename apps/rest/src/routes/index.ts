import type { FastifyInstance } from "fastify";
import type { RestConfig } from "../plumbing/register-operation";
import { registerCapabilities } from "./capabilities.retrieve";
import { registerListEvents } from "./events.list";
import { registerRetrieveEvent } from "./events.retrieve";
import { registerVerifyEventChain } from "./events.verify-chain";
import { registerHealth } from "./health.retrieve";
import { registerCloseMatter } from "./matters.close";
import { registerCreateMatter } from "./matters.create";
import { registerRetrieveMatterDashboard } from "./matters.dashboard";
import { registerListMatters } from "./matters.list";
import { registerRetrieveMatter } from "./matters.retrieve";
import { registerUpdateMatter } from "./matters.update";
import { registerRetrieveOrganization } from "./organization.retrieve";
import { registerMintSandboxKey } from "./sandbox-key.mint";

/** Every operation of the current surface. */
export function registerCurrentRoutes(app: FastifyInstance, config: RestConfig): void {
  for (const register of [
    registerMintSandboxKey,
    registerHealth,
    registerCapabilities,
    registerRetrieveOrganization,
    registerCreateMatter,
    registerListMatters,
    registerRetrieveMatter,
    registerUpdateMatter,
    registerRetrieveMatterDashboard,
    registerCloseMatter,
    registerListEvents,
    registerVerifyEventChain,
    registerRetrieveEvent,
  ]) {
    register(app, config);
  }
}
