// Renders the daemon's Swagger UI in headless Chromium (Debian package
// `chromium`) and checks that every operation is on the page.
//   node scripts/swagger-ui-check.mjs <daemon base url> [screenshot.png]
// Prints the number of rendered operations; exits 1 when the UI did not render.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [base, screenshot] = process.argv.slice(2);
const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const profile = mkdtempSync(join(tmpdir(), 'turns-chromium-'));
const flags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--user-data-dir=${profile}`,
  '--virtual-time-budget=10000',
  '--window-size=1280,2400',
];
try {
  const document = await (await fetch(`${base}/docs-json`)).json();
  const expected = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  const dom = execFileSync(CHROMIUM, [...flags, '--dump-dom', `${base}/docs`], {
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const rendered = (dom.match(/class="opblock opblock-/g) ?? []).length;
  if (screenshot) execFileSync(CHROMIUM, [...flags, `--screenshot=${screenshot}`, `${base}/docs`], { timeout: 60_000, stdio: 'ignore' });
  console.log(`swagger ui: ${rendered} of ${expected} operations rendered`);
  process.exit(rendered === expected && expected > 0 ? 0 : 1);
} finally {
  rmSync(profile, { recursive: true, force: true });
}
