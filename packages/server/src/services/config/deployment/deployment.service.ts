import type { CapabilitiesResponse, LicenseStatusResponse } from '@svc/contracts';
import type { DeploymentRepository } from './deployment.repository.js';

export interface EmbeddedNodeIds {
  storage: string;
  playAgent: string;
}

/**
 * Edition and licence facts. The edition lives in the config database, never in the environment:
 * changing a variable or the compose profile does not change it.
 */
export class DeploymentService {
  constructor(
    private readonly repository: DeploymentRepository,
    private readonly embeddedNodes: EmbeddedNodeIds,
    private readonly licenses: { status(): Promise<LicenseStatusResponse> },
  ) {}

  async capabilities(): Promise<CapabilitiesResponse> {
    const edition = await this.repository.edition();
    return {
      edition,
      deploymentMode: edition === 'STANDALONE' ? 'standalone' : 'distributed',
      embeddedNodes: this.embeddedNodes,
      externalNodes: edition === 'DISTRIBUTED',
    };
  }

  /** The licence status (licenses/license.service.ts): NONE before any licence is activated. */
  async licenseStatus(): Promise<LicenseStatusResponse> {
    return this.licenses.status();
  }
}
