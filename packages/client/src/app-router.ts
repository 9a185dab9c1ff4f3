import type {
  OperationDefinition,
  OperationGroup,
  OperationGroups,
  OperationOutput,
  RpcErrorData,
  RpcInput,
} from "@crs/contract";
import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure } from "@trpc/server";

type ProcedureOf<D extends OperationDefinition> = D["method"] extends "GET"
  ? TRPCQueryProcedure<{ input: RpcInput<D>; output: OperationOutput<D>; meta: object }>
  : TRPCMutationProcedure<{ input: RpcInput<D>; output: OperationOutput<D>; meta: object }>;

type GroupRouter<G extends OperationGroup> = {
  [Name in keyof G as G[Name] extends { rpc: false } ? never : Name]: ProcedureOf<G[Name]>;
};

export interface RpcErrorShape {
  message: string;
  code: number;
  data: RpcErrorData;
}

/**
 * The internal tRPC API's type, derived from the operation definitions the server is built from:
 * `matters.create` is the matters group's `create` operation, taking its path parameters and body
 * fields side by side and answering its response.
 */
export type AppRouter = TRPCBuiltRouter<
  { ctx: object; meta: object; errorShape: RpcErrorShape; transformer: false },
  { [Group in keyof OperationGroups]: GroupRouter<OperationGroups[Group]> }
>;
