import { OPERATIONS, parseBody, UpdateMatterBody } from "@crs/contract";
import { updateMatter } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerUpdateMatter(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.updateMatter, (ctx) =>
    ctx.write(async (tx) => ({
      status: 200,
      body: await updateMatter(
        tx,
        ctx.deps,
        ctx.actor,
        ctx.params.matter_id ?? "",
        parseBody(UpdateMatterBody, ctx.body),
      ),
    })),
  );
}
