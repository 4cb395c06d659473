/** Replaced at bundle time with the package version; falls back for source runs. */
declare const __SVC_VERSION__: string | undefined;
export const SVC_VERSION: string = typeof __SVC_VERSION__ === 'string' ? __SVC_VERSION__ : '0.0.0-dev';
