import {
  AppError,
  CURRENT_OPERATIONS,
  LEGACY_ROUTES,
  LEGACY_VERSION,
  type LegacyRoute,
  type LegacySuccessor,
  type OperationDefinition,
} from "@crs/contract";
import { type CompatibilityWindow, compatibilityHeaders, isRetired } from "@crs/core";
import { chargeClientAddress, type ServiceDeps } from "@crs/services";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { operationHash, tagHash } from "../docs/anchors";
import { toFastifyPath } from "./register-operation";
import { sendError } from "./send-error";

export interface LegacyListenerOptions {
  window: CompatibilityWindow;
  /** the current listener's public origin: successors, and the reference the listener's /docs sends to */
  currentBaseUrl: string;
}

/**
 * The legacy listener's compatibility window, applied before admission: inside it every answer of an
 * operation carries `Deprecation`, `Sunset` and a `successor-version` link to the same operation on the
 * current listener; after it the operation answers 410 `endpoint_retired` whatever the key, and does
 * nothing.
 */
export async function applyCompatibilityWindow(
  deps: ServiceDeps,
  legacy: LegacyListenerOptions,
  definition: OperationDefinition,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  if (definition.outlivesLegacyWindow) return;
  const { window, currentBaseUrl } = legacy;
  const successor = successorOf(definition, request, currentBaseUrl);
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
  for (const [name, value] of Object.entries(compatibilityHeaders(window, successor.linkUrl)))
    reply.header(name, value);
}

/**
 * What replaces an operation the legacy listener serves: a legacy operation names its successor; an
 * operation of the current surface is its own, on the current listener at the very path asked for.
 */
function successorOf(
  definition: OperationDefinition,
  request: FastifyRequest,
  currentBaseUrl: string,
): ResolvedSuccessor & { linkUrl: string } {
  if (definition.successor) {
    const resolved = resolveSuccessor(definition.successor, currentBaseUrl);
    return { ...resolved, linkUrl: resolved.docUrl };
  }
  const url = `${currentBaseUrl}${request.url.split("?")[0]}`;
  return {
    description: `The same operation is served on the current listener at ${url}.`,
    details: { method: definition.method, path: definition.path ?? "", url },
    docUrl: `${currentBaseUrl}/docs#${operationHash(definition.tag, definition.method, definition.path ?? "")}`,
    linkUrl: url,
  };
}

interface ResolvedSuccessor {
  /** where the reference documents it */
  docUrl: string;
  /** what the error message and `details.successor` say */
  description: string;
  details: Record<string, string>;
}

function resolveSuccessor(successor: LegacySuccessor, currentBaseUrl: string): ResolvedSuccessor {
  if ("tag" in successor) {
    return {
      docUrl: `${currentBaseUrl}/docs#${tagHash(successor.tag)}`,
      description: `${successor.note} See the ${successor.tag} section of the reference.`,
      details: { reference: successor.tag, note: successor.note },
    };
  }
  const listed = CURRENT_OPERATIONS.find(({ definition }) => definition.id === successor.operation);
  const definition = listed?.definition;
  if (!definition?.path) throw new Error(`legacy successor ${successor.operation} is not a REST operation`);
  const note = successor.note ? ` ${successor.note}` : "";
  return {
    docUrl: `${currentBaseUrl}/docs#${operationHash(definition.tag, definition.method, definition.path)}`,
    description: `Its successor is ${definition.method} ${definition.path}.${note}`,
    details: {
      operation: definition.id,
      method: definition.method,
      path: definition.path,
      ...(successor.note ? { note: successor.note } : {}),
    },
  };
}

/**
 * The window's headers while it is open, for every answer of the listener (unknown routes and
 * unreadable URLs too); an operation or a legacy route then names its own successor in `Link`.
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

/**
 * The 2026-06-11 routes this server does not serve as operations (see LEGACY_ROUTES): after the window
 * they answer 410 `endpoint_retired` pointing at their successor; inside it, 404 `not_found` saying so,
 * with the window's headers. They answer before the body is read (whatever it holds), need no key, and
 * charge the client address as any unknown route does. `/docs` sends readers (and every `doc_url`) to
 * the current listener's reference.
 */
export function registerLegacyRoutes(app: FastifyInstance, deps: ServiceDeps, legacy: LegacyListenerOptions): void {
  const { window, currentBaseUrl } = legacy;
  app.get("/docs", async (_request, reply) => reply.redirect(`${currentBaseUrl}/docs`, 302));
  for (const route of LEGACY_ROUTES) {
    const successor = resolveSuccessor(route.successor, currentBaseUrl);
    app.route({
      method: route.method,
      url: toFastifyPath(route.path),
      onRequest: async (request, reply) => {
        try {
          const answer = legacyRouteAnswer(route, successor, window, deps.clock(), reply);
          await chargeClientAddress(deps, request.ip, (name, value) => reply.header(name, value));
          throw answer;
        } catch (error) {
          return sendError(reply, request, error, deps.publicBaseUrl);
        }
      },
      handler: async () => {
        throw new Error("a legacy route answers in onRequest");
      },
    });
  }
}

function legacyRouteAnswer(
  route: LegacyRoute,
  successor: ResolvedSuccessor,
  window: CompatibilityWindow,
  now: Date,
  reply: FastifyReply,
): AppError {
  const name = `${route.method} ${route.path}`;
  if (isRetired(window, now)) {
    return new AppError("endpoint_retired", {
      message: `${name} (version ${LEGACY_VERSION}) was retired at ${window.sunset.toISOString()}. ${successor.description}`,
      details: { successor: successor.details },
      docUrl: successor.docUrl,
    });
  }
  for (const [header, value] of Object.entries(compatibilityHeaders(window, successor.docUrl))) {
    reply.header(header, value);
  }
  return new AppError("not_found", {
    message: `${name} (version ${LEGACY_VERSION}, deprecated) is not served by this server. ${successor.description}`,
    details: { successor: successor.details },
    docUrl: successor.docUrl,
  });
}
