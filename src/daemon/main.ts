import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError, loadDaemonConfig } from './daemon-config.js';
import { createApp } from './create-app.js';

/**
 * Starts the daemon from the environment and command-line flags. Exits with
 * code 2 and one line on a configuration error.
 *
 * @publicApi
 */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  let config;
  try {
    config = loadDaemonConfig(process.env, argv);
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof TypeError)) throw error;
    console.error(`nest-turn-status: ${error.message}`);
    process.exit(2);
  }
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  // The token is never logged; only whether one is required.
  new Logger('Daemon').log(
    `listening on http://${config.host}:${config.port} (engine ${config.agent}, adapter ${config.httpAdapter}, auth ${config.token ? 'bearer' : 'off'}, workspaces ${config.workspaces.join(', ')})`,
  );
}
