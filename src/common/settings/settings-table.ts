import { shownDefault, type Settings } from './setting.js';

/** The header of the settings table in the docs. */
export const SETTINGS_TABLE_HEADER = '| variable | default | meaning |\n|---|---|---|';

/**
 * The docs' table (markdown: a `defaultText` may carry its own backticks) of `settings` (docs/configuration.md): variable, default,
 * meaning, one row each, in their order — written from the rows, never by hand.
 */
export function settingsTable(settings: Settings): string {
  const rows = Object.values(settings).map((setting) => {
    const shown = shownDefault(setting);
    const value = shown === undefined ? '—' : setting.defaultText !== undefined ? shown : `\`${shown}\``;
    return `| \`TURNS_${setting.name}\` | ${value} | ${setting.doc} |`;
  });
  return [SETTINGS_TABLE_HEADER, ...rows].join('\n');
}
