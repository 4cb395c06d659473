export * from './errors.js';
export * from './health.js';
export * from './deployment.js';
export * from './registry.js';
export * from './permissions.js';
export * from './auth-api.js';
export * from './users-api.js';
