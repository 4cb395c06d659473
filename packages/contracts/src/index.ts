export * from './errors.js';
export * from './health.js';
export * from './deployment.js';
export * from './registry.js';
