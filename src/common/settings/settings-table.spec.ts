import { integer, text } from './readers.js';
import { settingsTable } from './settings-table.js';

describe('settingsTable', () => {
  it('writes one row a setting: a plain default in code, a described one as text, none as a dash', () => {
    const table = settingsTable({
      port: { name: 'PORT', ...integer(0, 9), default: 7, doc: 'port' },
      home: { name: 'HOME_DIR', ...text, default: () => '/x', defaultText: 'the home', doc: 'where' },
      token: { name: 'TOKEN', ...text, doc: 'a `secret`' },
    });
    expect(table.split('\n').slice(2)).toEqual([
      '| `TURNS_PORT` | `7` | port |',
      '| `TURNS_HOME_DIR` | the home | where |',
      '| `TURNS_TOKEN` | — | a `secret` |',
    ]);
  });
});
