/**
 * The chain's verification rules as the wire defines them, for anyone holding events: the same code the
 * service runs in verify-chain, so an offline check and the service's own can only disagree about the input.
 */
export {
  type ChainBreak,
  type ChainBreakReason,
  type ChainEvent,
  type ChainPoint,
  type ChainVerifierOptions,
  checkpointSigningInput,
  computeEventHash,
  createChainVerifier,
  GENESIS_PREV_HASH,
  publicKeyFromHex,
  verifyCheckpointSignature,
  verifyEventSignature,
} from "@crs/core";
