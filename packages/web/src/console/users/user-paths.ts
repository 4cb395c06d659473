/** Where the console shows one user (a page of the app, not an API path: those come from endpoints.user). */
export const userPagePath = (id: string) => `/console/users/${encodeURIComponent(id)}`;
