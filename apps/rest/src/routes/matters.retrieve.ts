import { OPERATIONS } from "@crs/contract";
import { retrieveMatter } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerRetrieveMatter(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.retrieveMatter, async (ctx) => ({
    status: 200,
    body: await retrieveMatter(ctx.deps, ctx.actor, ctx.params.matter_id ?? ""),
  }));
}
