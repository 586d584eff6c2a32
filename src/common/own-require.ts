import { createRequire } from 'node:module';

/**
 * This file, read off the stack of its own evaluation: the ESM build has no
 * `require`, and `import.meta` cannot be written in a source the CommonJS
 * build compiles too.
 */
const THIS_FILE = /\(?((?:file:\/\/)?[^\s()]+?):\d+:\d+\)?$/.exec(new Error().stack?.split('\n')[1]?.trim() ?? '')?.[1];

/**
 * A `require` that resolves from this package, in either build: for what must
 * load synchronously (decorators run while classes are defined) or be looked
 * up without loading it. `require` itself in the CommonJS build and Jest.
 */
export const ownRequire: NodeJS.Require = typeof require === 'function' ? require : createRequire(THIS_FILE ?? `${process.cwd()}/`);
