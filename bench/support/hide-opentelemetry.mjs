// `node --import ./bench/support/hide-opentelemetry.mjs ...`: the process runs as
// if `@opentelemetry/api` were not installed (its resolution fails), so a bench
// can compare the daemon without the API to the daemon with it.
import { register } from 'node:module';

const hook = `
export async function resolve(specifier, context, next) {
  if (specifier === '@opentelemetry/api' || specifier.startsWith('@opentelemetry/api/')) {
    throw Object.assign(new Error('hidden by the bench: ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
