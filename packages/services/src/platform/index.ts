import type { platformOperations } from "@crs/contract";
import { issueSandboxKey } from "../keys/mint-sandbox-key";
import type { GroupHandlers } from "../operations/handler-types";
import { checkHealth } from "./check-health";
import { describeCapabilities } from "./describe-capabilities";
import { retrieveOrganization } from "./retrieve-organization";

export const platformHandlers = {
  mintSandboxKey: (context) =>
    issueSandboxKey(context, { kind: context.surface === "legacy" ? "legacy_sandbox" : "sandbox" }),
  health: checkHealth,
  capabilities: describeCapabilities,
  organization: retrieveOrganization,
} satisfies GroupHandlers<typeof platformOperations>;
