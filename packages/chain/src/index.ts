export * from "./evm-provider";
export * from "./label-store";
