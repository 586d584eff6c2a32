import { RequestMethod, type INestApplication } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { PathRoutes, RouteInfo, RouteMatcher } from '../http/front-door.js';
import { IS_PUBLIC } from '../http/public.decorator.js';

/** One route: an HTTP method, a path pattern (`session/:id/turns`, `docs/*`), and whether it is public. */
export interface Route {
  readonly method: string;
  readonly path: string;
  readonly public?: boolean;
  /** Its name in the request log and metrics. @default the pattern, with a leading `/` */
  readonly template?: string;
}

interface Pattern {
  readonly index: number;
  readonly segments: string[];
  /** The segments as matched: a literal, or `null` for a `:param` (any non-empty segment). */
  readonly parts: Array<string | null>;
  readonly prefix: boolean;
  readonly byMethod: Map<string, RouteInfo>;
}

const segmentsOf = (path: string) => path.split('/').filter((segment) => segment !== '');

/** The routes of the patterns one path matches, united once (a matched path then costs no allocation). */
class MatchedRoutes implements PathRoutes {
  readonly allowed: readonly string[];
  private readonly byMethod = new Map<string, RouteInfo>();

  constructor(patterns: readonly Pattern[]) {
    // Static segments first (as the frameworks route), so `session/load` beats `session/:id`.
    const ranked = [...patterns].sort((a, b) => params(a) - params(b));
    for (const pattern of ranked)
      for (const [method, info] of pattern.byMethod) if (!this.byMethod.has(method)) this.byMethod.set(method, info);
    const methods = new Set([...this.byMethod.keys(), 'OPTIONS']);
    if (methods.has('GET')) methods.add('HEAD');
    this.allowed = [...methods].sort();
  }

  route(method: string): RouteInfo | undefined {
    return this.byMethod.get(method === 'HEAD' ? 'GET' : method);
  }
}

const params = (pattern: Pattern) => pattern.segments.filter((s) => s.startsWith(':')).length;

/**
 * The routes each path of the app has, for the front door: the methods it
 * answers (`405` with `Allow` for another), and per method the route's
 * template and whether it is public. A `:param` segment matches any non-empty
 * segment, a trailing `*` any rest; matching is on the raw (still
 * percent-encoded) path, case-sensitive. `HEAD` comes with every `GET` (both
 * adapters answer it), `OPTIONS` with every path (the gate answers it).
 */
export class RouteTable implements RouteMatcher {
  private readonly patterns: Pattern[] = [];
  /** The routes of a path that matches one pattern only (most paths), by the pattern's index. */
  private readonly single: MatchedRoutes[];
  /** United routes by the indices of the patterns matched: one entry per distinct combination, so bounded. */
  private readonly united = new Map<string, MatchedRoutes>();
  /** The patterns without a trailing `*`, by their number of segments: a path is tried against its count's only. */
  private readonly bySegments = new Map<number, Pattern[]>();
  private readonly prefixed: Pattern[] = [];
  private readonly slashes: number[] = [];

  constructor(routes: Iterable<Route>) {
    const byPath = new Map<string, Pattern>();
    for (const route of routes) {
      const segments = segmentsOf(route.path);
      const prefix = segments.at(-1) === '*';
      if (prefix) segments.pop();
      const key = `${segments.map((s) => (s.startsWith(':') ? ':' : s)).join('/')}${prefix ? '/*' : ''}`;
      let pattern = byPath.get(key);
      if (!pattern) {
        const parts = segments.map((segment) => (segment.startsWith(':') ? null : segment));
        pattern = { index: this.patterns.length, segments, parts, prefix, byMethod: new Map() };
        byPath.set(key, pattern);
        this.patterns.push(pattern);
      }
      const template = route.template ?? `/${segments.join('/')}${prefix ? '/*' : ''}`;
      pattern.byMethod.set(route.method, { template, public: route.public === true });
    }
    this.single = this.patterns.map((pattern) => new MatchedRoutes([pattern]));
    for (const pattern of this.patterns) {
      if (pattern.prefix) this.prefixed.push(pattern);
      else this.bySegments.set(pattern.parts.length, [...(this.bySegments.get(pattern.parts.length) ?? []), pattern]);
    }
  }

  /** The routes of `pathname`, or `undefined` when no route has that path. */
  match(pathname: string): PathRoutes | undefined {
    // Where each segment ends, found once for every pattern tried (a scratch array: no allocation a request).
    const slashes = this.slashes;
    let count = 0;
    for (let slash = pathname.indexOf('/'); slash !== -1; slash = pathname.indexOf('/', slash + 1)) slashes[count++] = slash;
    if (count === 0 || slashes[0] !== 0) return undefined;
    slashes[count] = pathname.length;
    let first: Pattern | undefined;
    let key: string | undefined;
    for (const pattern of this.bySegments.get(count) ?? NONE) {
      if (!matches(pattern, pathname, slashes)) continue;
      if (!first) first = pattern;
      else key = `${key ?? first.index},${pattern.index}`;
    }
    for (const pattern of this.prefixed) {
      if (count <= pattern.parts.length || !matches(pattern, pathname, slashes)) continue;
      if (!first) first = pattern;
      else key = `${key ?? first.index},${pattern.index}`;
    }
    if (!first) return undefined;
    if (key === undefined) return this.single[first.index];
    let routes = this.united.get(key);
    if (!routes) {
      routes = new MatchedRoutes(this.patterns.filter((pattern) => key!.split(',').includes(String(pattern.index))));
      this.united.set(key, routes);
    }
    return routes;
  }

  /** The methods `pathname` answers, sorted, or `undefined` when no route has that path. */
  allowed(pathname: string): readonly string[] | undefined {
    return this.match(pathname)?.allowed;
  }
}

/**
 * Whether `path` fits `pattern`, given where its segments end (`slashes[i]`: the `/` before segment
 * `i`; the last entry the path's length); its segment count is checked by the caller. Empty
 * segments count: `/health/` and `//health` are not `/health` (the frameworks' 404).
 */
function matches(pattern: Pattern, path: string, slashes: number[]): boolean {
  for (let i = 0; i < pattern.parts.length; i++) {
    const part = pattern.parts[i]!;
    const start = slashes[i]! + 1;
    const end = slashes[i + 1]!;
    if (part === null ? end === start : end - start !== part.length || !path.startsWith(part, start)) return false;
  }
  return true;
}

const NONE: Pattern[] = [];

/** Every route the app's controllers declare (Nest's own metadata, so both adapters alike). */
export function controllerRoutes(app: INestApplication): Route[] {
  const scanner = new MetadataScanner();
  const routes: Route[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (typeof metatype !== 'function') continue;
      const bases = [Reflect.getMetadata(PATH_METADATA, metatype) ?? '/'].flat() as string[];
      const publicClass = Reflect.getMetadata(IS_PUBLIC, metatype) === true;
      for (const name of scanner.getAllMethodNames(metatype.prototype)) {
        const handler = metatype.prototype[name];
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const paths = [Reflect.getMetadata(PATH_METADATA, handler) ?? '/'].flat() as string[];
        const isPublic = publicClass || Reflect.getMetadata(IS_PUBLIC, handler) === true;
        for (const base of bases) {
          for (const path of paths) routes.push({ method: RequestMethod[method], path: `${base}/${path}`, public: isPublic });
        }
      }
    }
  }
  return routes;
}
