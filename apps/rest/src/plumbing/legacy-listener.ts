import {
  AppError,
  CURRENT_OPERATIONS,
  LEGACY_VERSION,
  type LegacySuccessor,
  type OperationDefinition,
  pathParamNames,
} from "@crs/contract";
import { type CompatibilityWindow, compatibilityHeaders, isRetired } from "@crs/core";
import { chargeClientAddress, type ServiceDeps } from "@crs/services";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { operationHash, tagHash } from "../docs/anchors";

export interface LegacyListenerOptions {
  window: CompatibilityWindow;
  /** the current listener's public origin: successors, and the reference the listener's /docs sends to */
  currentBaseUrl: string;
}

/**
 * The legacy listener's compatibility window, applied before admission: inside it every answer of an
 * operation carries `Deprecation`, `Sunset` and a `successor-version` link; after it the operation
 * answers 410 `endpoint_retired` whatever the key, and does nothing. Each legacy operation's successor
 * is resolved here, once, so one that names no REST operation stops the listener from starting.
 */
export function compatibilityWindowOf(
  deps: ServiceDeps,
  legacy: LegacyListenerOptions,
  legacyDefinitions: readonly OperationDefinition[],
): (definition: OperationDefinition, request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const { window, currentBaseUrl } = legacy;
  const successors = new Map(
    legacyDefinitions.map((definition) => {
      if (!definition.successor) throw new Error(`legacy operation ${definition.id} names no successor`);
      return [definition, resolveSuccessor(definition.successor, currentBaseUrl)] as const;
    }),
  );
  return async (definition, request, reply) => {
    if (definition.outlivesLegacyWindow) return;
    const successor = successors.get(definition) ?? sameOperationOnCurrentListener(definition, request, currentBaseUrl);
    if (isRetired(window, deps.clock())) {
      await chargeClientAddress(deps, request.ip, (name, value) => reply.header(name, value));
      throw new AppError("endpoint_retired", {
        message:
          `${definition.method} ${definition.path} (version ${LEGACY_VERSION}) was retired at ` +
          `${window.sunset.toISOString()}. ${successor.description}`,
        details: { successor: successor.details },
        docUrl: successor.docUrl,
      });
    }
    const link = successor.urlFor(request.params as Record<string, string>);
    for (const [name, value] of Object.entries(compatibilityHeaders(window, link))) reply.header(name, value);
  };
}

/** An operation of the current surface served on the legacy listener is its own successor. */
function sameOperationOnCurrentListener(
  definition: OperationDefinition,
  request: FastifyRequest,
  currentBaseUrl: string,
): ResolvedSuccessor {
  const url = `${currentBaseUrl}${request.url.split("?")[0]}`;
  return {
    description: `The same operation is served on the current listener at ${url}.`,
    details: { method: definition.method, path: definition.path ?? "", url },
    docUrl: `${currentBaseUrl}/docs#${operationHash(definition.tag, definition.method, definition.path ?? "")}`,
    urlFor: () => url,
  };
}

interface ResolvedSuccessor {
  /** where the reference documents it */
  docUrl: string;
  /** what the error message and `details.successor` say */
  description: string;
  details: Record<string, string>;
  /**
   * What the `successor-version` link names for a request with these path parameters: the successor
   * on the current listener when its path can be filled from them in order, else its reference entry.
   */
  urlFor: (params: Record<string, string>) => string;
}

function resolveSuccessor(successor: LegacySuccessor, currentBaseUrl: string): ResolvedSuccessor {
  if ("tag" in successor) {
    const docUrl = `${currentBaseUrl}/docs#${tagHash(successor.tag)}`;
    return {
      docUrl,
      description: `${successor.note} See the ${successor.tag} section of the reference.`,
      details: { reference: successor.tag, note: successor.note },
      urlFor: () => docUrl,
    };
  }
  const listed = CURRENT_OPERATIONS.find(({ definition }) => definition.id === successor.operation);
  const definition = listed?.definition;
  if (!definition?.path) throw new Error(`legacy successor ${successor.operation} is not a REST operation`);
  const path = definition.path;
  const docUrl = `${currentBaseUrl}/docs#${operationHash(definition.tag, definition.method, path)}`;
  const note = successor.note ? ` ${successor.note}` : "";
  return {
    docUrl,
    description: `Its successor is ${definition.method} ${path}.${note}`,
    details: {
      operation: definition.id,
      method: definition.method,
      path,
      ...(successor.note ? { note: successor.note } : {}),
    },
    urlFor: (params) => {
      const values = Object.values(params);
      const names = pathParamNames(definition);
      if (values.length !== names.length) return docUrl;
      let index = 0;
      return `${currentBaseUrl}${path.replace(/\{\w+\}/g, () => encodeURIComponent(values[index++] ?? ""))}`;
    },
  };
}

/**
 * The window's headers while it is open, for every answer of the listener (unknown routes and
 * unreadable URLs too); an operation then names its own successor in `Link`.
 */
export function listenerWindowHeaders(deps: ServiceDeps, legacy: LegacyListenerOptions): Record<string, string> | null {
  return isRetired(legacy.window, deps.clock())
    ? null
    : compatibilityHeaders(legacy.window, `${legacy.currentBaseUrl}/docs`);
}

/**
 * After the window, the answer to a request no operation or route of the listener recognises (an
 * unknown path, an unreadable URL): the whole listener is retired, so 410 rather than 404 or 400.
 */
export function retiredListenerError(deps: ServiceDeps, legacy: LegacyListenerOptions): AppError | null {
  if (!isRetired(legacy.window, deps.clock())) return null;
  return new AppError("endpoint_retired", {
    message:
      `The ${LEGACY_VERSION} listener was retired at ${legacy.window.sunset.toISOString()}; ` +
      `the current API is served at ${legacy.currentBaseUrl}.`,
    docUrl: `${legacy.currentBaseUrl}/docs`,
  });
}

/** The listener's `/docs` sends readers (and every `doc_url`) to the current listener's reference. */
export function registerLegacyDocsRedirect(app: FastifyInstance, legacy: LegacyListenerOptions): void {
  app.get("/docs", async (_request, reply) => reply.redirect(`${legacy.currentBaseUrl}/docs`, 302));
}
