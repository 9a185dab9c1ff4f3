import { CreateMatterBody, OPERATIONS, parseBody } from "@crs/contract";
import { createMatter } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerCreateMatter(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.createMatter, (ctx) =>
    ctx.write(async (tx) => ({
      status: 201,
      body: await createMatter(tx, ctx.deps, ctx.actor, parseBody(CreateMatterBody, ctx.body)),
    })),
  );
}
