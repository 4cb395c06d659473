import { Route, Routes } from 'react-router';
import { registerMessages } from '../../i18n/i18n.js';
import { NotFoundPage } from '../../shell/page-route.js';
import { storageMessages } from '../storage/storage-messages.js';
import { ItemDetail } from './item-detail.js';
import { librariesMessages } from './libraries-messages.js';
import { LibraryDetail } from './library-detail.js';
import { LibraryList } from './library-list.js';

registerMessages('libraries', librariesMessages);
// The folder picker of the source dialog speaks the storage page's words.
registerMessages('storage', storageMessages);

/** The console's libraries: list, create/edit with folder browsing, scans with live progress, items. */
export default function LibrariesPage() {
  return (
    <Routes>
      <Route index element={<LibraryList />} />
      <Route path=":libraryId" element={<LibraryDetail />} />
      <Route path=":libraryId/items/:itemId" element={<ItemDetail />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
