import type { ImportFormat } from '../../../../shared/domain';
import { ambignq } from './ambignq';
import { asqa } from './asqa';
import { awb } from './awb';
import { condambigqa } from './condambigqa';
import type { SourceFormat } from './format';
import { musique } from './musique';
import { squad2 } from './squad2';

export const FORMATS: Record<ImportFormat, SourceFormat<unknown>> = {
  musique: musique,
  asqa: asqa,
  ambignq: ambignq,
  condambigqa: condambigqa,
  squad2: squad2,
  awb: awb,
};

export type { SourceFormat } from './format';
