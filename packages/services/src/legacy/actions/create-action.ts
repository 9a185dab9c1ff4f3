import { type Action, type actionOperations, notFound, type OperationInput } from "@crs/contract";
import { DEFAULT_ACTION_PRIORITY } from "@crs/core";
import { schema } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { assertMatterWritable } from "../../matters/assert-matter-writable";
import { lockMatter } from "../../matters/load-matter";
import { loadPacket } from "../../packets/load-packet";
import { assertCampaignGates } from "../claw/campaign-gates";
import { loadCampaign } from "../claw/load-campaign";
import { assertActionGates, recordActionEvent } from "./action-rules";
import { presentAction } from "./present-action";

/**
 * Adds an open action to a matter, under the matter row lock: the matter must be writable, the named
 * campaign and packet its own, and the gates must pass: an action of a campaign passes the campaign's
 * (sanctions, the stay of its judgment, authority), any other the action gates (sanctions, authority).
 * The one action insert, for POST /v1/actions and a campaign's actions alike.
 */
export async function createAction(
  write: WriteContext,
  { body }: OperationInput<typeof actionOperations.create>,
): Promise<Action> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  const campaignId = body.campaign_id ?? null;
  const campaign = campaignId === null ? null : await loadCampaign(tx, actor, campaignId, "campaign_id");
  if (campaign && campaign.matterId !== matter.id)
    throw notFound("campaign on this matter", campaign.id, "campaign_id");
  const linkedPacketId = body.linked_packet_id ?? null;
  if (linkedPacketId !== null) {
    const packet = await loadPacket(tx, actor, linkedPacketId, "linked_packet_id");
    if (packet.matterId !== matter.id) throw notFound("packet on this matter", linkedPacketId, "linked_packet_id");
  }
  if (campaign) await assertCampaignGates(write, matter, campaign.judgmentId);
  else await assertActionGates(write, matter);

  const now = write.clock();
  const [row] = await tx
    .insert(schema.actions)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: write.newId("action"),
      matterId: matter.id,
      campaignId: campaign?.id ?? null,
      type: body.type,
      title: body.title,
      ownerId: body.owner_id ?? null,
      priority: body.priority ?? DEFAULT_ACTION_PRIORITY,
      status: "open",
      dueAt: body.due_at ? new Date(body.due_at) : null,
      linkedPacketId,
      assignmentNotes: null,
      completionNotes: null,
      reviewRequired: body.review_required ?? false,
      evidenceRefs: [],
      completedAt: null,
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("action insert returned nothing");
  const action = presentAction(row);
  recordActionEvent(write, matter, "created", action);
  return action;
}
