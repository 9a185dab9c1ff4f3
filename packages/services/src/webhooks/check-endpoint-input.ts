import { AppError, EVENT_TYPES } from "@crs/contract";
import { ALL_WEBHOOK_EVENTS } from "@crs/core";
import type { WriteContext } from "../context";
import { type InvalidField, readEnabledEvents } from "./enabled-events";
import { vetWebhookTarget } from "./vet-webhook-target";

export interface CheckedEndpointInput {
  url?: string;
  enabledEvents?: string[];
}

/**
 * Checks an endpoint's url (target rules, with DNS) and enabled_events (known names) together, so one 422
 * names every bad field, as a refused body does. Returns them as they will be stored.
 */
export async function checkEndpointInput(
  input: { url?: string | undefined; enabled_events?: string[] | undefined },
  write: Pick<WriteContext, "actor" | "resolveHostname">,
  options: { defaultAllEvents: boolean },
): Promise<CheckedEndpointInput> {
  const invalid: InvalidField[] = [];
  const details: Record<string, unknown> = {};
  const checked: CheckedEndpointInput = {};

  if (input.url !== undefined) {
    try {
      checked.url = await vetWebhookTarget(input.url, write.actor.environment, write.resolveHostname);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      invalid.push(...((error.details?.invalid as InvalidField[] | undefined) ?? []));
      if (error.details?.reason) details.reason = error.details.reason;
    }
  }
  if (input.enabled_events !== undefined || options.defaultAllEvents) {
    const events = readEnabledEvents(input.enabled_events, write.actor.apiVersion);
    if (events.ok) checked.enabledEvents = events.enabledEvents;
    else {
      invalid.push(events.invalid);
      if (events.unknown.length > 0) {
        details.unknown_events = events.unknown;
        details.allowed = [ALL_WEBHOOK_EVENTS, ...EVENT_TYPES];
      }
    }
  }
  if (invalid.length > 0) {
    throw new AppError("invalid_request", {
      message: `Invalid ${invalid.map((field) => `${field.param} (${field.message})`).join("; ")}.`,
      param: invalid[0]?.param ?? "body",
      details: { invalid, ...details },
    });
  }
  return checked;
}
