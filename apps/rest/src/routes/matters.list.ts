import { ListQuery, OPERATIONS, parseQuery } from "@crs/contract";
import { listMatters } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerListMatters(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.listMatters, async (ctx) => ({
    status: 200,
    body: await listMatters(ctx.deps, ctx.actor, parseQuery(ListQuery, ctx.query)),
  }));
}
