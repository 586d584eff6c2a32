import { integer, text } from './readers.js';
import { defaultsOf, pickSettings, shownDefault, valuesOf } from './setting.js';

const SETTINGS = {
  port: { name: 'PORT', ...integer(0, 9), default: 7, doc: 'port' },
  home: { name: 'HOME_DIR', ...text, default: (cwd: string) => cwd, defaultText: 'the cwd', doc: 'where' },
  token: { name: 'TOKEN', ...text, doc: 'secret' },
} as const;

describe('settings rows', () => {
  it('gives a consumer the plain defaults only (a default of the working directory is the loader’s)', () => {
    expect(defaultsOf(SETTINGS)).toEqual({ port: 7 });
  });

  it('picks a feature’s fields out of a whole configuration, leaving the unset ones out', () => {
    expect(pickSettings({ port: 3, token: undefined, other: 1 }, SETTINGS)).toEqual({ port: 3 });
  });

  it('completes given values with the plain defaults: a feature’s values in force', () => {
    expect(valuesOf(SETTINGS, { token: 't' })).toEqual({ port: 7, token: 't' });
    expect(valuesOf(SETTINGS, { port: 0, home: '/h' })).toEqual({ port: 0, home: '/h' });
  });

  it('shows a default as help and the docs do', () => {
    expect([shownDefault(SETTINGS.port), shownDefault(SETTINGS.home), shownDefault(SETTINGS.token)]).toEqual(['7', 'the cwd', undefined]);
  });
});
