import type { operatorOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { clearEnforcementReview } from "./clear-enforcement-review";
import { clearSanctionsHit } from "./clear-sanctions-hit";
import { clearMatterAuthorityDecision, grantMatterAuthority, revokeMatterAuthority } from "./decide-matter-authority";
import { reviewPacket, setPacketStatus } from "./decide-packet";
import { redeliverWebhook } from "./redeliver-webhook";
import { retrieveMatterAuthority } from "./retrieve-matter-authority";
import { setWebhookFallback } from "./set-webhook-fallback";

export const operatorHandlers = {
  authority: retrieveMatterAuthority,
  grantAuthority: grantMatterAuthority,
  revokeAuthority: revokeMatterAuthority,
  clearAuthorityDecision: clearMatterAuthorityDecision,
  clearReview: clearEnforcementReview,
  setPacketStatus,
  reviewPacket,
  clearSanctionsHit,
  setWebhookFallback,
  redeliverWebhook,
} satisfies GroupHandlers<typeof operatorOperations>;
