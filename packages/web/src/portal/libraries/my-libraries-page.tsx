import { Route, Routes } from 'react-router';
import { registerMessages } from '../../i18n/i18n.js';
import { NotFoundPage } from '../../shell/page-route.js';
import { ItemDetails } from './item-details.js';
import { librariesMessages } from './libraries-messages.js';
import { LibraryBrowser } from './library-browser.js';

registerMessages('myLibraries', librariesMessages);

/**
 * My libraries: the libraries as tabs with a poster grid and search (index), and an item's details with
 * the web player (`items/:id`).
 *
 * Web playback streams straight from a play-agent, not through the portal: `<video src>` is
 * `<play-agent>/Videos/<playbackItemId>/stream?static=true&api_key=<access token>` (the play-agent accepts
 * the portal's `svc_acc_` token as `api_key`). The play-agent address is the first of the account's
 * playback routes that is online and has a url (GET /api/config/me/playback-routes), so the same node
 * access and quotas apply as for any player. Until an administrator sets an external address, the built-in
 * play-agent's route is its direct address: the host the portal was reached with and the port the
 * play-agent really listens on. Only when no route has a url does it guess
 * `${location.protocol}//${location.hostname}:19090` (see playback/play-agent-base.ts). Playback is
 * reported to that play-agent as Emby clients do (playback/use-playback-reports.ts), so it shows in the
 * activity log.
 */
export default function MyLibrariesPage() {
  return (
    <Routes>
      <Route index element={<LibraryBrowser />} />
      <Route path="items/:id" element={<ItemDetails />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
