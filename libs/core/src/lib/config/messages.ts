import type { ValidationOptions } from 'class-validator';

/** Plain reasons shared by the config classes (the path is added by the walker). */
export const REQUIRED: ValidationOptions = { message: 'is required' };
export const STRING: ValidationOptions = { message: 'must be a string' };
export const NONEMPTY: ValidationOptions = { message: 'must not be empty' };
export const BOOLEAN: ValidationOptions = { message: 'must be true or false' };
export const STRING_LIST: ValidationOptions = { message: 'must be a list of strings' };
export const oneOf = (values: readonly string[]): ValidationOptions => ({
  message: `must be one of: ${values.join(', ')}`,
});
export const intRange = (min: number, max: number): ValidationOptions => ({
  message: `must be an integer from ${min} to ${max}`,
});
/** DNS-1123 subdomain: Kubernetes object names. */
export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const NAME: ValidationOptions = {
  message: 'must be a Kubernetes name (lower-case letters, digits, "-" and ".")',
};
