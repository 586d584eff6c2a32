// The daemon as `bin.js serve` starts it, but without the browser walls
// (Origin, Host, media type): only for `npm run bench`, which measures what
// they cost on a poll, against this, in the same run.
import 'reflect-metadata';
import { createApp } from '../../dist/daemon/create-app.js';
import { loadDaemonConfig } from '../../dist/daemon/daemon-config.js';

const config = loadDaemonConfig(process.env);
const app = await createApp(config, { browserWalls: false });
await app.listen(config.port, config.host);
console.log(`listening on ${(await app.getUrl()).replace('[::1]', '127.0.0.1')} (no browser walls)`);
const stop = () => app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
