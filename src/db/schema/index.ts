export * from './organizations.js';
export * from './integrations.js';
export * from './posts.js';
export * from './notifications.js';
export * from './system.js';
export * from './webhooks.js';
export * from './accounts.js';
export * from './oauth.js';
