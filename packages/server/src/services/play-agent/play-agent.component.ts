import { createServer } from '../../platform/http/create-server.js';
import type { ComponentFactory } from '../../runtime/component.js';

/** Play-agent (19090): the playback endpoint players connect to. Streaming must never wait on a report. */
export const createPlayAgentComponent: ComponentFactory = async (context) => {
  const { playAgent } = context.settings;
  const app = createServer({
    serviceToken: context.serviceToken,
    component: 'play-agent',
    logger: context.logger.child({ component: 'play-agent', nodeId: playAgent.nodeId }),
    // Downloads of large files may take hours; the request timeout only bounds receiving the request.
    requestTimeoutMs: 0,
  });
  return {
    name: 'play-agent',
    app,
    host: playAgent.listenHost,
    port: playAgent.listenPort,
    registration: { service: 'svc-play-agent', nodeId: playAgent.nodeId },
  };
};
