import { parse } from 'yaml';
import { errors } from './status.js';
import { isObject } from './types.js';

/** The applied configuration of an apply patch (YAML or JSON text), which must be one object. */
export function parseApplyBody(body: unknown): Record<string, unknown> {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = parse(body);
    } catch (e) {
      throw errors.badRequest(`error decoding YAML: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (!isObject(value)) throw errors.badRequest('the apply patch must be one object');
  if (typeof value.apiVersion !== 'string' || value.apiVersion === '')
    throw errors.badRequest('apiVersion must be set in the applied configuration');
  if (typeof value.kind !== 'string' || value.kind === '')
    throw errors.badRequest('kind must be set in the applied configuration');
  if (isObject(value.metadata) && value.metadata.managedFields !== undefined)
    throw errors.badRequest('metadata.managedFields must be nil');
  return value;
}
