import { describe, expect, it } from 'vitest';
import { DEFAULT_IMAGE_TABLE, imageRepository, ruleFor } from './image-table.js';

const runnerOf = (image: string, command?: string[]) =>
  ruleFor({ image, ...(command ? { command } : {}) }, DEFAULT_IMAGE_TABLE)?.runner;

describe('image table', () => {
  it('strips registry, library/, tag and digest', () => {
    expect(imageRepository('registry.k8s.io/gateway-api/conformance/echo-basic:v1.3.0')).toBe(
      'gateway-api/conformance/echo-basic',
    );
    expect(imageRepository('localhost:5000/haptic:dev')).toBe('haptic');
    expect(imageRepository('docker.io/library/haproxy:3.0@sha256:abc')).toBe('haproxy');
    expect(imageRepository('haproxytech/haproxy-debian:3.0')).toBe('haproxytech/haproxy-debian');
  });

  it('maps the upstream conformance echo image to haptic echo with the echo-basic profile', () => {
    const rule = ruleFor(
      { image: 'registry.k8s.io/gateway-api/conformance/echo-basic:v20240412' },
      DEFAULT_IMAGE_TABLE,
    );
    expect(rule).toMatchObject({ runner: 'echo', profile: 'echo-basic' });
    expect(runnerOf('gcr.io/k8s-staging-ingressconformance/echoserver:v20221109')).toBe('echo');
  });

  it("maps ingress-nginx's httpbun image to haptic echo with the httpbun profile", () => {
    const image =
      'registry.k8s.io/ingress-nginx/httpbun:v1.2.9@sha256:be2bdcaadd60c0208dde6d0f029106e1b82a9837dc7580e821ef4071de23777b';
    expect(ruleFor({ image }, DEFAULT_IMAGE_TABLE)).toMatchObject({
      runner: 'echo',
      profile: 'httpbun',
    });
    expect(ruleFor({ image: 'sharat87/httpbun' }, DEFAULT_IMAGE_TABLE)?.profile).toBe('httpbun');
    expect(ruleFor({ image: 'httpbun:latest' }, DEFAULT_IMAGE_TABLE)?.profile).toBe('httpbun');
  });

  it('maps haptic images and the HAProxy/Dataplane images', () => {
    expect(runnerOf('ghcr.io/example/haptic:0.1.0')).toBe('run');
    expect(runnerOf('ghcr.io/example/haptic-agent:0.1.0')).toBe('agent');
    expect(runnerOf('haproxytech/haproxy-debian:3.0', ['/usr/local/bin/dataplaneapi'])).toBe(
      'agent',
    );
    expect(runnerOf('haproxytech/haproxy-debian:3.0')).toBe('haproxy');
    expect(runnerOf('haproxy:2.6')).toBe('haproxy');
    // haptic's HAProxy image, as `npm run image` names it and the release workflow pushes it.
    expect(runnerOf('ghcr.io/haproxy-haptic/haproxy:3.0.11')).toBe('haproxy');
    expect(runnerOf('localhost/haproxy-haptic/haproxy:3.0.11')).toBe('haproxy');
  });

  it('has no runner for other images', () => {
    expect(runnerOf('nginx:1.27')).toBeUndefined();
    expect(runnerOf('example.com/not-haptic:1')).toBeUndefined();
  });
});
