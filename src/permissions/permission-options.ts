import type { SettingValues } from '../common/settings/setting.js';
import type { PERMISSION_SETTINGS } from './permissions.settings.js';

/** The values of `PERMISSION_SETTINGS` in force (defaults applied). */
export type PermissionOptions = SettingValues<typeof PERMISSION_SETTINGS>;

export const PERMISSION_OPTIONS = Symbol('PERMISSION_OPTIONS');
