// The Range reader moved to platform/http/file-delivery/range.ts (one module for storage and play-agent);
// sources.ts still imports it from here until its import is switched.
export {
  parseContentRange,
  rangeHeader,
  rangeLength,
  type ByteRange,
} from '../../../platform/http/file-delivery/range.js';
