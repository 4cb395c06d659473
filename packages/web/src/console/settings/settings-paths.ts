/** Endpoints the logo card still calls by path (to be read from endpoints.user / endpoints.config). */
export const ADMIN_BRANDING_PATH = '/api/auth/admin/branding';
export const LOGO_PATH = '/api/auth/admin/branding/logo';
export const IMAGE_UPLOAD_PATH = '/api/config/uploads/image';
