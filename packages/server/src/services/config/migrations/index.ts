import { clusterLicenceLeaseMigration } from './V010__cluster_licence_lease.js';
import type { Migration } from '../../../platform/db/index.js';
import { registryAndDeployment } from './V001__registry_and_deployment.js';
import { nodes } from './V002__nodes.js';
import { systemSettings } from './V003__system_settings.js';
import { nodeCredentialsAndAddresses } from './V004__node_credentials_and_addresses.js';
import { licensesMigration } from './V005__licenses.js';
import { nodeManagementMigration } from './V006__node_management.js';
import { nodeRemovalSentMigration } from './V007__node_removal_sent.js';
import { imageUploadsMigration } from './V008__image_uploads.js';
import { nodeCacheConfigsMigration } from './V009__node_cache_configs.js';

/**
 * The migrations of the config database (svc_config), one file each, in the order they run. A migration's
 * name is what the database records as applied: never rename one, and add new ones at the end.
 */
export const configMigrations: readonly Migration[] = [
  registryAndDeployment,
  nodes,
  systemSettings,
  nodeCredentialsAndAddresses,
  licensesMigration,
  nodeManagementMigration,
  nodeRemovalSentMigration,
  imageUploadsMigration,
  nodeCacheConfigsMigration,
  clusterLicenceLeaseMigration,
];
