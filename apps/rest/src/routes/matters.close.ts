import { CloseMatterBody, OPERATIONS, parseBody } from "@crs/contract";
import { closeMatter } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerCloseMatter(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.closeMatter, (ctx) =>
    ctx.write(async (tx) => ({
      status: 200,
      body: await closeMatter(
        tx,
        ctx.deps,
        ctx.actor,
        ctx.params.matter_id ?? "",
        parseBody(CloseMatterBody, ctx.body),
      ),
    })),
  );
}
