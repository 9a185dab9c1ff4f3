import type { MatterAuthority, OperationInput, operatorOperations } from "@crs/contract";
import { schema } from "@crs/db";
import type { WriteContext } from "../context";
import { deriveAuthorityOfMatter } from "../judgments/matter-authority";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import { recordMatterNote } from "../matters/record-matter-note";

type Decision = "grant" | "revoke" | "clear";

/**
 * Records an operator's decision on a matter's authority and answers the authority that follows.
 * The catalog has no authority event: `matter.updated` carries the decision and the authority.
 */
async function decideMatterAuthority(
  write: WriteContext,
  decision: Decision,
  body: { matter_id: string; notes?: string | undefined },
): Promise<MatterAuthority> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  await tx.insert(schema.matterAuthorityDecisions).values({
    organizationId: actor.organizationId,
    environment: actor.environment,
    matterId: matter.id,
    decision,
    notes: body.notes ?? null,
    decidedAt: write.clock(),
    requestId: actor.requestId,
    actorId: actor.keyId,
  });
  const authority = await deriveAuthorityOfMatter(tx, actor, matter.id);
  recordMatterNote(write, matter, { authority_decision: decision, authority });
  return authority;
}

export const grantMatterAuthority = (
  write: WriteContext,
  { body }: OperationInput<typeof operatorOperations.grantAuthority>,
) => decideMatterAuthority(write, "grant", body);

export const revokeMatterAuthority = (
  write: WriteContext,
  { body }: OperationInput<typeof operatorOperations.revokeAuthority>,
) => decideMatterAuthority(write, "revoke", body);

export const clearMatterAuthorityDecision = (
  write: WriteContext,
  { body }: OperationInput<typeof operatorOperations.clearAuthorityDecision>,
) => decideMatterAuthority(write, "clear", body);
