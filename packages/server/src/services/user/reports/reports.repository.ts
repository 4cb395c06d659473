import type { Kysely } from 'kysely';
import type { DatabaseBackend } from '../../../platform/db/index.js';
import type { UserDatabase } from '../user.db.js';
import { DevicesRepository } from './devices.repository.js';
import { RankingsRepository } from './rankings.repository.js';
import { ReportReader } from './report-reader.js';
import { TimeSeriesRepository } from './time-series.repository.js';
import { UserReportRepository } from './user-report.repository.js';

export type * from './report-rows.js';

/** The playback report's repositories, by capability, over one shared reader (docs/report.md). */
export interface ReportRepositories {
  timeSeries: TimeSeriesRepository;
  rankings: RankingsRepository;
  devices: DevicesRepository;
  users: UserReportRepository;
}

export function reportRepositories(db: Kysely<UserDatabase>, backend: DatabaseBackend): ReportRepositories {
  const reader = new ReportReader(db, backend);
  return {
    timeSeries: new TimeSeriesRepository(reader),
    rankings: new RankingsRepository(reader),
    devices: new DevicesRepository(reader),
    users: new UserReportRepository(reader),
  };
}
