import type { OperationDefinition, OperationGroup, OperationInput, OperationOutput } from "@crs/contract";
import type { PublicContext, ReadContext, WriteContext } from "../context";

/** The service function of one operation: what its definition says it receives and returns. */
export type HandlerFor<D extends OperationDefinition> = (
  context: D["scope"] extends "none" ? PublicContext : D["method"] extends "GET" ? ReadContext : WriteContext,
  input: OperationInput<D>,
) => Promise<OperationOutput<D>>;

/** A resource's bindings: one service function per operation of its group, no more, no fewer. */
export type GroupHandlers<G extends OperationGroup> = { [Name in keyof G]: HandlerFor<G[Name]> };

export type SurfaceHandlers<Groups extends Record<string, OperationGroup>> = {
  [Group in keyof Groups]: GroupHandlers<Groups[Group]>;
};
