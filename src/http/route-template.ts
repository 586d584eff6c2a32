/** Where a request's route template is stamped for the request log and metrics (`/session/:id/turns/:promptId`). */
const ROUTE_TEMPLATE = Symbol('nest-turn-status.routeTemplate');

/** Records the route a request was matched to (or a fixed name, such as `forwarded`). */
export function setRouteTemplate(request: object, route: string): void {
  (request as { [ROUTE_TEMPLATE]?: string })[ROUTE_TEMPLATE] = route;
}

/** The route template stamped on a request, if any. */
export function stampedRouteTemplate(request: object): string | undefined {
  return (request as { [ROUTE_TEMPLATE]?: string })[ROUTE_TEMPLATE];
}
