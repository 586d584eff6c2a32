import { RequestMethod, type INestApplication } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';

/** One route: an HTTP method and a path pattern (`session/:id/turns`, `docs/*`). */
export interface Route {
  readonly method: string;
  readonly path: string;
}

interface Pattern {
  readonly segments: string[];
  readonly prefix: boolean;
  readonly methods: Set<string>;
}

const segmentsOf = (path: string) => path.split('/').filter((segment) => segment !== '');

/**
 * The methods each path of the app answers, for answering a method it does
 * not (`405` with `Allow`) before the framework routes it. A `:param`
 * segment matches any non-empty segment, a trailing `*` any rest; matching is
 * on the raw (still percent-encoded) path, case-sensitive. `HEAD` comes with every `GET` (both
 * adapters answer it), `OPTIONS` with every path (the gate answers it).
 */
export class RouteTable {
  private readonly patterns: Pattern[] = [];

  constructor(routes: Iterable<Route>) {
    const byPath = new Map<string, Pattern>();
    for (const { method, path } of routes) {
      const segments = segmentsOf(path);
      const prefix = segments.at(-1) === '*';
      if (prefix) segments.pop();
      const key = `${segments.map((s) => (s.startsWith(':') ? ':' : s)).join('/')}${prefix ? '/*' : ''}`;
      let pattern = byPath.get(key);
      if (!pattern) {
        pattern = { segments, prefix, methods: new Set(['OPTIONS']) };
        byPath.set(key, pattern);
        this.patterns.push(pattern);
      }
      pattern.methods.add(method);
      if (method === 'GET') pattern.methods.add('HEAD');
    }
  }

  /** The methods `pathname` answers, sorted, or `undefined` when no route has that path. */
  allowed(pathname: string): string[] | undefined {
    // Empty segments kept: `/health/` and `//health` are not `/health` (the frameworks' 404).
    const segments = pathname.slice(1).split('/');
    let methods: Set<string> | undefined;
    for (const pattern of this.patterns) {
      if (!matches(pattern, segments)) continue;
      methods ??= new Set();
      for (const method of pattern.methods) methods.add(method);
    }
    return methods && [...methods].sort();
  }
}

function matches(pattern: Pattern, segments: string[]): boolean {
  if (pattern.prefix ? segments.length <= pattern.segments.length : segments.length !== pattern.segments.length) return false;
  return pattern.segments.every((expected, i) => (expected.startsWith(':') ? segments[i] !== '' : expected === segments[i]));
}

/** Every route the app's controllers declare (Nest's own metadata, so both adapters alike). */
export function controllerRoutes(app: INestApplication): Route[] {
  const scanner = new MetadataScanner();
  const routes: Route[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (typeof metatype !== 'function') continue;
      const bases = [Reflect.getMetadata(PATH_METADATA, metatype) ?? '/'].flat() as string[];
      for (const name of scanner.getAllMethodNames(metatype.prototype)) {
        const handler = metatype.prototype[name];
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const paths = [Reflect.getMetadata(PATH_METADATA, handler) ?? '/'].flat() as string[];
        for (const base of bases) for (const path of paths) routes.push({ method: RequestMethod[method], path: `${base}/${path}` });
      }
    }
  }
  return routes;
}
