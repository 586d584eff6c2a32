import type { DynamicModule, ForwardReference, ModuleMetadata, Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants.js';

type Import = NonNullable<ModuleMetadata['imports']>[number];

/**
 * Whether `module` is mounted anywhere under `imports`: a class imported as
 * is, a dynamic module of it (`forRoot`, `forRootAsync`), through promises,
 * `forwardRef`s and the modules' own imports, each module visited once.
 */
export async function importsModule(imports: ModuleMetadata['imports'], module: Type): Promise<boolean> {
  const seen = new Set<unknown>();
  const pending: Import[] = [...(imports ?? [])];
  // Bounded by the graph: every module is expanded once.
  while (pending.length > 0) {
    const entry = await pending.pop();
    if (!entry || seen.has(entry)) continue;
    seen.add(entry);
    if (isForwardReference(entry)) {
      pending.push(entry.forwardRef());
      continue;
    }
    const type = isDynamicModule(entry) ? entry.module : entry;
    if (type === module) return true;
    if (isDynamicModule(entry)) pending.push(...(entry.imports ?? []), type);
    else pending.push(...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, type) as Import[] | undefined) ?? []));
  }
  return false;
}

function isForwardReference(entry: object): entry is ForwardReference {
  return typeof (entry as Partial<ForwardReference>).forwardRef === 'function';
}

function isDynamicModule(entry: object): entry is DynamicModule {
  return typeof entry === 'object' && 'module' in entry;
}
