import { Route, Routes } from 'react-router';
import { registerMessages } from '../../i18n/i18n.js';
import { NodeDetail } from './node-detail.js';
import { NodesList } from './nodes-list.js';
import { nodesMessages } from './nodes-messages.js';

registerMessages('nodes', nodesMessages);

/** Node management (permission `node`): the list at /console/nodes, one node at /console/nodes/:nodeId. */
export default function NodesPage() {
  return (
    <Routes>
      <Route index element={<NodesList />} />
      <Route path=":nodeId" element={<NodeDetail />} />
    </Routes>
  );
}
