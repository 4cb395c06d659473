import { Button } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconFileTypeCsv } from '@tabler/icons-react';
import type { ReportGranularity } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { buildReportCsv, reportCsvFileName, type ReportCsvLabels } from '../report-csv.js';
import { useOverview, useTimeline } from '../report-queries.js';
import type { WindowQuery } from '../report-window.js';
import { downloadText } from './download.js';

/**
 * Downloads the CSV of what the page shows: the same overview and timeline answers as the cards and the
 * chart (shared cache entries), built in the browser.
 */
export function ExportCsvButton({
  reportWindow,
  granularity,
}: {
  reportWindow: WindowQuery | undefined;
  granularity: ReportGranularity;
}) {
  const { t } = useTranslation('reports');
  const overview = useOverview(reportWindow);
  const timeline = useTimeline(reportWindow, granularity);
  const ready =
    reportWindow !== undefined &&
    overview.isSuccess &&
    timeline.isSuccess &&
    !overview.isPlaceholderData &&
    !timeline.isPlaceholderData;
  return (
    <Button
      variant="default"
      leftSection={<IconFileTypeCsv size={16} />}
      disabled={!ready}
      data-testid="export-csv"
      onClick={() => {
        if (!overview.data || !timeline.data) return;
        const labels = t('csv', { returnObjects: true }) as ReportCsvLabels;
        const fileName = reportCsvFileName(overview.data.range, timeline.data.granularity);
        downloadText(buildReportCsv(overview.data, timeline.data, labels), fileName);
        notifications.show({ color: 'teal', message: t('exported', { file: fileName }) });
      }}
    >
      {t('exportCsv')}
    </Button>
  );
}
