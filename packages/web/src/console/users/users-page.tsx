import { Route, Routes } from 'react-router';
import { registerMessages } from '../../i18n/i18n.js';
import { UserDetail } from './user-detail.js';
import { UsersList } from './users-list.js';
import { usersMessages } from './users-messages.js';

registerMessages('users', usersMessages);

/** User management (permission `user`): the list at /console/users, one account at /console/users/:id. */
export default function UsersPage() {
  return (
    <Routes>
      <Route index element={<UsersList />} />
      <Route path=":id" element={<UserDetail />} />
    </Routes>
  );
}
