import { AppError } from '../../../shared/api';
import { ConstructionConfig } from '../../../shared/construction';
import { readConfigFile } from './run';

/**
 * The config of rounds, labelling and the QA layer: a pipeline config (its endpoints, generator
 * and prices), given inline or as a file on the server, checked before a job exists.
 */
export function readConstructionConfig(config: unknown, configPath: string | undefined): ConstructionConfig {
  const value = configPath === undefined ? config : readConfigFile(configPath);
  const parsed = ConstructionConfig.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_input', `Config ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  const refs = [parsed.data.generator, ...(parsed.data.labellers ?? [])];
  const missing = refs.find((r) => !parsed.data.endpoints[r.endpoint]);
  if (missing) throw new AppError('invalid_input', `Config: no endpoint named "${missing.endpoint}" (${Object.keys(parsed.data.endpoints).join(', ')})`);
  return parsed.data;
}
