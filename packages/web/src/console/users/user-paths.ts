/** API paths of user management. */
export const USERS_PATH = '/api/auth/admin/users';

export const userPath = (id: string) => `${USERS_PATH}/${encodeURIComponent(id)}`;

/** Where the console shows one user. */
export const userPagePath = (id: string) => `/console/users/${encodeURIComponent(id)}`;
