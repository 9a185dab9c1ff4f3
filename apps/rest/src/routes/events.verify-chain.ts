import { OPERATIONS } from "@crs/contract";
import { verifyEventChain } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerVerifyEventChain(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.verifyEventChain, async (ctx) => ({
    status: 200,
    body: await verifyEventChain(ctx.deps, ctx.actor),
  }));
}
