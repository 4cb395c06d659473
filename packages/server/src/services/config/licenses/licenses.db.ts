import type { ColumnType } from 'kysely';

/** JSON column: read as a value, written as its JSON text. */
type Json = ColumnType<unknown, string, string>;

/** One activated licence (the id is the lease's licenseId); `lease` is the text last accepted for it. */
export interface LicensesTable {
  id: string;
  lease: string;
  payload: Json;
  activated_at: Date;
  updated_at: Date;
}

/** One-time activation codes already used on this install. */
export interface LicenseCodesTable {
  code_id: string;
  license_id: string;
  used_at: Date;
}

/** Audit records written in the licence's transaction and delivered to the user service afterwards. */
export interface LicenseAuditOutboxTable {
  id: string;
  entry: Json;
  created_at: Date;
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
}
