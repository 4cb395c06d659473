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

  /** Before any licence is activated the status is NONE; licences arrive with the node lifecycle. */
  async licenseStatus(): Promise<LicenseStatusResponse> {
    return {
      status: 'NONE',
      activated: false,
      edition: await this.repository.edition(),
      maxStorageNodes: 0,
      maxPlayAgentNodes: 0,
      validUntil: null,
      graceUntil: null,
    };
  }
}
