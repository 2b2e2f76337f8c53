import { describe, expect, it } from 'vitest';
import { contentHash } from './render-outputs.js';
import type { RenderedOutputs } from './types.js';

const outputs = (cert: string, map = 'a.com/ be_a\n'): RenderedOutputs => ({
  haproxyConfig: 'global\n',
  maps: { 'exact.map': map },
  files: {},
  sslCertificates: { 'a.pem': cert },
  crtLists: {},
});

describe('contentHash', () => {
  it('is the same for equal outputs whatever was hashed before, and differs when one differs', () => {
    const a = contentHash(outputs('CERT-A'));
    const b = contentHash(outputs('CERT-B'));
    expect(b).not.toBe(a);
    // equal content in new strings, after other outputs were hashed
    expect(contentHash(outputs(['CERT', 'A'].join('-')))).toBe(a);
    expect(contentHash(outputs('CERT-A', 'a.com/ be_b\n'))).not.toBe(a);
    // a name moved between sections is another output
    const moved = { ...outputs('CERT-A'), sslCertificates: {}, files: { 'a.pem': 'CERT-A' } };
    expect(contentHash(moved)).not.toBe(a);
    expect(contentHash(outputs('CERT-A'))).toBe(a);
  });
});
