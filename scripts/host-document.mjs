// What a host's stock Swagger document says of the turn routes: `SwaggerModule.createDocument(app, config)` as
// Nest's docs show it, over `TurnsModule.forRoot({ clientIdHeader: 'X-Acme-Client', maxWaitMs: 7000 })` (the testing
// kit's in-memory ports), with no post-processing.
//   node scripts/host-document.mjs [package root]   (its dist/: run `npm run build` there first)
// Prints, per turn operation, its header parameters and waitMs maximum, then the ErrorCode enum.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

const root = resolve(process.argv[2] ?? '.');
const { createTurnsTestingApp } = await import(pathToFileURL(resolve(root, 'dist/testing/index.js')).href);
const { app } = await createTurnsTestingApp({ clientIdHeader: 'X-Acme-Client', maxWaitMs: 7000 });
const document = SwaggerModule.createDocument(app, new DocumentBuilder().setTitle('Acme agents').build());
for (const [path, item] of Object.entries(document.paths)) {
  if (!path.includes('/turns')) continue;
  const parameters = item.get?.parameters ?? [];
  const headers = parameters.filter((p) => p.in === 'header' && !['If-None-Match', 'Prefer'].includes(p.name));
  const waitMs = parameters.find((p) => p.name === 'waitMs');
  console.log(
    `${path}: headers ${headers.map((p) => p.name).join(', ')}; waitMs maximum ${waitMs ? (waitMs.schema?.maximum ?? 'none') : '-'}`,
  );
}
const codes = document.components?.schemas?.ErrorCode?.enum ?? [];
console.log(`ErrorCode (${codes.length}): ${codes.join(', ')}`);
await app.close();
