import { isOneOf } from '../platform/validation/one-of';

/**
 * Herald's scope table: every scope a key can hold, and the scope each /v1 route requires.
 * It lists only routes that exist (an e2e test compares it with the served routes). The
 * route guard reads ROUTE_SCOPES and nothing else, so a /v1 route that is missing here
 * cannot be reached by any key: auth is closed by default.
 */
export const SCOPES = [
  'subscribers:read',
  'subscribers:write',
  'segments:read',
  'segments:write',
  'campaigns:read',
  'campaigns:write',
  'campaigns:send',
  'templates:read',
  'templates:write',
  'transactional:send',
  'stats:read',
  'stats:write',
  'webhooks:read',
  'webhooks:write',
  'domains:read',
  'domains:write',
  'messages:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => isOneOf(SCOPES, value);

/** Keyed by `METHOD path`, with the path as the router spells it (`:id` parameters). */
export const ROUTE_SCOPES: Readonly<Record<string, Scope>> = {
  'GET /v1/subscribers': 'subscribers:read',
  'GET /v1/subscribers/:id': 'subscribers:read',
  'POST /v1/subscribers': 'subscribers:write',
  'PATCH /v1/subscribers/:id': 'subscribers:write',
  'POST /v1/subscribers/batch': 'subscribers:write',
  'POST /v1/erasures': 'subscribers:write',
  'POST /v1/imports': 'subscribers:write',
  'GET /v1/imports/:id': 'subscribers:read',
  'GET /v1/imports/:id/errors': 'subscribers:read',
  'POST /v1/exports': 'subscribers:read',
  'GET /v1/exports/:id': 'subscribers:read',
  'GET /v1/exports/:id/download': 'subscribers:read',
  'GET /v1/suppressions': 'subscribers:read',
  'POST /v1/suppressions': 'subscribers:write',
  'DELETE /v1/suppressions/:email': 'subscribers:write',

  'GET /v1/segments': 'segments:read',
  'GET /v1/segments/:id': 'segments:read',
  'POST /v1/segments': 'segments:write',
  'PATCH /v1/segments/:id': 'segments:write',
  'DELETE /v1/segments/:id': 'segments:write',

  'GET /v1/campaigns': 'campaigns:read',
  'GET /v1/campaigns/:id': 'campaigns:read',
  'POST /v1/campaigns': 'campaigns:write',
  'PATCH /v1/campaigns/:id': 'campaigns:write',
  'DELETE /v1/campaigns/:id': 'campaigns:write',
  'POST /v1/campaigns/:id/send': 'campaigns:send',
  'GET /v1/campaigns/:id/stats': 'stats:read',
  'POST /v1/campaigns/:id/schedule': 'campaigns:send',
  'DELETE /v1/campaigns/:id/schedule': 'campaigns:send',
  'POST /v1/campaigns/:id/pause': 'campaigns:send',
  'POST /v1/campaigns/:id/resume': 'campaigns:send',
  'POST /v1/campaigns/:id/cancel': 'campaigns:send',
  'POST /v1/campaigns/:id/test': 'campaigns:send',
  'POST /v1/campaigns/:id/duplicate': 'campaigns:write',

  'GET /v1/templates': 'templates:read',
  'GET /v1/templates/:id': 'templates:read',
  'POST /v1/templates': 'templates:write',
  'PATCH /v1/templates/:id': 'templates:write',
  'DELETE /v1/templates/:id': 'templates:write',
  'POST /v1/templates/:id/preview': 'templates:read',

  'POST /v1/transactional/send': 'transactional:send',
  'GET /v1/transactional/:id': 'transactional:send',

  'GET /v1/stats': 'stats:read',
  'POST /v1/conversions': 'stats:write',

  'GET /v1/webhooks': 'webhooks:read',
  'GET /v1/webhooks/:id': 'webhooks:read',
  'GET /v1/webhooks/:id/deliveries': 'webhooks:read',
  'POST /v1/webhooks': 'webhooks:write',
  'PATCH /v1/webhooks/:id': 'webhooks:write',
  'DELETE /v1/webhooks/:id': 'webhooks:write',
  'POST /v1/webhooks/:id/deliveries/:deliveryId/retry': 'webhooks:write',

  'GET /v1/domains': 'domains:read',
  'GET /v1/domains/:id': 'domains:read',
  'POST /v1/domains': 'domains:write',
  'DELETE /v1/domains/:id': 'domains:write',
  'POST /v1/domains/:id/verify': 'domains:write',
  'POST /v1/domains/:id/rotate': 'domains:write',

  'GET /v1/messages': 'messages:read',
  'GET /v1/messages/:id': 'messages:read',
};

export function requiredScope(method: string, routePath: string): Scope | undefined {
  return ROUTE_SCOPES[`${method.toUpperCase()} ${routePath}`];
}
