/** The lock plugin's public entry: the `lock` service type other plugins consume (`requires: ['lock']`). */
export type { LockService } from './service.ts';
