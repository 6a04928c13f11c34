import type { ImportFormat } from '../../../../shared/domain';
import { ambignq } from './ambignq';
import { asqa } from './asqa';
import { awb } from './awb';
import { condambigqa } from './condambigqa';
import type { SourceFormat } from './format';
import { musique } from './musique';

export const FORMATS: Record<ImportFormat, SourceFormat<unknown>> = {
  musique: musique,
  asqa: asqa,
  ambignq: ambignq,
  condambigqa: condambigqa,
  awb: awb,
};

export type { SourceFormat } from './format';
