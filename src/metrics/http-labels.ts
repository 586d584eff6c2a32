/** Methods the daemon answers; any other is labelled `other`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The labels of one HTTP exchange. The route is a template the framework
 * matched (or one of a few fixed names), the method one of a fixed set, the
 * status a three-digit code: a client choosing ids, paths or methods cannot
 * add series.
 */
export function httpLabels(method: string | undefined, route: string, status: number): { method: string; route: string; status: string } {
  return {
    method: method && METHODS.has(method) ? method : 'other',
    route,
    status: Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other',
  };
}
